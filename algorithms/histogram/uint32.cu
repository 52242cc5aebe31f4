// SPDX-License-Identifier: Apache-2.0
// Histograms of uint32 samples in every implementation (<prism/histogram.cuh>), uint32 and uint64 counts.

// Thrust's sort on 64-bit offsets only: they work for every size and halve what is compiled.
// Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/histogram.cuh>

namespace prism::detail {

template void histogram_even<std::uint32_t, std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>,
                                                  histogram_level_t<std::uint32_t>, histogram_level_t<std::uint32_t>);
template void histogram_even<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint64_t>,
                                                  histogram_level_t<std::uint32_t>, histogram_level_t<std::uint32_t>);
template void histogram_range<std::uint32_t, std::uint32_t>(const execution_policy&, span<const std::uint32_t>,
                                                   span<const histogram_level_t<std::uint32_t>>, span<std::uint32_t>);
template void histogram_range<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>,
                                                   span<const histogram_level_t<std::uint32_t>>, span<std::uint64_t>);

}  // namespace prism::detail
