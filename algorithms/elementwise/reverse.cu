// SPDX-License-Identifier: Apache-2.0
// reverse (<prism/gather.cuh>) for every element size: it only moves elements.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/gather.cuh>

namespace prism::detail {

template <std::size_t Size>
void reversal<Size>::reverse(const execution_policy& policy, span<const bits> x, span<bits> out) {
  reverse_spans(policy, x, out);
}

template struct reversal<1>;
template struct reversal<2>;
template struct reversal<4>;
template struct reversal<8>;
template struct reversal<16>;

}  // namespace prism::detail
