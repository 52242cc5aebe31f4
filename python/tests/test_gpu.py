# SPDX-License-Identifier: Apache-2.0
"""What only GPU arrays have: zero copies (the result lands where the caller's out lives), the
producer's stream (work it still has queued on the array is waited for), explicit streams (arrays
kept alive until the stream passes), several Python threads at once, and the clear message for a
GPU array in a process that cannot reach that GPU (runs on any machine)."""
import ctypes
import gc
import threading
import weakref

import numpy as np
import pytest

import prism_primitives as prism


def address(xp, array):
    return array.data_ptr() if xp.name == "torch" else array.data.ptr


def test_zero_copy_out(gpu_xp, rng):
    n = (1 << 20) + 3
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    da, db = gpu_xp.put(a), gpu_xp.put(b)
    out = gpu_xp.empty(n, "float32")
    before = address(gpu_xp, out)
    result = prism.add(da, db, out=out)
    assert result is out and address(gpu_xp, result) == before
    np.testing.assert_array_equal(gpu_xp.get(out), a + b)
    # A reduction into the caller's one-element array: written there, nothing waits.
    total = gpu_xp.empty(1, "float32")
    assert prism.sum(da, out=total) is total
    assert abs(gpu_xp.get(total)[0] - a.astype(np.float64).sum()) < 1e-3 * n
    # Allocated results are the input's kind, on its device.
    allocated = prism.mul(da, db)
    assert type(allocated) is type(da)
    assert str(allocated.device) == str(da.device)


def spin_torch(torch, ms):
    """Keeps torch's current stream busy for about ms milliseconds."""
    torch.cuda._sleep(int(ms * 2_000_000))  # cycles at ~2 GHz


SPIN_KERNEL = r'''
extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}'''


def test_producer_stream_ordering_torch(torch):
    """A write still queued behind a long kernel on torch's current stream must land before prism
    reads: prism runs on that stream, or (stream=) on another one that waits for it."""
    n = 1 << 22
    side = torch.cuda.Stream()
    for stream in (None, side):
        x = torch.zeros(n, device="cuda")
        out = torch.empty((), device="cuda")
        spin_torch(torch, 50)
        x.fill_(1)  # queued behind the spin on the current stream
        prism.sum(x, out=out, stream=stream)
        torch.cuda.synchronize()
        assert out.item() == n
        y = torch.zeros(n, device="cuda")
        spin_torch(torch, 50)
        y.fill_(2)
        z = prism.add(y, y, stream=stream)
        torch.cuda.synchronize()
        assert torch.all(z == 4).item()
        keys = torch.zeros(n, device="cuda")
        spin_torch(torch, 50)
        keys.copy_(torch.arange(n, 0, -1, dtype=torch.float32, device="cuda"))  # n, ..., 1
        ordered = prism.sort(keys, stream=stream)
        counts = prism.histogram(keys, 2, 0.5, n + 0.5, stream=stream)
        torch.cuda.synchronize()
        assert torch.equal(ordered, torch.arange(1, n + 1, dtype=torch.float32, device="cuda"))
        assert counts.tolist() == [n // 2, n // 2]


def test_producer_stream_ordering_cupy(cupy):
    spin = cupy.RawKernel(SPIN_KERNEL, "spin")
    n = 1 << 22
    side = cupy.cuda.Stream(non_blocking=True)
    for stream in (None, side):
        with cupy.cuda.Stream(non_blocking=True) as current:  # a current stream of CuPy's own
            x = cupy.zeros(n, dtype=cupy.float32)
            out = cupy.empty((), dtype=cupy.float32)
            spin((1,), (1,), (cupy.uint64(50_000_000),))
            x.fill(1)
            prism.sum(x, out=out, stream=stream)
            current.synchronize()
            if stream is not None:
                stream.synchronize()
            assert float(out) == n


def test_torch_side_stream_context(torch):
    """Inside `with torch.cuda.stream(s)` the current stream is s: prism runs there."""
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.ones(1 << 20, device="cuda")
        spin_torch(torch, 20)
        x.mul_(3)
        total = prism.sum(x)
    s.synchronize()
    assert total.item() == 3 * (1 << 20)


def test_explicit_stream_keeps_arrays_alive(gpu_xp):
    """On a stream other than the producer's, the arrays stay referenced until the stream passes
    the call; then they are let go."""
    if gpu_xp.name == "torch":
        torch = gpu_xp.torch
        side = torch.cuda.Stream()
        busy = lambda: torch.cuda._sleep(100_000_000)  # noqa: E731
    else:
        cupy = gpu_xp.cupy
        side = cupy.cuda.Stream(non_blocking=True)
        kernel = cupy.RawKernel(SPIN_KERNEL, "spin")
        busy = lambda: kernel((1,), (1,), (cupy.uint64(50_000_000),))  # noqa: E731
    a = gpu_xp.put(np.ones(1000, np.float32))
    out = gpu_xp.empty(1000, "float32")
    if gpu_xp.name == "torch":
        with torch.cuda.stream(side):
            busy()
    else:
        with side:
            busy()
    prism.add(a, a, out=out, stream=side)
    assert prism.held() >= 1
    side.synchronize()
    assert prism.held() == 0
    np.testing.assert_array_equal(gpu_xp.get(out), 2)


@pytest.mark.parametrize("threads", [8])
def test_threads(gpu_xp, rng, threads):
    """Several Python threads at once, each on its own stream, with its own data."""
    n = (1 << 18) + 1
    inputs = [rng.random(n, dtype=np.float32) for _ in range(threads)]
    results, errors = [None] * threads, []

    def work(k):
        try:
            if gpu_xp.name == "torch":
                torch = gpu_xp.torch
                s = torch.cuda.Stream()
                with torch.cuda.stream(s):
                    x = gpu_xp.put(inputs[k])
                    for _ in range(20):
                        y = prism.scale(2.0, x)
                        total = prism.sum(y)
                        scan = prism.inclusive_scan(x)
                s.synchronize()
            else:
                cupy = gpu_xp.cupy
                with cupy.cuda.Stream(non_blocking=True) as s:
                    x = gpu_xp.put(inputs[k])
                    for _ in range(20):
                        y = prism.scale(2.0, x)
                        total = prism.sum(y)
                        scan = prism.inclusive_scan(x)
                    s.synchronize()
            results[k] = (gpu_xp.get(y), float(gpu_xp.get(total)), gpu_xp.get(scan))
        except Exception as error:  # reported below, in the main thread
            errors.append(error)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    for k in range(threads):
        y, total, scan = results[k]
        np.testing.assert_array_equal(y, 2 * inputs[k])
        assert abs(total - 2 * inputs[k].astype(np.float64).sum()) < 1e-3 * n
        np.testing.assert_allclose(scan, np.cumsum(inputs[k].astype(np.float64)), rtol=1e-4)


@pytest.mark.parametrize("how", ["current", "stream="])
def test_result_outlives_its_stream_object(cupy, how):
    """A result of prism's own is freed on the stream it was made on, after its stream object is
    gone: the result keeps that object (and so its stream) alive until its memory is freed, then
    lets it go. (Python drops a function's locals in order: in test_threads the CuPy stream went
    first, and freeing the result then called CUDA on a destroyed stream handle.)"""
    n = (1 << 18) + 1
    host = np.arange(n, dtype=np.float32)
    x = cupy.asarray(host)  # on CuPy's default stream
    cupy.cuda.get_current_stream().synchronize()
    s = cupy.cuda.Stream(non_blocking=True)
    alive = weakref.ref(s)
    if how == "current":
        with s:
            y = prism.scale(2.0, x)
    else:
        y = prism.scale(2.0, x, stream=s)
    cupy.cuda.Device().synchronize()
    assert prism.held() == 0  # a call on stream= keeps its arrays until it has passed: y is ours alone now
    np.testing.assert_array_equal(cupy.asnumpy(y), 2 * host)
    del s
    gc.collect()
    assert alive() is not None, "the stream was destroyed while a result made on it still lives"
    del y  # its memory freed on the stream, which is still there
    gc.collect()
    assert alive() is None, "the result's memory is freed, but its stream is still held"
    # Later calls see a sound device and pool.
    for _ in range(3):
        z = prism.scale(3.0, x)
        w = prism.add(x, x, stream=cupy.cuda.Stream(non_blocking=True))
        cupy.cuda.Device().synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(z), 3 * host)
        np.testing.assert_array_equal(cupy.asnumpy(w), 2 * host)
        del z, w
        gc.collect()


def test_numpy_and_gpu_mixed_refused(gpu_xp):
    a = gpu_xp.put(np.ones(4, np.float32))
    with pytest.raises(ValueError):
        prism.add(a, np.ones(4, np.float32), out=gpu_xp.empty(4, "float32"))


@pytest.mark.parametrize("which", ["a", "b", "x"])
def test_unreadable_input_named_before_a_result_is_made(gpu_xp, which):
    """A strided view is refused by its argument's name, whether or not the call allocates out."""
    strided = gpu_xp.put(np.ones(16, np.float32))[::2]
    plain = gpu_xp.put(np.ones(8, np.float32))
    call = {"a": lambda: prism.add(strided, plain), "b": lambda: prism.add(plain, strided),
            "x": lambda: prism.exp(strided)}[which]
    with pytest.raises(ValueError, match=rf"prism: {which} .*not contiguous"):
        call()


# ---- a GPU array this process cannot reach: runs on any machine -----------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class FakeGpuArray:
    """Four floats that claim to live on cuda:99 (never read: the call is refused first)."""

    def __init__(self):
        self.host = np.zeros(4, np.float32)
        self.shape = (ctypes.c_int64 * 1)(4)
        self.managed = _DLManagedTensor()
        self.managed.dl_tensor = _DLTensor(self.host.ctypes.data, _DLDevice(2, 99), 1, _DLDataType(2, 32, 1),
                                           self.shape, None, 0)

    def __dlpack_device__(self):
        return (2, 99)

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


def test_unreachable_gpu_named():
    with pytest.raises(RuntimeError, match="cuda:99"):
        prism.sum(FakeGpuArray())
