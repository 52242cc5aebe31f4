# SPDX-License-Identifier: Apache-2.0
import gzip
import json

with gzip.open("docs/benchmarks/reduce.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}


def tie(a, b):
    ra, rb = rows[a], rows[b]
    return ra["p25 GB/s"] <= rb["p75 GB/s"] and rb["p25 GB/s"] <= ra["p75 GB/s"]


# 1. argmin of double at 2^28, raw against cub.
print("argmin double, raw and cub tie:", tie("argmin/double/raw/268435456", "argmin/double/cub/268435456"))
# 2. The same pair for float.
print("argmin float, raw and cub tie:", tie("argmin/float/raw/268435456", "argmin/float/cub/268435456"))
# 3. sum of float at 2^10: the latency and the GPU time of raw.
row = rows["sum/float/raw/1024/cold"]
print(f"sum float 2^10 raw: us {row['median us']:.2f}, gpu_us {row['median gpu_us']:.2f}, "
      f"host and launch {row['median us'] - row['median gpu_us']:.2f}")
