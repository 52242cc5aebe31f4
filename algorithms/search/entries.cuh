// SPDX-License-Identifier: Apache-2.0
#pragma once
// The compiled entry points of <prism/search.hpp>: the generic layer (<prism/search.cuh>) with the
// comparator of the documented order on the elements' bits, so that int32, uint32 and float (and
// the three 8-byte types) are one instantiation, told apart at run time by their key_kind. Each .cu
// file here instantiates one element size and one position size.
// One offset width for Thrust's vectorized searches (for_each over 64-bit counts), before its headers.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/search.cuh>

namespace prism::detail {

template <std::size_t Size>
template <class I>
void search_entry<Size>::bounds(bound_sides sides, const execution_policy& policy, key_kind kind,
                                span<const bits> sorted, span<const bits> queries, span<I> lower, span<I> upper,
                                query_order order, std::size_t limit) {
  bounds_spans(sides, policy, sorted, queries, lower, upper, key_order<bits>{kind}, order, limit);
}

template <std::size_t Size>
void search_entry<Size>::contains(const execution_policy& policy, key_kind kind, span<const bits> sorted,
                                  span<const bits> queries, span<std::uint8_t> found, query_order order) {
  contains_spans(policy, sorted, queries, found, key_order<bits>{kind}, order);
}

}  // namespace prism::detail
