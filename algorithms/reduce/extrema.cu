// SPDX-License-Identifier: Apache-2.0
// min, max and minmax. min and max are one reduction whose operator says which end it keeps, so
// each type compiles one set of kernels for both; minmax carries both ends in one pass.
// A NaN anywhere wins (functors::extremum): the result is NaN whatever the order of combination.
#include "operations.cuh"

namespace prism::detail {
namespace {

// init is the operator's identity for min and max, the caller's for reduce(x, init, prism::min).
template <class T>
T extreme(const char* algorithm, const execution_policy& policy, span<const T> x, bool largest, T init,
          span<T>* into) {
  const functors::extremum<T> op{largest};
  return run(algorithm, policy, with_index(functors::cast_to<T>{}), op, init, functors::no_finalize{}, into, x);
}

}  // namespace

template <reduce_element T>
T min(const execution_policy& policy, span<const T> x, span<T>* into) {
  require_not_empty(x.size(), "min");
  return extreme<T>("min", policy, x, false, functors::extremum<T>{false}.identity(), into);
}
template <reduce_element T>
T min_from(const execution_policy& policy, span<const T> x, T init, span<T>* into) {
  return extreme<T>("min", policy, x, false, init, into);
}
template <reduce_element T>
T max(const execution_policy& policy, span<const T> x, span<T>* into) {
  require_not_empty(x.size(), "max");
  return extreme<T>("max", policy, x, true, functors::extremum<T>{true}.identity(), into);
}
template <reduce_element T>
T max_from(const execution_policy& policy, span<const T> x, T init, span<T>* into) {
  return extreme<T>("max", policy, x, true, init, into);
}
template <reduce_element T>
minmax_result<T> minmax(const execution_policy& policy, span<const T> x, span<minmax_result<T>>* into) {
  require_not_empty(x.size(), "minmax");
  const functors::min_and_max<T> op;
  return run("minmax", policy, with_index(functors::pair_with_itself<T>{}), op, op.identity(),
             functors::as_minmax_result<T>{}, into, x);
}

template float min<float>(const execution_policy&, span<const float>, span<float>*);
template float min_from<float>(const execution_policy&, span<const float>, float, span<float>*);
template double min<double>(const execution_policy&, span<const double>, span<double>*);
template double min_from<double>(const execution_policy&, span<const double>, double, span<double>*);
template std::int32_t min<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int32_t>*);
template std::int32_t min_from<std::int32_t>(const execution_policy&, span<const std::int32_t>, std::int32_t, span<std::int32_t>*);
template std::int64_t min<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>*);
template std::int64_t min_from<std::int64_t>(const execution_policy&, span<const std::int64_t>, std::int64_t, span<std::int64_t>*);
template std::uint32_t min<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>*);
template std::uint32_t min_from<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, std::uint32_t, span<std::uint32_t>*);
template std::uint64_t min<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>*);
template std::uint64_t min_from<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, std::uint64_t, span<std::uint64_t>*);
template float max<float>(const execution_policy&, span<const float>, span<float>*);
template float max_from<float>(const execution_policy&, span<const float>, float, span<float>*);
template double max<double>(const execution_policy&, span<const double>, span<double>*);
template double max_from<double>(const execution_policy&, span<const double>, double, span<double>*);
template std::int32_t max<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int32_t>*);
template std::int32_t max_from<std::int32_t>(const execution_policy&, span<const std::int32_t>, std::int32_t, span<std::int32_t>*);
template std::int64_t max<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>*);
template std::int64_t max_from<std::int64_t>(const execution_policy&, span<const std::int64_t>, std::int64_t, span<std::int64_t>*);
template std::uint32_t max<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>*);
template std::uint32_t max_from<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, std::uint32_t, span<std::uint32_t>*);
template std::uint64_t max<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>*);
template std::uint64_t max_from<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, std::uint64_t, span<std::uint64_t>*);
template minmax_result<float> minmax<float>(const execution_policy&, span<const float>, span<minmax_result<float>>*);
template minmax_result<double> minmax<double>(const execution_policy&, span<const double>, span<minmax_result<double>>*);
template minmax_result<std::int32_t> minmax<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<minmax_result<std::int32_t>>*);
template minmax_result<std::int64_t> minmax<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<minmax_result<std::int64_t>>*);
template minmax_result<std::uint32_t> minmax<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<minmax_result<std::uint32_t>>*);
template minmax_result<std::uint64_t> minmax<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<minmax_result<std::uint64_t>>*);

}  // namespace prism::detail
