# SPDX-License-Identifier: Apache-2.0
"""The selections' outputs as NumPy users pass them: out= of exactly the count, larger, smaller
(counted first; refused with ValueError and nothing written when too small) and the input itself
(in place); and the small integer dtypes (int8, uint8, int16, uint16, bool flags) in the scans,
compact, partition, unique and run_length_encode, and histogram samples of int8, int16, uint16 and
uint32, against NumPy references."""
import numpy as np
import pytest

import prism_primitives as prism

SIZES = [1, 3, 1000, 4099]
POISON = 77


def poisoned(xp, n, dtype):
    return xp.put(np.full(n, POISON, dtype=dtype))


def in_runs(rng, n, dtype):
    return np.repeat(rng.integers(1, 6, n), 3)[:n].astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "int16"])
def test_counted_compact_and_unique(xp, rng, dtype):
    for n in SIZES:
        x = rng.integers(0, 100, n).astype(dtype)
        flags = rng.integers(0, 4, n) == 0
        kept = x[flags]
        r = in_runs(rng, n, dtype)
        heads = r[np.concatenate([[True], r[1:] != r[:-1]])]
        dx, df, dr = xp.put(x), xp.put(flags), xp.put(r)
        for impl in xp.implementations:
            for capacity in (len(kept), len(kept) + 2, n, n + 3):
                out = poisoned(xp, capacity, dtype)
                got = prism.compact(dx, df, out, impl=impl)
                np.testing.assert_array_equal(xp.get(got), kept)
                np.testing.assert_array_equal(xp.get(out)[len(kept):], POISON)  # untouched past the count
            for capacity in (len(heads), n + 1):
                out = poisoned(xp, capacity, dtype)
                np.testing.assert_array_equal(xp.get(prism.unique(dr, out, impl=impl)), heads)
            if len(kept) > 0:
                out = poisoned(xp, len(kept) - 1, dtype)
                with pytest.raises(ValueError, match=f"writes {len(kept)} elements"):
                    prism.compact(dx, df, out, impl=impl)
                np.testing.assert_array_equal(xp.get(out), POISON)
            out = poisoned(xp, len(heads) - 1, dtype)
            with pytest.raises(ValueError, match=f"writes {len(heads)} elements"):
                prism.unique(dr, out, impl=impl)
            np.testing.assert_array_equal(xp.get(out), POISON)


def test_counted_run_length_encode_and_reduce_by_key(xp, rng):
    for n in SIZES:
        keys = in_runs(rng, n, "int32")
        v = rng.integers(-50, 50, n).astype(np.int64)
        starts = np.concatenate([[True], keys[1:] != keys[:-1]])
        heads, runs = keys[starts], int(starts.sum())
        lengths = np.diff(np.append(np.flatnonzero(starts), n))
        sums = np.add.reduceat(v, np.flatnonzero(starts))
        dk, dv = xp.put(keys), xp.put(v)
        for impl in xp.implementations:
            u, c = prism.run_length_encode(dk, poisoned(xp, runs, "int32"), poisoned(xp, runs + 4, "int64"), impl=impl)
            np.testing.assert_array_equal(xp.get(u), heads)
            np.testing.assert_array_equal(xp.get(c), lengths)
            k, s = prism.reduce_by_key(dk, dv, poisoned(xp, runs, "int32"), poisoned(xp, runs, "int64"), impl=impl)
            np.testing.assert_array_equal(xp.get(k), heads)
            np.testing.assert_array_equal(xp.get(s), sums)
            small = poisoned(xp, runs - 1, "int32")
            with pytest.raises(ValueError, match=f"writes {runs} elements"):
                prism.reduce_by_key(dk, dv, small, poisoned(xp, n, "int64"), impl=impl)
            np.testing.assert_array_equal(xp.get(small), POISON)


def test_in_place_outputs(xp, rng):
    x = rng.integers(0, 50, 1001).astype(np.float32)
    flags = rng.integers(0, 3, 1001) == 0
    for impl in xp.implementations:
        d = xp.put(x)
        np.testing.assert_array_equal(xp.get(prism.compact(d, xp.put(flags), d, impl=impl)), x[flags])
        r = np.repeat(x[:300], 3)
        d = xp.put(r)
        np.testing.assert_array_equal(xp.get(prism.unique(d, d, impl=impl)),
                                      r[np.concatenate([[True], r[1:] != r[:-1]])])


def test_partition_output_must_hold_the_input(xp):
    x, flags = np.arange(10, dtype=np.float32), np.arange(10) % 2 == 0
    for impl in xp.implementations:
        out = poisoned(xp, 9, "float32")
        with pytest.raises(ValueError, match="writes all 10"):
            prism.partition(xp.put(x), xp.put(flags), out, impl=impl)
        np.testing.assert_array_equal(xp.get(out), POISON)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16"])
def test_small_integer_scans_and_selections(xp, rng, dtype):
    info = np.iinfo(dtype)
    for n in SIZES:
        x = rng.integers(info.min, int(info.max) + 1, n).astype(dtype)
        dx = xp.put(x)
        for impl in xp.implementations:
            with np.errstate(over="ignore"):
                np.testing.assert_array_equal(xp.get(prism.inclusive_scan(dx, impl=impl)), np.cumsum(x, dtype=dtype))
            np.testing.assert_array_equal(xp.get(prism.inclusive_scan(dx, op="max", impl=impl)), np.maximum.accumulate(x))
            np.testing.assert_array_equal(xp.get(prism.inclusive_scan(dx, op="min", impl=impl)), np.minimum.accumulate(x))
            for flag_type in ("bool", "int8", "uint8"):
                flags = (rng.integers(0, 3, n) == 0).astype(flag_type)
                np.testing.assert_array_equal(xp.get(prism.compact(dx, xp.put(flags), impl=impl)), x[flags != 0])
            r = in_runs(rng, n, dtype)
            starts = np.concatenate([[True], r[1:] != r[:-1]])
            u, c = prism.run_length_encode(xp.put(r), counts_out=poisoned(xp, n, "int32"), impl=impl)
            np.testing.assert_array_equal(xp.get(u), r[starts])
            np.testing.assert_array_equal(xp.get(c), np.diff(np.append(np.flatnonzero(starts), n)))


def test_wide_flags(xp, rng):
    x = rng.uniform(-1, 1, 4099).astype(np.float64)
    for flag_type in ("int32", "uint32", "int64", "uint64"):
        flags = (rng.integers(0, 3, 4099) == 0).astype(flag_type) * 5
        for impl in xp.implementations:
            np.testing.assert_array_equal(xp.get(prism.compact(xp.put(x), xp.put(flags), impl=impl)), x[flags != 0])


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "uint32"])
def test_histogram_integer_samples(xp, rng, dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max) + 1
    x = rng.integers(lo, hi, 10007).astype(dtype)
    want = np.zeros(16, np.int64)
    np.add.at(want, ((x.astype(np.int64) - lo) * 16) // (hi - lo), 1)  # exact: integer bins
    for impl in xp.implementations:
        np.testing.assert_array_equal(xp.get(prism.histogram(xp.put(x), 16, lo, hi, impl=impl)), want)
