// SPDX-License-Identifier: Apache-2.0
// The histogram lesson (lesson.cuh has the kernels and what each one changes), for float samples
// and uint32 counts: prism::histogram(histogram_stage, policy, samples, counts, lo, hi). The last
// stage is impl::raw, compiled in float.cu: nothing of the family is instantiated again here.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE  // as float.cu, which compiles the last stage
#endif
#include "lesson.cuh"

namespace prism::detail {

void histogram_by_stage(histogram_stage stage, const execution_policy& policy, span<const float> samples,
                        span<std::uint32_t> counts, float lo, float hi) {
  const execution_policy gpu = policy.with(impl::raw);
  if (stage == histogram_stage::sub_histograms) return histogram_even<float, std::uint32_t>(gpu, samples, counts, lo, hi);
  check_bins(counts.size());
  check_levels<float>(lo, hi);
  // A stage is one more raw implementation: the same checks, then its kernels.
  dispatch({"histogram", histogram_family, gpu,
            {array_ref::input(samples, "the samples"), array_ref::output_apart(counts, "the counts")}, counts.size(),
            samples.size_bytes()},
           implementations{.raw = [&] {
             lesson::histogram(stage, policy, samples.data(), samples.size(), counts.data(), counts.size(), lo, hi);
           }});
}

}  // namespace prism::detail
