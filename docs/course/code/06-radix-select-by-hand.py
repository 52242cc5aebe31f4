# SPDX-License-Identifier: Apache-2.0
# Top-k by radix select: the k-th best key found one 8-bit digit at a time from histograms, then
# one filtering pass in index order (ties to the lower index) and a sort of only the k chosen.
import numpy as np


def rank(x):
    """A float's bits as an unsigned integer of the same order, complemented: the k largest are
    the k smallest ranks. (-0.0 is +0.0; int64 so that shifts of 32 are plain.)"""
    bits = x.view(np.uint32).astype(np.int64)
    bits[bits == 0x80000000] = 0
    ordered = np.where(bits >= 0x80000000, bits ^ 0xFFFFFFFF, bits ^ 0x80000000)
    return ordered ^ 0xFFFFFFFF


rng = np.random.default_rng(6)
x = np.round(rng.standard_normal(100_000), 2).astype(np.float32)  # many equal values
k = 1000
r = rank(x)

prefix, remaining = 0, k  # the k-th rank's digits so far; how many of the elements with them to take
for p in range(4):  # one read of x per pass
    shift = 24 - 8 * p
    running = (r >> (shift + 8)) == (prefix >> (shift + 8))  # higher digits are the k-th's
    counts = np.bincount((r[running] >> shift) & 255, minlength=256)
    digit = int(np.searchsorted(np.cumsum(counts), remaining))  # the bucket where the k-th falls
    remaining -= int(counts[:digit].sum())
    prefix |= digit << shift
    print(f"pass {p}: {running.sum():6} in the running, digit {digit:3},",
          f"{remaining:4} of its {counts[digit]} to take")
kth = prefix

# One filtering pass: every element ranked before the k-th, and the first `remaining` equal to it.
equal = r == kth
chosen = (r < kth) | (equal & (np.cumsum(equal) - equal < remaining))
indices = np.flatnonzero(chosen)  # in index order
indices = indices[np.argsort(r[indices], kind="stable")]  # a sort of k, not n: best first
print(f"the k-th largest is {x[indices[-1]]:.2f}: {remaining} of its {equal.sum()} copies taken, the first ones")
print("best 4:", x[indices[:4]], "at", indices[:4])
expected = np.lexsort((np.arange(len(x)), r))[:k]  # sort everything by (rank, index), take k
print("the same as sorting everything (indices, values):", np.array_equal(indices, expected),
      np.array_equal(x[indices], np.sort(x)[::-1][:k]))
