# SPDX-License-Identifier: Apache-2.0
"""Your own kernels, compiled at run time (NVRTC) into prism's kernels.

    import prism_primitives as prism
    add = prism.ElementwiseKernel("float *a, float *b, float *c", "c[i] = a[i] + b[i]", "vector_add")  # PyCUDA's
    add = prism.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a + b", "vector_add")     # CuPy's
    c = add(a, b)                 # CuPy's spelling: outputs may be left out (allocated like a)
    add(a, b, c, impl="raw_naive")
    add.compare(a, b, c)          # every implementation prism has for it, beside the ceiling

    dot = prism.ReductionKernel("float32 x, float32 y", "float32 r", "x * y", "a + b", "r = a", "0", "dot")
    cumsum = prism.ScanKernel("float32", "a + b", neutral="0")          # PyCUDA's InclusiveScanKernel
    cumsum(x, out)

Each kernel is the user's expression inside prism's own device code (<prism/rtc/kernels.cuh>, on
the primitives of its compiled kernels), in two implementations as prism's families have them:
`raw_naive`, the textbook kernel (one thread per element), and `raw` (the default, as
`automatic`): 16-byte vector loads and stores, several vectors in flight for a reduction. A
kernel is compiled once per signature (which arguments are scalars) and GPU architecture, and
kept in memory and on disk (PRISM_KERNEL_CACHE, default ~/.cache/prism_primitives/kernels; an
empty value keeps nothing on disk). It runs on the arrays' GPU, on the producer's current stream
as every prism call does (stream= runs it elsewhere), on any kind of GPU array prism reads:
torch, CuPy, JAX (as inputs), Numba, PyCUDA, prism's own arrays, anything with DLPack or the CUDA
array interface.

Arguments: "type name" (CuPy) or "type *name" for an array and "type name" for a scalar (PyCUDA);
types are NumPy's names (float32, int64, ...) or C's (float, double, int, long long, unsigned int,
...), or in CuPy's spelling a placeholder (one identifier that names no type: "T x, T y", "T z"),
bound at each call by the arrays given for it (all of one type; a Python scalar binds one no array
does) and named in the operation (T d = x - y): a kernel is compiled per binding. The operation
refers to elements by the arguments' names (CuPy) or as name[i] (PyCUDA), and to the element's
index as i. A PyCUDA operation that reads any other element than a[i] runs
element by element only (raw_naive); CuPy's raw arguments are not offered (PyCUDA's spelling reads
any element). float16 and bfloat16 are not offered.
"""
import hashlib
import os
import re
import sys

import numpy as _np

from . import _prism

__all__ = ["ElementwiseKernel", "ReductionKernel", "ScanKernel", "InclusiveScanKernel", "ExclusiveScanKernel"]

# ---- types -------------------------------------------------------------------------------------------

_C_TYPES = {  # numpy name -> C type
    "float32": "float", "float64": "double", "int32": "int", "int64": "long long",
    "uint32": "unsigned int", "uint64": "unsigned long long", "uint8": "unsigned char", "bool": "bool",
}
_C_NAMES = {
    "float": "float32", "double": "float64", "int": "int32", "int32_t": "int32", "signed int": "int32",
    "long long": "int64", "long": "int64", "int64_t": "int64", "long long int": "int64", "ptrdiff_t": "int64",
    "unsigned": "uint32", "unsigned int": "uint32", "uint32_t": "uint32",
    "unsigned long long": "uint64", "unsigned long": "uint64", "uint64_t": "uint64", "size_t": "uint64",
    "unsigned char": "uint8", "uint8_t": "uint8", "bool": "bool",
}


def _dtype_of(text):
    """A type as written in a signature, as a NumPy dtype name."""
    t = " ".join(str(text).replace("const ", " ").split())
    if t in _C_TYPES:
        return t
    if t in _C_NAMES:
        return _C_NAMES[t]
    try:
        name = _np.dtype(t).name
    except TypeError:
        name = None
    if name in _C_TYPES:
        return name
    if t in ("float16", "half", "__half", "bfloat16", "__nv_bfloat16"):
        raise ValueError(f"prism: run-time kernels do not offer {t} (float32, float64, int32, int64, uint32, "
                         "uint64, uint8, bool)")
    raise ValueError(f"prism: unknown type '{text}' in a kernel's signature (float32, float64, int32, int64, "
                     "uint32, uint64, uint8, bool, or their C names)")


def _known_type(text):
    """Whether text names a type (offered or not): else, in CuPy's spelling, it is a placeholder."""
    if text in _C_TYPES or text in _C_NAMES or text in ("half", "__half", "__nv_bfloat16", "bfloat16"):
        return True
    try:  # a numeric NumPy type; 'T', 'U' and 'S' are NumPy's strings: placeholders, as in CuPy
        return _np.dtype(text).kind in "biufc"
    except TypeError:
        return False


def _bind_types(name, parameters, values):
    """{placeholder: dtype name} from a call's arguments: each array of a placeholder's type binds
    it (all of them alike), then a scalar binds one no array did (NumPy's type for it)."""
    types = {}
    for p, v in zip(parameters, values):
        if isinstance(p.dtype, _Placeholder) and v is not None and not _is_scalar(v):
            got = _prism.dtype_of(v)
            if types.setdefault(p.dtype, got) != got:
                raise ValueError(f"prism.{name}: {p.name} is {got}, but {p.dtype} is {types[p.dtype]} "
                                 "(the arrays of one placeholder type have one type)")
    for p, v in zip(parameters, values):
        if isinstance(p.dtype, _Placeholder) and p.dtype not in types and _is_scalar(v):
            types[p.dtype] = _np.asarray(v).dtype.name
    for p in parameters:
        if isinstance(p.dtype, _Placeholder):
            if p.dtype not in types:
                raise ValueError(f"prism.{name}: no argument says what {p.dtype} is (give {p.name} as an array)")
            types[p.dtype] = _dtype_of(types[p.dtype])  # an offered type, or refused
    return tuple(sorted(types.items()))


def _typed(parameter, types):
    """The parameter with its placeholder replaced by the type bound to it."""
    if not isinstance(parameter.dtype, _Placeholder):
        return parameter
    bound = dict(types).get(parameter.dtype)
    if bound is None:
        raise ValueError(f"prism: {parameter.name}'s type {parameter.dtype} is bound by a call's arguments "
                         f"(or source(types=(('{parameter.dtype}', 'float32'),)))")
    return _Parameter(parameter.name, bound, parameter.array, parameter.output, parameter.read)


def _call_parameters(parameters, scalars, types):
    """The parameters of one call's source: placeholders bound, the CuPy inputs given as scalars
    made scalar parameters."""
    typed = [_typed(p, types) for p in parameters]
    return [p if p.name not in scalars else _Parameter(p.name, p.dtype, False) for p in typed]


def _type_names(types):
    """C++ aliases of the placeholders (CuPy's: the operation may write T(0), T tmp)."""
    return "".join(f"  using {placeholder} = {_C_TYPES[dtype]};\n" for placeholder, dtype in types)


class _Parameter:
    __slots__ = ("name", "dtype", "array", "output", "read")

    def __init__(self, name, dtype, array, output=False, read=True):
        self.name, self.dtype, self.array, self.output, self.read = name, dtype, array, output, read

    @property
    def ctype(self):
        return _C_TYPES[self.dtype]

    @property
    def itemsize(self):
        return _np.dtype(self.dtype).itemsize


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
_RESERVED = {"i", "value", "combine", "apply", "element", "vector", "finish", "write", "map",
             "map_element", "map_vector", "prism", "std"}


class _Placeholder(str):
    """A type named by a placeholder (CuPy's 'T x, T y'): bound to a dtype by the call's arguments."""


def _split_parameters(text, pointers):
    """[(name, dtype, is_array)] from 'float32 a, float32 b' or (pointers) 'float *a, float b'; in
    CuPy's spelling a type that is one identifier and no type's name is a placeholder."""
    out = []
    if not str(text).strip():
        return out
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            raise ValueError(f"prism: the kernel arguments '{text}' have an empty one (a comma too many)")
        array = False
        if pointers:
            array = "*" in part
            part = part.replace("*", " * ").replace("*", " ")
        words = part.split()
        if len(words) < 2:
            raise ValueError(f"prism: the kernel argument '{part}' needs a type and a name")
        name, type_text = words[-1], " ".join(words[:-1])
        if not _IDENTIFIER.match(name) or name in _RESERVED:
            raise ValueError(f"prism: '{name}' cannot name a kernel argument")
        if type_text.startswith("raw "):
            raise ValueError(f"prism: '{part}': raw arguments (indexed freely) are not offered in CuPy's spelling; "
                             "PyCUDA's ('float *x', x[j]) reads any element")
        if not pointers and _IDENTIFIER.match(type_text) and not _known_type(type_text):
            dtype = _Placeholder(type_text)
        else:
            dtype = _dtype_of(type_text)
        out.append((name, dtype, array if pointers else None))
    names = [n for n, _, _ in out]
    if len(set(names)) != len(names):
        raise ValueError("prism: two kernel arguments have the same name")
    return out


def _occurrences(code, name):
    return list(re.finditer(r"(?<![A-Za-z_0-9.])" + re.escape(name) + r"(?![A-Za-z_0-9])", code))


def _element_form(code, arrays):
    """code with every name[i] as name, when that is the only way each array is used; else None."""
    rewritten = code
    for name in arrays:
        indexed = re.compile(r"(?<![A-Za-z_0-9.])" + re.escape(name) + r"\s*\[\s*i\s*\]")
        if len(indexed.findall(rewritten)) != len(_occurrences(rewritten, name)):
            return None
        rewritten = indexed.sub(name, rewritten)
    return rewritten


def _assigned(code, name):
    """(written, read) of an element named `name` in an operation over elements."""
    written = read = False
    for m in _occurrences(code, name):
        rest = code[m.end():]
        if re.match(r"\s*=(?!=)", rest):
            written = True
        elif re.match(r"\s*(\+|-|\*|/|%|&|\||\^|<<|>>)=", rest):
            written = read = True
        else:
            read = True
    return written, read


def _is_scalar(x):
    return isinstance(x, (int, float, bool, _np.generic)) and not isinstance(x, _np.ndarray)


def _slot(value, dtype):
    """A scalar's 8-byte slot of the parameter struct."""
    bits = _np.array(value, dtype=dtype).tobytes()
    return bits + bytes(8 - len(bits))


# ---- compiling and caching ----------------------------------------------------------------------------

_programs = {}  # (source, arch) -> RuntimeProgram


def _cache_dir():
    chosen = os.environ.get("PRISM_KERNEL_CACHE")
    if chosen is not None:
        return chosen or None
    return os.path.join(os.path.expanduser("~"), ".cache", "prism_primitives", "kernels")


def _image(source, name, arch):
    """The CUBIN of source for arch: from the disk cache, or compiled (and kept there)."""
    nvrtc = _prism.rtc_nvrtc_version()
    key = hashlib.sha256("\0".join([source, arch, f"{nvrtc[0]}.{nvrtc[1]}", _prism.version]).encode()).hexdigest()
    folder = _cache_dir()
    path = os.path.join(folder, f"{name}-{arch}-{key[:32]}.cubin") if folder else None
    if path and os.path.exists(path):
        with open(path, "rb") as f:
            return f.read()
    image = _prism.rtc_compile(source, name, arch)
    if path:
        try:
            os.makedirs(folder, exist_ok=True)
            temporary = f"{path}.{os.getpid()}"
            with open(temporary, "wb") as f:
                f.write(image)
            os.replace(temporary, path)  # atomic: another process may be writing the same kernel
        except OSError as error:  # a read-only home: the memory cache still serves
            print(f"prism: kernel cache {folder} not written ({error})", file=sys.stderr)
    return image


def compile_source(source, name, arch=None):
    """NVRTC's output for a kernel's source (CUBIN for sm_XX): what a kernel compiles to, for
    looking at without a GPU. arch defaults to the current GPU's (sm_90 without one)."""
    return _image(source, name, arch or _prism.rtc_arch())


class _Kernel:
    """What the three kinds share: the source per signature, its program, the call."""

    kernels = ()

    def __init__(self, name, preamble, options):
        if not _IDENTIFIER.match(name):
            raise ValueError(f"prism: '{name}' cannot name a kernel")
        self.name, self.preamble, self.options = name, preamble, tuple(options)
        self.counts = {"compiled": 0, "loaded": 0}

    def program(self, source):
        arch = _prism.rtc_arch()
        key = (source, arch)
        program = _programs.get(key)
        if program is None:
            image = _image(source, self.name, arch)
            program = _prism.RuntimeProgram(image, list(self.kernels), self.name)
            _programs[key] = program
            self.counts["loaded"] += 1
        return program

    @staticmethod
    def _implementation(impl):
        if impl in ("automatic", "raw"):
            return True
        if impl == "raw_naive":
            return False
        raise ValueError(f"prism: a run-time kernel runs as raw (the default, as automatic) or raw_naive, not {impl!r}")

    def _header(self):
        return "#include <prism/rtc/kernels.cuh>\n" + (self.preamble + "\n" if self.preamble else "")


def _members(parameters, extra=""):
    lines = []
    for p in parameters:
        if p.array:
            lines.append(f"  {'const ' if not p.output else ''}{p.ctype}* {p.name};")
    lines.append(extra)
    for p in parameters:
        if not p.array:
            lines.append(f"  alignas(8) {p.ctype} {p.name};")
    return "\n".join(line for line in lines if line)


# ---- element-wise ---------------------------------------------------------------------------------------

class ElementwiseKernel(_Kernel):
    """out = f(in...) element by element, from a C statement over the arguments' names.

    ElementwiseKernel(in_params, out_params, operation, name="kernel")  (CuPy's spelling; call it
    with the inputs, and the outputs or not: they are then allocated like the first input array)
    ElementwiseKernel(arguments, operation, name="kernel")              (PyCUDA's spelling; call it
    with every argument, in order)
    """

    kernels = ("prism_elementwise_raw_naive", "prism_elementwise_raw")

    def __init__(self, *spelling, name=None, preamble="", options=()):
        pycuda = len(spelling) == 2 or (len(spelling) == 3 and "*" in spelling[0] and _IDENTIFIER.match(spelling[2]))
        if pycuda:
            arguments, operation = spelling[0], spelling[1]
            name = name or (spelling[2] if len(spelling) == 3 else "kernel")
            parsed = _split_parameters(arguments, pointers=True)
            arrays = [n for n, _, is_array in parsed if is_array]
            element = _element_form(operation, arrays)
            self.element_wise = element is not None
            code = element if element is not None else operation
            params = []
            for n, dtype, is_array in parsed:
                written, read = _assigned(code, n) if is_array and element is not None else (False, True)
                if is_array and element is None:
                    written = bool(re.search(re.escape(n) + r"\s*\[[^\]]*\]\s*(=(?!=)|[-+*/%&|^]=)", operation))
                params.append(_Parameter(n, dtype, is_array, written, read or not written))
            self.spelling = "pycuda"
        elif len(spelling) in (3, 4):
            in_params, out_params, operation = spelling[:3]
            name = name or (spelling[3] if len(spelling) == 4 else "kernel")
            ins = _split_parameters(in_params, pointers=False)
            outs = _split_parameters(out_params, pointers=False)
            if {n for n, _, _ in ins} & {n for n, _, _ in outs}:
                raise ValueError("prism: an argument is both an input and an output")
            code = operation
            params = [_Parameter(n, d, True) for n, d, _ in ins]
            for n, d, _ in outs:
                _, read = _assigned(code, n)
                params.append(_Parameter(n, d, True, output=True, read=read))
            self.element_wise = True
            self.spelling = "cupy"
        else:
            raise ValueError("prism.ElementwiseKernel: (in_params, out_params, operation[, name]) or "
                             "(arguments, operation[, name])")
        super().__init__(name, preamble, options)
        self.parameters, self.operation, self.code = params, operation, code
        self._sources = {}

    # The source for one choice of which CuPy inputs are scalars and of the placeholders' types.
    def source(self, scalars=frozenset(), types=()):
        key = (frozenset(scalars), tuple(types))
        if key in self._sources:
            return self._sources[key]
        params = _call_parameters(self.parameters, key[0], types)
        arrays = [p for p in params if p.array]
        if not arrays:
            raise ValueError(f"prism.{self.name}: a kernel needs at least one array")
        width = 16 // max(p.itemsize for p in arrays)
        lines = [self._header(), "struct prism_args {", _type_names(types) + _members(params)]
        if self.element_wise:
            signature = ", ".join(f"{p.ctype}& {p.name}" if (p.array and p.output) else f"const {p.ctype}& {p.name}"
                                  for p in arrays)
            lines += [f"  __device__ void apply(std::size_t i, {signature}) const {{",
                      f"    {self.code};", "  }",
                      "  template <int V> __device__ void vector(std::size_t i) const {"]
            for p in arrays:
                if p.read or not p.output:
                    lines.append(f"    {'const ' if not p.output else ''}auto prism_v_{p.name} = "
                                 f"prism::detail::load_vector<V>({p.name} + i);")
                else:
                    lines.append(f"    prism::detail::vector_of<{p.ctype}, V> prism_v_{p.name};")
            call = ", ".join(f"prism_v_{p.name}.element[prism_k]" for p in arrays)
            lines += ["#pragma unroll", f"    for (int prism_k = 0; prism_k < V; ++prism_k) apply(i + prism_k, {call});"]
            for p in arrays:
                if p.output:
                    lines.append(f"    prism::detail::store_vector<V>({p.name} + i, prism_v_{p.name});")
            lines += ["  }", "  __device__ void element(std::size_t i) const { apply(i, "
                      + ", ".join(f"{p.name}[i]" for p in arrays) + "); }"]
        else:
            lines += ["  __device__ void element(std::size_t i) const {", f"    {self.code};", "  }",
                      "  template <int V> __device__ void vector(std::size_t i) const {",
                      "    for (int prism_k = 0; prism_k < V; ++prism_k) element(i + prism_k);", "  }"]
        lines += ["};",
                  "extern \"C\" __global__ void __launch_bounds__(256) prism_elementwise_raw_naive(prism_args p, "
                  "std::size_t n) {",
                  "  prism::rtc::elementwise_naive(p, n);", "}",
                  "extern \"C\" __global__ void __launch_bounds__(256) prism_elementwise_raw(prism_args p, "
                  "std::size_t n, std::size_t head, std::size_t vectors) {",
                  f"  prism::rtc::elementwise_vector<{width}>(p, n, head, vectors);", "}", ""]
        source = "\n".join(lines)
        self._sources[key] = (source, params, width)
        return self._sources[key]

    def _bind(self, args):
        """(parameters, arrays in order, scalar slots, outputs to allocate) for a call's args."""
        if self.spelling == "pycuda":
            if len(args) != len(self.parameters):
                raise ValueError(f"prism.{self.name}: takes {len(self.parameters)} arguments, {len(args)} given")
            values = list(args)
        else:
            ins = [p for p in self.parameters if not p.output]
            outs = [p for p in self.parameters if p.output]
            if len(args) not in (len(ins), len(ins) + len(outs)):
                raise ValueError(f"prism.{self.name}: takes {len(ins)} inputs and, optionally, {len(outs)} outputs; "
                                 f"{len(args)} given")
            values = list(args) + [None] * (len(ins) + len(outs) - len(args))
        scalars = frozenset(p.name for p, v in zip(self.parameters, values)
                            if self.spelling == "cupy" and not p.output and _is_scalar(v))
        types = _bind_types(self.name, self.parameters, values)
        source, params, width = self.source(scalars, types)
        for p, v in zip(params, values):
            if p.array and v is not None and _is_scalar(v):
                raise ValueError(f"prism.{self.name}: {p.name} is an array argument, given the scalar {v!r}")
            if not p.array and not _is_scalar(v):
                raise ValueError(f"prism.{self.name}: {p.name} is a scalar argument, given a {type(v).__name__}")
        return source, params, width, values

    def __call__(self, *args, impl="automatic", stream=None):
        from . import _Call
        raw = self._implementation(impl)
        source, params, width, values = self._bind(args)
        arrays = [(p, v) for p, v in zip(params, values) if p.array]
        call = _Call(tuple(v for _, v in arrays if v is not None), stream)
        like = next((v for p, v in arrays if v is not None), None)
        filled = []
        for p, v in arrays:
            if v is None:
                v = call.like(like, p.dtype)
            filled.append((p, v))
        scalars = b"".join(_slot(v, p.dtype) for p, v in zip(params, values) if not p.array)
        program = self.program(source)
        program.elementwise(raw and self.element_wise, width, [call(v) for _, v in filled],
                            [p.output for p, _ in filled], [f"{p.name}:{p.dtype}" for p, _ in filled],
                            [p.itemsize for p, _ in filled], scalars, call.stream)
        call.done()
        if self.spelling == "pycuda":
            return None  # PyCUDA's kernels write their arguments and return nothing
        outs = [v for p, v in filled if p.output]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def compare(self, *args, repeats=20, stream=None, file=None):
        """Times this kernel in every implementation prism has for it (its own raw and raw_naive,
        and prism's built-in operation where the expression is one: c = a + b is prism.add, in every
        implementation), beside the copy ceiling of the same bytes; prints the table and returns its
        rows."""
        from . import _compare
        return _compare.elementwise(self, args, repeats, stream, file)


# ---- reductions ------------------------------------------------------------------------------------

class ReductionKernel(_Kernel):
    """reduce(map(in...)) into one value, from C expressions.

    ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                    name="reduce", reduce_type=None)                     (CuPy's spelling)
    ReductionKernel(dtype_out, neutral, reduce_expr, map_expr, arguments, name="reduce")
                                                                         (PyCUDA's, by keyword too)
    map_expr is over the inputs' elements (x, or x[i] in PyCUDA's spelling) and i; reduce_expr
    combines a and b (associative and commutative: the implementations regroup); post_map_expr
    (CuPy) turns the result a into the output (an assignment to it, or an expression); identity
    (neutral) is the result of no elements. Call it with the inputs (and out=, a one-element
    array): without out the result is a 0-d array of the inputs' kind, and nothing waits.
    """

    kernels = ("prism_reduce_raw_naive", "prism_reduce_raw")

    def __init__(self, *spelling, name=None, reduce_type=None, preamble="", options=(), **keywords):
        pycuda = (len(spelling) >= 1 and not isinstance(spelling[0], str)) or "neutral" in keywords or \
            "dtype_out" in keywords
        if pycuda:
            names = ("dtype_out", "neutral", "reduce_expr", "map_expr", "arguments", "name")
            values = dict(zip(names, spelling))
            values.update(keywords)
            out_dtype = _dtype_of(_np.dtype(values["dtype_out"]).name)
            parsed = _split_parameters(values.get("arguments") or "", pointers=True)
            arrays = [n for n, _, a in parsed if a]
            map_expr = values.get("map_expr") or (f"{arrays[0]}[i]" if arrays else "0")
            element = _element_form(map_expr, arrays)
            self.element_wise = element is not None
            self.map_expr = element if element is not None else map_expr
            self.parameters = [_Parameter(n, d, a) for n, d, a in parsed]
            self.reduce_expr, self.identity = values["reduce_expr"], str(values["neutral"])
            self.out = _Parameter("prism_out", out_dtype, True, output=True)
            self.post = "prism_result[0] = static_cast<prism_out_t>(a);"
            self.value_dtype = out_dtype
            self.spelling = "pycuda"
            name = name or values.get("name") or "reduce"
        else:
            if len(spelling) < 6:
                raise ValueError("prism.ReductionKernel: (in_params, out_params, map_expr, reduce_expr, "
                                 "post_map_expr, identity[, name])")
            in_params, out_params, map_expr, reduce_expr, post_map_expr, identity = spelling[:6]
            name = name or (spelling[6] if len(spelling) > 6 else "reduce")
            ins = _split_parameters(in_params, pointers=False)
            outs = _split_parameters(out_params, pointers=False)
            if len(outs) != 1:
                raise ValueError("prism.ReductionKernel: one output")
            self.parameters = [_Parameter(n, d, True) for n, d, _ in ins]
            self.out = _Parameter(outs[0][0], outs[0][1], True, output=True)
            self.map_expr, self.reduce_expr, self.identity = map_expr, reduce_expr, str(identity)
            self.element_wise = True
            post = post_map_expr.strip() or "a"
            if _assigned(post, self.out.name)[0]:
                self.post = f"prism_out_t& {self.out.name} = prism_result[0]; {post};"
            else:
                self.post = f"prism_result[0] = static_cast<prism_out_t>({post});"
            self.value_dtype = _dtype_of(reduce_type) if reduce_type is not None else self.out.dtype
            self.spelling = "cupy"
        super().__init__(name, preamble, options)
        self._sources = {}

    def _output(self, types):
        """(the output parameter, the value's dtype) with the placeholders' types."""
        out = _typed(self.out, types)
        return out, (out.dtype if isinstance(self.value_dtype, _Placeholder) else self.value_dtype)

    def source(self, scalars=frozenset(), types=()):
        key = (frozenset(scalars), tuple(types))
        if key in self._sources:
            return self._sources[key]
        params = _call_parameters(self.parameters, key[0], types)
        arrays = [p for p in params if p.array]
        out, value_dtype = self._output(types)
        value = _C_TYPES[value_dtype]
        width = 16 // max([p.itemsize for p in arrays] or [4])
        lines = [self._header(), "struct prism_args {",
                 _type_names(types) + _members(params, f"  {out.ctype}* prism_result;"),
                 f"  using value = {value};", f"  using prism_out_t = {out.ctype};"]
        if self.element_wise:
            signature = "".join(f", const {p.ctype}& {p.name}" for p in arrays)
            lines += [f"  __device__ value map(std::size_t i{signature}) const {{",
                      f"    return static_cast<value>({self.map_expr});", "  }",
                      "  template <int V> __device__ void map_vector(std::size_t i, value (&prism_out)[V]) const {"]
            for p in arrays:
                lines.append(f"    const auto prism_v_{p.name} = prism::detail::load_vector<V>({p.name} + i);")
            args = "".join(f", prism_v_{p.name}.element[prism_k]" for p in arrays)
            lines += ["#pragma unroll", f"    for (int prism_k = 0; prism_k < V; ++prism_k) prism_out[prism_k] = map(i + prism_k{args});", "  }",
                      "  __device__ value map_element(std::size_t i) const { return map(i"
                      + "".join(f", {p.name}[i]" for p in arrays) + "); }"]
        else:
            lines += ["  __device__ value map_element(std::size_t i) const {",
                      f"    return static_cast<value>({self.map_expr});", "  }",
                      "  template <int V> __device__ void map_vector(std::size_t i, value (&prism_out)[V]) const {",
                      "    for (int prism_k = 0; prism_k < V; ++prism_k) prism_out[prism_k] = map_element(i + prism_k);", "  }"]
        lines += ["  __device__ static value combine(const value& a, const value& b) {",
                  f"    return static_cast<value>({self.reduce_expr});", "  }",
                  "  __device__ void finish(const prism::rtc::maybe<value>& total) const {",
                  f"    const value a = total.present ? total.value : static_cast<value>({self.identity});",
                  f"    {self.post}", "  }", "};",
                  "using prism_partial = prism::rtc::staged<prism::rtc::maybe<prism_args::value>>;",
                  "extern \"C\" __global__ void __launch_bounds__(256) prism_reduce_raw_naive(prism_args p, "
                  "std::size_t n, prism_partial* partials, unsigned* arrivals) {",
                  "  prism::rtc::reduce_naive(p, n, partials, arrivals);", "}",
                  "extern \"C\" __global__ void __launch_bounds__(256) prism_reduce_raw(prism_args p, std::size_t n, "
                  "std::size_t head, std::size_t vectors, prism_partial* partials, unsigned* arrivals) {",
                  f"  prism::rtc::reduce_vector<{width}>(p, n, head, vectors, partials, arrivals);", "}", ""]
        self._sources[key] = ("\n".join(lines), params, width)
        return self._sources[key]

    def __call__(self, *args, out=None, impl="automatic", stream=None):
        from . import _Call
        raw = self._implementation(impl)
        if len(args) != len(self.parameters):
            raise ValueError(f"prism.{self.name}: takes {len(self.parameters)} arguments, {len(args)} given")
        scalars = frozenset(p.name for p, v in zip(self.parameters, args)
                            if self.spelling == "cupy" and _is_scalar(v))
        types = self._types(args, out)
        source, params, width = self.source(scalars, types)
        result, value_dtype = self._output(types)
        arrays = [(p, v) for p, v in zip(params, args) if p.array]
        for p, v in zip(params, args):
            if not p.array and not _is_scalar(v):
                raise ValueError(f"prism.{self.name}: {p.name} is a scalar argument, given a {type(v).__name__}")
        call = _Call(tuple(v for _, v in arrays) + (out,), stream)
        if out is None:
            out = call.empty((), result.dtype)
        slots = b"".join(_slot(v, p.dtype) for p, v in zip(params, args) if not p.array)
        size = _np.dtype(value_dtype).itemsize
        partial = (2 * size + 3) // 4 * 4  # staged<maybe<value>>
        self.program(source).reduce(raw and self.element_wise, width, [call(v) for _, v in arrays],
                                    [f"{p.name}:{p.dtype}" for p, _ in arrays], [p.itemsize for p, _ in arrays],
                                    call(out), result.dtype, slots, partial, call.stream)
        call.done()
        return out

    def _types(self, args, out=None):
        """The placeholders' types for a call with these arguments (and out)."""
        return _bind_types(self.name, self.parameters + [self.out], list(args) + [out])

    def compare(self, *args, repeats=20, stream=None, file=None):
        """As ElementwiseKernel.compare: prism's own sum (map x, reduce a + b) or dot (x * y) in
        every implementation beside this kernel's, and the copy ceiling of the bytes read."""
        from . import _compare
        return _compare.reduction(self, args, repeats, stream, file)


# ---- scans --------------------------------------------------------------------------------------------

class ScanKernel(_Kernel):
    """out[i] = x[0] op x[1] op ... op x[i] (inclusive) or neutral op x[0] ... op x[i - 1]
    (exclusive), from an associative expression over a and b (PyCUDA's InclusiveScanKernel and
    ExclusiveScanKernel). Call it with the input and an output, or with the input alone: the scan
    is then in place, as PyCUDA's (knl(x) leaves x scanned; a JAX array, immutable, gets a new
    one). Returns the output."""

    kernels = ("prism_scan_totals_raw_naive", "prism_scan_totals_raw", "prism_scan_prefixes",
               "prism_scan_write_raw_naive", "prism_scan_write_raw")

    def __init__(self, dtype, scan_expr, neutral=None, name="scan", exclusive=False, preamble="", options=()):
        super().__init__(name, preamble, options)
        self.dtype = _dtype_of(_np.dtype(dtype).name if not isinstance(dtype, str) else dtype)
        self.scan_expr, self.exclusive = scan_expr, exclusive
        if exclusive and neutral is None:
            raise ValueError("prism.ExclusiveScanKernel: needs neutral (out[0])")
        self.neutral = None if neutral is None else str(neutral)
        self.items = max(1, 32 // _np.dtype(self.dtype).itemsize)  # raw: elements per thread

    def source(self):
        t = _C_TYPES[self.dtype]
        if self.exclusive:
            written = f"before.present ? before.value : static_cast<value>({self.neutral})"
        else:
            written = "before.present ? combine(before.value, x) : x"
        lines = [self._header(), "struct prism_args {", f"  const {t}* prism_in;", f"  {t}* prism_out;",
                 f"  using value = {t};",
                 "  __device__ value map_element(std::size_t i) const { return prism_in[i]; }",
                 "  __device__ static value combine(const value& a, const value& b) {",
                 f"    return static_cast<value>({self.scan_expr});", "  }",
                 "  __device__ void write(std::size_t i, const prism::rtc::maybe<value>& before, const value& x) const {",
                 f"    prism_out[i] = {written};", "  }", "};",
                 "using prism_total = prism::rtc::maybe<prism_args::value>;"]
        for impl, items in (("raw_naive", 1), ("raw", self.items)):
            lines += [f"extern \"C\" __global__ void __launch_bounds__(256) prism_scan_totals_{impl}(prism_args p, "
                      "std::size_t n, prism_total* totals) {",
                      f"  prism::rtc::scan_tile_totals<{items}>(p, n, totals);", "}",
                      f"extern \"C\" __global__ void __launch_bounds__(256) prism_scan_write_{impl}(prism_args p, "
                      "std::size_t n, const prism_total* totals) {",
                      f"  prism::rtc::scan_tile_write<{items}>(p, n, totals);", "}"]
        lines += ["extern \"C\" __global__ void __launch_bounds__(256) prism_scan_prefixes(prism_total* totals, "
                  "std::size_t tiles) {", "  prism::rtc::scan_tile_prefixes<prism_args>(totals, tiles);", "}", ""]
        return "\n".join(lines)

    def __call__(self, x, out=None, impl="automatic", stream=None):
        from . import _Call
        raw = self._implementation(impl)
        call = _Call((x, out), stream)
        if out is None:  # in place (each thread writes the elements it has read: scan_tile_write),
            out = x if call.kind != "jax" else call.like(x, self.dtype, True)  # JAX's arrays are immutable
        size = _np.dtype(self.dtype).itemsize
        self.program(self.source()).scan(raw, self.items if raw else 1, [call(x), call(out)],
                                         [f"x:{self.dtype}", f"out:{self.dtype}"], b"", 2 * size, call.stream)
        call.done()
        return out

    def compare(self, x, out=None, repeats=20, stream=None, file=None):
        """As ElementwiseKernel.compare: prism's inclusive_scan (a + b) in every implementation."""
        from . import _compare
        return _compare.scan(self, x, out, repeats, stream, file)


def InclusiveScanKernel(dtype, scan_expr, neutral=None, name="scan", preamble="", options=()):  # noqa: N802
    """PyCUDA's spelling of an inclusive ScanKernel."""
    return ScanKernel(dtype, scan_expr, neutral, name, False, preamble, options)


def ExclusiveScanKernel(dtype, scan_expr, neutral, name="scan", preamble="", options=()):  # noqa: N802
    """PyCUDA's spelling of an exclusive ScanKernel."""
    return ScanKernel(dtype, scan_expr, neutral, name, True, preamble, options)
