# SPDX-License-Identifier: Apache-2.0
import gzip
import json

with gzip.open("docs/benchmarks/sort.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}
ceiling = float(data["context"]["mixed1_ceiling_GBps"])  # one array read per array written

# 1. uint32 keys, 8-bit digits: 4 passes, each reading and writing 4 bytes per key.
n = 2**28
row = rows[f"sort/uint32/cub/{n}"]
per_key = (row["median bytes_read"] + row["median bytes_written"]) / n
print(f"bytes counted per key: {per_key:.0f}; bound: {ceiling / per_key:.0f} Gkeys/s at {ceiling:,.0f} GB/s")
print(f"cub: {n / row['median gpu_us'] / 1e3:.1f} Gkeys/s")
# 2. uint64 keys: 8 passes of 8 + 8 bytes per key.
print(f"uint64 keys: {8 * 16} bytes per key, bound {ceiling / 128:.0f} Gkeys/s")
