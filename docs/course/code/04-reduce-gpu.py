# SPDX-License-Identifier: Apache-2.0
# needs: gpu, torch
import torch
import prism_primitives as prism

x = torch.ones(1 << 20, device="cuda")  # sums of small integers are exact in any order
x[123456] = 2
result = torch.empty(1, device="cuda")
for impl in ("thrust", "raw", "cub", "automatic"):
    total = prism.sum(x, impl=impl)  # a 0-d tensor on the device: nothing waits
    prism.sum(x, out=result, impl=impl)  # into your one-element array: nothing waits either
    print(impl, total.item(), result.item(), prism.argmax(x, impl=impl).item())
