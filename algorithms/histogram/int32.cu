// SPDX-License-Identifier: Apache-2.0
// Histograms of int32 samples in every implementation (histogram.cuh), uint32 and uint64 counts.
#include "histogram.cuh"

namespace prism::detail {

template <class T, class C>
void histogram_even(const execution_policy& policy, span<const T> samples, span<C> counts, histogram_level_t<T> lo,
                    histogram_level_t<T> hi) {
  histogram_even_spans<T, C>(policy, samples, counts, lo, hi);
}
template <class T, class C>
void histogram_range(const execution_policy& policy, span<const T> samples, span<const histogram_level_t<T>> edges,
                     span<C> counts) {
  histogram_range_spans<T, C>(policy, samples, edges, counts);
}

template void histogram_even<std::int32_t, std::uint32_t>(const execution_policy&, span<const std::int32_t>, span<std::uint32_t>,
                                                  histogram_level_t<std::int32_t>, histogram_level_t<std::int32_t>);
template void histogram_even<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<std::uint64_t>,
                                                  histogram_level_t<std::int32_t>, histogram_level_t<std::int32_t>);
template void histogram_range<std::int32_t, std::uint32_t>(const execution_policy&, span<const std::int32_t>,
                                                   span<const histogram_level_t<std::int32_t>>, span<std::uint32_t>);
template void histogram_range<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>,
                                                   span<const histogram_level_t<std::int32_t>>, span<std::uint64_t>);

}  // namespace prism::detail
