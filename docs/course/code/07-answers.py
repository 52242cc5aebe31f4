# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

# 1. 10 bins over [0, 1): 0.3 is in bin 3 ([0.3, 0.4)), even though 0.3 / 0.1 rounds below 3 in float.
print(np.float32(0.3) / np.float32(0.1) < 3, prism.histogram(np.array([0.3], np.float32), 10, 0.0, 1.0))
# 2. numpy.histogram counts hi in its last bin; prism does not.
x = np.array([0.0, 0.5, 1.0], np.float32)
print(np.histogram(x, 2, (0.0, 1.0))[0], prism.histogram(x, 2, 0.0, 1.0))
