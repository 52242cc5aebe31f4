# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

# 1. The sum of int32 is accumulated, and returned, in 64 bits.
total = prism.sum(np.array([2**31 - 1, 1], np.int32))
print(total, total.dtype)

# 2. NumPy arrays run the cpu implementation; naming a GPU one for host memory is refused.
a = np.array([1, 2, 3], np.float32)
print(np.array_equal(prism.add(a, a), prism.add(a, a, impl="cpu")))
try:
    prism.add(a, a, impl="cub")
except ValueError:
    print("impl='cub' on NumPy arrays: ValueError")
