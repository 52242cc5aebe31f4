# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

a = np.ones(4, np.float32)
out = np.full(4, -1.0, np.float32)
for bad in (lambda: prism.add(a, np.ones(3, np.float32), out=out),     # sizes differ
            lambda: prism.add(a, a, out=np.ones(4, np.float64)),       # the wrong type
            lambda: prism.add(a[::2], a[::2]),                         # not contiguous
            lambda: prism.add(a, a, out=out, impl="raw")):             # a GPU implementation on host memory
    try:
        bad()
    except (ValueError, TypeError) as error:
        print(type(error).__name__)
print("out unchanged:", out)
print("in place is allowed:", prism.add(a, a, out=a))
