// SPDX-License-Identifier: Apache-2.0
// The radix sort's lesson (lesson.cuh has the kernels, what each removes and what it costs),
// compiled for uint32 keys: prism::sort(sort_stage, policy, keys_in, keys_out). The last stage is
// impl::raw itself, compiled in sort_keys_32.cu: nothing of the family is instantiated again here.
#include "lesson.cuh"

#include <prism/sort.hpp>

#include <stdexcept>
#include <string>

namespace prism::detail {

// The checks of a GPU implementation (the stages run on device memory), then the stage.
void sort_by_stage(sort_stage stage, const execution_policy& policy, span<const std::uint32_t> keys_in,
                   span<std::uint32_t> keys_out) {
  const char* algorithm = "sort";
  const execution_policy gpu = policy.with(impl::raw);
  require_size(keys_in.size(), keys_out.size(), algorithm, "the output");
  prepare(algorithm, sort_family, gpu, {array_ref::input(keys_in, "the keys"), array_ref::output_of(keys_out, "the output")},
          keys_in.size_bytes() + keys_out.size_bytes());
  const std::size_t n = keys_in.size();
  // Every stage, the last one too (impl::raw itself), keeps the lesson's 32-bit counts.
  if (n >= (std::size_t{1} << 32)) {
    throw std::invalid_argument("prism::sort: " + std::to_string(n) + " keys are more than the lesson's stage " +
                                std::string(name(stage)) + " counts (2^32 - 1, in 32 bits); impl::raw has no such limit");
  }
  if (stage == sort_stage::onesweep || n == 0) return sort_keys<std::uint32_t>(gpu, keys_in, keys_out, sort_order::ascending);
  translate_errors(algorithm, [&] {
    switch (stage) {
      case sort_stage::one_bit_split: lesson::counted_radix_sort<1>(algorithm, policy, keys_in.data(), keys_out.data(), n); break;
      case sort_stage::four_bit_counts: lesson::counted_radix_sort<4>(algorithm, policy, keys_in.data(), keys_out.data(), n); break;
      case sort_stage::eight_bit_ranked: lesson::counted_radix_sort<8>(algorithm, policy, keys_in.data(), keys_out.data(), n); break;
      default: break;
    }
  });
}

}  // namespace prism::detail
