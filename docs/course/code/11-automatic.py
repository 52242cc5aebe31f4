# SPDX-License-Identifier: Apache-2.0
# Reading the rows as automatic's rule does: raw against cub, cold rows, the latency a caller sees.
import gzip
import json

with gzip.open("docs/benchmarks/reduce.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}


def row(impl, n):
    return rows.get(f"sum/float/{impl}/{n}/cold") or rows[f"sum/float/{impl}/{n}"]


for k in range(10, 29, 2):
    raw, cub = row("raw", 2**k), row("cub", 2**k)
    tie = raw["p25 us"] <= cub["p75 us"] and cub["p25 us"] <= raw["p75 us"]
    leader = "tie" if tie else ("raw" if raw["median us"] < cub["median us"] else "cub")
    print(f"sum float 2^{k}: raw {raw['median us']:7.1f} us, cub {cub['median us']:7.1f} us: {leader}")
