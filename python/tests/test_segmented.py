# SPDX-License-Identifier: Apache-2.0
"""The segmented family against NumPy (np.add.reduceat and per-segment reductions written out), on
every kind of array and implementation."""
import numpy as np
import pytest

import prism_primitives as prism

DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64"]


def values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.uniform(-1, 1, n)
    else:
        x = rng.integers(0 if dtype.kind == "u" else -1000, 1000, n)
    x = x.astype(dtype)
    x[1::9] = x[0:-1:9]  # ties with the element before
    return x


def offsets_of(rng, n, dtype="int64"):
    """Offsets over n elements with empty, tiny and long segments."""
    cuts = np.sort(rng.integers(0, n + 1, max(1, n // 50)))
    cuts = np.concatenate([[0, 0], cuts, cuts[: len(cuts) // 3], [n]])
    return np.sort(cuts).astype(dtype)


def reference(x, offsets, op):
    out = []
    for b, e in zip(offsets[:-1], offsets[1:]):
        seg = x[b:e]
        if op == "sum":
            acc = np.float64 if x.dtype.kind == "f" else (np.uint64 if x.dtype.kind == "u" else np.int64)
            out.append(seg.astype(acc).sum() if len(seg) else 0)
        elif op in ("min", "max"):
            if len(seg) == 0:
                info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
                big = np.inf if x.dtype.kind == "f" else info.max
                out.append(big if op == "min" else (-np.inf if x.dtype.kind == "f" else info.min))
            else:
                out.append(seg.min() if op == "min" else seg.max())
        else:
            out.append(-1 if len(seg) == 0 else b + (seg.argmin() if op == "argmin" else seg.argmax()))
    return np.array(out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "min", "max", "argmin", "argmax"])
def test_segment_reduce_by_offsets(xp, rng, dtype, op):
    for n in (0, 1, 7, 1000, 5003):
        x = values(rng, n, dtype)
        for offsets_type in ("int32", "int64"):
            offsets = offsets_of(rng, n, offsets_type)
            want = reference(x, offsets, op)
            for impl in xp.implementations:
                got = xp.get(prism.segment_reduce(xp.put(x), xp.put(offsets), op=op, impl=impl))
                assert got.shape == want.shape
                if op == "sum" and x.dtype.kind == "f":
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1, n))
                else:
                    np.testing.assert_array_equal(got, want.astype(got.dtype))
                if op in ("argmin", "argmax"):
                    assert got.dtype == np.dtype(offsets_type)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_segment_reduce_rows(xp, rng, dtype):
    for rows, cols in ((0, 4), (1, 1), (13, 7), (5, 1500), (3, 0)):
        x = values(rng, rows * cols, dtype).reshape(rows, cols)
        offsets = np.arange(rows + 1) * cols
        for impl in xp.implementations:
            for op in ("sum", "min", "max", "argmin", "argmax"):
                got = xp.get(prism.segment_reduce(xp.put(x), op=op, impl=impl))
                want = reference(x.reshape(-1), offsets, op)
                assert got.shape == (rows,)
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-4)


def test_reduceat_form(xp, rng):
    x = values(rng, 1000, "float64")
    idx = np.array([0, 10, 200, 201, 999])
    want = np.add.reduceat(x, idx)
    for impl in xp.implementations:
        got = xp.get(prism.segment_reduce(xp.put(x), xp.put(np.append(idx, x.size)), impl=impl))
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_nan_and_zeros(xp):
    x = np.array([1.0, np.nan, 0.0, -0.0, 2.0, np.nan], dtype=np.float32)
    offsets = np.array([0, 2, 4, 6])
    for impl in xp.implementations:
        lo = xp.get(prism.segment_reduce(xp.put(x), xp.put(offsets), op="min", impl=impl))
        hi = xp.get(prism.segment_reduce(xp.put(x), xp.put(offsets), op="max", impl=impl))
        arg = xp.get(prism.segment_reduce(xp.put(x), xp.put(offsets), op="argmax", impl=impl))
        assert np.isnan(lo[0]) and np.isnan(hi[0]) and np.isnan(lo[2])
        assert lo[1] == 0 and np.signbit(lo[1]) and hi[1] == 0 and not np.signbit(hi[1])
        np.testing.assert_array_equal(arg, [1, 2, 5])


@pytest.mark.parametrize("dtype", DTYPES)
def test_segment_scan(xp, rng, dtype):
    n = 3001
    x = values(rng, n, dtype)
    offsets = offsets_of(rng, n)
    for exclusive in (False, True):
        want = np.zeros(n, dtype=x.dtype)
        for b, e in zip(offsets[:-1], offsets[1:]):
            c = np.cumsum(x[b:e], dtype=x.dtype)
            want[b:e] = np.concatenate([np.zeros(1, x.dtype), c[:-1]]) if exclusive and e > b else c
        for impl in xp.implementations:
            got = xp.get(prism.segment_scan(xp.put(x), xp.put(offsets), exclusive=exclusive, impl=impl))
            if x.dtype.kind == "f":
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
            else:
                np.testing.assert_array_equal(got, want)


def test_broken_offsets_refused_on_the_host():
    x = np.ones(10, dtype=np.float32)
    out = np.full(2, 7.0, dtype=np.float32)
    for bad in ([0, 5, 3], [0, 5, 11], [-1, 5, 10]):
        with pytest.raises(ValueError):
            prism.segment_reduce(x, np.array(bad), out=out)
        assert (out == 7).all()


def test_bad_op():
    with pytest.raises(ValueError):
        prism.segment_reduce(np.ones(3), np.array([0, 3]), op="mean")


def test_output_size_named(xp):
    """An output of the wrong length is named as the culprit, beside the offsets or rows it disagrees
    with; nothing is written."""
    x = xp.put(np.arange(6, dtype=np.float32))
    offsets = xp.put(np.array([0, 2, 6], np.int32))
    for impl in xp.implementations:
        out = xp.put(np.full(3, 7, np.float32))
        with pytest.raises(ValueError, match="output has 3 elements .*3 offsets bound 2 segments"):
            prism.segment_reduce(x, offsets, "max", out=out, impl=impl)
        with pytest.raises(ValueError, match="output has 3 elements .*6 values are 2 segments of 3"):
            prism.segment_reduce(xp.put(np.arange(6, dtype=np.float32).reshape(2, 3)), None, "sum", out=out,
                                 impl=impl)
        np.testing.assert_array_equal(xp.get(out), np.full(3, 7))
