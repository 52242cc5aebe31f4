// SPDX-License-Identifier: Apache-2.0
// The histogram family: every implementation side by side, the stages of its lesson, and CUB's
// own float rule as a reference point.
//
// Rows (algorithm/type/implementation/n, n = 2^10 ... 2^28 by 4x), 256 equal bins:
//   histogram_uniform/float     samples uniform over the bins [0, 1)
//   histogram_one_bin/float     every sample 0.3 (bin 76): every atomic on one counter
//   histogram_normal/float      mean 0.5, standard deviation 0.1: the middle bins collide
//   histogram_uniform/uint8     bytes over [0, 256), histogram_one_bin/uint8 every byte 77
//   .../lesson_<stage>/n        the lesson's stages (float)
//   .../raw_thread_counts/n     uint8: a counter per thread and bin (byte_counts_kernel in
//                               <prism/histogram_byte_counts.cuh>), opt-in beside raw's
//   .../raw_by_bin/n            uint8: raw's kernel counting each byte into its bin through a
//                               table, as it counts other samples (raw counts the 256 byte values
//                               and adds each value's count to its bin once per block)
//   .../cub_float_rule/n        cub::DeviceHistogram::HistogramEven on the float samples as they
//                               are (CUB's own rule, which prism does not use: see
//                               <prism/histogram.hpp>): what CUB's histogram costs by itself
// Bytes: the samples, read once (the 256 counters written are left out). uint32 counts. Every row
// checks its counts against a host count by the header's rule. cpu rows stop at 2^22 samples;
// `automatic` is not timed (it runs raw or cub by type and size: the tables in
// <prism/histogram.hpp> that these rows set).
#include <prism/buffer.hpp>
#include <prism/histogram.cuh>
#include <prism/histogram_byte_counts.cuh>

#include "harness.hpp"

#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;
constexpr std::size_t bins = 256;

enum class shape { uniform, one_bin, normal };
constexpr const char* name_of(shape s) {
  constexpr const char* names[] = {"histogram_uniform", "histogram_one_bin", "histogram_normal"};
  return names[static_cast<int>(s)];
}

template <class T>
constexpr const char* sample_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return "uint8";
  } else {
    return type_name<T>();
  }
}

template <class T>
histogram_level_t<T> lower() {
  return 0;
}
template <class T>
histogram_level_t<T> upper() {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return 256;
  } else {
    return 1;
  }
}

// Sample i of a shape, from the run's seed.
template <class T>
T sample(shape s, std::uint64_t i) {
  const double u = static_cast<double>(splitmix64(seed() ^ splitmix64(i)) >> 11) * 0x1.0p-53;
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return s == shape::one_bin ? T(77) : static_cast<T>(u * 256);
  } else {
    if (s == shape::one_bin) return T(0.3);
    if (s == shape::uniform) return static_cast<T>(u);
    const double v = static_cast<double>(splitmix64(seed() ^ splitmix64(i) ^ 0x5bd1e995u) >> 11) * 0x1.0p-53;
    return static_cast<T>(0.5 + 0.1 * std::sqrt(-2 * std::log(1 - u)) * std::cos(6.283185307179586 * v));
  }
}

// The host count of the header's rule, for the checks: each bin's edges, a binary search.
template <class T>
std::vector<std::uint32_t> host_count(const std::vector<T>& x) {
  std::vector<double> edges(bins + 1);
  for (std::size_t k = 0; k <= bins; ++k) {
    if constexpr (std::is_floating_point_v<T>) {
      edges[k] = histogram_edge<T>(lower<T>(), upper<T>(), bins, k);
    } else {
      edges[k] = static_cast<double>(k);  // 256 bins over [0, 256): bin k is byte k
    }
  }
  std::vector<std::uint32_t> counts(bins, 0);
#pragma omp parallel
  {
    std::vector<std::uint32_t> mine(bins, 0);
#pragma omp for
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(x.size()); ++i) {
      const double v = static_cast<double>(x[i]);
      if (!(v >= edges.front() && v < edges.back())) continue;
      ++mine[static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1];
    }
#pragma omp critical
    for (std::size_t k = 0; k < bins; ++k) counts[k] += mine[k];
  }
  return counts;
}

// The arrays of one (shape, type, n): samples and counts on the host and, where there is one, on
// the GPU; CUB's temporary storage for the cub_float_rule rows.
template <class T>
struct arrays {
  std::vector<T> host_x;
  std::vector<std::uint32_t> host_counts, want;
  device_buffer<T> x;
  device_buffer<std::uint32_t> counts;
  device_buffer<unsigned char> cub_temp;

  arrays(std::size_t n, shape s, bool gpu) : host_x(n), host_counts(bins) {
#pragma omp parallel for
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) host_x[i] = sample<T>(s, i);
    want = host_count(host_x);
    if (!gpu) return;
    x = device_buffer<T>(host_x);
    counts = device_buffer<std::uint32_t>(bins);
  }

  void call(impl which) {
    if (which == impl::cpu) {
      histogram(par.with(which), host_x, host_counts, lower<T>(), upper<T>());
    } else {
      histogram(par.with(which), x, counts, lower<T>(), upper<T>());
    }
  }
  void call(histogram_stage stage)
    requires std::is_same_v<T, float>
  {
    histogram(stage, par, x, counts, 0.0f, 1.0f);
  }
  void call_thread_counts()
    requires std::is_same_v<T, std::uint8_t>
  {
    detail::raw_byte_histogram(par, x.data(), x.size(), counts.data(), bins,
                               detail::make_even_integer_bins<T>(lower<T>(), upper<T>(), bins));
  }
  void call_by_bin()
    requires std::is_same_v<T, std::uint8_t>
  {
    detail::launch_sub_histograms<false>(par, x.data(), x.size(), counts.data(), bins,
                                         detail::make_even_integer_bins<T>(lower<T>(), upper<T>(), bins));
  }
  // CUB's HistogramEven on the samples as they are, temporary storage allocated once.
  void call_cub_float_rule() {
    std::size_t bytes = 0;
    const auto run = [&](void* temp) {
      check(cub::DeviceHistogram::HistogramEven(temp, bytes, x.data(), counts.data(), static_cast<int>(bins + 1),
                                                T(0), T(1), static_cast<int>(x.size()), cudaStream_t{nullptr}),
            "cub::DeviceHistogram::HistogramEven");
    };
    run(nullptr);
    if (cub_temp.size() < bytes) cub_temp = device_buffer<unsigned char>(bytes);
    run(cub_temp.data());
  }

  // The counts against the host count ("" when right); CUB's own rule may differ near edges by
  // a few samples, so those rows check the total only.
  std::string check_counts(bool on_device, bool total_only) {
    std::vector<std::uint32_t> got = on_device ? counts.to_host() : host_counts;
    if (break_requested()) got[bins / 2] += 1;
    if (total_only) {
      std::uint64_t a = 0, b = 0;
      for (std::size_t k = 0; k < bins; ++k) a += got[k], b += want[k];
      return a == b ? "" : "total " + std::to_string(a) + ", want " + std::to_string(b);
    }
    for (std::size_t k = 0; k < bins; ++k) {
      if (got[k] != want[k]) return "bin " + std::to_string(k) + ": " + std::to_string(got[k]) + ", want " +
                                    std::to_string(want[k]);
    }
    return "";
  }
};

// The arrays of the row being run: made by its first repetition and kept for the rows after it
// with the same (shape, type, n), then freed.
// One row: `what` names the implementation (or stage), call(a) runs it.
template <class T, class Call>
void register_row(shape s, std::int64_t n, const std::string& what, bool on_gpu, bool total_only, Call call) {
  const traffic bytes{static_cast<double>(n) * sizeof(T), 0};
  const std::string key = std::string(name_of(s)) + "/" + sample_name<T>() + "/" + std::to_string(n);
  for (cache c : cache_modes(bytes, on_gpu)) {
    const std::string row = row_name(name_of(s), sample_name<T>(), what, n, c);
    configure(benchmark::RegisterBenchmark(row.c_str(),
                                           [=](benchmark::State& state) {
                                             arrays<T>& a = row_arrays<arrays<T>>(key, static_cast<std::size_t>(n), s, gpu_available());
                                             if (on_gpu) {
                                               time_on_gpu(state, bytes, c, [&] { call(a); });
                                             } else {
                                               time_on_host(state, bytes, [&] { call(a); });
                                             }
                                             verify(state, row, [&] { return a.check_counts(on_gpu, total_only); });
                                           }),
              bytes, on_gpu);
  }
}

template <class T>
void register_shape(shape s, bool gpu) {
  for (std::int64_t n : sizes()) {
    for (impl which : histogram_implementations) {
      const bool on_gpu = which != impl::cpu;
      if ((on_gpu && !gpu) || (!on_gpu && n > cpu_largest)) continue;
      register_row<T>(s, n, std::string(name(which)), on_gpu, false, [which](arrays<T>& a) { a.call(which); });
    }
    if (!gpu) continue;
    if constexpr (std::is_same_v<T, float>) {
      for (histogram_stage stage : histogram_lesson) {
        register_row<T>(s, n, "lesson_" + std::string(name(stage)), true, false,
                        [stage](arrays<T>& a) { a.call(stage); });
      }
      register_row<T>(s, n, "cub_float_rule", true, true, [](arrays<T>& a) { a.call_cub_float_rule(); });
    } else {
      register_row<T>(s, n, "raw_thread_counts", true, false, [](arrays<T>& a) { a.call_thread_counts(); });
      register_row<T>(s, n, "raw_by_bin", true, false, [](arrays<T>& a) { a.call_by_bin(); });
    }
  }
}

void register_rows(bool gpu) {
  for (shape s : {shape::uniform, shape::one_bin, shape::normal}) register_shape<float>(s, gpu);
  for (shape s : {shape::uniform, shape::one_bin}) register_shape<std::uint8_t>(s, gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
