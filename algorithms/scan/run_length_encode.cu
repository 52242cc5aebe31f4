// SPDX-License-Identifier: Apache-2.0
// run_length_encode, in every implementation (operations.cuh): integers compared as unsigned
// integers of their size, float and double with ==; lengths in 64 bits.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_RUN_LENGTH_ENCODE(T)                                                                           \
  template std::size_t run_length_encode<T>(const execution_policy&, span<const T>, span<T>, span<std::uint64_t>, \
                                            span<std::size_t>*);
PRISM_RUN_LENGTH_ENCODE(std::uint32_t)
PRISM_RUN_LENGTH_ENCODE(std::uint64_t)
PRISM_RUN_LENGTH_ENCODE(float)
PRISM_RUN_LENGTH_ENCODE(double)
#undef PRISM_RUN_LENGTH_ENCODE
}  // namespace prism::detail
