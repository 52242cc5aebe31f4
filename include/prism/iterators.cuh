// SPDX-License-Identifier: Apache-2.0
#pragma once
// Thrust's and libcu++'s iterators as inputs of the generic layer, as a CUDA program passes them
// to Thrust: counting, constant, transform, permutation and zip iterators (any random-access
// iterator but a raw pointer, which has no size and is an array's job):
//
//   prism::transform(thrust::make_counting_iterator<std::int64_t>(0), out, f);   // out[i] = f(i)
//   float s = prism::transform_reduce(first, first + n, 0.0f, plus, square{});
//   prism::reduce(thrust::make_permutation_iterator(values, map), ..., init, op);
//   prism::inclusive_scan(cuda::make_constant_iterator(1), out, plus);           // 1, 2, 3, ...
//   prism::exclusive_scan(it, out, init, op);
//
// An iterator's elements are computed or read where the call runs; nothing is materialized. The
// dispatch sees the arrays only (the output, the result): an iterator says nothing about where
// its memory is, except that one of Thrust's host system (a transform_iterator over a host
// pointer, a host_vector's) makes automatic run cpu, as Thrust would. An iterator over memory the
// implementation cannot reach is the caller's mistake, unchecked, as in Thrust.
//
// The implementations:
//   transform       cpu, thrust (thrust::transform), raw_naive and raw (one thread per element:
//                   an iterator has no 16-byte vectors to load, so the two are one kernel), cub
//                   (cub::DeviceTransform over the iterators).
//   transform_reduce, reduce   cpu, thrust (thrust::transform_reduce, thrust::reduce_into), cub
//                   (cub::DeviceReduce::TransformReduce); automatic picks cub on the GPU. No raw:
//                   its kernel is built on vector loads of arrays.
//   inclusive_scan, exclusive_scan   cpu, thrust, cub (cub::DeviceScan over the iterator); no raw.
// Outputs stay arrays: a discard iterator as an output is not taken (every form here writes what
// it computes; the selections' counts are what a discarded output would leave).
#include <prism/dispatch.cuh>
#include <prism/reduce.cuh>
#include <prism/scan.cuh>
#include <prism/transform.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_transform.cuh>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <iterator>
#include <optional>
#include <type_traits>

namespace prism {

// A random-access iterator that is not a pointer (and not an array).
template <class It>
concept fancy_iterator =
    !std::is_pointer_v<std::remove_cvref_t<It>> && !array_like<std::remove_reference_t<It>> &&
    requires { typename std::iterator_traits<std::remove_cvref_t<It>>::iterator_category; } &&
    std::is_base_of_v<std::random_access_iterator_tag,
                      typename std::iterator_traits<std::remove_cvref_t<It>>::iterator_category>;

namespace detail {
// Automatic runs cpu where an iterator is of Thrust's host system (any_system is not).
template <class... It>
execution_policy iterator_policy(const execution_policy& policy) {
  constexpr bool host = ((!std::is_same_v<thrust::iterator_system_t<It>, thrust::any_system_tag> &&
                          std::is_convertible_v<thrust::iterator_system_t<It>, thrust::host_system_tag>) ||
                         ...);
  if (host && policy.implementation() == impl::automatic) return policy.with(impl::cpu);
  return policy;
}

template <class F, class Out, class It>
__global__ void transform_iterator_kernel(F f, Out* out, std::size_t n, It in) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

template <class F, class Out, class It>
void transform_iterator_spans(const char* algorithm, const execution_policy& given, F f, span<Out> out, It in) {
  const execution_policy policy = iterator_policy<It>(given);
  const std::size_t n = out.size();
  const auto count = static_cast<std::int64_t>(n);
  const cudaStream_t stream = policy.stream();
  const auto op = cuda::proclaim_copyable_arguments(f);
  const auto on_thrust = [&](const auto& p) { thrust::transform(p, in, in + count, out.data(), op); };
  const auto on_kernel = [&] {
    launch(algorithm, "transform_iterator_kernel", transform_iterator_kernel<F, Out, It>, blocks_for(n), block_size,
           stream, f, out.data(), n, in);
  };
  dispatch<F>({algorithm, elementwise_family, policy, {array_ref::output_apart(out, "the output")}, n},
              implementations{
                  .cpu = on_thrust,
                  .thrust = on_thrust,
                  .raw_naive = on_kernel,
                  .raw = on_kernel,
                  .cub =
                      [&] {
                        clear_stale_error();
                        check(cub::DeviceTransform::Transform(cuda::std::make_tuple(in), out.data(), count, op, stream),
                              "cub::DeviceTransform::Transform", algorithm);
                      },
              });
}

// The iterator forms of the reductions and scans offer cpu, thrust and cub; automatic on the GPU
// runs cub.
inline constexpr impl iterator_implementations[] = {impl::cpu, impl::thrust, impl::cub};
inline constexpr automatic_row iterator_automatic[] = {{0, impl::cub}};
inline constexpr family iterator_family{iterator_implementations, iterator_automatic};

template <class Acc, class It, class Op, class F>
Acc transform_reduce_iterators(const execution_policy& given, It first, std::size_t n, span<Acc>* result, Acc init,
                               Op op, F f) {
  const char* algorithm = "transform_reduce";
  const execution_policy policy = iterator_policy<It>(given);
  const auto count = static_cast<std::int64_t>(n);
  const auto mapped = thrust::make_transform_iterator(first, f);
  // No array to count: the bytes are the elements the iterator yields (what sizes cpu's team).
  const std::size_t bytes = n * sizeof(typename std::iterator_traits<It>::value_type);
  return dispatch<F, Op>(
      {algorithm, iterator_family, policy, {}, n, bytes}, result_to<Acc>{result, init},
      implementations{
          .cpu = [&](const auto& p, Acc*) -> std::optional<Acc> {
            return thrust::transform_reduce(p, first, first + count, f, init, op);
          },
          .thrust = [&](const auto& p, Acc* at) -> std::optional<Acc> {
            thrust::reduce_into(p, mapped, mapped + count, at, init, op);
            return std::nullopt;
          },
          .cub = [&](Acc* at) -> std::optional<Acc> {
            cub_call(algorithm, "cub::DeviceReduce::TransformReduce", policy, {n},
                     [&](void* temp, std::size_t& bytes, void*) {
                       return cub::DeviceReduce::TransformReduce(temp, bytes, first, at, count, op, f, init,
                                                                 policy.stream());
                     });
            return std::nullopt;
          },
      });
}

template <bool Exclusive, class T, class It, class Op>
void scan_iterator_spans(const char* algorithm, const execution_policy& given, It in, span<T> out, Op op, T init) {
  const execution_policy policy = iterator_policy<It>(given);
  const std::size_t n = out.size();
  const auto count = static_cast<std::int64_t>(n);
  const auto on_thrust = [&](const auto& p) {
    if constexpr (Exclusive) {
      thrust::exclusive_scan(p, in, in + count, out.data(), init, op);
    } else {
      thrust::inclusive_scan(p, in, in + count, out.data(), op);
    }
  };
  dispatch<Op>({algorithm, iterator_family, policy, {array_ref::output_apart(out, "the output")}, n},
               implementations{
                   .cpu = on_thrust,
                   .thrust = on_thrust,
                   .cub =
                       [&] {
                         cub_call(algorithm, "cub::DeviceScan", policy, {n}, [&](void* temp, std::size_t& bytes, void*) {
                           if constexpr (Exclusive) {
                             return cub::DeviceScan::ExclusiveScan(temp, bytes, in, out.data(), op, init, count,
                                                                   policy.stream());
                           } else {
                             return cub::DeviceScan::InclusiveScan(temp, bytes, in, out.data(), op, count,
                                                                   policy.stream());
                           }
                         });
                       },
               });
}
}  // namespace detail

namespace ops {
// out[i] = f(first[i]) for i < out.size().
template <fancy_iterator It, class O, class F>
  requires detail::writable_array<O>
void run(transform, const execution_policy& policy, It first, O&& out, F f) {
  detail::transform_iterator_spans("transform", policy, f, output_span(out), first);
}

// init op f(first[0]) op ... op f(last[-1]), returned (the call waits) or into result[0].
template <fancy_iterator It, class Acc, class Op, class F>
  requires(!array_like<std::remove_reference_t<Acc>>)
Acc run(transform_reduce, const execution_policy& policy, It first, It last, Acc init, Op op, F f) {
  return detail::transform_reduce_iterators<Acc>(policy, first, static_cast<std::size_t>(last - first),
                                                 static_cast<span<Acc>*>(nullptr), init, op, f);
}
template <fancy_iterator It, class R, class Acc, class Op, class F>
  requires writable_array_of<R, Acc>
void run(transform_reduce, const execution_policy& policy, It first, It last, R&& result, Acc init, Op op, F f) {
  span<Acc> into = output_span(result);
  detail::transform_reduce_iterators<Acc>(policy, first, static_cast<std::size_t>(last - first), &into, init, op, f);
}
// The same with no f (std::reduce's form), in Acc.
template <fancy_iterator It, class Acc, class Op>
  requires(!array_like<std::remove_reference_t<Acc>>)
Acc run(reduce, const execution_policy& policy, It first, It last, Acc init, Op op) {
  return run(transform_reduce{}, policy, first, last, init, detail::device_operator<Acc>(op), functors::cast_to<Acc>{});
}
template <fancy_iterator It, class R, class Acc, class Op>
  requires writable_array_of<R, Acc>
void run(reduce, const execution_policy& policy, It first, It last, R&& result, Acc init, Op op) {
  run(transform_reduce{}, policy, first, last, result, init, detail::device_operator<Acc>(op),
      functors::cast_to<Acc>{});
}

// out[i] = first[0] op ... op first[i]; exclusive: init op first[0] op ... op first[i-1].
template <fancy_iterator It, class O, class Op>
  requires detail::writable_array<O> && detail::generic_functor<Op>
void run(inclusive_scan, const execution_policy& policy, It first, O&& out, Op op) {
  detail::scan_iterator_spans<false>("inclusive_scan", policy, first, output_span(out), op, value_t<O>{});
}
template <fancy_iterator It, class O, class Op>
  requires detail::writable_array<O> && detail::generic_functor<Op>
void run(exclusive_scan, const execution_policy& policy, It first, O&& out, const value_t<O>& init, Op op) {
  detail::scan_iterator_spans<true>("exclusive_scan", policy, first, output_span(out), op, init);
}
}  // namespace ops

}  // namespace prism
