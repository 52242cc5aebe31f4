# SPDX-License-Identifier: Apache-2.0
# How a result is checked: random inputs, a poisoned output, a float64 reference.
import numpy as np
import prism_primitives as prism

rng = np.random.default_rng(2026)
x = rng.standard_normal(1 << 20).astype(np.float32)
y = rng.standard_normal(1 << 20).astype(np.float32)
out = np.full_like(x, np.nan)  # an element the call forgets stays NaN
prism.add(x, y, out=out)
want = x.astype(np.float64) + y.astype(np.float64)
print("unwritten elements:", int(np.isnan(out).sum()))
print("each element the float64 sum, rounded once:", np.array_equal(out, want.astype(np.float32)))

# A sum adds n roundings: its tolerance grows with n (here a generous n * eps * sum |x|).
total, exact = prism.sum(x), x.astype(np.float64).sum()
bound = len(x) * np.finfo(np.float32).eps * np.abs(x.astype(np.float64)).sum()
print("sum within its tolerance:", abs(float(total) - exact) <= bound)
