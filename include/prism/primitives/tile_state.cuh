// SPDX-License-Identifier: Apache-2.0
#pragma once
// Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016): how the tiles of a single-pass scan learn what came before them without a
// second pass over the input.
//
// Every tile has a state: nothing yet (invalid), its own aggregate (the combination of its
// elements alone), or its inclusive prefix (the combination of every element up to its end). A
// tile publishes its aggregate as soon as it has reduced its elements, then looks back over its
// predecessors, 32 at a time (one per lane of a warp): it combines their aggregates until it meets
// one that has published an inclusive prefix, and publishes its own inclusive prefix at once. A
// tile waits only while a predecessor has published nothing, and publishing the aggregate first
// means no tile ever waits for more than a predecessor's load and reduce.
//
// Two ways to store a state:
//   packed  value and status in one 64-bit word, written and read with single 64-bit accesses:
//           never torn, so no fence is needed between the value and its status. For values of
//           at most 4 bytes, and for types that say they fit in 62 bits (a 64-bit count below
//           2^62, a 32-bit value with a one-bit flag): `to_bits()` and `from_bits()`.
//   split   a status word and two value slots (the aggregate and the inclusive prefix), the value
//           stored before the status with release semantics and read after it with acquire
//           semantics. Two slots, because a reader that has seen "aggregate" must not read the
//           inclusive prefix the owner may be writing over it meanwhile.
// The states must read "invalid" when the kernel starts: the caller zeroes them (cudaMemsetAsync)
// before each launch; prism does that because its scratch is reused by every algorithm on a stream
// and holds anything when a call begins. Tiles take their index from an atomic ticket in the order
// they start (not blockIdx.x), so every tile a block waits for is running already: the look-back
// cannot deadlock, whatever order the hardware schedules blocks in.
#include <prism/primitives/block_scan.cuh>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace prism::detail {

enum tile_status : unsigned { tile_invalid = 0, tile_aggregate = 1, tile_prefix = 2 };

// How a value fits a packed state (the low 62 bits of the word; the status takes the top two).
template <class V>
struct tile_word {
  static constexpr bool packed = false;
};

template <class V>
  requires(std::is_trivially_copyable_v<V> && sizeof(V) <= 4)
struct tile_word<V> {
  static constexpr bool packed = true;
  __device__ static std::uint64_t to_bits(const V& v) {
    std::uint32_t bits = 0;
    memcpy(&bits, &v, sizeof(V));
    return bits;
  }
  __device__ static V from_bits(std::uint64_t bits) {
    const auto low = static_cast<std::uint32_t>(bits);
    V v;
    memcpy(&v, &low, sizeof(V));
    return v;
  }
};

template <class V>
  requires requires(const V& v, std::uint64_t bits) {
    { v.to_bits() } -> std::same_as<std::uint64_t>;
    { V::from_bits(bits) } -> std::same_as<V>;
  }
struct tile_word<V> {
  static constexpr bool packed = true;
  __device__ static std::uint64_t to_bits(const V& v) { return v.to_bits(); }
  __device__ static V from_bits(std::uint64_t bits) { return V::from_bits(bits); }
};

// A tile's number: tickets taken in the order tiles start, so that every tile one waits for in its
// look-back is running. Thread 0 takes it; it is seen after the next __syncthreads. The last tile
// to take one puts the counter back to zero for the next launch.
__device__ inline void take_ticket(unsigned* ticket, unsigned tiles, unsigned& tile_ticket) {
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(ticket, 1u);
    if (t == tiles - 1) *ticket = 0;
    tile_ticket = t;
  }
}

// A count of elements kept (by a selection, a set operation): 64 bits, past 2^32 elements, packed
// below 2^62.
struct kept_count {
  std::uint64_t value;
  __device__ std::uint64_t to_bits() const { return value; }
  __device__ static kept_count from_bits(std::uint64_t bits) { return {bits}; }
};
struct add_counts {
  __device__ kept_count operator()(kept_count a, kept_count b) const { return {a.value + b.value}; }
};

// The states of `tiles` tiles in memory the caller owns: bytes(tiles) of it, 16-byte aligned,
// zeroed before each launch.
template <class V>
class tile_state {
 public:
  static constexpr bool packed = tile_word<V>::packed;
  static constexpr std::uint64_t value_mask = (std::uint64_t{1} << 62) - 1;

  static std::size_t bytes(std::size_t tiles) {
    if constexpr (packed) {
      return tiles * sizeof(std::uint64_t);
    } else {
      return round16(tiles * sizeof(unsigned)) + 2 * round16(tiles * sizeof(slot));
    }
  }
  // The bytes that must be zero at the launch: the status words only.
  static std::size_t status_bytes(std::size_t tiles) {
    if constexpr (packed) {
      return tiles * sizeof(std::uint64_t);
    } else {
      return tiles * sizeof(unsigned);
    }
  }

  tile_state() = default;
  tile_state(void* memory, std::size_t tiles) {
    auto* bytes = static_cast<unsigned char*>(memory);
    if constexpr (packed) {
      words_ = reinterpret_cast<std::uint64_t*>(bytes);
    } else {
      status_ = reinterpret_cast<unsigned*>(bytes);
      aggregates_ = reinterpret_cast<slot*>(bytes + round16(tiles * sizeof(unsigned)));
      prefixes_ = reinterpret_cast<slot*>(bytes + round16(tiles * sizeof(unsigned)) +
                                          round16(tiles * sizeof(slot)));
    }
  }

  // Called by one thread. `status` is tile_aggregate or tile_prefix.
  __device__ void publish(std::size_t tile, tile_status status, const V& value) const {
    if constexpr (packed) {
      const std::uint64_t word = (std::uint64_t{status} << 62) | (tile_word<V>::to_bits(value) & value_mask);
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile])
          .store(word, cuda::std::memory_order_relaxed);
    } else {
      slot* s = (status == tile_prefix ? prefixes_ : aggregates_) + tile;
      unsigned w[sizeof(slot) / 4] = {};
      memcpy(w, &value, sizeof(V));
#pragma unroll
      for (int i = 0; i < int(sizeof(slot) / 4); ++i) __stcg(reinterpret_cast<unsigned*>(s) + i, w[i]);
      // Release: the value above is visible to any thread that reads this status with acquire.
      cuda::atomic_ref<unsigned, cuda::thread_scope_device>(status_[tile])
          .store(status, cuda::std::memory_order_release);
    }
  }

  // The tile's status and, unless invalid, its value.
  __device__ tile_status read(std::size_t tile, V& value) const {
    if constexpr (packed) {
      const std::uint64_t word = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile])
                                     .load(cuda::std::memory_order_relaxed);
      value = tile_word<V>::from_bits(word & value_mask);
      return static_cast<tile_status>(word >> 62);
    } else {
      const auto status = static_cast<tile_status>(
          cuda::atomic_ref<unsigned, cuda::thread_scope_device>(status_[tile])
              .load(cuda::std::memory_order_acquire));
      if (status != tile_invalid) {
        const slot* s = (status == tile_prefix ? prefixes_ : aggregates_) + tile;
        unsigned w[sizeof(slot) / 4];
#pragma unroll
        for (int i = 0; i < int(sizeof(slot) / 4); ++i) w[i] = __ldcg(reinterpret_cast<const unsigned*>(s) + i);
        memcpy(&value, w, sizeof(V));
      }
      return status;
    }
  }

 private:
  struct alignas(4) slot {
    unsigned char bytes[(sizeof(V) + 3) / 4 * 4];
  };
  static constexpr std::size_t round16(std::size_t b) { return (b + 15) / 16 * 16; }

  std::uint64_t* words_ = nullptr;
  unsigned* status_ = nullptr;
  slot* aggregates_ = nullptr;
  slot* prefixes_ = nullptr;
};

// The combination, in order, of every tile before `tile` (tile > 0; tile 0 publishes its
// inclusive prefix without looking back). Called by the 32 lanes of one warp; the result is valid
// in every lane. Lane l watches tile (end - 1 - l) of a window of 32 that moves back until a tile
// in it has published its inclusive prefix.
template <class V, class Op>
__device__ V look_back(const tile_state<V>& state, std::size_t tile, Op op) {
  const int lane = threadIdx.x % 32;
  maybe<V> found{V{}, false};  // the tiles after the current window, combined
  long long end = static_cast<long long>(tile);
  for (;;) {
    const long long mine = end - 1 - lane;
    V value{};
    tile_status status = mine >= 0 ? state.read(mine, value) : tile_prefix;
    // Wait until every tile of the window has published something.
    while (__any_sync(0xFFFFFFFFu, status == tile_invalid)) {
      if (status == tile_invalid) status = state.read(mine, value);
    }
    const unsigned prefixes = __ballot_sync(0xFFFFFFFFu, status == tile_prefix && mine >= 0);
    const int last = prefixes != 0 ? __ffs(prefixes) - 1 : 31;  // the nearest inclusive prefix
    const V window = shuffle_index(warp_reverse_reduce(value, last, op), 0);
    found = {combine(maybe<V>{window, true}, found, op).value, true};
    if (prefixes != 0) return found.value;
    end -= 32;
  }
}

// A tile's part in the look-back once its aggregate is known (tile > 0; tile 0 publishes its
// inclusive prefix at once): publishes the aggregate, looks back, publishes the inclusive prefix,
// and returns the combination of every tile before it. Called by the 32 lanes of one warp; the
// result is valid in every lane.
template <class V, class Op>
__device__ V publish_and_look_back(const tile_state<V>& state, std::size_t tile, const V& aggregate, Op op) {
  const bool leader = threadIdx.x % 32 == 0;
  if (leader) state.publish(tile, tile_aggregate, aggregate);
  const V exclusive = look_back(state, tile, op);
  if (leader) state.publish(tile, tile_prefix, op(exclusive, aggregate));
  return exclusive;
}

}  // namespace prism::detail
