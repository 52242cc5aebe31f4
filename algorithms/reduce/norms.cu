// dot and the vector norms: a transform of each element (or pair of elements) and a sum or a
// max. dot reads two arrays: raw loads 16 bytes of each per step when both can be aligned
// together, one element of each otherwise.
#include "operations.cuh"

namespace prism {
namespace {

template <class T>
sum_type<T> dot_to(input<T> a, input<T> b, sum_type<T>* result, cudaStream_t stream, impl which) {
  using Acc = sum_type<T>;
  return operations::run("dot", operations::with_index(operations::multiply<Acc>{}),
                         reduction::plus<Acc>{}, Acc(0), reduction::no_finalize{}, result, stream,
                         which, a, b);
}

template <class T>
T norm1_to(input<T> x, T* result, cudaStream_t stream, impl which) {
  return operations::run("norm1", operations::with_index(operations::magnitude{}),
                         reduction::plus<T>{}, T(0), reduction::no_finalize{}, result, stream, which, x);
}

template <class T>
T norm2_to(input<T> x, T* result, cudaStream_t stream, impl which) {
  return operations::run("norm2", operations::with_index(operations::square{}),
                         reduction::plus<T>{}, T(0), operations::square_root{}, result, stream, which, x);
}

// max |x|; a NaN element makes it NaN. Zero for an empty input, like the other norms.
template <class T>
T norm_inf_to(input<T> x, T* result, cudaStream_t stream, impl which) {
  return operations::run("norm_inf", operations::with_index(operations::magnitude{}),
                         reduction::extremum<T>{true}, T(0), reduction::no_finalize{}, result,
                         stream, which, x);
}

}  // namespace

template <signed_reduce_element T>
sum_type<T> dot(input<T> a, input<T> b, cudaStream_t stream, impl which) {
  return dot_to<T>(a, b, nullptr, stream, which);
}
template <signed_reduce_element T>
void dot(input<T> a, input<T> b, span<sum_type<T>> result, cudaStream_t stream, impl which) {
  dot_to<T>(a, b, operations::result_of(result, which, "dot"), stream, which);
}
template <floating_element T>
T norm1(input<T> x, cudaStream_t stream, impl which) {
  return norm1_to<T>(x, nullptr, stream, which);
}
template <floating_element T>
void norm1(input<T> x, span<T> result, cudaStream_t stream, impl which) {
  norm1_to<T>(x, operations::result_of(result, which, "norm1"), stream, which);
}
template <floating_element T>
T norm2(input<T> x, cudaStream_t stream, impl which) {
  return norm2_to<T>(x, nullptr, stream, which);
}
template <floating_element T>
void norm2(input<T> x, span<T> result, cudaStream_t stream, impl which) {
  norm2_to<T>(x, operations::result_of(result, which, "norm2"), stream, which);
}
template <floating_element T>
T norm_inf(input<T> x, cudaStream_t stream, impl which) {
  return norm_inf_to<T>(x, nullptr, stream, which);
}
template <floating_element T>
void norm_inf(input<T> x, span<T> result, cudaStream_t stream, impl which) {
  norm_inf_to<T>(x, operations::result_of(result, which, "norm_inf"), stream, which);
}

template float dot<float>(input<float>, input<float>, cudaStream_t, impl);
template double dot<double>(input<double>, input<double>, cudaStream_t, impl);
template std::int64_t dot<std::int32_t>(input<std::int32_t>, input<std::int32_t>, cudaStream_t, impl);
template std::int64_t dot<std::int64_t>(input<std::int64_t>, input<std::int64_t>, cudaStream_t, impl);
template void dot<float>(input<float>, input<float>, span<float>, cudaStream_t, impl);
template void dot<double>(input<double>, input<double>, span<double>, cudaStream_t, impl);
template void dot<std::int32_t>(input<std::int32_t>, input<std::int32_t>, span<std::int64_t>, cudaStream_t, impl);
template void dot<std::int64_t>(input<std::int64_t>, input<std::int64_t>, span<std::int64_t>, cudaStream_t, impl);

template float norm1<float>(input<float>, cudaStream_t, impl);
template double norm1<double>(input<double>, cudaStream_t, impl);
template void norm1<float>(input<float>, span<float>, cudaStream_t, impl);
template void norm1<double>(input<double>, span<double>, cudaStream_t, impl);
template float norm2<float>(input<float>, cudaStream_t, impl);
template double norm2<double>(input<double>, cudaStream_t, impl);
template void norm2<float>(input<float>, span<float>, cudaStream_t, impl);
template void norm2<double>(input<double>, span<double>, cudaStream_t, impl);
template float norm_inf<float>(input<float>, cudaStream_t, impl);
template double norm_inf<double>(input<double>, cudaStream_t, impl);
template void norm_inf<float>(input<float>, span<float>, cudaStream_t, impl);
template void norm_inf<double>(input<double>, span<double>, cudaStream_t, impl);

}  // namespace prism
