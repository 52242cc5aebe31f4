// SPDX-License-Identifier: Apache-2.0
#pragma once
// The compiled entry points of <prism/top_k.hpp>: the generic layer (<prism/top_k.cuh>) on the
// elements' bits, their kind told at run time, so that int32, uint32 and float (and the three
// 8-byte types) are one instantiation. Each .cu file here compiles one element size with one index
// size.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/top_k.cuh>

namespace prism::detail {

template <std::size_t Size, std::size_t IndexSize>
void top_k_entry<Size, IndexSize>::run(const execution_policy& policy, key_kind kind, span<const bits> x,
                                       std::size_t row_length, std::size_t k, span<bits> values,
                                       span<index_bits> indices, bool largest) {
  top_k_spans(policy, kind, x, row_length, k, values, indices, largest);
}

template <std::size_t Size, std::size_t IndexSize>
void top_k_entry<Size, IndexSize>::run_segments(const execution_policy& policy, key_kind kind, span<const bits> x,
                                                segment_list segments, std::size_t k, span<bits> values,
                                                span<index_bits> indices, bool largest) {
  top_k_segment_spans(policy, kind, x, segments, k, values, indices, largest);
}

}  // namespace prism::detail
