# SPDX-License-Identifier: Apache-2.0
"""Every function on every kind of array (NumPy here; PyTorch and CuPy CUDA arrays on a GPU), in
every implementation the kind can run, against NumPy's own results computed in float64 (or
exactly, for integers and selections), at awkward sizes, with outputs poisoned first."""
import numpy as np
import pytest

import prism_primitives as prism

SIZES = [0, 1, 3, 1000, 65537]
FLOATS = ["float32", "float64"]
INTEGERS = ["int32", "int64", "uint32", "uint64"]
EPS = {"float16": 2.0 ** -10, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def values(rng, n, dtype, low=-100, high=100):
    """Random values of dtype in [low, high) (unsigned: [0, high)), never all equal."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(low, high, n).astype(dtype)
    if dtype.kind == "u":
        low = 0
    return rng.integers(low, high, n).astype(dtype)


def poisoned(xp, n, dtype):
    host = np.full(n, 77, dtype=dtype)
    return xp.put(host)


def check_close(got, expected, dtype, rtol_ulps=2, atol=0.0):
    """got (of dtype) against a float64 reference rounded to dtype, within a few ulps; integers
    exactly."""
    dtype = np.dtype(dtype)
    got = np.asarray(got)
    assert got.dtype == dtype
    if dtype.kind in "iu":
        np.testing.assert_array_equal(got, np.asarray(expected).astype(dtype))
        return
    with np.errstate(over="ignore"):  # past float16's range the reference is inf, as prism's is
        reference = np.asarray(expected, dtype=np.float64).astype(dtype).astype(np.float64)
    np.testing.assert_allclose(got.astype(np.float64), reference, rtol=rtol_ulps * EPS[dtype.name],
                               atol=atol)


# ---- element-wise ---------------------------------------------------------------------------------

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "minimum": np.minimum,
    "maximum": np.maximum,
}


@pytest.mark.parametrize("op", list(BINARY) + ["div"])
@pytest.mark.parametrize("dtype", FLOATS + INTEGERS + ["float16"])
def test_binary(xp, rng, op, dtype):
    for n in SIZES:
        a, b = values(rng, n, dtype), values(rng, n, dtype)
        if op == "div":
            b[b == 0] = 1  # prism gives 0 for x / 0; tested on its own below
        if op in ("sub",) and np.dtype(dtype).kind == "u":
            a, b = np.maximum(a, b), np.minimum(a, b)
        wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
        if op == "div":
            expected = np.trunc(wide_a / wide_b) if np.dtype(dtype).kind in "iu" else wide_a / wide_b
        else:
            expected = BINARY[op](wide_a, wide_b)
        da, db = xp.put(a), xp.put(b)
        for impl in xp.implementations:
            out = poisoned(xp, n, dtype)
            result = getattr(prism, op)(da, db, out=out, impl=impl)
            assert result is out
            check_close(xp.get(out), expected, dtype)
        allocated = getattr(prism, op)(da, db)  # the input's kind of array
        assert type(allocated) is type(da)
        check_close(xp.get(allocated), expected, dtype)


@pytest.mark.parametrize("op", list(BINARY) + ["div"])
@pytest.mark.parametrize("dtype", FLOATS + INTEGERS + ["float16"])
def test_binary_with_one_value(xp, rng, op, dtype):
    """np.add(x, 1): a Python number, a NumPy scalar, a 0-d or a one-element array stands for every
    element, on either side; the number converted to the array's type as NumPy 2 converts it."""
    kind = np.dtype(dtype).kind
    for n in (0, 1, 3, 1000):
        x = values(rng, n, dtype, 1, 100)
        x[x == 0] = 1  # prism's x / 0 is tested on its own
        number = 7 if kind in "iu" else 2.75
        for one in (number, np.array(number, dtype), np.array([number], dtype), np.dtype(dtype).type(number)):
            for first in (True, False):
                a, b = (one, x) if first else (x, one)
                wide = [np.asarray(v, dtype).astype(np.float64) for v in (a, b)]
                if op == "div":
                    expected = np.trunc(wide[0] / wide[1]) if kind in "iu" else wide[0] / wide[1]
                elif op == "sub" and kind == "u":
                    expected = np.asarray(wide[0] - wide[1]).astype(np.int64).astype(dtype)  # wraps as NumPy
                else:
                    expected = BINARY[op](*wide)
                expected = np.broadcast_to(expected, (n,))
                da = a if isinstance(a, (int, float)) or not isinstance(a, np.ndarray) or a.size == n else xp.put(a)
                db = b if isinstance(b, (int, float)) or not isinstance(b, np.ndarray) or b.size == n else xp.put(b)
                da = xp.put(a) if a is x else da
                db = xp.put(b) if b is x else db
                for impl in xp.implementations:
                    out = poisoned(xp, n, dtype)
                    assert getattr(prism, op)(da, db, out=out, impl=impl) is out
                    check_close(xp.get(out), expected, dtype)
                allocated = getattr(prism, op)(da, db)
                assert type(allocated) is type(xp.put(x))
                check_close(xp.get(allocated).reshape(-1), expected, dtype)


def test_one_value_refusals(xp):
    x, out = xp.put(np.arange(8, dtype=np.int32)), xp.put(np.full(8, 77, np.int32))
    for refused, match in ((2.5, "integer"), (2.0, "integer"), (2 ** 31, "range"), (-1.0, "integer"),
                           (np.float64(2), "float64, expected int32"), (np.int64(2), "int64, expected int32"),
                           ([2], "not an array"), (None, "is None")):
        with pytest.raises(ValueError, match=match):
            prism.add(x, refused, out=out)
        with pytest.raises(ValueError, match=match):
            prism.maximum(refused, x, out=out)
    np.testing.assert_array_equal(xp.get(out), np.full(8, 77))
    with pytest.raises(ValueError, match="both numbers"):
        prism.add(1, 2)
    with pytest.raises(ValueError, match="expected"):  # two arrays of other lengths: not broadcast
        prism.add(x, xp.put(np.ones(2, np.int32)), out=out)
    np.testing.assert_array_equal(xp.get(out), np.full(8, 77))
    np.testing.assert_array_equal(xp.get(prism.add(1, 2, out=out)), np.full(8, 3))  # out's length
    np.testing.assert_array_equal(xp.get(prism.sub(xp.put(np.array([9], np.int32)), 2, out=out)), np.full(8, 7))
    y = xp.put(np.arange(4, dtype=np.uint32))
    np.testing.assert_array_equal(xp.get(prism.add(y, 2 ** 32 - 1)), np.arange(4, dtype=np.uint32) - 1)
    with pytest.raises(ValueError, match="range"):
        prism.add(y, -1)  # NumPy 2 refuses it too
    f = xp.put(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(xp.get(prism.mul(f, True)), [1.0, 2.0])
    np.testing.assert_array_equal(xp.get(prism.sub(f, prism.mean(f))), [-0.5, 0.5])  # a 0-d result
    same = xp.put(np.arange(4, dtype=np.float32))
    prism.add(same, 1, out=same)  # in place
    np.testing.assert_array_equal(xp.get(same), [1, 2, 3, 4])


def test_where_with_one_value(xp, rng):
    x = values(rng, 1001, "float32")
    condition = xp.put(x > 0)
    dx = xp.put(x)
    for impl in xp.implementations:
        np.testing.assert_array_equal(xp.get(prism.where(condition, dx, 0, impl=impl)), np.where(x > 0, x, 0))
        np.testing.assert_array_equal(xp.get(prism.where(condition, -1.5, dx, impl=impl)), np.where(x > 0, -1.5, x))
        one = xp.put(np.array([4], np.float32))
        np.testing.assert_array_equal(xp.get(prism.where(condition, one, dx, impl=impl)), np.where(x > 0, 4, x))
    for a, b in ((1.0, -1.0), (1, -1), (1, 0.5)):
        got = prism.where(condition, a, b)
        expected = np.where(x > 0, a, b)
        host = xp.get(got)
        assert host.dtype == expected.dtype and host.shape == expected.shape
        np.testing.assert_array_equal(host, expected)
    out = xp.put(np.full(1001, 77, np.float32))
    with pytest.raises(ValueError):
        prism.where(condition, True, False)  # bool results are not offered
    with pytest.raises(ValueError, match="integer"):
        prism.where(condition, 0.5, xp.put(np.zeros(1001, np.int32)))
    with pytest.raises(ValueError, match="float64, expected float32"):
        prism.where(condition, np.float64(1), dx, out=out)
    np.testing.assert_array_equal(xp.get(out), np.full(1001, 77))


@pytest.mark.parametrize("dtype", FLOATS + ["int32", "int64", "float16"])
def test_adjacent_difference(xp, rng, dtype):
    for n in SIZES + [1024, 1025, 2049]:
        x = values(rng, n, dtype)
        expected = x.astype(np.float64)
        expected[1:] = np.diff(expected)
        dx = xp.put(x)
        for impl in xp.implementations:
            out = poisoned(xp, n, dtype)
            assert prism.adjacent_difference(dx, out=out, impl=impl) is out
            check_close(xp.get(out), expected, dtype)
            inplace = xp.put(x)
            prism.adjacent_difference(inplace, out=inplace, impl=impl)
            check_close(xp.get(inplace), expected, dtype)
        check_close(xp.get(prism.adjacent_difference(dx)), expected, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "float16", "bool"])
@pytest.mark.parametrize("index", ["int32", "int64"])
def test_gather_scatter(xp, rng, dtype, index):
    for n in SIZES:
        source = values(rng, n + 5, "float64", 0, 2).astype(dtype)
        where = rng.integers(0, n + 5, n).astype(index)
        dv, dm = xp.put(source), xp.put(where)
        for impl in xp.implementations:
            out = xp.put(np.zeros(n, dtype=dtype))
            assert prism.gather(dm, dv, out=out, impl=impl) is out
            np.testing.assert_array_equal(xp.get(out), np.take(source, where))
            target = np.zeros(n + 5, dtype=dtype)
            perm = rng.permutation(n + 5)[:n].astype(index)
            dt = xp.put(target)
            prism.scatter(xp.put(source[:n]), xp.put(perm), dt, impl=impl)
            target[perm] = source[:n]
            np.testing.assert_array_equal(xp.get(dt), target)
        np.testing.assert_array_equal(xp.get(prism.gather(dm, dv)), np.take(source, where))


@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8", "float16"])
def test_gather_scatter_where(xp, rng, dtype):
    for n in SIZES:
        source = values(rng, n + 5, "float64", 0, 2).astype(dtype)
        mask = rng.integers(0, 2, n).astype(bool)
        index = np.where(mask, rng.integers(0, n + 5, n), -1).astype(np.int32)  # unused where False
        for impl in xp.implementations:
            out = xp.put(np.full(n, 3, dtype=dtype))
            prism.gather(xp.put(index), xp.put(source), out=out, where=xp.put(mask), impl=impl)
            np.testing.assert_array_equal(xp.get(out), np.where(mask, np.take(source, np.maximum(index, 0)), 3))
            target = np.full(n + 5, 3, dtype=dtype)
            perm = np.where(mask, rng.permutation(n + 5)[:n], n + 9).astype(np.int64)
            dt = xp.put(target)
            prism.scatter(xp.put(source[:n]), xp.put(perm), dt, where=xp.put(mask), impl=impl)
            target[perm[mask]] = source[:n][mask]
            np.testing.assert_array_equal(xp.get(dt), target)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "float16"])
def test_flip(xp, rng, dtype):
    for n in SIZES:
        x = values(rng, n, "float64", 0, 2).astype(dtype)
        for impl in xp.implementations:
            np.testing.assert_array_equal(xp.get(prism.flip(xp.put(x), impl=impl)), np.flip(x))
            inplace = xp.put(x)
            assert prism.flip(inplace, out=inplace, impl=impl) is inplace
            np.testing.assert_array_equal(xp.get(inplace), np.flip(x))


def test_gather_scatter_refuse_indices_outside(xp):
    source = xp.put(np.arange(4, dtype=np.float32))
    for bad in (-1, 4):
        where = xp.put(np.array([0, 1, bad, 2], dtype=np.int64))
        out = xp.put(np.full(4, 7, dtype=np.float32))
        with pytest.raises(ValueError, match=r"map\[2\] is"):
            prism.gather(where, source, out=out)
        np.testing.assert_array_equal(xp.get(out), np.full(4, 7, dtype=np.float32))
        with pytest.raises(ValueError, match=r"map\[2\] is"):
            prism.scatter(source, where, out)
        np.testing.assert_array_equal(xp.get(out), np.full(4, 7, dtype=np.float32))
    with pytest.raises(ValueError, match="expected int32 or int64"):
        prism.gather(xp.put(np.zeros(4, dtype=np.float32)), source)


def test_integer_division_by_zero(xp):
    a = xp.put(np.array([7, -7, 5], np.int32))
    b = xp.put(np.array([0, 2, 0], np.int32))
    np.testing.assert_array_equal(xp.get(prism.div(a, b)), [0, -3, 0])


UNARY = {
    "negate": (lambda x: -x, -100, 100, "signed"),
    "abs": (np.abs, -100, 100, "signed"),
    "relu": (lambda x: np.maximum(x, 0), -100, 100, "signed"),
    "square": (lambda x: x * x, -100, 100, "all"),
    "copy": (lambda x: x, -100, 100, "all"),
    "sqrt": (np.sqrt, 0, 100, "float"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.01, 100, "float"),
    "exp": (np.exp, -4, 4, "float"),
    "log": (np.log, 0.01, 100, "float"),
    "sin": (np.sin, -4, 4, "float"),
    "cos": (np.cos, -4, 4, "float"),
    "tanh": (np.tanh, -4, 4, "float"),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), -8, 8, "float"),
}


@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("dtype", FLOATS + ["int32", "int64", "uint32"])
def test_unary(xp, rng, op, dtype):
    reference, low, high, types = UNARY[op]
    kind = np.dtype(dtype).kind
    offered = types == "all" or (types == "signed" and kind in "fi") or (types == "float" and kind == "f")
    for n in SIZES:
        x = values(rng, n, dtype, low, high)
        dx = xp.put(x)
        if not offered:
            with pytest.raises(ValueError, match="not offered"):
                getattr(prism, op)(dx, xp.put(np.empty(n, dtype)))
            return
        # The GPU math functions are CUDA's: within 2 ulp; the rest are exact.
        ulps = 4 if types == "float" else 1
        for impl in xp.implementations:
            out = poisoned(xp, n, dtype)
            assert getattr(prism, op)(dx, out=out, impl=impl) is out
            check_close(xp.get(out), reference(x.astype(np.float64)), dtype, ulps,
                        atol=EPS[dtype] if kind == "f" else 0)


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
def test_scalar_operations(xp, rng, dtype):
    integer = np.dtype(dtype).kind in "iu"
    for n in SIZES:
        x, y = values(rng, n, dtype, 0, 50), values(rng, n, dtype, 0, 50)
        dx, dy = xp.put(x), xp.put(y)
        wx, wy = x.astype(np.float64), y.astype(np.float64)
        alpha, beta = (3, 2) if integer else (2.5, -0.5)
        check_close(xp.get(prism.scale(alpha, dx)), alpha * wx, dtype)
        check_close(xp.get(prism.clamp(dx, 10, 30)), np.clip(wx, 10, 30), dtype)
        # alpha x and beta y may cancel: the error is bounded by their sizes, not the result's.
        cancel = 0 if integer else 4 * EPS[dtype] * (abs(alpha) + abs(beta)) * 50
        check_close(xp.get(prism.axpby(alpha, dx, beta, dy)), alpha * wx + beta * wy, dtype, 2, cancel)
        check_close(xp.get(prism.fma(dx, dy, dx)), wx * wy + wx, dtype, 1)
        condition = rng.integers(0, 2, n).astype(bool)
        check_close(xp.get(prism.where(xp.put(condition), dx, dy)), np.where(condition, wx, wy), dtype)
        target = xp.put(y.copy())
        assert prism.axpy(alpha, dx, target) is target
        check_close(xp.get(target), alpha * wx + wy, dtype, 2)
        out = poisoned(xp, n, dtype)
        check_close(xp.get(prism.fill(out, 7)), np.full(n, 7.0), dtype)
        check_close(xp.get(prism.sequence(out, 1, 2)), 1 + 2 * np.arange(n, dtype=np.float64), dtype)


def test_half_precision(xp, rng):
    x = values(rng, 1001, "float16", -4, 4)
    got = xp.get(prism.exp(xp.put(x)))
    check_close(got, np.exp(x.astype(np.float32)).astype(np.float64), "float16", 2)


def test_half_numbers_rounded_once(xp):
    """A Python float becomes a half as NumPy converts it, rounded once: 1 + 2^-11 + 2^-40 is
    nearer 1 + 2^-10 than 1 (through float it would be a tie, rounded to 1)."""
    v = 1 + 2.0 ** -11 + 2.0 ** -40
    x = np.array([2048, 1, 0.5, -3], np.float16)
    for impl in xp.implementations:
        out = poisoned(xp, 4, "float16")
        prism.add(xp.put(x), v, out=out, impl=impl)
        np.testing.assert_array_equal(xp.get(out), x + v)
        prism.fill(out, v, impl=impl)
        np.testing.assert_array_equal(xp.get(out), np.full(4, v, np.float16))


@pytest.mark.parametrize("source,target", [("float32", "float64"), ("float64", "float32"),
                                           ("float32", "int32"), ("int64", "float64"),
                                           ("float32", "float16"), ("int32", "int64")])
def test_cast(xp, rng, source, target):
    x = values(rng, 1001, source, -1000, 1000)
    expected = np.trunc(x.astype(np.float64)) if np.dtype(target).kind in "iu" else x
    got = prism.cast(xp.put(x), target)
    check_close(xp.get(got), expected, target, 1)
    out = poisoned(xp, 1001, target)
    assert prism.cast(xp.put(x), out=out) is out
    check_close(xp.get(out), expected, target, 1)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_cast_to_its_own_type_copies(xp, rng, dtype):
    """x.astype(x.dtype): a new array with x's bits (NaN and -0.0 kept), x untouched."""
    x = values(rng, 1001, dtype, -1000, 1000)
    if np.dtype(dtype).kind == "f":
        x[:3] = [np.nan, -0.0, np.inf]
    source = xp.put(x)
    got = prism.cast(source, dtype)
    assert got is not source
    np.testing.assert_array_equal(xp.get(got).view(np.uint8), x.view(np.uint8))
    out = poisoned(xp, 1001, dtype)
    assert prism.cast(source, out=out) is out
    np.testing.assert_array_equal(xp.get(out).view(np.uint8), x.view(np.uint8))
    np.testing.assert_array_equal(xp.get(source).view(np.uint8), x.view(np.uint8))


# ---- reductions -------------------------------------------------------------------------------------

def value_of(xp, result):
    """A reduction's result as a host scalar (NumPy scalars as they are, 0-d GPU arrays read)."""
    return result if isinstance(result, (np.generic, int, float, tuple)) else xp.get(result)[()]


def sum_tolerance(x, dtype):
    n = len(x)
    return EPS.get(np.dtype(dtype).name, 0) * (4 * np.sqrt(n) + 8) * np.sum(np.abs(x.astype(np.float64)))


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
def test_sum_product_dot(xp, rng, dtype):
    integer = np.dtype(dtype).kind in "iu"
    wide = np.dtype("int64" if np.dtype(dtype).kind == "i" else "uint64" if integer else dtype)
    for n in SIZES:
        x, y = values(rng, n, dtype), values(rng, n, dtype)
        dx, dy = xp.put(x), xp.put(y)
        for impl in xp.implementations:
            s = prism.sum(dx, impl=impl)
            if integer:
                assert value_of(xp, s) == np.sum(x.astype(wide), dtype=wide)
            else:
                assert abs(value_of(xp, s) - np.sum(x.astype(np.float64))) <= sum_tolerance(x, dtype)
            out = xp.put(np.full(1, 77, wide))
            assert prism.sum(dx, out=out, impl=impl) is out
            assert abs(float(xp.get(out)[0]) - float(value_of(xp, s))) <= sum_tolerance(x, dtype)
            if np.dtype(dtype).kind == "u":
                continue  # product and dot are offered for signed types
            d = prism.dot(dx, dy, impl=impl)
            expected = np.dot(x.astype(np.float64), y.astype(np.float64))
            if integer:
                assert value_of(xp, d) == np.dot(x.astype(np.int64), y.astype(np.int64))
            else:
                assert abs(value_of(xp, d) - expected) <= sum_tolerance(x * y, dtype)
            small = (values(rng, n, dtype, 98, 102) / 100).astype(dtype) if not integer else \
                values(rng, n, dtype, -2, 3)
            p = value_of(xp, prism.product(xp.put(small), impl=impl))
            if integer:
                assert p == np.prod(small.astype(np.int64))
            else:
                np.testing.assert_allclose(p, np.prod(small.astype(np.float64)), rtol=EPS[dtype] * (4 * n + 8))


def test_unsigned_results_stay_unsigned(xp):
    """Sums of unsigned integers are uint64 (NumPy's), past 2^63 too, and min and max keep the
    type; argmin and argmax are int64 positions."""
    big = np.array([2 ** 63, 5, 2 ** 64 - 7], np.uint64)
    small = np.array([4, 1, 2 ** 32 - 1], np.uint32)
    for impl in xp.implementations:
        s = prism.sum(xp.put(big[:2]), impl=impl)
        assert np.asarray(value_of(xp, s)).dtype == np.uint64
        assert int(value_of(xp, s)) == 2 ** 63 + 5
        assert int(value_of(xp, prism.max(xp.put(big), impl=impl))) == 2 ** 64 - 7
        assert int(value_of(xp, prism.sum(xp.put(small), impl=impl))) == 2 ** 32 + 4
        assert int(value_of(xp, prism.argmax(xp.put(big), impl=impl))) == 2
        out = xp.put(np.zeros(1, np.uint64))
        prism.sum(xp.put(big[:2]), out=out, impl=impl)
        assert int(xp.get(out)[0]) == 2 ** 63 + 5
    with pytest.raises(ValueError):  # a uint64 value into an int64 array: refused, not wrapped
        prism.max(big, out=np.zeros(1, np.int64))


def test_float32_sums_stay_precise():
    """Long float32 sums on the CPU add pairwise, as NumPy: ten million 0.1f within a few ulps."""
    x = np.full(10 ** 7, 0.1, np.float32)
    exact = float(np.float32(0.1)) * 10 ** 7
    assert abs(float(prism.sum(x)) - exact) <= 1e-6 * exact
    assert abs(float(prism.mean(x)) - float(np.float32(0.1))) <= 1e-6


def test_masked_arrays_refused():
    """numpy.ma's masked arrays give their buffer without the mask: refused, not misread."""
    ma = np.ma.masked_array([1.0, 99.0], mask=[0, 1])
    with pytest.raises((TypeError, ValueError), match="masked"):
        prism.sum(ma)
    out = np.ma.masked_array(np.zeros(2), mask=[0, 0])
    with pytest.raises((TypeError, ValueError), match="masked"):
        prism.add(np.ones(2), np.ones(2), out=out)


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
def test_extrema(xp, rng, dtype):
    for n in SIZES[1:]:
        x = values(rng, n, dtype)
        dx = xp.put(x)
        for impl in xp.implementations:
            assert value_of(xp, prism.min(dx, impl=impl)) == x.min()
            assert value_of(xp, prism.max(dx, impl=impl)) == x.max()
            assert value_of(xp, prism.argmin(dx, impl=impl)) == np.argmin(x)
            assert value_of(xp, prism.argmax(dx, impl=impl)) == np.argmax(x)
            pair = prism.minmax(dx, impl=impl)
            pair = pair if isinstance(pair, tuple) else tuple(xp.get(pair))
            assert pair == (x.min(), x.max())
            out = xp.put(np.full(1, 77, np.int64))
            prism.argmax(dx, out=out, impl=impl)
            assert xp.get(out)[0] == np.argmax(x)
            assert value_of(xp, prism.count(dx, x[0], impl=impl)) == np.count_nonzero(x == x[0])
            assert value_of(xp, prism.count_if(dx, "<", x[n // 2], impl=impl)) == np.count_nonzero(x < x[n // 2])
            assert prism.any(dx, ">", x.max(), impl=impl) is False
            assert prism.all(dx, "<=", x.max(), impl=impl) is True
    empty = xp.put(np.empty(0, dtype))
    for f in (prism.min, prism.max, prism.argmin, prism.argmax, prism.minmax):
        with pytest.raises(ValueError):
            f(empty)
    assert prism.all(empty) is True and prism.any(empty) is False


COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
           ">=": np.greater_equal}


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "uint16", "int16"])
def test_count_small_types(xp, rng, dtype):
    """bool masks (binary_search's results, NumPy's x > 0) and the byte and short integers: count_if,
    count, any, all, and sum of a mask, against NumPy, returned and into out."""
    info = (0, 1) if dtype == "bool" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
    for n in (0, 1, 3, 1000, 65537):
        x = rng.integers(info[0], info[1] + 1, n).astype(dtype)
        if n > 3:
            x[:2] = info  # the type's extremes are there
        dx = xp.put(x)
        values = sorted({info[0], info[1], 0, 1, int(x[n // 2]) if n else 0} & set(range(info[0], info[1] + 1)))
        for impl in xp.implementations:
            for compare, f in COMPARE.items():
                for v in values:
                    want = int(np.count_nonzero(f(x, np.array(v, dtype))))
                    assert int(value_of(xp, prism.count_if(dx, compare, v, impl=impl))) == want
                    for counted in ("int64", "uint64"):
                        out = xp.put(np.full(1, 77, counted))
                        assert prism.count_if(dx, compare, v, out=out, impl=impl) is out
                        assert int(xp.get(out)[0]) == want
            assert int(value_of(xp, prism.count_nonzero(dx, impl=impl))) == np.count_nonzero(x)
            assert prism.any(dx, impl=impl) is bool(np.any(x))
            assert prism.all(dx, impl=impl) is bool(np.all(x))
            assert int(value_of(xp, prism.count(dx, values[-1], impl=impl))) == np.count_nonzero(x == values[-1])
        if dtype == "bool":
            total = prism.sum(dx)
            assert int(value_of(xp, total)) == int(np.sum(x))
            assert not isinstance(total, int) and np.asarray(xp.get(total) if xp.gpu else total).dtype == np.int64
            out = xp.put(np.full(1, 77, np.int64))
            assert prism.sum(dx, out=out) is out and int(xp.get(out)[0]) == int(np.sum(x))
    dx = xp.put(np.zeros(4, dtype))
    out = xp.put(np.full(1, 77, np.int64))
    for value, match in ((0.5, "integer"), (1.0, "integer"), (info[1] + 1, "range"), (info[0] - 1, "range"),
                         ("1", "integer")):
        with pytest.raises(ValueError, match=match):
            prism.count_if(dx, "==", value, out=out)
    with pytest.raises(ValueError, match="comparison"):
        prism.count_if(dx, "=~", 0, out=out)
    assert int(xp.get(out)[0]) == 77
    found = prism.binary_search(xp.put(np.arange(10, dtype=np.int32)), xp.put(np.array([3, 30, 5], np.int32)))
    assert int(value_of(xp, prism.sum(found))) == 2 and prism.any(found) and not prism.all(found)


def test_nan_propagates(xp):
    x = np.array([3, 1, np.nan, 0, np.nan], np.float32)
    dx = xp.put(x)
    assert np.isnan(value_of(xp, prism.min(dx)))
    assert value_of(xp, prism.argmax(dx)) == 2


@pytest.mark.parametrize("dtype", FLOATS + ["int32", "int64"])
def test_moments_and_norms(xp, rng, dtype):
    real = "float32" if dtype == "float32" else "float64"
    for n in SIZES[1:]:
        x = values(rng, n, dtype)
        w = x.astype(np.float64)
        dx = xp.put(x)
        for impl in xp.implementations:
            tolerance = 64 * EPS[real] * np.sqrt(n) * (np.abs(w).max() + 1)
            assert abs(value_of(xp, prism.mean(dx, impl=impl)) - w.mean()) <= tolerance
            assert abs(value_of(xp, prism.variance(dx, impl=impl)) - w.var()) <= tolerance * (np.abs(w).max() + 1)
            assert abs(value_of(xp, prism.stddev(dx, impl=impl)) - w.std()) <= tolerance * 4
            if dtype in FLOATS:
                assert abs(value_of(xp, prism.norm1(dx, impl=impl)) - np.abs(w).sum()) <= sum_tolerance(x, dtype)
                assert abs(value_of(xp, prism.norm2(dx, impl=impl)) - np.linalg.norm(w)) <= \
                    sum_tolerance(x, dtype)
                assert value_of(xp, prism.norm_inf(dx, impl=impl)) == np.abs(x).max()


# ---- scans and selections -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_scans(xp, rng, dtype, op):
    integer = np.dtype(dtype).kind in "iu"
    for n in SIZES:
        x = values(rng, n, dtype)
        dx = xp.put(x)
        if op == "sum":
            inclusive = np.cumsum(x, dtype=dtype) if integer else np.cumsum(x.astype(np.float64))
            identity = 0
        else:
            accumulate = np.minimum.accumulate if op == "min" else np.maximum.accumulate
            inclusive = accumulate(x)
            info = np.iinfo(dtype) if integer else None
            identity = (info.max if op == "min" else info.min) if integer else (np.inf if op == "min" else -np.inf)
        exclusive = np.concatenate([np.array([identity], dtype=inclusive.dtype), inclusive[:-1]])[:n]
        bound = (EPS.get(dtype, 0) * 4 * np.sqrt(np.arange(1, n + 1)) * np.cumsum(np.abs(x.astype(np.float64)))
                 if op == "sum" and not integer else 0)
        for impl in xp.implementations:
            for scan, expected in ((prism.inclusive_scan, inclusive), (prism.exclusive_scan, exclusive)):
                out = poisoned(xp, n, dtype)
                assert scan(dx, out, op=op, impl=impl) is out
                got = xp.get(out)
                if integer or op != "sum":
                    np.testing.assert_array_equal(got, np.asarray(expected).astype(dtype))
                else:
                    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound + EPS[dtype] * 4)


def runs_of(rng, n, dtype="int32"):
    """Sorted keys in runs of random length."""
    return np.sort(rng.integers(0, max(n // 4, 1), n)).astype(dtype)


def test_scans_flatten_as_cumsum(xp, rng):
    x = values(rng, 12, "int64").reshape(3, 4)
    dx = xp.put(x)
    got = prism.inclusive_scan(dx)
    assert tuple(got.shape) == (12,)  # numpy.cumsum(x): the flattened array's scan
    np.testing.assert_array_equal(xp.get(got), np.cumsum(x))
    np.testing.assert_array_equal(xp.get(prism.exclusive_scan(dx)), np.concatenate([[0], np.cumsum(x)[:-1]]))
    out = xp.put(np.zeros((3, 4), np.int64))
    assert prism.inclusive_scan(dx, out=out) is out
    np.testing.assert_array_equal(xp.get(out), np.cumsum(x).reshape(3, 4))


def test_scans_by_key(xp, rng):
    for n in SIZES:
        keys = runs_of(rng, n)
        x = values(rng, n, "int64")
        starts = np.r_[True, keys[1:] != keys[:-1]][:n] if n else np.zeros(0, bool)
        run = np.cumsum(starts) - 1
        total = np.cumsum(x)
        before = np.r_[0, total][np.flatnonzero(starts)] if n else np.zeros(0, np.int64)
        inclusive = total - before[run] if n else total
        exclusive = inclusive - x
        for impl in xp.implementations:
            np.testing.assert_array_equal(xp.get(prism.inclusive_scan_by_key(xp.put(keys), xp.put(x), impl=impl)),
                                          inclusive)
            np.testing.assert_array_equal(xp.get(prism.exclusive_scan_by_key(xp.put(keys), xp.put(x), impl=impl)),
                                          exclusive)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint64"])
def test_minima_and_maxima_by_key(xp, rng, op, dtype):
    """scan_by_key and reduce_by_key with op="min" / "max": numpy's ufunc accumulate and reduceat
    over each run; an exclusive scan starts every run at op's identity."""
    ufunc = np.minimum if op == "min" else np.maximum
    if np.issubdtype(np.dtype(dtype), np.floating):
        identity = np.inf if op == "min" else -np.inf
    else:
        info = np.iinfo(dtype)
        identity = info.max if op == "min" else info.min
    for n in SIZES:
        keys = runs_of(rng, n, "int64")
        x = values(rng, n, dtype)
        first = np.r_[True, keys[1:] != keys[:-1]][:n] if n else np.zeros(0, bool)
        starts = np.flatnonzero(first)
        bounds = np.r_[starts, n]
        inclusive = np.concatenate([ufunc.accumulate(x[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]) if n else x
        exclusive = np.array(inclusive, copy=True)
        if n:
            exclusive[1:] = inclusive[:-1]
            exclusive[first] = identity
        for impl in xp.implementations:
            got = prism.inclusive_scan_by_key(xp.put(keys), xp.put(x), op=op, impl=impl)
            np.testing.assert_array_equal(xp.get(got), inclusive)
            got = prism.exclusive_scan_by_key(xp.put(keys), xp.put(x), op=op, impl=impl)
            np.testing.assert_array_equal(xp.get(got), exclusive)
            k, m = prism.reduce_by_key(xp.put(keys), xp.put(x), op=op, impl=impl)
            np.testing.assert_array_equal(xp.get(k), keys[first])
            np.testing.assert_array_equal(xp.get(m), ufunc.reduceat(x, starts) if n else x)
    with pytest.raises(ValueError, match="unknown scan operation"):
        prism.reduce_by_key(xp.put(np.zeros(3, np.int32)), xp.put(np.zeros(3, np.float32)), op="prod")


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint32"])
def test_selections(xp, rng, dtype):
    for n in SIZES:
        v = values(rng, n, dtype)
        flags = rng.integers(0, 2, n).astype(bool)
        dv, dflags = xp.put(v), xp.put(flags)
        for impl in xp.implementations:
            np.testing.assert_array_equal(xp.get(prism.compact(dv, dflags, impl=impl)), v[flags])
            out, kept = prism.partition(dv, dflags, impl=impl)
            assert kept == np.count_nonzero(flags)
            np.testing.assert_array_equal(xp.get(out), np.concatenate([v[flags], v[~flags]]))
            # The count into an array: nothing waits, the whole output comes back.
            count = xp.put(np.full(1, 77, np.int64))
            out = poisoned(xp, n, dtype)
            assert prism.compact(dv, xp.put(flags.astype(np.uint8)), out, count=count, impl=impl) is out
            kept = int(xp.get(count)[0])
            np.testing.assert_array_equal(xp.get(out)[:kept], v[flags])

            runs = np.repeat(v[: (n + 2) // 3], 3)[:n] if n else v
            first = np.r_[True, runs[1:] != runs[:-1]][:n] if n else np.zeros(0, bool)
            np.testing.assert_array_equal(xp.get(prism.unique(xp.put(runs), impl=impl)), runs[first])
            unique, lengths = prism.run_length_encode(xp.put(runs), impl=impl)
            np.testing.assert_array_equal(xp.get(unique), runs[first])
            np.testing.assert_array_equal(xp.get(lengths), np.diff(np.r_[np.flatnonzero(first), n]))


def test_by_key_selections(xp, rng):
    for n in SIZES:
        keys = runs_of(rng, n, "int64")
        v = values(rng, n, "float64")
        first = np.r_[True, keys[1:] != keys[:-1]][:n] if n else np.zeros(0, bool)
        starts = np.flatnonzero(first)
        for impl in xp.implementations:
            k, u = prism.unique_by_key(xp.put(keys), xp.put(v), impl=impl)
            np.testing.assert_array_equal(xp.get(k), keys[first])
            np.testing.assert_array_equal(xp.get(u), v[first])
            k, s = prism.reduce_by_key(xp.put(keys), xp.put(v), impl=impl)
            np.testing.assert_array_equal(xp.get(k), keys[first])
            expected = np.add.reduceat(v, starts) if n else v
            np.testing.assert_allclose(xp.get(s), expected, rtol=1e-12, atol=1e-9)


# ---- sorting and histograms ---------------------------------------------------------------------------------

def stable_order(keys, descending):
    """The stable sorting permutation, from Python's sort (reverse=True keeps equal keys in order;
    -0.0 == 0.0 there as in prism's order)."""
    return np.array(sorted(range(len(keys)), key=keys.__getitem__, reverse=descending), dtype=np.int64)


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
def test_sorts(xp, rng, dtype):
    for n in SIZES:
        # Few distinct keys, so that stability shows (floats rounded: -0.0 and 0.0 among them).
        keys = np.round(values(rng, n, dtype, -20, 20)).astype(dtype)
        v = values(rng, n, "float64")
        dk, dv = xp.put(keys), xp.put(v)
        for descending in (False, True):
            order = stable_order(keys.tolist(), descending)
            for impl in xp.implementations:
                out = poisoned(xp, n, dtype)
                assert prism.sort(dk, out, descending=descending, impl=impl) is out
                bits = f"u{keys.itemsize}"  # compared as bits: -0.0 and 0.0 in their stable places
                np.testing.assert_array_equal(xp.get(out).view(bits), keys[order].view(bits))
                for index_type in ("int64", "int32"):
                    indices = poisoned(xp, n, index_type)
                    assert prism.argsort(dk, indices, descending=descending, impl=impl) is indices
                    np.testing.assert_array_equal(xp.get(indices), order)
                k, w = prism.sort_by_key(dk, dv, descending=descending, impl=impl)
                np.testing.assert_array_equal(xp.get(k), keys[order])
                np.testing.assert_array_equal(xp.get(w), v[order])
    # In place: the output is the input.
    keys = values(rng, 1000, dtype)
    dk = xp.put(keys)
    prism.sort(dk, dk)
    np.testing.assert_array_equal(xp.get(dk), np.sort(keys))


def test_sort_kinds(xp, rng):
    x = values(rng, 1001, "int32", -5, 5)  # many ties: the stable order is NumPy's kind="stable"
    dx = xp.put(x)
    for kind in (None, "quicksort", "mergesort", "heapsort", "stable"):
        np.testing.assert_array_equal(xp.get(prism.sort(dx, kind=kind)), np.sort(x, kind="stable"))
        np.testing.assert_array_equal(xp.get(prism.argsort(dx, kind=kind)), np.argsort(x, kind="stable"))
    with pytest.raises(ValueError, match="kind='bubble'"):
        prism.sort(dx, kind="bubble")


def test_sort_special_floats(xp):
    x = np.array([np.nan, 1, -np.inf, -0.0, np.inf, 0.0, -1, np.nan], np.float32)
    up = np.array([2, 6, 3, 5, 1, 4, 0, 7])  # NumPy's NaN (sign clear) after +inf; -0.0 == 0.0
    down = np.array([0, 7, 4, 1, 3, 5, 6, 2])
    for impl in xp.implementations:
        np.testing.assert_array_equal(xp.get(prism.argsort(xp.put(x), impl=impl)), up)
        np.testing.assert_array_equal(xp.get(prism.argsort(xp.put(x), descending=True, impl=impl)), down)
        np.testing.assert_array_equal(xp.get(prism.sort(xp.put(x), impl=impl)).view(np.uint32), x[up].view(np.uint32))


def equal_bin_edges(lo, hi, bins, dtype):
    """prism's edges of equal bins (<prism/histogram.hpp>): lo + k (hi - lo) / bins in float64, one
    rounding per operation, then rounded to the samples' type and capped at hi."""
    w = (float(hi) - float(lo)) / bins
    edges = np.minimum((float(lo) + np.arange(bins + 1) * w).astype(dtype), np.array(hi, dtype))
    edges[0], edges[-1] = lo, hi
    return edges


def counts_between(x, edges):
    """Samples with edges[k] <= x < edges[k + 1], per k; the rest (NaN among them) not counted."""
    inside = x[(x >= edges[0]) & (x < edges[-1])]
    return np.bincount(np.searchsorted(edges, inside, side="right") - 1, minlength=len(edges) - 1)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_histogram(xp, rng, dtype):
    integer = np.dtype(dtype).kind in "iu"
    lo, hi = {"uint8": (10, 250), "int32": (-1000, 5000)}.get(dtype, (-0.75, 0.5))
    for n in SIZES:
        if dtype == "uint8":
            x = rng.integers(0, 256, n).astype(dtype)
        elif integer:
            x = rng.integers(-1200, 6000, n).astype(dtype)
        else:  # samples on every edge too, and NaN and infinities, none of them counted but the edges
            special = np.concatenate([equal_bin_edges(lo, hi, 7, dtype), [np.nan, np.inf, -np.inf]])
            x = np.concatenate([rng.uniform(-1, 1, n), special]).astype(dtype)
        dx = xp.put(x)
        for bins in (1, 7, 256):
            if integer:  # exact: floor((x - lo) bins / (hi - lo)) in integers
                inside = x[(x >= lo) & (x < hi)].astype(np.int64)
                expected = np.bincount((inside - lo) * bins // (hi - lo), minlength=bins)
            else:
                expected = counts_between(x, equal_bin_edges(lo, hi, bins, dtype))
            for impl in xp.implementations:
                out = poisoned(xp, bins, "int64")
                assert prism.histogram(dx, bins, lo, hi, out=out, impl=impl) is out
                np.testing.assert_array_equal(xp.get(out), expected)
                narrow = poisoned(xp, bins, "uint32")
                prism.histogram(dx, lo=lo, hi=hi, out=narrow, impl=impl)  # bins from out
                np.testing.assert_array_equal(xp.get(narrow), expected)
        # Edges of the caller's: the level type (int64 for integer samples).
        if dtype == "uint8":
            edges = np.array([0, 3, 64, 65, 200, 256])
        elif integer:
            edges = np.unique(rng.integers(-1100, 5500, 9))
        else:
            edges = np.unique(rng.uniform(-0.8, 0.7, 9).astype(dtype))
        expected = counts_between(x.astype(edges.dtype), edges)
        for impl in xp.implementations:
            got = prism.histogram(dx, edges=xp.put(edges), impl=impl)
            np.testing.assert_array_equal(xp.get(got), expected)


def test_sort_and_histogram_errors(xp):
    keys = xp.put(np.arange(8, dtype=np.float32))
    with pytest.raises(ValueError, match="not offered"):
        prism.sort(xp.put(np.zeros(4, np.float16)))
    with pytest.raises(ValueError, match="expected int64"):
        prism.argsort(keys, xp.put(np.zeros(8, np.float32)))
    with pytest.raises(ValueError, match="not offered"):
        prism.sort_by_key(keys, xp.put(np.zeros(8, np.float16)))
    with pytest.raises(ValueError):
        prism.sort(keys, xp.put(np.zeros(7, np.float32)))  # sizes differ
    samples = xp.put(np.linspace(0, 1, 100, dtype=np.float32))
    with pytest.raises(ValueError, match="3 elements for 4 bins"):
        prism.histogram(samples, 4, 0.0, 1.0, out=xp.put(np.zeros(3, np.int64)))
    with pytest.raises(TypeError):  # bins an integer
        prism.histogram(np.ones(4, np.float32), 2.5, 0.0, 4.0)
    for bins in (0, -1, 2 ** 40):
        with pytest.raises(ValueError):
            prism.histogram(np.ones(4, np.float32), bins, 0.0, 4.0)
    with pytest.raises(ValueError, match="lo and hi"):
        prism.histogram(samples, 4)
    with pytest.raises(ValueError, match="not both"):
        prism.histogram(samples, 4, edges=xp.put(np.array([0, 1], np.float32)))
    with pytest.raises(ValueError, match="integer"):
        prism.histogram(xp.put(np.zeros(4, np.uint8)), 4, 0.5, 3)
    counts = xp.put(np.full(4, 77, np.int64))
    with pytest.raises(ValueError):
        prism.histogram(samples, 4, 1.0, 0.0, out=counts)  # lo above hi
    np.testing.assert_array_equal(xp.get(counts), 77)


def test_histogram_edges_out_of_order_refused(xp):
    """Edges that are not strictly increasing (or hold NaN) are refused on every kind of array:
    GPU edges are copied to the host and checked before the call."""
    samples = xp.put(np.linspace(0, 1, 100, dtype=np.float32))
    for edges in ([0, 0.5, 0.25, 1], [0, 0.5, 0.5, 1], [0, np.nan, 0.5, 1], [1, 0.75, 0.5, 0]):
        counts = xp.put(np.full(3, 77, np.int64))
        with pytest.raises(ValueError, match="strictly increasing"):
            prism.histogram(samples, edges=xp.put(np.array(edges, np.float32)), out=counts)
        np.testing.assert_array_equal(xp.get(counts), 77)
    with pytest.raises(ValueError, match="strictly increasing"):
        prism.histogram(xp.put(np.arange(10, dtype=np.int32)), edges=xp.put(np.array([0, 5, 3, 9])))
    got = prism.histogram(samples, edges=xp.put(np.array([0, 0.25, 0.5, 1], np.float32)))
    np.testing.assert_array_equal(xp.get(got), counts_between(np.linspace(0, 1, 100, dtype=np.float32),
                                                              np.array([0, 0.25, 0.5, 1], np.float32)))


def test_stream_handles_refused(xp):
    """What cannot be a stream handle is refused before anything is handed over."""
    a = xp.put(np.ones(8, np.float32))
    for stream in (12345, 3, 65535, -1, prism._USER_SPACE, 1 << 64):  # _USER_SPACE: 2^47 on x86-64
        with pytest.raises(ValueError, match="not a CUDA stream"):
            prism.add(a, a, stream=stream)
    for stream in (True, False, 1.5, "0", object()):
        with pytest.raises(TypeError):
            prism.sum(a, stream=stream)
    for stream in (0, 1, 2):  # the legacy default stream, cudaStreamLegacy, cudaStreamPerThread
        if stream == 2 and xp.name == "torch":
            with pytest.raises(ValueError, match="per-thread"):  # PyTorch's __dlpack__ refuses it
                prism.add(a, a, stream=stream)
            continue
        out = prism.add(a, a, stream=stream)
        xp.synchronize()
        np.testing.assert_array_equal(xp.get(out), 2)


def test_misaligned_refused():
    """NumPy allows arrays at any byte address; prism reads whole elements and refuses them."""
    for offset in (1, 2, 3):
        x = np.frombuffer(bytearray(68), np.float32, offset=offset, count=16)
        with pytest.raises(ValueError, match="misaligned"):
            prism.sum(x)
        with pytest.raises(ValueError, match="misaligned"):
            prism.add(np.ones(16, np.float32), np.ones(16, np.float32), out=x)


def test_other_host_buffers():
    """ctypes arrays (whose buffers have no strides), array.array, bytes and bytearray are host
    arrays too; formats prism cannot read are refused."""
    import array
    import ctypes
    x = (ctypes.c_float * 4)(1, 2, 3, 4)
    assert prism.sum(x) == 10
    out = (ctypes.c_float * 4)()
    assert prism.add(x, x, out=out) is out
    assert list(out) == [2, 4, 6, 8]
    doubled = prism.add(x, x)
    assert doubled.dtype == np.float32 and doubled.tolist() == [2, 4, 6, 8]
    assert prism.sum((ctypes.c_int64 * 3)(1, 2, 3)) == 6
    assert prism.sum(array.array("d", [0.5, 1.5])) == 2.0
    np.testing.assert_array_equal(prism.histogram(bytes([0, 1, 2, 255]), 2, 0, 256), [3, 1])
    for refused, reason in ((np.ones(4, ">f4"), "byte order"), (np.ones(4, np.complex64), "format"),
                            (np.ones(4, np.int8), "int8"), (memoryview(np.ones(8, np.float32))[::2], "contiguous")):
        with pytest.raises(ValueError, match=reason):
            prism.sum(refused)
    with pytest.raises(ValueError, match="read-only"):
        prism.add(x, x, out=memoryview(bytearray(16)).cast("f").toreadonly())


# ---- errors: refused before anything changes ----------------------------------------------------------------

def test_errors(xp):
    a, b = xp.put(np.arange(8, dtype=np.float32)), xp.put(np.ones(8, np.float32))
    out = xp.put(np.full(8, 77, np.float32))

    def unchanged():
        np.testing.assert_array_equal(xp.get(out), np.full(8, 77, np.float32))

    with pytest.raises(ValueError, match="not contiguous"):
        prism.add(a, b, out=xp.put(np.zeros(16, np.float32))[::2])
    with pytest.raises(ValueError, match="a is float32, expected float64"):
        prism.add(a, b, out=xp.put(np.zeros(8, np.float64)))  # the output's type decides
    with pytest.raises(ValueError, match="a is float64, expected float32"):
        prism.add(xp.put(np.zeros(8, np.float64)), b, out=out)  # inputs are not converted
    with pytest.raises(ValueError):
        prism.add(a, xp.put(np.ones(7, np.float32)), out=out)  # sizes differ
    unchanged()
    with pytest.raises(ValueError, match="unknown impl"):
        prism.add(a, b, out=out, impl="fastest")
    with pytest.raises(ValueError, match=r"unknown impl 'cu\\x00b' \(automatic"):
        prism.add(a, b, out=out, impl="cu\x00b")  # the whole name, the NUL shown
    with pytest.raises(ValueError):
        prism.sum(a, impl="raw_naive")  # not one of the reduction's implementations
    with pytest.raises(ValueError):
        prism.add(a, b, out=out, impl="cpu" if xp.gpu else "raw")  # memory in the wrong place
    unchanged()
    with pytest.raises(ValueError, match="not an array"):
        prism.add([1.0] * 8, b, out=out)
    with pytest.raises(ValueError, match="lo is greater than hi"):
        prism.clamp(a, 3, 1, out=out)
    with pytest.raises(ValueError, match="integer"):
        prism.fill(xp.put(np.zeros(4, np.int32)), 2.5)
    with pytest.raises(ValueError, match="not offered"):
        prism.sum(xp.put(np.ones(4, np.float16)))
    buffer = xp.put(np.zeros(16, np.float32))
    with pytest.raises(ValueError):
        prism.add(buffer[:8], b, out=buffer[4:12])  # overlaps an input without being it
    unchanged()
    # In place is allowed.
    c = xp.put(np.arange(8, dtype=np.float32))
    prism.add(c, b, out=c)
    np.testing.assert_array_equal(xp.get(c), np.arange(8) + 1)


def test_read_only_output_refused():
    out = np.zeros(4, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        prism.add(np.ones(4, np.float32), np.ones(4, np.float32), out=out)
    np.testing.assert_array_equal(out, 0)


def test_read_only_input_accepted():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    np.testing.assert_array_equal(prism.add(a, a), [0, 2, 4, 6])


def test_multidimensional_contiguous(xp, rng):
    x = values(rng, 24, "float32").reshape(2, 3, 4)
    got = prism.add(xp.put(x), xp.put(x))
    assert tuple(got.shape) == (2, 3, 4)
    check_close(xp.get(got), 2 * x.astype(np.float64), "float32")
    with pytest.raises(ValueError, match="not contiguous"):
        prism.sum(xp.put(x).transpose(2, 1, 0) if xp.name != "torch" else xp.put(x).permute(2, 1, 0))


def test_threads_on_the_host(rng):
    """Several Python threads at once on NumPy arrays: prism runs without the GIL."""
    import threading
    inputs = [values(rng, 100_001, "float64") for _ in range(8)]
    results, errors = [None] * 8, []

    def work(k):
        try:
            for _ in range(10):
                results[k] = (prism.scale(2.0, inputs[k]), prism.sum(inputs[k]), prism.inclusive_scan(inputs[k]))
        except Exception as error:  # reported in the main thread
            errors.append(error)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    for k, (scaled, total, scan) in enumerate(results):
        np.testing.assert_array_equal(scaled, 2 * inputs[k])
        assert abs(total - inputs[k].sum()) <= sum_tolerance(inputs[k], "float64")
        np.testing.assert_allclose(scan, np.cumsum(inputs[k]), rtol=1e-9, atol=1e-6)
