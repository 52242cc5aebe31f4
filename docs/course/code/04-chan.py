# SPDX-License-Identifier: Apache-2.0
# The variance of 10000 +- 1 in float32: the textbook one-pass formula against Chan's combine.
import numpy as np
import prism_primitives as prism

x = (10000 + np.tile(np.array([-1, 1], np.float32), 1 << 19)).astype(np.float32)  # variance exactly 1
mean_of_squares = np.mean(x * x, dtype=np.float32)
square_of_mean = np.float32(np.mean(x, dtype=np.float32)) ** 2
print(f"E[x^2] - E[x]^2 in float32: {float(mean_of_squares - square_of_mean):.4f}")
print(f"prism.variance (one pass, Chan's combine): {float(prism.variance(x)):.4f}")
print(f"float64, two passes: {np.var(x.astype(np.float64)):.4f}")
