#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a small call costs from Python: prism_primitives against NumPy on the host and against
PyTorch on the GPU, at n = 2^10, the host time per call (many calls in a row, the GPU running
behind; the best of several rounds), and the size below which the cpu implementation is faster on
one thread than on OpenMP's team.

    python3 bench/python_calls.py [--json OUT]

Rows (us per call):
  numpy   prism.add(a, b)  vs np.add(a, b)      prism.sum(a)  vs np.sum(a)
          prism.add(a, b, out=c) vs np.add(a, b, out=c)
  torch   prism.add(a, b, out=c) vs torch.add(a, b, out=c)
          prism.sum(x, out=r) vs torch.sum(x, 0, out=r)   prism.sum(x) (0-d) vs torch.sum(x)
          and prism.add(out=c)'s parts: torch's DLPack export, stream query and negative-bit
          query, the compiled entry alone, then with the Python wrapper
  cpu threads: prism.add(out=) and prism.sum of float32 at 2^8 .. 2^22 with one thread and with
          OpenMP's team (PRISM_CPU_SERIAL_BELOW set to 0 and to 2^62 in child processes), and the
          crossover: what <prism/dispatch.hpp>'s cpu_serial_below_bytes() is chosen from.
"""
import argparse
import json
import os
import subprocess
import sys
import timeit

import numpy as np

CALLS = 2000
ROUNDS = 7


def per_call_us(run, synchronize=None, calls=CALLS):
    for _ in range(200):
        run()
    if synchronize:
        synchronize()
    best = float("inf")
    for _ in range(ROUNDS):
        start = timeit.default_timer()
        for _ in range(calls):
            run()
        elapsed = timeit.default_timer() - start
        if synchronize:
            synchronize()
        best = min(best, elapsed / calls * 1e6)
    return best


def host_rows(prism):
    a, b = np.random.rand(1024).astype(np.float32), np.random.rand(1024).astype(np.float32)
    c = np.empty_like(a)
    return {
        "numpy prism.add(a, b)": per_call_us(lambda: prism.add(a, b)),
        "numpy np.add(a, b)": per_call_us(lambda: np.add(a, b)),
        "numpy prism.add(a, b, out=c)": per_call_us(lambda: prism.add(a, b, out=c)),
        "numpy np.add(a, b, out=c)": per_call_us(lambda: np.add(a, b, out=c)),
        "numpy prism.sum(a)": per_call_us(lambda: prism.sum(a)),
        "numpy np.sum(a)": per_call_us(lambda: np.sum(a)),
    }


def torch_rows(prism, torch):
    a, b = torch.rand(1024, device="cuda"), torch.rand(1024, device="cuda")
    c, r0, r1 = torch.empty(1024, device="cuda"), torch.empty((), device="cuda"), torch.empty(1, device="cuda")
    sync = torch.cuda.synchronize
    return {
        "torch prism.add(a, b, out=c)": per_call_us(lambda: prism.add(a, b, out=c), sync),
        "torch torch.add(a, b, out=c)": per_call_us(lambda: torch.add(a, b, out=c), sync),
        "torch prism.sum(x, out=r)": per_call_us(lambda: prism.sum(a, out=r1), sync),
        "torch torch.sum(x, 0, out=r)": per_call_us(lambda: torch.sum(a, 0, out=r0), sync),
        "torch prism.sum(x) (0-d)": per_call_us(lambda: prism.sum(a), sync),
        "torch torch.sum(x)": per_call_us(lambda: torch.sum(a), sync),
        "torch prism.add(a, b) (allocated)": per_call_us(lambda: prism.add(a, b), sync),
        "torch torch.add(a, b)": per_call_us(lambda: torch.add(a, b), sync),
    }


def torch_parts(prism, torch):
    """What prism.add(a, b, out=c) on torch's GPU tensors is made of: torch's own pieces that a
    call may use, the compiled entry alone, then with prism.add's Python wrapper."""
    a, b, c = (torch.rand(1024, device="cuda") for _ in range(3))
    sync, add = torch.cuda.synchronize, prism._prism.elementwise.add
    to_dlpack = getattr(torch._C, "_to_dlpack", None)
    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    rows = {
        "torch._C._cuda_getCurrentRawStream(0)": per_call_us(lambda: raw_stream(0)) if raw_stream else None,
        "torch._C._to_dlpack(a)": per_call_us(lambda: to_dlpack(a)) if to_dlpack else None,
        "a.is_neg()": per_call_us(lambda: a.is_neg()),
        "the compiled entry: _prism.elementwise.add(a, b, c, ...)":
            per_call_us(lambda: add(a, b, c, "automatic", None), sync),
        "  + prism.add's Python (the whole call)": per_call_us(lambda: prism.add(a, b, out=c), sync),
    }
    return {k: v for k, v in rows.items() if v is not None}


CHILD = r"""
import sys, timeit, numpy as np, prism_primitives as prism
out = []
for p in range(8, 23, 2):
    n = 1 << p
    a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    c = np.empty_like(a)
    calls = max(10, min(2000, (1 << 24) // n))
    def best(f):
        for _ in range(10): f()
        return min(timeit.repeat(f, number=calls, repeat=7)) / calls * 1e6
    out.append((n, best(lambda: prism.add(a, b, out=c)), best(lambda: prism.sum(a))))
print(repr(out))
"""


def thread_rows():
    """prism.add(out=) and prism.sum on the host, one thread against OpenMP's team, per size."""
    results = {}
    for label, threshold in (("one thread", str(1 << 62)), ("OpenMP team", "0")):
        env = dict(os.environ, PRISM_CPU_SERIAL_BELOW=threshold)
        done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, check=True)
        results[label] = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (our own child's repr)
    rows, crossover = [], {}
    for (n, add1, sum1), (_, addt, sumt) in zip(results["one thread"], results["OpenMP team"]):
        rows.append({"n": n, "add one thread": add1, "add team": addt, "sum one thread": sum1, "sum team": sumt})
        for op, one, team, bytes_per in (("add", add1, addt, 12), ("sum", sum1, sumt, 4)):
            if team < one and op not in crossover:
                crossover[op] = n * bytes_per
    return rows, crossover


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="where to write the figures")
    args = parser.parse_args()
    import prism_primitives as prism
    report = {"host": host_rows(prism), "cpu_serial_below": prism._prism.cpu_serial_below_bytes()
              if hasattr(prism._prism, "cpu_serial_below_bytes") else None}
    try:
        import torch
        if torch.cuda.is_available() and prism.gpu_available():
            report["gpu"] = torch_rows(prism, torch)
            report["gpu parts of prism.add(out=)"] = torch_parts(prism, torch)
            report["torch exchange table"] = (hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or
                                              hasattr(torch.Tensor, "__c_dlpack_exchange_api__"))
            print(f"torch {torch.__version__}: DLPack's C exchange table: {report['torch exchange table']}")
    except ImportError:
        pass
    report["threads"], report["crossover_bytes"] = thread_rows()
    for section in ("host", "gpu", "gpu parts of prism.add(out=)"):
        for name, us in report.get(section, {}).items():
            print(f"{name:<40} {us:8.2f} us")
    print(f"{'n':>9} {'add 1 thread':>13} {'add team':>9} {'sum 1 thread':>13} {'sum team':>9}   (us)")
    for r in report["threads"]:
        print(f"{r['n']:>9} {r['add one thread']:>13.2f} {r['add team']:>9.2f} {r['sum one thread']:>13.2f} "
              f"{r['sum team']:>9.2f}")
    print(f"the team first wins at (bytes moved): {report['crossover_bytes']}; "
          f"the threshold in force: {report['cpu_serial_below']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
