# SPDX-License-Identifier: Apache-2.0
# Compaction is a scan: the exclusive scan of the keep-flags is where each kept element goes.
import numpy as np
import prism_primitives as prism

values = np.array([5, 8, 1, 9, 4, 6, 2, 7], np.int32)
keep = (values > 4).astype(np.int64)
where = prism.exclusive_scan(keep)  # [0, 1, 2, 2, 3, 3, 4, 4]
count = int(where[-1] + keep[-1])
out = np.zeros(count, np.int32)
prism.scatter(values[keep == 1], where[keep == 1], out)  # out[where[i]] = values[i] for the kept
print("positions", where)
print("by hand  ", out)
print("compact  ", prism.compact(values, keep.astype(np.uint8)))
