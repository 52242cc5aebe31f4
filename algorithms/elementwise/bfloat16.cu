// SPDX-License-Identifier: Apache-2.0
// The element-wise family compiled for __nv_bfloat16: every operation that makes sense for the type, in
// every implementation (operations.cuh). One file per type spreads the build over cores.
#include "operations.cuh"

namespace prism::detail {
template struct elementwise<__nv_bfloat16>;
}  // namespace prism::detail
