# SPDX-License-Identifier: Apache-2.0
# Two rows tie when their spreads (25th to 75th percentile) overlap.
import gzip
import json

with gzip.open("docs/benchmarks/reduce.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}


def spread(name):
    row = rows[name]
    return row["p25 GB/s"], row["median GB/s"], row["p75 GB/s"]


def compare(a, b):
    (a25, a50, a75), (b25, b50, b75) = spread(a), spread(b)
    verdict = "tie" if a25 <= b75 and b25 <= a75 else ("first faster" if a50 > b50 else "second faster")
    print(f"{a} {a50:,.0f} ({a25:,.0f}-{a75:,.0f}) against {b} {b50:,.0f} ({b25:,.0f}-{b75:,.0f}): {verdict}")


compare("sum/float/raw/268435456", "sum/float/cub/268435456")
compare("argmax/float/raw/268435456", "argmax/float/cub/268435456")
