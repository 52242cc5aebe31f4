# SPDX-License-Identifier: Apache-2.0
# From the committed benchmark rows: run it from the repository's root.
import gzip
import json

with gzip.open("docs/benchmarks/elementwise.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}
ceiling = float(data["context"]["mixed2_ceiling_GBps"])

# 1. axpby, out = alpha x + beta y: two floats read, one written, 3 flops, per element.
n = 2**28
moved = 12 * n
row = rows[f"axpby/float/raw/{n}"]
print(f"axpby: {moved / 1e9:.2f} GB, at least {moved / ceiling / 1e3:.0f} us; "
      f"raw took {row['median gpu_us']:.0f} us")
print(f"flops per byte: {3 / 12}; Gflop/s at the ceiling: {ceiling * 3 / 12:,.0f}")

# 2. At n = 2^10 the bytes take no time: what is left is the launch.
small = rows["add/float/raw/1024/cold"]
print(f"add at 2^10: {12 * 1024 / ceiling / 1e3:.4f} us of bytes, {small['median gpu_us']:.2f} us on the GPU")
