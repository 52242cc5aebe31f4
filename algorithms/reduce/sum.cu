// sum and mean: the reduction every other one is a variation of. sum runs the reduction
// progression (progression.cuh) besides the implementations of <prism/reduce.cuh>.
#include "operations.cuh"
#include "progression.cuh"

namespace prism {
namespace {

template <class T>
sum_type<T> sum_to(input<T> x, sum_type<T>* result, cudaStream_t stream, impl which) {
  using Acc = sum_type<T>;
  if (progression::is_step(which)) {
    detail::require_inputs(std::tuple{x}, which, "sum");
    if (x.empty()) return detail::reduce<Acc>(operations::with_index(operations::convert<Acc>{}),
                                              reduction::plus<Acc>{}, Acc(0), reduction::no_finalize{},
                                              result, 0, stream, impl::raw, "sum", x.data());
    return progression::sum<Acc>(which, x.data(), x.size(), result, stream);
  }
  return operations::run("sum", operations::with_index(operations::convert<Acc>{}),
                         reduction::plus<Acc>{}, Acc(0), reduction::no_finalize{}, result, stream,
                         which, x);
}

}  // namespace

template <reduce_element T>
sum_type<T> sum(input<T> x, cudaStream_t stream, impl which) {
  return sum_to<T>(x, nullptr, stream, which);
}

template <reduce_element T>
void sum(input<T> x, span<sum_type<T>> result, cudaStream_t stream, impl which) {
  sum_to<T>(x, operations::result_of(result, which, "sum"), stream, which);
}

template float sum<float>(input<float>, cudaStream_t, impl);
template double sum<double>(input<double>, cudaStream_t, impl);
template std::int64_t sum<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template std::int64_t sum<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template std::uint64_t sum<std::uint32_t>(input<std::uint32_t>, cudaStream_t, impl);
template std::uint64_t sum<std::uint64_t>(input<std::uint64_t>, cudaStream_t, impl);
template void sum<float>(input<float>, span<float>, cudaStream_t, impl);
template void sum<double>(input<double>, span<double>, cudaStream_t, impl);
template void sum<std::int32_t>(input<std::int32_t>, span<std::int64_t>, cudaStream_t, impl);
template void sum<std::int64_t>(input<std::int64_t>, span<std::int64_t>, cudaStream_t, impl);
template void sum<std::uint32_t>(input<std::uint32_t>, span<std::uint64_t>, cudaStream_t, impl);
template void sum<std::uint64_t>(input<std::uint64_t>, span<std::uint64_t>, cudaStream_t, impl);

}  // namespace prism
