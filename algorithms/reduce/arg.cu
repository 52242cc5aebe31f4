// SPDX-License-Identifier: Apache-2.0
// argmin and argmax: a reduction over (value, index) pairs whose operator keeps the smaller
// (larger) value, of equal values the smaller index, and a NaN over any number. That is a total
// order, so the first index on ties comes out of every implementation whatever it regroups.
// One set of kernels per type serves both: the operator carries which end it keeps.
#include "operations.cuh"

namespace prism::detail {
namespace {

template <class T>
std::size_t locate(const char* algorithm, const execution_policy& policy, span<const T> x,
                   bool largest, span<std::size_t>* into) {
  require_not_empty(x.size(), algorithm);
  const functors::arg_extremum<T> op{largest};
  return run(algorithm, policy, functors::locate<T>{}, op, op.identity(), functors::position{}, into, x);
}

}  // namespace

template <reduce_element T>
std::size_t argmin(const execution_policy& policy, span<const T> x, span<std::size_t>* into) {
  return locate<T>("argmin", policy, x, false, into);
}
template <reduce_element T>
std::size_t argmax(const execution_policy& policy, span<const T> x, span<std::size_t>* into) {
  return locate<T>("argmax", policy, x, true, into);
}

template std::size_t argmin<float>(const execution_policy&, span<const float>, span<std::size_t>*);
template std::size_t argmin<double>(const execution_policy&, span<const double>, span<std::size_t>*);
template std::size_t argmin<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::size_t>*);
template std::size_t argmin<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::size_t>*);
template std::size_t argmin<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::size_t>*);
template std::size_t argmin<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::size_t>*);
template std::size_t argmax<float>(const execution_policy&, span<const float>, span<std::size_t>*);
template std::size_t argmax<double>(const execution_policy&, span<const double>, span<std::size_t>*);
template std::size_t argmax<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::size_t>*);
template std::size_t argmax<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::size_t>*);
template std::size_t argmax<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::size_t>*);
template std::size_t argmax<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::size_t>*);

}  // namespace prism::detail
