// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sort family compiled for the standard key types: every implementation of <prism/sort.hpp>
// side by side. The .cu files beside this one instantiate them, spread over translation units that
// compile in parallel (a CUB radix sort is several kernels per key type, order and value size).
//
// What is compiled per key type and what per key size: Thrust's and CUB's radix sorts twiddle the
// key type themselves, so they are instantiated per type (and per order: SortKeys and
// SortKeysDescending are different kernels). Thrust's radix path is CUB's DispatchRadixSort with a
// 64-bit offset, the same instantiation as the cub implementation's (its count is int64): one
// translation unit compiles both once. cpu and raw sort the keys' bits with the order given at run
// time (onesweep.cuh's `ordered`): one instantiation per key size.
//
// Thrust's merge sort (argsort's) dispatches on 32- and 64-bit offsets unless told to use one:
// 64-bit offsets work for every size and halve what is compiled. Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include "onesweep.cuh"

#include <prism/dispatch.cuh>
#include <prism/error.hpp>
#include <prism/scratch.hpp>
#include <prism/sort.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/util_type.cuh>
#include <cuda/std/functional>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace prism::detail {

namespace sorting {

using radix::key_kind;
using radix::kind_of;

template <class I>
__global__ void iota_kernel(I* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<I>(i);
}

inline unsigned iota_grid(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>(blocks_for(n), std::size_t(multiprocessor_count()) * 8));
}

// The bits CUB sorts: the key type, whose twiddling CUB knows.
constexpr int end_bit(std::size_t key_bytes) { return static_cast<int>(key_bytes * 8); }

}  // namespace sorting

// ---- sort --------------------------------------------------------------------------------------------

template <sort_key K>
void sort_keys(const execution_policy& policy, span<const K> keys_in, span<K> keys_out, sort_order order) {
  const char* algorithm = "sort";
  const std::size_t n = keys_in.size();
  using B = sort_bits<K>;
  const bool descending = order == sort_order::descending;
  const K* in = keys_in.data();
  K* out = keys_out.data();
  const cudaStream_t stream = policy.stream();
  const auto count = static_cast<std::int64_t>(n);
  constexpr int end_bit = sorting::end_bit(sizeof(K));
  dispatch({algorithm, sort_family, policy,
            {array_ref::input(keys_in, "the keys"), array_ref::output_of(keys_out, "the output").sized(n)}, n},
           implementations{
               // The keys' bits, in the order given at run time: one instantiation per key size.
               .cpu =
                   [&](const auto& p) {
                     copy_unless_same(p, in, out, n, stream, algorithm);
                     B* bits = reinterpret_cast<B*>(out);
                     thrust::stable_sort(p, bits, bits + n, radix::ordered_less<B>{sorting::kind_of<K>(), descending});
                   },
               .thrust =
                   [&](const auto& p) {
                     copy_unless_same(p, in, out, n, stream, algorithm);
                     if (descending) {
                       thrust::stable_sort(p, out, out + n, cuda::std::greater<K>{});
                     } else {
                       thrust::stable_sort(p, out, out + n, cuda::std::less<K>{});
                     }
                   },
               .raw =
                   [&] {
                     radix::onesweep_sort<B, B>(algorithm, policy, reinterpret_cast<const B*>(in),
                                                reinterpret_cast<B*>(out), nullptr, nullptr, false, n,
                                                sorting::kind_of<K>(), descending);
                   },
               .cub =
                   [&] {
                     if (in != out) {
                       cub_call(algorithm, "cub::DeviceRadixSort::SortKeys", policy, {n, descending},
                                [&](void* temp, std::size_t& bytes, void*) {
                                  return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, in, out, count,
                                                                                               0, end_bit, stream)
                                                    : cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, count, 0,
                                                                                     end_bit, stream);
                                });
                       return;
                     }
                     // In place: CUB ping-pongs between the array and a buffer of the same size in
                     // scratch, and says (selector) where the result ended; copied back if that is
                     // the buffer.
                     cub::DoubleBuffer<K> keys;
                     cub_call(
                         algorithm, "cub::DeviceRadixSort::SortKeys", policy, {n, descending},
                         [&](void* temp, std::size_t& bytes, void* extra) {
                           keys = cub::DoubleBuffer<K>(out, static_cast<K*>(extra));
                           return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, keys, count, 0,
                                                                                        end_bit, stream)
                                             : cub::DeviceRadixSort::SortKeys(temp, bytes, keys, count, 0, end_bit,
                                                                              stream);
                         },
                         n * sizeof(K),
                         [&](void*) { copy_unless_same(stream, keys.Current(), out, n, algorithm); });
                   },
           });
}

// ---- sort by key -------------------------------------------------------------------------------------

template <sort_key K, class V>
void sort_pairs(const execution_policy& policy, span<const K> keys_in, span<const V> values_in, span<K> keys_out,
                span<V> values_out, sort_order order) {
  const char* algorithm = "sort_by_key";
  const std::size_t n = keys_in.size();
  using B = sort_bits<K>;
  const bool descending = order == sort_order::descending;
  const K* kin = keys_in.data();
  const V* vin = values_in.data();
  K* kout = keys_out.data();
  V* vout = values_out.data();
  const cudaStream_t stream = policy.stream();
  const auto count = static_cast<std::int64_t>(n);
  constexpr int end_bit = sorting::end_bit(sizeof(K));
  dispatch({algorithm, sort_family, policy,
            {array_ref::input(keys_in, "the keys"), array_ref::input(values_in, "the values").sized(n),
             array_ref::output_of(keys_out, "the keys' output", 0).sized(n),
             array_ref::output_of(values_out, "the values' output", 1).sized(n)},
            n, 2 * (keys_in.size_bytes() + values_in.size_bytes())},
           implementations{
               .cpu =
                   [&](const auto& p) {
                     copy_unless_same(p, kin, kout, n, stream, algorithm);
                     copy_unless_same(p, vin, vout, n, stream, algorithm);
                     B* bits = reinterpret_cast<B*>(kout);
                     thrust::stable_sort_by_key(p, bits, bits + n, vout,
                                                radix::ordered_less<B>{sorting::kind_of<K>(), descending});
                   },
               .thrust =
                   [&](const auto& p) {
                     copy_unless_same(p, kin, kout, n, stream, algorithm);
                     copy_unless_same(p, vin, vout, n, stream, algorithm);
                     if (descending) {
                       thrust::stable_sort_by_key(p, kout, kout + n, vout, cuda::std::greater<K>{});
                     } else {
                       thrust::stable_sort_by_key(p, kout, kout + n, vout, cuda::std::less<K>{});
                     }
                   },
               .raw =
                   [&] {
                     radix::onesweep_sort<B, V>(algorithm, policy, reinterpret_cast<const B*>(kin),
                                                reinterpret_cast<B*>(kout), vin, vout, false, n, sorting::kind_of<K>(),
                                                descending);
                   },
               .cub =
                   [&] {
                     if (kin != kout && vin != vout) {
                       cub_call(algorithm, "cub::DeviceRadixSort::SortPairs", policy, {n, descending},
                                [&](void* temp, std::size_t& bytes, void*) {
                                  return descending
                                             ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, kin, kout, vin, vout,
                                                                                         count, 0, end_bit, stream)
                                             : cub::DeviceRadixSort::SortPairs(temp, bytes, kin, kout, vin, vout, count,
                                                                               0, end_bit, stream);
                                });
                       return;
                     }
                     // An output that is its input: both sorted in place, between the outputs and
                     // buffers of the same sizes in scratch (the other input copied to its output first).
                     copy_unless_same(stream, kin, kout, n, algorithm);
                     copy_unless_same(stream, vin, vout, n, algorithm);
                     const std::size_t keys_bytes = round256(n * sizeof(K));
                     cub::DoubleBuffer<K> keys;
                     cub::DoubleBuffer<V> values;
                     cub_call(
                         algorithm, "cub::DeviceRadixSort::SortPairs", policy, {n, descending},
                         [&](void* temp, std::size_t& bytes, void* extra) {
                           auto* e = static_cast<unsigned char*>(extra);
                           keys = cub::DoubleBuffer<K>(kout, reinterpret_cast<K*>(e));
                           values = cub::DoubleBuffer<V>(vout, reinterpret_cast<V*>(e == nullptr ? nullptr : e + keys_bytes));
                           return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys, values, count,
                                                                                         0, end_bit, stream)
                                             : cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, count, 0,
                                                                               end_bit, stream);
                         },
                         keys_bytes + n * sizeof(V),
                         [&](void*) {
                           copy_unless_same(stream, keys.Current(), kout, n, algorithm);
                           copy_unless_same(stream, values.Current(), vout, n, algorithm);
                         });
                   },
           });
}

// ---- argsort ------------------------------------------------------------------------------------------

// I is uint32_t for int32 indices (positions below 2^31) or uint64_t for int64.
template <sort_key K, class I>
void argsort(const execution_policy& policy, span<const K> keys, span<I> indices, sort_order order) {
  const char* algorithm = "argsort";
  const std::size_t n = keys.size();
  require_size(n, indices.size(), algorithm, "the indices");
  if (sizeof(I) == 4 && n > (std::size_t{1} << 31)) {  // a size check, before the others
    throw std::invalid_argument(std::string("prism::argsort: ") + std::to_string(n) +
                                " keys are more than int32 indices can number (2^31); use int64 indices");
  }
  using B = sort_bits<K>;
  const bool descending = order == sort_order::descending;
  const K* k = keys.data();
  I* idx = indices.data();
  const cudaStream_t stream = policy.stream();
  const radix::index_order<B, I> by_key{reinterpret_cast<const B*>(k), sorting::kind_of<K>(), descending};
  // Thrust has no argsort: the positions, merge-sorted by their keys.
  const auto on_thrust = [&](const auto& p) {
    thrust::sequence(p, idx, idx + n);
    thrust::stable_sort(p, idx, idx + n, by_key);
  };
  dispatch({algorithm, sort_family, policy,
            {array_ref::input(keys, "the keys"), array_ref::output_apart(indices, "the indices")}, n,
            2 * keys.size_bytes() + 2 * indices.size_bytes()},
           implementations{
               .cpu = on_thrust,
               .thrust = on_thrust,
               // The positions are made by the first pass as it loads the keys: no array of them is read.
               .raw =
                   [&] {
                     radix::onesweep_sort<B, I>(algorithm, policy, reinterpret_cast<const B*>(k), nullptr, nullptr,
                                                idx, true, n, sorting::kind_of<K>(), descending, true);
                   },
               // The positions (in scratch) carried as values; the sorted keys go to scratch as well.
               .cub =
                   [&] {
                     const auto count = static_cast<std::int64_t>(n);
                     const std::size_t keys_bytes = round256(n * sizeof(K));
                     cub_call(
                         algorithm, "cub::DeviceRadixSort::SortPairs", policy, {n, descending},
                         [&](void* temp, std::size_t& bytes, void* extra) {
                           auto* e = static_cast<unsigned char*>(extra);
                           K* sorted_keys = reinterpret_cast<K*>(e);
                           I* positions = reinterpret_cast<I*>(e == nullptr ? nullptr : e + keys_bytes);
                           if (temp != nullptr) {
                             launch(algorithm, "iota_kernel", sorting::iota_kernel<I>, sorting::iota_grid(n),
                                    block_size, stream, positions, n);
                           }
                           return descending
                                      ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, k, sorted_keys, positions,
                                                                                  idx, count, 0, sorting::end_bit(sizeof(K)), stream)
                                      : cub::DeviceRadixSort::SortPairs(temp, bytes, k, sorted_keys, positions, idx,
                                                                        count, 0, sorting::end_bit(sizeof(K)), stream);
                         },
                         keys_bytes + n * sizeof(I));
                   },
           });
}

}  // namespace prism::detail
