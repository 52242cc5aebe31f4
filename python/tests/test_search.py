# SPDX-License-Identifier: Apache-2.0
"""The search family against numpy.searchsorted, on every kind of array and implementation."""
import numpy as np
import pytest

import prism_primitives as prism

SIZES = [0, 1, 3, 2049, 65537]
DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64"]


def sorted_values(rng, n, dtype):
    """n values of dtype, sorted, with repeats (a value drawn from few, half the time)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.uniform(-100, 100, n)
        few = np.round(rng.uniform(-5, 5, n))
    else:
        low = 0 if dtype.kind == "u" else -1000
        x = rng.integers(low, 1000, n)
        few = rng.integers(max(low, -5), 5, n)
    x = np.where(rng.random(n) < 0.5, few, x).astype(dtype)
    return np.sort(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted_matches_numpy(xp, rng, dtype):
    for n in SIZES:
        a = sorted_values(rng, n, dtype)
        v = sorted_values(rng, 1001, dtype)
        if n:
            v[::3] = a[rng.integers(0, n, len(v[::3]))]  # queries that are elements
        shuffled = rng.permutation(v)
        da = xp.put(a)
        for queries, in_order in ((shuffled, False), (np.sort(v), True)):
            dv = xp.put(queries)
            for impl in xp.implementations:
                for side in ("left", "right"):
                    want = np.searchsorted(a, queries, side=side)
                    got = prism.searchsorted(da, dv, side=side, sorted_queries=in_order, impl=impl)
                    np.testing.assert_array_equal(xp.get(got), want)
                lo, hi = prism.equal_range(da, dv, sorted_queries=in_order, impl=impl)
                np.testing.assert_array_equal(xp.get(lo), np.searchsorted(a, queries, side="left"))
                np.testing.assert_array_equal(xp.get(hi), np.searchsorted(a, queries, side="right"))
                found = xp.get(prism.binary_search(da, dv, sorted_queries=in_order, impl=impl))
                assert found.dtype == np.bool_
                np.testing.assert_array_equal(found, np.isin(queries, a))


def test_positions_of_each_type_and_shape(xp, rng):
    a = sorted_values(rng, 5000, "float32")
    v = rng.uniform(-120, 120, (7, 11)).astype(np.float32)
    want = np.searchsorted(a, v)
    for impl in xp.implementations:
        got = prism.lower_bound(xp.put(a), xp.put(v), impl=impl)
        assert tuple(got.shape) == (7, 11)
        np.testing.assert_array_equal(xp.get(got), want)
        for index in ("int32", "int64", "uint32", "uint64"):
            out = xp.put(np.full((7, 11), 77, dtype=index))
            assert prism.upper_bound(xp.put(a), xp.put(v), out, impl=impl) is out
            np.testing.assert_array_equal(xp.get(out), np.searchsorted(a, v, side="right"))
        flags = xp.put(np.full((7, 11), 9, dtype=np.uint8))
        prism.binary_search(xp.put(a), xp.put(v), flags, impl=impl)
        np.testing.assert_array_equal(xp.get(flags), np.isin(v, a).astype(np.uint8))


def test_searchsorted_with_sorter(xp, rng):
    """numpy.searchsorted(a, v, side, sorter): a unsorted, ordered by sorter (numpy.argsort's)."""
    a = rng.integers(-50, 50, 3001).astype(np.int64)
    v = rng.integers(-60, 60, 777).astype(np.int64)
    for index in (np.int64, np.int32):
        sorter = np.argsort(a, kind="stable").astype(index)
        for impl in xp.implementations:
            for side in ("left", "right"):
                got = prism.searchsorted(xp.put(a), xp.put(v), side, xp.put(sorter), impl=impl)
                np.testing.assert_array_equal(xp.get(got), np.searchsorted(a, v, side, sorter))
    out = xp.put(np.full(777, 5, np.int64))
    with pytest.raises(ValueError, match="sorter"):  # of another size than a
        prism.searchsorted(xp.put(a), xp.put(v), sorter=xp.put(np.arange(3000)), out=out)
    outside = np.argsort(a)
    outside[7] = len(a)
    with pytest.raises(ValueError, match="sorter"):
        prism.searchsorted(xp.put(a), xp.put(v), sorter=xp.put(outside), out=out)
    with pytest.raises(ValueError, match="sorter is float64"):
        prism.searchsorted(xp.put(a), xp.put(v), sorter=xp.put(np.argsort(a).astype(np.float64)), out=out)
    np.testing.assert_array_equal(xp.get(out), np.full(777, 5))


def test_special_floats(xp):
    # NumPy's NaN (sign clear) after +inf, as numpy.sort puts it; -0.0 and 0.0 are one value.
    a = np.array([-np.inf, -1, -0.0, 0.0, 0.0, 2, np.inf, np.nan], np.float64)
    v = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 3, -5], np.float64)
    for impl in xp.implementations:
        np.testing.assert_array_equal(xp.get(prism.searchsorted(xp.put(a), xp.put(v), impl=impl)),
                                      [7, 2, 2, 6, 0, 6, 1])
        np.testing.assert_array_equal(xp.get(prism.searchsorted(xp.put(a), xp.put(v), "right", impl=impl)),
                                      [8, 5, 5, 7, 1, 6, 1])
        np.testing.assert_array_equal(xp.get(prism.binary_search(xp.put(a), xp.put(v), impl=impl)),
                                      [True, True, True, True, True, False, False])


def test_refusals(xp):
    a = xp.put(np.arange(10, dtype=np.float32))
    v = xp.put(np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError):
        prism.searchsorted(a, v, side="middle")
    with pytest.raises(ValueError):
        prism.searchsorted(a, xp.put(np.arange(4, dtype=np.float64)))  # queries of another type
    with pytest.raises(ValueError):
        prism.lower_bound(a, v, xp.put(np.zeros(3, np.int64)))  # out of another size
    with pytest.raises(ValueError):
        prism.lower_bound(a, v, xp.put(np.zeros(4, np.float32)))  # positions of floats
    with pytest.raises(ValueError):
        prism.binary_search(a, v, xp.put(np.zeros(4, np.int32)))  # flags of int32
    with pytest.raises(ValueError):
        prism.equal_range(a, v, xp.put(np.zeros(4, np.int64)), xp.put(np.zeros(4, np.int32)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_number_as_query(xp, rng, dtype):
    """numpy.searchsorted(a, 3): a Python number is one query; NumPy input gives a NumPy scalar."""
    a = sorted_values(rng, 1001, dtype)
    da = xp.put(a)
    numbers = [int(a[0]), int(a[500]), int(a[-1]) + 1, 0, True] + ([float(a[17]), 0.5, -1e300] if a.dtype.kind == "f" else [])
    for number in numbers:
        for impl in xp.implementations:
            for side in ("left", "right"):
                got = prism.searchsorted(da, number, side=side, impl=impl)
                want = np.searchsorted(a, number, side=side)
                if xp.name == "numpy":
                    assert isinstance(got, np.int64)
                else:
                    assert tuple(got.shape) == ()
                assert int(xp.get(got)) == want
            lower, upper = prism.equal_range(da, number, impl=impl)
            assert (int(xp.get(lower)), int(xp.get(upper))) == (np.searchsorted(a, number, "left"),
                                                                 np.searchsorted(a, number, "right"))
            found = prism.binary_search(da, number, impl=impl)
            with np.errstate(over="ignore"):  # -1e300 is -inf in float32, for NumPy as for prism
                assert bool(xp.get(found)) == bool(np.isin(np.asarray(number, a.dtype), a))
    out = xp.put(np.full(1, 77, np.int64))
    assert prism.lower_bound(da, a[3].item(), out=out) is out
    assert int(xp.get(out)[0]) == np.searchsorted(a, a[3])
    if a.dtype.kind in "iu":
        with pytest.raises(ValueError, match="is a float"):
            prism.searchsorted(da, 2.5)
        with pytest.raises(ValueError, match="range"):
            prism.searchsorted(da, -1 if a.dtype.kind == "u" else 2 ** 64)
