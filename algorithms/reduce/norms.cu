// SPDX-License-Identifier: Apache-2.0
// dot and the vector norms: a transform of each element (or pair of elements) and a sum or a
// max. dot reads two arrays: raw loads 16 bytes of each per step when both can be aligned
// together, one element of each otherwise.
#include "operations.cuh"

namespace prism::detail {

template <signed_reduce_element T>
sum_type<T> dot(const execution_policy& policy, span<const T> a, span<const T> b,
                span<sum_type<T>>* into) {
  using Acc = sum_type<T>;
  return run("dot", policy, with_index(functors::widened_product<Acc>{}), functors::plus<Acc>{},
             Acc(0), functors::no_finalize{}, into, a, b);
}

template <floating_element T>
T norm1(const execution_policy& policy, span<const T> x, span<T>* into) {
  return run("norm1", policy, with_index(functors::magnitude{}), functors::plus<T>{}, T(0),
             functors::no_finalize{}, into, x);
}

template <floating_element T>
T norm2(const execution_policy& policy, span<const T> x, span<T>* into) {
  return run("norm2", policy, with_index(functors::square<T>{}), functors::plus<T>{}, T(0),
             functors::square_root{}, into, x);
}

// max |x|; a NaN element makes it NaN. Zero for an empty input, like the other norms.
template <floating_element T>
T norm_inf(const execution_policy& policy, span<const T> x, span<T>* into) {
  return run("norm_inf", policy, with_index(functors::magnitude{}), functors::extremum<T>{true}, T(0),
             functors::no_finalize{}, into, x);
}

template float dot<float>(const execution_policy&, span<const float>, span<const float>, span<float>*);
template double dot<double>(const execution_policy&, span<const double>, span<const double>, span<double>*);
template std::int64_t dot<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<const std::int32_t>, span<std::int64_t>*);
template std::int64_t dot<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<const std::int64_t>, span<std::int64_t>*);
template float norm1<float>(const execution_policy&, span<const float>, span<float>*);
template double norm1<double>(const execution_policy&, span<const double>, span<double>*);
template float norm2<float>(const execution_policy&, span<const float>, span<float>*);
template double norm2<double>(const execution_policy&, span<const double>, span<double>*);
template float norm_inf<float>(const execution_policy&, span<const float>, span<float>*);
template double norm_inf<double>(const execution_policy&, span<const double>, span<double>*);

}  // namespace prism::detail
