# SPDX-License-Identifier: Apache-2.0
# An LSD radix sort with one bit per pass: each pass a stable partition by the bit (zeros first).
import numpy as np
import prism_primitives as prism

rng = np.random.default_rng(7)
keys = rng.integers(0, 2**32, size=100_000, dtype=np.uint64).astype(np.uint32)
sorted_keys = keys.copy()
for bit in range(32):
    zero = ((sorted_keys >> np.uint32(bit)) & np.uint32(1)) == 0
    sorted_keys, _ = prism.partition(sorted_keys, zero.astype(np.uint8))
print("32 partitions sort the keys:", np.array_equal(sorted_keys, np.sort(keys)))
print("and so does one call:", np.array_equal(prism.sort(keys), np.sort(keys)))
