#pragma once
// The reduction family, callable from plain C++: the standard reductions on the standard types
// are compiled into the library (algorithms/reduce/). CUDA code can run the same implementations
// on its own functors with <prism/reduce.cuh>.
//
//   float s = prism::sum<float>(x);                                   // to the host
//   prism::sum<float>(x, result, stream, prism::impl::raw);           // into result[0], async
//   std::size_t i = prism::argmax<double>(x, stream);
//
// Two deliveries of a result. Returned: the call waits for the stream and returns the value.
// Into a one-element span `result` (device memory, host memory for impl::cpu): nothing waits
// (impl::thrust excepted: Thrust's reduce returns to the host, so it waits and copies back).
// count, any and all are returned only; count_if has both.
//
// Semantics:
// - Empty input: sum, dot and the norms give 0, product 1, count 0, any false, all true; min, max,
//   minmax, argmin, argmax, mean, variance and stddev throw std::invalid_argument.
// - NaN: min, max and minmax return NaN if any element is NaN; argmin and argmax return the index
//   of the first NaN if there is one (as numpy and torch do). Of equal values argmin and argmax
//   return the first index, in every implementation. -0.0 and +0.0 are equal: either may be min.
// - Accumulators: sum, product and dot of integers accumulate in 64 bits of the input's signedness
//   (sum_type<T>: int32 and int64 -> int64, uint32 and uint64 -> uint64) and wrap around
//   (two's complement) past that, in every implementation. Floating point accumulates in T.
//   mean, variance and stddev accumulate in real_type<T> (T for float and double, double for
//   integers) and return it. variance is the population variance (divided by n), computed in one
//   pass with Chan's pairwise combine of per-part (count, mean, squared deviations): stable where
//   sum(x^2)/n - mean^2 cancels. norm2 does not rescale: it overflows where sum(x^2) does.
// - Determinism: every implementation is run-to-run deterministic (bitwise, for floating point)
//   on the same device with the same n and alignment; cpu, on a machine with the same number of
//   processors (Thrust cuts the input into one interval per processor). Different
//   implementations add in different orders and may differ in the last bits.
// - Counting compares with IEEE semantics: a NaN is not equal to anything, itself included.
#include <prism/registry.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prism {

// The element types compiled into the library for reductions.
template <class T>
concept reduce_element =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::uint64_t>;

// The types for arithmetic beyond adding up: product, dot, mean, variance.
template <class T>
concept signed_reduce_element = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

template <class T>
concept floating_element = std::is_same_v<T, float> || std::is_same_v<T, double>;

// What sum, product and dot of T accumulate in and return.
template <class T>
using sum_type = std::conditional_t<std::is_floating_point_v<T>, T,
                                    std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

// What mean, variance and stddev of T accumulate in and return.
template <class T>
using real_type = std::conditional_t<std::is_same_v<T, float>, float, double>;

template <class T>
struct minmax_result {
  T min;
  T max;
};

// What count_if, any and all compare each element with: x < value, say.
enum class comparison { equal, not_equal, less, less_equal, greater, greater_equal };

// ---- returned to the host --------------------------------------------------------------------
template <reduce_element T>
sum_type<T> sum(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <signed_reduce_element T>
sum_type<T> product(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
T min(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
T max(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
minmax_result<T> minmax(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
std::size_t argmin(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
std::size_t argmax(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
// How many elements x[i] satisfy `x[i] compare value`.
template <reduce_element T>
std::uint64_t count_if(input<T> x, comparison compare, std::type_identity_t<T> value,
                       cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
std::uint64_t count(input<T> x, std::type_identity_t<T> value, cudaStream_t stream = nullptr,
                    impl which = impl::automatic) {
  return count_if<T>(x, comparison::equal, value, stream, which);
}
// Whether some (every) element satisfies `x[i] compare value`: a count, without an early exit
// (a reduction reads everything anyway at the same speed).
template <reduce_element T>
bool any(input<T> x, comparison compare, std::type_identity_t<T> value,
         cudaStream_t stream = nullptr, impl which = impl::automatic) {
  return count_if<T>(x, compare, value, stream, which) > 0;
}
template <reduce_element T>
bool all(input<T> x, comparison compare, std::type_identity_t<T> value,
         cudaStream_t stream = nullptr, impl which = impl::automatic) {
  return count_if<T>(x, compare, value, stream, which) == x.size();
}
// sum of a[i] * b[i]; a and b have the same size.
template <signed_reduce_element T>
sum_type<T> dot(input<T> a, input<T> b, cudaStream_t stream = nullptr, impl which = impl::automatic);
// sum |x[i]|, sqrt(sum x[i]^2), max |x[i]| (NaN if any element is NaN).
template <floating_element T>
T norm1(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <floating_element T>
T norm2(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <floating_element T>
T norm_inf(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <signed_reduce_element T>
real_type<T> mean(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <signed_reduce_element T>
real_type<T> variance(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <signed_reduce_element T>
real_type<T> stddev(input<T> x, cudaStream_t stream = nullptr, impl which = impl::automatic);

// ---- into result[0], asynchronously ----------------------------------------------------------
template <reduce_element T>
void sum(input<T> x, span<sum_type<T>> result, cudaStream_t stream = nullptr,
         impl which = impl::automatic);
template <signed_reduce_element T>
void product(input<T> x, span<sum_type<T>> result, cudaStream_t stream = nullptr,
             impl which = impl::automatic);
template <reduce_element T>
void min(input<T> x, span<T> result, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
void max(input<T> x, span<T> result, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <reduce_element T>
void minmax(input<T> x, span<minmax_result<T>> result, cudaStream_t stream = nullptr,
            impl which = impl::automatic);
template <reduce_element T>
void argmin(input<T> x, span<std::size_t> result, cudaStream_t stream = nullptr,
            impl which = impl::automatic);
template <reduce_element T>
void argmax(input<T> x, span<std::size_t> result, cudaStream_t stream = nullptr,
            impl which = impl::automatic);
template <reduce_element T>
void count_if(input<T> x, comparison compare, std::type_identity_t<T> value,
              span<std::uint64_t> result, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <signed_reduce_element T>
void dot(input<T> a, input<T> b, span<sum_type<T>> result, cudaStream_t stream = nullptr,
         impl which = impl::automatic);
template <floating_element T>
void norm1(input<T> x, span<T> result, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <floating_element T>
void norm2(input<T> x, span<T> result, cudaStream_t stream = nullptr, impl which = impl::automatic);
template <floating_element T>
void norm_inf(input<T> x, span<T> result, cudaStream_t stream = nullptr,
              impl which = impl::automatic);
template <signed_reduce_element T>
void mean(input<T> x, span<real_type<T>> result, cudaStream_t stream = nullptr,
          impl which = impl::automatic);
template <signed_reduce_element T>
void variance(input<T> x, span<real_type<T>> result, cudaStream_t stream = nullptr,
              impl which = impl::automatic);
template <signed_reduce_element T>
void stddev(input<T> x, span<real_type<T>> result, cudaStream_t stream = nullptr,
            impl which = impl::automatic);

}  // namespace prism
