// SPDX-License-Identifier: Apache-2.0
// unique and unique_by_key, in every implementation (operations.cuh): integers compared as
// unsigned integers of their size (1, 2, 4 and 8 bytes), float and double with ==; carried values
// by size.
#include "operations.cuh"

namespace prism::detail {
template std::size_t unique<std::uint8_t>(const execution_policy&, span<const std::uint8_t>, span<std::uint8_t>, span<std::size_t>*);
template std::size_t unique<std::uint16_t>(const execution_policy&, span<const std::uint16_t>, span<std::uint16_t>, span<std::size_t>*);
template std::size_t unique<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>, span<std::size_t>*);
template std::size_t unique<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>, span<std::size_t>*);
template std::size_t unique<float>(const execution_policy&, span<const float>, span<float>, span<std::size_t>*);
template std::size_t unique<double>(const execution_policy&, span<const double>, span<double>, span<std::size_t>*);
#define PRISM_UNIQUE_BY_KEY(K, P)                                                                              \
  template std::size_t unique_by_key<K, P>(const execution_policy&, span<const K>, span<const P>, span<K>, span<P>, \
                                           span<std::size_t>*);
PRISM_UNIQUE_BY_KEY(std::uint32_t, std::uint32_t)
PRISM_UNIQUE_BY_KEY(std::uint32_t, std::uint64_t)
PRISM_UNIQUE_BY_KEY(std::uint64_t, std::uint32_t)
PRISM_UNIQUE_BY_KEY(std::uint64_t, std::uint64_t)
#undef PRISM_UNIQUE_BY_KEY
}  // namespace prism::detail
