#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lesson 7: prism from Python, where the project began: [1, 2, 3] + [4, 5, 6].

First the way a GPU tutorial in Python starts: a kernel written by hand in CUDA C, compiled at run
time and launched from Python with one thread per element (CuPy's RawKernel; PyCUDA's
SourceModule reads the same). Everything is yours: the kernel, the grid, the bounds check, the
copies to and from the device.

Then with prism: one call on the arrays you already have. prism_primitives takes NumPy arrays (the
`cpu` implementation runs on the host) and PyTorch or CuPy arrays (the fastest GPU implementation
runs on their device, on their current stream), reads them in place through DLPack and writes the
result where you say, or into a new array of the same kind.

Run it after `pip install .`: python3 examples/07_python/main.py. It checks its own results and
exits with 1 if one is wrong; without CuPy or a GPU the hand-written kernel says it was skipped.
"""
import sys

import numpy as np

import prism_primitives as prism

A, B, EXPECTED = [1, 2, 3], [4, 5, 6], [5, 7, 9]


def by_hand():
    """The tutorial's kernel: one thread per element, the bounds check for the last block."""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")
    except Exception as error:  # no CuPy, no driver, no GPU
        print(f"hand-written kernel: skipped ({type(error).__name__}: {error})")
        return True
    kernel = cupy.RawKernel(r'''
extern "C" __global__ void vector_add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // this thread's element
  if (i < n) out[i] = a[i] + b[i];                // the last block may reach past the end
}''', "vector_add")
    a = cupy.asarray(np.array(A, np.float32))  # host to device
    b = cupy.asarray(np.array(B, np.float32))
    out = cupy.empty(3, cupy.float32)
    threads = 256
    blocks = (3 + threads - 1) // threads
    kernel((blocks,), (threads,), (a, b, out, np.int32(3)))
    result = cupy.asnumpy(out)  # device to host: waits for the kernel
    print(f"hand-written kernel: {A} + {B} = {result.tolist()}")
    return result.tolist() == EXPECTED


def gpu_arrays():
    """torch or CuPy arrays on a GPU when this machine has them, else None."""
    if not prism.gpu_available():
        return None
    try:
        import torch
        if torch.cuda.is_available():
            return "torch", lambda v: torch.tensor(v, dtype=torch.float32, device="cuda"), \
                lambda t: t.cpu().tolist()
    except ImportError:
        pass
    try:
        import cupy
        return "cupy", lambda v: cupy.asarray(np.array(v, np.float32)), lambda t: cupy.asnumpy(t).tolist()
    except ImportError:
        return None


def with_prism():
    ok = True
    # NumPy arrays: the cpu implementation, on any machine.
    a, b = np.array(A, np.float32), np.array(B, np.float32)
    out = prism.add(a, b)
    print(f"prism on NumPy (cpu): {A} + {B} = {out.tolist()}, sum of a = {prism.sum(a)}")
    ok &= out.tolist() == EXPECTED and prism.sum(a) == 6
    # GPU arrays: the same call; the result is an array of the same kind on the same device.
    found = gpu_arrays()
    if found is None:
        print("prism on GPU arrays: skipped (no GPU, or neither PyTorch nor CuPy)")
        return ok
    name, put, get = found
    da, db = put(A), put(B)
    dout = prism.add(da, db)                     # a new array, torch in -> torch out
    prism.add(da, db, out=dout, impl="raw")      # into yours, a chosen implementation
    total = prism.sum(da)                        # a 0-d array on the device: nothing waits
    print(f"prism on {name} (GPU): {A} + {B} = {get(dout)}, sum of a = {get(total)}")
    return ok and get(dout) == EXPECTED and get(total) == 6


if __name__ == "__main__":
    ok = by_hand()
    ok = with_prism() and ok
    print("correct" if ok else "WRONG")
    sys.exit(0 if ok else 1)
