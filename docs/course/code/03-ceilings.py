# SPDX-License-Identifier: Apache-2.0
# Every suite's ceilings, measured at the start of its run (GB/s). Run from the repository's root.
import gzip
import json

kinds = ("read", "write", "copy", "mixed1", "mixed2")
print(f"{'suite':12}" + "".join(f"{kind:>8}" for kind in kinds))
for suite in ("elementwise", "reduce", "scan", "sort", "histogram"):
    with gzip.open(f"docs/benchmarks/{suite}.json.gz", "rt") as f:
        context = json.load(f)["context"]
    print(f"{suite:12}" + "".join(f"{float(context[kind + '_ceiling_GBps']):8,.0f}" for kind in kinds))
