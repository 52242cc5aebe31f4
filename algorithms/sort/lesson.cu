// SPDX-License-Identifier: Apache-2.0
// The radix sort's lesson (lesson.cuh has the kernels, what each removes and what it costs),
// compiled for uint32 keys: prism::sort(sort_stage, policy, keys_in, keys_out). Stage 5 is
// impl::raw itself, compiled in sort_keys_32.cu: nothing of the family is instantiated again here.
#include "lesson.cuh"

#include <prism/sort.hpp>

#include <stdexcept>
#include <string>

namespace prism::detail {

// A stage is one more raw implementation: the dispatch's checks (the stages run on device
// memory), then the stage's passes as the raw callable.
void sort_by_stage(sort_stage stage, const execution_policy& policy, span<const std::uint32_t> keys_in,
                   span<std::uint32_t> keys_out) {
  const char* algorithm = "sort";
  const execution_policy gpu = policy.with(impl::raw);
  const std::size_t n = keys_in.size();
  dispatch({algorithm, sort_family, gpu,
            {array_ref::input(keys_in, "the keys"), array_ref::output_of(keys_out, "the output").sized(n)}, n},
           implementations{.raw = [&] {
             // Every stage, the last one too (impl::raw itself), keeps the lesson's 32-bit counts.
             if (n >= (std::size_t{1} << 32)) {
               throw std::invalid_argument("prism::sort: " + std::to_string(n) +
                                           " keys are more than the lesson's stage " + std::string(name(stage)) +
                                           " counts (2^32 - 1, in 32 bits); impl::raw has no such limit");
             }
             const std::uint32_t* in = keys_in.data();
             std::uint32_t* out = keys_out.data();
             switch (stage) {
               case sort_stage::one_bit_split: return lesson::counted_radix_sort<1>(algorithm, policy, in, out, n);
               case sort_stage::four_bit_counts: return lesson::counted_radix_sort<4>(algorithm, policy, in, out, n);
               case sort_stage::eight_bit_ranked: return lesson::counted_radix_sort<8>(algorithm, policy, in, out, n);
               case sort_stage::onesweep: return lesson::ranked_onesweep_sort(algorithm, policy, in, out, n);
               case sort_stage::early_counts: return sort_keys<std::uint32_t>(gpu, keys_in, keys_out, sort_order::ascending);
             }
           }});
}

}  // namespace prism::detail
