// SPDX-License-Identifier: Apache-2.0
// product, mean, variance and stddev.
// variance and stddev are one reduction of (count, mean, m2) triples with Chan's pairwise
// combine (functors::combine_moments); the finalize divides by n and, for stddev, takes the
// root. One pass over the input, as fast as a sum where the combine's arithmetic stays hidden
// behind the loads.
#include "operations.cuh"

namespace prism::detail {
namespace {

template <class T>
real_type<T> spread(const char* algorithm, const execution_policy& policy, span<const T> x,
                    bool root, span<real_type<T>>* into) {
  using R = real_type<T>;
  require_not_empty(x.size(), algorithm);
  return run(algorithm, policy, with_index(functors::one_moment<R>{}), functors::combine_moments<R>{},
             functors::moments<R>{R(0), R(0), R(0)}, functors::spread<R>{root}, into, x);
}

}  // namespace

template <signed_reduce_element T>
sum_type<T> product_from(const execution_policy& policy, span<const T> x, sum_type<T> init,
                         span<sum_type<T>>* into) {
  using Acc = sum_type<T>;
  return run("product", policy, with_index(functors::cast_to<Acc>{}), functors::multiplies<Acc>{},
             init, functors::no_finalize{}, into, x);
}
template <signed_reduce_element T>
sum_type<T> product(const execution_policy& policy, span<const T> x, span<sum_type<T>>* into) {
  return product_from<T>(policy, x, sum_type<T>(1), into);
}

template <signed_reduce_element T>
real_type<T> mean(const execution_policy& policy, span<const T> x, span<real_type<T>>* into) {
  using R = real_type<T>;
  require_not_empty(x.size(), "mean");
  return run("mean", policy, with_index(functors::cast_to<R>{}), functors::plus<R>{}, R(0),
             functors::divide_by<R>{static_cast<R>(x.size())}, into, x);
}

template <signed_reduce_element T>
real_type<T> variance(const execution_policy& policy, span<const T> x, span<real_type<T>>* into) {
  return spread<T>("variance", policy, x, false, into);
}
template <signed_reduce_element T>
real_type<T> stddev(const execution_policy& policy, span<const T> x, span<real_type<T>>* into) {
  return spread<T>("stddev", policy, x, true, into);
}

template float product_from<float>(const execution_policy&, span<const float>, float, span<float>*);
template float product<float>(const execution_policy&, span<const float>, span<float>*);
template double product_from<double>(const execution_policy&, span<const double>, double, span<double>*);
template double product<double>(const execution_policy&, span<const double>, span<double>*);
template std::int64_t product_from<std::int32_t>(const execution_policy&, span<const std::int32_t>, std::int64_t, span<std::int64_t>*);
template std::int64_t product<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int64_t>*);
template std::int64_t product_from<std::int64_t>(const execution_policy&, span<const std::int64_t>, std::int64_t, span<std::int64_t>*);
template std::int64_t product<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>*);
template float mean<float>(const execution_policy&, span<const float>, span<float>*);
template double mean<double>(const execution_policy&, span<const double>, span<double>*);
template double mean<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<double>*);
template double mean<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<double>*);
template float variance<float>(const execution_policy&, span<const float>, span<float>*);
template double variance<double>(const execution_policy&, span<const double>, span<double>*);
template double variance<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<double>*);
template double variance<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<double>*);
template float stddev<float>(const execution_policy&, span<const float>, span<float>*);
template double stddev<double>(const execution_policy&, span<const double>, span<double>*);
template double stddev<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<double>*);
template double stddev<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<double>*);

}  // namespace prism::detail
