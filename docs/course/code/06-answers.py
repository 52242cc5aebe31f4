# SPDX-License-Identifier: Apache-2.0
import gzip
import json
from bisect import bisect_left, bisect_right

with gzip.open("docs/benchmarks/sort.json.gz", "rt") as f:
    data = json.load(f)
rows = {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}
ceiling = float(data["context"]["mixed1_ceiling_GBps"])  # one array read per array written

# 1. uint32 keys, 8-bit digits: 4 passes, each reading and writing 4 bytes per key.
n = 2**28
row = rows[f"sort/uint32/cub/{n}"]
per_key = (row["median bytes_read"] + row["median bytes_written"]) / n
print(f"bytes counted per key: {per_key:.0f}; bound: {ceiling / per_key:.0f} Gkeys/s at {ceiling:,.0f} GB/s")
print(f"cub: {n / row['median gpu_us'] / 1e3:.1f} Gkeys/s")
# 2. uint64 keys: 8 passes of 8 + 8 bytes per key.
print(f"uint64 keys: {8 * 16} bytes per key, bound {ceiling / 128:.0f} Gkeys/s")


# 3. Merge path: thread t's first output is diagonal 3t; a's element first on ties.
def merge_path(a, b, diagonal):
    lo, hi = max(0, diagonal - len(b)), min(diagonal, len(a))
    while lo < hi:
        mid = (lo + hi) // 2
        if b[diagonal - 1 - mid] < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


a, b = [2, 4, 4, 6, 9], [1, 4, 5, 8, 8, 10]
starts = [(merge_path(a, b, d), d - merge_path(a, b, d)) for d in range(0, len(a) + len(b), 3)]
place = 1 + bisect_right(a, b[1])  # b's 4: after b[0] and after every a not after it
print(f"starts (i, j): {starts}; b's 4 is output {place}, thread {place // 3}'s")

# 4. Two arrays of 2^27: a binary search over 2^27 positions takes up to 28 steps.
steps = (2**27).bit_length()
print(f"search steps in global memory per output: rank {steps}, merge path {steps / 8}, tiles {steps / 3840:.4f}")


# 5. Sorted queries merged with the array: the lower bound puts the query first on ties, the
#    upper bound the element; either way a query's bound is the number of elements merged before it.
def bounds(elements, queries, query_first):
    out, j = [], 0
    for q in queries:  # the merge, sequentially: elements go while they go before q
        while j < len(elements) and (elements[j] < q if query_first else elements[j] <= q):
            j += 1
        out.append(j)
    return out


e, q = [1, 3, 3, 3, 7, 9], [0, 3, 3, 8, 9, 12]
lower, upper = bounds(e, q, True), bounds(e, q, False)
right = lower == [bisect_left(e, v) for v in q] and upper == [bisect_right(e, v) for v in q]
print(f"lower {lower}, upper {upper}:", right)

# 6. Bytes per element, counted as algorithms/top_k/lesson.cuh does: a radix sort of (rank, int32
#    position) pairs reads and writes both once per 8-bit digit; radix select reads x once per
#    digit, then twice more (count, write).
for name, size in (("float", 4), ("double", 8)):
    sort_bytes, select_bytes = size * 2 * (size + 4), (size + 2) * size
    print(f"{name}: sort then take {sort_bytes} bytes ({sort_bytes // size} reads' worth), "
          f"radix select {select_bytes} ({select_bytes // size})")

# 7. x = [5, 7, 7, 1, 7, 3], k = 2, the largest: the k-th value, how many of its copies to take.
x, k = [5, 7, 7, 1, 7, 3], 2
kth = sorted(x, reverse=True)[k - 1]
remaining = k - sum(v > kth for v in x)
taken = sorted(range(len(x)), key=lambda i: (-x[i], i))[:k]  # by value, then the lower index
print(f"k-th {kth}, {remaining} of {x.count(kth)} copies taken:", taken)
