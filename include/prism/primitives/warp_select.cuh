// SPDX-License-Identifier: Apache-2.0
#pragma once
// A warp's best k of a stream of candidates: the queue of the one-pass top-k for small k
// (<prism/top_k.cuh>, fused_select). A candidate is a (rank, position) pair, the smaller rank
// first and of equal ranks the smaller position: a total order, so "the best k" is one set whatever
// order the candidates come in, and the best k of a union is among the best k of its parts.
//
// The warp keeps its best k so far sorted in shared memory, and the k-th of them as a limit in
// registers. Every lane offers one candidate at a time; one that does not beat the limit costs a
// comparison and a vote, nothing else. Those that do go to a buffer of 32, and when it would
// overflow the warp merges it into the list: each candidate's new place is the number of
// candidates before it, counted in the other list (a binary search in the sorted list, a scan of
// the 32 of the buffer) and added to its place in its own, so no sort is needed, and the places
// past k are dropped. For n values in random order, the j-th element beats the k best of those
// before it with probability about k/j: a warp that sees m elements merges about (k/32) ln(m/k)
// times, and almost every element is one read and one comparison. Input already ordered towards
// the best is the worst case: every element enters the buffer, a merge every 32 (still correct).
// FAISS's WarpSelect (Johnson, Douze and Jegou, 2017) is the same idea with the list in registers.
#include <prism/primitives/device_std.cuh>

namespace prism::detail {

// The largest k the queue serves: its shared memory is (2k + 32) candidates a warp.
inline constexpr unsigned warp_select_max_k = 128;

template <class U>
__host__ __device__ inline bool ranked_before(U rank_a, std::uint64_t position_a, U rank_b, std::uint64_t position_b) {
  return rank_a < rank_b || (rank_a == rank_b && position_a < position_b);
}

template <class U>
class warp_queue {
 public:
  // The shared memory of one warp's queue: two lists of k (the merge writes one from the other)
  // and the buffer of 32, positions first (8-byte aligned) then ranks.
  __host__ __device__ static constexpr std::size_t bytes(unsigned k) {
    return (2 * std::size_t{k} + 32) * (sizeof(std::uint64_t) + sizeof(U));
  }

  __device__ warp_queue(void* memory, unsigned k)
      : positions_(list_positions(memory, k)), ranks_(list_ranks(memory, k)), k_(k) {}

  // A lane's quick test, before offering, of a candidate that comes after every one offered so far
  // in position (a warp reading its elements in index order): a tie with the limit loses on
  // position, so the rank alone decides, and while the list is filling everything may enter. A
  // filter only: offer() decides.
  __device__ bool may_enter(U rank) const { return rank < limit_rank_ || held_ < k_; }

  // Every lane of the warp calls it, each with one candidate or none (`valid` false).
  __device__ void offer(bool valid, U rank, std::uint64_t position) {
    const bool in = valid && ranked_before(rank, position, limit_rank_, limit_position_);
    const unsigned votes = __ballot_sync(~0u, in);
    if (votes == 0) return;
    const unsigned count = __popc(votes);
    if (buffered_ + count > 32) merge();
    if (in) {
      const unsigned at = buffered_ + __popc(votes & ((1u << lane()) - 1));
      ranks_[2 * k_ + at] = rank;
      positions_[2 * k_ + at] = position;
    }
    buffered_ += count;
  }

  // The queue's memory m: lists 0 and 1 (k each) then the buffer (32), positions first, then ranks.
  // write(list_ranks(m, k), list_positions(m, k)) puts a queue's list over the start of its own
  // memory (write reads each slot at or past the one it writes, so that is safe).
  __host__ __device__ static std::uint64_t* list_positions(void* memory, unsigned) {
    return static_cast<std::uint64_t*>(memory);
  }
  __host__ __device__ static U* list_ranks(void* memory, unsigned k) {
    return reinterpret_cast<U*>(static_cast<std::uint64_t*>(memory) + 2 * k + 32);
  }

  // The best k, best first, into ranks[0, k) and positions[0, k); slots past what the warp was
  // offered get (the largest rank, the largest position): after every real candidate.
  __device__ void write(U* ranks, std::uint64_t* positions) {
    if (buffered_ != 0) merge();
    const U* r = ranks_ + current_ * k_;
    const std::uint64_t* p = positions_ + current_ * k_;
    for (unsigned j = lane(); j < k_; j += 32) {
      ranks[j] = j < held_ ? r[j] : U(~U(0));
      positions[j] = j < held_ ? p[j] : ~std::uint64_t{0};
    }
  }

 private:
  static __device__ unsigned lane() { return threadIdx.x % 32; }

  // The number of buffered candidates before (rank, position).
  __device__ unsigned buffered_before(U rank, std::uint64_t position) const {
    unsigned before = 0;
    const U* r = ranks_ + 2 * k_;
    const std::uint64_t* p = positions_ + 2 * k_;
#pragma unroll 1
    for (unsigned t = 0; t < buffered_; ++t) before += ranked_before(r[t], p[t], rank, position);
    return before;
  }

  // The list and the buffer merged into the other list, its first k kept. Rare: out of line, so
  // that the pass's registers are the reading loop's.
  __device__ __noinline__ void merge() {
    __syncwarp();  // every lane's buffered candidate written
    const U* from_rank = ranks_ + current_ * k_;
    const std::uint64_t* from_position = positions_ + current_ * k_;
    U* to_rank = ranks_ + (current_ ^ 1) * k_;
    std::uint64_t* to_position = positions_ + (current_ ^ 1) * k_;
    const unsigned total = held_ + buffered_ < k_ ? held_ + buffered_ : k_;
    if (lane() < buffered_) {
      const U r = ranks_[2 * k_ + lane()];
      const std::uint64_t p = positions_[2 * k_ + lane()];
      unsigned lo = 0, hi = held_;  // the list's candidates before it
#pragma unroll 1
      while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        if (ranked_before(from_rank[mid], from_position[mid], r, p)) lo = mid + 1;
        else hi = mid;
      }
      const unsigned place = lo + buffered_before(r, p);
      if (place < total) {
        to_rank[place] = r;
        to_position[place] = p;
      }
    }
#pragma unroll 1
    for (unsigned j = lane(); j < held_ && j < total; j += 32) {  // a list candidate only moves back
      const U r = from_rank[j];
      const std::uint64_t p = from_position[j];
      const unsigned place = j + buffered_before(r, p);
      if (place < total) {
        to_rank[place] = r;
        to_position[place] = p;
      }
    }
    __syncwarp();  // the new list written, the buffer read
    current_ ^= 1;
    held_ = total;
    buffered_ = 0;
    if (held_ == k_) {
      limit_rank_ = to_rank[k_ - 1];
      limit_position_ = to_position[k_ - 1];
    }
  }

  // List l at positions_ + l k and ranks_ + l k; the buffer at 2 k (list_positions says the layout).
  std::uint64_t* positions_;
  U* ranks_;
  unsigned k_, held_ = 0, buffered_ = 0, current_ = 0;
  // The k-th best so far (every candidate passes until the list holds k).
  U limit_rank_ = U(~U(0));
  std::uint64_t limit_position_ = ~std::uint64_t{0};
};

// A block's best k from its warps' queues. `memory` holds Warps + 1 queues' memory (block_bytes),
// `queue` is the calling warp's (in region warp); every thread of the block calls it. Each warp's
// list goes over the start of its region, then warp 0 offers them all to a queue in the last
// region and leaves the block's best k at its list_ranks and list_positions (seen by warp 0).
template <class U, unsigned Warps>
struct block_queues {
  __host__ __device__ static constexpr std::size_t block_bytes(unsigned k) {
    return (Warps + 1) * warp_queue<U>::bytes(k);
  }
  __device__ static unsigned char* region(void* memory, unsigned w, unsigned k) {
    return static_cast<unsigned char*>(memory) + w * warp_queue<U>::bytes(k);
  }
  __device__ static void best(warp_queue<U>& queue, void* memory, unsigned k) {
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const auto ranks = [&](unsigned w) { return warp_queue<U>::list_ranks(region(memory, w, k), k); };
    const auto positions = [&](unsigned w) { return warp_queue<U>::list_positions(region(memory, w, k), k); };
    queue.write(ranks(warp), positions(warp));
    __syncthreads();
    if (warp != 0) return;
    warp_queue<U> all(region(memory, Warps, k), k);
    for (unsigned w = 0; w < Warps; ++w) {
      for (unsigned j0 = 0; j0 < k; j0 += 32) {
        const unsigned j = j0 + lane;
        const bool valid = j < k;
        all.offer(valid, valid ? ranks(w)[j] : U(0), valid ? positions(w)[j] : 0);
      }
    }
    all.write(ranks(Warps), positions(Warps));
    __syncwarp();
  }
  // The block's best k after best(), in warp 0.
  __device__ static const U* best_ranks(void* memory, unsigned k) {
    return warp_queue<U>::list_ranks(region(memory, Warps, k), k);
  }
  __device__ static const std::uint64_t* best_positions(void* memory, unsigned k) {
    return warp_queue<U>::list_positions(region(memory, Warps, k), k);
  }
};

}  // namespace prism::detail
