// SPDX-License-Identifier: Apache-2.0
// gather_if and scatter_if (<prism/gather.cuh>) for every element size and index type, with a
// byte stencil: they only move elements, so a float and an int32 are one instantiation.
// One offset width for Thrust's algorithms (operations.cuh says why), before its headers.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/gather.cuh>

namespace prism::detail {

template <std::size_t Size, class I>
void selective_permutation<Size, I>::gather_if(const execution_policy& policy, span<const I> map,
                                               span<const std::uint8_t> stencil, span<const bits> values,
                                               span<bits> out, bounds checking) {
  gather_if_spans(policy, map, stencil, values, out, checking);
}

template <std::size_t Size, class I>
void selective_permutation<Size, I>::scatter_if(const execution_policy& policy, span<const bits> values,
                                                span<const I> map, span<const std::uint8_t> stencil, span<bits> out,
                                                bounds checking) {
  scatter_if_spans(policy, values, map, stencil, out, checking);
}

template struct selective_permutation<1, std::int32_t>;
template struct selective_permutation<2, std::int32_t>;
template struct selective_permutation<4, std::int32_t>;
template struct selective_permutation<8, std::int32_t>;
template struct selective_permutation<16, std::int32_t>;
template struct selective_permutation<1, std::int64_t>;
template struct selective_permutation<2, std::int64_t>;
template struct selective_permutation<4, std::int64_t>;
template struct selective_permutation<8, std::int64_t>;
template struct selective_permutation<16, std::int64_t>;

}  // namespace prism::detail
