# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

x = np.array([3, -1, 4, 1, -5, 9, 2, 6, 9], np.float32)
print("sum", prism.sum(x), "min", prism.min(x), "max", prism.max(x), "minmax", *prism.minmax(x))
print("argmin", prism.argmin(x), "argmax", prism.argmax(x))  # of equal values, the first index
print("mean", f"{prism.mean(x):.6g}", "variance", f"{prism.variance(x):.6g}")  # float32: the last digit depends on the order of the adds
print("dot", prism.dot(x, x), "norm1", prism.norm1(x), "norm_inf", prism.norm_inf(x))
print("count of 9", prism.count(x, 9), "any < -4", prism.any(x, "<", -4), "all > -6", prism.all(x, ">", -6))
