# SPDX-License-Identifier: Apache-2.0
# From the committed benchmark rows: run it from the repository's root.
import gzip
import json

with gzip.open("docs/benchmarks/elementwise.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}
ceiling = float(data["context"]["mixed2_ceiling_GBps"])  # two arrays read per array written

n = 2**28
moved = 3 * 4 * n  # read a and b, write out: 12 bytes per float
print(f"add, float, n = 2^28: {moved / 1e9:.2f} GB must move; at {ceiling:,.0f} GB/s "
      f"that takes {moved / ceiling / 1e3:.0f} us")
for impl in ("raw_naive", "raw", "thrust", "cub"):
    row = rows[f"add/float/{impl}/{n}"]
    print(f"{impl:10} {row['median gpu_us']:5.0f} us {row['median GB/s']:7,.0f} GB/s "
          f"{row['median pct_of_ceiling']:5.1f}% of the ceiling")
