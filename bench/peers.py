#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The peers of prism's suites: torch and CuPy, timed the way bench/harness.hpp times prism.

Rows are named like the C++ ones, <operation>/<type>/<peer>/<n>[/cold|/warm], n = 2^10 ... 2^28 by
4x: add, axpby, exp (float), add (half) beside the element-wise suite; sum, argmax, dot (float)
beside the reductions. What each peer runs is what a user of that library would write:
  add     torch.add(a, b, out=c)                  cupy.add(a, b, out=c)
  axpby   torch.mul(x, alpha, out=z)              one cupy.ElementwiseKernel (fused)
          z.add_(y, alpha=beta)  (two kernels: torch has no fused axpby)
  exp     torch.exp(x, out=y)                     cupy.exp(x, out=y)
  sum     torch.sum(x, 0, out=r)                  cupy.sum(x, out=r)
  argmax  torch.argmax(x, 0, out=i)               cupy.argmax(x, out=i)
  dot     torch.dot(x, y, out=r)                  cupy.dot(x, y, out=r)
  inclusive_scan  torch.cumsum(x, 0, out=y)       cupy.cumsum(x, out=y)      (float; int32 too)
  compact torch.masked_select(x, mask)            x[mask]                    (half the mask set)
  unique  torch.unique_consecutive(x)             (no CuPy equivalent)       (runs of 4)
(beside the scan suite; the selections allocate their output and wait for its size, as these
libraries' users must).
cuda.compute (the cuda-cccl package: CUB's algorithms from Python) is the third peer, for every
row it has an algorithm for: add, axpby, exp, sum, inclusive_scan, compact, sort, argsort and the
histograms (cccl_operations says how each is called).
and histogram_uniform, histogram_one_bin, histogram_normal (float, 256 bins over [0, 1), the
samples' bytes read once) beside the histogram suite:
          torch.histc(x, 256, 0, 1, out=h)        cupy.histogram(x, 256, (0, 1))
  Both count a sample equal to the upper end in the last bin ([0, 1], numpy's rule), where prism
  counts [lo, hi); no sample here is 1, so the counts agree. torch.histc counts into float32.
  sort    torch.sort(x, out=(v, i))               cupy.sort(x)  (a sorted copy; float, int32;
          (values and int64 indices)              sort_few: 16 distinct keys)
  argsort torch.argsort(x)                        cupy.argsort(x)  (float)
  top_k_k1, top_k_k100, top_k_k10000  torch.topk(x, k, sorted=True, out=(v, i))  (float; no CuPy
          equivalent; x read once: 4 bytes per element, as bench/top_k.cu counts; NaN-free input)
  top_k_segments_seg1024_k8  torch.topk of the rows of 1,024, k = 8, dim=-1 (bytes as bench/top_k.cu's)
  segmented_sort_seg128, _seg65536 (beside bench/segmented_sort.cu; float, rows of 128 or 2^16
          torch.sort(x, dim=-1, out=(v, i))       cupy.sort(x, axis=-1)      keys of a matrix;
                                                                             bytes: keys read and
                                                                             written once)
  lower_bound, lower_bound_sorted (float, beside bench/search.cu: n queries, uniform over the range
          of a sorted array of n, at random or sorted; int64 positions; bytes as bench/search.cu's)
          torch.searchsorted(s, q, out=p)         cupy.searchsorted(s, q)
  set_union, set_intersection, set_difference, set_symmetric_difference (uint32, beside
          bench/merge.cu's rows, the same inputs: two strictly increasing arrays)
          no torch equivalent                     cupy.union1d, intersect1d, setdiff1d, setxor1d
                                                  (assume_unique where it is taken); bytes: both
                                                  inputs read, the result written
Sorts count their bytes as bench/sort.cu does: the keys read and written once per 8-bit pass
(4 passes of 4-byte keys: 32 bytes per key; argsort 64, as prism's argsort rows with their int32
indices), whatever the peer writes besides; compare keys/s (n over gpu_us).

Timing, as in the C++ harness: per sample, the latency a caller sees (CUDA events around the call on
an idle stream) and the GPU time alone (the call queued behind a 200 us spin kernel, so the events
see none of Python's time); sizes that fit in L2 come cold (a buffer twice the L2's size is read
first) and warm. Both libraries work on the legacy default stream, so one spin kernel, one flush
and one pair of events serve both. The samples are interleaved: for each size, every (operation,
peer) row takes one sample in turn, 20 rounds, so that drift in clocks or temperature is shared
by all rows of a size instead of landing on whichever ran last. (prism itself runs in another
process, bench_<family>, so its rows cannot join the rotation: compare peers with prism through
the ceilings each run measured, and treat differences within a few % as noise.)

prism itself joins the rotation through its Python module (prism_primitives, on the same arrays
as torch's, or CuPy's without torch) as the peer `module`: add, axpby, exp, sum, argmax, dot as a
user writes them (prism.add(a, b, out=c), ...), and `module_core`, add through the module's
compiled layer alone (no Python wrapper: what the C++ call costs from Python). After the rows it
prints, and keeps in the JSON's context as `module`, what only one process can show: add float
2^28 through the module against the compiled layer (GB/s), the host cost of one call at 2^10
(prism.add, the compiled layer, the C++ call looped inside the module, torch.add), and sum 2^28
through the module against torch.sum: from the rows, and again in a rotation of its own beside a
kernel that only reads the array (one 16 KB tile per block, nothing reduced: the time no sum can
beat; with CuPy). Without the module (not installed) those rows are skipped.

Each row is written as Google Benchmark aggregates (median, p25, p75, min, max, mean) of us,
gpu_us and GB/s, so bench/report reads it like a suite's rows. A peer that cannot be imported, or
finds no GPU, is skipped with a message; the script still writes its JSON and exits 0.

    python3 bench/peers.py peers.json [--filter REGEX]
"""
import argparse
import json
import platform
import re
import statistics
import sys

SIZES = [1 << p for p in range(10, 29, 2)]
ROUNDS = 20
SPIN_US = 200
# The segmented sorts' rows (bench/segmented_sort.cu): matrices of rows of these many keys, from
# 2^16 keys on.
SEGMENTS = (128, 1 << 16)
SEGMENTED_SMALLEST = 1 << 16
ALPHA, BETA = 2.0, -1.0


def _distribution_version(peer):
    try:
        from importlib.metadata import version
        return version({"cuda.compute": "cuda-cccl"}.get(peer, peer))
    except Exception:  # not installed as a distribution
        return "unknown"


def percentile(values, q):
    s = sorted(values)
    at = q * (len(s) - 1)
    below = int(at)
    above = min(below + 1, len(s) - 1)
    return s[below] + (at - below) * (s[above] - s[below])


class Gpu:
    """Events, the spin kernel, the L2 flush and synchronization, from torch or else CuPy."""

    def __init__(self, torch, cupy):
        self.torch, self.cupy = torch, cupy
        if torch is not None:
            props = torch.cuda.get_device_properties(0)
            self.name = props.name
            self.l2 = getattr(props, "L2_cache_size", 0) or 50 << 20
            self.event = lambda: torch.cuda.Event(enable_timing=True)
            self.elapsed_ms = lambda a, b: a.elapsed_time(b)
            self.synchronize = torch.cuda.synchronize
            flush = torch.empty(2 * self.l2 // 4, dtype=torch.float32, device="cuda").fill_(1)
            out = torch.empty((), dtype=torch.float32, device="cuda")
            self.flush = lambda: torch.sum(flush, 0, out=out)
            # torch.cuda._sleep spins for a number of clock cycles: calibrate cycles per us.
            start, stop = self.event(), self.event()
            torch.cuda._sleep(1000)
            start.record()
            torch.cuda._sleep(1_000_000)
            stop.record()
            stop.synchronize()
            cycles = int(SPIN_US * 1_000_000 / (start.elapsed_time(stop) * 1000))
            self.spin = lambda: torch.cuda._sleep(cycles)
        else:
            props = cupy.cuda.runtime.getDeviceProperties(0)
            self.name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            self.l2 = props.get("l2CacheSize", 0) or 50 << 20
            self.event = cupy.cuda.Event
            self.elapsed_ms = cupy.cuda.get_elapsed_time
            self.synchronize = cupy.cuda.Device().synchronize
            flush = cupy.ones(2 * self.l2 // 4, dtype=cupy.float32)
            out = cupy.empty((), dtype=cupy.float32)
            self.flush = lambda: cupy.sum(flush, out=out)
            kernel = cupy.RawKernel(r'''
extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}''', "spin")
            self.spin = lambda: kernel((1,), (1,), (cupy.uint64(SPIN_US * 1000),))
        self.start, self.stop = self.event(), self.event()

    def latency_us(self, run, cold):
        if cold:
            self.flush()
        self.synchronize()
        self.start.record()
        run()
        self.stop.record()
        self.stop.synchronize()
        return self.elapsed_ms(self.start, self.stop) * 1e3

    def gpu_us(self, run, cold):
        if cold:
            self.flush()
        self.spin()
        self.start.record()
        run()
        self.stop.record()
        self.stop.synchronize()
        return self.elapsed_ms(self.start, self.stop) * 1e3


def torch_arrays(torch):
    """Two inputs and an output of the largest size, per type: every peer's rows use views of them."""
    largest = SIZES[-1]
    arrays = {}
    for type_name, dtype in (("float", torch.float32), ("half", torch.float16)):
        arrays[type_name] = [torch.rand(largest, dtype=dtype, device="cuda") + 0.5 for _ in range(2)] + \
                            [torch.empty(largest, dtype=dtype, device="cuda")]
    return arrays


def torch_operations(torch, arrays):
    """(operation, type, bytes read and written per element, make(n) -> one call) for torch."""
    largest = SIZES[-1]
    scalar = torch.empty((), dtype=torch.float32, device="cuda")
    index = torch.empty((), dtype=torch.int64, device="cuda")
    integers = [torch.randint(0, 17, (largest,), dtype=torch.int32, device="cuda"),
                torch.empty(largest, dtype=torch.int32, device="cuda")]
    mask = torch.rand(largest, device="cuda") < 0.5
    runs = torch.div(torch.arange(largest, device="cuda"), 4, rounding_mode="floor").remainder(1000).float()

    def views(type_name, n):
        return [a[:n] for a in arrays[type_name]]

    def add(type_name):
        def make(n):
            x, y, z = views(type_name, n)
            return lambda: torch.add(x, y, out=z)
        return make

    def axpby(n):
        x, y, z = views("float", n)

        def run():
            torch.mul(x, ALPHA, out=z)
            z.add_(y, alpha=BETA)
        return run

    def exp(n):
        x, _, z = views("float", n)
        return lambda: torch.exp(x, out=z)

    def sum_(n):
        x = views("float", n)[0]
        return lambda: torch.sum(x, 0, out=scalar)

    def argmax(n):
        x = views("float", n)[0]
        return lambda: torch.argmax(x, 0, out=index)

    def dot(n):
        x, y, _ = views("float", n)
        return lambda: torch.dot(x, y, out=scalar)

    def cumsum(n):
        x, _, z = views("float", n)
        return lambda: torch.cumsum(x, 0, out=z)

    def cumsum_int32(n):
        x, z = (a[:n] for a in integers)
        return lambda: torch.cumsum(x, 0, dtype=torch.int32, out=z)

    def compact(n):
        x, m = views("float", n)[0], mask[:n]
        return lambda: torch.masked_select(x, m)

    def unique(n):
        x = runs[:n]
        return lambda: torch.unique_consecutive(x)

    samples = histogram_samples(torch.rand(largest, device="cuda"), torch.randn(largest, device="cuda"))
    counts = torch.empty(256, dtype=torch.float32, device="cuda")

    def histc(shape):
        def make(n):
            x = samples[shape][:n]
            return lambda: torch.histc(x, 256, 0.0, 1.0, out=counts)
        return make

    keys = {"float": torch.rand(largest, device="cuda") * 2 - 1,
            "int32": torch.randint(-2**31, 2**31 - 1, (largest,), dtype=torch.int32, device="cuda")}
    few = {"float": torch.randint(0, 16, (largest,), device="cuda").float() - 8,
           "int32": torch.randint(0, 16, (largest,), dtype=torch.int32, device="cuda")}
    sorted_keys = {t: torch.empty_like(k) for t, k in keys.items()}
    positions = torch.empty(largest, dtype=torch.int64, device="cuda")

    def sort(source, type_name):
        def make(n):
            x, v, i = source[type_name][:n], sorted_keys[type_name][:n], positions[:n]
            return lambda: torch.sort(x, out=(v, i))
        return make

    def argsort(n):
        x = keys["float"][:n]
        return lambda: torch.argsort(x)

    # The segmented rows of bench/segmented.cu: a matrix's rows of 32, and offsets of segments of
    # uniform lengths in [0, 128] (torch.segment_reduce's offsets form).
    row_sums = torch.empty(largest // 32, dtype=torch.float32, device="cuda")

    def sum_rows32(n):
        x, o = views("float", n)[0].view(-1, 32), row_sums[: n // 32]
        return lambda: torch.sum(x, 1, out=o)

    def segment_sum_uniform(n):
        x = views("float", n)[0]
        ends = torch.cumsum(torch.randint(0, 129, (n // 32 + 2,), device="cuda"), 0)
        offsets = torch.cat([torch.zeros(1, dtype=ends.dtype, device="cuda"), ends[ends < n],
                             torch.full((1,), n, dtype=ends.dtype, device="cuda")])
        return lambda: torch.segment_reduce(x, "sum", offsets=offsets)
    # bench/search.cu's rows: the first position of each query's value or beyond (side="left").
    def searchsorted(in_order):
        def make(n):
            s, q = torch.sort(keys["float"][:n]).values, torch.rand(n, device="cuda") * 2 - 1
            q = torch.sort(q).values if in_order else q
            p = positions[:n]
            return lambda: torch.searchsorted(s, q, out=p)
        return make

    # torch.topk, sorted, into preallocated outputs (k, or n if fewer): bench/top_k.cu's rows.
    def topk(k):
        def make(n):
            x, m = keys["float"][:n], min(k, n)
            v, i = sorted_keys["float"][:m], positions[:m]
            return lambda: torch.topk(x, m, sorted=True, out=(v, i))
        return make

    # The 8 best of each row of 1,024: bench/top_k.cu's top_k_segments_seg1024_k8 rows.
    def topk_rows(n):
        if n < 1024:
            return None
        x = keys["float"][:n].view(-1, 1024)
        v, i = sorted_keys["float"][: n // 128].view(-1, 8), positions[: n // 128].view(-1, 8)
        return lambda: torch.topk(x, 8, dim=-1, sorted=True, out=(v, i))

    def sort_rows(segment):
        def make(n):
            if n < max(segment, SEGMENTED_SMALLEST):
                return None
            x = keys["float"][:n].view(-1, segment)
            v, i = sorted_keys["float"][:n].view(-1, segment), positions[:n].view(-1, segment)
            return lambda: torch.sort(x, dim=-1, out=(v, i))
        return make

    return [("add", "float", 8, 4, add("float")), ("add", "half", 4, 2, add("half")),
            ("segmented_sum_rows32", "float", 4, 4 / 32, sum_rows32),
            ("segmented_sum_uniform", "float", 4 + 8 / 64, 4 / 64, segment_sum_uniform),
            ("axpby", "float", 8, 4, axpby), ("exp", "float", 4, 4, exp),
            ("sum", "float", 4, 0, sum_), ("argmax", "float", 4, 0, argmax), ("dot", "float", 8, 0, dot),
            ("inclusive_scan", "float", 4, 4, cumsum), ("inclusive_scan", "int32", 4, 4, cumsum_int32),
            ("compact", "float", 5, 2, compact), ("unique", "float", 4, 1, unique),
            ("sort", "float", 16, 16, sort(keys, "float")), ("sort", "int32", 16, 16, sort(keys, "int32")),
            ("sort_few", "float", 16, 16, sort(few, "float")), ("argsort", "float", 32, 32, argsort)] + \
        [("lower_bound", "float", 8, 8, searchsorted(False)), ("lower_bound_sorted", "float", 8, 8, searchsorted(True))] + \
        [(f"top_k_k{k}", "float", 4, 0, topk(k)) for k in (1, 100, 10000)] + \
        [("top_k_segments_seg1024_k8", "float", 4, 8 * 8 / 1024, topk_rows)] + \
        [(f"segmented_sort_seg{segment}", "float", 4, 4, sort_rows(segment)) for segment in SEGMENTS] + \
        [(f"histogram_{shape}", "float", 4, 0, histc(shape)) for shape in samples]


def cupy_arrays(cupy):
    largest = SIZES[-1]
    arrays = {}
    for type_name, dtype in (("float", cupy.float32), ("half", cupy.float16)):
        arrays[type_name] = [(cupy.random.random(largest, dtype=cupy.float32) + 0.5).astype(dtype)
                             for _ in range(2)] + [cupy.empty(largest, dtype=dtype)]
    return arrays


def cupy_operations(cupy, arrays):
    largest = SIZES[-1]
    scalar = cupy.empty((), dtype=cupy.float32)
    index = cupy.empty((), dtype=cupy.int64)
    mask = cupy.random.random(largest) < 0.5
    axpby_kernel = cupy.ElementwiseKernel("T x, T y, T alpha, T beta", "T z",
                                          "z = alpha * x + beta * y", "prism_peer_axpby")
    alpha, beta = cupy.float32(ALPHA), cupy.float32(BETA)

    def views(type_name, n):
        return [a[:n] for a in arrays[type_name]]

    def add(type_name):
        def make(n):
            x, y, z = views(type_name, n)
            return lambda: cupy.add(x, y, out=z)
        return make

    def axpby(n):
        x, y, z = views("float", n)
        return lambda: axpby_kernel(x, y, alpha, beta, z)

    def exp(n):
        x, _, z = views("float", n)
        return lambda: cupy.exp(x, out=z)

    def sum_(n):
        x = views("float", n)[0]
        return lambda: cupy.sum(x, out=scalar)

    def argmax(n):
        x = views("float", n)[0]
        return lambda: cupy.argmax(x, out=index)

    def dot(n):
        x, y, _ = views("float", n)
        return lambda: cupy.dot(x, y, out=scalar)

    def cumsum(n):
        x, _, z = views("float", n)
        return lambda: cupy.cumsum(x, out=z)

    def compact(n):
        x, m = views("float", n)[0], mask[:n]
        return lambda: x[m]

    samples = histogram_samples(cupy.random.random(largest, dtype=cupy.float32),
                                cupy.random.standard_normal(largest, dtype=cupy.float32))

    def histogram(shape):
        def make(n):
            x = samples[shape][:n]
            return lambda: cupy.histogram(x, 256, (0.0, 1.0))
        return make

    keys = {"float": cupy.random.random(largest, dtype=cupy.float32) * 2 - 1,
            "int32": cupy.random.randint(-2**31, 2**31 - 1, largest, dtype=cupy.int32)}
    few = {"float": cupy.random.randint(0, 16, largest).astype(cupy.float32) - 8}

    def sort(source, type_name):
        def make(n):
            x = source[type_name][:n]
            return lambda: cupy.sort(x)
        return make

    def argsort(n):
        x = keys["float"][:n]
        return lambda: cupy.argsort(x)

    # The set operations of bench/merge.cu's rows, on the same inputs: a[i] = 2 i + (i mod 3 == 0),
    # b[j] = 3 j + (j mod 2), each strictly increasing, so NumPy's set semantics are the multiset
    # ones (assume_unique where CuPy takes it). Bytes: both inputs read; the result's written.
    def set_inputs(n):
        half = n // 2
        i = cupy.arange(half, dtype=cupy.uint32)
        j = cupy.arange(n - half, dtype=cupy.uint32)
        return 2 * i + (i % 3 == 0).astype(cupy.uint32), 3 * j + j % 2

    def set_op(fn):
        def make(n):
            a, b = set_inputs(n)
            return lambda: fn(a, b)
        return make

    def searchsorted(in_order):
        def make(n):
            s, q = cupy.sort(keys["float"][:n]), cupy.random.random(n, dtype=cupy.float32) * 2 - 1
            q = cupy.sort(q) if in_order else q
            return lambda: cupy.searchsorted(s, q)
        return make

    def sort_rows(segment):
        def make(n):
            if n < max(segment, SEGMENTED_SMALLEST):
                return None
            x = keys["float"][:n].reshape(-1, segment)
            return lambda: cupy.sort(x, axis=-1)
        return make

    return [("add", "float", 8, 4, add("float")), ("add", "half", 4, 2, add("half")),
            ("axpby", "float", 8, 4, axpby), ("exp", "float", 4, 4, exp),
            ("sum", "float", 4, 0, sum_), ("argmax", "float", 4, 0, argmax), ("dot", "float", 8, 0, dot),
            ("inclusive_scan", "float", 4, 4, cumsum), ("compact", "float", 5, 2, compact),
            ("sort", "float", 16, 16, sort(keys, "float")), ("sort", "int32", 16, 16, sort(keys, "int32")),
            ("sort_few", "float", 16, 16, sort(few, "float")), ("argsort", "float", 32, 32, argsort),
            ("lower_bound", "float", 8, 8, searchsorted(False)), ("lower_bound_sorted", "float", 8, 8, searchsorted(True))] + \
        [(f"segmented_sort_seg{segment}", "float", 4, 4, sort_rows(segment)) for segment in SEGMENTS] + \
        [(f"histogram_{shape}", "float", 4, 0, histogram(shape)) for shape in samples] + \
        [("set_union", "uint32", 4, 4 * 5 / 6, set_op(cupy.union1d)),
         ("set_intersection", "uint32", 4, 4 / 6, set_op(lambda a, b: cupy.intersect1d(a, b, assume_unique=True))),
         ("set_difference", "uint32", 4, 4 * 2 / 6, set_op(lambda a, b: cupy.setdiff1d(a, b, assume_unique=True))),
         ("set_symmetric_difference", "uint32", 4, 4 * 4 / 6, set_op(lambda a, b: cupy.setxor1d(a, b, assume_unique=True)))]


def cccl_arrays(cc):
    """cuda.compute works on any array with the CUDA array interface: torch's where torch is here,
    else CuPy's (the same arrays as that peer's rows)."""
    try:
        import torch
        if torch.cuda.is_available():
            return {"torch": torch, **torch_arrays(torch)}
    except ImportError:
        pass
    import cupy
    return {"cupy": cupy, **cupy_arrays(cupy)}


def cccl_operations(cc, arrays):
    """cuda.compute (NVIDIA's cuda-cccl package: CUB's device algorithms from Python), for every
    operation of the rows it has: add (binary_transform, OpKind.PLUS), axpby and exp (transforms of
    a Python function, compiled by Numba), sum (reduce_into), inclusive_scan, compact (select),
    sort (radix_sort), argsort (radix_sort of (key, index) pairs) and the histograms
    (histogram_even). Each is the reusable object (make_*) with its temporary storage allocated
    once, as a program that calls it repeatedly does: what is timed is the algorithm. A row whose
    object cannot be made (no Numba for a Python function) is skipped with a message."""
    import math
    import numpy as np
    lib = arrays.get("torch") or arrays.get("cupy")
    torch_here = "torch" in arrays
    largest = SIZES[-1]

    def empty(count, dtype):
        if torch_here:
            return lib.empty(count, dtype=getattr(lib, dtype), device="cuda")
        return lib.empty(count, dtype=dtype)

    def temp(nbytes):
        return empty(max(int(nbytes), 1), "uint8")

    def views(type_name, n):
        return [a[:n] for a in arrays[type_name]]

    def reusable(make, call):
        """make() -> the object; call(obj, temp_storage) runs it: sized once, then timed."""
        obj = make()
        storage = temp(call(obj, None) or 0)
        return lambda: call(obj, storage)

    def add(n):
        x, y, z = views("float", n)
        adder = cc.make_binary_transform(d_in1=x, d_in2=y, d_out=z, op=cc.OpKind.PLUS)
        return lambda: adder(d_in1=x, d_in2=y, d_out=z, op=cc.OpKind.PLUS, num_items=n)

    def axpby_op(a, b):
        return ALPHA * a + BETA * b

    def axpby(n):
        x, y, z = views("float", n)
        f = cc.make_binary_transform(d_in1=x, d_in2=y, d_out=z, op=axpby_op)
        return lambda: f(d_in1=x, d_in2=y, d_out=z, op=axpby_op, num_items=n)

    def exp_op(a):
        return math.exp(a)

    def exp(n):
        x, _, z = views("float", n)
        f = cc.make_unary_transform(d_in=x, d_out=z, op=exp_op)
        return lambda: f(d_in=x, d_out=z, op=exp_op, num_items=n)

    scalar = empty(1, "float32")
    zero = np.zeros(1, np.float32)

    def sum_(n):
        x = views("float", n)[0]
        return reusable(lambda: cc.make_reduce_into(d_in=x, d_out=scalar, op=cc.OpKind.PLUS, h_init=zero),
                        lambda obj, t: obj(temp_storage=t, d_in=x, d_out=scalar, num_items=n, op=cc.OpKind.PLUS,
                                           h_init=zero))

    def cumsum(n):
        x, _, z = views("float", n)
        return reusable(lambda: cc.make_inclusive_scan(d_in=x, d_out=z, op=cc.OpKind.PLUS),
                        lambda obj, t: obj(temp_storage=t, d_in=x, d_out=z, op=cc.OpKind.PLUS, init_value=None,
                                           num_items=n))

    selected = empty(1, "int64")

    def positive(a):
        return a > 1.0  # the inputs are in [0.5, 1.5): about half selected

    def compact(n):
        x, _, z = views("float", n)
        return reusable(lambda: cc.make_select(d_in=x, d_out=z, d_num_selected_out=selected, cond=positive),
                        lambda obj, t: obj(temp_storage=t, d_in=x, d_out=z, d_num_selected_out=selected,
                                           cond=positive, num_items=n))

    keys_in = arrays["float"][0] * 2 - 2
    keys_out = empty(largest, "float32")
    positions_in = lib.arange(largest, device="cuda") if torch_here else lib.arange(largest)
    positions_out = empty(largest, "int64")

    def sort(n):
        k, o = keys_in[:n], keys_out[:n]
        return reusable(lambda: cc.make_radix_sort(d_in_keys=k, d_out_keys=o, d_in_values=None, d_out_values=None,
                                                   order=cc.SortOrder.ASCENDING),
                        lambda obj, t: obj(temp_storage=t, d_in_keys=k, d_out_keys=o, d_in_values=None,
                                           d_out_values=None, num_items=n))

    def argsort(n):
        k, o, v, w = keys_in[:n], keys_out[:n], positions_in[:n], positions_out[:n]
        return reusable(lambda: cc.make_radix_sort(d_in_keys=k, d_out_keys=o, d_in_values=v, d_out_values=w,
                                                   order=cc.SortOrder.ASCENDING),
                        lambda obj, t: obj(temp_storage=t, d_in_keys=k, d_out_keys=o, d_in_values=v,
                                           d_out_values=w, num_items=n))

    uniform = arrays["float"][0] - 0.5
    samples = {"uniform": uniform, "one_bin": uniform * 0 + 0.3,
               "normal": (lib.randn(largest, device="cuda") if torch_here else
                          lib.random.standard_normal(largest, dtype=lib.float32)) * 0.1 + 0.5}
    counts = empty(256, "int32")
    levels, lower, upper = np.array([257], np.int32), np.array([0.0], np.float32), np.array([1.0], np.float32)

    def histogram(shape):
        def make(n):
            x = samples[shape][:n]
            return reusable(lambda: cc.make_histogram_even(d_samples=x, d_histogram=counts, h_num_output_levels=levels,
                                                           h_lower_level=lower, h_upper_level=upper, num_samples=n),
                            lambda obj, t: obj(temp_storage=t, d_samples=x, d_histogram=counts,
                                               h_num_output_levels=levels, h_lower_level=lower, h_upper_level=upper,
                                               num_samples=n))
        return make

    def guarded(name, make):
        """make(n), or None (with one message) where cuda.compute cannot make the object."""
        failed = []

        def attempt(n):
            if failed:
                return None
            try:
                return make(n)
            except Exception as error:  # no Numba for a Python function, an unsupported type
                failed.append(error)
                print(f"cuda.compute {name} skipped: {type(error).__name__}: {error}", file=sys.stderr)
                return None
        return attempt

    rows = [("add", "float", 8, 4, add), ("axpby", "float", 8, 4, axpby), ("exp", "float", 4, 4, exp),
            ("sum", "float", 4, 0, sum_), ("inclusive_scan", "float", 4, 4, cumsum),
            ("compact", "float", 4, 2, compact), ("sort", "float", 16, 16, sort),
            ("argsort", "float", 32, 32, argsort)] + \
        [(f"histogram_{shape}", "float", 4, 0, histogram(shape)) for shape in samples]
    return [(op, t, r, w, guarded(op, make)) for op, t, r, w, make in rows]


def histogram_samples(uniform, normal):
    """The histogram suite's three shapes of float samples from uniform [0, 1) and standard normal
    ones: as they are, all 0.3 (one bin), and mean 0.5 with standard deviation 0.1."""
    return {"uniform": uniform, "one_bin": uniform * 0 + 0.3, "normal": normal * 0.1 + 0.5}


def module_operations(prism, arrays, empty):
    """prism through its Python module on another peer's arrays; empty(dtype_name, shape=()) makes
    a result of that peer's kind. The sort and histogram rows take their inputs from the float
    arrays, in the peers' distributions: keys uniform in [-1, 1), samples uniform in [0, 1)."""
    core = prism._prism
    scalar, index = empty("float32"), empty("int64")
    uniform = arrays["float"][0]  # in [0.5, 1.5)
    keys, samples, counts = uniform * 2 - 2, uniform - 0.5, empty("int64", (256,))

    def views(type_name, n):
        return [a[:n] for a in arrays[type_name]]

    def add(type_name):
        def make(n):
            x, y, z = views(type_name, n)
            return lambda: prism.add(x, y, out=z)
        return make

    def add_core(n):
        x, y, z = views("float", n)
        return lambda: core.elementwise.add(x, y, z, "automatic", 0)

    def axpby(n):
        x, y, z = views("float", n)
        return lambda: prism.axpby(ALPHA, x, BETA, y, out=z)

    def exp(n):
        x, _, z = views("float", n)
        return lambda: prism.exp(x, out=z)

    def sum_(n):
        x = views("float", n)[0]
        return lambda: prism.sum(x, out=scalar)

    def argmax(n):
        x = views("float", n)[0]
        return lambda: prism.argmax(x, out=index)

    def dot(n):
        x, y, _ = views("float", n)
        return lambda: prism.dot(x, y, out=scalar)

    def sort(n):
        x, z = keys[:n], arrays["float"][2][:n]
        return lambda: prism.sort(x, out=z)

    def histogram(n):
        x = samples[:n]
        return lambda: prism.histogram(x, 256, 0.0, 1.0, out=counts)

    return [("module", "add", "float", 8, 4, add("float")), ("module", "add", "half", 4, 2, add("half")),
            ("module_core", "add", "float", 8, 4, add_core),
            ("module", "axpby", "float", 8, 4, axpby), ("module", "exp", "float", 4, 4, exp),
            ("module", "sum", "float", 4, 0, sum_), ("module", "argmax", "float", 4, 0, argmax),
            ("module", "dot", "float", 8, 0, dot), ("module", "sort", "float", 16, 16, sort),
            ("module", "histogram_uniform", "float", 4, 0, histogram)]


def host_cost_us(run, synchronize, calls=2000):
    """The host time of one call, from `calls` calls in a row (the GPU runs behind)."""
    import time
    for _ in range(100):
        run()
    synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        run()
    elapsed = time.perf_counter() - start
    synchronize()
    return elapsed / calls * 1e6


# Reads every 16-byte vector of x once, one 16 KB tile per block, and keeps nothing (the sink is
# written only if the tile's bits XOR to `key`, which the compiler cannot know never happens).
READ_ONLY_KERNEL = r'''
extern "C" __global__ void read_tiles(const uint4* x, unsigned long long vectors, unsigned key, unsigned* sink) {
  const unsigned long long first = blockIdx.x * 1024ull + threadIdx.x;
  uint4 v[4];
  for (int k = 0; k < 4; ++k) {
    const unsigned long long i = first + k * 256ull;
    v[k] = i < vectors ? x[i] : make_uint4(0, 0, 0, 0);
  }
  unsigned a = 0;
  for (int k = 0; k < 4; ++k) a ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  if (a == key) *sink = a;
}'''


def sum_beside_reading(prism, torch, cupy, gpu, x):
    """torch.sum, the module's sum and the read-only kernel over the same x, one sample of each in
    turn: GPU time (us) of each and each one's speed over torch.sum's."""
    vectors = x.numel() // 4
    read = cupy.RawKernel(READ_ONLY_KERNEL, "read_tiles")
    cx, sink = cupy.from_dlpack(x), cupy.zeros(1, dtype=cupy.uint32)
    scalar, result = torch.empty((), device="cuda"), torch.empty(1, device="cuda")
    runs = {"torch.sum": lambda: torch.sum(x, 0, out=scalar),
            "module": lambda: prism.sum(x, out=result),
            "read-only kernel": lambda: read(((vectors + 1023) // 1024,), (256,),
                                             (cx, cupy.uint64(vectors), cupy.uint32(0x9E3779B9), sink))}
    times = {name: [] for name in runs}
    for round_ in range(3 * ROUNDS):
        for name, run in runs.items():
            us = gpu.gpu_us(run, False)
            if round_ >= 3:
                times[name].append(us)
    us = {name: statistics.median(t) for name, t in times.items()}
    summary = {f"sum_float_2^28_rotation_gpu_us {name}": t for name, t in us.items()}
    for name in ("module", "read-only kernel"):
        summary[f"sum_float_2^28_rotation {name} over torch.sum"] = us["torch.sum"] / us[name]
    return summary


def module_summary(prism, torch, cupy, gpu, arrays, rows):
    """What one process shows: the module against its compiled layer and against torch."""
    synchronize = gpu.synchronize
    def median(name, field):
        for r in rows:
            if r["run_name"] == name and r["aggregate_name"] == "median":
                return r[field]
        return None

    big, small = SIZES[-1], SIZES[0]
    summary = {}
    module, core = median(f"add/float/module/{big}", "GB/s"), median(f"add/float/module_core/{big}", "GB/s")
    if module and core:
        summary["add_float_2^28_module_over_core"] = module / core
    for operation in ("sum", "sort", "histogram_uniform"):
        mine = median(f"{operation}/float/module/{big}", "GB/s")
        theirs = median(f"{operation}/float/torch/{big}", "GB/s")
        if mine and theirs:
            summary[f"{operation}_float_2^28_module_over_torch"] = mine / theirs
    x, y, z = (a[:small] for a in arrays["float"])
    calls = {"prism.add": lambda: prism.add(x, y, out=z),
             "compiled layer": lambda: prism._prism.elementwise.add(x, y, z, "automatic", None)}
    if torch is not None:
        calls["torch.add"] = lambda: torch.add(x, y, out=z)
    for name, run in calls.items():
        summary[f"host_us_per_call_add_2^10 {name}"] = host_cost_us(run, synchronize)
    looped = 2000
    summary["host_us_per_call_add_2^10 C++ call (looped in the module)"] = host_cost_us(
        lambda: prism._prism.repeat_add(x, y, z, "automatic", 0, looped), synchronize, 20) / looped
    for name in ("add/float/module", "add/float/module_core", "add/float/torch"):
        us = median(f"{name}/{small}/cold", "us") or median(f"{name}/{small}", "us")
        if us is not None:
            summary[f"latency_us_add_2^10 {name.split('/')[2]}"] = us
    if torch is not None and cupy is not None:
        summary.update(sum_beside_reading(prism, torch, cupy, gpu, arrays["float"][0][:big]))
    return summary


def aggregates(name, read, written, latency, gpu):
    """The rows of one (operation, type, peer, n, cache) as Google Benchmark aggregates."""
    total = read + written
    gbps = [total / (g * 1e-6) / 1e9 for g in gpu]
    out = []
    for stat, f in (("median", statistics.median), ("mean", statistics.mean), ("min", min), ("max", max),
                    ("p25", lambda v: percentile(v, 0.25)), ("p75", lambda v: percentile(v, 0.75))):
        # Time and GB/s run in opposite directions: a time's min is GB/s's max.
        flip = {"min": max, "max": min, "p25": lambda v: percentile(v, 0.75),
                "p75": lambda v: percentile(v, 0.25)}.get(stat, f)
        out.append({"name": f"{name}_{stat}", "run_name": name, "run_type": "aggregate",
                    "aggregate_name": stat, "repetitions": len(latency), "real_time": f(latency),
                    "time_unit": "us", "us": f(latency), "gpu_us": f(gpu), "GB/s": flip(gbps) if stat in
                    ("min", "max", "p25", "p75") else f(gbps), "bytes": total, "bytes_read": read,
                    "bytes_written": written})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="peers.json", help="where to write the JSON")
    parser.add_argument("--filter", default="", help="regex on the row names (as --benchmark_filter)")
    args = parser.parse_args()
    pattern = re.compile(args.filter) if args.filter else None

    context = {"executable": "bench/peers.py", "host_name": platform.node(),
               "python": platform.python_version(), "skipped": [], "rounds": ROUNDS, "spin_us": SPIN_US}
    modules, operations, arrays = {}, [], {}
    for peer, make_arrays, make in (("torch", torch_arrays, torch_operations),
                                    ("cupy", cupy_arrays, cupy_operations),
                                    ("cuda.compute", cccl_arrays, cccl_operations)):
        try:
            module = __import__(peer, fromlist=["_"])
            if peer == "torch" and not module.cuda.is_available():
                raise RuntimeError("torch sees no CUDA device")
            if peer == "cupy" and module.cuda.runtime.getDeviceCount() == 0:
                raise RuntimeError("cupy sees no CUDA device")
            arrays[peer] = make_arrays(module)
            operations += [(peer, *op) for op in make(module, arrays[peer])]
            modules[peer] = module
            context[f"{peer}_version"] = getattr(module, "__version__", None) or _distribution_version(peer)
        except Exception as error:  # ImportError, no device, or a CUDA failure: skip this peer
            message = f"{peer} skipped: {type(error).__name__}: {error}"
            print(message, file=sys.stderr)
            context["skipped"].append(message)
    prism = None
    if arrays:
        try:
            import prism_primitives as prism
            host = "torch" if "torch" in arrays else "cupy"
            peer_module = modules[host]
            if host == "torch":
                empty = lambda name, shape=(): peer_module.empty(shape, dtype=getattr(peer_module, name),  # noqa: E731
                                                                 device="cuda")
            else:
                empty = lambda name, shape=(): peer_module.empty(shape, dtype=name)  # noqa: E731
            operations += module_operations(prism, arrays[host], empty)
            context["module_version"] = prism.__version__
            context["module_arrays"] = host
        except Exception as error:  # not installed, or no GPU for it: skip the module's rows
            prism = None
            message = f"module skipped: {type(error).__name__}: {error}"
            print(message, file=sys.stderr)
            context["skipped"].append(message)

    rows = []
    if modules:
        gpu = Gpu(modules.get("torch"), modules.get("cupy"))
        context.update(gpu=gpu.name, l2_bytes=gpu.l2)
        for n in SIZES:
            batch = []
            for peer, op, type_name, read, written, make in operations:
                total = (read + written) * n
                caches = ["cold", "warm"] if total <= gpu.l2 else [""]
                for cache in caches:
                    name = f"{op}/{type_name}/{peer}/{n}" + (f"/{cache}" if cache else "")
                    if pattern and not pattern.search(name + "/"):
                        continue
                    run = make(n)
                    if run is None:  # a peer that cannot run this row (said once, on stderr)
                        continue
                    for _ in range(3):
                        run()  # warm-up
                    batch.append((name, read * n, written * n, run, cache == "cold", [], []))
            gpu.synchronize()
            for _ in range(ROUNDS):  # interleaved: one sample of every row per round
                for name, read, written, run, cold, latency, gpu_time in batch:
                    latency.append(gpu.latency_us(run, cold))
                    gpu_time.append(gpu.gpu_us(run, cold))
            for name, read, written, run, cold, latency, gpu_time in batch:
                rows += aggregates(name, read, written, latency, gpu_time)

        if prism is not None:
            host = context["module_arrays"]
            context["module"] = module_summary(prism, modules.get("torch"), modules.get("cupy"), gpu, arrays[host],
                                               rows)

    with open(args.out, "w") as out:
        json.dump({"context": context, "benchmarks": rows}, out, indent=1)
    print(f"{len(rows) // 6} rows written to {args.out}")
    for r in rows:
        if r["aggregate_name"] == "median":
            print(f"{r['run_name']:<36} {r['us']:10.2f} us {r['gpu_us']:10.2f} gpu_us {r['GB/s']:9.1f} GB/s")
    for name, value in context.get("module", {}).items():
        print(f"module: {name:<64} {value:10.3f}")


if __name__ == "__main__":
    main()
