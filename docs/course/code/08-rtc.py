# SPDX-License-Identifier: Apache-2.0
# needs: gpu, torch
import torch
import prism_primitives as prism

n = (1 << 20) + 3  # not a multiple of a block, nor of a 16-byte vector
x = torch.linspace(-4, 4, n, device="cuda")
y = torch.ones(n, device="cuda")

# Element-wise, in CuPy's spelling: inputs, outputs, one statement per element. The scalar a is a
# kernel parameter: no recompilation when it changes.
saxpy = prism.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "saxpy")
z = saxpy(2.0, x, y)  # z allocated like x: a torch tensor, on torch's current stream
print("saxpy", type(z).__name__, torch.equal(z, 2.0 * x + y))
print("raw_naive gives the same bits", torch.equal(saxpy(2.0, x, y, impl="raw_naive"), z))

# A reduction: map each element, combine two partials, then the result.
sum_of_squares = prism.ReductionKernel("float32 x", "float32 r", "x * x", "a + b", "r = a", "0", "sum_of_squares")
r = float(sum_of_squares(x))
exact = float((x.double() ** 2).sum())
print("sum of squares within 1e-5 of float64", abs(r - exact) <= 1e-5 * exact)

# A scan (PyCUDA's InclusiveScanKernel): whole numbers, so float32 adds them exactly.
counts = (torch.arange(n, device="cuda") % 7).float()
cumsum = prism.ScanKernel("float32", "a + b", neutral="0")
out = torch.empty_like(counts)
cumsum(counts, out)
print("scan", torch.equal(out, torch.cumsum(counts.double(), 0).float()))
