// SPDX-License-Identifier: Apache-2.0
#pragma once
// The search lesson: lower bounds of m queries in a sorted array of n elements, from the textbook
// kernel to the one that streams. The kernels are the implementations' own (<prism/search.cuh>);
// this file says what each stage changes, and runs one by name (uint32 elements, int64 positions).
//
// 1. textbook (raw_naive). One thread per query: lo = 0, hi = n, halve until they meet. log2(n)
//    loads per query, each waiting for the one before, since it decides where the next goes. A
//    warp's 32 queries go 32 ways from the second level on, so every load is its own 32-byte sector:
//    for n = m = 2^28, 28 dependent round trips and 28 sectors per query. The GPU hides latency with
//    other warps, but each warp has one load in flight, and the chain is the whole cost: far below
//    the memory's bandwidth (bench/search.cu's rows: % of the ceiling).
//
// 2. staged_top (raw, queries in any order). Two changes, both about the chain.
//    - Level k of every search reads one of 2^k elements: the top levels are the same few
//      elements for every query. Each block copies the top 11 levels (2047 splitters, evenly spaced)
//      into shared memory once, then searches many queries with them (a persistent grid of 8 blocks
//      per SM): 11 of the 28 levels cost a shared-memory load (about 30 cycles) instead of an L1 or
//      L2 round trip (hundreds). The splitter search leaves a part of n / 2048 elements to search in
//      global memory.
//    - Four queries per thread, searched in step: the four next elements are loaded before any is
//      compared, so four independent loads are in flight where the textbook had one. The levels
//      left still cost a round trip each, but four queries share it.
//    What remains is latency: about 17 global levels per query at n = 2^28, each a sector read for
//    one 4-byte element. Random queries cannot be streamed.
//
// 3. merge_path (raw, query_order::sorted). Sorted queries change the problem: the lower bound of
//    each is the number of elements that merge ahead of it when the two sorted sequences are merged
//    (an element first when it is less than the query). Merge path (Odeh, Green, Mwassi, Shmueli and
//    Birk, 2012; moderngpu's sortedsearch) cuts the merge into tiles of 2048 items: the start of each
//    tile in both sequences is one binary search along its cross diagonal (merge_partition_kernel,
//    one thread per tile); each block loads its tile's elements and queries into shared memory
//    (coalesced), each thread finds its own 8 items' start the same way there and merges them
//    serially, and the positions go out through shared memory (coalesced). Every element and query
//    is read once and every position written once: a streaming kernel, whose ceiling is the
//    bandwidth of its bytes (n + m elements read, m positions written). It pays for reading the
//    whole array, so raw takes it only when the queries are at least a sixteenth of the elements;
//    the stage here takes it always.
//
// 4. sort_first (queries in any order). Stage 3's streaming, bought for random queries: sort them
//    with their places (the sort family's raw radix sort of (query, place) pairs: four passes that
//    each read and write both), run stage 3 over the sorted queries, and write each position to
//    its query's place. About 40 bytes move per 4-byte query, every one coalesced but the last
//    scatter, where stage 2 pays a dependent sector read for each of ~17 levels: once the array
//    is past the L2 cache and the queries are many, sorting them is the cheaper way to search.
//    It needs scratch for the sorted queries and their places (about 3 m x 4 bytes). raw takes it
//    for random queries that are many, in an array well past the L2 cache (sort_first_pays).
#include <prism/search.cuh>

namespace prism::detail {

void lower_bound_by_stage(search_stage stage, const execution_policy& policy,
                                 span<const std::uint32_t> sorted, span<const std::uint32_t> queries,
                                 span<std::int64_t> out) {
  const char* algorithm = "lower_bound";
  const execution_policy gpu = policy.with(impl::raw);
  const std::size_t n = sorted.size(), m = queries.size();
  prepare(algorithm, search_family, gpu,
          {array_ref::input(sorted, "the sorted array"), array_ref::input(queries, "the queries"),
           array_ref::output_apart(out, "the output").sized(m)},
          sorted.size_bytes() + queries.size_bytes() + out.size_bytes());
  if (m == 0) return;
  using Comp = key_order<std::uint32_t>;
  const bound_before<Comp> before{Comp{key_kind::unsigned_integer}, false};
  const write_position<std::uint64_t> positions{reinterpret_cast<std::uint64_t*>(out.data())};
  translate_errors(algorithm, [&] {
    switch (stage) {
      case search_stage::textbook:
        search_naive(algorithm, policy.stream(), sorted.data(), n, queries.data(), m, before, positions);
        break;
      case search_stage::staged_top:
        search_raw(algorithm, policy, sorted.data(), n, queries.data(), m, before, positions, false);
        break;
      case search_stage::merge_path:
        search_raw(algorithm, policy, sorted.data(), n, queries.data(), m, before, positions, true);
        break;
      case search_stage::sort_first: {
        const bool sorted_first =
            with_queries_sorted(algorithm, gpu, key_kind::unsigned_integer, queries,
                                [&]<class P>(const std::uint32_t* in_order, const P* places) {
                                  search_raw(algorithm, gpu, sorted.data(), n, in_order, m, before,
                                             to_query_place<write_position<std::uint64_t>, P>{positions, places}, true);
                                });
        // raw falls back to the search without sorting; the stage itself has no other way.
        if (!sorted_first) throw cuda_error(cudaErrorMemoryAllocation, "the sorted queries' scratch", algorithm);
        break;
      }
    }
  });
}

}  // namespace prism::detail
