# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

x = np.arange(1, 9, dtype=np.int32)
print("x              ", x)
print("inclusive_scan ", prism.inclusive_scan(x))
print("exclusive_scan ", prism.exclusive_scan(x))
print("max scan       ", prism.inclusive_scan(np.array([2, 1, 5, 3, 7, 4], np.int32), op="max"))

even = (x % 2 == 0).astype(np.uint8)
print("compact        ", prism.compact(x, even))
parted, kept = prism.partition(x, even)  # the flagged first, then the others, both in order
print("partition      ", parted, "kept", kept)
runs = np.array([3, 3, 3, 1, 1, 7, 3, 3], np.int32)
print("unique         ", prism.unique(runs))
print("run lengths    ", *prism.run_length_encode(runs))
print("reduce_by_key  ", *prism.reduce_by_key(runs, np.arange(8, dtype=np.int32)))
