// SPDX-License-Identifier: Apache-2.0
#pragma once
// The tile of the raw merges and set operations of <prism/merge.cuh> (moderngpu's kernel_merge):
// where each tile's outputs start in the two inputs (a merge path search along the tile's first
// diagonal, <prism/primitives/merge_path.cuh>), and its two input ranges brought into shared
// memory, by the threads or by the copy engine.
#include <prism/primitives/launch.cuh>
#include <prism/primitives/merge_path.cuh>

#include <cuda/ptx>
#include <cuda/std/algorithm>
#include <cuda_pipeline_primitives.h>
#include <nv/target>

#include <cstddef>
#include <cstdint>

namespace prism::detail {

// The tile: block_size threads x merge_items elements (<prism/primitives/merge_path.cuh>).
// Threads and Items below say the tile's shape where a kernel takes others (bench_merge's
// raw_<threads>x<items> rows); every call of the library uses the defaults.

// Where tile t's outputs start in a: merge path at the diagonal t * tile, for every t <= tiles.
template <class T, class Comp, unsigned Tile = merge_tile<T>>
__global__ void merge_partition_kernel(const T* a, std::size_t a_n, const T* b, std::size_t b_n, std::size_t tiles,
                                       std::size_t* partitions, Comp comp) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t > tiles) return;
  const std::size_t diagonal = cuda::std::min(t * Tile, a_n + b_n);
  partitions[t] = merge_path(a, a_n, b, b_n, diagonal, comp);
}

// Tile t's two ranges, as the partitions give them: a[a0, a0 + an) and b[b0, b0 + bn), loaded
// into s[a_at, a_at + an) and s[b_at, b_at + bn) with coalesced reads: a_at = 0 and b_at = an (the
// two side by side) but where the copy engine loads them (tile_load::bulk, below).
struct tile_ranges {
  std::size_t first;  // the tile's first output
  std::size_t a0, b0;
  unsigned an, bn;
  unsigned a_at, b_at;
};

// How a tile reaches shared memory. registers: each thread loads its elements, then stores them.
// async: each element copied by the copy engine of sm_80 and later (cp.async, elements of 4, 8 or
// 16 bytes), not through registers. bulk: each range by one bulk copy of Hopper's copy engine
// (cp.async.bulk, sm_90: CUB's DeviceMerge loads so there) of its 16-byte-aligned middle, its
// unaligned ends (under 16 bytes each) by threads; a range lands at its own offset within 16 bytes,
// so a_at and b_at leave up to 15 bytes before each (elements of 4, 8 or 16 bytes; elsewhere, and
// before sm_90, registers). The caller's __syncthreads() after the call finds the tile in place.
enum class tile_load { registers, async, bulk };

// What the copy engine moves, by either copy: elements of 4, 8 or 16 bytes aligned to their size.
template <class T>
inline constexpr bool copy_engine_moves =
    (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) && alignof(T) == sizeof(T);

// The room a tile of `Tile` elements needs in shared memory: with tile_load::bulk, each range's
// offset (under 16 bytes) and the rounding of b's start up to a 16-byte line.
template <class T, unsigned Tile, tile_load Load>
inline constexpr unsigned tile_room = Load == tile_load::bulk ? Tile + 3 * (16 / sizeof(T)) : Tile;

// A range of n elements bound for shared memory at `room` (16-byte aligned) by tile_load::bulk:
// it lands `offset` elements past room, at the same place within 16 bytes as in global memory, so
// that its aligned middle goes by one bulk copy; the `head` before it and the tail after it (under
// 16 bytes each) go through the threads.
template <class T>
struct bulk_range {
  static constexpr unsigned line = 16 / sizeof(T);
  const T* from;
  T* at;
  unsigned n, offset, head, middle;

  __device__ bulk_range(const T* from, unsigned n, T* room) : from(from), n(n) {
    offset = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(from) % 16) / sizeof(T);
    head = cuda::std::min(offset == 0 ? 0u : line - offset, n);
    middle = (n - head) / line * line;
    at = room + offset;
  }
  // Thread 0: the middle, counted in by `arrived`. Every thread: its element of the ends, if any
  // (threads [first, first + line) the head, the next line of threads the tail).
  __device__ void copy(std::uint64_t* arrived, unsigned first) const {
    if (threadIdx.x == 0 && middle > 0)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, at + head, from + head,
                               static_cast<std::uint32_t>(middle * sizeof(T)), arrived);
    const unsigned e = threadIdx.x - first;  // wraps below first: no element
    const unsigned tail = n - head - middle;
    if (e < head) at[e] = from[e];
    if (e - line < tail) at[head + middle + (e - line)] = from[head + middle + (e - line)];
  }
};

template <class T, unsigned Threads = block_size, unsigned Items = merge_items<T>, tile_load Load = tile_load::registers>
__device__ tile_ranges load_tile(std::size_t t, const T* a, std::size_t a_n, const T* b, std::size_t b_n,
                                 const std::size_t* partitions, T* s) {
  constexpr unsigned tile = Threads * Items;
  const std::size_t d0 = t * tile, d1 = cuda::std::min(d0 + tile, a_n + b_n);
  const std::size_t a0 = partitions[t], a1 = partitions[t + 1];
  const unsigned an = static_cast<unsigned>(a1 - a0), bn = static_cast<unsigned>((d1 - a1) - (d0 - a0));
  tile_ranges r{d0, a0, d0 - a0, an, bn, 0, an};
  constexpr unsigned vt = Items;
  const unsigned count = r.an + r.bn;
  constexpr bool bulk_copies = Load == tile_load::bulk && copy_engine_moves<T> && Threads >= 128;
  if constexpr (bulk_copies) {
    NV_IF_TARGET(NV_PROVIDES_SM_90, ({
                   // One phase of one barrier: one arrival (thread 0's, with the bytes to expect),
                   // then the bytes.
                   __shared__ std::uint64_t arrived;
                   if (threadIdx.x == 0) {
                     cuda::ptx::mbarrier_init(&arrived, 1);
                     cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
                   }
                   __syncthreads();
                   // a's range from s[0], b's from the 16-byte line after a's.
                   const bulk_range<T> in_a(a + r.a0, r.an, s);
                   const unsigned b_room =
                       (in_a.offset + r.an + bulk_range<T>::line - 1) / bulk_range<T>::line * bulk_range<T>::line;
                   const bulk_range<T> in_b(b + r.b0, r.bn, s + b_room);
                   if (threadIdx.x == 0) {  // the phase's one arrival, with the bytes the copies will bring
                     cuda::ptx::mbarrier_arrive_expect_tx(
                         cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &arrived,
                         static_cast<std::uint32_t>((in_a.middle + in_b.middle) * sizeof(T)));
                   }
                   in_a.copy(&arrived, 32);
                   in_b.copy(&arrived, 64);
                   r.a_at = in_a.offset;
                   r.b_at = b_room + in_b.offset;
                   while (!cuda::ptx::mbarrier_try_wait_parity(&arrived, 0u)) {
                   }
                   return r;
                 }));
  }
  if constexpr (Load == tile_load::async) {
    static_assert(copy_engine_moves<T>, "cp.async copies 4, 8 or 16 bytes from and to addresses of that alignment");
#pragma unroll
    for (unsigned k = 0; k < vt; ++k) {
      const unsigned i = threadIdx.x + k * Threads;
      if (i < count) __pipeline_memcpy_async(s + i, i < r.an ? a + r.a0 + i : b + r.b0 + (i - r.an), sizeof(T));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  } else {
    // All vt loads of a thread are issued before the first store to shared memory: a loop that
    // stored each element as it arrived would wait out a global memory latency per element, and
    // the kernel would be latency-bound (docs/benchmarks/merge.md, lesson_tile_staged against raw).
    T x[vt];
#pragma unroll
    for (unsigned k = 0; k < vt; ++k) {
      const unsigned i = threadIdx.x + k * Threads;
      if (i < count) x[k] = i < r.an ? a[r.a0 + i] : b[r.b0 + (i - r.an)];
    }
#pragma unroll
    for (unsigned k = 0; k < vt; ++k) {
      const unsigned i = threadIdx.x + k * Threads;
      if (i < count) s[i] = x[k];
    }
  }
  return r;
}

}  // namespace prism::detail
