// Vector add, out[i] = a[i] + b[i]: the first lesson, and the pattern for every element-wise
// operation. The operation is one functor; prism::transform runs it in every implementation
// (include/prism/transform.cuh has them side by side, with why each is as fast as it is).
#include <prism/elementwise.hpp>
#include <prism/transform.cuh>

namespace prism {

// The sum in T itself. Signed overflow is undefined in C++, so integers add as unsigned and
// convert back: the two's-complement wrap-around every implementation then agrees on.
template <class T>
struct plus {
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};

template <arithmetic_element T>
void add(input<T> a, input<T> b, span<T> out, cudaStream_t stream, impl which) {
  transform(plus<T>{}, out, std::tuple{a, b}, stream, which, "add");
}

template void add<float>(input<float>, input<float>, span<float>, cudaStream_t, impl);
template void add<double>(input<double>, input<double>, span<double>, cudaStream_t, impl);
template void add<std::int32_t>(input<std::int32_t>, input<std::int32_t>, span<std::int32_t>,
                                cudaStream_t, impl);
template void add<std::int64_t>(input<std::int64_t>, input<std::int64_t>, span<std::int64_t>,
                                cudaStream_t, impl);

}  // namespace prism
