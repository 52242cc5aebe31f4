# SPDX-License-Identifier: Apache-2.0
# Weak scaling from the committed two-GPU rows (bench_scale): 2^28 floats per GPU.
import json


def medians(mode):
    with open(f"docs/benchmarks/scale_{mode}.json") as f:
        runs = json.load(f)["benchmarks"]
    return {"/".join(b["run_name"].split("/")[:5]): b for b in runs if b.get("aggregate_name") == "median"}


for mode in ("single", "mpi"):
    rows = medians(mode)
    for op in ("add", "sum", "inclusive_scan"):
        one, two = rows[f"weak/{op}/{mode}/1/268435456"], rows[f"weak/{op}/{mode}/2/536870912"]
        print(f"{mode:6} {op:15} 1 GPU {one['gpu_us']:6.1f} us, 2 GPUs {two['gpu_us']:6.1f} us, "
              f"efficiency {one['gpu_us'] / two['gpu_us']:.3f}")
