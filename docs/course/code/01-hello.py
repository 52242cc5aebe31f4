# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

a = np.array([1, 2, 3], np.float32)
b = np.array([4, 5, 6], np.float32)
print(prism.add(a, b))          # NumPy arrays live on the host: the cpu implementation runs
print(prism.sum(a))
print(prism.IMPLEMENTATIONS)    # what impl= accepts
