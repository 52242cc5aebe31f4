// argmin and argmax: a reduction over (value, index) pairs whose operator keeps the smaller
// (larger) value, of equal values the smaller index, and a NaN over any number. That is a total
// order, so the first index on ties comes out of every implementation whatever it regroups.
// One set of kernels per type serves both: the operator carries which end it keeps.
#include "operations.cuh"

namespace prism {
namespace {

template <class T>
std::size_t locate(const char* algorithm, input<T> x, bool largest, std::size_t* result,
                   cudaStream_t stream, impl which) {
  operations::require_not_empty(x.size(), algorithm);
  const reduction::arg_extremum<T> op{largest};
  return operations::run(algorithm, operations::locate<T>{}, op, op.identity(),
                         operations::position{}, result, stream, which, x);
}

}  // namespace

template <reduce_element T>
std::size_t argmin(input<T> x, cudaStream_t stream, impl which) {
  return locate<T>("argmin", x, false, nullptr, stream, which);
}
template <reduce_element T>
std::size_t argmax(input<T> x, cudaStream_t stream, impl which) {
  return locate<T>("argmax", x, true, nullptr, stream, which);
}
template <reduce_element T>
void argmin(input<T> x, span<std::size_t> result, cudaStream_t stream, impl which) {
  locate<T>("argmin", x, false, operations::result_of(result, which, "argmin"), stream, which);
}
template <reduce_element T>
void argmax(input<T> x, span<std::size_t> result, cudaStream_t stream, impl which) {
  locate<T>("argmax", x, true, operations::result_of(result, which, "argmax"), stream, which);
}

template std::size_t argmin<float>(input<float>, cudaStream_t, impl);
template std::size_t argmin<double>(input<double>, cudaStream_t, impl);
template std::size_t argmin<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template std::size_t argmin<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template std::size_t argmin<std::uint32_t>(input<std::uint32_t>, cudaStream_t, impl);
template std::size_t argmin<std::uint64_t>(input<std::uint64_t>, cudaStream_t, impl);
template void argmin<float>(input<float>, span<std::size_t>, cudaStream_t, impl);
template void argmin<double>(input<double>, span<std::size_t>, cudaStream_t, impl);
template void argmin<std::int32_t>(input<std::int32_t>, span<std::size_t>, cudaStream_t, impl);
template void argmin<std::int64_t>(input<std::int64_t>, span<std::size_t>, cudaStream_t, impl);
template void argmin<std::uint32_t>(input<std::uint32_t>, span<std::size_t>, cudaStream_t, impl);
template void argmin<std::uint64_t>(input<std::uint64_t>, span<std::size_t>, cudaStream_t, impl);

template std::size_t argmax<float>(input<float>, cudaStream_t, impl);
template std::size_t argmax<double>(input<double>, cudaStream_t, impl);
template std::size_t argmax<std::int32_t>(input<std::int32_t>, cudaStream_t, impl);
template std::size_t argmax<std::int64_t>(input<std::int64_t>, cudaStream_t, impl);
template std::size_t argmax<std::uint32_t>(input<std::uint32_t>, cudaStream_t, impl);
template std::size_t argmax<std::uint64_t>(input<std::uint64_t>, cudaStream_t, impl);
template void argmax<float>(input<float>, span<std::size_t>, cudaStream_t, impl);
template void argmax<double>(input<double>, span<std::size_t>, cudaStream_t, impl);
template void argmax<std::int32_t>(input<std::int32_t>, span<std::size_t>, cudaStream_t, impl);
template void argmax<std::int64_t>(input<std::int64_t>, span<std::size_t>, cudaStream_t, impl);
template void argmax<std::uint32_t>(input<std::uint32_t>, span<std::size_t>, cudaStream_t, impl);
template void argmax<std::uint64_t>(input<std::uint64_t>, span<std::size_t>, cudaStream_t, impl);

}  // namespace prism
