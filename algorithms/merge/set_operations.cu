// SPDX-License-Identifier: Apache-2.0
// The four set operations of 4- and 8-byte keys in cpu, thrust and raw (operations.cuh). The
// raw kernels are compiled per operation, as Thrust compiles each of its four.
#include "operations.cuh"

namespace prism::detail {
template std::size_t set_operation_keys<std::uint32_t>(const execution_policy&, set_operation, key_kind,
                                                       span<const std::uint32_t>, span<const std::uint32_t>,
                                                       span<std::uint32_t>, span<std::size_t>*);
template std::size_t set_operation_keys<std::uint64_t>(const execution_policy&, set_operation, key_kind,
                                                       span<const std::uint64_t>, span<const std::uint64_t>,
                                                       span<std::uint64_t>, span<std::size_t>*);
}  // namespace prism::detail
