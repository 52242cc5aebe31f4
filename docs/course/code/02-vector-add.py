# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

n = 1000000
a = np.arange(n).astype(np.float32)
b = (2 * np.arange(n)).astype(np.float32)
c = prism.add(a, b)  # a new NumPy array, computed by the cpu implementation
print(c[:5], c[-1].item())

out = np.full(n, np.nan, np.float32)  # poisoned first: an element left unwritten stays NaN
prism.add(a, b, out=out)
print(np.array_equal(out, a + b))
