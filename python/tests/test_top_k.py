# SPDX-License-Identifier: Apache-2.0
"""prism.top_k against a stable argsort of the sort family's order, on every kind of array and
implementation: values bit for bit, indices exactly."""
import numpy as np
import pytest

import prism_primitives as prism

DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64"]


def ordered(x):
    """The unsigned integers whose order is the sort family's order of x (radix_order.cuh)."""
    x = np.ascontiguousarray(x)
    bits = np.dtype(x.dtype).itemsize * 8
    u = np.dtype(f"uint{bits}")
    high = u.type(1) << u.type(bits - 1)
    b = x.view(u).copy()
    if x.dtype.kind == "i":
        return b ^ high
    if x.dtype.kind == "f":
        b[b == high] = 0  # -0.0 is +0.0
        negative = (b & high) != 0
        return np.where(negative, ~b, b ^ high)
    return b


def reference(x, k, largest):
    """The k best of each row (last axis), best first, ties by the lower index."""
    key = ordered(x)
    if largest:
        key = ~key
    idx = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx


def values_of(rng, shape, dtype):
    """Values with many ties; the float specials among floats."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "f":
        x = rng.uniform(-100, 100, n)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])
        x = np.where(rng.random(n) < 0.3, special[rng.integers(0, len(special), n)], x)
    else:
        low = 0 if dtype.kind == "u" else -50
        x = rng.integers(low, 50, n)
    return x.astype(dtype).reshape(shape)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    return a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_top_k_matches_reference(xp, rng, dtype):
    for n in (1, 3, 1000, 4097):
        x = values_of(rng, (n,), dtype)
        dx = xp.put(x)
        for k in sorted({1, 2, n // 2, n}):
            if k == 0 or k > n:
                continue
            for largest in (True, False):
                want_v, want_i = reference(x, k, largest)
                for impl in xp.implementations:
                    v, i = prism.top_k(dx, k, largest, impl=impl)
                    assert same_bits(xp.get(v), want_v), (n, k, largest, impl)
                    np.testing.assert_array_equal(xp.get(i), want_i)


def test_rows_along_the_last_axis(xp, rng):
    x = values_of(rng, (6, 5, 301), "float32")
    for impl in xp.implementations:
        v, i = prism.top_k(xp.put(x), 7, impl=impl)
        want_v, want_i = reference(x, 7, True)
        assert tuple(v.shape) == (6, 5, 7) and tuple(i.shape) == (6, 5, 7)
        assert same_bits(xp.get(v), want_v)
        np.testing.assert_array_equal(xp.get(i), want_i)


def test_ties_and_zeros_by_the_lower_index(xp):
    x = np.array([0.0, -0.0, 1.0, -0.0, 1.0, 0.0], dtype=np.float32)
    for impl in xp.implementations:
        v, i = prism.top_k(xp.put(x), 6, impl=impl)
        np.testing.assert_array_equal(xp.get(i), [2, 4, 0, 1, 3, 5])
        assert list(np.signbit(xp.get(v))) == [False, False, False, True, True, False]
        v, i = prism.top_k(xp.put(x), 2, largest=False, impl=impl)
        np.testing.assert_array_equal(xp.get(i), [0, 1])


def test_nan_above_inf_as_torch_puts_it(xp):
    x = np.array([1.0, np.inf, np.nan, -np.inf], dtype=np.float64)
    for impl in xp.implementations:
        _, i = prism.top_k(xp.put(x), 4, impl=impl)
        np.testing.assert_array_equal(xp.get(i), [2, 1, 0, 3])


def test_int32_indices_and_outputs_given(xp, rng):
    x = values_of(rng, (1000,), "int64")
    want_v, want_i = reference(x, 10, True)
    for impl in xp.implementations:
        values = xp.put(np.zeros(10, dtype=np.int64))
        indices = xp.put(np.full(10, -1, dtype=np.int32))
        v, i = prism.top_k(xp.put(x), 10, values=values, indices=indices, impl=impl)
        assert v is values and i is indices
        np.testing.assert_array_equal(xp.get(v), want_v)
        np.testing.assert_array_equal(xp.get(i), want_i)


def test_k_zero_and_refusals(xp):
    x = xp.put(np.arange(5, dtype=np.float32))
    for impl in xp.implementations:
        v, i = prism.top_k(x, 0, impl=impl)
        assert tuple(v.shape) == (0,) and tuple(i.shape) == (0,)
        with pytest.raises(ValueError):
            prism.top_k(x, 6, impl=impl)
        with pytest.raises(ValueError):
            prism.top_k(x, -1, impl=impl)
        with pytest.raises(ValueError):  # past any row, before anything is made for it
            prism.top_k(x, 2 ** 63, impl=impl)
        offsets = xp.put(np.array([0, 2, 5], np.int64))
        for huge in (2 ** 40, 2 ** 62, 2 ** 70):  # more slots than memory: refused, nothing written
            # NumPy's own allocation may say MemoryError; prism's on a GPU is a ValueError.
            with pytest.raises(ValueError if xp.gpu else (ValueError, MemoryError),
                               match="(?i)allocate|too big|fit|more than|64 bits"):
                prism.top_k(x, huge, offsets=offsets, impl=impl)
        for not_an_integer in (2.7, "3", None):
            with pytest.raises(TypeError):
                prism.top_k(x, not_an_integer, impl=impl)
        indices = xp.put(np.full(2, 7, dtype=np.uint32))
        with pytest.raises((ValueError, TypeError)):
            prism.top_k(x, 2, indices=indices, impl=impl)
        np.testing.assert_array_equal(xp.get(indices), [7, 7])


def test_segments_between_offsets_padded(xp, rng):
    sizes = [0, 3, 1, 8, 0, 2049, 5]
    for otype in ("int32", "int64"):
        offsets = np.concatenate([[2], 2 + np.cumsum(sizes)]).astype(otype)
        x = values_of(rng, (int(offsets[-1]) + 4,), "float32")
        for impl in xp.implementations:
            for largest in (True, False):
                v, i = prism.top_k(xp.put(x), 4, largest, offsets=xp.put(offsets), impl=impl)
                v, i = xp.get(v), xp.get(i)
                assert v.shape == (len(sizes), 4) and i.shape == (len(sizes), 4)
                for s, m in enumerate(sizes):
                    segment = x[offsets[s]:offsets[s + 1]]
                    want_v, want_i = reference(segment, min(m, 4), largest)
                    assert same_bits(v[s, :len(want_v)], want_v), (otype, impl, s)
                    np.testing.assert_array_equal(i[s, :len(want_i)], want_i)
                    np.testing.assert_array_equal(i[s, len(want_i):], -1)
                    assert same_bits(v[s, len(want_v):], np.zeros(4 - len(want_v), np.float32))


def test_segments_refused(xp):
    x = xp.put(np.arange(10, dtype=np.float32))
    for impl in xp.implementations:
        with pytest.raises(ValueError):
            prism.top_k(x, 2, offsets=xp.put(np.zeros(0, dtype=np.int64)), impl=impl)
        with pytest.raises((ValueError, TypeError)):
            prism.top_k(x, 2, offsets=xp.put(np.array([0, 5, 10], dtype=np.float32)), impl=impl)
    with pytest.raises(ValueError):  # broken offsets, read on the host
        prism.top_k(np.arange(10, dtype=np.float32), 2, offsets=np.array([0, 7, 5], dtype=np.int64))
