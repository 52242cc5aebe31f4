// SPDX-License-Identifier: Apache-2.0
// compact and partition by flags of 4 or 8 bytes (int32, uint32, int64, uint64: Thrust's usual
// stencils) over values of 4 or 8 bytes, in every implementation (operations.cuh), by size.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_SELECT_FLAGGED(P, S)                                                                            \
  template std::size_t select_flagged<P, S>(const execution_policy&, selection, span<const P>, span<const S>, \
                                            span<P>, span<std::size_t>*);
PRISM_SELECT_FLAGGED(std::uint32_t, std::uint32_t)
PRISM_SELECT_FLAGGED(std::uint64_t, std::uint32_t)
PRISM_SELECT_FLAGGED(std::uint32_t, std::uint64_t)
PRISM_SELECT_FLAGGED(std::uint64_t, std::uint64_t)
#undef PRISM_SELECT_FLAGGED
}  // namespace prism::detail
