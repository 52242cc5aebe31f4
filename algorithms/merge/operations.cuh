// SPDX-License-Identifier: Apache-2.0
#pragma once
// The merge family compiled for the standard key types: the entry points of <prism/merge.hpp> over
// the implementations of <prism/merge.cuh>. Keys are compiled per size, not per type: each is held
// as the unsigned bits of its size and compared by detail::key_order, which maps the bits to their
// order (unsigned, two's complement or floating point) chosen at run time. Values move as bits.
//
// Thrust's merge and set operations dispatch on 32- and 64-bit offsets unless told to use one:
// 64-bit offsets work for every size and halve what is compiled. Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/merge.cuh>
#include <prism/merge.hpp>

namespace prism::detail {

template <class B>
void merge_keys(const execution_policy& policy, key_kind kind, span<const B> a, span<const B> b, span<B> out) {
  merge_spans<B, no_values>("merge", policy, a, b, out, {}, {}, {}, key_order<B>{kind});
}

template <class B, class V>
void merge_pairs(const execution_policy& policy, key_kind kind, span<const B> keys_a, span<const V> values_a,
                 span<const B> keys_b, span<const V> values_b, span<B> keys_out, span<V> values_out) {
  merge_spans<B, V>("merge_by_key", policy, keys_a, keys_b, keys_out, values_a, values_b, values_out,
                    key_order<B>{kind});
}

template <class B>
std::size_t set_operation_keys(const execution_policy& policy, set_operation op, key_kind kind, span<const B> a,
                               span<const B> b, span<B> out, span<std::size_t>* count) {
  constexpr const char* names[] = {"set_union", "set_intersection", "set_difference", "set_symmetric_difference"};
  return set_operation_spans<B>(names[static_cast<int>(op)], policy, op, a, b, out, key_order<B>{kind}, count);
}

}  // namespace prism::detail
