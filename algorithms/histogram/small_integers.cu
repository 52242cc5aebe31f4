// SPDX-License-Identifier: Apache-2.0
// Histograms of int8 (char among them), int16 and uint16 samples in every implementation
// (<prism/histogram.cuh>), uint32 and uint64 counts.

// Thrust's sort on 64-bit offsets only: they work for every size and halve what is compiled.
// Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/histogram.cuh>

namespace prism::detail {

template void histogram_even<std::int8_t, std::uint32_t>(const execution_policy&, span<const std::int8_t>, span<std::uint32_t>,
                                                  histogram_level_t<std::int8_t>, histogram_level_t<std::int8_t>);
template void histogram_even<std::int8_t, std::uint64_t>(const execution_policy&, span<const std::int8_t>, span<std::uint64_t>,
                                                  histogram_level_t<std::int8_t>, histogram_level_t<std::int8_t>);
template void histogram_range<std::int8_t, std::uint32_t>(const execution_policy&, span<const std::int8_t>,
                                                   span<const histogram_level_t<std::int8_t>>, span<std::uint32_t>);
template void histogram_range<std::int8_t, std::uint64_t>(const execution_policy&, span<const std::int8_t>,
                                                   span<const histogram_level_t<std::int8_t>>, span<std::uint64_t>);



template void histogram_even<std::int16_t, std::uint32_t>(const execution_policy&, span<const std::int16_t>, span<std::uint32_t>,
                                                  histogram_level_t<std::int16_t>, histogram_level_t<std::int16_t>);
template void histogram_even<std::int16_t, std::uint64_t>(const execution_policy&, span<const std::int16_t>, span<std::uint64_t>,
                                                  histogram_level_t<std::int16_t>, histogram_level_t<std::int16_t>);
template void histogram_range<std::int16_t, std::uint32_t>(const execution_policy&, span<const std::int16_t>,
                                                   span<const histogram_level_t<std::int16_t>>, span<std::uint32_t>);
template void histogram_range<std::int16_t, std::uint64_t>(const execution_policy&, span<const std::int16_t>,
                                                   span<const histogram_level_t<std::int16_t>>, span<std::uint64_t>);



template void histogram_even<std::uint16_t, std::uint32_t>(const execution_policy&, span<const std::uint16_t>, span<std::uint32_t>,
                                                  histogram_level_t<std::uint16_t>, histogram_level_t<std::uint16_t>);
template void histogram_even<std::uint16_t, std::uint64_t>(const execution_policy&, span<const std::uint16_t>, span<std::uint64_t>,
                                                  histogram_level_t<std::uint16_t>, histogram_level_t<std::uint16_t>);
template void histogram_range<std::uint16_t, std::uint32_t>(const execution_policy&, span<const std::uint16_t>,
                                                   span<const histogram_level_t<std::uint16_t>>, span<std::uint32_t>);
template void histogram_range<std::uint16_t, std::uint64_t>(const execution_policy&, span<const std::uint16_t>,
                                                   span<const histogram_level_t<std::uint16_t>>, span<std::uint64_t>);

}  // namespace prism::detail
