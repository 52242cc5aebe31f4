// SPDX-License-Identifier: Apache-2.0
// The top-k family for 8-byte elements and 64-bit indices, in every implementation.
#include "entries.cuh"

namespace prism::detail {

template struct top_k_entry<8, 8>;

}  // namespace prism::detail
