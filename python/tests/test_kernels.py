# SPDX-License-Identifier: Apache-2.0
"""Run-time kernels (prism.ElementwiseKernel, ReductionKernel, ScanKernel): the source written for
an expression, NVRTC's compilation of it and the caches (on any machine with NVRTC), and on a GPU
their results in both implementations against NumPy at awkward sizes and alignments, on the
producer's stream, and compare()."""
import os

import numpy as np
import pytest

import prism_primitives as prism
from prism_primitives import kernels


def nvrtc_or_skip():
    try:
        prism._prism.rtc_nvrtc_version()
    except RuntimeError as error:
        pytest.skip(f"no NVRTC here: {error}")


ADD_PYCUDA = ("float *a, float *b, float *c", "c[i] = a[i] + b[i]", "vector_add")
ADD_CUPY = ("float32 a, float32 b", "float32 c", "c = a + b", "vector_add")


# ---- on any machine ------------------------------------------------------------------------------------

def test_both_spellings_make_the_same_kernel():
    pycuda, cupy = prism.ElementwiseKernel(*ADD_PYCUDA), prism.ElementwiseKernel(*ADD_CUPY)
    assert pycuda.element_wise and cupy.element_wise
    assert pycuda.source()[0] == cupy.source()[0]
    roles = [(p.name, p.output, p.read) for p in pycuda.parameters]
    assert roles == [("a", False, True), ("b", False, True), ("c", True, False)]


def test_reading_other_elements_runs_element_by_element():
    k = prism.ElementwiseKernel("float *x, float *y", "y[i] = x[i + 1] - x[i]", "diff")
    assert not k.element_wise  # x[i + 1]: raw runs the textbook kernel
    axpy = prism.ElementwiseKernel("float *x, float *y, float a", "y[i] = a * x[i] + y[i]", "axpy")
    assert axpy.element_wise and [p.read for p in axpy.parameters if p.name == "y"] == [True]


@pytest.mark.parametrize("spelling, reason", [
    (("float32 a", "float32 c", "c = a"), None),
    (("float16 a", "float16 c", "c = a"), "float16"),
    (("complex a", "float32 c", "c = a"), "unknown type"),
    (("float32 i", "float32 c", "c = i"), "cannot name"),
    (("float32 a, float32 a", "float32 c", "c = a"), "same name"),
    (("float32 a", "float32 a", "a = a"), "both an input and an output"),
    (("float32", "float32 c", "c = 1"), "a type and a name"),
    (("float32 x,,", "float32 c", "c = x"), "empty one"),
    (("float32 x,", "float32 c", "c = x"), "empty one"),
    (("float *x, , float *y", "y[i] = x[i]"), "empty one"),
    (("", "float32 c", "c = 1"), None),
])
def test_signatures(spelling, reason):
    if reason is None:
        prism.ElementwiseKernel(*spelling)
    else:
        with pytest.raises(ValueError, match=reason):
            prism.ElementwiseKernel(*spelling)


def test_every_kind_compiles_under_nvrtc(tmp_path, monkeypatch):
    """The device primitives and every pattern compile under NVRTC: element-wise (both
    spellings, scalars, several outputs, read-write, other elements), reductions (CuPy's and
    PyCUDA's spellings, a post-map), scans (inclusive, exclusive)."""
    nvrtc_or_skip()
    monkeypatch.setenv("PRISM_KERNEL_CACHE", str(tmp_path))
    sources = [prism.ElementwiseKernel(*ADD_PYCUDA).source()[0],
               prism.ElementwiseKernel("float64 x, int32 k", "float64 y, float32 z", "y = x * k; z = (float)x",
                                       "two").source()[0],
               prism.ElementwiseKernel("float *x, float *y, float a", "y[i] = a * x[i] + y[i]", "axpy").source()[0],
               prism.ElementwiseKernel("float *x, float *y", "y[i] = x[i + 1] - x[i]", "diff").source()[0],
               prism.ElementwiseKernel("uint8 m, bool f", "int64 o", "o = f ? m : -1", "mixed").source()[0],
               prism.ReductionKernel("float32 x, float32 y", "float32 r", "x * y", "a + b", "r = a", "0",
                                     "dot").source()[0],
               prism.ReductionKernel("float32 x", "float64 r", "x", "max(a, b)", "sqrt(a)", "-1e300", "m",
                                     reduce_type="float64").source()[0],
               prism.ReductionKernel(np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]",
                                     arguments="double *x").source()[0],
               prism.ElementwiseKernel("T x, T y", "T z", "T d = x - y; z = d * d", "generic").source(
                   types=(("T", "float64"),))[0],
               prism.ReductionKernel("T x", "U r", "x", "a + b", "r = a", "0", "widened").source(
                   types=(("T", "int32"), ("U", "int64")))[0],
               prism.InclusiveScanKernel(np.float32, "a + b").source(),
               prism.ExclusiveScanKernel(np.int64, "a > b ? a : b", neutral="-1").source()]
    for k, source in enumerate(sources):
        image = kernels.compile_source(source, f"k{k}")
        assert len(image) > 0
    # Each is on disk now, and read from there the second time.
    assert len(os.listdir(tmp_path)) == len(sources)
    assert kernels.compile_source(sources[0], "k0") == kernels.compile_source(sources[0], "k0")


def test_type_placeholders():
    """CuPy's type-generic signatures: a type that is one identifier and no type's name (T, U, but
    not float32) is bound by the call's arguments, and named in the operation."""
    k = prism.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff_generic")
    assert [p.dtype for p in k.parameters] == ["T", "T", "T"]
    for dtype, ctype in (("float32", "float"), ("int64", "long long")):
        source, params, _ = k.source(types=(("T", dtype),))
        assert [p.dtype for p in params] == [dtype] * 3 and f"using T = {ctype};" in source
    types = kernels._bind_types(k.name, k.parameters, [np.ones(2, np.float32), 2.0, None])
    assert types == (("T", "float32"),)  # the array binds T; the scalar takes it
    assert kernels._bind_types(k.name, k.parameters, [3, 2, None]) == (("T", "int64"),)  # scalars alone: NumPy's
    with pytest.raises(ValueError, match="y is float64, but T is float32"):
        kernels._bind_types(k.name, k.parameters, [np.ones(2, np.float32), np.ones(2, np.float64), None])
    with pytest.raises(ValueError, match="do not offer float16"):
        kernels._bind_types(k.name, k.parameters, [np.ones(2, np.float16)] * 2 + [None])
    with pytest.raises(ValueError, match="bound by a call"):
        k.source()
    r = prism.ReductionKernel("T x", "T r", "x", "a + b", "r = a", "0", "total")
    assert r._output(r._types([np.ones(3, np.float64)]))[0].dtype == "float64"
    with pytest.raises(ValueError, match="raw arguments"):
        prism.ElementwiseKernel("raw T x, int32 n", "T y", "y = x[n - 1 - i]", "reverse")
    with pytest.raises(ValueError, match="unknown type"):  # a placeholder is one identifier
        prism.ElementwiseKernel("unsigned float x", "float32 y", "y = x", "typo")
    assert prism.ElementwiseKernel("float32 x", "float32 y", "y = x", "typed").parameters[0].dtype == "float32"


def test_the_tuned_kernel_moves_16_byte_vectors():
    nvrtc_or_skip()
    k = prism.ElementwiseKernel(*ADD_PYCUDA)
    ptx = kernels.compile_source(k.source()[0], k.name, "compute_90").decode()
    raw = ptx.split(".entry prism_elementwise_raw(")[1]
    naive = ptx.split(".entry prism_elementwise_raw_naive(")[1].split(".entry")[0]
    assert "ld.global.v4" in raw and "st.global.v4" in raw
    assert "ld.global.v4" not in naive


def test_a_kernel_that_does_not_compile_says_why():
    nvrtc_or_skip()
    bad = prism.ElementwiseKernel("float32 a", "float32 c", "c = a + no_such_thing", "bad")
    with pytest.raises(ValueError, match="no_such_thing"):
        kernels.compile_source(bad.source()[0], bad.name)


def test_host_arrays_refused():
    nvrtc_or_skip()
    k = prism.ElementwiseKernel(*ADD_CUPY)
    a = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="host memory"):
        k(a, a)  # a run-time kernel runs on the GPU: the arguments are checked before it is loaded
    with pytest.raises(ValueError, match="host memory|float64"):
        k(a, np.ones(4, np.float64))
    with pytest.raises(ValueError, match="host memory"):
        prism.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "total")(a)
    with pytest.raises(ValueError, match="host memory"):
        prism.InclusiveScanKernel(np.float32, "a + b")(a)


# ---- on a GPU -------------------------------------------------------------------------------------

SIZES = [0, 1, 3, 1000, 65537, (1 << 20) + 3]


@pytest.mark.parametrize("impl", ["automatic", "raw", "raw_naive"])
def test_elementwise(gpu_xp, rng, impl):
    add = prism.ElementwiseKernel(*ADD_PYCUDA)
    axpy = prism.ElementwiseKernel("float *x, float *y, float a", "y[i] = a * x[i] + y[i]", "axpy")
    two = prism.ElementwiseKernel("float64 x, int32 k", "float64 y, float32 z", "y = x * k; z = (float)x", "two")
    for n in SIZES:
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        da, db = gpu_xp.put(a), gpu_xp.put(b)
        out = gpu_xp.put(np.full(n, 77, np.float32))
        assert add(da, db, out, impl=impl) is None  # PyCUDA's spelling: the arguments are written
        np.testing.assert_array_equal(gpu_xp.get(out), a + b)
        y = gpu_xp.put(b)
        axpy(da, y, 2.5, impl=impl)
        np.testing.assert_allclose(gpu_xp.get(y), 2.5 * a + b, rtol=1e-6)
        x, k = rng.random(n), rng.integers(-5, 5, n).astype(np.int32)
        yy, zz = two(gpu_xp.put(x), gpu_xp.put(k), impl=impl)  # CuPy's: outputs allocated like x
        np.testing.assert_array_equal(gpu_xp.get(yy), x * k)
        np.testing.assert_array_equal(gpu_xp.get(zz), x.astype(np.float32))


def test_elementwise_misaligned_and_scalars(gpu_xp, rng):
    """Views that start off a 16-byte boundary, and each other's: the tuned kernel's head, or the
    textbook kernel for arrays misaligned with respect to each other."""
    add = prism.ElementwiseKernel(*ADD_CUPY)
    scaled = prism.ElementwiseKernel("float32 x, float32 s", "float32 y", "y = s * x", "scaled")
    base = rng.random(4099, dtype=np.float32)
    d = gpu_xp.put(base)
    for first, second in ((1, 1), (1, 2), (3, 0)):
        a, b = d[first:first + 4000], d[second:second + 4000]
        got = add(a, b)
        np.testing.assert_array_equal(gpu_xp.get(got), base[first:first + 4000] + base[second:second + 4000])
    np.testing.assert_array_equal(gpu_xp.get(scaled(d, 3.0)), 3 * base)


def values_of(rng, n, dtype):
    """Small whole numbers of dtype: exact in every type, their squares and sums too."""
    return rng.integers(-50, 50, n).astype(dtype)


def test_type_generic_kernels(gpu_xp, rng):
    k = prism.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff_generic")
    total = prism.ReductionKernel("T x", "T r", "x", "a + b", "r = a", "0", "total")
    for dtype in ("float32", "float64", "int32", "int64"):
        x, y = values_of(rng, 1001, dtype), values_of(rng, 1001, dtype)
        got = k(gpu_xp.put(x), gpu_xp.put(y))
        np.testing.assert_array_equal(gpu_xp.get(got), ((x - y) * (x - y)).astype(dtype))
        np.testing.assert_array_equal(gpu_xp.get(k(gpu_xp.put(x), 2)), ((x - 2) * (x - 2)).astype(dtype))
        s = total(gpu_xp.put(x))
        assert gpu_xp.get(s).dtype == np.dtype(dtype)
        np.testing.assert_allclose(float(gpu_xp.get(s)), float(x.astype(np.float64).sum()), rtol=1e-5)
    with pytest.raises(ValueError, match="but T is"):
        k(gpu_xp.put(np.ones(4, np.float32)), gpu_xp.put(np.ones(4, np.float64)))


def test_elementwise_refusals(gpu_xp):
    add = prism.ElementwiseKernel(*ADD_CUPY)
    a = gpu_xp.put(np.ones(8, np.float32))
    with pytest.raises(ValueError, match="float64"):
        add(gpu_xp.put(np.ones(8, np.float64)), a)
    with pytest.raises(ValueError):
        add(a, gpu_xp.put(np.ones(7, np.float32)))
    with pytest.raises(ValueError, match="raw_naive"):
        add(a, a, impl="cub")
    with pytest.raises(ValueError, match="inputs"):
        add(a)


@pytest.mark.parametrize("impl", ["raw", "raw_naive"])
def test_reductions(gpu_xp, rng, impl):
    dot = prism.ReductionKernel("float32 x, float32 y", "float32 r", "x * y", "a + b", "r = a", "0", "dot")
    norm = prism.ReductionKernel(np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]",
                                 arguments="double *x", name="norm")
    peak = prism.ReductionKernel("float32 x", "float32 m", "x", "max(a, b)", "m = a", "-1e30f", "peak")
    for n in SIZES:
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        r = dot(gpu_xp.put(x), gpu_xp.put(y), impl=impl)  # a 0-d array of the kind: nothing waits
        assert abs(float(gpu_xp.get(r)) - x.astype(np.float64) @ y) <= 1e-4 * max(n, 1)
        z = rng.random(n)
        out = gpu_xp.put(np.full(1, 77, np.float64))
        assert norm(gpu_xp.put(z), out=out, impl=impl) is out
        np.testing.assert_allclose(gpu_xp.get(out)[0], (z * z).sum(), rtol=1e-12, atol=0)
        got = float(gpu_xp.get(peak(gpu_xp.put(x), impl=impl)))
        assert got == (x.max() if n else np.float32(-1e30))


@pytest.mark.parametrize("impl", ["raw", "raw_naive"])
def test_scans(gpu_xp, rng, impl):
    inclusive = prism.InclusiveScanKernel(np.int64, "a + b")
    exclusive = prism.ExclusiveScanKernel(np.int64, "a > b ? a : b", neutral="-1")
    for n in SIZES + [(1 << 22) + 1]:
        x = rng.integers(-100, 100, n)
        dx = gpu_xp.put(x)
        got = inclusive(dx, impl=impl)
        assert got is dx  # in place, as PyCUDA's scan kernels
        np.testing.assert_array_equal(gpu_xp.get(dx), np.cumsum(x))
        out = gpu_xp.put(np.full(n, 77, np.int64))
        exclusive(gpu_xp.put(x), out, impl=impl)
        expected = np.r_[-1, np.maximum.accumulate(x)[:-1]] if n else x
        np.testing.assert_array_equal(gpu_xp.get(out), expected)


def test_runs_on_the_producers_stream(torch):
    """Work still queued on torch's current stream lands before the kernel reads."""
    add = prism.ElementwiseKernel(*ADD_CUPY)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.zeros(1 << 22, device="cuda")
        torch.cuda._sleep(100_000_000)
        x.fill_(1)
        y = add(x, x)
    s.synchronize()
    assert bool((y == 2).all())


def test_compare_prints_every_implementation(gpu_xp, rng, capsys):
    add = prism.ElementwiseKernel(*ADD_PYCUDA)
    n = 1 << 20
    a, b, c = (gpu_xp.put(rng.random(n, dtype=np.float32)) for _ in range(3))
    rows = add.compare(a, b, c, repeats=3)
    names = [r["implementation"] for r in rows]
    assert "vector_add raw (run-time)" in names and "vector_add raw_naive (run-time)" in names
    for impl in ("automatic", "thrust", "raw_naive", "raw", "cub"):
        assert f"prism.add {impl}" in names
    assert names[-1].startswith("copy ceiling")
    assert all(r["GB/s"] > 0 for r in rows)
    printed = capsys.readouterr().out
    assert "prism.add cub" in printed and "% of ceiling" in printed
    total = prism.ReductionKernel("float32 x", "float32 r", "x", "a + b", "r = a", "0", "total")
    names = [r["implementation"] for r in total.compare(a, repeats=3)]
    assert "prism.sum cub" in names
    scan = prism.InclusiveScanKernel(np.float32, "a + b")
    names = [r["implementation"] for r in scan.compare(a, c, repeats=3)]
    assert "prism.inclusive_scan raw" in names
