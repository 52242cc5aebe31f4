// SPDX-License-Identifier: Apache-2.0
#pragma once
// The single-pass engine of the scan family's raw implementation (what CUB's agent layer is to its
// device scans): one kernel in which each block loads a tile, scans it, learns what came before it
// by decoupled look-back (<prism/primitives/tile_state.cuh>) and hands every element its prefix;
// and run_single_pass, which zeroes the tile states in scratch and launches it. What a tile's
// values are and what it writes is a `program` (the interface is above single_pass_kernel; the
// scan family's are in <prism/scan_programs.cuh>): every operation shares this one kernel.
#include <prism/dispatch.cuh>
#include <prism/execution.hpp>
#include <prism/functors.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/tile_state.cuh>
#include <prism/scratch.hpp>

#include <cuda/std/bit>
#include <cuda_runtime.h>

#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism::detail {

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
// whole block writes together. A program whose scan values follow from its items may rebuild
// them instead: scan_value(items, k) gives element k's, and load(i, items, whole) and emit(i,
// items, prefix, tile, shared) go without s, so that no scan value is held in registers beside
// the items it was made from (the by-key programs' are 16-byte pairs of a count and a value).
// A program that shuffles between lanes what it loaded (settles: the key before a run's head from
// the lane below) loads in two steps: load(i, items[r], r, whole) only reads, for every round r,
// then settle(i, earlier, items[r], later, r[, s[r]], whole), given the rounds before and after
// (round r's own at the ends), makes round r's scan values, so that no round's loads wait behind
// the round before's shuffles. A program that `transposes` (its warp's span read by consecutive
// lanes and handed to them through shared memory) is given its shared storage as load's last
// argument.
template <class Program>
concept rebuilds_scan_values = requires(const Program& p, const typename Program::items& it) {
  { p.scan_value(it, 0) } -> std::same_as<typename Program::scan_type>;
};

// The blocks an SM should hold at once where a program asks (its min_blocks): the compiler then
// keeps to the registers that allows, spilling if it must (bench_scan's raw_<shape>_min<k> rows
// of the 8-byte by-key programs, which hold 114 to 128 registers a thread and so a quarter of the
// SM's warps; asked for five blocks, 96 with 8 bytes spilled); 0, as most programs of the
// library have it, leaves the registers to the compiler.
template <class Program>
constexpr bool settles = false;
template <class Program>
  requires requires { Program::settles; }
constexpr bool settles<Program> = Program::settles;

// Whether a program transposes (its arrays read in the blocked arrangement through shared memory:
// stage_transposed, <prism/primitives/vector_access.cuh>).
template <class Program>
constexpr bool transposes = false;
template <class Program>
  requires requires { Program::transposes; }
constexpr bool transposes<Program> = Program::transposes;

template <class Program>
constexpr int min_blocks_of = 0;
template <class Program>
  requires requires { Program::min_blocks; }
constexpr int min_blocks_of<Program> = Program::min_blocks;

template <class Program>
__global__ void __launch_bounds__(Program::threads, min_blocks_of<Program>)
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
  take_ticket(ticket, tiles, tile_ticket);
  __syncthreads();
  const std::size_t tile = tile_ticket;
  const std::size_t base = tile * tile_items<Program>;
  const std::size_t span = base + warp * warp_items;

  const auto element = [&](int r) { return span + (std::size_t(r) * 32 + lane) * V; };  // round r's first
  constexpr bool rebuilds = rebuilds_scan_values<Program>;
  typename Program::items items[R];
  S s[rebuilds ? 1 : R][V];
  // Every tile but the last lies inside the arrays: its loads check no bounds.
  const auto load_tile = [&](auto whole) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::size_t i = element(r);
      if constexpr (settles<Program>) {
        program.load(i, items[r], r, whole);
      } else if constexpr (transposes<Program> && rebuilds) {
        program.load(i, items[r], whole, program_shared);
      } else if constexpr (transposes<Program>) {
        program.load(i, items[r], s[r], whole, program_shared);
      } else if constexpr (rebuilds) {
        program.load(i, items[r], whole);
      } else {
        program.load(i, items[r], s[r], whole);
      }
    }
    if constexpr (settles<Program>) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const auto& earlier = items[r > 0 ? r - 1 : 0];
        const auto& later = items[r + 1 < R ? r + 1 : r];
        if constexpr (rebuilds) {
          program.settle(element(r), earlier, items[r], later, r, whole);
        } else {
          program.settle(element(r), earlier, items[r], later, r, s[r], whole);
        }
      }
    }
  };
  const auto scan_value = [&](int r, int k) -> S {
    if constexpr (rebuilds) {
      return program.scan_value(items[r], k);
    } else {
      return s[r][k];
    }
  };
  if (base + tile_items<Program> <= n) {
    load_tile(std::true_type{});
  } else {
    load_tile(std::false_type{});
  }

  // The warp's R x 32 vectors scanned in order (round by round, lane by lane): what comes before
  // each thread's vector of each round within the warp, and the warp's total.
  const auto vector_total = [&](int r) {
    S a = scan_value(r, 0);
#pragma unroll
    for (int k = 1; k < V; ++k) a = op(a, scan_value(r, k));
    return a;
  };
  maybe<S> round_prefix[R];
  S* const mine = round_scan.data() + warp * (R * 33);  // the warp's blocked round scan, if it has one
  S warp_total;
  if constexpr (Program::counts_flags) {
    // Counts of kept elements: each vector's count (0 .. V) for all R rounds packed in one 64-bit
    // word, one field per round, and one warp scan of those words counts every round at once (a
    // field sums at most 32 V: it never carries into the next). Fields of 16 bits up to 4 rounds;
    // more rounds take the fewest bits that hold 32 V (7 for 8-byte elements: up to 9 rounds).
    constexpr int field = R <= 4 ? 16 : static_cast<int>(cuda::std::bit_width(32u * V));
    constexpr std::uint64_t field_mask = (std::uint64_t{1} << field) - 1;
    static_assert(R * field <= 64 && 32 * V <= field_mask, "the rounds' counts fit the fields of one word");
    std::uint64_t counts = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      unsigned c = 0;
#pragma unroll
      for (int k = 0; k < V; ++k) c += scan_value(r, k).value != 0;
      counts |= std::uint64_t{c} << (field * r);
    }
    const functors::plus<std::uint64_t> add;
    const std::uint64_t inclusive = warp_inclusive_scan(counts, add);
    const std::uint64_t up = shuffle_up(inclusive, 1);  // every lane shuffles; lane 0 has none below
    const std::uint64_t below = lane > 0 ? up : 0;
    const std::uint64_t all = shuffle_index(inclusive, 31);
    unsigned before = 0;  // the kept elements of the warp's earlier rounds
#pragma unroll
    for (int r = 0; r < R; ++r) {
      round_prefix[r] = {S{before + static_cast<unsigned>(below >> (field * r) & field_mask)}, true};
      before += static_cast<unsigned>(all >> (field * r) & field_mask);
    }
    warp_total = S{before};
  } else if constexpr (blocked_round_scan<Program>) {
    // Each vector reduced, and the warp's R x 32 of those scanned in a blocked arrangement: through
    // shared memory lane l takes positions l R .. l R + R - 1 of the warp's order, scans them in
    // sequence, and one warp scan of the lanes' totals joins them (one warp scan per tile instead of
    // one per round, faster: docs/benchmarks/scan.md, row inclusive_scan/float/raw). Position q
    // lives at q + q / 32: the padding keeps the lanes' strided reads off each other's banks.
#pragma unroll
    for (int r = 0; r < R; ++r) mine[r * 33 + lane] = vector_total(r);
    __syncwarp();
    const auto at = [&](int j) { return (lane * R + j) + (lane * R + j) / 32; };
    if constexpr (sizeof(S) <= 8) {
      S run[R];
#pragma unroll
      for (int j = 0; j < R; ++j) run[j] = mine[at(j)];
#pragma unroll
      for (int j = 1; j < R; ++j) run[j] = op(run[j - 1], run[j]);
      const S inclusive = warp_inclusive_scan(run[R - 1], op);
      const maybe<S> before_lane{shuffle_up(inclusive, 1), lane > 0};
      warp_total = shuffle_index(inclusive, 31);
      __syncwarp();
#pragma unroll
      for (int j = 0; j < R; ++j) mine[at(j)] = j == 0 ? before_lane.value : combine(before_lane, run[j - 1], op);
    } else {
      // Scan values of 16 bytes (the by-key programs' 8-byte values with their flags or counts)
      // are read twice, a total first, then each position's prefix written over it, instead of
      // held R at a time: 4 R registers at the thread's busiest point, where they stood between
      // the 8-byte by-key programs and five blocks an SM without spilling.
      S total = mine[at(0)];
#pragma unroll
      for (int j = 1; j < R; ++j) total = op(total, mine[at(j)]);
      const S inclusive = warp_inclusive_scan(total, op);
      maybe<S> before{shuffle_up(inclusive, 1), lane > 0};
      warp_total = shuffle_index(inclusive, 31);
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const S own = mine[at(j)];
        mine[at(j)] = before.value;
        before = {combine(before, own, op), true};
      }
    }
    __syncwarp();
    // Each round's prefix stays there until its elements are written (round_prefix_of below):
    // held in registers across the look-back, R of them limited the by-key programs' occupancy.
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
      const S exclusive = publish_and_look_back(states, tile, aggregate, op);
      if (lane == 0) *tile_exclusive.data() = exclusive;
    }
    __syncthreads();
    prefix = {*tile_exclusive.data(), true};
  }

  const tile_info<S> info{tile, tiles, base, n, prefix, aggregate};
  const maybe<S> thread_prefix = combine(prefix, warp_prefix, op);
  const auto round_prefix_of = [&](int r) -> maybe<S> {
    if constexpr (blocked_round_scan<Program>) {
      return {mine[r * 33 + lane], r > 0 || lane > 0};
    } else {
      return round_prefix[r];
    }
  };
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::size_t i = element(r);
    const maybe<S> before = combine(thread_prefix, round_prefix_of(r), op);
    if constexpr (rebuilds) {
      program.emit(i, items[r], before, info, program_shared);
    } else {
      program.emit(i, items[r], s[r], before, info, program_shared);
    }
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

}  // namespace prism::detail
