// SPDX-License-Identifier: Apache-2.0
// The calls as the standard library's and NumPy's users write them, on std::vector and
// std::string, compiled by the host C++ compiler alone (no GPU needed: host memory runs the cpu
// implementation). Each result is checked; the program says what it computed.
#include <prism/histogram.hpp>
#include <prism/reduce.hpp>
#include <prism/scan.hpp>
#include <prism/sort.hpp>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
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
  // compact into a counted output: as many elements as are flagged (prism counts them first).
  const std::vector<float> values{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f};
  const std::vector<std::uint8_t> flags{1, 0, 0, 1, 0, 0, 1, 0};
  std::vector<float> kept(3);
  const std::size_t k = prism::compact(values, flags, kept);
  expect(k == 3 && kept == std::vector<float>{0.5f, 3.5f, 6.5f}, "compact into a counted output");
  // One element too few: refused, nothing written.
  std::vector<float> small(2, -1.0f);
  bool refused = false;
  try {
    prism::compact(values, flags, small);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  expect(refused && small == std::vector<float>(2, -1.0f), "a counted output too small is refused, unchanged");

  // unique in place, as std::unique: the first `u` elements are the result.
  std::vector<int> runs{1, 1, 2, 2, 2, 3, 1, 1};
  const std::size_t u = prism::unique(runs, runs);
  expect(u == 4 && std::vector<int>(runs.begin(), runs.begin() + 4) == std::vector<int>{1, 2, 3, 1}, "unique in place");

  // std::reduce's form: the sum plus 10, once.
  const std::vector<int> terms{1, 2, 3, 4};
  const int total = prism::reduce(terms, 10);
  expect(total == 20, "reduce(x, 10)");
  // ... and with a fractional init, std::reduce's answer (not the init cut to an integer).
  const double half_more = prism::reduce(terms, 0.5);
  expect(half_more == 10.5, "reduce(x, 0.5)");

  // long long (not std::int64_t's type here, the same bytes): taken as int64, results into it too.
  const std::vector<long long> big{5, 3, 9, 1, 3};
  std::vector<long long> big_sorted(big.size()), big_order(big.size());
  prism::sort(big, big_sorted);
  prism::argsort(big, big_order);
  expect(prism::sum(big) == 21 && big_sorted == std::vector<long long>{1, 3, 3, 5, 9} &&
             big_order == std::vector<long long>{3, 1, 4, 0, 2},
         "long long: sum, sort, argsort");

  // A histogram of uint32 samples: 4 equal bins over [0, 400).
  const std::vector<std::uint32_t> samples{5, 105, 110, 250, 399, 400, 4000000000u};
  std::vector<std::uint32_t> counts(4);
  prism::histogram(samples, counts, 0, 400);
  expect(counts == std::vector<std::uint32_t>{1, 2, 1, 1}, "histogram of uint32 samples");

  // run_length_encode of a char string with int32 counts.
  const std::string text = "aaabccdddde";
  std::string letters(text.size(), '?');
  std::vector<std::int32_t> lengths(text.size());
  const std::size_t r = prism::run_length_encode(text, letters, lengths);
  expect(r == 5 && letters.substr(0, r) == "abcde" &&
             std::vector<std::int32_t>(lengths.begin(), lengths.begin() + 5) == std::vector<std::int32_t>{3, 1, 2, 4, 1},
         "run_length_encode of a string");

  // Each run's maximum (reduce_by_key with scan_op::max), and the running minimum within runs.
  const std::vector<std::int32_t> rows{0, 0, 0, 1, 1, 2};
  const std::vector<double> scores{3.0, -1.0, 7.0, 2.0, 9.0, -4.0};
  std::vector<std::int32_t> row_ids(rows.size());
  std::vector<double> best(rows.size()), lowest(rows.size());
  const std::size_t groups = prism::reduce_by_key(rows, scores, row_ids, best, prism::scan_op::max);
  prism::inclusive_scan_by_key(rows, scores, lowest, prism::scan_op::min);
  expect(groups == 3 && std::vector<double>(best.begin(), best.begin() + 3) == std::vector<double>{7.0, 9.0, -4.0},
         "reduce_by_key with max");
  expect(lowest == std::vector<double>{3.0, -1.0, -1.0, 2.0, 2.0, -4.0}, "inclusive_scan_by_key with min");

  std::printf("standard forms: compact kept %zu, unique %zu, reduce %d, histogram [%u %u %u %u], runs of \"%s\": %zu, "
              "row maxima %g %g %g\n",
              k, u, total, counts[0], counts[1], counts[2], counts[3], text.c_str(), r, best[0], best[1], best[2]);
  return failures == 0 ? 0 : 1;
}
