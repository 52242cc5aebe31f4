# SPDX-License-Identifier: Apache-2.0
"""kernel.compare(): a run-time kernel in each of its implementations, prism's built-in operation
for the same expression in each of its own, and the copy ceiling of the same bytes, timed on the
GPU (events around each call on the call's stream, the stream held until the call is enqueued so
that its host time is left out; the median of the repetitions), printed as the table a lesson
shows and returned as its rows."""
import re
import statistics
import sys

import numpy as _np

from . import _prism

_GPU_IMPLEMENTATIONS = ("automatic", "thrust", "raw_naive", "raw", "cub")
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


def _squeeze(code):
    return re.sub(r"\s+", "", code).rstrip(";")


def _builtin_elementwise(kernel, arrays):
    """(prism function name, inputs, output) when the kernel is one of prism's element-wise
    operations over arrays of one type, else None."""
    params = [p for p in kernel.parameters if p.array]
    ins = [p.name for p in params if not p.output]
    outs = [p.name for p in params if p.output]
    if len(outs) != 1 or len({p.dtype for p in params}) != 1 or not kernel.element_wise:
        return None
    code = _squeeze(kernel.code)
    m = re.fullmatch(r"(\w+)=(\w+)([-+*/])(\w+)", code)
    if m and m.group(1) == outs[0] and [m.group(2), m.group(4)] == ins:
        return _BINARY[m.group(3)], [arrays[ins[0]], arrays[ins[1]]], arrays[outs[0]]
    m = re.fullmatch(r"(\w+)=(\w+)", code)
    if m and m.group(1) == outs[0] and [m.group(2)] == ins:
        return "copy", [arrays[ins[0]]], arrays[outs[0]]
    return None


def _median_us(run, stream, repeats):
    return statistics.median(_prism.rtc_time(run, stream, repeats, 3)) * 1e3


def _table(title, rows, ceiling_gbps, file):
    file = file or sys.stdout
    print(title, file=file)
    width = max(len(r["implementation"]) for r in rows) + 2
    print(f"  {'implementation':<{width}}{'us':>10}{'GB/s':>10}{'% of ceiling':>14}", file=file)
    for r in rows:
        print(f"  {r['implementation']:<{width}}{r['us']:>10.2f}{r['GB/s']:>10.1f}{r['pct']:>13.1f}%", file=file)
    print(f"  (ceiling: cudaMemcpyAsync of the same bytes, {ceiling_gbps:.1f} GB/s)", file=file)


def _run(entries, moved, device, stream, repeats, title, file):
    rows = []
    for label, run in entries:
        try:
            us = _median_us(run, stream, repeats)
        except ValueError as error:
            if "no implementation named" in str(error):  # one the operation does not have
                continue
            raise
        rows.append({"implementation": label, "us": us, "GB/s": moved / (us * 1e-6) / 1e9})
    ceiling_us = statistics.median(_prism.rtc_copy_ceiling(device, stream, max(moved // 2, 1), repeats)) * 1e3
    ceiling = moved / (ceiling_us * 1e-6) / 1e9
    rows.append({"implementation": "copy ceiling (cudaMemcpyAsync)", "us": ceiling_us, "GB/s": ceiling})
    for r in rows:
        r["pct"] = 100.0 * r["GB/s"] / ceiling
    _table(title, rows, ceiling, file)
    return rows


def _size_and_bytes(arrays):
    import prism_primitives as prism
    sizes = {}
    moved = 0
    for x in arrays:
        shape, dtype = prism._describe(x)
        n = 1
        for e in shape:
            n *= e
        sizes[id(x)] = n
        moved += n * _np.dtype(dtype).itemsize
    return sizes, moved


def elementwise(kernel, args, repeats, stream, file):
    import prism_primitives as prism
    source, params, width, values = kernel._bind(args)
    call = prism._Call(tuple(v for p, v in zip(params, values) if p.array and v is not None), stream)
    if call.device < 0:
        raise ValueError(f"prism.{kernel.name}.compare: GPU arrays only")
    like = next(v for p, v in zip(params, values) if p.array and v is not None)
    values = [call.like(like, p.dtype) if (p.array and v is None) else v for p, v in zip(params, values)]
    arrays = {p.name: v for p, v in zip(params, values) if p.array}
    full = tuple(values)[: len(values)]
    read = [arrays[p.name] for p in params if p.array and (not p.output or p.read)]
    written = [arrays[p.name] for p in params if p.array and p.output]
    _, moved = _size_and_bytes(read + written)
    entries = [(f"{kernel.name} raw (run-time)", lambda: kernel(*full, impl="raw", stream=call.stream)),
               (f"{kernel.name} raw_naive (run-time)", lambda: kernel(*full, impl="raw_naive", stream=call.stream))]
    builtin = _builtin_elementwise(kernel, arrays)
    if builtin is not None:
        op, ins, out = builtin
        function = getattr(prism, op)
        for impl in _GPU_IMPLEMENTATIONS:
            entries.append((f"prism.{op} {impl}",
                            lambda impl=impl: function(*ins, out=out, impl=impl, stream=call.stream)))
    shape, dtype = prism._describe(like)
    n = 1
    for e in shape:
        n *= e
    title = (f"{kernel.name}: {kernel.operation.strip()}  ({dtype}, n = {n}, {moved / 1e6:.1f} MB moved: "
             f"{len(read)} array(s) read, {len(written)} written)")
    return _run(entries, moved, call.device, call.stream, repeats, title, file)


def reduction(kernel, args, repeats, stream, file):
    import prism_primitives as prism
    arrays = [v for v in args if not (isinstance(v, (int, float)) or isinstance(v, _np.generic))]
    call = prism._Call(tuple(arrays), stream)
    if call.device < 0:
        raise ValueError(f"prism.{kernel.name}.compare: GPU arrays only")
    out = call.empty((), kernel._output(kernel._types(args))[0].dtype)
    _, moved = _size_and_bytes(arrays)
    entries = [(f"{kernel.name} raw (run-time)", lambda: kernel(*args, out=out, impl="raw", stream=call.stream)),
               (f"{kernel.name} raw_naive (run-time)",
                lambda: kernel(*args, out=out, impl="raw_naive", stream=call.stream))]
    names = [p.name for p in kernel.parameters if p.array]
    same_type = len({p.dtype for p in kernel.parameters}) == 1 and kernel.out.dtype == kernel.parameters[0].dtype
    m, r = _squeeze(kernel.map_expr), _squeeze(kernel.reduce_expr)
    builtin = None
    if r in ("a+b", "b+a") and same_type and _squeeze(kernel.identity) in ("0", "0.0", "0.0f", "0.f"):
        if len(names) == 1 and m == names[0]:
            builtin = ("sum", arrays)
        elif len(names) == 2 and m in (f"{names[0]}*{names[1]}", f"{names[1]}*{names[0]}"):
            builtin = ("dot", arrays)
    if builtin is not None:
        op, ins = builtin
        function = getattr(prism, op)
        for impl in _GPU_IMPLEMENTATIONS:
            entries.append((f"prism.{op} {impl}",
                            lambda impl=impl: function(*ins, out=out, impl=impl, stream=call.stream)))
    title = f"{kernel.name}: reduce {kernel.reduce_expr.strip()} of {kernel.map_expr.strip()}  ({moved / 1e6:.1f} MB read)"
    return _run(entries, moved, call.device, call.stream, repeats, title, file)


def scan(kernel, x, out, repeats, stream, file):
    import prism_primitives as prism
    call = prism._Call((x, out), stream)
    if call.device < 0:
        raise ValueError(f"prism.{kernel.name}.compare: GPU arrays only")
    if out is None:
        out = call.like(x, kernel.dtype, True)
    _, moved = _size_and_bytes([x, out])
    entries = [(f"{kernel.name} raw (run-time)", lambda: kernel(x, out, impl="raw", stream=call.stream)),
               (f"{kernel.name} raw_naive (run-time)", lambda: kernel(x, out, impl="raw_naive", stream=call.stream))]
    if _squeeze(kernel.scan_expr) in ("a+b", "b+a") and (not kernel.exclusive or
                                                          _squeeze(kernel.neutral or "") in ("0", "0.0", "0.0f")):
        function = prism.exclusive_scan if kernel.exclusive else prism.inclusive_scan
        for impl in _GPU_IMPLEMENTATIONS:
            entries.append((f"prism.{function.__name__} {impl}",
                            lambda impl=impl: function(x, out=out, impl=impl, stream=call.stream)))
    title = f"{kernel.name}: scan {kernel.scan_expr.strip()}  ({moved / 1e6:.1f} MB moved)"
    return _run(entries, moved, call.device, call.stream, repeats, title, file)
