// SPDX-License-Identifier: Apache-2.0
// The searching, merging, top-k and segmented algorithms on std::vector, compiled by the host C++
// compiler alone (no GPU needed: host memory runs the cpu implementation). Each result is checked
// against the values worked out by hand; the program says what it computed.
#include <prism/merge.hpp>
#include <prism/search.hpp>
#include <prism/segmented.hpp>
#include <prism/top_k.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  // lower_bound of several queries: where each would go in the sorted array.
  const std::vector<float> sorted{1.0f, 2.0f, 2.0f, 4.0f, 8.0f};
  const std::vector<float> queries{2.0f, 0.5f, 9.0f, 3.0f};
  std::vector<std::int64_t> where(queries.size());
  prism::lower_bound(sorted, queries, where);
  expect(where == std::vector<std::int64_t>{1, 0, 5, 3}, "lower_bound");

  // merge of two sorted arrays, and their intersection (multiset: as many as both hold).
  const std::vector<int> a{1, 3, 3, 5, 7}, b{2, 3, 3, 3, 8};
  std::vector<int> merged(a.size() + b.size());
  prism::merge(a, b, merged);
  expect(merged == std::vector<int>{1, 2, 3, 3, 3, 3, 3, 5, 7, 8}, "merge");
  std::vector<int> both(a.size());  // the worst case: min(a, b) elements
  const std::size_t common = prism::set_intersection(a, b, both);
  expect(common == 2 && both[0] == 3 && both[1] == 3, "set_intersection");

  // top_k with a tie: of the two 5s, the one at the lower index comes first.
  const std::vector<float> x{4.0f, 5.0f, 1.0f, 5.0f, 2.0f};
  std::vector<float> best(2);
  std::vector<std::int64_t> at(2);
  prism::top_k(x, 2, best, at);
  expect(best == std::vector<float>{5.0f, 5.0f} && at == std::vector<std::int64_t>{1, 3}, "top_k");

  // segmented sums over CSR-style offsets, the middle segment empty.
  const std::vector<double> values{1.0, 2.0, 3.0, 10.0, 20.0};
  const std::vector<std::int64_t> offsets{0, 3, 3, 5};
  std::vector<double> sums(offsets.size() - 1, -1.0);
  prism::segmented_sum(values, offsets, sums);
  expect(sums == std::vector<double>{6.0, 0.0, 30.0}, "segmented_sum with an empty segment");

  // the 2 best of each of those segments: the empty one padded (index -1, value 0).
  std::vector<double> seg_best(6, -5.0);
  std::vector<std::int32_t> seg_at(6, -5);
  prism::top_k_segments(values, offsets, 2, seg_best, seg_at);
  expect(seg_best == std::vector<double>{3.0, 2.0, 0.0, 0.0, 20.0, 10.0} &&
             seg_at == std::vector<std::int32_t>{2, 1, -1, -1, 1, 0},
         "top_k_segments with an empty segment");

  std::printf("algorithms: lower_bound [%lld %lld %lld %lld], merge of %zu, intersection %zu, top_k at [%lld %lld], "
              "segment sums [%g %g %g]\n",
              static_cast<long long>(where[0]), static_cast<long long>(where[1]), static_cast<long long>(where[2]),
              static_cast<long long>(where[3]), merged.size(), common, static_cast<long long>(at[0]),
              static_cast<long long>(at[1]), sums[0], sums[1], sums[2]);
  return failures == 0 ? 0 : 1;
}
