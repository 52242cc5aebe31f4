# SPDX-License-Identifier: Apache-2.0
import gzip
import json

import numpy as np
import prism_primitives as prism

# 1. argmax returns the first of equal maxima, and the first NaN if there is one.
print(prism.argmax(np.array([3, 7, 7, 1], np.float32)), prism.argmax(np.array([3, 7, np.nan, 7, np.nan], np.float32)))

# 2. Stage 5 against stage 6 for float at 2^28: GB/s over the read ceiling of the run.
with gzip.open("docs/benchmarks/reduce.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}
read = float(data["context"]["read_ceiling_GBps"])
for stage in ("warp_shuffle", "multiple"):
    gbps = rows[f"sum/float/lesson_{stage}/268435456"]["median GB/s"]
    print(f"{stage}: {gbps:,.0f} GB/s = {100 * gbps / read:.1f}% of {read:,.0f}")
