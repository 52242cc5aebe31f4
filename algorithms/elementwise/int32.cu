// SPDX-License-Identifier: Apache-2.0
// The element-wise family compiled for int32 and uint32: every operation that makes sense for the type, in
// every implementation (operations.cuh). One file per type spreads the build over cores.
#include "operations.cuh"

namespace prism::detail {
template struct elementwise<std::int32_t>;
template struct elementwise<std::uint32_t>;
}  // namespace prism::detail
