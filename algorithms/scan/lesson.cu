// SPDX-License-Identifier: Apache-2.0
// The scan's lesson (lesson.cuh has the kernels, what each removes and what it costs), compiled
// for int32 and float: prism::inclusive_scan(scan_stage, policy, x, out). The last stage is
// impl::raw, compiled in scan_sum.cu: nothing of the family is instantiated again here.
#include "lesson.cuh"

namespace prism::detail {

// A stage is one more raw implementation: the dispatch's checks (the stages run on device
// memory), then the stage's kernels as the raw callable.
template <lesson_element T>
void inclusive_scan_by_stage(scan_stage stage, const execution_policy& policy, span<const T> x, span<T> out) {
  const char* algorithm = "inclusive_scan";
  const execution_policy gpu = policy.with(impl::raw);
  const std::size_t n = x.size();
  dispatch({algorithm, scan_family_of<scan_operation::scan, sizeof(T)>, gpu,
            {array_ref::input(x, "the input"), array_ref::output_of(out, "the output").sized(n)}, n},
           implementations{.raw = [&] {
             // The last stage is impl::raw itself: the compiled single-pass kernel.
             if (stage == scan_stage::decoupled_look_back) return scan<T>(gpu, scan_kind::inclusive, scan_op::sum, x, out);
             lesson::inclusive_scan<T>(stage, policy, x.data(), out.data(), n);
           }});
}

template void inclusive_scan_by_stage<float>(scan_stage, const execution_policy&, span<const float>, span<float>);
template void inclusive_scan_by_stage<std::int32_t>(scan_stage, const execution_policy&, span<const std::int32_t>,
                                                    span<std::int32_t>);

}  // namespace prism::detail
