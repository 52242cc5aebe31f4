// SPDX-License-Identifier: Apache-2.0
// compact and partition by byte flags (uint8, int8, char, bool), in every implementation
// (operations.cuh): the values are only moved, so they are compiled by size (1, 2, 4 and 8 bytes),
// and a flag is kept where it is nonzero, which only its bits decide.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_SELECT_FLAGGED(P, S)                                                                            \
  template std::size_t select_flagged<P, S>(const execution_policy&, selection, span<const P>, span<const S>, \
                                            span<P>, span<std::size_t>*);
PRISM_SELECT_FLAGGED(std::uint8_t, std::uint8_t)
PRISM_SELECT_FLAGGED(std::uint16_t, std::uint8_t)
PRISM_SELECT_FLAGGED(std::uint32_t, std::uint8_t)
PRISM_SELECT_FLAGGED(std::uint64_t, std::uint8_t)
#undef PRISM_SELECT_FLAGGED
}  // namespace prism::detail
