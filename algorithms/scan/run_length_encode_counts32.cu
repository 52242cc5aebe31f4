// SPDX-License-Identifier: Apache-2.0
// run_length_encode with 32-bit counts (int32 or uint32, as a caller chooses), in every
// implementation (operations.cuh): values as in run_length_encode.cu; int32 counts as uint32 (a
// length is never negative: the same bits; scan.hpp refuses an input longer than the type holds).
#include "operations.cuh"

namespace prism::detail {
#define PRISM_RUN_LENGTH_ENCODE(T, C)                                                                             \
  template std::size_t run_length_encode<T, C>(const execution_policy&, span<const T>, span<T>, span<C>, \
                                               span<std::size_t>*);
PRISM_RUN_LENGTH_ENCODE(std::uint8_t, std::uint32_t)
PRISM_RUN_LENGTH_ENCODE(std::uint16_t, std::uint32_t)
PRISM_RUN_LENGTH_ENCODE(std::uint32_t, std::uint32_t)
PRISM_RUN_LENGTH_ENCODE(std::uint64_t, std::uint32_t)
PRISM_RUN_LENGTH_ENCODE(float, std::uint32_t)
PRISM_RUN_LENGTH_ENCODE(double, std::uint32_t)
#undef PRISM_RUN_LENGTH_ENCODE
}  // namespace prism::detail
