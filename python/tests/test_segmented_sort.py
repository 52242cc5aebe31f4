# SPDX-License-Identifier: Apache-2.0
"""Sorts along the last axis (prism::segmented_sort) against numpy.sort and numpy.argsort with
kind="stable", on every kind of array and implementation. NaN and -0.0 follow prism's order (a NaN
by its sign bit, -0.0 == +0.0 kept in input order): NumPy's arrays here have NaNs of one sign, the
one NumPy makes, which both put last."""
import numpy as np
import pytest

import prism_primitives as prism

DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64"]
SHAPES = [(0, 5), (3, 0), (1, 1), (4, 7), (5, 128), (3, 2049), (2, 70000), (2, 3, 33)]


def keys(rng, shape, dtype):
    """Random keys with repeats; floats with NaNs (sign clear) and zeros of both signs."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "f":
        x = rng.uniform(-100, 100, n).astype(dtype)
        special = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0], dtype)
        pick = rng.random(n) < 0.3
        x[pick] = special[rng.integers(0, len(special), int(pick.sum()))]
    else:
        low = 0 if dtype.kind == "u" else -1000
        x = rng.integers(low, 1000, n).astype(dtype)
    return x.reshape(shape)


def same_bits(got, want):
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_last_axis_matches_numpy(xp, rng, dtype):
    for shape in SHAPES:
        x = keys(rng, shape, dtype)
        dx = xp.put(x)
        order = np.argsort(x, axis=-1, kind="stable")
        for impl in xp.implementations:
            got = prism.sort(dx, axis=-1, impl=impl)
            assert tuple(got.shape) == shape
            # np.sort orders -0.0 and +0.0 as equal too, but its result is not stable: the stable
            # permutation's gather is the expected bits.
            same_bits(xp.get(got), np.take_along_axis(x, order, axis=-1))
            idx = prism.argsort(dx, axis=-1, impl=impl)
            np.testing.assert_array_equal(xp.get(idx), order)


def test_descending_keeps_equal_keys_in_order(xp, rng):
    x = rng.integers(0, 4, (6, 300)).astype(np.int32)
    dx = xp.put(x)
    want = np.argsort(-x.astype(np.int64), axis=-1, kind="stable")
    for impl in xp.implementations:
        np.testing.assert_array_equal(xp.get(prism.argsort(dx, axis=1, descending=True, impl=impl)), want)
        np.testing.assert_array_equal(xp.get(prism.sort(dx, axis=-1, descending=True, impl=impl)),
                                      np.take_along_axis(x, want, axis=-1))


def test_in_place_and_out(xp, rng):
    x = keys(rng, (9, 100), "float32")
    want = np.take_along_axis(x, np.argsort(x, axis=-1, kind="stable"), axis=-1)
    for impl in xp.implementations:
        d = xp.put(x)
        assert prism.sort(d, d, axis=-1, impl=impl) is d
        same_bits(xp.get(d), want)


def test_refusals(rng):
    x = keys(rng, (4, 5), "float32")
    with pytest.raises(ValueError):
        prism.sort(x, axis=0)
    with pytest.raises(ValueError):
        prism.argsort(x, axis=2)
    with pytest.raises(ValueError):
        prism.sort(np.float32(3.0), axis=-1)
    with pytest.raises(ValueError):
        prism.sort(x, np.zeros((4, 5), np.float64), axis=-1)  # out of another type
    # Refused row argsorts leave out as it was: into the keys themselves, or overlapping them.
    k = np.array([[5, 4, 3], [2, 1, 0]], np.int64)
    with pytest.raises(ValueError):
        prism.argsort(k, axis=-1, out=k)
    assert k.tolist() == [[5, 4, 3], [2, 1, 0]]
    both = np.array([9, 8, 7, 6, 5, 4, 3, 2], np.int64)
    with pytest.raises(ValueError):
        prism.argsort(both[:6].reshape(2, 3), axis=-1, out=both[2:].reshape(2, 3))
    assert both.tolist() == [9, 8, 7, 6, 5, 4, 3, 2]


def test_default_axis_is_numpys(xp, rng):
    """numpy.sort(a) and numpy.argsort(a) sort along the last axis: so do prism's by default;
    axis=None sorts the flattened array."""
    x = keys(rng, (5, 7), "int32")
    dx = xp.put(x)
    np.testing.assert_array_equal(xp.get(prism.sort(dx)), np.sort(x))
    np.testing.assert_array_equal(xp.get(prism.argsort(dx)), np.argsort(x, kind="stable"))
    flat = prism.sort(dx, axis=None)
    assert tuple(flat.shape) == (35,)
    np.testing.assert_array_equal(xp.get(flat), np.sort(x, axis=None))
    np.testing.assert_array_equal(xp.get(prism.argsort(dx, axis=None)), np.argsort(x, axis=None, kind="stable"))
    one = x[0].copy()
    np.testing.assert_array_equal(xp.get(prism.argsort(xp.put(one))), np.argsort(one, kind="stable"))
