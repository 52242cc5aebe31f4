# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

# 1. 100 bins over [0, 1): the float 0.53 is edge 53 itself, so bin 53. The rule of CUB's float
#    histogram, int((x - lo) * (bins / (hi - lo))) in float, rounds twice and says 52.
x = np.float32(0.53)
print(int((x - np.float32(0)) * (np.float32(100) / np.float32(1))), np.flatnonzero(prism.histogram(np.array([x]), 100, 0.0, 1.0)))
# 2. numpy.histogram counts hi in its last bin; prism does not.
x = np.array([0.0, 0.5, 1.0], np.float32)
print(np.histogram(x, 2, (0.0, 1.0))[0], prism.histogram(x, 2, 0.0, 1.0))
