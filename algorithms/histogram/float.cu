// SPDX-License-Identifier: Apache-2.0
// Histograms of float samples in every implementation (<prism/histogram.cuh>), uint32 and uint64 counts.

// Thrust's sort on 64-bit offsets only: they work for every size and halve what is compiled.
// Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/histogram.cuh>

namespace prism::detail {

template void histogram_even<float, std::uint32_t>(const execution_policy&, span<const float>, span<std::uint32_t>,
                                                  histogram_level_t<float>, histogram_level_t<float>);
template void histogram_even<float, std::uint64_t>(const execution_policy&, span<const float>, span<std::uint64_t>,
                                                  histogram_level_t<float>, histogram_level_t<float>);
template void histogram_range<float, std::uint32_t>(const execution_policy&, span<const float>,
                                                   span<const histogram_level_t<float>>, span<std::uint32_t>);
template void histogram_range<float, std::uint64_t>(const execution_policy&, span<const float>,
                                                   span<const histogram_level_t<float>>, span<std::uint64_t>);

}  // namespace prism::detail
