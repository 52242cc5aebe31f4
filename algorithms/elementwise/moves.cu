// SPDX-License-Identifier: Apache-2.0
// copy, fill and where compiled once per element size (operations.cuh says why): every 2-, 4- and
// 8-byte type of the family runs these, as uint16_t, uint32_t and uint64_t.
#include "operations.cuh"

namespace prism::detail {
template struct moves<std::uint16_t>;
template struct moves<std::uint32_t>;
template struct moves<std::uint64_t>;
}  // namespace prism::detail
