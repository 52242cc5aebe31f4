# SPDX-License-Identifier: Apache-2.0
# add, float, raw: cold rows (L2 emptied before each call) against warm ones (data left in L2).
import gzip
import json

with gzip.open("docs/benchmarks/elementwise.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}
l2 = int(data["context"]["l2_bytes"])
for k in (16, 18, 20, 22):
    n = 2**k
    cold, warm = (rows[f"add/float/raw/{n}/{cache}"]["median GB/s"] for cache in ("cold", "warm"))
    print(f"n = 2^{k}: {12 * n / 2**20:4.0f} MiB of {l2 / 2**20:.0f} MiB L2, "
          f"cold {cold:6,.0f} GB/s, warm {warm:6,.0f} GB/s")
