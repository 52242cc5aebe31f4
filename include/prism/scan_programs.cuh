// SPDX-License-Identifier: Apache-2.0
#pragma once
// The programs of the scan family's raw implementation: for each operation, what the single-pass
// kernel (<prism/primitives/single_pass.cuh>) scans, and what a tile writes once it knows its
// prefix. scan_program serves the scans; scan_by_key_program the scans by key; select_program
// compact_if, partition_if, unique and unique_by_key; reduce_by_key_program reduce_by_key and
// run_length_encode. Each also fixes its tile (threads, rounds), as measured below. The dispatch
// in <prism/scan.cuh> builds them; the last section holds what its Thrust and CUB paths are given.
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/single_pass.cuh>
#include <prism/primitives/vector_access.cuh>

#include <cuda_runtime.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace prism::detail {

// One tile per block. Its threads and its rounds of 16-byte vectors per thread per array are each
// program's own (Program::threads, Program::rounds), the fastest of the shapes tried on the H200
// at 2^28: a scan keeps 12 rounds in flight in blocks of 128 threads (192 bytes of each array per
// thread; 128 x 16, 128 x 8 and 256 x 8 were slower); the others hold more per element until the
// look-back ends (a compaction's values and flags), so 4 rounds (some selections 8, below):
// the selections in blocks of 384 threads where their staged elements fit 32 KB of shared memory
// (a float compaction ran faster that way than in blocks of 256), else 256, else 128, and the by-key
// programs in blocks of 256 (in blocks of 128, unique, run_length_encode and reduce_by_key were
// slower). The shapes kept are measured by the raw rows of docs/benchmarks/scan.md (rows
// inclusive_scan/float/raw, compact/float/raw, unique/float/raw). Those are the shapes of 4-byte
// elements; 8-byte ones take more rounds (below).
// The scan, by-key and reduce-by-key programs take their shape as template arguments, so that
// other shapes can be timed beside these (bench/scan.cu's raw_<threads>x<rounds> rows, of the
// 8-byte programs): the by-key programs and the selections also their elements a vector (V
// consecutive elements a thread, the blocked arrangement CUB's agents use, rows
// raw_<threads>x<rounds>x<V>) and whether a warp's span reaches its lanes through shared memory
// (Transposed, rows raw_transposed_<threads>x1x<V>). On an H100 only unique of 8-byte keys gained
// (256 x 2 x 8, 0.943x CUB against 0.854x; not yet the library's, its tests not yet run on it);
// every other program lost, most where a lane writes its own outputs: docs/benchmarks/scan.md,
// "The nineteenth run".
inline constexpr int streaming_threads = 128;
inline constexpr int streaming_rounds = 12;
inline constexpr int scan_threads = block_size;
inline constexpr int selection_threads = 384;
inline constexpr int scan_rounds = 4;
// Arrays of 8-byte elements want longer tiles: a sum of them 24 rounds (16 until the round
// prefixes left the registers for shared memory, which 24 had spilled; other operators keep 16:
// theirs at 24 are not measured, and take up to 185 registers, two blocks an SM); a by-key program
// whose keys or values read are 8 bytes 8 rounds, where a key and its value together are at most
// 12 bytes (8-byte keys with 8-byte values keep 4: at 8 their reduce_by_key spills registers); and
// run-length encoding of 8-byte keys, which reads no values, 16 rounds in blocks of 128, its keys
// read again rather than held (reduce_by_key_shape, below). The scan by key has a shape of its
// own (scan_by_key_shape). Rows <op>/int64/raw and raw_<threads>x<rounds> of
// docs/benchmarks/scan.md, "Tile shapes of the 8-byte programs".
template <class T, class Op>
inline constexpr int streaming_rounds_of =
    sizeof(T) != 8 ? streaming_rounds : std::is_same_v<Op, functors::plus<T>> ? 24 : 16;
template <class... T>
inline constexpr int keyed_rounds_of =
    std::max({sizeof(T)...}) == 8 && (sizeof(T) + ...) <= 12 ? 8 : scan_rounds;
// Where a vector's first element finds the key before it, and, for run-length encoding that
// reads its keys again, its last the key after it. `read`: each lane reads it from memory
// (keys[i - 1] of a lane's vector was loaded by the lane before: an L1 hit, or a second request
// for sectors still in flight). `shuffled`: from the neighbour lane, lane l + 1's vector following
// lane l's (the single-pass engine's rounds), the load in two steps (the engine's `settle`,
// <prism/primitives/single_pass.cuh>): every round's vectors first, then the shuffles, each a
// rotation of the warp in which lane 0 takes lane 31's last key of the round before (key_below),
// so that one lane a warp reads a key of its own (and for the key after, the last round's lane
// 31). Two steps hold every round's keys until the shuffles (up to 18 more registers) and lose
// where the keys are held anyway or are 8 bytes (unique of int64 0.78x CUB against 0.86x,
// run-length encoding of int64 0.71x against 0.85x, the scan by key of floats 0.90x against
// 0.95x); they gain 1% to 3% for unique of 4-byte keys read again, reduce_by_key of 4-byte keys
// and values read again, and the scan by key of int64 values. A shuffle within each round's load
// instead (lane 0 reading its own) made each round's loads wait for the round before's shuffle.
// Rows <op>/<type>/raw against raw_<shape>_lane of docs/benchmarks/scan.md, "The eighteenth run"
// and "The seventeenth run".
enum class key_before { read, shuffled };
// unique's: from the lane below where it reads its 4-byte keys again (Reread), read elsewhere.
template <class K, bool Reread>
inline constexpr key_before unique_key_before = Reread && sizeof(K) == 4 ? key_before::shuffled : key_before::read;

// The scan by key in blocks of 128: 8 rounds where its key and value are 4 bytes or less, 12 where
// one is 8 bytes and the two 12; 8-byte keys with 8-byte values (not measured so) keep 256 x 4.
// Rows inclusive_scan_by_key/float and /int64 (raw, raw_256x4, raw_256x8) of
// docs/benchmarks/scan.md, "The scan by key in blocks of 128". The 12-round tile asks the compiler
// for five blocks an SM (96 registers, 8 bytes spilled, instead of 114 and four blocks; rows
// inclusive_scan_by_key/int64, raw against raw_128x12, "The thirteenth run"); with 4-byte keys it
// takes the key before from the lane below (`from`; 1% faster for int64 values, raw against
// raw_128x12_min5, "The eighteenth run"; 8-byte keys, not timed so, read it).
template <class K, class T>
struct scan_by_key_shape {
  static constexpr std::size_t widest = std::max(sizeof(K), sizeof(T)), bytes = sizeof(K) + sizeof(T);
  static constexpr bool longer = widest <= 4 || (widest == 8 && bytes <= 12);
  static constexpr int threads = longer ? 128 : scan_threads;
  static constexpr int rounds = !longer ? scan_rounds : widest <= 4 ? 8 : 12;
  static constexpr int min_blocks = rounds == 12 ? 5 : 0;
  static constexpr key_before from = rounds == 12 && sizeof(K) <= 4 ? key_before::shuffled : key_before::read;
};

// Elements per vector for the arrays of a program: 16 bytes of the widest (one element past 16).
template <class... T>
constexpr int scan_vector = std::max(1, vector_width<T...>);
struct nothing {};

// The selections' rounds where 4 do not serve (select_program's rule then sets the blocks, 256 or
// 128 threads, so that a tile stays within 32 KB). unique of keys alone (Q `nothing`) 8 where keys
// are 4 or 8 bytes (rows unique/float and /int64, raw_256x8 against raw_384x4, of
// docs/benchmarks/scan.md, "The ninth run"); smaller keys keep 4 (8 of their counts' fields
// would not fit a word), larger ones too (8 rounds of 32-byte keys would not fit shared memory).
// unique_by_key the by-key programs' rounds (keyed_rounds_of): int32 keys with int64 values in
// 128 x 8. A compaction or partition of 8-byte elements 8, in 256 x 8. Rows unique_by_key/int64
// and compact/int64 (raw, and raw_256x4 and raw_384x4, the shapes before) of docs/benchmarks/scan.md,
// "The longer tiles of the 8-byte selections".
template <class K, class Q>
inline constexpr int unique_rounds_of = !std::is_same_v<Q, nothing> ? keyed_rounds_of<K, Q>
                                        : sizeof(K) == 4 || sizeof(K) == 8 ? 8
                                                                            : scan_rounds;
template <class P>
inline constexpr int compact_rounds_of = sizeof(P) == 8 ? 8 : scan_rounds;
// unique of 4-byte keys alone reads a kept key again where it stages it (select_program's Reread):
// 59 registers instead of 80 in 256 x 8 (rows unique/int32 and /float, raw against raw_256x8, of
// docs/benchmarks/scan.md, "The thirteenth run"), and asks five blocks an SM of the compiler
// (unique_reread_min_blocks; raw against raw_reread_256x8, "The fourteenth run"). Never in place:
// a later tile, its prefix known, may write its keys over this tile's before they are read again.
template <class K, class Q>
inline constexpr bool unique_rereads = std::is_same_v<Q, nothing> && sizeof(K) == 4;
inline constexpr int unique_reread_min_blocks = 5;

// scan: the scan value is the element.
template <class T, class Op, int Threads = streaming_threads, int Rounds = streaming_rounds_of<T, Op>>
struct scan_program {
  using scan_type = T;
  static constexpr int vector = scan_vector<T>;
  static constexpr int threads = Threads, rounds = Rounds;
  static constexpr bool counts_flags = false;
  using items = nothing;
  using shared_storage = nothing;
  const T* x;
  T* out;
  std::size_t n;
  Op op;
  bool exclusive;
  T init;
  bool x_aligned, out_aligned;

  __device__ Op combiner() const { return op; }
  __device__ void prefetch(std::size_t i, std::size_t count) const { prefetch_l2(x, i, count, n); }
  __device__ maybe<T> initial() const { return {init, exclusive}; }
  template <class Whole>
  __device__ void load(std::size_t i, items&, T (&s)[vector], Whole whole) const {
    load_elements<vector>(x, i, n, x_aligned, s, whole);
  }
  __device__ void emit(std::size_t i, const items&, const T (&s)[vector], maybe<T> running,
                       const tile_info<T>&, shared_storage&) const {
    T o[vector];
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      if (exclusive) o[k] = running.value;
      running = {combine(running, s[k], op), true};
      if (!exclusive) o[k] = running.value;
    }
    store_elements<vector>(out, i, n, out_aligned, o);
  }
  __device__ void finish(const tile_info<T>&, shared_storage&) const {}
};

// Whether element i starts a run: i is 0 or its key differs from the one before, each lane
// reading the key before its vector from memory (key_before::read, above).
template <int V, class K, class Eq, bool Whole>
__device__ void run_heads(const K* keys, std::size_t i, std::size_t n, const K (&k)[V], Eq eq, bool (&head)[V],
                          std::bool_constant<Whole>) {
  head[0] = (Whole || i < n) && (i == 0 || !eq(keys[i - 1], k[0]));
#pragma unroll
  for (int j = 1; j < V; ++j) head[j] = !eq(k[j - 1], k[j]);
}

// key_before::shuffled's two steps. At the load (round r of rounds, the vector at i): the warp's edge,
// a key no lane holds, read by the one lane that wants it: the key before round 0's lane 0, or
// after the last round's lane 31 (After); every other lane keeps `own`, never compared.
template <int V, bool After, class K>
__device__ K edge_key(const K* keys, std::size_t i, std::size_t n, int r, int rounds, bool inside, K own) {
  if constexpr (!After) {
    if (r == 0 && threadIdx.x % 32 == 0 && i > 0 && inside) own = keys[i - 1];
  } else {
    if (r == rounds - 1 && threadIdx.x % 32 == 31 && i + V < n) own = keys[i + V];
  }
  return own;
}
// Once every round is loaded: the key before each lane's vector of round r (the lane below's
// last; for lane 0, lane 31's last of the round before, or in round 0 the edge), and the key after
// it (the lane above's first; for lane 31, lane 0's first of the round after, or the edge).
// (Each choice is between values, not array elements: a choice of lvalues is a choice of
// addresses, which would keep the rounds' arrays in local memory.)
template <int V, class K>
__device__ K key_below(const K (&earlier)[V], const K (&mine)[V], K edge, bool first_round) {
  const unsigned lane = threadIdx.x % 32;
  const K last = mine[V - 1], earlier_last = earlier[V - 1];
  const K got = shuffle_index(lane == 31 && !first_round ? earlier_last : last, static_cast<int>((lane + 31) % 32));
  return lane == 0 && first_round ? edge : got;
}
template <int V, class K>
__device__ K key_above(const K (&mine)[V], const K (&later)[V], K edge, bool last_round) {
  const unsigned lane = threadIdx.x % 32;
  const K first = mine[0], later_first = later[0];
  const K got = shuffle_index(lane == 0 && !last_round ? later_first : first, static_cast<int>((lane + 1) % 32));
  return lane == 31 && last_round ? edge : got;
}
// The heads of a vector given the key before it.
template <int V, class K, class Eq>
__device__ void heads_after(K before, std::size_t i, bool inside, const K (&k)[V], Eq eq, bool (&head)[V]) {
  head[0] = inside && (i == 0 || !eq(before, k[0]));
#pragma unroll
  for (int j = 1; j < V; ++j) head[j] = !eq(k[j - 1], k[j]);
}

// Transposed loads (stage_transposed, <prism/primitives/vector_access.cuh>): the key before a lane's
// first element is the lane below's last, still in the warp's staging, and the key after its last
// the lane above's first; only lane 0 (lane 31) reads one, where the warp's span begins (ends).
template <int V, class K>
__device__ K staged_key_before(const K* staging, const K* keys, std::size_t i, std::size_t n, K own) {
  const unsigned lane = threadIdx.x % 32;
  if (lane > 0) return staging[lane * V - 1];
  return i > 0 && i < n ? keys[i - 1] : own;
}
template <int V, class K>
__device__ K staged_key_after(const K* staging, const K* keys, std::size_t i, std::size_t n, K own) {
  const unsigned lane = threadIdx.x % 32;
  if (lane < 31) return staging[lane * V + V];
  return i + V < n ? keys[i + V] : own;
}
// A warp's share of a tile's staging: 32 V elements from its first.
template <int V, class T>
__device__ T* warp_staging(T* tile_staging) {
  return tile_staging + threadIdx.x / 32 * (32 * V);
}

// What a two-step by-key program holds of a vector from its load to its settle: the keys, and
// where its lane reads one, the warp's edges.
template <class K, int V, bool After = false>
struct loaded_keys {
  K k[V];
  K before;
  std::conditional_t<After, K, nothing> after;
  template <class Whole>
  __device__ void load(const K* keys, std::size_t i, std::size_t n, bool aligned, int r, int rounds, Whole whole) {
    load_elements<V>(keys, i, n, aligned, k, whole);
    before = edge_key<V, false>(keys, i, n, r, rounds, Whole::value || i < n, k[0]);
    if constexpr (After) after = edge_key<V, true>(keys, i, n, r, rounds, true, k[V - 1]);
  }
};

// The same kept in one register where a program holds its elements' heads (the by-key programs'
// items): bit k, element i + k starts a run; none past the end.
struct run_head_bits {
  unsigned heads;
  __device__ bool head(int k) const { return heads >> k & 1u; }
  template <int V, bool Whole>
  __device__ void set(std::size_t i, std::size_t n, const bool (&head)[V], std::bool_constant<Whole>) {
    static_assert(V < 32, "a vector's heads, and a bit after them, fit one word");
    heads = 0;
#pragma unroll
    for (int j = 0; j < V; ++j) heads |= unsigned{head[j] && (Whole || i + j < n)} << j;
  }
  template <int V, class K, class Eq, bool Whole>
  __device__ void find(const K* keys, std::size_t i, std::size_t n, const K (&k)[V], Eq eq,
                       std::bool_constant<Whole> whole) {
    bool head[V];
    run_heads<V>(keys, i, n, k, eq, head, whole);
    set(i, n, head, whole);
  }
  template <int V, class K, class Eq, bool Whole>
  __device__ void find_after(K before, std::size_t i, std::size_t n, const K (&k)[V], Eq eq,
                             std::bool_constant<Whole> whole) {
    bool head[V];
    heads_after(before, i, Whole || i < n, k, eq, head);
    set(i, n, head, whole);
  }
};

// scan by key: (value, whether a run starts in the segment); a segment that starts a run forgets
// what came before it. Associative when op is. A 4-byte value and its flag fit one packed state.
template <class T>
struct flagged {
  T value;
  unsigned head;
  __device__ std::uint64_t to_bits() const
    requires(sizeof(T) <= 4)
  {
    std::uint32_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    return bits | (std::uint64_t{head != 0} << 32);
  }
  __device__ static flagged from_bits(std::uint64_t bits)
    requires(sizeof(T) <= 4)
  {
    flagged f;
    const auto low = static_cast<std::uint32_t>(bits);
    memcpy(&f.value, &low, sizeof(T));
    f.head = static_cast<unsigned>(bits >> 32) & 1u;
    return f;
  }
};

template <class T, class Op>
struct segmented {
  Op op;
  __device__ flagged<T> operator()(const flagged<T>& a, const flagged<T>& b) const {
    return {b.head ? b.value : op(a.value, b.value), a.head | b.head};
  }
};

template <class K, class T, class Op, class Eq, int Threads = scan_by_key_shape<K, T>::threads,
          int Rounds = scan_by_key_shape<K, T>::rounds, int MinBlocks = scan_by_key_shape<K, T>::min_blocks,
          key_before From = scan_by_key_shape<K, T>::from, int Vector = scan_vector<K, T>, bool Transposed = false>
struct scan_by_key_program {
  using scan_type = flagged<T>;
  static constexpr int vector = Vector;
  static constexpr int threads = Threads, rounds = Rounds, min_blocks = MinBlocks;
  static constexpr bool counts_flags = false;
  static constexpr bool settles = From == key_before::shuffled && !Transposed;
  static constexpr bool transposes = Transposed;
  // What a thread keeps of its elements: their values and run heads. Their scan values, (value,
  // head) pairs of 8 to 16 bytes, are rebuilt from these where they are needed (scan_value), as
  // reduce_by_key_program's are, not held beside them. A two-step load holds its keys until settle.
  struct items : run_head_bits {
    T value[vector];
    std::conditional_t<settles, loaded_keys<K, vector>, nothing> loaded;
  };
  // Transposed: each warp's keys and values staged between the loads and the lanes (the values'
  // again at the writes), one round at a time.
  struct staging {
    shared_array<K, threads * vector> keys;
    shared_array<T, threads * vector> values;
  };
  using shared_storage = std::conditional_t<Transposed, staging, nothing>;
  const K* keys;
  const T* x;
  T* out;
  std::size_t n;
  Op op;
  Eq eq;
  bool exclusive;
  T init;
  bool keys_aligned, x_aligned, out_aligned;

  __device__ segmented<T, Op> combiner() const { return {op}; }
  __device__ void prefetch(std::size_t i, std::size_t count) const {
    prefetch_l2(keys, i, count, n);
    prefetch_l2(x, i, count, n);
  }
  __device__ maybe<scan_type> initial() const { return {scan_type{}, false}; }
  __device__ scan_type scan_value(const items& it, int k) const { return {it.value[k], it.head(k) ? 1u : 0u}; }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, Whole whole) const {
    K k[vector];
    load_elements<vector>(keys, i, n, keys_aligned, k, whole);
    load_elements<vector>(x, i, n, x_aligned, it.value, whole);
    it.template find<vector>(keys, i, n, k, eq, whole);
  }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, Whole whole, shared_storage& shared) const {
    const std::size_t first = i - threadIdx.x % 32 * vector;
    K* const ks = warp_staging<vector>(shared.keys.data());
    T* const vs = warp_staging<vector>(shared.values.data());
    stage_transposed<vector>(keys, x, first, n, keys_aligned, x_aligned, ks, vs, whole);
    __syncwarp();
    K k[vector];
    take_transposed(ks, k);
    take_transposed(vs, it.value);
    const K before = staged_key_before<vector>(ks, keys, i, n, k[0]);
    __syncwarp();
    it.find_after(before, i, n, k, eq, whole);
  }
  // key_before::shuffled's two steps: round r's loads, then its heads once every round is loaded.
  template <class Whole>
  __device__ void load(std::size_t i, items& it, int r, Whole whole) const {
    it.loaded.load(keys, i, n, keys_aligned, r, rounds, whole);
    load_elements<vector>(x, i, n, x_aligned, it.value, whole);
  }
  template <class Whole>
  __device__ void settle(std::size_t i, const items& earlier, items& it, const items&, int r, Whole whole) const {
    const auto& l = it.loaded;
    it.find_after(key_below(earlier.loaded.k, l.k, l.before, r == 0), i, n, l.k, eq, whole);
  }
  __device__ void emit(std::size_t i, const items& it, maybe<scan_type> running, const tile_info<scan_type>&,
                       [[maybe_unused]] shared_storage& shared) const {
    T o[vector];
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      if (exclusive) o[k] = it.head(k) || !running.present ? init : op(init, running.value.value);
      running = {combine(running, scan_value(it, k), combiner()), true};
      if (!exclusive) o[k] = running.value.value;
    }
    if constexpr (Transposed) {
      T* const vs = warp_staging<vector>(shared.values.data());
      give_transposed(vs, o);
      __syncwarp();
      store_transposed<vector>(out, i - threadIdx.x % 32 * vector, n, out_aligned, vs);
      __syncwarp();
    } else {
      store_elements<vector>(out, i, n, out_aligned, o);
    }
  }
  __device__ void finish(const tile_info<scan_type>&, shared_storage&) const {}
};

// The selections: the scan value is how many elements were kept before (kept_count,
// <prism/primitives/tile_state.cuh>).

// Where a selection's flags come from: a predicate on a stencil array...
template <class S, class Pred>
struct stencil_flags {
  using element = S;
  static constexpr bool settles = false;
  const S* stencil;
  Pred pred;
  bool aligned;
  __device__ void prefetch(std::size_t i, std::size_t count, std::size_t n) const { prefetch_l2(stencil, i, count, n); }
  template <int V, class P, class Whole>
  __device__ void operator()(std::size_t i, std::size_t n, const P (&)[V], bool (&keep)[V], Whole whole) const {
    S s[V];
    load_elements<V>(stencil, i, n, aligned, s, whole);
#pragma unroll
    for (int k = 0; k < V; ++k) keep[k] = pred(s[k]);
  }
};

// ... or the first element of each run of equal ones (unique: the elements themselves are the keys);
// key_before::shuffled, in two steps (settles): heads(before, ...) given the key before each vector.
template <class K, class Eq, key_before From = key_before::read>
struct head_flags {
  using element = K;
  static constexpr bool settles = From == key_before::shuffled;
  const K* keys;
  Eq eq;
  __device__ void prefetch(std::size_t, std::size_t, std::size_t) const {}  // the keys are the elements
  template <int V, class Whole>
  __device__ void operator()(std::size_t i, std::size_t n, const K (&k)[V], bool (&keep)[V], Whole whole) const {
    run_heads<V>(keys, i, n, k, eq, keep, whole);
  }
  template <int V, class Whole>
  __device__ void heads(K before, std::size_t i, std::size_t n, const K (&k)[V], bool (&keep)[V], Whole) const {
    heads_after(before, i, Whole::value || i < n, k, eq, keep);
  }
};

// compact, partition, unique, unique_by_key: keep elements of P (and of Q, unless Q is `nothing`)
// where the flags say. Kept elements are gathered in shared memory at their rank within the tile
// (the rejected ones after them for a partition), then the block writes them out with consecutive
// threads on consecutive addresses. Rounds (as many as the counts' packed fields allow: 9 of
// 8-byte elements, 8 of 4-byte ones; single_pass_kernel) and Threads (0: the rule above) are the
// tile's shape, as the other programs take theirs. Reread: a thread keeps only which of its
// elements are kept, and reads an element again (from L1 or L2) where it is staged, instead of
// holding rounds x vector of them from the load (unique_rereads says where; it needs the output
// apart from the input).
template <class P, class Q, class Flags>
inline constexpr int select_vector =
    std::is_same_v<Q, nothing> ? scan_vector<P, typename Flags::element> : scan_vector<P, Q, typename Flags::element>;
template <class P, class Q, class Flags, int Rounds = scan_rounds, int Threads = 0, int MinBlocks = 0,
          bool Reread = false, int Vector = select_vector<P, Q, Flags>, bool Transposed = false>
struct select_program {
  static constexpr bool pairs = !std::is_same_v<Q, nothing>;
  using scan_type = kept_count;
  static constexpr int vector = Vector;
  static constexpr int rounds = Rounds, min_blocks = MinBlocks;
  static constexpr std::size_t staged_bytes(int t) {
    return std::size_t(t) * rounds * vector * (sizeof(P) + (pairs ? sizeof(Q) : 0));
  }
  static constexpr int threads = Threads != 0                            ? Threads
                                 : staged_bytes(selection_threads) <= 32768 ? selection_threads
                                 : staged_bytes(scan_threads) <= 32768      ? scan_threads
                                                                            : streaming_threads;
  static constexpr std::size_t items_per_tile = std::size_t{threads} * rounds * vector;
  static constexpr bool counts_flags = true;  // the scan values are 0 or 1: counted in packed fields
  static constexpr bool settles = Flags::settles;  // heads from the lane below, in two steps
  // Transposed: the elements pass through the tile's staging on their way in too (each warp its
  // share, before the block's first barrier; the kept ones are staged after it); the heads' flags.
  static constexpr bool transposes = Transposed;
  static_assert(!Transposed || (!Reread && !settles), "a transposed selection holds its elements");
  struct items {
    std::conditional_t<Reread && !settles, nothing, P[vector]> p;  // read again: held until settle
    std::conditional_t<Reread, nothing, Q[pairs ? vector : 1]> q;
    std::conditional_t<settles, P, nothing> edge;  // the key before the warp's first, until settle
    unsigned keep;  // bit k: element k is kept (one register, not one per element)
  };
  static_assert(vector <= 32, "a vector's kept bits fit one word");
  struct shared_storage {
    shared_array<P, items_per_tile> p;
    shared_array<Q, pairs ? items_per_tile : 1> q;
  };
  const P* p;
  const Q* q;
  P* p_out;
  Q* q_out;
  Flags flags;
  std::size_t n;
  bool p_aligned, q_aligned;
  bool partition;
  const unsigned long long* total_kept;  // partition: counted before the kernel
  std::size_t* count;                    // where the count goes (device or pinned host memory)

  __device__ add_counts combiner() const { return {}; }
  __device__ void prefetch(std::size_t i, std::size_t count) const {
    prefetch_l2(p, i, count, n);
    if constexpr (pairs) prefetch_l2(q, i, count, n);
    flags.prefetch(i, count, n);
  }
  __device__ maybe<kept_count> initial() const { return {{0}, true}; }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, kept_count (&s)[vector], Whole whole) const {
    bool keep[vector];
    if constexpr (Reread) {
      P e[vector];
      load_elements<vector>(p, i, n, p_aligned, e, whole);
      flags(i, n, e, keep, whole);
    } else {
      load_elements<vector>(p, i, n, p_aligned, it.p, whole);
      if constexpr (pairs) load_elements<vector>(q, i, n, q_aligned, it.q, whole);
      flags(i, n, it.p, keep, whole);
    }
    mark(i, it, s, keep, whole);
  }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, kept_count (&s)[vector], Whole whole, shared_storage& shared) const {
    const std::size_t first = i - threadIdx.x % 32 * vector;
    P* const ps = warp_staging<vector>(shared.p.data());
    Q* const qs = pairs ? warp_staging<vector>(shared.q.data()) : nullptr;
    if constexpr (pairs) {
      stage_transposed<vector>(p, q, first, n, p_aligned, q_aligned, ps, qs, whole);
    } else {
      stage_transposed<vector>(p, first, n, p_aligned, ps, whole);
    }
    __syncwarp();
    take_transposed(ps, it.p);
    if constexpr (pairs) take_transposed(qs, it.q);
    const P before = staged_key_before<vector>(ps, p, i, n, it.p[0]);
    __syncwarp();
    bool keep[vector];
    flags.heads(before, i, n, it.p, keep, whole);
    mark(i, it, s, keep, whole);
  }
  // Flags that settle (unique's heads by key_before::shuffled): round r's loads, then its flags once
  // every round is loaded.
  template <class Whole>
  __device__ void load(std::size_t i, items& it, int r, Whole whole) const {
    load_elements<vector>(p, i, n, p_aligned, it.p, whole);
    if constexpr (pairs && !Reread) load_elements<vector>(q, i, n, q_aligned, it.q, whole);
    it.edge = edge_key<vector, false>(p, i, n, r, rounds, Whole::value || i < n, it.p[0]);
  }
  template <class Whole>
  __device__ void settle(std::size_t i, const items& earlier, items& it, const items&, int r, kept_count (&s)[vector],
                         Whole whole) const {
    bool keep[vector];
    flags.heads(key_below(earlier.p, it.p, it.edge, r == 0), i, n, it.p, keep, whole);
    mark(i, it, s, keep, whole);
  }
  template <class Whole>
  __device__ void mark(std::size_t i, items& it, kept_count (&s)[vector], const bool (&keep)[vector], Whole) const {
    it.keep = 0;
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      const bool kept = keep[k] && (Whole::value || i + k < n);
      it.keep |= unsigned{kept} << k;
      s[k] = {kept ? 1u : 0u};
    }
  }
  // Element k (at i + k) to place `at` of the tile's staging.
  __device__ void stage(const items& it, std::size_t i, int k, unsigned at, shared_storage& shared) const {
    if constexpr (Reread) {
      shared.p.data()[at] = p[i + k];
      if constexpr (pairs) shared.q.data()[at] = q[i + k];
    } else {
      shared.p.data()[at] = it.p[k];
      if constexpr (pairs) shared.q.data()[at] = it.q[k];
    }
  }
  // Places within a tile fit 32 bits: the element's rank among the tile's kept ones, or, for a
  // partition's rejected one, the tile's kept count plus its rank among the rejected.
  __device__ void emit(std::size_t i, const items& it, const kept_count (&)[vector], maybe<kept_count> running,
                       const tile_info<kept_count>& tile, shared_storage& shared) const {
    auto rank = static_cast<unsigned>(running.value.value - tile.prefix.value.value);
    const auto position = static_cast<unsigned>(i - tile.base);
    const auto kept_in_tile = static_cast<unsigned>(tile.aggregate.value);
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      const unsigned kept = it.keep >> k & 1u;
      if (kept) {
        stage(it, i, k, rank, shared);
      } else if (partition && i + k < n) {
        stage(it, i, k, kept_in_tile + (position + k - rank), shared);
      }
      rank += kept;
    }
  }
  // The kept elements to their place after everything kept before the tile; a partition's
  // rejected ones after all the kept ones and the rejected of earlier tiles.
  __device__ void finish(const tile_info<kept_count>& tile, shared_storage& shared) const {
    const auto here = static_cast<unsigned>(tile.aggregate.value);
    const std::uint64_t before = tile.prefix.value.value;
    // The count, once by the last tile (not checked for at every element of every tile).
    if (count != nullptr && threadIdx.x == 0 && tile.tile == tile.tiles - 1) *count = before + here;
    P* const p_to = p_out + before;
    for (unsigned j = threadIdx.x; j < here; j += blockDim.x) {
      p_to[j] = shared.p.data()[j];
      if constexpr (pairs) q_out[before + j] = shared.q.data()[j];
    }
    if (!partition) return;
    const auto valid = static_cast<unsigned>(n - tile.base < items_per_tile ? n - tile.base : items_per_tile);
    const std::uint64_t others = *total_kept + (tile.base - before);
    for (unsigned j = here + threadIdx.x; j < valid; j += blockDim.x) {
      p_out[others + (j - here)] = shared.p.data()[j];
      if constexpr (pairs) q_out[others + (j - here)] = shared.q.data()[j];
    }
  }
};

// run_length_encode, reduce_by_key: (runs started, the sum since the last start). Keys are written
// at the first element of their run (its first key, as cpu does; Thrust and CUB write the last
// key, see first_key_and), sums at the last.
template <class T>
struct run_sum {
  std::uint64_t runs;
  T value;
};
template <class T, class Op>
struct by_run {
  Op op;
  __device__ run_sum<T> operator()(const run_sum<T>& a, const run_sum<T>& b) const {
    return {a.runs + b.runs, b.runs ? b.value : op(a.value, b.value)};
  }
};

// The values of run-length encoding: a one per element, loaded from nowhere.
template <class C>
struct ones {
  __device__ C operator[](std::size_t) const { return C(1); }
};

// The tile of a by-key reduction: rounds by the arrays read (the keys, and the values unless they
// are run-length encoding's ones); run-length encoding of smaller keys than 8 bytes in 256 x 6
// (rows run_length_encode/int32, raw_256x6 against raw_256x4 and cub, of docs/benchmarks/scan.md,
// "The ninth run"). The keys are read again rather than held (Reread, below) where they are 4
// bytes or less with values of 4 bytes or less or none, and for run-length encoding of 8-byte
// keys, which then holds 128 x 16 (128 x 12 held 128 registers with its keys: rows
// run_length_encode/int32 and /int64 and reduce_by_key/float and /int32, raw against
// raw_<shape> and raw_reread_<shape>, "The twelfth run" and "The thirteenth run"). Keys with
// values read again take the key before from the lane below (`from`; 1.4% faster for floats, rows
// reduce_by_key/float, raw against raw_reread_256x4, "The eighteenth run"); run-length encoding
// reads it (two steps lost there).
template <class K, class T, class Values>
struct reduce_by_key_shape {
  static constexpr bool counting = std::is_same_v<Values, ones<T>>;
  static constexpr bool wide_runs = counting && sizeof(K) == 8;
  static constexpr bool reread = wide_runs || (sizeof(K) <= 4 && (counting || sizeof(T) <= 4));
  static constexpr int threads = wide_runs ? 128 : scan_threads;
  static constexpr int rounds = wide_runs ? 16 : counting ? 6 : keyed_rounds_of<K, T>;
  static constexpr key_before from = reread && !counting ? key_before::shuffled : key_before::read;
  // Run-length encoding loads no counts: its vectors are the keys' own, of at most 4 elements (16
  // bytes of 4-byte keys), not of the 8-byte counts (ncu of the int32 encoding with 2 keys a vector;
  // docs/benchmarks/scan.md, "The eighth run").
  static constexpr int vector = counting ? scan_vector<K, std::uint32_t> : scan_vector<K, T>;
};

// Staged: a tile's keys and sums gathered in shared memory by run and written by the whole block
// with consecutive threads on consecutive runs (CUB's two-phase scatter), instead of each thread
// storing its own runs where they fall; a variant for bench_scan's raw_staged_<threads>x<rounds>
// rows, and, transposed too (a lane's runs are then V elements from its neighbours'), for its
// raw_transposed_staged_<threads>x1x<V> rows (its tiles must leave the engine room within 48 KB
// of shared memory).
// Reread: the keys are not kept from the load to the writes: a run's key is read again where the
// run starts (from L1 or L2, where the load left it), and whether a vector's last element ends its
// run is found at the load, as a bit beside the heads; the registers of rounds x vector keys given
// back (run-length encoding of int64 holds 128 with them, a quarter of the SM's warps; ncu,
// docs/benchmarks/scan.md, "The eleventh run"). The keys' output is apart from them, so no tile
// writes over keys another has yet to read again.
template <class K, class T, class Values, class Op, class Eq, int Threads = reduce_by_key_shape<K, T, Values>::threads,
          int Rounds = reduce_by_key_shape<K, T, Values>::rounds, bool Staged = false, int MinBlocks = 0,
          bool Reread = reduce_by_key_shape<K, T, Values>::reread,
          key_before From = reduce_by_key_shape<K, T, Values>::from,
          int Vector = reduce_by_key_shape<K, T, Values>::vector, bool Transposed = false>
struct reduce_by_key_program {
  static constexpr bool counting = reduce_by_key_shape<K, T, Values>::counting;
  using scan_type = run_sum<T>;
  static constexpr int vector = Vector;
  static constexpr int threads = Threads, rounds = Rounds, min_blocks = MinBlocks;
  static constexpr std::size_t items_per_tile = std::size_t{threads} * rounds * vector;
  static constexpr bool counts_flags = false;
  static constexpr bool settles = From == key_before::shuffled && !Transposed;
  static constexpr bool transposes = Transposed;
  // What a thread keeps of its elements: its scan values, (runs, value) pairs of 12 to 16 bytes,
  // are rebuilt from these where they are needed (scan_value), not held beside them: the registers
  // they took limited the blocks per SM. A two-step load holds its keys until settle.
  struct items : run_head_bits {
    std::conditional_t<Reread, nothing, K[vector]> key;  // Reread: bit `vector` of heads instead
    std::conditional_t<counting, ones<T>, T[vector]> value;
    std::conditional_t<settles, loaded_keys<K, vector, Reread>, nothing> loaded;
  };
  // Run r of the tile's keys at r - before (the runs started before the tile); its sum at
  // r - before + 1, slot 0 being the run the tile continues. Whether the tile's first element
  // starts a run and whether its last ends one bound the sums it writes.
  struct staged {
    shared_array<K, items_per_tile> keys;
    shared_array<T, items_per_tile + 1> sums;
    bool head_first, tail_last;
  };
  // Transposed: each warp's keys (and values) staged between the loads and the lanes.
  struct staging {
    shared_array<K, threads * vector> keys;
    shared_array<T, counting ? 1 : threads * vector> values;
  };
  // Both, as CUB's agents have them: the loads' staging and the runs' in one place, the engine's
  // first __syncthreads (block_combine_warps, after every warp's load) between their uses.
  union staging_then_staged {
    staging in;
    staged out;
  };
  using shared_storage = std::conditional_t<Staged && Transposed, staging_then_staged,
                                            std::conditional_t<Staged, staged, std::conditional_t<Transposed, staging, nothing>>>;
  __device__ static staging& staging_of(shared_storage& s) {
    if constexpr (Staged) {
      return s.in;
    } else {
      return s;
    }
  }
  __device__ static staged& staged_of(shared_storage& s) {
    if constexpr (Transposed) {
      return s.out;
    } else {
      return s;
    }
  }
  const K* keys;
  Values values;  // const T*, or ones<T>
  K* keys_out;
  T* sums_out;
  std::size_t n;
  Op op;
  Eq eq;
  bool keys_aligned, values_aligned;
  std::size_t* count;

  __device__ by_run<T, Op> combiner() const { return {op}; }
  __device__ void prefetch(std::size_t i, std::size_t count) const {
    prefetch_l2(keys, i, count, n);
    if constexpr (!counting) prefetch_l2(values, i, count, n);
  }
  __device__ maybe<scan_type> initial() const { return {scan_type{}, false}; }
  // Element k's scan value: one run more where it starts one, and its value.
  __device__ scan_type scan_value(const items& it, int k) const { return {it.head(k) ? 1u : 0u, it.value[k]}; }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, Whole whole) const {
    if constexpr (Reread) {
      K k[vector];
      load_elements<vector>(keys, i, n, keys_aligned, k, whole);
      it.template find<vector>(keys, i, n, k, eq, whole);
      const bool ends = i + vector >= n || !eq(k[vector - 1], keys[i + vector]);
      it.heads |= unsigned{ends} << vector;
    } else {
      load_elements<vector>(keys, i, n, keys_aligned, it.key, whole);
      it.template find<vector>(keys, i, n, it.key, eq, whole);
    }
    if constexpr (!counting) load_elements<vector>(values, i, n, values_aligned, it.value, whole);
  }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, Whole whole, shared_storage& shared) const {
    const std::size_t first = i - threadIdx.x % 32 * vector;
    staging& st = staging_of(shared);
    K* const ks = warp_staging<vector>(st.keys.data());
    T* const vs = counting ? nullptr : warp_staging<vector>(st.values.data());
    if constexpr (counting) {
      stage_transposed<vector>(keys, first, n, keys_aligned, ks, whole);
    } else {
      stage_transposed<vector>(keys, values, first, n, keys_aligned, values_aligned, ks, vs, whole);
    }
    __syncwarp();
    K k[vector];
    take_transposed(ks, k);
    if constexpr (!counting) take_transposed(vs, it.value);
    const K before = staged_key_before<vector>(ks, keys, i, n, k[0]);
    [[maybe_unused]] bool ends = false;
    if constexpr (Reread) {
      ends = i + vector >= n || !eq(k[vector - 1], staged_key_after<vector>(ks, keys, i, n, k[vector - 1]));
    }
    __syncwarp();
    it.find_after(before, i, n, k, eq, whole);
    if constexpr (Reread) {
      it.heads |= unsigned{ends} << vector;
    } else {
#pragma unroll
      for (int j = 0; j < vector; ++j) it.key[j] = k[j];
    }
  }
  // key_before::shuffled's two steps: round r's loads; then, every round loaded, its heads and, read
  // again, whether its vector's last element ends its run (the key after from the lane above).
  template <class Whole>
  __device__ void load(std::size_t i, items& it, int r, Whole whole) const {
    it.loaded.load(keys, i, n, keys_aligned, r, rounds, whole);
    if constexpr (!counting) load_elements<vector>(values, i, n, values_aligned, it.value, whole);
  }
  template <class Whole>
  __device__ void settle(std::size_t i, const items& earlier, items& it, const items& later, int r, Whole whole) const {
    const auto& l = it.loaded;
    it.find_after(key_below(earlier.loaded.k, l.k, l.before, r == 0), i, n, l.k, eq, whole);
    if constexpr (Reread) {
      const K after = key_above(l.k, later.loaded.k, l.after, r == rounds - 1);
      const bool ends = i + vector >= n || !eq(l.k[vector - 1], after);
      it.heads |= unsigned{ends} << vector;
    } else {
#pragma unroll
      for (int k = 0; k < vector; ++k) it.key[k] = l.k[k];
    }
  }
  // Element k's key (at i + k), and whether it ends its run (the last element, or the next differs).
  __device__ K key_of(const items& it, std::size_t i, int k) const {
    if constexpr (Reread) {
      return keys[i + k];
    } else {
      return it.key[k];
    }
  }
  __device__ bool ends_run(const items& it, std::size_t i, int k) const {
    if (i + k == n - 1) return true;
    if (k + 1 < vector) return it.head(k + 1);
    if constexpr (Reread) {
      return it.head(vector);
    } else {
      return !eq(it.key[k], keys[i + k + 1]);
    }
  }
  __device__ void emit(std::size_t i, const items& it, maybe<scan_type> running, const tile_info<scan_type>& tile,
                       shared_storage& shared) const {
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      if (i + k >= n) break;
      running = {combine(running, scan_value(it, k), combiner()), true};
      const std::uint64_t run = running.value.runs - 1;
      const bool tail = ends_run(it, i, k);
      if constexpr (Staged) {
        staged& st = staged_of(shared);
        const std::uint64_t before = tile.prefix.present ? tile.prefix.value.runs : 0;
        const std::size_t tile_last = (n - tile.base < items_per_tile ? n : tile.base + items_per_tile) - 1;
        if (it.head(k)) st.keys.data()[run - before] = key_of(it, i, k);
        if (tail) st.sums.data()[run + 1 - before] = running.value.value;
        if (i + k == tile.base) st.head_first = it.head(k);
        if (i + k == tile_last) st.tail_last = tail;
      } else {
        if (it.head(k)) keys_out[run] = key_of(it, i, k);
        if (tail) sums_out[run] = running.value.value;
      }
    }
  }
  // Staged: the tile's keys, then the sums of the runs it ends: slots [head_first, heads] or, where
  // its last element's run goes on, one fewer.
  __device__ void finish(const tile_info<scan_type>& tile, shared_storage& shared) const {
    // The count of runs, once by the last tile.
    if (count != nullptr && threadIdx.x == 0 && tile.tile == tile.tiles - 1)
      *count = (tile.prefix.present ? tile.prefix.value.runs : 0) + tile.aggregate.runs;
    if constexpr (Staged) {
      staged& st = staged_of(shared);
      const std::uint64_t before = tile.prefix.present ? tile.prefix.value.runs : 0;
      const auto heads = static_cast<unsigned>(tile.aggregate.runs);
      for (unsigned j = threadIdx.x; j < heads; j += threads) keys_out[before + j] = st.keys.data()[j];
      const unsigned first = st.head_first ? 1u : 0u, end = st.tail_last ? heads + 1 : heads;
      for (unsigned j = first + threadIdx.x; j < end; j += threads) sums_out[before - 1 + j] = st.sums.data()[j];
    }
  }
};

// The partition's count of kept elements before its single pass (where the rejected ones start),
// and a counted compaction's (whether its output holds them).
template <int V, class S, class Pred>
__global__ void __launch_bounds__(block_size)
    count_kept_kernel(const S* stencil, Pred pred, std::size_t n, bool aligned, unsigned long long* total) {
  unsigned long long kept = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x * V;
  for (std::size_t i = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * V; i < n; i += stride) {
    S s[V];
    load_elements<V>(stencil, i, n, aligned, s);
#pragma unroll
    for (int k = 0; k < V; ++k) kept += i + k < n && pred(s[k]);
  }
  kept = block_reduce(kept, [](unsigned long long a, unsigned long long b) { return a + b; }, 0ull);
  if (threadIdx.x == 0) atomicAdd(total, kept);
}

// The runs of a counted output's unique, run_length_encode or reduce_by_key, counted before its
// single pass: the elements that differ from the one before them (and the first).
template <int V, class K, class Eq>
__global__ void __launch_bounds__(block_size)
    count_heads_kernel(const K* keys, Eq eq, std::size_t n, bool aligned, unsigned long long* total) {
  unsigned long long heads = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x * V;
  for (std::size_t i = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * V; i < n; i += stride) {
    K k[V];
    bool head[V];
    load_elements<V>(keys, i, n, aligned, k);
    run_heads<V>(keys, i, n, k, eq, head, std::false_type{});
#pragma unroll
    for (int j = 0; j < V; ++j) heads += i + j < n && head[j];
  }
  heads = block_reduce(heads, [](unsigned long long a, unsigned long long b) { return a + b; }, 0ull);
  if (threadIdx.x == 0) atomicAdd(total, heads);
}

// ---- for the Thrust and CUB implementations -----------------------------------------------------

// DevicePartition::Flagged writes the rejected elements from the end backwards: turned around
// here (they are read and written once more), and the count (CUB's, in scratch) delivered.
template <class T>
__global__ void reverse_tail_kernel(T* out, std::size_t n, const std::size_t* kept, std::size_t* count) {
  const std::size_t k = *kept;
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j < (n - k) / 2) {
    const T a = out[k + j];
    out[k + j] = out[n - 1 - j];
    out[n - 1 - j] = a;
  }
  if (j == 0) *count = k;
}

// Thrust's and CUB's reduce_by_key write, for each run, the key just before the next run starts
// (the run's last key): under an equality other than ==, or == on floating-point keys (-0.0 and
// +0.0 are one run), not the bits of its first. The pairs (key, value) reduced with this keep the
// first key, which goes out with the sum.
template <class K, class T, class Op>
struct first_key_and {
  Op op;
  __host__ __device__ thrust::tuple<K, T> operator()(const thrust::tuple<K, T>& a, const thrust::tuple<K, T>& b) const {
    return thrust::tuple<K, T>(thrust::get<0>(a), op(thrust::get<1>(a), thrust::get<1>(b)));
  }
};

// Thrust's own reduce_by_key (not CUB's) pads its last tile with copies of one key and counts on
// them comparing equal: under an equality that is not reflexive (a NaN equals nothing, itself
// included) every copy would start a run, miscounting and writing past the runs. Keys that carry
// their positions are equal where the positions are, which only the padding's copies share.
template <class Eq>
struct equal_or_same_position {
  Eq eq;
  template <class A, class B>
  __host__ __device__ bool operator()(const A& a, const B& b) const {
    return thrust::get<1>(a) == thrust::get<1>(b) || eq(thrust::get<0>(a), thrust::get<0>(b));
  }
};

}  // namespace prism::detail
