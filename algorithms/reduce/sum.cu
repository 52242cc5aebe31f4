// SPDX-License-Identifier: Apache-2.0
// sum: the reduction every other one is a variation of, and the lesson's stages beside it
// (lesson.cuh).
#include "operations.cuh"
#include "lesson.cuh"

namespace prism::detail {

// sum_from is reduce(x, init): init added once. sum is the same kernels with init 0.
template <reduce_element T>
sum_type<T> sum_from(const execution_policy& policy, span<const T> x, sum_type<T> init, span<sum_type<T>>* into) {
  using Acc = sum_type<T>;
  return run("sum", policy, with_index(functors::cast_to<Acc>{}), functors::plus<Acc>{}, init,
             functors::no_finalize{}, into, x);
}
template <reduce_element T>
sum_type<T> sum(const execution_policy& policy, span<const T> x, span<sum_type<T>>* into) {
  return sum_from<T>(policy, x, sum_type<T>(0), into);
}

// A stage of the lesson is one more raw implementation: the dispatch's checks (its kernels run on
// device memory) and delivery of the result, then the stage's passes as the raw callable.
template <reduce_element T>
sum_type<T> sum_by_stage(reduce_stage stage, const execution_policy& policy, span<const T> x,
                         span<sum_type<T>>* into) {
  using Acc = sum_type<T>;
  const execution_policy gpu = policy.with(impl::raw);
  return dispatch({"sum", reduce_family, gpu, {array_ref::input(x, "the input")}, x.size()},
                  result_to<Acc>{into, Acc(0)}, implementations{.raw = [&](Acc* at) -> std::optional<Acc> {
                    lesson::sum<Acc>(stage, policy, x.data(), x.size(), at);
                    return std::nullopt;
                  }});
}

template float sum_from<float>(const execution_policy&, span<const float>, float, span<float>*);
template float sum<float>(const execution_policy&, span<const float>, span<float>*);
template double sum_from<double>(const execution_policy&, span<const double>, double, span<double>*);
template double sum<double>(const execution_policy&, span<const double>, span<double>*);
template std::int64_t sum_from<std::int32_t>(const execution_policy&, span<const std::int32_t>, std::int64_t, span<std::int64_t>*);
template std::int64_t sum<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int64_t>*);
template std::int64_t sum_from<std::int64_t>(const execution_policy&, span<const std::int64_t>, std::int64_t, span<std::int64_t>*);
template std::int64_t sum<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>*);
template std::uint64_t sum_from<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, std::uint64_t, span<std::uint64_t>*);
template std::uint64_t sum<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint64_t>*);
template std::uint64_t sum_from<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, std::uint64_t, span<std::uint64_t>*);
template std::uint64_t sum<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>*);
template float sum_by_stage<float>(reduce_stage, const execution_policy&, span<const float>, span<float>*);
template double sum_by_stage<double>(reduce_stage, const execution_policy&, span<const double>, span<double>*);
template std::int64_t sum_by_stage<std::int32_t>(reduce_stage, const execution_policy&, span<const std::int32_t>, span<std::int64_t>*);
template std::int64_t sum_by_stage<std::int64_t>(reduce_stage, const execution_policy&, span<const std::int64_t>, span<std::int64_t>*);
template std::uint64_t sum_by_stage<std::uint32_t>(reduce_stage, const execution_policy&, span<const std::uint32_t>, span<std::uint64_t>*);
template std::uint64_t sum_by_stage<std::uint64_t>(reduce_stage, const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>*);

}  // namespace prism::detail
