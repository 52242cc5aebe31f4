// SPDX-License-Identifier: Apache-2.0
// compact and partition by flags, in every implementation (operations.cuh): the values are only
// moved, so they are compiled by size (4 and 8 bytes), flags as bytes (bool is one).
#include "operations.cuh"

namespace prism::detail {
template std::size_t select_flagged<std::uint32_t>(const execution_policy&, selection, span<const std::uint32_t>,
                                                   span<const std::uint8_t>, span<std::uint32_t>, span<std::size_t>*);
template std::size_t select_flagged<std::uint64_t>(const execution_policy&, selection, span<const std::uint64_t>,
                                                   span<const std::uint8_t>, span<std::uint64_t>, span<std::size_t>*);
}  // namespace prism::detail
