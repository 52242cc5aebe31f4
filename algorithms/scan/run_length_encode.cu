// SPDX-License-Identifier: Apache-2.0
// run_length_encode with 64-bit counts, in every implementation (operations.cuh): integers compared
// as unsigned integers of their size, float and double with ==; int64 counts as uint64 (a length
// is never negative: the same bits).
#include "operations.cuh"

namespace prism::detail {
#define PRISM_RUN_LENGTH_ENCODE(T, C)                                                                             \
  template std::size_t run_length_encode<T, C>(const execution_policy&, span<const T>, span<T>, span<C>, \
                                               span<std::size_t>*);
PRISM_RUN_LENGTH_ENCODE(std::uint8_t, std::uint64_t)
PRISM_RUN_LENGTH_ENCODE(std::uint16_t, std::uint64_t)
PRISM_RUN_LENGTH_ENCODE(std::uint32_t, std::uint64_t)
PRISM_RUN_LENGTH_ENCODE(std::uint64_t, std::uint64_t)
PRISM_RUN_LENGTH_ENCODE(float, std::uint64_t)
PRISM_RUN_LENGTH_ENCODE(double, std::uint64_t)
#undef PRISM_RUN_LENGTH_ENCODE
}  // namespace prism::detail
