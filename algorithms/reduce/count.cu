// count_if (and, in the header, count, any and all): each element becomes 1 or 0 by the
// comparison, and the ones are added up in 64 bits. The comparison is a value carried by the
// functor, not a type, so each element type compiles one set of kernels for all six.
#include "operations.cuh"

namespace prism {
namespace {

template <class T>
std::uint64_t count_to(input<T> x, comparison compare, T value, std::uint64_t* result,
                       cudaStream_t stream, impl which) {
  return operations::run("count_if", operations::with_index(operations::satisfies<T>{compare, value}),
                         reduction::plus<std::uint64_t>{}, std::uint64_t{0}, reduction::no_finalize{},
                         result, stream, which, x);
}

}  // namespace

template <reduce_element T>
std::uint64_t count_if(input<T> x, comparison compare, std::type_identity_t<T> value,
                       cudaStream_t stream, impl which) {
  return count_to<T>(x, compare, value, nullptr, stream, which);
}
template <reduce_element T>
void count_if(input<T> x, comparison compare, std::type_identity_t<T> value,
              span<std::uint64_t> result, cudaStream_t stream, impl which) {
  count_to<T>(x, compare, value, operations::result_of(result, which, "count_if"), stream, which);
}

template std::uint64_t count_if<float>(input<float>, comparison, float, cudaStream_t, impl);
template std::uint64_t count_if<double>(input<double>, comparison, double, cudaStream_t, impl);
template std::uint64_t count_if<std::int32_t>(input<std::int32_t>, comparison, std::int32_t, cudaStream_t, impl);
template std::uint64_t count_if<std::int64_t>(input<std::int64_t>, comparison, std::int64_t, cudaStream_t, impl);
template std::uint64_t count_if<std::uint32_t>(input<std::uint32_t>, comparison, std::uint32_t, cudaStream_t, impl);
template std::uint64_t count_if<std::uint64_t>(input<std::uint64_t>, comparison, std::uint64_t, cudaStream_t, impl);
template void count_if<float>(input<float>, comparison, float, span<std::uint64_t>, cudaStream_t, impl);
template void count_if<double>(input<double>, comparison, double, span<std::uint64_t>, cudaStream_t, impl);
template void count_if<std::int32_t>(input<std::int32_t>, comparison, std::int32_t, span<std::uint64_t>,
                                     cudaStream_t, impl);
template void count_if<std::int64_t>(input<std::int64_t>, comparison, std::int64_t, span<std::uint64_t>,
                                     cudaStream_t, impl);
template void count_if<std::uint32_t>(input<std::uint32_t>, comparison, std::uint32_t, span<std::uint64_t>,
                                      cudaStream_t, impl);
template void count_if<std::uint64_t>(input<std::uint64_t>, comparison, std::uint64_t, span<std::uint64_t>,
                                      cudaStream_t, impl);

}  // namespace prism
