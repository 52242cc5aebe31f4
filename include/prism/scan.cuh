// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism's scans and the selections built on them, for any operator, predicate and equality, in
// every implementation:
//
//   prism::inclusive_scan(policy, x, out, op)                    out[i] = x[0] op ... op x[i]
//   prism::exclusive_scan(policy, x, out, init, op)              out[i] = init op x[0] op ... op x[i-1]
//   prism::inclusive_scan_by_key(policy, keys, x, out, op, eq)   the same, restarting where !eq(key[i-1], key[i])
//   prism::exclusive_scan_by_key(policy, keys, x, out, init, op, eq)
//   prism::compact_if(policy, x, stencil, out, pred)             x[i] where pred(stencil[i]), in order
//   prism::partition_if(policy, x, stencil, out, pred)           those first, then the others, both in order
//   prism::unique(policy, x, out, eq)                            each x[i] with !eq(x[i-1], x[i])
//   prism::unique_by_key(policy, keys, x, keys_out, out, eq)
//   prism::run_length_encode(policy, x, unique_out, counts_out, eq)
//   prism::reduce_by_key(policy, keys, x, keys_out, sums_out, op, eq)
//
// The selections return how many elements they wrote (the call waits), or, with a one-element
// `count` array before the functors, write it there (nothing waits; impl::thrust excepted). This is
// the generic layer under the compiled family of <prism/scan.hpp> (sum, min and max on the standard
// types); CUDA translation units call it with their own types and functors.
//
// Contract. op must be associative (it need not commute, and needs no identity: every
// implementation keeps the order of the elements); eq must be an equivalence; both, and pred, must
// be __host__ __device__ for impl::cpu (a __device__-only lambda is refused there).
//
// The implementations (figures: docs/benchmarks/scan.md):
//   cpu     Thrust's algorithms through its OpenMP system, on host memory.
//   thrust  the same Thrust algorithms on the GPU, on the caller's stream (par_nosync), temporary
//           storage from prism's scratch. Thrust's scans are CUB's DeviceScan underneath and do not
//           synchronize; its selections (copy_if, stable_partition_copy, unique_copy,
//           unique_by_key_copy, reduce_by_key) return an iterator, so they copy the count to the
//           host and wait, even with par_nosync: those cannot be captured into a graph. Thrust's
//           unique counts in int: refused past 2^31 - 1 elements.
//   cub     cub::DeviceScan, DeviceSelect (Flagged, FlaggedIf, Unique, UniqueByKey),
//           DevicePartition::Flagged (which writes the rejected elements in reverse: a second
//           kernel turns them around), DeviceRunLengthEncode::Encode for integer values (counts
//           in int: refused past 2^31 - 1 elements) and DeviceReduce::ReduceByKey for integer keys;
//           floating-point keys (whose == joins -0.0 and +0.0) go through ReduceByKey's dispatch
//           with each run's first key carried along, as both write the run's last key; temporary
//           storage from prism's scratch.
//   raw     one pass with decoupled look-back (<prism/primitives/tile_state.cuh>): each block takes
//           a tile of 128 threads x 12 vectors of 16 bytes (6144 floats; 384 or 256 threads x 4
//           vectors for the selections, 256 x 4 for the by-key programs), asks L2 for it early
//           (below), reduces it, publishes its aggregate, learns the combination of everything
//           before it from its predecessors' states, publishes its inclusive prefix and writes its
//           outputs. Every operation is one `program` for the same kernel: the scan's value is the
//           element (scan), a (value, run started) pair (scan by key), a count of kept elements
//           (the selections, whose kept elements are gathered in shared memory and written out in
//           order with coalesced stores), or a (runs started, sum) pair (run-length encoding,
//           reduce by key). 2n bytes for a scan, like CUB's: one kernel, after a cudaMemsetAsync
//           that zeroes the tile states (prism's scratch is shared by every call on the stream, so
//           it holds anything when a call begins; skipped for a single tile, n <= 6144 floats).
//           The partition counts its flags first (n bytes more read), so that the rejected
//           elements know where they start.
//           Tiles take their index from the scratch's zeroed counter (a ticket, in the order blocks
//           start: what makes the look-back deadlock-free), which the last tile sets back to zero;
//           while the ticket's atomic is in flight, a bulk prefetch asks L2 for the tile of the
//           block's own index, the one it most likely gets.
// Determinism. The order of the elements is always kept, but the grouping is not fixed on the GPU:
// in a decoupled look-back (raw, and CUB's scans under cub and thrust) a tile combines whichever
// predecessors' states it finds published, so a floating-point sum (a scan's, reduce_by_key's) may
// differ in its last bits from run to run. Integer results, min, max and the selections' choices
// of elements are exact.
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/tile_state.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/scan.hpp>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/iterator>
#include <cuda/std/functional>
#include <thrust/count.h>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {

namespace functors {
// a == b: what the compiled selections compare with (IEEE for floating point: -0.0 == +0.0, a NaN
// equals nothing). CUB's Unique, Encode and ReduceByKey compare with == themselves: the cub
// implementation calls them where the equality is this one.
template <class T>
struct equal_to {
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a == b; }
};

// A flag that is not zero.
template <class T>
struct nonzero {
  __host__ __device__ bool operator()(const T& flag) const { return flag != T(0); }
};
}  // namespace functors

namespace detail {

// ---- raw: the single-pass kernel ------------------------------------------------------------------

// One tile per block. Its threads and its rounds of 16-byte vectors per thread per array are each
// program's own (Program::threads, Program::rounds), the fastest of the shapes tried on the H200
// at 2^28: a scan keeps 12 rounds in flight in blocks of 128 threads (192 bytes of each array per
// thread; 128 x 16, 128 x 8 and 256 x 8 were slower); the others hold more per element until the
// look-back ends (a compaction's values and flags), so 4 rounds: the selections in blocks of 384
// threads where their staged elements fit 32 KB of shared memory (a float compaction ran faster
// that way than in blocks of 256), else 256, and the by-key programs in blocks of 256 (in blocks of 128,
// unique, run_length_encode and reduce_by_key were slower). The shapes kept are measured by the raw
// rows of docs/benchmarks/scan.md (rows inclusive_scan/float/raw, compact/float/raw, unique/float/raw).
inline constexpr int streaming_threads = 128;
inline constexpr int streaming_rounds = 12;
inline constexpr int scan_threads = block_size;
inline constexpr int selection_threads = 384;
inline constexpr int scan_rounds = 4;

// The widest of a call's element types, in bytes: what its `automatic` table is chosen by.
template <class... T>
constexpr std::size_t widest = std::max({sizeof(T)...});

// Elements per vector for the arrays of a program: 16 bytes of the widest (one element past 16).
template <class... T>
constexpr int scan_vector = std::max(1, vector_width<T...>);

template <class T, int V>
constexpr bool vectorizable = std::is_trivially_copyable_v<T> &&
                              (sizeof(T) * V == 1 || sizeof(T) * V == 2 || sizeof(T) * V == 4 ||
                               sizeof(T) * V == 8 || sizeof(T) * V == 16);

// Whether p can be accessed with V-element vectors from element 0 on (every vector of a tile then
// is aligned: tiles and vectors start at multiples of V).
template <int V, class T>
bool vector_aligned(const T* p) {
  if constexpr (vectorizable<T, V>) {
    return aligned(p, sizeof(T) * V);
  } else {
    return false;
  }
}

// Elements i .. i + V - 1 (those below n): one 16-byte load where the array is aligned and the
// vector whole, element by element otherwise. Elements past n repeat element n - 1 (never read
// past the array); the programs ignore them. `whole` says at compile time that the vector lies
// inside the array (in every tile but the last), so no bound is checked.
template <int V, class T, bool Whole = false>
__device__ void load_elements(const T* p, std::size_t i, std::size_t n, bool aligned, T (&out)[V],
                              std::bool_constant<Whole> = {}) {
  if constexpr (vectorizable<T, V>) {
    if (aligned && (Whole || i + V <= n)) {
      const vector_of<T, V> v = load_vector<V>(p + i);
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = v.element[k];
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = p[i + k < n ? i + k : n - 1];
}

template <int V, class T>
__device__ void store_elements(T* p, std::size_t i, std::size_t n, bool aligned, const T (&in)[V]) {
  if constexpr (vectorizable<T, V>) {
    if (aligned && i + V <= n) {
      vector_of<T, V> v;
#pragma unroll
      for (int k = 0; k < V; ++k) v.element[k] = in[k];
      store_vector<V>(p + i, v);
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k)
    if (i + k < n) p[i + k] = in[k];
}

// Asks L2 for elements first .. first + count - 1 of p (those below n), without waiting: one
// bulk prefetch (sm_90 on: cp.async.bulk.prefetch.L2) of the 16-byte-aligned bytes inside that
// range. A hint only; older GPUs skip it.
template <class T>
__device__ void prefetch_l2(const T* p, std::size_t first, std::size_t count, std::size_t n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (p == nullptr || first >= n) return;
  const std::size_t last = first + count < n ? first + count : n;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p + first) + 15) / 16 * 16;
  const auto end = reinterpret_cast<std::uintptr_t>(p + last) / 16 * 16;
  if (end <= begin) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin), "r"(static_cast<unsigned>(end - begin))
               : "memory");
#endif
}

// What a program knows of its tile when it writes its outputs.
template <class S>
struct tile_info {
  std::size_t tile, tiles;
  std::size_t base;  // the tile's first element
  std::size_t n;
  maybe<S> prefix;   // everything before the tile combined (absent for tile 0 of a scan without init)
  S aggregate;       // the tile's own elements combined
};

// Whether a program's tile is scanned in the blocked arrangement (below): every scan but the
// selections' counts (packed in one word instead) and scan values over 16 bytes (a caller's own
// type, whose R x 33 per warp would crowd shared memory).
template <class Program>
constexpr bool blocked_round_scan = !Program::counts_flags && sizeof(typename Program::scan_type) <= 16;

template <class Program>
constexpr std::size_t tile_items = std::size_t{Program::threads} * Program::rounds * Program::vector;

// Raw bytes for a shared array of T: shared variables cannot have constructors.
template <class T, std::size_t N>
struct shared_array {
  alignas(alignof(T)) unsigned char bytes[N * sizeof(T)];
  __device__ T* data() { return reinterpret_cast<T*>(bytes); }
};

// One tile per block. Each warp owns a contiguous span of 32 * rounds * V elements: in round r
// lane l holds the V elements at span + (r * 32 + l) * V, so each round is one coalesced 16-byte
// load per lane, and the elements are in order lane by lane, round by round, warp by warp. The
// scan of a tile: each thread reduces its vector, the warp's vectors are scanned (in a blocked
// arrangement through shared memory, or, for counts, every round at once in packed fields), the
// warps combined through shared memory; then the tile's prefix from the look-back, and the
// program writes every element with its exclusive prefix.
//
// A Program supplies: scan_type S and its operator (combiner()); vector (V); threads (the block's)
// and rounds (R); counts_flags (its scan values are 0 or 1: a count); items (what a thread keeps
// of its elements besides their scan values) and shared_storage; prefetch(i, count) (asks L2 for
// the inputs of elements i .. i + count - 1); initial() (the prefix of element 0: the init of an
// exclusive scan, or absent); load(i, items, s, whole) (the elements i .. i + V - 1 into scan
// values; whole, a std::bool_constant, is true where they are all inside the array);
// emit(i, items, s, prefix, tile, shared) (the outputs of those elements, given the combination
// of everything before element i); finish(tile, shared), after a __syncthreads, for what the
// whole block writes together.
template <class Program>
__global__ void __launch_bounds__(Program::threads)
    single_pass_kernel(Program program, tile_state<typename Program::scan_type> states, unsigned* ticket,
                       std::size_t n, unsigned tiles) {
  using S = typename Program::scan_type;
  constexpr int V = Program::vector, R = Program::rounds;
  const auto op = program.combiner();
  __shared__ typename Program::shared_storage program_shared;
  __shared__ shared_array<S, Program::threads / 32> warp_totals;
  __shared__ shared_array<S, 1> tile_exclusive;
  __shared__ unsigned tile_ticket;
  __shared__ shared_array<S, blocked_round_scan<Program> ? Program::threads / 32 * R * 33 : 1> round_scan;

  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  constexpr std::size_t warp_items = std::size_t{32} * R * V;
  // Blocks start in about the order of their index, and so take tickets in about that order: the
  // tile this block will most likely get is its own index's. L2 is asked for it now, while the
  // ticket's atomic is in flight, and the loads below then mostly hit L2 (the float scan and
  // compaction at 2^28 were faster with it: docs/benchmarks/scan.md, rows inclusive_scan/float/raw
  // and compact/float/raw). Should the ticket name another tile, that one's block fetches this.
  if (lane == 0) program.prefetch(std::size_t{blockIdx.x} * tile_items<Program> + warp * warp_items, warp_items);
  // Tiles in the order blocks start: every tile this one waits for has started before it.
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(ticket, 1u);
    if (t == tiles - 1) *ticket = 0;  // the last to take one: the counter is the next call's again
    tile_ticket = t;
  }
  __syncthreads();
  const std::size_t tile = tile_ticket;
  const std::size_t base = tile * tile_items<Program>;
  const std::size_t span = base + warp * warp_items;

  typename Program::items items[R];
  S s[R][V];
  // Every tile but the last lies inside the arrays: its loads check no bounds.
  const auto load_tile = [&](auto whole) {
#pragma unroll
    for (int r = 0; r < R; ++r) program.load(span + (std::size_t(r) * 32 + lane) * V, items[r], s[r], whole);
  };
  if (base + tile_items<Program> <= n) {
    load_tile(std::true_type{});
  } else {
    load_tile(std::false_type{});
  }

  // The warp's R x 32 vectors scanned in order (round by round, lane by lane): what comes before
  // each thread's vector of each round within the warp, and the warp's total.
  const auto vector_total = [&](int r) {
    S a = s[r][0];
#pragma unroll
    for (int k = 1; k < V; ++k) a = op(a, s[r][k]);
    return a;
  };
  maybe<S> round_prefix[R];
  S warp_total;
  if constexpr (Program::counts_flags) {
    // Counts of kept elements: each vector's count (0 .. V) for all R rounds packed in one 64-bit
    // word, 16 bits per round, and one warp scan of those words counts every round at once (a
    // field sums at most 32 V: it never carries into the next).
    static_assert(R <= 4 && 32 * V < 65536, "the rounds' counts fit 16-bit fields of one word");
    std::uint64_t counts = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      unsigned c = 0;
#pragma unroll
      for (int k = 0; k < V; ++k) c += s[r][k].value != 0;
      counts |= std::uint64_t{c} << (16 * r);
    }
    const functors::plus<std::uint64_t> add;
    const std::uint64_t inclusive = warp_inclusive_scan(counts, add);
    const std::uint64_t up = shuffle_up(inclusive, 1);  // every lane shuffles; lane 0 has none below
    const std::uint64_t below = lane > 0 ? up : 0;
    const std::uint64_t all = shuffle_index(inclusive, 31);
    unsigned before = 0;  // the kept elements of the warp's earlier rounds
#pragma unroll
    for (int r = 0; r < R; ++r) {
      round_prefix[r] = {S{before + static_cast<unsigned>(below >> (16 * r) & 0xFFFFu)}, true};
      before += static_cast<unsigned>(all >> (16 * r) & 0xFFFFu);
    }
    warp_total = S{before};
  } else if constexpr (blocked_round_scan<Program>) {
    // Each vector reduced, and the warp's R x 32 of those scanned in a blocked arrangement: through
    // shared memory lane l takes positions l R .. l R + R - 1 of the warp's order, scans them in
    // sequence, and one warp scan of the lanes' totals joins them (one warp scan per tile instead of
    // one per round, faster: docs/benchmarks/scan.md, row inclusive_scan/float/raw). Position q
    // lives at q + q / 32: the padding keeps the lanes' strided reads off each other's banks.
    S* mine = round_scan.data() + warp * (R * 33);
#pragma unroll
    for (int r = 0; r < R; ++r) mine[r * 33 + lane] = vector_total(r);
    __syncwarp();
    S run[R];
#pragma unroll
    for (int j = 0; j < R; ++j) run[j] = mine[(lane * R + j) + (lane * R + j) / 32];
#pragma unroll
    for (int j = 1; j < R; ++j) run[j] = op(run[j - 1], run[j]);
    const S inclusive = warp_inclusive_scan(run[R - 1], op);
    const maybe<S> before_lane{shuffle_up(inclusive, 1), lane > 0};
    warp_total = shuffle_index(inclusive, 31);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < R; ++j)
      mine[(lane * R + j) + (lane * R + j) / 32] = j == 0 ? before_lane.value : combine(before_lane, run[j - 1], op);
    __syncwarp();
#pragma unroll
    for (int r = 0; r < R; ++r) round_prefix[r] = {mine[r * 33 + lane], r > 0 || lane > 0};
  } else {
    // Scan values over 16 bytes: round by round, a warp scan of the lanes' vectors, the rounds
    // chained in order.
    maybe<S> before_round{S{}, false};
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const S inclusive = warp_inclusive_scan(vector_total(r), op);
      const S lane_exclusive = shuffle_up(inclusive, 1);
      round_prefix[r] = lane > 0 ? maybe<S>{combine(before_round, lane_exclusive, op), true} : before_round;
      before_round = {combine(before_round, shuffle_index(inclusive, 31), op), true};
    }
    warp_total = before_round.value;
  }
  S aggregate;
  const maybe<S> warp_prefix = block_combine_warps(warp_total, op, warp_totals.data(), aggregate);

  // The tile's prefix: tile 0 has it at once; the others publish their aggregate and look back.
  maybe<S> prefix = program.initial();
  if (tile == 0) {
    if (threadIdx.x == 0 && tiles > 1) states.publish(0, tile_prefix, combine(prefix, aggregate, op));
  } else {
    if (warp == 0) {
      if (lane == 0) states.publish(tile, tile_aggregate, aggregate);
      const S exclusive = look_back(states, tile, op);
      if (lane == 0) {
        states.publish(tile, tile_prefix, op(exclusive, aggregate));
        *tile_exclusive.data() = exclusive;
      }
    }
    __syncthreads();
    prefix = {*tile_exclusive.data(), true};
  }

  const tile_info<S> info{tile, tiles, base, n, prefix, aggregate};
  const maybe<S> thread_prefix = combine(prefix, warp_prefix, op);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    program.emit(span + (std::size_t(r) * 32 + lane) * V, items[r], s[r],
                 combine(thread_prefix, round_prefix[r], op), info, program_shared);
  }
  __syncthreads();
  program.finish(info, program_shared);
}

// Runs a program over n > 0 elements: the tile states (and `extra_bytes` for the program, both
// zeroed with one cudaMemsetAsync, skipped when there is one tile and nothing extra) in scratch,
// then `before(extra, stream)` (work the program needs done first), then the kernel.
// make(extra) builds the program from the zeroed extra bytes.
struct no_work_before {
  void operator()(void*, cudaStream_t) const {}
};
template <class Program, class Make, class Before = no_work_before>
void run_single_pass(const char* algorithm, const execution_policy& policy, std::size_t n, Make make,
                     std::size_t extra_bytes = 0, Before before = {}) {
  using S = typename Program::scan_type;
  const std::size_t tiles = (n + tile_items<Program> - 1) / tile_items<Program>;
  if (tiles >= UINT_MAX) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                                " elements are more than the raw implementation's 2^32 - 1 tiles");
  }
  const std::size_t extra = (extra_bytes + 255) / 256 * 256;
  const std::size_t state_bytes = tiles > 1 ? tile_state<S>::bytes(tiles) : 0;
  const cudaStream_t stream = policy.stream();
  const scratch lease = acquire_scratch(extra + state_bytes, with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  const std::size_t zeroed = extra + (tiles > 1 ? tile_state<S>::status_bytes(tiles) : 0);
  if (zeroed > 0) check(cudaMemsetAsync(memory, 0, zeroed, stream), "cudaMemsetAsync", algorithm);
  before(static_cast<void*>(memory), stream);
  const tile_state<S> states(memory + extra, tiles);
  launch(algorithm, "single_pass_kernel", single_pass_kernel<Program>, static_cast<unsigned>(tiles), Program::threads,
         stream, make(static_cast<void*>(memory)), states, lease.zeroed_counter(), n, static_cast<unsigned>(tiles));
}

// ---- the programs ---------------------------------------------------------------------------------

struct nothing {};

// scan: the scan value is the element.
template <class T, class Op>
struct scan_program {
  using scan_type = T;
  static constexpr int vector = scan_vector<T>;
  static constexpr int threads = streaming_threads, rounds = streaming_rounds;
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

// Whether element i starts a run: i is 0 or its key differs from the one before. keys[i - 1] of a
// vector's first element was loaded by the lane before (an L1 hit).
template <int V, class K, class Eq, bool Whole>
__device__ void run_heads(const K* keys, std::size_t i, std::size_t n, const K (&k)[V], Eq eq, bool (&head)[V],
                          std::bool_constant<Whole>) {
  head[0] = (Whole || i < n) && (i == 0 || !eq(keys[i - 1], k[0]));
#pragma unroll
  for (int j = 1; j < V; ++j) head[j] = !eq(k[j - 1], k[j]);
}

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

template <class K, class T, class Op, class Eq>
struct scan_by_key_program {
  using scan_type = flagged<T>;
  static constexpr int vector = scan_vector<K, T>;
  static constexpr int threads = scan_threads, rounds = scan_rounds;
  static constexpr bool counts_flags = false;
  struct items {
    bool head[vector];
  };
  using shared_storage = nothing;
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
  template <class Whole>
  __device__ void load(std::size_t i, items& it, scan_type (&s)[vector], Whole whole) const {
    K k[vector];
    T v[vector];
    load_elements<vector>(keys, i, n, keys_aligned, k, whole);
    load_elements<vector>(x, i, n, x_aligned, v, whole);
    run_heads<vector>(keys, i, n, k, eq, it.head, whole);
#pragma unroll
    for (int j = 0; j < vector; ++j) s[j] = {v[j], it.head[j]};
  }
  __device__ void emit(std::size_t i, const items& it, const scan_type (&s)[vector], maybe<scan_type> running,
                       const tile_info<scan_type>&, shared_storage&) const {
    T o[vector];
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      if (exclusive) o[k] = it.head[k] || !running.present ? init : op(init, running.value.value);
      running = {combine(running, s[k], combiner()), true};
      if (!exclusive) o[k] = running.value.value;
    }
    store_elements<vector>(out, i, n, out_aligned, o);
  }
  __device__ void finish(const tile_info<scan_type>&, shared_storage&) const {}
};

// The selections: the scan value is how many elements were kept before. 64 bits (past 2^32
// elements), packed below 2^62.
struct kept_count {
  std::uint64_t value;
  __device__ std::uint64_t to_bits() const { return value; }
  __device__ static kept_count from_bits(std::uint64_t bits) { return {bits}; }
};
struct add_counts {
  __device__ kept_count operator()(kept_count a, kept_count b) const { return {a.value + b.value}; }
};

// Where a selection's flags come from: a predicate on a stencil array...
template <class S, class Pred>
struct stencil_flags {
  using element = S;
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

// ... or the first element of each run of equal ones (unique: the elements themselves are the keys).
template <class K, class Eq>
struct head_flags {
  using element = K;
  const K* keys;
  Eq eq;
  __device__ void prefetch(std::size_t, std::size_t, std::size_t) const {}  // the keys are the elements
  template <int V, class Whole>
  __device__ void operator()(std::size_t i, std::size_t n, const K (&k)[V], bool (&keep)[V], Whole whole) const {
    run_heads<V>(keys, i, n, k, eq, keep, whole);
  }
};

// compact, partition, unique, unique_by_key: keep elements of P (and of Q, unless Q is `nothing`)
// where the flags say. Kept elements are gathered in shared memory at their rank within the tile
// (the rejected ones after them for a partition), then the block writes them out with consecutive
// threads on consecutive addresses.
template <class P, class Q, class Flags>
struct select_program {
  static constexpr bool pairs = !std::is_same_v<Q, nothing>;
  using scan_type = kept_count;
  static constexpr int vector =
      pairs ? scan_vector<P, Q, typename Flags::element> : scan_vector<P, typename Flags::element>;
  static constexpr int rounds = scan_rounds;
  static constexpr int threads =
      std::size_t{selection_threads} * rounds * vector * (sizeof(P) + (pairs ? sizeof(Q) : 0)) <= 32768
          ? selection_threads
          : scan_threads;
  static constexpr std::size_t items_per_tile = std::size_t{threads} * rounds * vector;
  static constexpr bool counts_flags = true;  // the scan values are 0 or 1: counted in packed fields
  struct items {
    P p[vector];
    Q q[pairs ? vector : 1];
    unsigned keep;  // bit k: element k is kept (one register, not one per element)
  };
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
    load_elements<vector>(p, i, n, p_aligned, it.p, whole);
    if constexpr (pairs) load_elements<vector>(q, i, n, q_aligned, it.q, whole);
    bool keep[vector];
    flags(i, n, it.p, keep, whole);
    it.keep = 0;
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      const bool kept = keep[k] && (Whole::value || i + k < n);
      it.keep |= unsigned{kept} << k;
      s[k] = {kept ? 1u : 0u};
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
        shared.p.data()[rank] = it.p[k];
        if constexpr (pairs) shared.q.data()[rank] = it.q[k];
      } else if (partition && i + k < n) {
        const unsigned at = kept_in_tile + (position + k - rank);
        shared.p.data()[at] = it.p[k];
        if constexpr (pairs) shared.q.data()[at] = it.q[k];
      }
      rank += kept;
    }
    if (count != nullptr && i < n && n - 1 - i < vector) *count = tile.prefix.value.value + rank;
  }
  // The kept elements to their place after everything kept before the tile; a partition's
  // rejected ones after all the kept ones and the rejected of earlier tiles.
  __device__ void finish(const tile_info<kept_count>& tile, shared_storage& shared) const {
    const auto here = static_cast<unsigned>(tile.aggregate.value);
    const std::uint64_t before = tile.prefix.value.value;
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
struct ones {};

template <class K, class T, class Values, class Op, class Eq>
struct reduce_by_key_program {
  static constexpr bool counting = std::is_same_v<Values, ones<T>>;
  using scan_type = run_sum<T>;
  static constexpr int vector = scan_vector<K, T>;
  static constexpr int threads = scan_threads, rounds = scan_rounds;
  static constexpr bool counts_flags = false;
  struct items {
    K key[vector];
    bool head[vector];
  };
  using shared_storage = nothing;
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
  template <class Whole>
  __device__ void load(std::size_t i, items& it, scan_type (&s)[vector], Whole whole) const {
    load_elements<vector>(keys, i, n, keys_aligned, it.key, whole);
    run_heads<vector>(keys, i, n, it.key, eq, it.head, whole);
    T v[vector];
    if constexpr (counting) {
#pragma unroll
      for (int k = 0; k < vector; ++k) v[k] = T(1);
    } else {
      load_elements<vector>(values, i, n, values_aligned, v, whole);
    }
#pragma unroll
    for (int k = 0; k < vector; ++k) s[k] = {it.head[k] && (Whole::value || i + k < n) ? 1u : 0u, v[k]};
  }
  __device__ void emit(std::size_t i, const items& it, const scan_type (&s)[vector], maybe<scan_type> running,
                       const tile_info<scan_type>&, shared_storage&) const {
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      if (i + k >= n) break;
      running = {combine(running, s[k], combiner()), true};
      const std::uint64_t run = running.value.runs - 1;
      if (it.head[k]) keys_out[run] = it.key[k];
      const bool last = i + k == n - 1;
      const bool tail = last || (k + 1 < vector ? it.head[k + 1] : !eq(it.key[k], keys[i + k + 1]));
      if (tail) sums_out[run] = running.value.value;
      if (last && count != nullptr) *count = run + 1;
    }
  }
  __device__ void finish(const tile_info<scan_type>&, shared_storage&) const {}
};

// The partition's count of kept elements before its single pass: where the rejected ones start.
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

template <class T>
__global__ void write_count_kernel(T* destination, T value) {
  *destination = value;
}

// ---- cub ------------------------------------------------------------------------------------------

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

[[noreturn]] inline void refuse_int_count(const char* algorithm, const char* implementation, std::size_t n) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                              " elements are more than the " + implementation +
                              " implementation's limit of 2^31 - 1 elements (it counts them in int); "
                              "impl::raw has no such limit");
}

// ---- scans ----------------------------------------------------------------------------------------

// CUB tunes its scans for each architecture only for the operators it recognizes (cuda::std::plus,
// cuda::minimum, cuda::maximum; any other falls back to a generic policy, slower on float sums than
// the tuned one that docs/benchmarks/scan.md's row inclusive_scan/float/cub runs). prism's plus on
// a built-in arithmetic type is the same sum on the GPU (integers wrap in both), so CUB, and
// Thrust's scans on CUB, get it as cuda::std::plus; the cpu keeps prism's (a signed overflow is
// undefined in host code).
template <class Op>
Op cub_operator(Op op) {
  return op;
}
template <class T>
  requires std::is_arithmetic_v<T>
cuda::std::plus<T> cub_operator(functors::plus<T>) {
  return {};
}
template <class Policy, class Op>
auto thrust_operator(const Policy&, Op op) {
  if constexpr (std::is_same_v<Policy, std::decay_t<decltype(thrust::omp::par)>>) {
    return op;
  } else {
    return cub_operator(op);
  }
}

// init present: exclusive; absent: inclusive.
template <bool Exclusive, class T, class Op>
void scan_spans(const char* algorithm, const execution_policy& policy, span<const T> x, span<T> out, Op op,
                T init) {
  const std::size_t n = x.size();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    if constexpr (Exclusive) {
      thrust::exclusive_scan(p, in, in + n, o, init, thrust_operator(p, op));
    } else {
      thrust::inclusive_scan(p, in, in + n, o, thrust_operator(p, op));
    }
  };
  dispatch<Op>({algorithm, scan_family_of<scan_operation::scan, sizeof(T)>, policy,
                {array_ref::input(x, "the input"), array_ref::output_of(out, "the output").sized(n)}, n},
               implementations{
                   .cpu = on_thrust,
                   .thrust = on_thrust,
                   // One kernel for both kinds: whether it is exclusive is an argument.
                   .raw =
                       [&] {
                         using Program = scan_program<T, Op>;
                         constexpr int V = Program::vector;
                         run_single_pass<Program>(algorithm, policy, n, [&](void*) {
                           return Program{in, o, n, op, Exclusive, init, vector_aligned<V>(in), vector_aligned<V>(o)};
                         });
                       },
                   .cub =
                       [&] {
                         const auto count = static_cast<std::int64_t>(n);
                         cub_call(algorithm, "cub::DeviceScan", policy, {n}, [&](void* temp, std::size_t& bytes, void*) {
                           if constexpr (Exclusive) {
                             return cub::DeviceScan::ExclusiveScan(temp, bytes, in, o, cub_operator(op), init, count,
                                                                   stream);
                           } else {
                             return cub::DeviceScan::InclusiveScan(temp, bytes, in, o, cub_operator(op), count, stream);
                           }
                         });
                       },
               });
}

template <bool Exclusive, class K, class T, class Op, class Eq>
void scan_by_key_spans(const char* algorithm, const execution_policy& policy, span<const K> keys, span<const T> x,
                       span<T> out, Op op, Eq eq, T init) {
  const std::size_t n = keys.size();
  const K* k = keys.data();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    if constexpr (Exclusive) {
      thrust::exclusive_scan_by_key(p, k, k + n, in, o, init, eq, thrust_operator(p, op));
    } else {
      thrust::inclusive_scan_by_key(p, k, k + n, in, o, eq, thrust_operator(p, op));
    }
  };
  dispatch<Op, Eq>(
      {algorithm, scan_family_of<scan_operation::scan_by_key, widest<K, T>>, policy,
       {array_ref::input(keys, "the keys"), array_ref::input(x, "the values").sized(n),
        // In place over the values only: a tile reads the key before its first element.
        array_ref::output_of(out, "the output", 1).sized(n)},
       n},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw =
              [&] {
                using Program = scan_by_key_program<K, T, Op, Eq>;
                constexpr int V = Program::vector;
                run_single_pass<Program>(algorithm, policy, n, [&](void*) {
                  return Program{k,  in, o, n, op, eq, Exclusive, init, vector_aligned<V>(k), vector_aligned<V>(in),
                                 vector_aligned<V>(o)};
                });
              },
          .cub =
              [&] {
                const auto count = static_cast<std::int64_t>(n);
                cub_call(algorithm, "cub::DeviceScan", policy, {n}, [&](void* temp, std::size_t& bytes, void*) {
                  if constexpr (Exclusive) {
                    return cub::DeviceScan::ExclusiveScanByKey(temp, bytes, k, in, o, cub_operator(op), init, count, eq,
                                                               stream);
                  } else {
                    return cub::DeviceScan::InclusiveScanByKey(temp, bytes, k, in, o, cub_operator(op), count, eq,
                                                               stream);
                  }
                });
              },
      });
}

// ---- selections -----------------------------------------------------------------------------------

// A selection's count is its result: returned (through a pinned host slot that the call waits for)
// or into the caller's one-element array. cpu and thrust return it (Thrust has waited for it), raw
// and cub write it to the destination on the stream. Every array has the input's n elements, and
// no output is an input, not even exactly (in place is not offered: CUB's and Thrust's selections
// do not allow it either).
inline result_to<std::size_t> count_to(span<std::size_t>* into) {
  return {into, 0, "the count", true};
}
using counted = std::optional<std::size_t>;

template <class P, class S, class Pred>
std::size_t select_spans(const char* algorithm, const execution_policy& policy, bool partition, span<const P> x,
                         span<const S> stencil, span<P> out, Pred pred, span<std::size_t>* into) {
  const std::size_t n = x.size();
  const family& offered = partition ? scan_family_of<scan_operation::partition, widest<P, S>>
                                     : scan_family_of<scan_operation::compact, widest<P, S>>;
  const P* in = x.data();
  const S* st = stencil.data();
  P* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p, std::size_t*) -> counted {
    if (!partition) return thrust::copy_if(p, in, in + n, st, o, pred) - o;
    // The others start after the kept ones: counted first (Thrust waits for the count).
    const std::size_t kept = thrust::count_if(p, st, st + n, pred);
    thrust::stable_partition_copy(p, in, in + n, st, o, o + kept, pred);
    return kept;
  };
  return dispatch<Pred>(
      {algorithm, offered, policy,
       {array_ref::input(x, "the values"), array_ref::input(stencil, "the flags").sized(n),
        array_ref::output_apart(out, "the output").sized(n)},
       n},
      count_to(into),
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw = [&](std::size_t* destination) -> counted {
            using Flags = stencil_flags<S, Pred>;
            using Program = select_program<P, nothing, Flags>;
            constexpr int V = Program::vector;
            const auto make = [&](void* extra) {
              return Program{in, nullptr, o, nullptr, Flags{st, pred, vector_aligned<V>(st)}, n, vector_aligned<V>(in),
                             false, partition, static_cast<const unsigned long long*>(extra), destination};
            };
            if (!partition) {
              run_single_pass<Program>(algorithm, policy, n, make);
              return std::nullopt;
            }
            // The rejected elements start after every kept one: the flags are counted first (n
            // bytes more read), into the zeroed extra word the kernel then reads.
            constexpr int W = scan_vector<S>;
            run_single_pass<Program>(algorithm, policy, n, make, sizeof(unsigned long long),
                                     [&](void* extra, cudaStream_t s) {
                                       const auto blocks = static_cast<unsigned>(std::min<std::size_t>(
                                           blocks_for((n + W - 1) / W), std::size_t(multiprocessor_count()) * 8));
                                       launch(algorithm, "count_kept_kernel", count_kept_kernel<W, S, Pred>, blocks,
                                              block_size, s, st, pred, n, vector_aligned<W>(st),
                                              static_cast<unsigned long long*>(extra));
                                     });
            return std::nullopt;
          },
          .cub = [&](std::size_t* destination) -> counted {
            const auto items = static_cast<std::int64_t>(n);
            if (!partition) {
              // Flags as CUB reads them (nonzero is true) take its tuned kernel, Flagged, faster than
              // FlaggedIf with the same predicate (docs/benchmarks/scan.md, compact rows).
              constexpr bool plain_flags = std::is_same_v<Pred, functors::nonzero<S>>;
              cub_call(algorithm, plain_flags ? "cub::DeviceSelect::Flagged" : "cub::DeviceSelect::FlaggedIf", policy,
                       {n}, [&](void* temp, std::size_t& bytes, void*) {
                         if constexpr (plain_flags) {
                           return cub::DeviceSelect::Flagged(temp, bytes, in, st, o, destination, items, stream);
                         } else {
                           return cub::DeviceSelect::FlaggedIf(temp, bytes, in, st, o, destination, items, pred, stream);
                         }
                       });
              return std::nullopt;
            }
            // CUB's count into scratch, where the turning kernel reads it.
            const thrust::transform_iterator<Pred, const S*, bool, bool> flags(st, pred);
            cub_call(
                algorithm, "cub::DevicePartition::Flagged", policy, {n},
                [&](void* temp, std::size_t& bytes, void* extra) {
                  return cub::DevicePartition::Flagged(temp, bytes, in, flags, o, static_cast<std::size_t*>(extra), items,
                                                       stream);
                },
                sizeof(std::size_t),
                [&](void* extra) {
                  launch(algorithm, "reverse_tail_kernel", reverse_tail_kernel<P>, blocks_for((n + 1) / 2), block_size,
                         stream, o, n, static_cast<const std::size_t*>(extra), destination);
                });
            return std::nullopt;
          },
      });
}

// unique (ByKey false: the keys are the values, `values` empty) and unique_by_key.
template <bool ByKey, class K, class P, class Eq>
std::size_t unique_spans(const char* algorithm, const execution_policy& policy, span<const K> keys,
                         span<const P> values, span<K> keys_out, span<P> values_out, Eq eq, span<std::size_t>* into) {
  const std::size_t n = keys.size();
  const K* k = keys.data();
  const P* v = values.data();
  K* ko = keys_out.data();
  P* vo = values_out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_cpu = [&](const auto& p, std::size_t*) -> counted {
    if constexpr (ByKey) {
      return thrust::unique_by_key_copy(p, k, k + n, v, ko, vo, eq).first - ko;
    } else {
      return thrust::unique_copy(p, k, k + n, ko, eq) - ko;
    }
  };
  const implementations unique{
      .cpu = on_cpu,
      .thrust = [&](const auto& p, std::size_t* at) -> counted {
        if (!ByKey && n > std::size_t(INT_MAX)) refuse_int_count(algorithm, "thrust", n);
        return on_cpu(p, at);
      },
      .raw = [&](std::size_t* destination) -> counted {
        using Flags = head_flags<K, Eq>;
        using Q = std::conditional_t<ByKey, P, nothing>;
        using Program = select_program<K, Q, Flags>;
        constexpr int V = Program::vector;
        const Q* q = nullptr;
        Q* qo = nullptr;
        if constexpr (ByKey) {
          q = v;
          qo = vo;
        }
        run_single_pass<Program>(algorithm, policy, n, [&](void*) {
          return Program{k, q, ko, qo, Flags{k, eq}, n, vector_aligned<V>(k), vector_aligned<V>(q), false, nullptr,
                         destination};
        });
        return std::nullopt;
      },
      .cub = [&](std::size_t* destination) -> counted {
        const auto items = static_cast<std::int64_t>(n);
        cub_call(algorithm, "cub::DeviceSelect", policy, {n}, [&](void* temp, std::size_t& bytes, void*) {
          if constexpr (ByKey) {
            return cub::DeviceSelect::UniqueByKey(temp, bytes, k, v, ko, vo, destination, items, eq, stream);
          } else if constexpr (std::is_same_v<Eq, functors::equal_to<K>>) {
            return cub::DeviceSelect::Unique(temp, bytes, k, ko, destination, items, stream);
          } else {
            // Unique compares with == only: by key, carrying nothing.
            return cub::DeviceSelect::UniqueByKey(temp, bytes, k, cuda::constant_iterator<char>(0), ko,
                                                  thrust::discard_iterator<>(), destination, items, eq, stream);
          }
        });
        return std::nullopt;
      },
  };
  if constexpr (ByKey) {
    return dispatch<Eq>({algorithm, scan_family_of<scan_operation::unique_by_key, widest<K, P>>, policy,
                         {array_ref::input(keys, "the keys"), array_ref::input(values, "the values").sized(n),
                          array_ref::output_apart(keys_out, "the keys' output").sized(n),
                          array_ref::output_apart(values_out, "the values' output").sized(n)},
                         n},
                        count_to(into), unique);
  } else {
    return dispatch<Eq>({algorithm, scan_family_of<scan_operation::unique, sizeof(K)>, policy,
                         {array_ref::input(keys, "the input"), array_ref::output_apart(keys_out, "the output").sized(n)},
                         n},
                        count_to(into), unique);
  }
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

// reduce_by_key, and (Encode) run_length_encode: the sum of ones per run, in counts_out's type C.
template <bool Encode, class K, class T, class Op, class Eq>
std::size_t reduce_by_key_spans(const char* algorithm, const execution_policy& policy, span<const K> keys,
                                span<const T> values, span<K> keys_out, span<T> sums_out, Op op, Eq eq,
                                span<std::size_t>* into) {
  const std::size_t n = keys.size();
  // Equal integer keys have the same bits, so any key of a run is its first: only then may Thrust
  // and CUB write the keys themselves.
  constexpr bool keys_by_bits = std::is_same_v<Eq, functors::equal_to<K>> && std::is_integral_v<K>;
  const K* k = keys.data();
  K* ko = keys_out.data();
  T* so = sums_out.data();
  const cudaStream_t stream = policy.stream();
  // The values: the array, or a one for every element.
  const auto source = [&] {
    if constexpr (Encode) {
      return cuda::constant_iterator<T>(1);
    } else {
      return values.data();
    }
  }();
  const auto on_thrust = [&](const auto& p, std::size_t*) -> counted {
    if constexpr (keys_by_bits) {
      return thrust::reduce_by_key(p, k, k + n, source, ko, so, eq, op).first - ko;
    } else {
      const auto pairs_out = thrust::make_zip_iterator(ko, so);
      const auto positioned = thrust::make_zip_iterator(k, thrust::counting_iterator<std::size_t>(0));
      return thrust::reduce_by_key(p, positioned, positioned + n, thrust::make_zip_iterator(k, source),
                                   thrust::make_discard_iterator(), pairs_out, equal_or_same_position<Eq>{eq},
                                   first_key_and<K, T, Op>{op})
                 .second -
             pairs_out;
    }
  };
  const implementations reduce_by_key{
      .cpu = on_thrust,
      .thrust = on_thrust,
      .raw = [&](std::size_t* destination) -> counted {
        using Values = std::conditional_t<Encode, ones<T>, const T*>;
        using Program = reduce_by_key_program<K, T, Values, Op, Eq>;
        constexpr int V = Program::vector;
        run_single_pass<Program>(algorithm, policy, n, [&](void*) {
          if constexpr (Encode) {
            return Program{k, Values{}, ko, so, n, op, eq, vector_aligned<V>(k), false, destination};
          } else {
            return Program{k, source, ko, so, n, op, eq, vector_aligned<V>(k), vector_aligned<V>(source), destination};
          }
        });
        return std::nullopt;
      },
      .cub = [&](std::size_t* destination) -> counted {
        if (Encode && keys_by_bits && n > std::size_t(INT_MAX)) refuse_int_count(algorithm, "cub", n);
        const auto items = static_cast<std::int64_t>(n);
        cub_call(algorithm, Encode ? "cub::DeviceRunLengthEncode::Encode" : "cub::DeviceReduce::ReduceByKey", policy,
                 {n}, [&](void* temp, std::size_t& bytes, void*) {
                   if constexpr (Encode && keys_by_bits) {
                     return cub::DeviceRunLengthEncode::Encode(temp, bytes, k, ko, so, destination, static_cast<int>(n),
                                                               stream);
                   } else if constexpr (keys_by_bits) {
                     return cub::DeviceReduce::ReduceByKey(temp, bytes, k, ko, source, so, destination, op, items,
                                                           stream);
                   } else {
                     // ReduceByKey compares with == only; the dispatch it calls takes an equality
                     // (CUB's detail layer, stable within the pinned CCCL). Each run's first key
                     // rides with the values (it would write the last one's bits).
                     const auto pairs_in = thrust::make_zip_iterator(k, source);
                     const auto pairs_out = thrust::make_zip_iterator(ko, so);
                     return cub::detail::reduce_by_key::dispatch(temp, bytes, k, thrust::discard_iterator<>(), pairs_in,
                                                                 pairs_out, destination, eq,
                                                                 first_key_and<K, T, Op>{op},
                                                                 static_cast<unsigned long long>(n), stream);
                   }
                 });
        return std::nullopt;
      },
  };
  if constexpr (Encode) {
    // Past 2^31 - 1 elements (this many bytes: keys, values' output, counts) automatic runs raw.
    constexpr std::size_t raw_from = (std::size_t{1} << 31) * (2 * sizeof(K) + sizeof(T));
    return dispatch<Op, Eq>(
        {algorithm, scan_family_of<scan_operation::run_length_encode, widest<K, T>, raw_from>, policy,
         {array_ref::input(keys, "the input"), array_ref::output_apart(keys_out, "the values' output").sized(n),
          array_ref::output_apart(sums_out, "the counts").sized(n)},
         n},
        count_to(into), reduce_by_key);
  } else {
    return dispatch<Op, Eq>({algorithm, scan_family_of<scan_operation::reduce_by_key, widest<K, T>>, policy,
                             {array_ref::input(keys, "the keys"), array_ref::input(values, "the values").sized(n),
                              array_ref::output_apart(keys_out, "the keys' output").sized(n),
                              array_ref::output_apart(sums_out, "the sums").sized(n)},
                             n},
                            count_to(into), reduce_by_key);
  }
}

// ---- the generic API's helpers ------------------------------------------------------------------

template <class F>
concept generic_functor = !array_like<std::remove_reference_t<F>> && !std::is_same_v<std::remove_cvref_t<F>, scan_op>;

inline span<std::size_t>* const returned_count = nullptr;

}  // namespace detail

// ---- scans ------------------------------------------------------------------------------------------

// out[i] = x[0] op x[1] op ... op x[i]. out may be x exactly (in place).
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Op>
void inclusive_scan(const execution_policy& policy, X&& x, O&& out, Op op) {
  using T = value_t<O>;
  detail::scan_spans<false, T>("inclusive_scan", policy, input_span(x), output_span(out), op, T{});
}
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Op>
void inclusive_scan(X&& x, O&& out, Op op) {
  inclusive_scan(par, x, out, op);
}

// out[i] = init op x[0] op ... op x[i-1]; out[0] = init. out may be x exactly.
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Op>
void exclusive_scan(const execution_policy& policy, X&& x, O&& out, const value_t<O>& init, Op op) {
  detail::scan_spans<true, value_t<O>>("exclusive_scan", policy, input_span(x), output_span(out), op, init);
}
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Op>
void exclusive_scan(X&& x, O&& out, const value_t<O>& init, Op op) {
  exclusive_scan(par, x, out, init, op);
}

// The scans restarting at every i with !eq(keys[i - 1], keys[i]); the exclusive one gives init at
// the start of every run. out may be x exactly.
template <class K, class X, class O, class Op, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Op> && detail::generic_functor<Eq>
void inclusive_scan_by_key(const execution_policy& policy, K&& keys, X&& x, O&& out, Op op, Eq eq) {
  using T = value_t<O>;
  detail::scan_by_key_spans<false>("inclusive_scan_by_key", policy, input_span(keys), input_span(x), output_span(out),
                                   op, eq, T{});
}
template <class K, class X, class O, class Op, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Op> && detail::generic_functor<Eq>
void inclusive_scan_by_key(K&& keys, X&& x, O&& out, Op op, Eq eq) {
  inclusive_scan_by_key(par, keys, x, out, op, eq);
}
template <class K, class X, class O, class Op, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Op> && detail::generic_functor<Eq>
void exclusive_scan_by_key(const execution_policy& policy, K&& keys, X&& x, O&& out, const value_t<O>& init, Op op,
                           Eq eq) {
  detail::scan_by_key_spans<true>("exclusive_scan_by_key", policy, input_span(keys), input_span(x), output_span(out),
                                  op, eq, init);
}
template <class K, class X, class O, class Op, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Op> && detail::generic_functor<Eq>
void exclusive_scan_by_key(K&& keys, X&& x, O&& out, const value_t<O>& init, Op op, Eq eq) {
  exclusive_scan_by_key(par, keys, x, out, init, op, eq);
}

// ---- selections: the count returned, or into count[0] ---------------------------------------------

// x[i] where pred(stencil[i]), in order, to out[0, count).
template <class X, class S, class O, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           detail::generic_functor<Pred>
std::size_t compact_if(const execution_policy& policy, X&& x, S&& stencil, O&& out, Pred pred) {
  return detail::select_spans("compact_if", policy, false, input_span(x), input_span(stencil), output_span(out), pred,
                              detail::returned_count);
}
template <class X, class S, class O, class C, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           count_array<C> && detail::generic_functor<Pred>
void compact_if(const execution_policy& policy, X&& x, S&& stencil, O&& out, C&& count, Pred pred) {
  span<std::size_t> c = output_span(count);
  detail::select_spans("compact_if", policy, false, input_span(x), input_span(stencil), output_span(out), pred, &c);
}

// x[i] where pred(stencil[i]) first, then the others, each in its original order; returns (or
// delivers) how many satisfied pred.
template <class X, class S, class O, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           detail::generic_functor<Pred>
std::size_t partition_if(const execution_policy& policy, X&& x, S&& stencil, O&& out, Pred pred) {
  return detail::select_spans("partition_if", policy, true, input_span(x), input_span(stencil), output_span(out), pred,
                              detail::returned_count);
}
template <class X, class S, class O, class C, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           count_array<C> && detail::generic_functor<Pred>
void partition_if(const execution_policy& policy, X&& x, S&& stencil, O&& out, C&& count, Pred pred) {
  span<std::size_t> c = output_span(count);
  detail::select_spans("partition_if", policy, true, input_span(x), input_span(stencil), output_span(out), pred, &c);
}

// x[i] where i == 0 or !eq(x[i - 1], x[i]).
template <class X, class O, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Eq>
std::size_t unique(const execution_policy& policy, X&& x, O&& out, Eq eq) {
  using T = value_t<O>;
  return detail::unique_spans<false>("unique", policy, input_span(x), span<const T>{}, output_span(out), span<T>{}, eq,
                                     detail::returned_count);
}
template <class X, class O, class C, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && count_array<C> && detail::generic_functor<Eq>
void unique(const execution_policy& policy, X&& x, O&& out, C&& count, Eq eq) {
  using T = value_t<O>;
  span<std::size_t> c = output_span(count);
  detail::unique_spans<false>("unique", policy, input_span(x), span<const T>{}, output_span(out), span<T>{}, eq, &c);
}

// The first (key, value) of every run of keys equal under eq.
template <class K, class X, class KO, class O, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && detail::generic_functor<Eq>
std::size_t unique_by_key(const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& out, Eq eq) {
  return detail::unique_spans<true>("unique_by_key", policy, input_span(keys), input_span(x), output_span(keys_out),
                                    output_span(out), eq, detail::returned_count);
}
template <class K, class X, class KO, class O, class C, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && count_array<C> && detail::generic_functor<Eq>
void unique_by_key(const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& out, C&& count, Eq eq) {
  span<std::size_t> c = output_span(count);
  detail::unique_spans<true>("unique_by_key", policy, input_span(keys), input_span(x), output_span(keys_out),
                             output_span(out), eq, &c);
}

// Every run of elements equal under eq as (its first element, its length in N's integer type).
template <class X, class O, class N, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::writable_array<N> &&
           std::is_integral_v<value_t<N>> && detail::generic_functor<Eq>
std::size_t run_length_encode(const execution_policy& policy, X&& x, O&& unique_out, N&& counts_out, Eq eq) {
  using L = value_t<N>;
  return detail::reduce_by_key_spans<true>("run_length_encode", policy, input_span(x), span<const L>{},
                                           output_span(unique_out), output_span(counts_out), functors::plus<L>{}, eq,
                                           detail::returned_count);
}
template <class X, class O, class N, class C, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::writable_array<N> &&
           std::is_integral_v<value_t<N>> && count_array<C> && detail::generic_functor<Eq>
void run_length_encode(const execution_policy& policy, X&& x, O&& unique_out, N&& counts_out, C&& count, Eq eq) {
  using L = value_t<N>;
  span<std::size_t> c = output_span(count);
  detail::reduce_by_key_spans<true>("run_length_encode", policy, input_span(x), span<const L>{}, output_span(unique_out),
                                    output_span(counts_out), functors::plus<L>{}, eq, &c);
}

// Every run of keys equal under eq as (its first key, its values combined with op in order).
template <class K, class X, class KO, class O, class Op, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && detail::generic_functor<Op> && detail::generic_functor<Eq>
std::size_t reduce_by_key(const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& sums_out, Op op, Eq eq) {
  return detail::reduce_by_key_spans<false>("reduce_by_key", policy, input_span(keys), input_span(x),
                                            output_span(keys_out), output_span(sums_out), op, eq,
                                            detail::returned_count);
}
template <class K, class X, class KO, class O, class C, class Op, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && count_array<C> && detail::generic_functor<Op> && detail::generic_functor<Eq>
void reduce_by_key(const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& sums_out, C&& count, Op op,
                   Eq eq) {
  span<std::size_t> c = output_span(count);
  detail::reduce_by_key_spans<false>("reduce_by_key", policy, input_span(keys), input_span(x), output_span(keys_out),
                                     output_span(sums_out), op, eq, &c);
}

}  // namespace prism
