# SPDX-License-Identifier: Apache-2.0
"""prism from Python: the compiled library's algorithms on the arrays of NumPy and of every CUDA
library of Python (PyTorch, CuPy, JAX, Numba, PyCUDA, ...), and your own kernels.

    import numpy as np, prism_primitives as prism
    a, b = np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)
    prism.add(a, b)                      # array([5., 7., 9.]): NumPy arrays run the cpu implementation
    prism.sum(a)                         # 6.0
    prism.add(ta, tb, out=tc)            # torch CUDA tensors: the GPU, on torch's current stream
    prism.sum(x, impl="cub", stream=s)   # a chosen implementation, on a chosen stream
    add = prism.ElementwiseKernel("float *a, float *b, float *c", "c[i] = a[i] + b[i]")  # your own

Arrays. Every argument is used where it lives, without a copy: NumPy arrays (and anything with the
buffer protocol: ctypes arrays, array.array, bytes and bytearray as uint8) on the host, where
`automatic` runs the `cpu` implementation (on one thread below a measured size, where starting
OpenMP's team would cost more than the work); GPU arrays on their CUDA device, where it runs the
fastest GPU implementation: PyTorch's, CuPy's and JAX's through DLPack (through DLPack 1.3's C
exchange table where the array type carries one, as torch.Tensor does: no Python call per array),
Numba's and PyCUDA's through the CUDA array interface (__cuda_array_interface__, versions 0 to 3), and any other
object that speaks either (PyCUDA in the device's primary context: pycuda.autoprimaryctx, the
one CUDA's runtime libraries share). Arrays must be C-contiguous, of the element type the
operation asks for, in the machine's byte order and at an address that is a multiple of their
element size; nothing is converted: a non-contiguous or misaligned array, an output of the wrong
type or a read-only output is a ValueError. Every field that DLPack, the CUDA array interface or
the buffer protocol gives is checked before it is used (a shape whose byte size does not fit in
63 bits, negative extents, an unknown type or device, a mask, a stream 0 are ValueErrors too).
PyTorch tensors whose negative or conjugate bit is set (torch._neg_view, conj()) are refused:
call .resolve_neg() / .resolve_conj() first. JAX arrays are immutable: never an output. Shapes do
not broadcast: an element-wise call sees its arrays as flat runs of the same length, except that
an operand of the binary operations (add, sub, ..., maximum) and of where may be one value for
every element, as NumPy broadcasts a scalar: a Python int, float or bool, converted to the other
operand's type as NumPy 2 converts Python numbers (a float with an integer array is refused, an
int out of the type's range too), or an array of one element of the same type (a NumPy scalar, a
0-d array, a reduction's result on the host or, read first so that the call waits, a GPU; a
host one beside GPU arrays, as torch and CuPy take a NumPy scalar, is read on the host).
prism.add(x, 1.0) fills a temporary array with 1.0 and adds it: one more pass over memory.

Results. Every function takes `out=` (NumPy's and PyTorch's spelling); without it, the result is
allocated like the first input: on the host a NumPy array (a torch tensor for torch's host
tensors); on a GPU prism's own memory, stream-ordered on the call's stream from prism's pool on
that device (no other library is needed to allocate), handed back as the input's kind of array
(torch, CuPy, JAX, Numba, PyCUDA: their zero-copy imports of it) or, for an object of no known
library, as a prism_primitives.Array, which exports both DLPack and the CUDA array interface
(numpy.asarray(r) or r.get() copies it to the host). Results for JAX are finished before the call
returns (JAX takes an array as it is when it imports it). Reductions without `out` return a
NumPy scalar for NumPy input (the call waits) and a 0-d array for GPU input (nothing waits, as
torch.sum does); with `out` (a one-element array) nothing waits. The result types are prism's: the
sum of int32 is int64, the mean of integers float64, an index or a count int64.

Streams. By default a call on GPU arrays runs on the producer's current stream: torch's and
CuPy's current stream of the array's device, the stream a CUDA array interface names (its
`stream` field), else the legacy default stream. Each array is handed over so that its producer's
pending work on it comes first: `__dlpack__(stream=...)`, or, for the CUDA array interface, the
call's stream made to wait for the stream the interface names (an event recorded there), as the
protocol says a consumer must. `stream=` (an int handle, a torch.cuda.Stream, a cupy Stream, or
anything with __cuda_stream__) runs it elsewhere: the same hand-over makes the new stream wait for
the producers' pending writes; the results are ready in the order of that stream (make your
stream wait for it before you read them elsewhere, as with any side stream). A handle that cannot
be a stream is refused: a bool is a TypeError; a negative one, one at or past 2^47 (2^48 on arm64:
not a user-space address) and one below 65536 other than 0 (the legacy default stream), 1
(cudaStreamLegacy) and 2 (cudaStreamPerThread) a ValueError. A handle that looks like an address
but is not a live stream cannot be checked: passing one is undefined behaviour, as in CUDA itself.
A result of prism's own keeps the stream object it was made on (CuPy's current Stream, a stream=
object) alive until its memory is freed; an int handle is not kept: as in CUDA, its stream must
outlive the work and the memory on it.

Memory freed while prism's work is queued. On the producer's current stream (the default) there
is nothing to do: PyTorch's and CuPy's caching allocators, and prism's own pool, hand freed memory
out again only to work ordered after it on that same stream. On another stream they would not
know of prism's work, so prism keeps every array of such a call alive until that stream has passed
an event recorded after the call (checked, never waited for, at later calls; `held()` says how
many calls are still held). A result of prism's own is freed on the stream it was allocated on.

Your own kernels: ElementwiseKernel, ReductionKernel and ScanKernel (prism_primitives.kernels
says how) compile a C expression at run time into prism's kernels, in raw (vector loads) and
raw_naive (one thread per element); kernel.compare(*arrays) times every implementation.

impl: "automatic" (default), "cpu", "thrust", "raw_naive", "raw", "cub", as the C++ API
(prism::impl). Errors: bad input is a ValueError (nothing is changed), a CUDA failure a
RuntimeError with CUDA's message, and GPU arrays in a process without a usable GPU a
RuntimeError naming the array's device. The GIL is released while prism runs: other threads run
meanwhile, and several threads may call prism at once.
"""
import operator as _operator

import numpy as _np

from . import _prism

__version__ = _prism.version
IMPLEMENTATIONS = ("automatic", "cpu", "thrust", "raw_naive", "raw", "cub")

__all__ = [
    # element-wise
    "add", "sub", "mul", "div", "minimum", "maximum", "axpby", "axpy", "fma", "where",
    "negate", "abs", "square", "sqrt", "rsqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid",
    "relu", "scale", "clamp", "copy", "cast", "fill", "sequence", "adjacent_difference", "gather", "flip",
    "scatter",
    # reductions
    "sum", "product", "min", "max", "minmax", "argmin", "argmax", "count", "count_if", "count_nonzero", "any",
    "all", "dot", "norm1", "norm2", "norm_inf", "mean", "variance", "stddev",
    # scans and selections
    "inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "exclusive_scan_by_key",
    "compact", "partition", "unique", "unique_by_key", "run_length_encode", "reduce_by_key",
    # sorting and histograms
    "sort", "sort_by_key", "argsort", "histogram",
    # merging sorted arrays
    "merge", "merge_by_key", "union1d", "intersect1d", "setdiff1d", "setxor1d",
    # searching
    "searchsorted", "lower_bound", "upper_bound", "equal_range", "binary_search",
    # segments
    "segment_reduce", "segment_scan",
    # the k best
    "top_k",
    # your own kernels, compiled at run time
    "ElementwiseKernel", "ReductionKernel", "ScanKernel", "InclusiveScanKernel", "ExclusiveScanKernel",
    # the rest
    "Array", "gpu_available", "held", "IMPLEMENTATIONS",
]


def gpu_available():
    """Whether this process can use a CUDA device."""
    return _prism.gpu_available()


# ---- arrays: what kind, where, and how to hand them over -----------------------------------------
# The element-wise table and the reductions are one compiled entry each, which makes its call in
# C++ (python/src/calls.hpp). The other functions make theirs here: one _prism.Call finds the
# kinds of the arrays, the first GPU array's device and the producer's current stream (torch's,
# CuPy's, the stream a CUDA array interface names, else the legacy default stream), or checks
# stream= (a bool or another object is a TypeError; a handle that cannot be a stream, a
# ValueError); call(x) hands x to the compiled layer in the cheapest form its kind allows;
# call.like(x) and call.empty(shape, dtype) allocate results; call.done() keeps the arrays of a
# call on a foreign stream alive until it has passed.

_TORCH, _CUPY, _NUMPY, _OTHER = "torch", "cupy", "numpy", "other"
_Call = _prism.Call
Array = _prism.Array
# Where Linux maps a process's memory (2^47 on x86-64, 2^48 on arm64): stream handles lie below.
_USER_SPACE = _prism.user_space


def held():
    """How many calls on an explicit stream still keep their arrays alive (their stream has not
    passed them yet)."""
    return _prism.held()


def _dtype_name(dtype):
    """A dtype's name: 'float32', 'bfloat16', ... from a string, a NumPy dtype or a torch dtype."""
    if isinstance(dtype, str):
        return dtype
    text = str(dtype)
    if text.startswith("torch."):
        return text[len("torch."):]
    return _np.dtype(dtype).name


def _describe(x):
    """shape and dtype name of an array, for results like it."""
    return _prism.describe_like(x)


def _dtype_of(x):
    """The dtype name of an array (its dtype attribute, for the libraries prism knows)."""
    return _prism.dtype_of(x)


def _like(call, x, dtype=None, flat=False):
    return call.like(x, dtype, flat)


_CAPSULE = type(_np.zeros(0).__dlpack__())  # a DLPack capsule's type (PyCapsule)


def _host_view(x):
    """A flat NumPy view of a host buffer (memoryview, array.array, ctypes, bytearray) or of a host
    DLPack object; None for anything else."""
    try:
        return _np.asarray(memoryview(x)).reshape(-1)
    except Exception:
        pass
    try:
        if hasattr(x, "__dlpack__") and x.__dlpack_device__()[0] == 1:
            return _np.from_dlpack(x).reshape(-1)
    except Exception:
        pass
    return None


def _flat(x):
    """x as one flat array over its own memory: its reshape, or its host view (_host_view)."""
    return x.reshape(-1) if hasattr(x, "reshape") else _host_view(x)


def _check_cuttable(name, count, *outs):
    """Without count=, the results are outs cut to the count (views of their memory), so every out
    must give one (_flat); refused before the call writes anything: a bare DLPack capsule (the call
    consumes it) or an array of no known kind off the host cannot."""
    if count is not None:
        return
    for o in outs:
        if o is None or hasattr(o, "reshape") or _host_view(o) is not None:
            continue
        if not (type(o) is _CAPSULE or hasattr(o, "__dlpack__") or hasattr(o, "__cuda_array_interface__")):
            continue  # not an array: the call refuses it as such
        raise ValueError(f"prism.{name}: out is a {type(o).__name__}, whose elements up to the count cannot be "
                         "returned as a view of it: give count= (a one-element int64 array) to have the whole "
                         "outputs back")


# ---- element-wise -------------------------------------------------------------------------------

# The binary and unary operations are made from the library's tables (prism::ops::binaries and
# prism::ops::unaries): one function here per entry there, with its documentation.
_NUMPY_NAMES = {"min": "minimum", "max": "maximum"}  # element-wise min and max, named as NumPy does


def _named(function, name, doc):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    globals()[name] = function


# Each is one compiled entry (python/src/elementwise.cpp): the call is made there, in C++.
def _binary_function(name, doc):
    kernel = getattr(_prism.elementwise, name)

    def function(a, b, out=None, *, impl="automatic", stream=None):
        return kernel(a, b, out, impl, stream)
    _named(function, _NUMPY_NAMES.get(name, name), doc)


def _unary_function(name, doc):
    kernel = getattr(_prism.elementwise, name)

    def function(x, out=None, *, impl="automatic", stream=None):
        return kernel(x, out, impl, stream)
    _named(function, name, doc)


for _name, _doc in _prism.elementwise.binaries:
    _binary_function(_name, _doc)
for _name, _doc in _prism.elementwise.unaries:
    _unary_function(_name, _doc)


def _scale_or_clamp(op, x, out, impl, stream, p, q=None):
    call = _Call((x, out), stream)
    if out is None:
        out = _like(call, x)
    _prism.scale_or_clamp(op, call(x), call(out), p, q, impl, call.stream)
    call.done()
    return out


def scale(alpha, x, out=None, *, impl="automatic", stream=None):
    """out[i] = alpha * x[i]."""
    return _scale_or_clamp("scale", x, out, impl, stream, alpha)


def clamp(x, lo, hi, out=None, *, impl="automatic", stream=None):
    """out[i] = x[i] limited to [lo, hi] (lo > hi: ValueError). A NaN x stays NaN; a NaN bound
    bounds nothing (numpy.clip gives NaN)."""
    return _scale_or_clamp("clamp", x, out, impl, stream, lo, hi)


def axpby(alpha, x, beta, y, out=None, *, impl="automatic", stream=None):
    """out[i] = alpha * x[i] + beta * y[i]."""
    call = _Call((x, y, out), stream)
    if out is None:
        out = _like(call, x)
    _prism.axpby("axpby", alpha, call(x), beta, call(y), call(out), impl, call.stream)
    call.done()
    return out


def axpy(alpha, x, y, *, impl="automatic", stream=None):
    """y[i] = alpha * x[i] + y[i], in place (BLAS axpy); returns y."""
    call = _Call((x, y), stream)
    # y twice, as two hand-overs: a DLPack capsule can be consumed once.
    _prism.axpby("axpy", alpha, call(x), 1, call(y), call(y), impl, call.stream)
    call.done()
    return y


def fma(a, b, c, out=None, *, impl="automatic", stream=None):
    """out[i] = a[i] * b[i] + c[i], rounded once for float and double."""
    call = _Call((a, b, c, out), stream)
    if out is None:
        out = _like(call, a)
    _prism.fma(call(a), call(b), call(c), call(out), impl, call.stream)
    call.done()
    return out


def where(condition, a, b, out=None, *, impl="automatic", stream=None):
    """out[i] = a[i] if condition[i] else b[i] (np.where(condition, a, b)); condition is bool or
    uint8. a or b may be one value for every element (np.where(x > 0, x, 0)): a Python number, or
    an array of one element of the other's type. Without out, the result is shaped like the
    condition, of a's or b's type (of two numbers: float64 if one is a float, else int64)."""
    return _prism.where(condition, a, b, out, impl, stream)


def cast(x, dtype=None, out=None, *, impl="automatic", stream=None):
    """out[i] = x[i] converted to out's type (or a new array of `dtype`): floats to integers
    truncate toward zero and saturate, NaN gives 0; to 16-bit floats round to nearest even, any
    NaN becoming the canonical NaN (its sign clear: numpy keeps the sign). To x's own type it is
    a copy, as NumPy's and CuPy's astype make one."""
    call = _Call((x, out), stream)
    if out is None:
        if dtype is None:
            raise ValueError("prism.cast: give dtype or out")
        out = _like(call, x, _dtype_name(dtype))
    try:
        same = _dtype_of(x) == _dtype_of(out)
    except (TypeError, ValueError):  # not arrays: the compiled cast says why
        same = False
    (_prism.elementwise.copy if same else _prism.cast)(call(x), call(out), impl, call.stream)
    call.done()
    return out


def fill(out, value, *, impl="automatic", stream=None):
    """out[i] = value; returns out."""
    call = _Call((out,), stream)
    _prism.generate("fill", call(out), value, None, impl, call.stream)
    call.done()
    return out


def sequence(out, start=0, step=1, *, impl="automatic", stream=None):
    """out[i] = start + i * step; returns out."""
    call = _Call((out,), stream)
    _prism.generate("sequence", call(out), start, step, impl, call.stream)
    call.done()
    return out


# ---- reductions ---------------------------------------------------------------------------------

def adjacent_difference(x, out=None, *, impl="automatic", stream=None):
    """out[0] = x[0], out[i] = x[i] - x[i - 1] (Thrust's adjacent_difference; np.diff is out[1:]).
    out may be x (in place)."""
    call = _Call((x, out), stream)
    if out is None:
        out = _like(call, x)
    _prism.adjacent_difference(call(x), call(out), impl, call.stream)
    call.done()
    return out


def gather(map, values, out=None, *, where=None, checked=True, impl="automatic", stream=None):
    """out[i] = values[map[i]] (np.take(values, map)); map is int32 or int64, out has its size.
    checked (the default) refuses an index outside values with ValueError, nothing written; it
    waits for a check of the map. checked=False skips it: an index outside is then undefined.
    where= (bool or uint8, the map's size), as a ufunc's: only where it is True (Thrust's
    gather_if); out keeps its other elements (uninitialized if out is not given), and map[i] is
    not used there (nor checked)."""
    call = _Call((map, values, out, where), stream)
    if out is None:
        out = _like(call, map, _dtype_of(values))
    if where is None:
        _prism.permute("gather", call(map), call(values), call(out), checked, impl, call.stream)
    else:
        _prism.permute_where("gather", call(map), call(values), call(where), call(out), checked, impl, call.stream)
    call.done()
    return out


def scatter(values, map, out, *, where=None, checked=True, impl="automatic", stream=None):
    """out[map[i]] = values[i] (out[map] = values in NumPy); map is int32 or int64 of the values'
    size. An index named twice keeps one of its values. checked as for gather. where= (the
    values' size): only the values where it is True (Thrust's scatter_if)."""
    call = _Call((values, map, out, where), stream)
    if where is None:
        _prism.permute("scatter", call(values), call(map), call(out), checked, impl, call.stream)
    else:
        _prism.permute_where("scatter", call(values), call(map), call(where), call(out), checked, impl, call.stream)
    call.done()
    return out


def flip(x, out=None, *, impl="automatic", stream=None):
    """out[i] = x[n - 1 - i] (np.flip of a 1-D array); out may be x (in place)."""
    call = _Call((x, out), stream)
    if out is None:
        out = _like(call, x)
    _prism.flip(call(x), call(out), impl, call.stream)
    call.done()
    return out


# The reductions of one array are made from the library's table (prism::ops::reductions), as the
# element-wise operations are, each one compiled entry (python/src/reduce.cpp); minmax's result is
# a pair, [min, max] in a two-element array.
def _reduction_function(name, doc):
    kernel = getattr(_prism.reduce, name)

    def function(x, out=None, *, impl="automatic", stream=None):
        return kernel(x, out, impl, stream)
    _named(function, name, doc)


for _name, _doc in _prism.reduce.reductions:
    _reduction_function(_name, _doc)


def dot(a, b, out=None, *, impl="automatic", stream=None):
    """sum a[i] * b[i] over the flattened arrays, in sum's type: numpy.vdot (numpy.dot of two
    vectors; numpy.dot of matrices is a matrix product, which prism does not offer)."""
    return _prism.dot(a, b, out, impl, stream)


_COMPARISONS = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
                "equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=",
                "greater": ">", "greater_equal": ">="}


# The integers of one or two bytes and bool (prism.binary_search's result, NumPy's masks), which
# the reductions are not compiled for, are counted by the histogram family: the values satisfying
# `x compare value` are at most two runs of the type's values, and a one-bin histogram counts each.
_COUNTED_BY_HISTOGRAM = {"bool": (0, 1), "uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535),
                         "int16": (-32768, 32767)}


def _runs(compare, value, low, high):
    """The runs [a, b) of the integers in [low, high] for which `x compare value` holds."""
    if compare not in _COMPARISONS.values():
        raise ValueError(f"prism: unknown comparison '{compare}' (==, !=, <, <=, >, >=)")
    below, above, equal = (low, value), (value + 1, high + 1), (value, value + 1)
    runs = {"==": [equal], "!=": [below, above], "<": [below], ">": [above],
            "<=": [(low, value + 1)], ">=": [(value, high + 1)]}[compare]
    return [(a, b) for a, b in runs if a < b]


def _count_by_histogram(call, x, dtype, compare, value, out, impl):
    """count_if of the small integer types: into out (nothing waits), or returned as an int."""
    if type(value) is float or not hasattr(value, "__index__"):
        raise ValueError(f"prism.count_if: value must be an integer for {dtype} arrays")
    value = _operator.index(value)
    low, high = _COUNTED_BY_HISTOGRAM[dtype]
    if not low <= value <= high:
        raise ValueError(f"prism.count_if: value is out of {dtype}'s range")
    runs = _runs(compare, value, low, high)
    if dtype == "bool":
        # A bool is its byte's truth, as NumPy reads it: any byte but 0 is True (a uint8 array's
        # .view(bool)); the histogram counts bytes, so True's run covers 1 to 255.
        runs = [(a, 256 if b == 2 else b) for a, b in runs]
    # "!=" (two runs) counts the elements equal to value and takes them from the size: x is read
    # once, as a DLPack capsule can be (its first read consumes it).
    total = _size(x) if len(runs) == 2 else None
    if total is not None:
        runs = [(value, value + 1)]
    counted = "int64" if out is None else _dtype_of(out)  # the complement is made in out: of its type
    if out is not None:
        # As the compiled count_if checks out: the histogram would take a longer out as more bins,
        # and the fill and add of the other paths would write any out.
        if counted not in ("int64", "uint64"):
            raise ValueError(f"prism: out is {counted}, expected int64 or uint64")
        if _size(out) != 1:
            raise ValueError(f"prism.count_if: the result has {_size(out)} elements, expected 1")
    counts = [out if out is not None and total is None else call.empty((), counted) for _ in runs]
    for (a, b), count in zip(runs, counts):
        _prism.histogram(call(x), call(count), a, b, impl, call.stream)
    if out is None:
        if not counts:
            return 0
        return int(counts[0]) if total is None else total - int(counts[0])
    if not runs:
        _prism.generate("fill", call(out), 0, None, impl, call.stream)
    elif total is not None:
        _prism.elementwise.sub(total, counts[0], out, impl, call.stream)
    return None


def _count(x, compare, value, out, impl, stream, wait=False):
    """count_if; wait=True: the count as a Python int, whatever the input (any and all)."""
    compare = _COMPARISONS.get(compare, compare)
    call = _Call((x, out), stream)
    if out is None and call.returns_array and not wait:
        out = call.empty((), "int64")
    dtype = _dtype_of(x)
    if dtype not in _COUNTED_BY_HISTOGRAM:
        value = _prism.count_if(call(x), compare, value, call(out), impl, call.stream)
    elif wait and call.returns_array:  # counted where the array is, then read back
        count = call.empty((), "int64")
        _count_by_histogram(call, x, dtype, compare, value, count, impl)
        value = _prism.read_count(call(count), call.stream)
    else:
        value = _count_by_histogram(call, x, dtype, compare, value, out, impl)
    call.done()
    return out if out is not None else value


def count_if(x, compare, value, out=None, *, impl="automatic", stream=None):
    """How many x[i] satisfy `x[i] compare value` (compare: ==, !=, <, <=, >, >=); an int for
    NumPy input, a 0-d int64 array for PyTorch and CuPy input and into out (nothing waits). bool,
    int8, uint8, int16 and uint16 arrays are counted too (by one-bin histograms of the values that
    satisfy it), value an integer in their range (True and False for bool)."""
    return _count(x, compare, value, out, impl, stream)


def count(x, value, out=None, *, impl="automatic", stream=None):
    """How many elements equal value."""
    return count_if(x, "==", value, out, impl=impl, stream=stream)


def count_nonzero(x, out=None, *, impl="automatic", stream=None):
    """How many elements are not 0 (numpy.count_nonzero of the flattened array; a bool mask's True
    elements)."""
    return count_if(x, "!=", 0, out, impl=impl, stream=stream)


def _size(x):
    shape = _describe(x)[0]
    size = 1
    for extent in shape:
        size *= extent
    return size


def any(x, compare="!=", value=0, *, impl="automatic", stream=None):
    """Whether some x[i] satisfies `x[i] compare value` (by default: is not 0; a bool mask: is
    True), as a Python bool: the call waits."""
    return _count(x, compare, value, None, impl, stream, wait=True) > 0


def all(x, compare="!=", value=0, *, impl="automatic", stream=None):
    """Whether every x[i] satisfies `x[i] compare value` (by default: is not 0; True for none), as
    a Python bool: the call waits."""
    size = _size(x)  # before the count, which consumes a DLPack capsule
    return _count(x, compare, value, None, impl, stream, wait=True) == size


_sum_kernel = _prism.reduce.sum
_sum_doc = sum.__doc__


def sum(x, out=None, *, impl="automatic", stream=None):
    # A DLPack capsule is consumed by the compiled call that refuses it: its type is asked first.
    if type(x) is not _CAPSULE or _dtype_of(x) != "bool":
        try:  # one compiled call, as every reduction; a bool array is refused there, and counted here
            return _sum_kernel(x, out, impl, stream)
        except ValueError:
            if type(x) is _CAPSULE or _dtype_of(x) != "bool":
                raise
    counted = count_if(x, "!=", False, out, impl=impl, stream=stream)  # NumPy's sum of a mask: its count
    return _np.int64(counted) if isinstance(counted, int) else counted  # a NumPy scalar, as every sum


sum.__doc__ = _sum_doc + " The sum of a bool array is the count of its True elements (int64)."


# ---- scans and selections -----------------------------------------------------------------------
# A scan runs over its input flattened, as numpy.cumsum without axis: the result made is 1-D (an out
# given may have any shape of the same size).

def _scan(kind, x, out, op, impl, stream):
    call = _Call((x, out), stream)
    if out is None:
        out = _like(call, x, flat=True)
    _prism.scan(kind, op, call(x), call(out), impl, call.stream)
    call.done()
    return out


def inclusive_scan(x, out=None, *, op="sum", impl="automatic", stream=None):
    """out[i] = x[0] op ... op x[i]; op is "sum", "min" or "max"; in x's type (int32 wraps)."""
    return _scan("inclusive", x, out, op, impl, stream)


def exclusive_scan(x, out=None, *, op="sum", impl="automatic", stream=None):
    """out[i] = identity op x[0] op ... op x[i-1]; out[0] is op's identity (0, +inf, -inf)."""
    return _scan("exclusive", x, out, op, impl, stream)


def _scan_by_key(kind, keys, x, out, op, impl, stream):
    call = _Call((keys, x, out), stream)
    if out is None:
        out = _like(call, x, flat=True)
    _prism.scan_by_key(kind, op, call(keys), call(x), call(out), impl, call.stream)
    call.done()
    return out


def inclusive_scan_by_key(keys, x, out=None, *, op="sum", impl="automatic", stream=None):
    """The inclusive prefix sum (op "sum"), minimum or maximum ("min", "max") restarting at every
    change of key (int keys)."""
    return _scan_by_key("inclusive", keys, x, out, op, impl, stream)


def exclusive_scan_by_key(keys, x, out=None, *, op="sum", impl="automatic", stream=None):
    """The exclusive prefix sum, minimum or maximum restarting at every change of key (op's
    identity at each run's start: 0, +inf, -inf)."""
    return _scan_by_key("exclusive", keys, x, out, op, impl, stream)


# The selections write a count of elements. With count=None the call waits for it and returns
# the outputs cut to it (views of out); with count= a one-element int64/uint64 array it is written
# there, nothing waits, and the whole outputs are returned. out= may be the input itself (in place:
# compact, partition, unique, unique_by_key), larger than the input, or smaller where it holds what
# the call writes: prism counts that first (one more pass over the flags or the values; the call
# waits for it) and refuses, ValueError with nothing written, an output too small. Values of int8,
# uint8, int16, uint16 (and the wider types) for the scans, compact, partition, unique and
# run_length_encode.

def _select(which, values, flags, out, count, impl, stream):
    call = _Call((values, flags, out, count), stream)
    if out is None:
        out = _like(call, values, flat=True)
    kept = _prism.select(which, call(values), call(flags), call(out), call(count), impl, call.stream)
    call.done()
    return out, kept


def compact(values, flags, out=None, *, count=None, impl="automatic", stream=None):
    """The values whose flag is not 0, in order: out[:kept], or out with count=. Flags of bool,
    int8 or uint8, or of int32, uint32, int64, uint64 over values of 4 or 8 bytes."""
    _check_cuttable("compact", count, out)
    out, kept = _select("compact", values, flags, out, count, impl, stream)
    return out if count is not None else _flat(out)[:kept]


def partition(values, flags, out=None, *, count=None, impl="automatic", stream=None):
    """The flagged values first, then the others, each in order (stable): (out, kept), or out
    with count=."""
    out, kept = _select("partition", values, flags, out, count, impl, stream)
    return out if count is not None else (out, kept)


def unique(values, out=None, *, count=None, impl="automatic", stream=None):
    """Each element that differs from the one before it: out[:kept], or out with count=.
    thrust::unique's (torch.unique_consecutive's), not numpy.unique's, which sorts first: for
    numpy.unique(x), call prism.unique(prism.sort(x))."""
    _check_cuttable("unique", count, out)
    call = _Call((values, out, count), stream)
    if out is None:
        out = _like(call, values, flat=True)
    kept = _prism.unique(call(values), call(out), call(count), impl, call.stream)
    call.done()
    return out if count is not None else _flat(out)[:kept]


def unique_by_key(keys, values, keys_out=None, values_out=None, *, count=None, impl="automatic",
                  stream=None):
    """The first key of every run of equal keys and its value: (keys_out[:kept],
    values_out[:kept]), or the whole outputs with count=."""
    _check_cuttable("unique_by_key", count, keys_out, values_out)
    call = _Call((keys, values, keys_out, values_out, count), stream)
    keys_out = _like(call, keys, flat=True) if keys_out is None else keys_out
    values_out = _like(call, values, flat=True) if values_out is None else values_out
    kept = _prism.unique_by_key(call(keys), call(values), call(keys_out), call(values_out),
                                call(count), impl, call.stream)
    call.done()
    if count is not None:
        return keys_out, values_out
    return _flat(keys_out)[:kept], _flat(values_out)[:kept]


def run_length_encode(values, unique_out=None, counts_out=None, *, count=None, impl="automatic",
                      stream=None):
    """Every run of equal values as (value, length): (unique_out[:runs], counts_out[:runs]), or
    the whole outputs with count=. Lengths are int64, or counts_out's int32, uint32 or uint64
    (32-bit counts refuse inputs longer than they hold)."""
    _check_cuttable("run_length_encode", count, unique_out, counts_out)
    call = _Call((values, unique_out, counts_out, count), stream)
    unique_out = _like(call, values, flat=True) if unique_out is None else unique_out
    counts_out = _like(call, values, "int64", flat=True) if counts_out is None else counts_out
    runs = _prism.run_length_encode(call(values), call(unique_out), call(counts_out), call(count),
                                    impl, call.stream)
    call.done()
    if count is not None:
        return unique_out, counts_out
    return _flat(unique_out)[:runs], _flat(counts_out)[:runs]


def reduce_by_key(keys, values, keys_out=None, sums_out=None, *, op="sum", count=None, impl="automatic",
                  stream=None):
    """Every run of equal keys as (key, sum of its values), or its minimum or maximum with op="min"
    or "max": (keys_out[:runs], sums_out[:runs]), or the whole outputs with count=."""
    _check_cuttable("reduce_by_key", count, keys_out, sums_out)
    call = _Call((keys, values, keys_out, sums_out, count), stream)
    keys_out = _like(call, keys, flat=True) if keys_out is None else keys_out
    sums_out = _like(call, values, flat=True) if sums_out is None else sums_out
    runs = _prism.reduce_by_key(op, call(keys), call(values), call(keys_out), call(sums_out),
                                call(count), impl, call.stream)
    call.done()
    if count is not None:
        return keys_out, sums_out
    return _flat(keys_out)[:runs], _flat(sums_out)[:runs]


# ---- sorting and histograms ---------------------------------------------------------------------
# Stable radix sorts of int32, int64, uint32, uint64, float32 and float64 keys (of the flattened
# array, or of each row along the last axis with axis=-1), ascending or descending (descending
# keeps equal keys in their input order too). Floats follow CUB's radix order: -0.0 and +0.0 are
# equal keys, a NaN sorts by its sign bit (NumPy's and PyTorch's NaN, sign clear, after +inf).
# Nothing waits.

def _rows(name, keys, axis):
    """The row length of a sort along `axis` of keys, or None where the sort is of the whole array
    (axis=None, or one dimension). Only the last axis: the arrays are C-contiguous, so each row is
    one segment of the segmented sort."""
    if axis is None:
        return None
    shape = _describe(keys)[0]
    if len(shape) == 0:
        raise ValueError(f"prism.{name}: axis={axis} needs an array of at least one dimension (axis=None "
                         "sorts it whole)")
    if axis not in (-1, len(shape) - 1):
        raise ValueError(f"prism.{name}: axis={axis}: only the last axis (-1) is offered; the rows of "
                         f"a C-contiguous array are what the segmented sort sorts")
    return shape[-1] if len(shape) > 1 else None


_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _kind(name, kind):
    """numpy.sort's kind=: every kind is served by prism's sorts, which are stable (a stable order is
    one that any kind may give)."""
    if kind not in _KINDS:
        raise ValueError(f"prism.{name}: kind={kind!r} is none of NumPy's ({', '.join(map(str, _KINDS[1:]))})")


def sort(keys, out=None, *, axis=-1, kind=None, descending=False, impl="automatic", stream=None):
    """The keys in order, into out (a new array without it; out=keys sorts in place). axis=-1,
    the default (numpy.sort's and torch.sort's): each row along the last axis sorted on its own,
    the result of the keys' shape (prism::segmented_sort with rows of keys.shape[-1]; a 1-D array
    is sorted whole). axis=None sorts the flattened array into a 1-D result.
    A NaN sorts by its sign bit: np.nan (sign clear) after +inf, as numpy.sort puts every NaN, but
    a NaN with the sign set before -inf, and x86's arithmetic makes those (0/0, inf - inf,
    np.sqrt(-1), np.log(-1)); numpy.sort puts them last too. kind= (NumPy's) is accepted: the sort
    is stable, whichever is named."""
    _kind("sort", kind)
    call = _Call((keys, out), stream)
    cols = _rows("sort", keys, axis)
    if out is None:
        out = _like(call, keys, flat=axis is None)
    _prism.sort(call(keys), call(out), cols, descending, impl, call.stream)
    call.done()
    return out


def sort_by_key(keys, values, keys_out=None, values_out=None, *, descending=False, impl="automatic",
                stream=None):
    """The keys in order and the values moved with them (any 4- or 8-byte values): (keys_out,
    values_out); keys_out=keys, values_out=values sorts both in place."""
    call = _Call((keys, values, keys_out, values_out), stream)
    keys_out = _like(call, keys, flat=True) if keys_out is None else keys_out
    values_out = _like(call, values, flat=True) if values_out is None else values_out
    _prism.sort_by_key(call(keys), call(values), call(keys_out), call(values_out), descending, impl,
                       call.stream)
    call.done()
    return keys_out, values_out


def argsort(keys, out=None, *, axis=-1, kind=None, descending=False, impl="automatic", stream=None):
    """The permutation that sorts the keys, stably: keys[out] is sorted. int64 indices (or an int32
    out, for fewer than 2^31 keys). axis=-1, the default (numpy.argsort's): each row's permutation
    along the last axis, positions within the row (numpy.argsort(a, kind="stable")), int64, of the
    keys' shape; the sorted keys are made on the way (one more array of the keys' size,
    discarded); a 1-D array is one row. axis=None: the flattened array's permutation, 1-D. kind= as
    sort's."""
    _kind("argsort", kind)
    call = _Call((keys, out), stream)
    cols = _rows("argsort", keys, axis)
    if cols is None:
        if out is None:
            out = _like(call, keys, "int64", flat=axis is None)
        _prism.argsort(call(keys), call(out), descending, impl, call.stream)
    else:
        # The rows' positions start in an array of the call's own, so that a refused out is left
        # as it was (out itself when the call makes it).
        made = out is None
        if made:
            out = _like(call, keys, "int64")
        positions = out if made else _like(call, keys, "int64")
        sorted_keys = _like(call, keys)
        _prism.argsort_rows(call(keys), call(sorted_keys), call(positions), call(out), cols, descending, impl,
                            call.stream)
    call.done()
    return out


def histogram(samples, bins=None, lo=None, hi=None, *, edges=None, out=None, impl="automatic",
              stream=None):
    """How many samples fall into each bin: `bins` equal bins over [lo, hi) (bins may be left out
    when out is given: its length), or between `edges` (bin k: edges[k] <= x < edges[k+1]).
    Samples outside the bins, NaN and a sample equal to hi are not counted (numpy.histogram counts
    hi in its last bin). int64 counts, or into out (int64, uint64 or uint32); nothing waits, except
    for edges in GPU memory: they are copied to the host and checked before the call (on the call's
    stream), so the call waits for them (and cannot be captured into a CUDA graph). Edges must be
    strictly increasing, without NaN (else ValueError). Samples int8, uint8, int16, uint16, int32,
    uint32, float32 or float64 (bool as the bytes 0 and 1); lo, hi and edges of the samples' type
    for floats, integers (int64 edges) for the integer samples; the bin rule is prism's exact one
    (<prism/histogram.hpp>)."""
    call = _Call((samples, edges, out), stream)
    if edges is not None:
        if bins is not None or lo is not None or hi is not None:
            raise ValueError("prism.histogram: give bins, lo and hi, or edges, not both")
        bins = _size(edges) - 1
        if bins < 1:
            raise ValueError("prism.histogram: edges needs at least two elements")
    elif lo is None or hi is None:
        raise ValueError("prism.histogram: give lo and hi (or edges)")
    if bins is not None and edges is None:
        bins = _operator.index(bins)  # an integer (TypeError for 2.5 or "4")
        if not 1 <= bins <= 2 ** 31 - 2:
            raise ValueError(f"prism.histogram: {bins} bins (1 to 2^31 - 2)")
    if out is None:
        if bins is None:
            raise ValueError("prism.histogram: give bins (or out, whose length is the number of bins)")
        out = call.empty((bins,), "int64")
    elif bins is not None and bins != _size(out):
        raise ValueError(f"prism.histogram: out has {_size(out)} elements for {bins} bins")
    if edges is not None:
        _prism.histogram_edges(call(samples), call(edges), call(out), impl, call.stream)
    else:
        _prism.histogram(call(samples), call(out), lo, hi, impl, call.stream)
    call.done()
    return out


# ---- merging sorted arrays ----------------------------------------------------------------------
# Inputs sorted ascending (flattened), of int32, int64, uint32, uint64, float32 or float64, in the
# sort functions' order (-0.0 == +0.0; NaNs by sign, NumPy's after +inf); unsorted input gives an
# unspecified result. The set operations are the C++ standard library's on sorted multisets, not
# NumPy's on sets: a value m times in a and n times in b appears max(m, n) times in union1d, min(m, n)
# in intersect1d, max(m - n, 0) in setdiff1d and |m - n| in setxor1d, and the result is sorted.
# NumPy's functions sort and deduplicate first (they return each value once): on sorted inputs
# without repeats (what NumPy's assume_unique=True promises), both give the same arrays. For NumPy's
# results from inputs with repeats, pass prism.unique(prism.sort(x)) of each input. With count=None
# the call waits for the count and returns out[:count]; with count= a one-element int64/uint64
# array it is written there, nothing waits, and the whole of out is returned. Without out, one of
# the worst case's size is made (a + b; b's for intersect1d: min(a, b); a's for setdiff1d); a
# smaller out given is checked against the result (the call counts first and waits; ValueError,
# with nothing written, if the result does not fit).

def _new_flat(call, like, size):
    return call.empty((size,), _dtype_of(like))


def merge(a, b, out=None, *, impl="automatic", stream=None):
    """a and b merged into one sorted array of a.size + b.size elements, stably: of equal
    elements, a's come first."""
    call = _Call((a, b, out), stream)
    if out is None:
        out = _new_flat(call, a, _size(a) + _size(b))
    _prism.merge(call(a), call(b), call(out), impl, call.stream)
    call.done()
    return out


def merge_by_key(keys_a, values_a, keys_b, values_b, keys_out=None, values_out=None, *,
                 impl="automatic", stream=None):
    """The keys merged stably and each value (any 4- or 8-byte type) with its key:
    (keys_out, values_out)."""
    call = _Call((keys_a, values_a, keys_b, values_b, keys_out, values_out), stream)
    n = _size(keys_a) + _size(keys_b)
    keys_out = _new_flat(call, keys_a, n) if keys_out is None else keys_out
    values_out = _new_flat(call, values_a, n) if values_out is None else values_out
    _prism.merge_by_key(call(keys_a), call(values_a), call(keys_b), call(values_b), call(keys_out),
                        call(values_out), impl, call.stream)
    call.done()
    return keys_out, values_out


_SET_NAMES = {"set_union": "union1d", "set_intersection": "intersect1d", "set_difference": "setdiff1d",
              "set_symmetric_difference": "setxor1d"}


def _set_operation(op, a, b, out, count, impl, stream, worst):
    _check_cuttable(_SET_NAMES[op], count, out)
    call = _Call((a, b, out, count), stream)
    if out is None:
        out = _new_flat(call, a, worst(_size(a), _size(b)))
    kept = _prism.set_operation(op, call(a), call(b), call(out), call(count), impl, call.stream)
    call.done()
    return out if count is not None else _flat(out)[:kept]


def union1d(a, b, out=None, *, count=None, impl="automatic", stream=None):
    """The sorted union of sorted a and b (std::set_union): each value max(m, n) times."""
    return _set_operation("set_union", a, b, out, count, impl, stream, lambda m, n: m + n)


def intersect1d(a, b, out=None, *, count=None, impl="automatic", stream=None):
    """The sorted intersection of sorted a and b (std::set_intersection): each value min(m, n)
    times, a's elements."""
    return _set_operation("set_intersection", a, b, out, count, impl, stream, lambda m, n: m if m < n else n)


def setdiff1d(a, b, out=None, *, count=None, impl="automatic", stream=None):
    """The values of sorted a not in sorted b (std::set_difference): each max(m - n, 0) times."""
    return _set_operation("set_difference", a, b, out, count, impl, stream, lambda m, n: m)


def setxor1d(a, b, out=None, *, count=None, impl="automatic", stream=None):
    """The values of sorted a or b not in both (std::set_symmetric_difference): each |m - n|
    times, sorted."""
    return _set_operation("set_symmetric_difference", a, b, out, count, impl, stream,
                          lambda m, n: m + n)


_SET_NOTE = """

    On sorted multisets (the C++ standard library's set operations, not NumPy's on sets: NumPy's
    functions sort and deduplicate first); unsorted input gives an unspecified result. Values are
    compared in the sort functions' order: -0.0 equals +0.0, and NaNs of one sign are equal (NumPy
    keeps every NaN apart)."""
for _f in (union1d, intersect1d, setdiff1d, setxor1d):
    _f.__doc__ += _SET_NOTE
del _f


# ---- searching ----------------------------------------------------------------------------------
# Many queries v in one sorted array a (flattened), of one element type: int32, int64, uint32,
# uint64, float32, float64. a is sorted in prism.sort's order (-0.0 == +0.0; a NaN by its sign bit:
# NumPy's NaN, sign clear, after +inf, as numpy.sort puts it); the results keep v's shape. Positions
# are int64 (or into an int32, int64, uint32 or uint64 out). sorted_queries=True promises v is
# sorted too (raw and cub then search by merging); a promise broken leaves the results unspecified.
# v may be one Python number (NumPy's searchsorted(a, 3)): a scalar result for NumPy's a. Nothing
# waits.

_NUMBERS = (int, float, bool)


def _search_call(name, a, v, outputs, stream):
    """(the call, v as an array, whether v was one Python number) of a search. A number is
    searched as a 0-d array of a's type (numpy.searchsorted(a, 3)), converted as NumPy 2 converts
    Python numbers; a float for an integer a is refused (its place among integers is not that of
    any integer of a's type)."""
    number = type(v) in _NUMBERS
    dtype = _dtype_of(a) if number else None
    if type(v) is float and not dtype.startswith("float"):
        raise ValueError(f"prism.{name}: v is a float and a is {dtype}: give v as an array of {dtype}")
    call = _Call((a, None if number else v) + outputs, stream)
    if number:
        query = call.empty((), dtype)
        _prism.generate("fill", call(query), v, None, "automatic", call.stream)
        v = query
    return call, v, number


def _scalar(result, number, out):
    """The result of one number's search: a NumPy scalar on the host, else the 0-d array."""
    return result[()] if number and out is None and isinstance(result, _np.ndarray) else result


def _bounds(name, side, a, v, out, sorted_queries, impl, stream):
    call, v, number = _search_call(name, a, v, (out,), stream)
    result = _like(call, v, "int64") if out is None else out
    _prism.bounds(side, call(a), call(v), call(result), sorted_queries, impl, call.stream)
    call.done()
    return _scalar(result, number, out)


def searchsorted(a, v, side="left", sorter=None, out=None, *, sorted_queries=False, impl="automatic",
                 stream=None):
    """numpy.searchsorted(a, v, side, sorter): for each query, the position in the sorted array a
    where it would be inserted keeping a sorted: before the elements equal to it (side="left") or
    after them (side="right"). sorter (int32 or int64, a's size: numpy.argsort(a)'s) orders an
    unsorted a: the positions are those in a[sorter], gathered first into a temporary by
    prism.gather (the call waits for its check that every index is within a; ValueError, nothing
    written, if one is not).
    v may be one Python number: an int64 NumPy scalar for NumPy a, else a 0-d array."""
    if sorter is not None:
        if _dtype_of(sorter) not in ("int32", "int64"):
            raise ValueError(f"prism.searchsorted: sorter is {_dtype_of(sorter)}: int32 or int64 positions in a")
        if _size(sorter) != _size(a):
            raise ValueError(f"prism.searchsorted: sorter has {_size(sorter)} elements for a's {_size(a)}")
        try:
            a = gather(sorter, a, stream=stream)
        except ValueError as e:
            raise ValueError(f"prism.searchsorted: sorter: {e}") from None
    return _bounds("searchsorted", side, a, v, out, sorted_queries, impl, stream)


def lower_bound(a, v, out=None, *, sorted_queries=False, impl="automatic", stream=None):
    """The first position of each query's equal elements in the sorted array a (searchsorted
    side="left"): the number of elements before the query."""
    return _bounds("lower_bound", "left", a, v, out, sorted_queries, impl, stream)


def upper_bound(a, v, out=None, *, sorted_queries=False, impl="automatic", stream=None):
    """The position past each query's equal elements in the sorted array a (searchsorted
    side="right"): the number of elements not after the query."""
    return _bounds("upper_bound", "right", a, v, out, sorted_queries, impl, stream)


def equal_range(a, v, lower=None, upper=None, *, sorted_queries=False, impl="automatic", stream=None):
    """Both bounds at once: (lower, upper), a[lower[i]:upper[i]] the elements equal to v[i]."""
    call, v, number = _search_call("equal_range", a, v, (lower, upper), stream)
    low = _like(call, v, "int64") if lower is None else lower
    up = _like(call, v, _dtype_of(low)) if upper is None else upper
    _prism.equal_range(call(a), call(v), call(low), call(up), sorted_queries, impl, call.stream)
    call.done()
    return _scalar(low, number, lower), _scalar(up, number, upper)


def binary_search(a, v, out=None, *, sorted_queries=False, impl="automatic", stream=None):
    """Whether each query equals an element of the sorted array a: bool (or into a uint8 out)."""
    call, v, number = _search_call("binary_search", a, v, (out,), stream)
    result = _like(call, v, "bool") if out is None else out
    _prism.binary_search(call(a), call(v), call(result), sorted_queries, impl, call.stream)
    call.done()
    return _scalar(result, number, out)


# ---- segments -----------------------------------------------------------------------------------
# One reduction or prefix sum per segment of x, of one element type: int32, int64, uint32, uint64,
# float32, float64. The segments are given by offsets (torch.segment_reduce's offsets, CSR's row
# pointers: an int32 or int64 array of one more than the segments, non-decreasing, within
# [0, x.size]; segment s is x[offsets[s]:offsets[s+1]] of x flattened), or, with offsets=None, are
# the rows of x: the reduction runs along the last axis. numpy.add.reduceat(x, idx) is
# segment_reduce(x, offsets=idx + [x.size]) where idx is increasing. An empty segment gives 0 (sum),
# +inf / the largest integer (min), -inf / the lowest (max), -1 (argmin, argmax). sum is int64 for
# int32 and int64 (uint64 for unsigned; the float type for floats), as prism.sum; argmin and argmax
# give positions in flattened x (the offsets' type; int64 for rows), the first of equal values, the
# first NaN if any. On the GPU broken offsets are not refused (checking would wait): the results
# are unspecified, and nothing outside the arrays is touched; on NumPy arrays they are refused.
# Nothing waits.

_SEGMENT_OPS = ("sum", "min", "max", "argmin", "argmax")
_SUM_TYPES = {"int32": "int64", "int64": "int64", "uint32": "uint64", "uint64": "uint64"}


def _segments(call, x, offsets):
    """(segments' shape, the fixed size or 0, the positions' dtype) of a segmented call."""
    shape, dtype = _describe(x)
    if offsets is not None:
        return (_size(offsets) - 1,), 0, _dtype_of(offsets)
    if len(shape) == 0:
        raise ValueError("prism.segment_reduce: rows need an array of at least one dimension")
    return tuple(shape[:-1]), shape[-1], "int64"


def segment_reduce(x, offsets=None, op="sum", out=None, *, impl="automatic", stream=None):
    """One reduction (op: "sum", "min", "max", "argmin" or "argmax") of each segment of x: the
    segments between consecutive offsets, or, with offsets=None, the rows of x (along its last
    axis: the result has x.shape[:-1])."""
    if op not in _SEGMENT_OPS:
        raise ValueError(f"prism.segment_reduce: op is one of {', '.join(_SEGMENT_OPS)}, not {op!r}")
    call = _Call((x, offsets, out), stream)
    shape, size, positions = _segments(call, x, offsets)
    if out is None:
        dtype = _dtype_of(x)
        if op == "sum":
            dtype = _SUM_TYPES.get(dtype, dtype)
        elif op in ("argmin", "argmax"):
            dtype = positions
        out = call.empty(shape, dtype)
    _prism.segment_reduce(op, call(x), None if offsets is None else call(offsets), size, call(out), impl,
                          call.stream)
    call.done()
    return out


def segment_scan(x, offsets=None, out=None, *, exclusive=False, impl="automatic", stream=None):
    """The prefix sum of each segment of x (restarting at every segment; exclusive: 0 there), in x's
    type (integers wrap around): the segments between consecutive offsets (elements in none are not
    written; out may be x), or, with offsets=None, the rows of x (along its last axis)."""
    call = _Call((x, offsets, out), stream)
    _, size, _ = _segments(call, x, offsets)
    if out is None:
        out = _like(call, x)
    _prism.segment_scan(exclusive, call(x), None if offsets is None else call(offsets), size, call(out), impl,
                        call.stream)
    call.done()
    return out
# ---- the k best ---------------------------------------------------------------------------------
# The k largest (or smallest) elements of each row of x (its last axis) and their indices in the
# row, best first, ties by the lower index: torch.topk(x, k, sorted=True), with its order made one
# total order, the sort family's (-0.0 == +0.0; NaN with the sign bit clear, NumPy's, above +inf,
# as torch.topk puts NaN; one with it set below -inf). Elements int32, int64, uint32, uint64,
# float32, float64; indices int64 (or into an int32 out). With offsets (int32 or int64, one more
# than the segments, as segment_reduce takes them) the k best of each segment of x flattened,
# indices within the segment, shape (segments, k); a segment shorter than k is padded with index -1
# and value 0. Nothing waits.

def top_k(x, k, largest=True, *, offsets=None, values=None, indices=None, impl="automatic", stream=None):
    """(values, indices): the k largest (largest=False: smallest) elements of each row of x, best
    first, and where they were in the row: values[..., j] == x[..., indices[..., j]]. Shape
    x.shape[:-1] + (k,); k larger than a row is a ValueError. With offsets: the same for each
    segment x.ravel()[offsets[s]:offsets[s+1]], shape (segments, k), short segments padded (index
    -1, value 0)."""
    call = _Call((x, offsets, values, indices), stream)
    shape, dtype = _describe(x)
    shape = tuple(shape)
    row_length = shape[-1] if shape else 1
    k = _operator.index(k)  # an integer (TypeError for 2.7 or "3")
    if k < 0:
        raise ValueError(f"prism.top_k: k = {k} is negative")
    if offsets is None and k > row_length:
        raise ValueError(f"prism.top_k: k = {k} is more than the row's {row_length} elements")
    out_shape = (shape[:-1] if shape else ()) + (k,)
    if offsets is not None:
        if _size(offsets) == 0:
            raise ValueError("prism.top_k: the offsets have one element more than there are segments: at least one")
        out_shape = (_size(offsets) - 1, k)
    if values is None:
        values = call.empty(out_shape, dtype)
    if indices is None:
        indices = call.empty(out_shape, "int64")
    _prism.top_k(call(x), None if offsets is None else call(offsets), row_length, k, call(values), call(indices),
                 largest, impl, call.stream)
    call.done()
    return values, indices


# ---- your own kernels ---------------------------------------------------------------------------

from .kernels import (ElementwiseKernel, ExclusiveScanKernel, InclusiveScanKernel,  # noqa: E402
                      ReductionKernel, ScanKernel)
