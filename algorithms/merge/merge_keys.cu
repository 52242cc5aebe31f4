// SPDX-License-Identifier: Apache-2.0
// merge of 4- and 8-byte keys in every implementation (operations.cuh), and the lesson's stages
// (lesson.cuh, uint32 keys).
#include "operations.cuh"
#include "lesson.cuh"

namespace prism::detail {
template void merge_keys<std::uint32_t>(const execution_policy&, key_kind, span<const std::uint32_t>,
                                        span<const std::uint32_t>, span<std::uint32_t>);
template void merge_keys<std::uint64_t>(const execution_policy&, key_kind, span<const std::uint64_t>,
                                        span<const std::uint64_t>, span<std::uint64_t>);
}  // namespace prism::detail
