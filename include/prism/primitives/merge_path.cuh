// SPDX-License-Identifier: Apache-2.0
#pragma once
// Merge path (Green, McColl and Bader, 2012; moderngpu's vocabulary): where the first `diagonal`
// outputs of merging two sorted arrays come from. The merge of a[0, a_n) and b[0, b_n) is a path
// through the a_n x b_n grid from the top left to the bottom right, one step right or down per
// output; the k-th diagonal of the grid crosses it once, and a binary search along that diagonal
// finds the crossing. Every thread (or tile) of a merge finds its own start this way, so all of
// them write exactly as many outputs and none waits for another: the merge sort of <prism/sort.cuh>
// and the merges and set operations of <prism/merge.cuh> share it.
#include <prism/primitives/launch.cuh>

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace prism::detail {

// Elements each thread of a block_size tile of <prism/merge.cuh> merges: 15 of up to 4 bytes, 7
// of 8, 3 of 16, 1 wider, so a tile stays within 16 KiB of shared memory. Always an odd count:
// thread t's outputs go to shared memory at t * items + k, and with an even count (8) a warp's 32
// stores would fall in 4 of the 32 banks, 8 passes each; t * 15 covers every bank once
// (moderngpu's rule; docs/benchmarks/merge.md, "The odd tile").
template <class T>
inline constexpr unsigned merge_items = sizeof(T) <= 4 ? 15 : sizeof(T) <= 8 ? 7 : sizeof(T) <= 16 ? 3 : 1;
template <class T>
inline constexpr unsigned merge_tile = block_size * merge_items<T>;

// N elements of T in shared memory, as bytes: T needs no default constructor.
template <class T, std::size_t N>
struct shared_elements {
  alignas(16) unsigned char bytes[N * sizeof(T)];
  __device__ T* data() { return reinterpret_cast<T*>(bytes); }
};

// How many of a[0, a_n) are among the first `diagonal` outputs of merge(a, b), where a's element
// goes first when a and b compare equal (stable). A binary search along the diagonal, in positions
// of type I: unsigned within a tile, where 64-bit arithmetic would double each step's instructions.
template <class I = std::size_t, class A, class B, class Comp>
__device__ I merge_path(const A* a, std::type_identity_t<I> a_n, const B* b, std::type_identity_t<I> b_n,
                        std::type_identity_t<I> diagonal, Comp comp) {
  I lo = diagonal > b_n ? diagonal - b_n : 0, hi = diagonal < a_n ? diagonal : a_n;
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (comp(b[diagonal - 1 - mid], a[mid])) {
      hi = mid;  // b's element goes before a[mid]: fewer of a
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace prism::detail
