# SPDX-License-Identifier: Apache-2.0
"""The merge family from Python: merge and merge_by_key against a stable merge written here, and
union1d, intersect1d, setdiff1d and setxor1d against the multiset semantics they document; on
sorted unique inputs, against NumPy's functions of the same names."""
import collections

import numpy as np
import pytest

import prism_primitives as prism

DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64"]
SIZES = [(0, 0), (0, 5), (6, 0), (1, 1), (3, 1), (2047, 2049), (4099, 1001)]


def sorted_with_repeats(rng, n, dtype, distinct=7):
    return np.sort(rng.integers(0, distinct, n)).astype(dtype)


def reference(op, a, b):
    """std::set_* on sorted multisets: each value max/min/m-n/|m-n| times."""
    ca, cb = collections.Counter(a.tolist()), collections.Counter(b.tolist())
    out = []
    for v in sorted(set(ca) | set(cb)):
        m, n = ca[v], cb[v]
        times = {"union1d": max(m, n), "intersect1d": min(m, n), "setdiff1d": max(m - n, 0),
                 "setxor1d": abs(m - n)}[op]
        out += [v] * times
    return np.array(out, dtype=a.dtype)


def set_implementations(xp):
    return [i for i in xp.implementations if i != "cub"]  # CUB has no set operations


@pytest.mark.parametrize("dtype", DTYPES)
def test_merge(xp, rng, dtype):
    for a_n, b_n in SIZES:
        a, b = sorted_with_repeats(rng, a_n, dtype), sorted_with_repeats(rng, b_n, dtype)
        want = np.concatenate([a, b])[np.argsort(np.concatenate([a, b]), kind="stable")]
        # Values are the positions: the stable merge puts a's before b's among equal keys.
        positions = np.arange(a_n + b_n, dtype=np.int64)
        for impl in xp.implementations:
            got = prism.merge(xp.put(a), xp.put(b), impl=impl)
            np.testing.assert_array_equal(xp.get(got), want)
            keys, values = prism.merge_by_key(xp.put(a), xp.put(positions[:a_n]), xp.put(b),
                                              xp.put(positions[a_n:]), impl=impl)
            np.testing.assert_array_equal(xp.get(keys), want)
            np.testing.assert_array_equal(xp.get(values),
                                          np.argsort(np.concatenate([a, b]), kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_set_operations_multisets(xp, rng, dtype):
    functions = {"union1d": prism.union1d, "intersect1d": prism.intersect1d,
                 "setdiff1d": prism.setdiff1d, "setxor1d": prism.setxor1d}
    for a_n, b_n in SIZES:
        a, b = sorted_with_repeats(rng, a_n, dtype), sorted_with_repeats(rng, b_n, dtype)
        for name, f in functions.items():
            want = reference(name, a, b)
            for impl in set_implementations(xp):
                np.testing.assert_array_equal(xp.get(f(xp.put(a), xp.put(b), impl=impl)), want)
                count = xp.put(np.full(1, 12345, np.int64))
                out = f(xp.put(a), xp.put(b), count=count, impl=impl)
                kept = int(xp.get(count)[0])
                assert kept == want.size
                np.testing.assert_array_equal(xp.get(out)[:kept], want)


def test_set_operations_match_numpy_on_unique_inputs(xp, rng):
    a = np.unique(rng.integers(0, 3000, 2000)).astype(np.int32)
    b = np.unique(rng.integers(0, 3000, 1500)).astype(np.int32)
    for impl in set_implementations(xp):
        np.testing.assert_array_equal(xp.get(prism.union1d(xp.put(a), xp.put(b), impl=impl)), np.union1d(a, b))
        np.testing.assert_array_equal(xp.get(prism.intersect1d(xp.put(a), xp.put(b), impl=impl)),
                                      np.intersect1d(a, b, assume_unique=True))
        np.testing.assert_array_equal(xp.get(prism.setdiff1d(xp.put(a), xp.put(b), impl=impl)),
                                      np.setdiff1d(a, b, assume_unique=True))
        np.testing.assert_array_equal(xp.get(prism.setxor1d(xp.put(a), xp.put(b), impl=impl)),
                                      np.setxor1d(a, b, assume_unique=True))


def test_merge_errors(xp):
    a = xp.put(np.arange(8, dtype=np.float32))
    with pytest.raises(ValueError, match="not offered"):
        prism.merge(xp.put(np.zeros(4, np.float16)), xp.put(np.zeros(4, np.float16)))
    with pytest.raises(ValueError):
        prism.merge(a, a, out=xp.put(np.zeros(15, np.float32)))  # sizes differ
    with pytest.raises(ValueError, match="holds"):
        prism.union1d(a, xp.put(np.arange(8, 16, dtype=np.float32)), out=xp.put(np.zeros(15, np.float32)))
    with pytest.raises(ValueError, match="no implementation named cub"):
        prism.union1d(a, a, impl="cub")
