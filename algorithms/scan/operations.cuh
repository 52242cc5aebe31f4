// SPDX-License-Identifier: Apache-2.0
#pragma once
// The scan family compiled for the standard operations and types: each entry point of
// <prism/scan.hpp> is the generic layer (<prism/scan.cuh>, with every implementation side by side)
// called with prism's functors. The .cu files beside this one instantiate them, by the bits that
// matter (scan.hpp says why an int32 sum runs as uint32), spread over translation units that
// compile in parallel.
//
// Thrust dispatches its scans on both 32- and 64-bit offsets (two kernels per call) unless told to
// use one: 64-bit offsets work for every size and halve what these files compile. The macro must
// come before the first Thrust header; it changes only the instantiations made here (another
// translation unit that instantiates the same Thrust template gets the same, correct, results).
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/functors.cuh>
#include <prism/scan.cuh>
#include <prism/scan.hpp>

#include <cstddef>
#include <cstdint>

namespace prism::detail {

inline const char* scan_name(scan_kind kind) {
  return kind == scan_kind::inclusive ? "inclusive_scan" : "exclusive_scan";
}

template <class T>
void scan_sum(const execution_policy& policy, scan_kind kind, span<const T> x, span<T> out, const T* init) {
  if (kind == scan_kind::inclusive) {
    scan_spans<false, T>(scan_name(kind), policy, x, out, functors::plus<T>{}, T(0));
  } else {
    scan_spans<true, T>(scan_name(kind), policy, x, out, functors::plus<T>{}, init ? *init : T(0));
  }
}

// min and max are one functor with the direction an argument: one kernel for both.
template <class T>
void scan_extremum(const execution_policy& policy, scan_kind kind, bool largest, span<const T> x, span<T> out,
                   const T* init) {
  const functors::extremum<T> op{largest};
  if (kind == scan_kind::inclusive) {
    scan_spans<false, T>(scan_name(kind), policy, x, out, op, op.identity());
  } else {
    scan_spans<true, T>(scan_name(kind), policy, x, out, op, init ? *init : op.identity());
  }
}

template <class K, class T>
void scan_by_key_sum(const execution_policy& policy, scan_kind kind, span<const K> keys, span<const T> x,
                     span<T> out) {
  if (kind == scan_kind::inclusive) {
    scan_by_key_spans<false>("inclusive_scan_by_key", policy, keys, x, out, functors::plus<T>{},
                             functors::equal_to<K>{}, T(0));
  } else {
    scan_by_key_spans<true>("exclusive_scan_by_key", policy, keys, x, out, functors::plus<T>{},
                            functors::equal_to<K>{}, T(0));
  }
}

// Running minima and maxima by key: one functor with the direction an argument. An exclusive
// scan starts every run at the identity.
template <class K, class T>
void scan_by_key_extremum(const execution_policy& policy, scan_kind kind, bool largest, span<const K> keys,
                          span<const T> x, span<T> out) {
  const functors::extremum<T> op{largest};
  if (kind == scan_kind::inclusive) {
    scan_by_key_spans<false>("inclusive_scan_by_key", policy, keys, x, out, op, functors::equal_to<K>{},
                             op.identity());
  } else {
    scan_by_key_spans<true>("exclusive_scan_by_key", policy, keys, x, out, op, functors::equal_to<K>{},
                            op.identity());
  }
}

template <class P, class S>
std::size_t select_flagged(const execution_policy& policy, selection which, span<const P> values, span<const S> flags,
                           span<P> out, span<std::size_t>* count) {
  const bool partition = which == selection::partition;
  return select_spans(partition ? "partition" : "compact", policy, partition, values, flags, out,
                      functors::nonzero<S>{}, count);
}

template <class T>
std::size_t unique(const execution_policy& policy, span<const T> values, span<T> out, span<std::size_t>* count) {
  return unique_spans<false>("unique", policy, values, span<const T>{}, out, span<T>{}, functors::equal_to<T>{},
                             count);
}

template <class K, class P>
std::size_t unique_by_key(const execution_policy& policy, span<const K> keys, span<const P> values, span<K> keys_out,
                          span<P> values_out, span<std::size_t>* count) {
  return unique_spans<true>("unique_by_key", policy, keys, values, keys_out, values_out, functors::equal_to<K>{},
                            count);
}

template <class T, class C>
std::size_t run_length_encode(const execution_policy& policy, span<const T> values, span<T> unique_out,
                              span<C> counts_out, span<std::size_t>* count) {
  return reduce_by_key_spans<true>("run_length_encode", policy, values, span<const C>{}, unique_out, counts_out,
                                   functors::plus<C>{}, functors::equal_to<T>{}, count);
}

template <class K, class T>
std::size_t reduce_by_key(const execution_policy& policy, span<const K> keys, span<const T> values, span<K> keys_out,
                          span<T> sums_out, span<std::size_t>* count) {
  return reduce_by_key_spans<false>("reduce_by_key", policy, keys, values, keys_out, sums_out, functors::plus<T>{},
                                    functors::equal_to<K>{}, count);
}

template <class K, class T>
std::size_t reduce_by_key_extremum(const execution_policy& policy, bool largest, span<const K> keys,
                                   span<const T> values, span<K> keys_out, span<T> out, span<std::size_t>* count) {
  return reduce_by_key_spans<false>("reduce_by_key", policy, keys, values, keys_out, out,
                                    functors::extremum<T>{largest}, functors::equal_to<K>{}, count);
}

}  // namespace prism::detail
