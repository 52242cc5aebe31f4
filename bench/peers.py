#!/usr/bin/env python3
"""The peers of the element-wise benchmark: torch and CuPy, timed like bench_elementwise.

Rows are named like the C++ ones, <operation>/<type>/<peer>/<n>, for float add, axpby and exp and
half add at n = 2^10 ... 2^28 by 4x. Each row is the median of 30 calls timed one by one with CUDA
events after a warm-up, on arrays allocated once; bytes count the fewest that must move (as the
C++ side counts them). The JSON has Google Benchmark's shape, so bench/report reads both files.

What each peer runs is what a user of that library would write:
  add     torch.add(a, b, out=c)                  cupy.add(a, b, out=c)
  axpby   torch.mul(x, alpha, out=z)              one cupy.ElementwiseKernel (fused)
          z.add_(y, alpha=beta)  (two kernels: torch has no fused axpby)
  exp     torch.exp(x, out=y)                     cupy.exp(x, out=y)

A peer that cannot be imported, or finds no GPU, is skipped with a message; the script still
writes its JSON (with the rows it has) and exits 0.

    python3 bench/peers.py peers.json
"""
import argparse
import json
import platform
import statistics
import sys

SIZES = [1 << p for p in range(10, 29, 2)]
REPETITIONS = 30
WARM_UP = 3
ALPHA, BETA = 2.0, -1.0


class Timer:
    """CUDA-event timing of one call, for a peer's own event type (both report milliseconds)."""

    def __init__(self, make_event, elapsed_ms, synchronize):
        self.make_event, self.elapsed_ms, self.synchronize = make_event, elapsed_ms, synchronize

    def median_us(self, run):
        for _ in range(WARM_UP):
            run()
        self.synchronize()
        start, stop = self.make_event(), self.make_event()
        times = []
        for _ in range(REPETITIONS):
            start.record()
            run()
            stop.record()
            stop.synchronize()
            times.append(self.elapsed_ms(start, stop) * 1e3)
        return statistics.median(times)


def row(operation, type_name, peer, n, us, bytes_moved):
    name = f"{operation}/{type_name}/{peer}/{n}"
    return {
        "name": name,
        "run_name": name,
        "run_type": "aggregate",
        "aggregate_name": "median",
        "repetitions": REPETITIONS,
        "real_time": us,
        "cpu_time": us,
        "time_unit": "us",
        "bytes": bytes_moved,
        "us": us,
        "GB/s": bytes_moved / (us * 1e-6) / 1e9,
    }


def torch_rows():
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    timer = Timer(lambda: torch.cuda.Event(enable_timing=True),
                  lambda start, stop: start.elapsed_time(stop), torch.cuda.synchronize)
    rows = []
    for type_name, dtype in (("float", torch.float32), ("half", torch.float16)):
        largest = SIZES[-1]
        a = torch.rand(largest, dtype=dtype, device="cuda")
        b = torch.rand(largest, dtype=dtype, device="cuda")
        c = torch.empty(largest, dtype=dtype, device="cuda")
        size = a.element_size()
        for n in SIZES:
            x, y, z = a[:n], b[:n], c[:n]
            rows.append(row("add", type_name, "torch", n,
                            timer.median_us(lambda: torch.add(x, y, out=z)), 3 * size * n))
            if type_name != "float":
                continue

            def axpby():
                torch.mul(x, ALPHA, out=z)
                z.add_(y, alpha=BETA)

            rows.append(row("axpby", type_name, "torch", n, timer.median_us(axpby),
                            3 * size * n))
            rows.append(row("exp", type_name, "torch", n,
                            timer.median_us(lambda: torch.exp(x, out=z)), 2 * size * n))
        del a, b, c
        torch.cuda.empty_cache()
    return rows


def cupy_rows():
    import cupy

    if cupy.cuda.runtime.getDeviceCount() == 0:
        raise RuntimeError("cupy sees no CUDA device")
    timer = Timer(cupy.cuda.Event, cupy.cuda.get_elapsed_time, cupy.cuda.Device().synchronize)
    axpby_kernel = cupy.ElementwiseKernel("T x, T y, T alpha, T beta", "T z",
                                          "z = alpha * x + beta * y", "prism_peer_axpby")
    rows = []
    for type_name, dtype in (("float", cupy.float32), ("half", cupy.float16)):
        largest = SIZES[-1]
        a = cupy.random.random(largest).astype(dtype)
        b = cupy.random.random(largest).astype(dtype)
        c = cupy.empty(largest, dtype=dtype)
        size = a.itemsize
        alpha, beta = dtype(ALPHA), dtype(BETA)
        for n in SIZES:
            x, y, z = a[:n], b[:n], c[:n]
            rows.append(row("add", type_name, "cupy", n,
                            timer.median_us(lambda: cupy.add(x, y, out=z)), 3 * size * n))
            if type_name != "float":
                continue
            rows.append(row("axpby", type_name, "cupy", n,
                            timer.median_us(lambda: axpby_kernel(x, y, alpha, beta, z)),
                            3 * size * n))
            rows.append(row("exp", type_name, "cupy", n,
                            timer.median_us(lambda: cupy.exp(x, out=z)), 2 * size * n))
        del a, b, c
        cupy.get_default_memory_pool().free_all_blocks()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="peers.json", help="where to write the JSON")
    args = parser.parse_args()

    context = {"executable": "bench/peers.py", "host_name": platform.node(),
               "python": platform.python_version(), "skipped": []}
    rows = []
    for peer, collect in (("torch", torch_rows), ("cupy", cupy_rows)):
        try:
            rows += collect()
            module = sys.modules[peer]
            context[f"{peer}_version"] = getattr(module, "__version__", "unknown")
        except Exception as error:  # ImportError, no device, or a CUDA failure: skip this peer
            message = f"{peer} skipped: {type(error).__name__}: {error}"
            print(message, file=sys.stderr)
            context["skipped"].append(message)

    with open(args.out, "w") as out:
        json.dump({"context": context, "benchmarks": rows}, out, indent=1)
    print(f"{len(rows)} rows written to {args.out}")
    for r in rows:
        print(f"{r['name']:<32} {r['us']:10.2f} us {r['GB/s']:9.1f} GB/s")


if __name__ == "__main__":
    main()
