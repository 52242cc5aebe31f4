// SPDX-License-Identifier: Apache-2.0
// count_if (and, in the header, count, any and all): each element becomes 1 or 0 by the
// comparison, and the ones are added up in 64 bits. The comparison is a value carried by the
// functor, not a type, so each element type compiles one set of kernels for all six.
#include "operations.cuh"

namespace prism::detail {

template <reduce_element T>
std::uint64_t count_if(const execution_policy& policy, span<const T> x, comparison compare, T value,
                       span<std::uint64_t>* into) {
  return run("count_if", policy, with_index(functors::satisfies<T>{compare, value}),
             functors::plus<std::uint64_t>{}, std::uint64_t{0}, functors::no_finalize{}, into, x);
}

template std::uint64_t count_if<float>(const execution_policy&, span<const float>, comparison, float, span<std::uint64_t>*);
template std::uint64_t count_if<double>(const execution_policy&, span<const double>, comparison, double, span<std::uint64_t>*);
template std::uint64_t count_if<std::int32_t>(const execution_policy&, span<const std::int32_t>, comparison, std::int32_t, span<std::uint64_t>*);
template std::uint64_t count_if<std::int64_t>(const execution_policy&, span<const std::int64_t>, comparison, std::int64_t, span<std::uint64_t>*);
template std::uint64_t count_if<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, comparison, std::uint32_t, span<std::uint64_t>*);
template std::uint64_t count_if<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, comparison, std::uint64_t, span<std::uint64_t>*);

}  // namespace prism::detail
