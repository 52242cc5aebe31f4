# SPDX-License-Identifier: Apache-2.0
import numpy as np
import prism_primitives as prism

# 1. The number kept is the last exclusive prefix plus the last flag (the inclusive scan's last).
flags = np.array([1, 0, 0, 1, 1, 0, 1], np.int64)
print(int(prism.exclusive_scan(flags)[-1] + flags[-1]), int(prism.inclusive_scan(flags)[-1]))

# 2. unique is a compaction whose flag says "differs from the element before".
x = np.array([4, 4, 2, 2, 2, 9, 4], np.int32)
flags = np.concatenate(([1], x[1:] != x[:-1])).astype(np.uint8)
print(prism.compact(x, flags), prism.unique(x))
