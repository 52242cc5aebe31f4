// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism's radix sorts, every implementation side by side: the standard key types of
// <prism/sort.hpp> (compiled into the library: algorithms/sort/), and any key type of the caller's
// sorted by its bits, through a decomposer as CUB's cub::DeviceRadixSort takes one.
//
//   struct particle { float energy; std::int32_t cell; float payload; };
//   struct by_energy_then_cell {   // the fields that order a particle, most significant first
//     __host__ __device__ cuda::std::tuple<float&, std::int32_t&> operator()(particle& p) const {
//       return {p.energy, p.cell};
//     }
//   };
//   prism::sort(policy, particles, by_energy_then_cell{});                  // in place
//   prism::sort(policy, particles_in, particles_out, by_energy_then_cell{}, prism::sort_order::descending);
//   prism::sort_by_key(policy, particles, weights, by_energy_then_cell{});  // weights follow
//   prism::sort_by_key(policy, keys_in, values_in, keys_out, values_out, by_energy_then_cell{});
//
// Semantics, those of <prism/sort.hpp> for the decomposed key:
// - The order is lexicographic over the fields the decomposer names, each field in the sort
//   family's order for its type (integers by value; float and double as <prism/sort.hpp> says:
//   -0.0 and +0.0 equal, NaNs by their sign and payload bits). Fields left out (the payload above)
//   do not take part: keys equal in every named field keep their input order (stable), in
//   ascending and descending order alike. Every implementation gives the same bits.
// - Keys are moved whole; values of any trivially copyable type travel with them, moved by their
//   bits (as one unsigned integer of their size where their alignment allows: one instantiation
//   per size).
// - In place, or out of place with an output that is exactly its input; every other overlap,
//   outputs of another size, null with a nonzero size and memory in the wrong place are refused
//   (std::invalid_argument), nothing written. Sizes: 64-bit, past 2^32 elements in every
//   implementation. Scratch as <prism/sort.hpp> says.
// - The decomposer is trivially copyable and __host__ __device__ (a __device__-only lambda is
//   refused on the cpu); its fields are integers, float or double.
//
// The implementations, for a caller's key:
//   cpu     thrust::stable_sort(_by_key) through Thrust's OpenMP system with the decomposed key's
//           order as the comparator (a merge sort).
//   thrust  the same on the GPU, on the caller's stream (par_nosync; a merge sort: Thrust's radix
//           path takes arithmetic keys only).
//   cub     cub::DeviceRadixSort::SortKeys / SortPairs (and Descending) with the decomposer,
//           over the bits of the named fields.
//   raw     the one-sweep radix sort (<prism/primitives/onesweep.cuh>) with digits taken from the
//           named fields: one pass per byte of them; keys and values of up to 128 bytes.
// For the standard keys see <prism/sort.hpp>; <prism/sort.cuh> is the family's generic header
// (this one and the merge sort with a comparator).
//
// Thrust's merge sort (the thrust and cpu implementations here, and argsort's) dispatches on 32-
// and 64-bit offsets unless THRUST_FORCE_64_BIT_OFFSET_TYPE is defined before the first Thrust
// header: 64-bit offsets work for every size and halve what is compiled.
#include <prism/dispatch.cuh>
#include <prism/error.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/onesweep.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/scratch.hpp>
#include <prism/sort.hpp>
#include <prism/span.hpp>

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
#include <type_traits>

namespace prism {

namespace detail {

namespace sorting {

template <class I>
__global__ void iota_kernel(I* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<I>(i);
}

// The standard keys: CUB twiddles the key type itself.
struct by_type {};

// CUB's radix sort in the four forms prism calls, ascending or descending, over bits [0, end_bit):
// with the decomposer D, or (by_type) without one. Out of place with pointers; in place with
// DoubleBuffers (CUB ping-pongs between the array and a buffer, and says where the result ended).
template <class D>
struct cub_radix_sort {
  D decomposer;
  int end_bit;
  bool descending;

  template <class K>
  cudaError_t keys(void* temp, std::size_t& bytes, const K* in, K* out, std::int64_t n, cudaStream_t s) const {
    using cub::DeviceRadixSort;
    if constexpr (std::is_same_v<D, by_type>) {
      return descending ? DeviceRadixSort::SortKeysDescending(temp, bytes, in, out, n, 0, end_bit, s)
                        : DeviceRadixSort::SortKeys(temp, bytes, in, out, n, 0, end_bit, s);
    } else {
      return descending ? DeviceRadixSort::SortKeysDescending(temp, bytes, in, out, n, decomposer, 0, end_bit, s)
                        : DeviceRadixSort::SortKeys(temp, bytes, in, out, n, decomposer, 0, end_bit, s);
    }
  }
  template <class K>
  cudaError_t keys(void* temp, std::size_t& bytes, cub::DoubleBuffer<K>& k, std::int64_t n, cudaStream_t s) const {
    using cub::DeviceRadixSort;
    if constexpr (std::is_same_v<D, by_type>) {
      return descending ? DeviceRadixSort::SortKeysDescending(temp, bytes, k, n, 0, end_bit, s)
                        : DeviceRadixSort::SortKeys(temp, bytes, k, n, 0, end_bit, s);
    } else {
      return descending ? DeviceRadixSort::SortKeysDescending(temp, bytes, k, n, decomposer, 0, end_bit, s)
                        : DeviceRadixSort::SortKeys(temp, bytes, k, n, decomposer, 0, end_bit, s);
    }
  }
  template <class K, class V>
  cudaError_t pairs(void* temp, std::size_t& bytes, const K* kin, K* kout, const V* vin, V* vout, std::int64_t n,
                    cudaStream_t s) const {
    using cub::DeviceRadixSort;
    if constexpr (std::is_same_v<D, by_type>) {
      return descending ? DeviceRadixSort::SortPairsDescending(temp, bytes, kin, kout, vin, vout, n, 0, end_bit, s)
                        : DeviceRadixSort::SortPairs(temp, bytes, kin, kout, vin, vout, n, 0, end_bit, s);
    } else {
      return descending
                 ? DeviceRadixSort::SortPairsDescending(temp, bytes, kin, kout, vin, vout, n, decomposer, 0, end_bit, s)
                 : DeviceRadixSort::SortPairs(temp, bytes, kin, kout, vin, vout, n, decomposer, 0, end_bit, s);
    }
  }
  template <class K, class V>
  cudaError_t pairs(void* temp, std::size_t& bytes, cub::DoubleBuffer<K>& k, cub::DoubleBuffer<V>& v, std::int64_t n,
                    cudaStream_t s) const {
    using cub::DeviceRadixSort;
    if constexpr (std::is_same_v<D, by_type>) {
      return descending ? DeviceRadixSort::SortPairsDescending(temp, bytes, k, v, n, 0, end_bit, s)
                        : DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, end_bit, s);
    } else {
      return descending ? DeviceRadixSort::SortPairsDescending(temp, bytes, k, v, n, decomposer, 0, end_bit, s)
                        : DeviceRadixSort::SortPairs(temp, bytes, k, v, n, decomposer, 0, end_bit, s);
    }
  }
};

}  // namespace sorting

// ---- the implementations, for any order ------------------------------------------------------------
// K is the key as the caller has it (what Thrust and CUB see); cpu and raw sort Order::key_type,
// the same bytes (the standard keys' bits: one instantiation per key size). on_thrust(policy,
// keys, n) and on_thrust(policy, keys, values, n) sort on the GPU in place; cub is
// sorting::cub_radix_sort. F... are the caller's functors (a __device__-only one refuses cpu).

template <class... F, class K, class Order, class Cub, class Thrust>
void radix_sort_keys(const char* algorithm, const execution_policy& policy, span<const K> keys_in, span<K> keys_out,
                     Order order, Cub cub, Thrust on_thrust) {
  using B = typename Order::key_type;
  static_assert(sizeof(B) == sizeof(K));
  const std::size_t n = keys_in.size();
  const K* in = keys_in.data();
  K* out = keys_out.data();
  const cudaStream_t stream = policy.stream();
  const auto count = static_cast<std::int64_t>(n);
  dispatch<F...>(
      {algorithm, sort_family, policy,
       {array_ref::input(keys_in, "the keys"), array_ref::output_of(keys_out, "the output").sized(n)}, n},
      implementations{
          .cpu =
              [&](const auto& p) {
                copy_unless_same(p, in, out, n, stream, algorithm);
                B* bits = reinterpret_cast<B*>(out);
                thrust::stable_sort(p, bits, bits + n, order);
              },
          .thrust =
              [&](const auto& p) {
                copy_unless_same(p, in, out, n, stream, algorithm);
                on_thrust(p, out, n);
              },
          .raw =
              [&] {
                if constexpr (radix::onesweep_sorts<B, B>) {
                  radix::onesweep_sort<B, B, false>(
                      algorithm, policy, reinterpret_cast<const B*>(in), reinterpret_cast<B*>(out), nullptr, nullptr,
                      false, n, order);
                } else {
                  throw std::invalid_argument(std::string("prism::") + algorithm +
                                              ": the raw radix sort takes keys of up to 128 bytes; use impl::cub");
                }
              },
          .cub =
              [&] {
                if (in != out) {
                  cub_call(algorithm, "cub::DeviceRadixSort::SortKeys", policy, {n, cub.descending},
                           [&](void* temp, std::size_t& bytes, void*) { return cub.keys(temp, bytes, in, out, count, stream); });
                  return;
                }
                // In place: between the array and a buffer of the same size in scratch, copied back
                // if the result ended in the buffer.
                cub::DoubleBuffer<K> keys;
                cub_call(
                    algorithm, "cub::DeviceRadixSort::SortKeys", policy, {n, cub.descending},
                    [&](void* temp, std::size_t& bytes, void* extra) {
                      keys = cub::DoubleBuffer<K>(out, static_cast<K*>(extra));
                      return cub.keys(temp, bytes, keys, count, stream);
                    },
                    n * sizeof(K), [&](void*) { copy_unless_same(stream, keys.Current(), out, n, algorithm); });
              },
      });
}

template <class... F, class K, class V, class Order, class Cub, class Thrust>
void radix_sort_pairs(const char* algorithm, const execution_policy& policy, span<const K> keys_in,
                      span<const V> values_in, span<K> keys_out, span<V> values_out, Order order, Cub cub,
                      Thrust on_thrust) {
  using B = typename Order::key_type;
  static_assert(sizeof(B) == sizeof(K));
  const std::size_t n = keys_in.size();
  const K* kin = keys_in.data();
  const V* vin = values_in.data();
  K* kout = keys_out.data();
  V* vout = values_out.data();
  const cudaStream_t stream = policy.stream();
  const auto count = static_cast<std::int64_t>(n);
  dispatch<F...>(
      {algorithm, sort_family, policy,
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
                thrust::stable_sort_by_key(p, bits, bits + n, vout, order);
              },
          .thrust =
              [&](const auto& p) {
                copy_unless_same(p, kin, kout, n, stream, algorithm);
                copy_unless_same(p, vin, vout, n, stream, algorithm);
                on_thrust(p, kout, vout, n);
              },
          .raw =
              [&] {
                if constexpr (radix::onesweep_sorts<B, V>) {
                  radix::onesweep_sort<B, V, true>(algorithm, policy, reinterpret_cast<const B*>(kin),
                                                   reinterpret_cast<B*>(kout), vin, vout, false, n, order);
                } else {
                  throw std::invalid_argument(std::string("prism::") + algorithm +
                                              ": the raw radix sort takes keys and values of up to 128 bytes; use "
                                              "impl::cub");
                }
              },
          .cub =
              [&] {
                if (kin != kout && vin != vout) {
                  cub_call(algorithm, "cub::DeviceRadixSort::SortPairs", policy, {n, cub.descending},
                           [&](void* temp, std::size_t& bytes, void*) {
                             return cub.pairs(temp, bytes, kin, kout, vin, vout, count, stream);
                           });
                  return;
                }
                // An output that is its input: both sorted in place, between the outputs and buffers
                // of the same sizes in scratch (the other input copied to its output first).
                copy_unless_same(stream, kin, kout, n, algorithm);
                copy_unless_same(stream, vin, vout, n, algorithm);
                const std::size_t keys_bytes = round256(n * sizeof(K));
                cub::DoubleBuffer<K> keys;
                cub::DoubleBuffer<V> values;
                cub_call(
                    algorithm, "cub::DeviceRadixSort::SortPairs", policy, {n, cub.descending},
                    [&](void* temp, std::size_t& bytes, void* extra) {
                      auto* e = static_cast<unsigned char*>(extra);
                      keys = cub::DoubleBuffer<K>(kout, reinterpret_cast<K*>(e));
                      values = cub::DoubleBuffer<V>(vout, reinterpret_cast<V*>(e == nullptr ? nullptr : e + keys_bytes));
                      return cub.pairs(temp, bytes, keys, values, count, stream);
                    },
                    keys_bytes + n * sizeof(V),
                    [&](void*) {
                      copy_unless_same(stream, keys.Current(), kout, n, algorithm);
                      copy_unless_same(stream, values.Current(), vout, n, algorithm);
                    });
              },
      });
}

// ---- the standard keys (the library's entry points, <prism/sort.hpp>) -------------------------------
// Thrust's and CUB's radix sorts twiddle the key type themselves, so they are instantiated per type
// (and per order: SortKeys and SortKeysDescending are different kernels); Thrust's radix path is
// CUB's DispatchRadixSort with a 64-bit offset, the same instantiation as the cub implementation's
// (its count is int64): one translation unit compiles both once. cpu and raw sort the keys' bits
// in the order given at run time (bits_order): one instantiation per key size.

template <sort_key K>
sorting::cub_radix_sort<sorting::by_type> cub_by_type(bool descending) {
  return {{}, static_cast<int>(sizeof(K) * 8), descending};
}

template <sort_key K>
void sort_keys(const execution_policy& policy, span<const K> keys_in, span<K> keys_out, sort_order order) {
  using B = sort_bits<K>;
  const bool descending = order == sort_order::descending;
  radix_sort_keys("sort", policy, keys_in, keys_out, radix::bits_order<B>{key_kind_of<K>, descending},
                  cub_by_type<K>(descending), [&](const auto& p, K* keys, std::size_t n) {
                    if (descending) {
                      thrust::stable_sort(p, keys, keys + n, cuda::std::greater<K>{});
                    } else {
                      thrust::stable_sort(p, keys, keys + n, cuda::std::less<K>{});
                    }
                  });
}

template <sort_key K, class V>
void sort_pairs(const execution_policy& policy, span<const K> keys_in, span<const V> values_in, span<K> keys_out,
                span<V> values_out, sort_order order) {
  using B = sort_bits<K>;
  const bool descending = order == sort_order::descending;
  radix_sort_pairs("sort_by_key", policy, keys_in, values_in, keys_out, values_out,
                   radix::bits_order<B>{key_kind_of<K>, descending}, cub_by_type<K>(descending),
                   [&](const auto& p, K* keys, V* values, std::size_t n) {
                     if (descending) {
                       thrust::stable_sort_by_key(p, keys, keys + n, values, cuda::std::greater<K>{});
                     } else {
                       thrust::stable_sort_by_key(p, keys, keys + n, values, cuda::std::less<K>{});
                     }
                   });
}

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
  const radix::bits_order<B> by_bits{key_kind_of<K>, descending};
  const radix::index_order<radix::bits_order<B>, I> by_key{reinterpret_cast<const B*>(k), by_bits};
  // Thrust has no argsort: the positions, merge-sorted by their keys.
  const auto on_thrust = [&](const auto& p) {
    thrust::sequence(p, idx, idx + n);
    thrust::stable_sort(p, idx, idx + n, by_key);
  };
  const auto cub = cub_by_type<K>(descending);
  dispatch({algorithm, sort_family, policy,
            {array_ref::input(keys, "the keys"), array_ref::output_apart(indices, "the indices")}, n,
            2 * keys.size_bytes() + 2 * indices.size_bytes()},
           implementations{
               .cpu = on_thrust,
               .thrust = on_thrust,
               // The positions are made by the first pass as it loads the keys: no array of them is read.
               .raw =
                   [&] {
                     radix::onesweep_sort<B, I, true>(algorithm, policy, reinterpret_cast<const B*>(k), nullptr,
                                                      nullptr, idx, true, n, by_bits, true);
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
                             launch(algorithm, "iota_kernel", sorting::iota_kernel<I>, stride_blocks(n),
                                    block_size, stream, positions, n);
                           }
                           return cub.pairs(temp, bytes, k, sorted_keys, static_cast<const I*>(positions), idx, count,
                                            stream);
                         },
                         keys_bytes + n * sizeof(I));
                   },
           });
}

// The standard keys are compiled into the library (algorithms/sort/*.cu): a translation unit that
// includes this header links to those rather than compiling them again.
extern template void sort_keys<float>(const execution_policy&, span<const float>, span<float>, sort_order);
extern template void sort_keys<double>(const execution_policy&, span<const double>, span<double>, sort_order);
extern template void sort_keys<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int32_t>, sort_order);
extern template void sort_keys<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>, sort_order);
extern template void sort_keys<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>, sort_order);
extern template void sort_keys<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>, sort_order);
extern template void sort_pairs<float, std::uint32_t>(const execution_policy&, span<const float>, span<const std::uint32_t>, span<float>, span<std::uint32_t>, sort_order);
extern template void sort_pairs<float, std::uint64_t>(const execution_policy&, span<const float>, span<const std::uint64_t>, span<float>, span<std::uint64_t>, sort_order);
extern template void sort_pairs<double, std::uint32_t>(const execution_policy&, span<const double>, span<const std::uint32_t>, span<double>, span<std::uint32_t>, sort_order);
extern template void sort_pairs<double, std::uint64_t>(const execution_policy&, span<const double>, span<const std::uint64_t>, span<double>, span<std::uint64_t>, sort_order);
extern template void sort_pairs<std::int32_t, std::uint32_t>(const execution_policy&, span<const std::int32_t>, span<const std::uint32_t>, span<std::int32_t>, span<std::uint32_t>, sort_order);
extern template void sort_pairs<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<const std::uint64_t>, span<std::int32_t>, span<std::uint64_t>, sort_order);
extern template void sort_pairs<std::int64_t, std::uint32_t>(const execution_policy&, span<const std::int64_t>, span<const std::uint32_t>, span<std::int64_t>, span<std::uint32_t>, sort_order);
extern template void sort_pairs<std::int64_t, std::uint64_t>(const execution_policy&, span<const std::int64_t>, span<const std::uint64_t>, span<std::int64_t>, span<std::uint64_t>, sort_order);
extern template void sort_pairs<std::uint32_t, std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<const std::uint32_t>, span<std::uint32_t>, span<std::uint32_t>, sort_order);
extern template void sort_pairs<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<const std::uint64_t>, span<std::uint32_t>, span<std::uint64_t>, sort_order);
extern template void sort_pairs<std::uint64_t, std::uint32_t>(const execution_policy&, span<const std::uint64_t>, span<const std::uint32_t>, span<std::uint64_t>, span<std::uint32_t>, sort_order);
extern template void sort_pairs<std::uint64_t, std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<const std::uint64_t>, span<std::uint64_t>, span<std::uint64_t>, sort_order);
extern template void argsort<float, std::uint32_t>(const execution_policy&, span<const float>, span<std::uint32_t>, sort_order);
extern template void argsort<float, std::uint64_t>(const execution_policy&, span<const float>, span<std::uint64_t>, sort_order);
extern template void argsort<double, std::uint32_t>(const execution_policy&, span<const double>, span<std::uint32_t>, sort_order);
extern template void argsort<double, std::uint64_t>(const execution_policy&, span<const double>, span<std::uint64_t>, sort_order);
extern template void argsort<std::int32_t, std::uint32_t>(const execution_policy&, span<const std::int32_t>, span<std::uint32_t>, sort_order);
extern template void argsort<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<std::uint64_t>, sort_order);
extern template void argsort<std::int64_t, std::uint32_t>(const execution_policy&, span<const std::int64_t>, span<std::uint32_t>, sort_order);
extern template void argsort<std::int64_t, std::uint64_t>(const execution_policy&, span<const std::int64_t>, span<std::uint64_t>, sort_order);
extern template void argsort<std::uint32_t, std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>, sort_order);
extern template void argsort<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint64_t>, sort_order);
extern template void argsort<std::uint64_t, std::uint32_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint32_t>, sort_order);
extern template void argsort<std::uint64_t, std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>, sort_order);

// ---- a caller's key, by its decomposer ---------------------------------------------------------------

// Values moved as an unsigned integer of their size where their alignment allows (one
// instantiation per size), as themselves otherwise.
template <class V, bool AsWord = (sizeof(V) == 1 || sizeof(V) == 2 || sizeof(V) == 4 || sizeof(V) == 8) &&
                                  alignof(V) >= sizeof(V)>
struct moved_value {
  using type = V;
};
template <class V>
struct moved_value<V, true> {
  using type = typename radix::unsigned_of<sizeof(V)>::type;
};
template <class V>
using moved_value_t = typename moved_value<V>::type;

template <class K, class D>
void sort_decomposed(const execution_policy& policy, span<const K> keys_in, span<K> keys_out, D decomposer,
                     sort_order order) {
  using Order = radix::decomposed_order<K, D>;
  const Order by_fields{decomposer, order == sort_order::descending};
  radix_sort_keys<D>("sort", policy, keys_in, keys_out, by_fields,
                     sorting::cub_radix_sort<D>{decomposer, Order::bits, by_fields.descending},
                     [&](const auto& p, K* keys, std::size_t n) { thrust::stable_sort(p, keys, keys + n, by_fields); });
}

template <class K, class V, class D>
void sort_by_key_decomposed(const execution_policy& policy, span<const K> keys_in, span<const V> values_in,
                            span<K> keys_out, span<V> values_out, D decomposer, sort_order order) {
  using Order = radix::decomposed_order<K, D>;
  using M = moved_value_t<V>;
  const Order by_fields{decomposer, order == sort_order::descending};
  radix_sort_pairs<D>("sort_by_key", policy, keys_in, reinterpret_span<const M>(values_in), keys_out, reinterpret_span<M>(values_out),
                      by_fields, sorting::cub_radix_sort<D>{decomposer, Order::bits, by_fields.descending},
                      [&](const auto& p, K* keys, M* values, std::size_t n) {
                        thrust::stable_sort_by_key(p, keys, keys + n, values, by_fields);
                      });
}

// Keys of the caller's type, and values of any trivially copyable type.
template <class O, class D>
concept decomposed_key_output =
    writable_array<O> && radix_decomposer<std::remove_cvref_t<D>, value_t<O>>;
template <class O>
concept sort_any_value_output = writable_array<O> && std::is_trivially_copyable_v<value_t<O>>;

}  // namespace detail

namespace ops {


// ---- sort by a decomposer ------------------------------------------------------------------------------

// keys_out = keys_in sorted by the fields `decomposer` names (keys_out may be keys_in), stably.
template <class X, class O, class D>
  requires detail::decomposed_key_output<O, D> && array_of<X, value_t<O>>
void run(sort, const execution_policy& policy, X&& keys_in, O&& keys_out, D decomposer,
          sort_order order = sort_order::ascending) {
  detail::sort_decomposed<value_t<O>>(policy, input_span(keys_in), output_span(keys_out), decomposer, order);
}
// In place.
template <class O, class D>
  requires detail::decomposed_key_output<O, D>
void run(sort, const execution_policy& policy, O&& keys, D decomposer, sort_order order = sort_order::ascending) {
  const auto k = output_span(keys);
  detail::sort_decomposed<value_t<O>>(policy, span<const value_t<O>>(k), k, decomposer, order);
}

// keys and values reordered together by the keys' decomposed fields, in place.
template <class K, class V, class D>
  requires detail::decomposed_key_output<K, D> && detail::sort_any_value_output<V>
void run(sort_by_key, const execution_policy& policy, K&& keys, V&& values, D decomposer,
                 sort_order order = sort_order::ascending) {
  const auto k = output_span(keys);
  const auto v = output_span(values);
  detail::sort_by_key_decomposed<value_t<K>, value_t<V>>(policy, span<const value_t<K>>(k), span<const value_t<V>>(v),
                                                         k, v, decomposer, order);
}
// Out of place: keys_out = keys_in sorted, values_out[i] the value that came with keys_out[i].
template <class KI, class VI, class KO, class VO, class D>
  requires detail::decomposed_key_output<KO, D> && array_of<KI, value_t<KO>> && detail::sort_any_value_output<VO> &&
           array_of<VI, value_t<VO>>
void run(sort_by_key, const execution_policy& policy, KI&& keys_in, VI&& values_in, KO&& keys_out, VO&& values_out,
                 D decomposer, sort_order order = sort_order::ascending) {
  detail::sort_by_key_decomposed<value_t<KO>, value_t<VO>>(policy, input_span(keys_in), input_span(values_in),
                                                           output_span(keys_out), output_span(values_out), decomposer,
                                                           order);
}
}  // namespace ops

}  // namespace prism
