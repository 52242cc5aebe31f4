// SPDX-License-Identifier: Apache-2.0
#pragma once
// impl::raw of the radix sort: a one-sweep LSD radix sort (Adinets and Merrill, "Onesweep: A
// Faster Least Significant Digit Radix Sort for GPUs", 2022) with two pass kernels: the ranked
// pass (tile_pass_kernel, stage 4 of the sort lesson, algorithms/sort/lesson.cuh; its tile ranking
// is stage 3's too), described first below, and stage 5's, which counts a tile's digits before it
// ranks them, as CUB's Onesweep does (early_counts_pass_kernel; raw's pass for 4-byte keys:
// early_pass, below).
//
// An LSD radix sort sorts by one digit at a time, the least significant first; each pass is a
// stable partition by the digit, so after the last pass the keys are in order. With 8-bit digits a
// 32-bit key takes 4 passes, a 64-bit key 8. Where a key goes in a pass is
//     (keys of smaller digits, everywhere) + (keys of its digit in earlier tiles) + (its rank among
//     keys of its digit in its own tile).
// The first term needs a histogram of the whole array per pass: the digit of every pass is known
// from the start, so ONE counting kernel reads the keys once and counts all passes' digits
// (digit_histogram_kernel), and a tiny kernel scans them (digit_base_kernel). The second term is
// what a classic radix sort learns by a counting pass per digit (read n) and a scan, before its
// scatter pass (read n, write n): 3n per pass. Onesweep learns it inside the scatter pass itself,
// by decoupled look-back: each tile publishes its count of each of the 256 digits as soon as it has
// ranked its keys, and then walks back over its predecessors' published counts (one thread per
// digit) until it meets an inclusive prefix. 2n per pass.
//
// A tile is 256 threads x 16 keys (4-byte keys; 8 for 8-byte keys; fewer for keys or values
// wider than 8 bytes, so that a tile of them fits 32 KB of shared memory). Ranking within the tile
// is done warp by warp: for each of its keys, a warp finds the lanes holding the same digit (eight
// ballots, one per digit bit: faster overall than __match_any_sync, which waits in line with
// shared memory, in docs/benchmarks/sort.md's H200 row sort/uint32/raw, then this pass), the
// lowest of them adds the group's size to the warp's counter of that
// digit in shared memory, and each lane's rank is the counter before the add plus the lanes of
// its group below it. Keys are loaded warp-striped (key i of lane l of warp w is element
// w*32*16 + i*32 + l of the tile), so ranks in (warp, key, lane) order are ranks in element order:
// stable. The tile's keys are then written to shared memory in their sorted-by-digit order, and
// read back in order: consecutive threads write consecutive positions of each digit's run in the
// output (coalesced where runs are long), instead of each key jumping to its own place.
//
// Counts in the look-back words are 30 bits (2 bits say: nothing yet, a tile's own count, an
// inclusive prefix): the array is sorted in portions of fewer than 2^30 elements, one launch per
// portion and pass; where each digit of each portion starts is computed in 64 bits by the
// base kernel, so arrays past 2^32 elements sort (one portion for arrays up to 2^30 - 4096).
//
// Which digit a key has in a pass is the `Order`'s (<prism/primitives/radix_order.cuh>): the
// standard keys' ordered bits, or a caller's key's fields' ordered bits side by side. Keys are
// moved as they are; only digits use the order. An even number of passes ends in the output by
// itself (below); an odd one (a 5-byte key, say) makes the first pass write the output, and an
// in-place sort then copies its input aside first.
#include <prism/dispatch.cuh>
#include <prism/error.hpp>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/primitives/tile_state.cuh>
#include <prism/scratch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism::detail::radix {

inline constexpr unsigned threads = 256;  // per block: one thread per digit where needed
static_assert(threads == radix && threads == block_size);

// Keys per thread: 16 of 4 bytes (a tile of 4096), 8 of 8 bytes. More keys per thread amortize the
// look-back and the per-tile work over more bytes; 16 is where CUB's onesweep tuning for 4-byte
// keys sits too. Wider keys or values take fewer, a power of two, so that a tile of the wider of
// the two fits the 32 KB exchange buffer (beside the kernel's 11 KB of counters, under the 48 KB
// of static shared memory): 8 of 16 bytes, 4 of 32, 1 of up to 128; wider ones are not sorted.
inline constexpr std::size_t exchange_bytes = 32 * 1024;
template <class Key, class V>
constexpr unsigned items_per_thread_of() {
  const std::size_t widest = sizeof(Key) > sizeof(V) ? sizeof(Key) : sizeof(V);
  unsigned items = sizeof(Key) <= 4 ? 16 : 8;
  while (items > 0 && std::size_t{threads} * items * widest > exchange_bytes) items /= 2;
  return items;
}
template <class Key, class V>
inline constexpr unsigned items_per_thread = items_per_thread_of<Key, V>();
template <class Key, class V>
inline constexpr unsigned tile_items = threads * items_per_thread<Key, V>;
// Whether the kernels take keys and values of these sizes.
template <class Key, class V>
inline constexpr bool onesweep_sorts = items_per_thread<Key, V> > 0;

// Which pass raw's sorts run: the early-counts pass (early_counts_pass_kernel, stage 5 of the
// lesson) for 4-byte keys with 4-byte values (Carry) or none, where it was measured against the
// ranked pass (tile_pass_kernel, stage 4): faster at every tile size (docs/benchmarks/sort.md, "The
// early-counts pass"); without values in blocks of 256 at 24 keys a thread (sort/uint32/early_24),
// with values in blocks of 384 at 16 (sort_by_key/uint32/early_384x16, "Tiles of 384 threads").
// Other sizes keep the ranked pass until measured with the other.
template <class Key, class V, bool Carry>
inline constexpr bool early_pass = sizeof(Key) == 4 && (!Carry || sizeof(V) == 4);
template <class Key, class V, bool Carry>
inline constexpr unsigned pass_items = !early_pass<Key, V, Carry> ? items_per_thread<Key, V> : Carry ? 16 : 24;
template <class Key, class V, bool Carry>
inline constexpr unsigned pass_threads = early_pass<Key, V, Carry> && Carry ? 384 : threads;

// Look-back words: the status in the top 2 bits, a count below 2^30.
inline constexpr unsigned status_aggregate = 1u << 30;
inline constexpr unsigned status_prefix = 2u << 30;
inline constexpr unsigned count_mask = (1u << 30) - 1;

// Everything one launch of the tile kernel needs: one pass over the portion [begin, begin + count).
template <class Key, class V, class Order>
struct pass_args {
  const Key* keys_in;
  Key* keys_out;
  const V* values_in;  // null: no values, unless `indices`
  V* values_out;       // null: keys only
  bool indices;        // the values are the elements' positions (argsort's first pass)
  std::size_t begin, count;
  Order order;
  unsigned pass;       // the digit: bits [8 pass, 8 pass + 8) of the ordered key
  // Onesweep: where each digit of this portion starts in the output (256 values), the look-back
  // words (tiles x 256, zeroed), and the ticket counter (zero, left zero).
  const unsigned long long* digit_base;
  const unsigned* one_digit;  // SkipOneDigit (below): nonzero if one digit holds every key this pass
  unsigned* states;
  unsigned* ticket;
  // Stage 3 of the lesson: where each (digit, tile) starts, digit-major, from a counting pass.
  const unsigned* tile_offsets;
  unsigned tiles;

  __device__ unsigned digit(const Key& key) const { return order.digit(key, pass); }
  // Element e's value: its position where `indices` (a caller's value type never is one).
  __device__ V value(std::size_t e) const {
    if constexpr (std::is_integral_v<V>) {
      return indices ? static_cast<V>(e) : values_in[e];
    } else {
      return values_in[e];
    }
  }
};

// The look-back of one digit (one thread per digit), in two halves. publish_count: the tile's
// count of the digit, as soon as it is known (tile 0's is already an inclusive prefix). walk_back:
// adds up the predecessors' counts back to the nearest inclusive prefix and publishes the tile's
// own; the sum is where the tile's keys of the digit start among the portion's. Counts only travel
// in the words themselves (value and status in one 32-bit store), so relaxed accesses do. They are
// written in PTX with the global space named: cuda::atomic_ref on a plain pointer tests every
// access for local memory (libcu++'s way with atomics on a thread's stack), and the registers of
// those tests made the pairs' pass spill 8 bytes a thread at its 56 (docs/benchmarks/sort.md,
// "Passes of one digit copied apart").
__device__ inline unsigned load_state(const unsigned* word) {
  unsigned w;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(w) : "l"(word) : "memory");
  return w;
}
__device__ inline void store_state(unsigned* word, unsigned w) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" : : "l"(word), "r"(w) : "memory");
}

__device__ inline void publish_count(unsigned* states, unsigned tile, unsigned d, unsigned count) {
  store_state(states + std::size_t(tile) * radix + d, (tile == 0 ? status_prefix : status_aggregate) | count);
}

__device__ inline unsigned walk_back(unsigned* states, unsigned tile, unsigned d, unsigned count) {
  if (tile == 0) return 0;
  unsigned exclusive = 0;
  for (unsigned j = tile - 1;; --j) {
    const unsigned* theirs = states + std::size_t(j) * radix + d;
    unsigned w;
    do {
      w = load_state(theirs);
    } while ((w & ~count_mask) == 0);
    exclusive += w & count_mask;
    if (w & status_prefix) break;
  }
  store_state(states + std::size_t(tile) * radix + d, status_prefix | (exclusive + count));
  return exclusive;
}

// The lanes of `among` whose key has the same digit as this lane's: one ballot per digit bit, each
// keeping the lanes that agree with this lane on that bit. __match_any_sync says the same in one
// instruction, but it queues with the shared-memory accesses the ranking is full of (ncu: most
// stalls waited there); ballots do not. Each bit is one predicate, set once and used twice: for
// the ballot, and to complement the ballot where this lane's bit is 0. Written in C++ (a bool
// for the ballot, a select on it), the compiler tested the bit twice and selected a mask: 7
// instructions a bit against 4 (docs/benchmarks/sort.md, "Fewer instructions a key").
__device__ __forceinline__ unsigned lanes_with_digit(unsigned digit, unsigned among = 0xFFFFFFFFu) {
  unsigned peers = among;
#pragma unroll
  for (unsigned b = 0; b < digit_bits; ++b) {
    unsigned agree;
    asm("{\n\t"
        ".reg .pred set;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 set, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, set, 0xffffffff;\n\t"
        "@!set not.b32 %0, %0;\n\t"
        "}"
        : "=r"(agree)
        : "r"(digit), "r"(1u << b));
    peers &= agree;
  }
  return peers;
}

// The same among the lanes whose key exists; a missing key is a group of its own.
__device__ inline unsigned same_digit_lanes(unsigned digit, bool present) {
  const unsigned peers = lanes_with_digit(digit, __ballot_sync(0xFFFFFFFFu, present));
  return present ? peers : 1u << (threadIdx.x % 32);
}

struct add {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

template <class T, std::size_t N>
struct shared_buffer {
  alignas(16) unsigned char bytes[N * sizeof(T)];
  template <class U>
  __device__ U* as() {
    return reinterpret_cast<U*>(bytes);
  }
};

// Thread d's column of the warps' digit counts: each warp's count of digit d replaced by the count
// of the warps before it (where the warp's keys of d start within the tile's run of d); returns
// the tile's count of d.
template <unsigned Warps>
__device__ __forceinline__ unsigned warp_starts(unsigned (&warp_counts)[Warps][radix], unsigned d) {
  unsigned count = 0;
#pragma unroll
  for (unsigned w = 0; w < Warps; ++w) {
    const unsigned c = warp_counts[w][d];
    warp_counts[w][d] = count;
    count += c;
  }
  return count;
}

// The end of a pass, the same for every ranking: the tile's keys stand in shared memory in digit
// order; each goes out to the output position of its digit's run plus its place in the tile, so
// that consecutive threads write consecutive places of each run (coalesced where runs are long).
// Values the same way, after: loaded only now, so that they take no registers during the ranking;
// position[i] is the tile place of this thread's key i (present(i): whether key i exists). Full: the
// tile has all its keys (every tile but a portion's last), so no place is checked against in_tile.
template <bool Values, unsigned K, unsigned Threads = threads, bool Full = false, class Key, class V, class Order,
          class Buffer, unsigned P, class Present>
__device__ __forceinline__ void write_tile(const pass_args<Key, V, Order>& a, Buffer& exchange,
                                           const unsigned long long* digit_global, unsigned in_tile,
                                           const unsigned (&position)[P], Present present, std::size_t warp_begin,
                                           unsigned lane) {
  const Key* keys_shared = exchange.template as<Key>();
  unsigned out_digits[Values ? (K + 3) / 4 : 1] = {};
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    const unsigned j = i * Threads + threadIdx.x;
    if (Full || j < in_tile) {
      const Key k = keys_shared[j];
      const unsigned digit = a.digit(k);
      if constexpr (Values) out_digits[i / 4] |= digit << (8 * (i % 4));
      a.keys_out[digit_global[digit] + j] = k;
    }
  }
  if constexpr (Values) {
    static_assert(P == K);
    __syncthreads();  // every key has left shared memory
    V* values_shared = exchange.template as<V>();
#pragma unroll
    for (unsigned i = 0; i < K; ++i) {
      if (present(i)) {
        values_shared[position[i]] = a.value(warp_begin + i * 32 + lane);
      }
    }
    __syncthreads();
#pragma unroll
    for (unsigned i = 0; i < K; ++i) {
      const unsigned j = i * Threads + threadIdx.x;
      if (Full || j < in_tile) a.values_out[digit_global[(out_digits[i / 4] >> (8 * (i % 4))) & 0xFFu] + j] = values_shared[j];
    }
  }
}

// One pass over one tile: rank, find the digits' places (look-back, or the counting pass's table),
// scatter through shared memory. LookBack: onesweep (tiles by ticket); otherwise stage 3 of the
// lesson (tile = blockIdx.x). At least 4 blocks per SM (64 registers a thread): while one block
// waits in its look-back, the others load and rank. Values: whether values travel with the keys
// (a.values_out set); a keys-only sort compiles without their bookkeeping, which would take
// registers from the ranking.
template <class Key, class V, class Order, bool LookBack, bool Values>
__global__ void __launch_bounds__(threads, 4) tile_pass_kernel(pass_args<Key, V, Order> a) {
  constexpr unsigned K = items_per_thread<Key, V>, T = tile_items<Key, V>, warps = threads / 32;
  using X = std::conditional_t<(sizeof(V) > sizeof(Key)), V, Key>;
  __shared__ unsigned warp_counts[warps][radix];  // per warp and digit: the count, then the warp's start
  __shared__ unsigned digit_local[radix];         // where each digit's run starts in the tile
  __shared__ unsigned long long digit_global[radix];  // output position of the tile's position 0, per digit
  __shared__ shared_buffer<X, T> exchange;
  __shared__ unsigned tile_ticket;

  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if constexpr (LookBack) take_ticket(a.ticket, a.tiles, tile_ticket);
  for (unsigned i = threadIdx.x; i < warps * radix; i += threads) (&warp_counts[0][0])[i] = 0;
  __syncthreads();
  const unsigned tile = LookBack ? tile_ticket : blockIdx.x;
  const std::size_t tile_begin = a.begin + std::size_t(tile) * T;
  const std::size_t end = a.begin + a.count;
  const std::size_t warp_begin = tile_begin + std::size_t(warp) * 32 * K;

  // Keys, warp-striped. Digits are recomputed from the keys where needed rather than kept: with 16
  // keys per thread, registers decide how many blocks share an SM.
  Key key[K];
  unsigned position[K];
  const auto valid = [&](unsigned i) { return warp_begin + i * 32 + lane < end; };
#pragma unroll
  for (unsigned i = 0; i < K; ++i) key[i] = valid(i) ? a.keys_in[warp_begin + i * 32 + lane] : Key{};
  // A missing key (past the end) gets a digit of its own lane, outside 0..255: a group of one.
  const auto digit_of = [&](unsigned i) { return valid(i) ? a.digit(key[i]) : radix + lane; };

  // Rank within the warp, key by key: each lane's rank among the warp's keys of its digit so far.
  const unsigned lanes_below = (1u << lane) - 1;
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    const unsigned digit = digit_of(i);
    const unsigned peers = same_digit_lanes(digit, valid(i));
    const int leader = __ffs(peers) - 1;
    unsigned before = 0;
    if (lane == unsigned(leader) && digit < radix) {
      before = warp_counts[warp][digit];
      warp_counts[warp][digit] = before + __popc(peers);
    }
    before = __shfl_sync(0xFFFFFFFFu, before, leader);
    position[i] = before + __popc(peers & lanes_below);
    __syncwarp();  // this key's counter updates are seen by the next key's leaders
  }
  __syncthreads();

  // Thread d: its digit's count in the tile; each warp's start within the digit's run.
  const unsigned d = threadIdx.x;
  const unsigned count = warp_starts(warp_counts, d);
  unsigned tile_total;
  const maybe<unsigned> local = block_exclusive_scan(count, add{}, tile_total);
  const unsigned local_start = local.present ? local.value : 0u;
  digit_local[d] = local_start;
  unsigned long long global;
  if constexpr (LookBack) {
    publish_count(a.states, tile, d, count);
    global = a.digit_base[d] + walk_back(a.states, tile, d, count);
  } else {
    global = a.tile_offsets[std::size_t(d) * a.tiles + tile];
  }
  digit_global[d] = global - local_start;  // modulo 2^64: position j of digit d goes to this + j
  __syncthreads();

  // Keys into shared memory in digit order, then out in that order.
  Key* keys_shared = exchange.template as<Key>();
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    if (valid(i)) {
      const unsigned digit = a.digit(key[i]);
      position[i] += digit_local[digit] + warp_counts[warp][digit];
      keys_shared[position[i]] = key[i];
    }
  }
  __syncthreads();
  const unsigned in_tile = static_cast<unsigned>(end - tile_begin < T ? end - tile_begin : T);
  write_tile<Values, K>(a, exchange, digit_global, in_tile, position, valid, warp_begin, lane);
}

// Stage 5 of the lesson: the pass as CUB's Onesweep ranks (BlockRadixRankMatchEarlyCounts), its
// counts first. tile_pass_kernel publishes the tile's digit counts after ranking every key, so a
// successor's look-back waits out this tile's whole ranking; here each warp first counts its
// digits (a shared-memory atomic per key, nothing waits on its result), the tile's counts are
// published at once, and the look-back itself comes after the ranking, so that the predecessors
// have had that time to publish theirs. Knowing every warp's start in every digit's run before it
// ranks, a warp's counter of a digit holds the tile place of its next key of that digit: a key's
// place is final when ranked, and the key goes straight to shared memory (no second pass over the
// counters, no place kept per key unless values follow). The group leader is the highest lane of
// the group, whose count of lanes at or below it is the group's size. A missing key (past the
// end: the last tile only) takes digit 255, the last: counted and ranked like the others, it lands
// after every key of the tile and is never written out; the count published for 255 leaves them
// out.
// K: keys per thread (16 of 4 bytes, as tile_pass_kernel's; bench_sort's early_<K> rows time
// other tile sizes); more than 16 trade a block per SM for the registers they need. Threads: the
// block (a multiple of 32, at least one thread per digit; the threads past 255 only load, rank and
// write), so that a tile of more keys can keep as many keys a thread (CUB's sm_90 pass: 384 x 19).
// Blocks an SM asked of __launch_bounds__: at 256 threads 4 (64 registers a thread) up to 16 keys,
// 3 past; in larger blocks as many as leave 56 registers a thread (CUB's pass at 384 threads).
// MatchAny (bench_sort's early_match rows): each key's group found by __match_any_sync instead of
// the eight ballots (CUB's pass ballots too). Its cost falls with the distinct digits a warp holds
// and rises far past the ballots' on random keys (rows sort_few/uint32 and sort/uint32,
// early_match_24 against raw, of docs/benchmarks/sort.md). Choosing per pass in the kernel
// (both loops compiled, the pass's digit counts deciding) was slower than the ballots on both
// (docs/benchmarks/sort.md, "Choosing the ranking per pass"), so the library ballots.
template <unsigned K, unsigned Threads>
inline constexpr unsigned early_blocks_per_sm = Threads == threads ? (K <= 16 ? 4 : 3) : 65536 / (Threads * 56);
// SkipOneDigit (the library's with the early-counts pass; bench_sort's early_<K> rows go without):
// where one digit holds every key of the array in this pass (digit_base_kernel says so), the pass
// is stable and moves no key: its keys (and values) are copied to the same places, with no ranking
// and no look-back. CUB's pass does less on such a tile too (TryShortCircuit: one digit in
// the tile, its keys written as they stand); small integers in wide keys make such passes
// (sort_few's keys, 0 to 15: three of four passes). Rows sort_few/uint32/raw and early_24 of
// docs/benchmarks/sort.md, "Passes of one digit copied". CopyApart (the library's): the pass's
// blocks only exit, and copy_one_digit_kernel, launched before the pass, copies with every SM full
// of copying threads, where the pass's tiles hold three blocks an SM (bench_sort's rows
// early_<shape>_copy, copied in the pass, against raw: docs/benchmarks/sort.md, "Passes of one
// digit copied apart").
template <class Key, class V, class Order, bool Values, unsigned K = items_per_thread<Key, V>, unsigned Threads = threads,
          bool MatchAny = false, bool SkipOneDigit = false, bool CopyApart = false>
__global__ void __launch_bounds__(Threads, early_blocks_per_sm<K, Threads>)
    early_counts_pass_kernel(pass_args<Key, V, Order> a) {
  constexpr unsigned T = Threads * K, warps = Threads / 32;
  using X = std::conditional_t<(sizeof(V) > sizeof(Key)), V, Key>;
  static_assert(K <= 32 && T * sizeof(X) <= exchange_bytes);
  static_assert(Threads % 32 == 0 && Threads >= radix);
  if constexpr (SkipOneDigit) {
    if (*a.one_digit != 0) {
      if constexpr (!CopyApart) {
        const std::size_t end = a.begin + a.count;
#pragma unroll
        for (unsigned i = 0; i < K; ++i) {
          const std::size_t e = a.begin + std::size_t(blockIdx.x) * T + i * Threads + threadIdx.x;
          if (e < end) {
            a.keys_out[e] = a.keys_in[e];
            if constexpr (Values) a.values_out[e] = a.value(e);
          }
        }
      }
      return;
    }
  }
  __shared__ unsigned warp_counts[warps][radix];  // per warp and digit: the count, then the next tile place
  __shared__ unsigned long long digit_global[radix];  // output position of the tile's place 0, per digit
  __shared__ shared_buffer<X, T> exchange;
  __shared__ unsigned tile_ticket;

  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  take_ticket(a.ticket, a.tiles, tile_ticket);
  for (unsigned i = threadIdx.x; i < warps * radix; i += Threads) (&warp_counts[0][0])[i] = 0;
  __syncthreads();
  const unsigned tile = tile_ticket;
  const std::size_t tile_begin = a.begin + std::size_t(tile) * T;
  const std::size_t end = a.begin + a.count;
  const std::size_t warp_begin = tile_begin + std::size_t(warp) * 32 * K;
  const unsigned in_tile = static_cast<unsigned>(end - tile_begin < T ? end - tile_begin : T);

  // Keys, warp-striped; bit i of `present`: key i exists.
  Key key[K];
  unsigned present = 0;
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    const std::size_t e = warp_begin + i * 32 + lane;
    key[i] = Key{};
    if (in_tile == T || e < end) {
      key[i] = a.keys_in[e];
      present |= 1u << i;
    }
  }
  const auto exists = [&](unsigned i) { return ((present >> i) & 1u) != 0; };
  const auto digit_of = [&](unsigned i) { return exists(i) ? a.digit(key[i]) : radix - 1; };

  // 1. Each warp's count of each digit.
#pragma unroll
  for (unsigned i = 0; i < K; ++i) atomicAdd(&warp_counts[warp][digit_of(i)], 1u);
  __syncthreads();

  // 2. Thread d: the tile's count of digit d, published; where the tile's run of d starts
  //    (a scan over the digits); each warp's first place in it.
  const unsigned d = threadIdx.x;
  const bool digit_thread = Threads == radix || d < radix;
  const unsigned count = digit_thread ? warp_starts(warp_counts, d) : 0u;
  const unsigned published = d == radix - 1 ? count - (T - in_tile) : count;
  if (digit_thread) publish_count(a.states, tile, d, published);
  unsigned tile_total;
  const maybe<unsigned> local = block_exclusive_scan(count, add{}, tile_total);
  const unsigned local_start = local.present ? local.value : 0u;
  if (digit_thread) {
#pragma unroll
    for (unsigned w = 0; w < warps; ++w) warp_counts[w][d] += local_start;
  }
  __syncthreads();

  // 3. Rank key by key, each straight to its place in shared memory. The leader's atomic returns
  //    before the shuffle that hands its result on, so the next key's leaders see its add.
  Key* keys_shared = exchange.template as<Key>();
  unsigned position[Values ? K : 1];
  const unsigned lanes_at_or_below = 0xFFFFFFFFu >> (31 - lane);
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    const unsigned digit = digit_of(i);
    const unsigned peers = MatchAny ? __match_any_sync(0xFFFFFFFFu, digit) : lanes_with_digit(digit);
    const unsigned at_or_below = __popc(peers & lanes_at_or_below);
    const unsigned leader = 31 - __clz(peers);
    unsigned first = 0;
    if (lane == leader) first = atomicAdd(&warp_counts[warp][digit], at_or_below);
    const unsigned place = __shfl_sync(0xFFFFFFFFu, first, leader) + at_or_below - 1;
    keys_shared[place] = key[i];
    if constexpr (Values) position[i] = place;
  }

  // 4. The look-back, now that the predecessors have had the ranking's time.
  if (digit_thread)
    digit_global[d] = a.digit_base[d] + walk_back(a.states, tile, d, published) - local_start;  // modulo 2^64
  __syncthreads();
  // A full tile (every tile but a portion's last) writes its keys without checking places against
  // in_tile (7 instructions a key fewer); with values the copy pushed ptxas to a spill, so pairs
  // keep the one write.
  if (!Values && in_tile == T) {
    write_tile<Values, K, Threads, true>(a, exchange, digit_global, in_tile, position, exists, warp_begin, lane);
  } else {
    write_tile<Values, K, Threads, false>(a, exchange, digit_global, in_tile, position, exists, warp_begin, lane);
  }
}

// Counts the digits of passes [first_pass, first_pass + group) of the portion [begin, begin +
// count) into counts[pass][digit] (zeroed). Four copies of the counters per block, by warp, so
// that warps with equal digits (few distinct keys) collide less in shared memory. Up to Group = 8
// passes per launch (32 KB of counters): a key of more bytes is read once per 8 of them. InFlight:
// keys each thread loads before it counts any (stage 5 of the lesson: 32 bytes of keys a thread in
// flight; a grid that fits the GPU at once has too few threads to cover DRAM's latency with one).
template <class Key, class Order, unsigned Group, unsigned InFlight = 1>
__global__ void __launch_bounds__(threads)
    digit_histogram_kernel(const Key* keys, std::size_t begin, std::size_t count, Order order, unsigned first_pass,
                           unsigned group, unsigned* counts) {
  constexpr unsigned copies = 4;
  __shared__ unsigned histogram[copies][Group][radix];
  for (unsigned i = threadIdx.x; i < copies * Group * radix; i += threads) (&histogram[0][0][0])[i] = 0;
  __syncthreads();
  auto& mine = histogram[(threadIdx.x / 32) % copies];
  // Every pass of the group counted where the group is whole (always, but for the last group of a
  // key whose passes are not a multiple of 8): with no branch between a key's digits, the key's
  // ordered bits and the counters' address are made once for all of them, not once a digit.
  const auto count_keys = [&](auto whole) {
    const auto count_key = [&](const Key& key) {
#pragma unroll
      for (unsigned g = 0; g < Group; ++g)
        if (decltype(whole)::value || g < group) atomicAdd(&mine[g][order.digit(key, first_pass + g)], 1u);
    };
    const std::size_t end = begin + count, stride = std::size_t{gridDim.x} * threads;
    std::size_t e = begin + blockIdx.x * std::size_t{threads} + threadIdx.x;
    if constexpr (InFlight > 1) {
      for (; e + (InFlight - 1) * stride < end; e += InFlight * stride) {
        Key key[InFlight];
#pragma unroll
        for (unsigned u = 0; u < InFlight; ++u) key[u] = keys[e + u * stride];
#pragma unroll
        for (unsigned u = 0; u < InFlight; ++u) count_key(key[u]);
      }
    }
    for (; e < end; e += stride) count_key(keys[e]);
  };
  if (group == Group) {
    count_keys(std::true_type{});
  } else {
    count_keys(std::false_type{});
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < group * radix; i += threads) {
    unsigned sum = 0;
#pragma unroll
    for (unsigned c = 0; c < copies; ++c) sum += (&histogram[c][0][0])[i];
    if (sum != 0) atomicAdd(&counts[std::size_t{first_pass} * radix + i], sum);
  }
}

// A pass of one digit as CopyApart has it (early_counts_pass_kernel): the portion's keys (and
// values) copied to the same places, across the grid; nothing where the pass has more digits.
template <class Key, class V, class Order, bool Values>
__global__ void copy_one_digit_kernel(pass_args<Key, V, Order> a) {
  if (*a.one_digit == 0) return;
  const std::size_t end = a.begin + a.count;
  for (std::size_t e = a.begin + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < end;
       e += std::size_t{gridDim.x} * blockDim.x) {
    a.keys_out[e] = a.keys_in[e];
    if constexpr (Values) a.values_out[e] = a.value(e);
  }
}

// Block p, thread d: where digit d of pass p starts in each portion's output, from the counts of
// every portion ([portion][pass][digit]): the digits below d everywhere, then digit d in the
// portions before. (A template, as every kernel in a header: one definition in the program.)
// OneDigit: and one_digit[p], whether one digit holds every key of pass p (SkipOneDigit, above).
template <bool OneDigit = false>
__global__ void __launch_bounds__(threads)
    digit_base_kernel(const unsigned* counts, unsigned portions, unsigned passes, unsigned long long* base,
                      unsigned* one_digit) {
  const unsigned p = blockIdx.x, d = threadIdx.x;
  unsigned long long total = 0;
  for (unsigned q = 0; q < portions; ++q) total += counts[(std::size_t(q) * passes + p) * radix + d];
  unsigned long long all;
  const maybe<unsigned long long> start = block_exclusive_scan(total, add{}, all);
  if constexpr (OneDigit) {
    const int one = __syncthreads_or(all != 0 && total == all);
    if (d == 0) one_digit[p] = one != 0;
  }
  unsigned long long running = start.present ? start.value : 0ull;
  for (unsigned q = 0; q < portions; ++q) {
    const std::size_t at = (std::size_t(q) * passes + p) * radix + d;
    base[at] = running;
    running += counts[at];
  }
}

// The one-sweep sort of n keys (and values, or indices), keys_in -> keys_out, in `order`. keys_out
// may be keys_in, values_out values_in. Passes alternate between the output and a scratch buffer,
// so that the last lands in the output: with an even number of passes, pass p writes the scratch
// buffer when p is even, the output when odd, and pass 0 has read the whole input before pass 1
// writes over it; with an odd number, pass 0 writes the output, so an array sorted in place is
// first copied to the scratch buffer and sorted from there. `keys_scratch`: a second keys buffer
// in scratch (argsort's sorted keys, which nobody wants). Carry: whether values travel (values_out
// set; values_in too, unless `indices`), known when compiled so that a keys-only sort instantiates
// no carrying kernel. Early: the passes rank as early_counts_pass_kernel does (stage 5 of the
// lesson), with Items keys per thread in blocks of Threads (and MatchAny, its variant above);
// SkipOneDigit and CopyApart: passes of one digit copied, by a kernel of their own (above).
template <class Key, class V, bool Carry, bool Early = early_pass<Key, V, Carry>,
          unsigned Items = Early ? pass_items<Key, V, Carry> : items_per_thread<Key, V>,
          unsigned Threads = Early ? pass_threads<Key, V, Carry> : threads, bool MatchAny = false,
          bool SkipOneDigit = Early, bool CopyApart = SkipOneDigit, class Order>
void onesweep_sort(const char* algorithm, const execution_policy& policy, const Key* keys_in, Key* keys_out,
                   const V* values_in, V* values_out, bool indices, std::size_t n, Order order,
                   bool keys_scratch = false) {
  static_assert(onesweep_sorts<Key, V>, "keys and values of up to 128 bytes");
  constexpr unsigned passes = Order::passes;
  constexpr unsigned group = passes < 8 ? passes : 8;
  static_assert(Early || (Items == items_per_thread<Key, V> && Threads == threads),
                "tile_pass_kernel has one tile shape");
  static_assert(Early || !SkipOneDigit, "only the early-counts pass skips");
  static_assert(SkipOneDigit || !CopyApart, "only a pass that skips copies apart");
  constexpr std::size_t T = Threads * Items;
  const std::size_t portion_tiles = count_mask / T;  // a portion's counts stay below 2^30
  const std::size_t portion_items = portion_tiles * T;
  const std::size_t portions = (n + portion_items - 1) / portion_items;
  const std::size_t most_tiles = std::min((n + T - 1) / T, portion_tiles);
  if ((values_out != nullptr) != Carry)
    throw std::logic_error(std::string("prism::") + algorithm +
                           ": onesweep_sort's values_out is given exactly when Carry");

  // Scratch: [alternate keys][alternate values][the keys' output, for argsort][counts][bases][look-back]
  const std::size_t keys_bytes = round256(n * sizeof(Key));
  const std::size_t values_bytes = Carry ? round256(n * sizeof(V)) : 0;
  const std::size_t out_bytes = keys_scratch ? keys_bytes : 0;
  const std::size_t counts_bytes = round256(portions * passes * radix * sizeof(unsigned));
  const std::size_t base_bytes = round256(portions * passes * radix * sizeof(unsigned long long));
  const std::size_t one_digit_bytes = SkipOneDigit ? round256(passes * sizeof(unsigned)) : 0;
  const std::size_t state_bytes = most_tiles * radix * sizeof(unsigned);
  const scratch lease = acquire_scratch(keys_bytes + values_bytes + out_bytes + counts_bytes + base_bytes +
                                            one_digit_bytes + state_bytes,
                                        with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  Key* keys_alt = reinterpret_cast<Key*>(memory);
  V* values_alt = reinterpret_cast<V*>(memory + keys_bytes);
  if (keys_scratch) keys_out = reinterpret_cast<Key*>(memory + keys_bytes + values_bytes);
  auto* counts = reinterpret_cast<unsigned*>(memory + keys_bytes + values_bytes + out_bytes);
  auto* base = reinterpret_cast<unsigned long long*>(memory + keys_bytes + values_bytes + out_bytes + counts_bytes);
  auto* one_digit = reinterpret_cast<unsigned*>(memory + keys_bytes + values_bytes + out_bytes + counts_bytes + base_bytes);
  auto* states = reinterpret_cast<unsigned*>(memory + keys_bytes + values_bytes + out_bytes + counts_bytes + base_bytes +
                                             one_digit_bytes);
  const cudaStream_t stream = policy.stream();

  // Where each portion's digits start in the output, from the digit counts of passes [first, last)
  // of every portion of `keys`. With one portion, the counts of the input serve every pass: a pass
  // only reorders the keys. With several, a portion of a later pass's input holds other keys than
  // the same portion of the input, so each pass counts its own digits first (one more read of the
  // keys a pass).
  const auto count_digits = [&](const Key* keys, unsigned first, unsigned last) {
    check(cudaMemsetAsync(counts, 0, counts_bytes, stream), "cudaMemsetAsync", algorithm);
    const auto resident = static_cast<std::size_t>(multiprocessor_count()) * 8;
    for (std::size_t q = 0; q < portions; ++q) {
      const std::size_t begin = q * portion_items, count = std::min(portion_items, n - begin);
      const auto grid = static_cast<unsigned>(std::min<std::size_t>(blocks_for(count), resident));
      for (unsigned p = first; p < last; p += group) {
        constexpr unsigned in_flight = Early && sizeof(Key) < 32 ? 32 / sizeof(Key) : 1;
        launch(algorithm, "digit_histogram_kernel", digit_histogram_kernel<Key, Order, group, in_flight>, grid, threads,
               stream, keys, begin, count, order, p, std::min(group, last - p), counts + q * passes * radix);
      }
    }
    launch(algorithm, "digit_base_kernel", digit_base_kernel<SkipOneDigit>, passes, threads, stream,
           static_cast<const unsigned*>(counts), static_cast<unsigned>(portions), passes, base, one_digit);
  };
  count_digits(keys_in, 0, passes);

  // Pass p writes the output when the passes after it are even in number.
  const auto writes_output = [](unsigned p) { return (passes - 1 - p) % 2 == 0; };
  const Key* keys_from = keys_in;
  const V* values_from = values_in;
  if constexpr (passes % 2 == 1) {
    if (keys_in == keys_out) {
      copy_unless_same(stream, keys_in, keys_alt, n, algorithm);
      keys_from = keys_alt;
    }
    if (Carry && values_in == values_out) {
      copy_unless_same(stream, values_in, values_alt, n, algorithm);
      values_from = values_alt;
    }
  }
  for (unsigned p = 0; p < passes; ++p) {
    pass_args<Key, V, Order> a{.order = order};  // (a decomposer need not be default-constructible)
    a.keys_in = p == 0 ? keys_from : (writes_output(p) ? keys_alt : keys_out);
    a.keys_out = writes_output(p) ? keys_out : keys_alt;
    a.values_in = p == 0 ? values_from : (writes_output(p) ? values_alt : values_out);
    a.values_out = Carry ? (writes_output(p) ? values_out : values_alt) : nullptr;
    a.indices = indices && p == 0;
    a.pass = p;
    a.one_digit = one_digit + p;
    a.states = states;
    a.ticket = lease.zeroed_counter();
    if (p > 0 && portions > 1) count_digits(a.keys_in, p, p + 1);
    for (std::size_t q = 0; q < portions; ++q) {
      a.begin = q * portion_items;
      a.count = std::min(portion_items, n - a.begin);
      a.tiles = static_cast<unsigned>((a.count + T - 1) / T);
      a.digit_base = base + (q * passes + p) * radix;
      check(cudaMemsetAsync(states, 0, std::size_t{a.tiles} * radix * sizeof(unsigned), stream), "cudaMemsetAsync",
            algorithm);
      if constexpr (CopyApart) {
        const auto grid = static_cast<unsigned>(std::min<std::size_t>(blocks_for(a.count), multiprocessor_count() * 8));
        launch(algorithm, "copy_one_digit_kernel", copy_one_digit_kernel<Key, V, Order, Carry>, grid, threads, stream, a);
      }
      if constexpr (Early) {
        launch(algorithm, "early_counts_pass_kernel",
               early_counts_pass_kernel<Key, V, Order, Carry, Items, Threads, MatchAny, SkipOneDigit, CopyApart>,
               a.tiles, Threads, stream, a);
      } else {
        launch(algorithm, "tile_pass_kernel", tile_pass_kernel<Key, V, Order, true, Carry>, a.tiles, threads, stream, a);
      }
    }
  }
}

}  // namespace prism::detail::radix
