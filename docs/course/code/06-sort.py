# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

x = np.array([3.5, -1.0, np.inf, 0.0, -0.0, -np.inf, 2.0, -1.0], np.float32)
print("sort            ", prism.sort(x))
print("descending      ", prism.sort(x, descending=True))
print("argsort         ", prism.argsort(x))  # stable: equal keys keep their order
keys = np.array([2, 0, 1, 0, 2, 1], np.int32)
values = np.array([10, 11, 12, 13, 14, 15], np.float32)
print("sort_by_key     ", *prism.sort_by_key(keys, values))
