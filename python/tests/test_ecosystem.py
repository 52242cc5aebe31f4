# SPDX-License-Identifier: Apache-2.0
"""Every function on every kind of CUDA array of the Python ecosystem: PyTorch and CuPy (DLPack),
Numba (the CUDA array interface only), JAX (DLPack; immutable, so never an output), PyCUDA's
GPUArray (the CUDA array interface; its primary context) where PyCUDA is installed, and an object
that has nothing but __cuda_array_interface__ (over another library's memory). Each kind:
every function against NumPy, results allocated as that kind (a prism.Array for the bare object),
zero copies (outputs written in place, inputs read where they are), and stream ordering (work the
producer still has queued on an array, behind a long kernel, lands before prism reads it).
Skipped, with the reason, where a kind or a GPU is missing."""
import numpy as np
import pytest

import prism_primitives as prism

# ---- the kinds ---------------------------------------------------------------------------------------

# A long kernel of prism's own, on any stream: work queued behind it is still pending when the
# next call is made (clock64 cycles; ~50 ms at H200's clocks for 10^8).
_SPIN = None


def spin(stream, cycles=100_000_000):
    global _SPIN
    if _SPIN is None:
        _SPIN = prism.ElementwiseKernel("float32 x, int64 cycles", "float32 y",
                                        "long long t0 = clock64(); while (clock64() - t0 < cycles) {} y = x", "spin")
    return _SPIN, stream, cycles


def raw_stream():
    """A new non-blocking stream's handle, and the object that owns it, from whichever library is here."""
    try:
        import torch
        if torch.cuda.is_available():
            s = torch.cuda.Stream()
            return s.cuda_stream, s
    except ImportError:
        pass
    try:
        import cupy
        s = cupy.cuda.Stream(non_blocking=True)
        return s.ptr, s
    except ImportError:
        pass
    from numba import cuda
    s = cuda.stream()
    return int(s.handle.value if hasattr(s.handle, "value") else s.handle), s


class Kind:
    writable = True
    result_type = None

    def get(self, x):
        if isinstance(x, (bool, int, float, np.generic)):
            return np.asarray(x)
        if isinstance(x, prism.Array):
            return x.get()
        return self.to_host(x)


class Torch(Kind):
    name = "torch"

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            pytest.skip("torch sees no CUDA device")
        self.torch = torch
        self.result_type = torch.Tensor

    def put(self, host):
        return self.torch.from_numpy(np.ascontiguousarray(host)).to("cuda")

    def to_host(self, x):
        return x.cpu().numpy()

    def address(self, x):
        return x.data_ptr()

    def synchronize(self):
        self.torch.cuda.synchronize()


class Cupy(Kind):
    name = "cupy"

    def __init__(self):
        import cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("cupy sees no CUDA device")
        self.cupy = cupy
        self.result_type = cupy.ndarray

    def put(self, host):
        return self.cupy.asarray(np.ascontiguousarray(host))

    def to_host(self, x):
        return self.cupy.asnumpy(x)

    def address(self, x):
        return x.data.ptr

    def synchronize(self):
        self.cupy.cuda.Device().synchronize()


class Numba(Kind):
    name = "numba"

    def __init__(self):
        from numba import cuda
        if not cuda.is_available():
            pytest.skip("numba sees no CUDA device")
        self.cuda = cuda
        self.result_type = type(cuda.device_array(1))

    def put(self, host, stream=0):
        return self.cuda.to_device(np.ascontiguousarray(host), stream=stream)

    def to_host(self, x):
        return x.copy_to_host()

    def address(self, x):
        return x.__cuda_array_interface__["data"][0]

    def synchronize(self):
        self.cuda.synchronize()


class Jax(Kind):
    name = "jax"
    writable = False

    def __init__(self):
        import jax
        jax.config.update("jax_enable_x64", True)
        if not any(d.platform == "gpu" for d in jax.devices()):
            pytest.skip("jax sees no GPU")
        self.jax = jax
        self.result_type = type(jax.numpy.zeros(1))

    def put(self, host):
        return self.jax.device_put(np.ascontiguousarray(host), self.jax.devices("gpu")[0])

    def to_host(self, x):
        return np.asarray(x)

    def synchronize(self):
        (self.jax.numpy.zeros(1) + 1).block_until_ready()


class Pycuda(Kind):
    name = "pycuda"

    def __init__(self):
        try:
            import pycuda.autoprimaryctx  # noqa: F401  (prism runs in the device's primary context)
            import pycuda.driver
            import pycuda.gpuarray
        except ImportError as error:
            pytest.skip(f"PyCUDA is not installed ({error}): the 'cai' kind stands in for it")
        self.driver, self.gpuarray = pycuda.driver, pycuda.gpuarray
        self.result_type = pycuda.gpuarray.GPUArray

    def put(self, host):
        return self.gpuarray.to_gpu(np.ascontiguousarray(host))

    def to_host(self, x):
        return x.get()

    def address(self, x):
        return int(x.gpudata)

    def synchronize(self):
        self.driver.Context.synchronize()


class CaiOnly:
    """Nothing but __cuda_array_interface__, over memory another library owns."""

    def __init__(self, owner, shape, typestr, pointer, stream=None):
        self._owner = owner
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (pointer, False),
                                         "version": 3, "strides": None, "stream": stream}


class Cai(Kind):
    name = "cai"

    def __init__(self):
        self.base = None
        for make in (Torch, Cupy, Numba):
            try:
                self.base = make()
                break
            except (ImportError, pytest.skip.Exception):
                continue
        if self.base is None:
            pytest.skip("no library here makes GPU memory to wrap (torch, cupy or numba)")
        if not prism.gpu_available():
            pytest.skip("prism sees no CUDA device")
        self.result_type = prism.Array

    def put(self, host, stream=None):
        host = np.ascontiguousarray(host)
        owner = self.base.put(host)
        return CaiOnly(owner, host.shape, host.dtype.str if host.dtype.itemsize > 1 else "|" + host.dtype.str[1:],
                       self.base.address(owner), stream)

    def to_host(self, x):
        if isinstance(x, CaiOnly):
            return self.base.to_host(x._owner)
        return np.asarray(x)

    def address(self, x):
        return x.__cuda_array_interface__["data"][0]

    def synchronize(self):
        self.base.synchronize()


KINDS = {"torch": Torch, "cupy": Cupy, "numba": Numba, "jax": Jax, "pycuda": Pycuda, "cai": Cai}


@pytest.fixture(params=list(KINDS))
def kind(request):
    try:
        k = KINDS[request.param]()
    except ImportError as error:
        pytest.skip(f"{request.param} is not installed ({error})")
    if not prism.gpu_available():
        pytest.skip("prism sees no CUDA device")
    return k


# ---- every function ----------------------------------------------------------------------------------

def _floats(rng, n, low=-10, high=10):
    return rng.uniform(low, high, n).astype(np.float32)


def _ints(rng, n, low=-100, high=100):
    return rng.integers(low, high, n).astype(np.int32)


def _runs(rng, n):
    return np.sort(rng.integers(0, n // 4 + 1, n)).astype(np.int32)


def _scan_by_key(keys, x, exclusive):
    out = np.empty(len(x), np.float64)
    total = 0.0
    for i in range(len(x)):
        if i == 0 or keys[i] != keys[i - 1]:
            total = 0.0
        if exclusive:
            out[i] = total
            total += x[i]
        else:
            total += x[i]
            out[i] = total
    return out


def _rle(v):
    starts = np.r_[True, v[1:] != v[:-1]]
    idx = np.flatnonzero(starts)
    return v[idx], np.diff(np.r_[idx, len(v)])


# name: (inputs from rng and n, prism's call, NumPy's answer). Inputs are NumPy arrays (put on
# the kind) or scalars; each function's answer is compared after the kind's result comes back.
N = 1000
F, P = (lambda r: _floats(r, N)), (lambda r: _floats(r, N, 0.5, 10))
K = lambda r: _runs(r, N)  # noqa: E731  sorted keys in runs
FUNCTIONS = {
    "add": ((F, F), lambda p, a, b: p.add(a, b), lambda a, b: a + b),
    "sub": ((F, F), lambda p, a, b: p.sub(a, b), lambda a, b: a - b),
    "mul": ((F, F), lambda p, a, b: p.mul(a, b), lambda a, b: a * b),
    "div": ((F, P), lambda p, a, b: p.div(a, b), lambda a, b: a / b),
    "minimum": ((F, F), lambda p, a, b: p.minimum(a, b), np.minimum),
    "maximum": ((F, F), lambda p, a, b: p.maximum(a, b), np.maximum),
    "axpby": ((F, F), lambda p, x, y: p.axpby(2.0, x, -1.0, y), lambda x, y: 2 * x - y),
    "fma": ((F, F, F), lambda p, a, b, c: p.fma(a, b, c), lambda a, b, c: a * b + c),
    "where": ((lambda r: r.random(N) < 0.5, F, F), lambda p, c, a, b: p.where(c, a, b), np.where),
    "negate": ((F,), lambda p, x: p.negate(x), np.negative),
    "abs": ((F,), lambda p, x: p.abs(x), np.abs),
    "square": ((F,), lambda p, x: p.square(x), np.square),
    "sqrt": ((P,), lambda p, x: p.sqrt(x), np.sqrt),
    "rsqrt": ((P,), lambda p, x: p.rsqrt(x), lambda x: 1 / np.sqrt(x)),
    "exp": ((lambda r: _floats(r, N, -3, 3),), lambda p, x: p.exp(x), np.exp),
    "log": ((P,), lambda p, x: p.log(x), np.log),
    "sin": ((F,), lambda p, x: p.sin(x), np.sin),
    "cos": ((F,), lambda p, x: p.cos(x), np.cos),
    "tanh": ((F,), lambda p, x: p.tanh(x), np.tanh),
    "sigmoid": ((F,), lambda p, x: p.sigmoid(x), lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    "relu": ((F,), lambda p, x: p.relu(x), lambda x: np.maximum(x, 0)),
    "copy": ((F,), lambda p, x: p.copy(x), lambda x: x),
    "scale": ((F,), lambda p, x: p.scale(3.0, x), lambda x: 3 * x),
    "clamp": ((F,), lambda p, x: p.clamp(x, -1, 1), lambda x: np.clip(x, -1, 1)),
    "cast": ((F,), lambda p, x: p.cast(x, "int32"), lambda x: np.trunc(x).astype(np.int32)),
    "adjacent_difference": ((F,), lambda p, x: p.adjacent_difference(x), lambda x: np.r_[x[:1], np.diff(x)]),
    "gather": ((lambda r: r.integers(0, N, N).astype(np.int32), F), lambda p, m, v: p.gather(m, v),
               lambda m, v: v[m]),
    "sum": ((F,), lambda p, x: p.sum(x), lambda x: x.astype(np.float64).sum()),
    "sum_int32": ((lambda r: _ints(r, N),), lambda p, x: p.sum(x), lambda x: x.astype(np.int64).sum()),
    "product": ((lambda r: _floats(r, 20, 0.9, 1.1),), lambda p, x: p.product(x), lambda x: np.prod(x, dtype=np.float64)),
    "min": ((F,), lambda p, x: p.min(x), np.min),
    "max": ((F,), lambda p, x: p.max(x), np.max),
    "minmax": ((F,), lambda p, x: p.minmax(x), lambda x: np.array([x.min(), x.max()])),
    "argmin": ((F,), lambda p, x: p.argmin(x), np.argmin),
    "argmax": ((F,), lambda p, x: p.argmax(x), np.argmax),
    "count": ((lambda r: _ints(r, N, 0, 5),), lambda p, x: p.count(x, 3), lambda x: np.count_nonzero(x == 3)),
    "count_if": ((F,), lambda p, x: p.count_if(x, ">", 0), lambda x: np.count_nonzero(x > 0)),
    "any": ((F,), lambda p, x: p.any(x, ">", 9.99), lambda x: np.any(x > 9.99)),
    "all": ((F,), lambda p, x: p.all(x, "<", 10), lambda x: np.all(x < 10)),
    "dot": ((F, F), lambda p, a, b: p.dot(a, b), lambda a, b: a.astype(np.float64) @ b),
    "norm1": ((F,), lambda p, x: p.norm1(x), lambda x: np.abs(x.astype(np.float64)).sum()),
    "norm2": ((F,), lambda p, x: p.norm2(x), lambda x: np.sqrt((x.astype(np.float64) ** 2).sum())),
    "norm_inf": ((F,), lambda p, x: p.norm_inf(x), lambda x: np.abs(x).max()),
    "mean": ((F,), lambda p, x: p.mean(x), lambda x: x.astype(np.float64).mean()),
    "variance": ((F,), lambda p, x: p.variance(x), lambda x: x.astype(np.float64).var()),
    "stddev": ((F,), lambda p, x: p.stddev(x), lambda x: x.astype(np.float64).std()),
    "inclusive_scan": ((F,), lambda p, x: p.inclusive_scan(x), lambda x: np.cumsum(x.astype(np.float64))),
    "exclusive_scan": ((F,), lambda p, x: p.exclusive_scan(x),
                       lambda x: np.r_[0, np.cumsum(x.astype(np.float64))[:-1]]),
    "inclusive_scan_by_key": ((K, F), lambda p, k, x: p.inclusive_scan_by_key(k, x),
                              lambda k, x: _scan_by_key(k, x, False)),
    "exclusive_scan_by_key": ((K, F), lambda p, k, x: p.exclusive_scan_by_key(k, x),
                              lambda k, x: _scan_by_key(k, x, True)),
    "compact": ((F, lambda r: r.random(N) < 0.5), lambda p, v, f: p.compact(v, f), lambda v, f: v[f]),
    "partition": ((F, lambda r: r.random(N) < 0.5), lambda p, v, f: p.partition(v, f)[0],
                  lambda v, f: np.r_[v[f], v[~f]]),
    "unique": ((K,), lambda p, v: p.unique(v), lambda v: _rle(v)[0]),
    "unique_by_key": ((K, F), lambda p, k, v: p.unique_by_key(k, v),
                      lambda k, v: (_rle(k)[0], v[np.flatnonzero(np.r_[True, k[1:] != k[:-1]])])),
    "run_length_encode": ((K,), lambda p, v: p.run_length_encode(v), _rle),
    "reduce_by_key": ((K, F), lambda p, k, v: p.reduce_by_key(k, v),
                      lambda k, v: (_rle(k)[0], np.add.reduceat(v.astype(np.float64),
                                                              np.flatnonzero(np.r_[True, k[1:] != k[:-1]])))),
    "sort": ((F,), lambda p, x: p.sort(x), np.sort),
    "sort_descending": ((lambda r: _ints(r, N),), lambda p, x: p.sort(x, descending=True), lambda x: np.sort(x)[::-1]),
    "sort_by_key": ((lambda r: r.permutation(N).astype(np.int32), F), lambda p, k, v: p.sort_by_key(k, v),
                    lambda k, v: (np.sort(k), v[np.argsort(k, kind="stable")])),
    "argsort": ((F,), lambda p, x: p.argsort(x), lambda x: np.argsort(x, kind="stable")),
    "histogram": ((lambda r: r.random(N).astype(np.float32),), lambda p, x: p.histogram(x, 8, 0.0, 1.0),
                  lambda x: np.histogram(x, 8, (0, 1))[0]),
    "histogram_edges": ((lambda r: r.random(N).astype(np.float32), lambda r: np.array([0, 0.1, 0.5, 1], np.float32)),
                        lambda p, x, e: p.histogram(x, edges=e),
                        lambda x, e: np.histogram(x, e)[0] - (x == 1).sum() * np.r_[0, 0, 1]),
}
# Those that write into an argument: not for JAX (its arrays are immutable).
WRITERS = {
    "axpy": ((F, F), lambda p, x, y: p.axpy(2.0, x, y), lambda x, y: 2 * x + y),
    "fill": ((F,), lambda p, x: p.fill(x, 5.0), lambda x: np.full_like(x, 5)),
    "sequence": ((F,), lambda p, x: p.sequence(x, 1.0, 2.0), lambda x: 1 + 2 * np.arange(len(x), dtype=np.float32)),
    "scatter": ((F, lambda r: r.permutation(N).astype(np.int32), F), lambda p, v, m, o: p.scatter(v, m, o),
                lambda v, m, o: _scattered(v, m)),
}


def _scattered(v, m):
    out = np.empty_like(v)
    out[m] = v
    return out


def _compare(kind, got, expected, name):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), name
        for g, e in zip(got, expected):
            _compare(kind, g, e, name)
        return
    host = np.asarray(kind.get(got)).reshape(-1).astype(np.float64)
    want = np.asarray(expected).reshape(-1).astype(np.float64)
    assert host.shape == want.shape, f"{name}: {host.shape} elements, expected {want.shape}"
    np.testing.assert_allclose(host, want, rtol=2e-4, atol=2e-3, err_msg=name)


@pytest.mark.parametrize("name", list(FUNCTIONS) + list(WRITERS))
def test_every_function(kind, name, rng):
    spec = FUNCTIONS.get(name) or WRITERS[name]
    if name in WRITERS and not kind.writable:
        pytest.skip(f"{kind.name} arrays are immutable: {name} writes into its argument")
    makers, call, reference = spec
    hosts = [make(rng) for make in makers]
    args = [kind.put(h) for h in hosts]
    got = call(prism, *args)
    if name in WRITERS:
        # A writer writes into the caller's own array (y for axpy, out for the others) and returns
        # that very object: it is the caller's, not a result prism made, whatever its kind.
        written = args[-1] if name != "axpy" else args[1]
        assert got is written, f"{name}: returned a {type(got).__name__}, not the array it wrote"
    expected = reference(*hosts)
    _compare(kind, got, expected, name)
    if name in WRITERS:
        return
    # Results are the input's kind (a prism.Array for an object of no library), on its GPU.
    for result in (got if isinstance(got, tuple) else (got,)):
        if not isinstance(result, (bool, int, float, np.generic)):
            assert isinstance(result, kind.result_type), f"{name}: a {type(result).__name__}"


def test_out_is_written_in_place(kind, rng):
    """Zero copies: an output is the caller's memory, written where it is; an input is read where
    it is (in place: the input is the output)."""
    if not kind.writable:
        a = kind.put(np.ones(8, np.float32))
        with pytest.raises(ValueError, match="immutable"):
            prism.add(a, a, out=kind.put(np.zeros(8, np.float32)))
        return
    x = _floats(rng, 4097)
    a, out = kind.put(x), kind.put(np.full(4097, 77, np.float32))
    before = kind.address(out)
    assert prism.add(a, a, out=out) is out and kind.address(out) == before
    np.testing.assert_array_equal(kind.get(out), 2 * x)
    prism.add(a, a, out=a)  # in place: the input's own memory changes
    np.testing.assert_array_equal(kind.get(a), 2 * x)
    total = kind.put(np.zeros(1, np.float32))
    assert prism.sum(a, out=total) is total
    assert abs(kind.get(total)[0] - 2 * x.astype(np.float64).sum()) < 1e-2


def test_results_are_prism_memory_of_the_kind(kind, rng):
    x = _floats(rng, 1000)
    a = kind.put(x)
    c = prism.add(a, a)
    assert isinstance(c, kind.result_type)
    kind.synchronize()
    np.testing.assert_array_equal(kind.get(c), 2 * x)
    s = prism.sum(a)  # a 0-d array of the kind: nothing waits
    assert not isinstance(s, (float, np.generic))
    assert abs(float(np.asarray(kind.get(s)).reshape(-1)[0]) - x.astype(np.float64).sum()) < 1e-2


# ---- stream ordering --------------------------------------------------------------------------------

def _queue_behind_spin(kind, target, value, stream):
    """On `stream`: a long kernel, then target[:] = value (prism's fill): pending when this returns."""
    kernel, _, cycles = spin(stream)
    probe_in, probe_out = kind.put(np.zeros(1, np.float32)), kind.put(np.zeros(1, np.float32))
    kernel(probe_in, cycles, probe_out, stream=stream)
    prism.fill(target, value, stream=stream)


@pytest.mark.parametrize("explicit", [False, True])
def test_producer_stream_is_waited_for(kind, explicit):
    """The consumer waits for the producer's stream: on the producer's stream itself (the
    default), or on another one (stream=) that is made to wait."""
    n = 1 << 20
    if kind.name in ("torch", "cupy", "pycuda", "jax"):
        pytest.skip(f"{kind.name}: its current stream is the call's (test_gpu.py orders torch and CuPy)")
    handle, owner = raw_stream()
    side, side_owner = raw_stream()
    if kind.name == "numba":
        producer = kind.cuda.external_stream(handle)
        x = kind.put(np.zeros(n, np.float32), stream=producer)  # its CUDA array interface names the stream
        assert x.__cuda_array_interface__["stream"] == handle
        target = x
    else:
        memory = kind.put(np.zeros(n, np.float32))
        target = CaiOnly(memory, (n,), "<f4", kind.address(memory), stream=handle)
        x = target
    _queue_behind_spin(kind, target, 1.0, handle)
    total = prism.sum(x, stream=side if explicit else None)
    value = float(np.asarray(kind.get(total)).reshape(-1)[0])
    assert value == n, f"prism read the array before its producer's stream had written it ({value})"
    kind.synchronize()
    del owner, side_owner


def test_jax_arrays_read_on_their_stream():
    """JAX hands its arrays over through __dlpack__(stream=...): a result still being computed is
    waited for."""
    k = Jax() if _importable("jax") else pytest.skip("jax is not installed")
    jnp = k.jax.numpy
    x = jnp.ones((4096, 4096), jnp.float32)
    y = (x @ x).reshape(-1)  # dispatched asynchronously: not done when prism reads it
    total = prism.sum(y)
    assert float(np.asarray(k.get(total)).reshape(-1)[0]) == 4096.0 ** 3


def _importable(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def test_prism_array_speaks_both_protocols():
    if not prism.gpu_available():
        pytest.skip("prism sees no CUDA device")
    base = Cai()
    a = base.put(np.arange(10, dtype=np.float32))
    r = prism.add(a, a)
    assert isinstance(r, prism.Array) and r.shape == (10,) and r.dtype == "float32"
    interface = r.__cuda_array_interface__
    assert interface["version"] == 3 and interface["typestr"] == "<f4" and interface["data"][0] == r.data_ptr
    assert r.__dlpack_device__() == (2, r.device)
    np.testing.assert_array_equal(np.asarray(r), 2 * np.arange(10))
    if _importable("torch"):
        import torch
        t = torch.from_dlpack(r)
        assert t.data_ptr() == r.data_ptr
        np.testing.assert_array_equal(t.cpu().numpy(), 2 * np.arange(10))
    if _importable("cupy"):
        import cupy
        c = cupy.asarray(r)  # through the CUDA array interface
        assert c.data.ptr == r.data_ptr
        np.testing.assert_array_equal(cupy.asnumpy(c), 2 * np.arange(10))
    assert r.reshape(2, 5).shape == (2, 5) and r[2:5].get().tolist() == [4, 6, 8]
