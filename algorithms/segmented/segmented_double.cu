// SPDX-License-Identifier: Apache-2.0
// The segmented family for double values: sum, min, max, argmin, argmax and the two scans, by int32
// or int64 offsets or by a fixed size, in every implementation.
#include "entries.cuh"

template struct prism::detail::segmented_entry<double, std::int32_t>;
template struct prism::detail::segmented_entry<double, std::int64_t>;
