// min, max and minmax. min and max are one reduction whose operator says which end it keeps, so
// each type compiles one set of kernels for both; minmax carries both ends in one pass.
// A NaN anywhere wins (reduction::extremum): the result is NaN whatever the order of combination.
#include "operations.cuh"

namespace prism {
namespace {

template <class T>
T extreme(const char* algorithm, input<T> x, bool largest, T* result, cudaStream_t stream, impl which) {
  operations::require_not_empty(x.size(), algorithm);
  const reduction::extremum<T> op{largest};
  return operations::run(algorithm, operations::with_index(operations::convert<T>{}), op,
                         op.identity(), reduction::no_finalize{}, result, stream, which, x);
}

template <class T>
minmax_result<T> both_ends(input<T> x, minmax_result<T>* result, cudaStream_t stream, impl which) {
  operations::require_not_empty(x.size(), "minmax");
  const reduction::min_and_max<T> op;
  return operations::run("minmax", operations::with_index(operations::pair_with_itself<T>{}), op,
                         op.identity(), operations::as_minmax_result<T>{}, result, stream, which, x);
}

}  // namespace

template <reduce_element T>
T min(input<T> x, cudaStream_t stream, impl which) {
  return extreme<T>("min", x, false, nullptr, stream, which);
}
template <reduce_element T>
T max(input<T> x, cudaStream_t stream, impl which) {
  return extreme<T>("max", x, true, nullptr, stream, which);
}
template <reduce_element T>
minmax_result<T> minmax(input<T> x, cudaStream_t stream, impl which) {
  return both_ends<T>(x, nullptr, stream, which);
}
template <reduce_element T>
void min(input<T> x, span<T> result, cudaStream_t stream, impl which) {
  extreme<T>("min", x, false, operations::result_of(result, which, "min"), stream, which);
}
template <reduce_element T>
void max(input<T> x, span<T> result, cudaStream_t stream, impl which) {
  extreme<T>("max", x, true, operations::result_of(result, which, "max"), stream, which);
}
template <reduce_element T>
void minmax(input<T> x, span<minmax_result<T>> result, cudaStream_t stream, impl which) {
  both_ends<T>(x, operations::result_of(result, which, "minmax"), stream, which);
}

template float min<float>(input<float>, cudaStream_t, impl);
template double min<double>(input<double>, cudaStream_t, impl);
template std::int32_t min<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template std::int64_t min<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template std::uint32_t min<std::uint32_t>(input<std::uint32_t>, cudaStream_t, impl);
template std::uint64_t min<std::uint64_t>(input<std::uint64_t>, cudaStream_t, impl);
template void min<float>(input<float>, span<float>, cudaStream_t, impl);
template void min<double>(input<double>, span<double>, cudaStream_t, impl);
template void min<std::int32_t>(input<std::int32_t>, span<std::int32_t>, cudaStream_t, impl);
template void min<std::int64_t>(input<std::int64_t>, span<std::int64_t>, cudaStream_t, impl);
template void min<std::uint32_t>(input<std::uint32_t>, span<std::uint32_t>, cudaStream_t, impl);
template void min<std::uint64_t>(input<std::uint64_t>, span<std::uint64_t>, cudaStream_t, impl);

template float max<float>(input<float>, cudaStream_t, impl);
template double max<double>(input<double>, cudaStream_t, impl);
template std::int32_t max<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template std::int64_t max<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template std::uint32_t max<std::uint32_t>(input<std::uint32_t>, cudaStream_t, impl);
template std::uint64_t max<std::uint64_t>(input<std::uint64_t>, cudaStream_t, impl);
template void max<float>(input<float>, span<float>, cudaStream_t, impl);
template void max<double>(input<double>, span<double>, cudaStream_t, impl);
template void max<std::int32_t>(input<std::int32_t>, span<std::int32_t>, cudaStream_t, impl);
template void max<std::int64_t>(input<std::int64_t>, span<std::int64_t>, cudaStream_t, impl);
template void max<std::uint32_t>(input<std::uint32_t>, span<std::uint32_t>, cudaStream_t, impl);
template void max<std::uint64_t>(input<std::uint64_t>, span<std::uint64_t>, cudaStream_t, impl);

template minmax_result<float> minmax<float>(input<float>, cudaStream_t, impl);
template minmax_result<double> minmax<double>(input<double>, cudaStream_t, impl);
template minmax_result<std::int32_t> minmax<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template minmax_result<std::int64_t> minmax<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template minmax_result<std::uint32_t> minmax<std::uint32_t>(input<std::uint32_t>, cudaStream_t, impl);
template minmax_result<std::uint64_t> minmax<std::uint64_t>(input<std::uint64_t>, cudaStream_t, impl);
template void minmax<float>(input<float>, span<minmax_result<float>>, cudaStream_t, impl);
template void minmax<double>(input<double>, span<minmax_result<double>>, cudaStream_t, impl);
template void minmax<std::int32_t>(input<std::int32_t>, span<minmax_result<std::int32_t>>, cudaStream_t, impl);
template void minmax<std::int64_t>(input<std::int64_t>, span<minmax_result<std::int64_t>>, cudaStream_t, impl);
template void minmax<std::uint32_t>(input<std::uint32_t>, span<minmax_result<std::uint32_t>>, cudaStream_t, impl);
template void minmax<std::uint64_t>(input<std::uint64_t>, span<minmax_result<std::uint64_t>>, cudaStream_t, impl);

}  // namespace prism
