# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

# 4 bins over [0, 1): [0, 0.25), [0.25, 0.5), [0.5, 0.75), [0.75, 1). A sample on an edge goes to
# the bin that starts there; hi itself, NaN and samples outside are not counted.
x = np.array([0.0, 0.1, 0.25, 0.5, 0.6, 0.7, 0.75, 0.99, 1.0, np.nan, np.inf, -0.5], np.float32)
print("equal bins", prism.histogram(x, 4, 0.0, 1.0))
print("own edges ", prism.histogram(x, edges=np.array([0.0, 0.5, 0.7, 2.0], np.float32)))
b = np.array([0, 63, 64, 200, 255, 255], np.uint8)
print("bytes     ", prism.histogram(b, 4, 0, 256))
