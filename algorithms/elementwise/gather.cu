// SPDX-License-Identifier: Apache-2.0
// gather and scatter (<prism/gather.cuh>) for every element size and index type: they only move
// elements, so a float and an int32 are one instantiation.
// One offset width for Thrust's gather and scatter (operations.cuh says why), before its headers.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/gather.cuh>

namespace prism::detail {

template <std::size_t Size, class I>
void permutation<Size, I>::gather(const execution_policy& policy, span<const I> map, span<const bits> values,
                                  span<bits> out, bounds checking) {
  gather_spans(policy, map, values, out, checking);
}

template <std::size_t Size, class I>
void permutation<Size, I>::scatter(const execution_policy& policy, span<const bits> values, span<const I> map,
                                   span<bits> out, bounds checking) {
  scatter_spans(policy, values, map, out, checking);
}

template struct permutation<1, std::int32_t>;
template struct permutation<2, std::int32_t>;
template struct permutation<4, std::int32_t>;
template struct permutation<8, std::int32_t>;
template struct permutation<16, std::int32_t>;
template struct permutation<1, std::int64_t>;
template struct permutation<2, std::int64_t>;
template struct permutation<4, std::int64_t>;
template struct permutation<8, std::int64_t>;
template struct permutation<16, std::int64_t>;

}  // namespace prism::detail
