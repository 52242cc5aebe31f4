// SPDX-License-Identifier: Apache-2.0
// The top-k family for 4-byte elements and 32-bit indices, in every implementation.
#include "entries.cuh"

namespace prism::detail {

template struct top_k_entry<4, 4>;

}  // namespace prism::detail
