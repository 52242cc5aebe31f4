// product, mean, variance and stddev.
// variance and stddev are one reduction of (count, mean, m2) triples with Chan's pairwise
// combine (reduction::combine_moments); the finalize divides by n and, for stddev, takes the
// root. One pass over the input, as fast as a sum where the combine's arithmetic stays hidden
// behind the loads.
#include "operations.cuh"

namespace prism {
namespace {

template <class T>
sum_type<T> product_to(input<T> x, sum_type<T>* result, cudaStream_t stream, impl which) {
  using Acc = sum_type<T>;
  return operations::run("product", operations::with_index(operations::convert<Acc>{}),
                         reduction::multiplies<Acc>{}, Acc(1), reduction::no_finalize{}, result,
                         stream, which, x);
}

template <class T>
real_type<T> mean_to(input<T> x, real_type<T>* result, cudaStream_t stream, impl which) {
  using R = real_type<T>;
  operations::require_not_empty(x.size(), "mean");
  return operations::run("mean", operations::with_index(operations::convert<R>{}),
                         reduction::plus<R>{}, R(0), operations::divide_by<R>{static_cast<R>(x.size())},
                         result, stream, which, x);
}

template <class T>
real_type<T> spread_to(const char* algorithm, input<T> x, bool root, real_type<T>* result,
                       cudaStream_t stream, impl which) {
  using R = real_type<T>;
  operations::require_not_empty(x.size(), algorithm);
  return operations::run(algorithm, operations::with_index(operations::one_moment<R>{}),
                         reduction::combine_moments<R>{}, reduction::moments<R>{R(0), R(0), R(0)},
                         operations::spread<R>{root}, result, stream, which, x);
}

}  // namespace

template <signed_reduce_element T>
sum_type<T> product(input<T> x, cudaStream_t stream, impl which) {
  return product_to<T>(x, nullptr, stream, which);
}
template <signed_reduce_element T>
void product(input<T> x, span<sum_type<T>> result, cudaStream_t stream, impl which) {
  product_to<T>(x, operations::result_of(result, which, "product"), stream, which);
}
template <signed_reduce_element T>
real_type<T> mean(input<T> x, cudaStream_t stream, impl which) {
  return mean_to<T>(x, nullptr, stream, which);
}
template <signed_reduce_element T>
void mean(input<T> x, span<real_type<T>> result, cudaStream_t stream, impl which) {
  mean_to<T>(x, operations::result_of(result, which, "mean"), stream, which);
}
template <signed_reduce_element T>
real_type<T> variance(input<T> x, cudaStream_t stream, impl which) {
  return spread_to<T>("variance", x, false, nullptr, stream, which);
}
template <signed_reduce_element T>
void variance(input<T> x, span<real_type<T>> result, cudaStream_t stream, impl which) {
  spread_to<T>("variance", x, false, operations::result_of(result, which, "variance"), stream, which);
}
template <signed_reduce_element T>
real_type<T> stddev(input<T> x, cudaStream_t stream, impl which) {
  return spread_to<T>("stddev", x, true, nullptr, stream, which);
}
template <signed_reduce_element T>
void stddev(input<T> x, span<real_type<T>> result, cudaStream_t stream, impl which) {
  spread_to<T>("stddev", x, true, operations::result_of(result, which, "stddev"), stream, which);
}

template float product<float>(input<float>, cudaStream_t, impl);
template double product<double>(input<double>, cudaStream_t, impl);
template std::int64_t product<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template std::int64_t product<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template void product<float>(input<float>, span<float>, cudaStream_t, impl);
template void product<double>(input<double>, span<double>, cudaStream_t, impl);
template void product<std::int32_t>(input<std::int32_t>, span<std::int64_t>, cudaStream_t, impl);
template void product<std::int64_t>(input<std::int64_t>, span<std::int64_t>, cudaStream_t, impl);

template float mean<float>(input<float>, cudaStream_t, impl);
template double mean<double>(input<double>, cudaStream_t, impl);
template double mean<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template double mean<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template void mean<float>(input<float>, span<float>, cudaStream_t, impl);
template void mean<double>(input<double>, span<double>, cudaStream_t, impl);
template void mean<std::int32_t>(input<std::int32_t>, span<double>, cudaStream_t, impl);
template void mean<std::int64_t>(input<std::int64_t>, span<double>, cudaStream_t, impl);

template float variance<float>(input<float>, cudaStream_t, impl);
template double variance<double>(input<double>, cudaStream_t, impl);
template double variance<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template double variance<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template void variance<float>(input<float>, span<float>, cudaStream_t, impl);
template void variance<double>(input<double>, span<double>, cudaStream_t, impl);
template void variance<std::int32_t>(input<std::int32_t>, span<double>, cudaStream_t, impl);
template void variance<std::int64_t>(input<std::int64_t>, span<double>, cudaStream_t, impl);

template float stddev<float>(input<float>, cudaStream_t, impl);
template double stddev<double>(input<double>, cudaStream_t, impl);
template double stddev<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template double stddev<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template void stddev<float>(input<float>, span<float>, cudaStream_t, impl);
template void stddev<double>(input<double>, span<double>, cudaStream_t, impl);
template void stddev<std::int32_t>(input<std::int32_t>, span<double>, cudaStream_t, impl);
template void stddev<std::int64_t>(input<std::int64_t>, span<double>, cudaStream_t, impl);

}  // namespace prism
