// SPDX-License-Identifier: Apache-2.0
// The top-k family for 4-byte elements and 32-bit indices, in every implementation, and the
// lesson's stages (lesson.cuh: float elements, int32 indices).
#include "entries.cuh"
#include "lesson.cuh"

namespace prism::detail {

template struct top_k_entry<4, 4>;

}  // namespace prism::detail
