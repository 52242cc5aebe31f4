# SPDX-License-Identifier: Apache-2.0
# Merge path: each thread finds where its share of the output starts by one binary search along
# the cross diagonal, then merges sequentially from there. Ties: a's element first (stable).
import numpy as np


def merge_path(a, b, diagonal):
    """How many of a are among the first `diagonal` outputs (a's element first on ties)."""
    lo, hi = max(0, diagonal - len(b)), min(diagonal, len(a))
    while lo < hi:
        mid = (lo + hi) // 2
        if b[diagonal - 1 - mid] < a[mid]:  # b's element goes before a[mid]: fewer of a
            hi = mid
        else:
            lo = mid + 1
    return lo


def merge(a, b, per_thread):
    """Thread t writes outputs [t * per_thread, +per_thread), each thread on its own."""
    n = len(a) + len(b)
    out, source = np.empty(n, a.dtype), np.empty(n, np.int64)  # source: i for a[i], len(a) + j for b[j]
    for start in range(0, n, per_thread):
        i = merge_path(a, b, start)
        j = start - i
        for k in range(start, min(start + per_thread, n)):
            take_a = i < len(a) and (j >= len(b) or not b[j] < a[i])
            out[k], source[k] = (a[i], i) if take_a else (b[j], len(a) + j)
            i, j = (i + 1, j) if take_a else (i, j + 1)
    return out, source


a, b = np.array([1, 3, 3, 5, 8, 9]), np.array([2, 3, 4, 7])
starts = [(merge_path(a, b, d), d - merge_path(a, b, d)) for d in (0, 4, 8)]
print("threads of 4 start at (i, j):", starts)
out, source = merge(a, b, 4)
print("merged:", " ".join(f"{v}{'a' if s < len(a) else 'b'}" for v, s in zip(out, source)))

rng = np.random.default_rng(6)
a = np.sort(rng.integers(0, 1000, 5000))
b = np.sort(rng.integers(0, 1000, 3000))
out, source = merge(a, b, 8)
both = np.concatenate((a, b))
stable = np.array_equal(source, np.argsort(both, kind="stable"))  # a's first on ties, each in order
print(f"{len(a)} + {len(b)} keys by {len(out) // 8} threads of 8, sorted and stable:",
      np.array_equal(out, np.sort(both)) and stable)

# Stage 2 of the lesson splits a into fixed runs of 8; a thread's share of b depends on the data.
a, b = np.arange(1024) * 10, np.full(1024, 5005)
runs = np.append(np.searchsorted(b, a[8::8], "left"), len(b))  # the b's before each next run
fixed = 8 + np.diff(np.concatenate(([0], runs)))
print("all of b between two of a's: the busiest thread writes", fixed.max(), "outputs; by merge path 8")
