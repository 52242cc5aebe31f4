# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

x = np.arange(8, dtype=np.float32)
# 1. In place: out is an input, element for element. Allowed.
prism.add(x, x, out=x)
print(x)
# 2. out overlapping an input one element off: refused, and nothing written.
try:
    prism.add(x[:7], x[:7], out=x[1:])
except ValueError:
    print("overlap one element off: ValueError;", x)
