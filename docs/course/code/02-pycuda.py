# SPDX-License-Identifier: Apache-2.0
# needs: gpu, pycuda
import numpy as np
import pycuda.autoinit  # creates a context on the first GPU
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void vector_add(float *a, float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
""")
vector_add = mod.get_function("vector_add")

n = 1000000
a = np.arange(n).astype(np.float32)
b = (2 * np.arange(n)).astype(np.float32)
c = np.empty_like(a)

a_gpu = drv.mem_alloc(a.nbytes)
b_gpu = drv.mem_alloc(b.nbytes)
c_gpu = drv.mem_alloc(c.nbytes)
drv.memcpy_htod(a_gpu, a)
drv.memcpy_htod(b_gpu, b)

threads = 256
blocks = (n + threads - 1) // threads
vector_add(a_gpu, b_gpu, c_gpu, np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))

drv.memcpy_dtoh(c, c_gpu)
print(c[:5], c[-1].item())
print(np.array_equal(c, a + b))
