// SPDX-License-Identifier: Apache-2.0
// reduce_by_key (the sum of each run of equal keys), in every implementation (operations.cuh):
// keys as unsigned integers of their size, values as the sums' storage.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_REDUCE_BY_KEY(K, T)                                                                             \
  template std::size_t reduce_by_key<K, T>(const execution_policy&, span<const K>, span<const T>, span<K>, span<T>, \
                                           span<std::size_t>*);
PRISM_REDUCE_BY_KEY(std::uint32_t, std::uint32_t)
PRISM_REDUCE_BY_KEY(std::uint32_t, std::uint64_t)
PRISM_REDUCE_BY_KEY(std::uint32_t, float)
PRISM_REDUCE_BY_KEY(std::uint32_t, double)
PRISM_REDUCE_BY_KEY(std::uint64_t, std::uint32_t)
PRISM_REDUCE_BY_KEY(std::uint64_t, std::uint64_t)
PRISM_REDUCE_BY_KEY(std::uint64_t, float)
PRISM_REDUCE_BY_KEY(std::uint64_t, double)
#undef PRISM_REDUCE_BY_KEY
}  // namespace prism::detail
