# SPDX-License-Identifier: Apache-2.0
import gzip
import json

with gzip.open("docs/benchmarks/sort.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}

# 1. Which of raw and cub leads sort of uint32 at each size (median latency)?
leaders = []
for k in range(10, 29, 2):
    name = lambda impl: rows.get(f"sort/uint32/{impl}/{2**k}/cold") or rows[f"sort/uint32/{impl}/{2**k}"]
    leaders.append("raw" if name("raw")["median us"] < name("cub")["median us"] else "cub")
print("sort uint32, 2^10 ... 2^28:", " ".join(leaders))
