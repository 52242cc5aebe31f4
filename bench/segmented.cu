// SPDX-License-Identifier: Apache-2.0
// The segmented family: every implementation side by side, on three shapes of segments.
//
// Rows (algorithm/type/implementation/n; n = 2^10 and 2^28 elements):
//   segmented_sum_<layout>/<type>             out[s] = the sum of segment s
//   segmented_argmax_<layout>/<type>          the position of each segment's largest element
//   segmented_inclusive_scan_<layout>/<type>  the prefix sum restarting at every segment
// Layouts: uniform (offsets; lengths uniform in [0, 128], 64 on average, some empty), rows32
// (fixed_segments{32}: the rows of an n/32 x 32 matrix), one (offsets {0, n}: a single segment,
// which cub gives one block and raw's tiles the whole GPU: its row shows what that costs;
// raw_naive gives it one thread and is left out at 2^28).
// Types: float and int64 by default (PRISM_BENCH_TYPES=all: the six). cpu rows at 2^10 only.
//
// Bytes: the fewest that must move: the values and the offsets read once, one result per segment
// (the reductions) or per element (the scan) written once; held against the ceiling of that mix
// (nearly read-only for the reductions). Each row checks its output once, at sampled segments,
// against a float64 (exact for integers) sum of the segment's elements read back.
#include <prism/segmented.hpp>

#include "harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

constexpr std::int64_t cpu_largest = std::int64_t{1} << 10;

benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 1e-5 + bytes / 5e11 : 1e-4 + bytes / 1e8;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(2e-3 / expected, 1.0, 16.0));
  return configure(b)->Repetitions(5)->Iterations(calls);
}

enum class layout { uniform, rows32, one };
constexpr const char* layout_names[] = {"uniform", "rows32", "one"};
enum class operation { sum, argmax, inclusive_scan };
constexpr const char* operation_names[] = {"segmented_sum", "segmented_argmax", "segmented_inclusive_scan"};

template <class T>
distribution values(std::uint64_t stream) {
  if constexpr (std::is_floating_point_v<T>) return {stream, -1, 1};
  return {stream, std::is_signed_v<T> ? -0x1p20 : 0, 0x1p20};
}

// The arrays of one (type, n, layout): values, offsets (none for rows32), and the three outputs.
template <class T>
struct arrays {
  using S = sum_type<T>;
  std::size_t n, count;
  layout shape;
  bool on_device;
  std::vector<std::int64_t> host_offsets;
  std::vector<T> host_values, host_scan;
  std::vector<S> host_sums;
  std::vector<std::int64_t> host_positions;
  device_buffer<T> d_values, d_scan;
  device_buffer<std::int64_t> d_offsets, d_positions;
  device_buffer<S> d_sums;

  arrays(std::size_t n_, layout l, bool gpu) : n(n_), shape(l), on_device(gpu) {
    if (l == layout::rows32) {
      count = n / 32;
      for (std::size_t s = 0; s <= count; ++s) host_offsets.push_back(static_cast<std::int64_t>(s * 32));
    } else if (l == layout::one) {
      count = 1;
      host_offsets = {0, static_cast<std::int64_t>(n)};
    } else {
      // Each segment's length from its number: a length drawn from its position would repeat at
      // the same position after an empty segment, for ever.
      for (std::size_t at = 0, s = 0; at < n; ++s) {
        host_offsets.push_back(static_cast<std::int64_t>(at));
        at = std::min(n, at + static_cast<std::size_t>(splitmix64(seed() ^ s) % 129));
      }
      host_offsets.push_back(static_cast<std::int64_t>(n));
      count = host_offsets.size() - 1;
    }
    if (gpu) {
      d_values = device_buffer<T>(n);
      generate(d_values.view(), values<T>(21));
      d_scan = device_buffer<T>(n);
      d_offsets = device_buffer<std::int64_t>(std::span<const std::int64_t>(host_offsets));
      d_positions = device_buffer<std::int64_t>(count);
      d_sums = device_buffer<S>(count);
    } else {
      host_values.resize(n);
      generate(span<T>(host_values), values<T>(21), false);
      host_scan.resize(n);
      host_positions.resize(count);
      host_sums.resize(count);
    }
  }

  span<const T> x() const { return on_device ? span<const T>(d_values.view()) : span<const T>(host_values); }
  span<const std::int64_t> offsets() const {
    return on_device ? span<const std::int64_t>(d_offsets.view()) : span<const std::int64_t>(host_offsets);
  }
  span<S> sums() { return on_device ? d_sums.view() : span<S>(host_sums); }
  span<std::int64_t> positions() { return on_device ? d_positions.view() : span<std::int64_t>(host_positions); }
  span<T> scanned() { return on_device ? d_scan.view() : span<T>(host_scan); }

  void call(operation op, impl which) {
    const auto p = par.with(which);
    const auto run = [&](auto&& segments) {
      switch (op) {
        case operation::sum: prism::segmented_sum(p, x(), segments, sums()); break;
        case operation::argmax: prism::segmented_argmax(p, x(), segments, positions()); break;
        case operation::inclusive_scan: prism::segmented_inclusive_scan(p, x(), segments, scanned()); break;
      }
    };
    if (shape == layout::rows32) {
      run(fixed_segments{32});
    } else {
      run(offsets());
    }
  }

  void poison_outputs() {
    poison(sums(), on_device);
    poison(positions(), on_device);
    poison(scanned(), on_device);
  }

  // The elements of segment s, read back.
  std::vector<T> segment_values(std::size_t s) const {
    const std::size_t b = static_cast<std::size_t>(host_offsets[s]), e = static_cast<std::size_t>(host_offsets[s + 1]);
    std::vector<T> v(e - b);
    if (on_device && !v.empty()) {
      check(cudaMemcpy(v.data(), d_values.data() + b, v.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    } else if (!on_device) {
      std::copy(host_values.begin() + b, host_values.begin() + e, v.begin());
    }
    return v;
  }

  // Empty when every sampled segment's result is right.
  std::string verify_output(operation op) {
    const auto at = sample_positions(count);
    const std::vector<S> sum_got = op == operation::sum ? gather(sums().data(), at, on_device) : std::vector<S>{};
    std::vector<std::int64_t> arg_got =
        op == operation::argmax ? gather(positions().data(), at, on_device) : std::vector<std::int64_t>{};
    if (break_requested()) for (auto& v : arg_got) v += 1;
    for (std::size_t k = 0; k < at.size(); ++k) {
      const std::size_t s = at[k];
      const std::vector<T> v = segment_values(s);
      const std::int64_t b = host_offsets[s];
      if (op == operation::sum) {
        double want = 0, magnitude = 0;
        for (T e : v) {
          want += to_double(e);
          magnitude += std::abs(to_double(e));
        }
        const double got = to_double(sum_got[k]) + (break_requested() ? 1.0 : 0.0);
        if (std::abs(got - want) > 2 * epsilon<T>() * magnitude * static_cast<double>(v.size() + 1)) {
          return "segment " + std::to_string(s) + ": sum " + describe(got) + ", want " + describe(want);
        }
      } else if (op == operation::argmax) {
        std::int64_t want = -1;
        for (std::size_t i = 0; i < v.size(); ++i)
          if (want < 0 || v[i] > v[static_cast<std::size_t>(want - b)]) want = b + static_cast<std::int64_t>(i);
        if (arg_got[k] != want) {
          return "segment " + std::to_string(s) + ": argmax " + std::to_string(arg_got[k]) + ", want " +
                 std::to_string(want);
        }
      } else if (!v.empty()) {  // the scan's last element of the segment: its sum
        const std::vector<std::size_t> last = {static_cast<std::size_t>(host_offsets[s + 1]) - 1};
        const double got = to_double(gather(scanned().data(), last, on_device)[0]) + (break_requested() ? 1.0 : 0.0);
        double want = 0, magnitude = 0;
        for (T e : v) {
          want += to_double(e);
          magnitude += std::abs(to_double(e));
        }
        if constexpr (std::is_integral_v<T>) {  // the scan wraps in T
          using U = std::make_unsigned_t<T>;
          U wrapped = 0;
          for (T e : v) wrapped = static_cast<U>(wrapped + static_cast<U>(e));
          want = to_double(static_cast<T>(wrapped));
        }
        if (std::abs(got - want) > 2 * epsilon<T>() * magnitude * static_cast<double>(v.size() + 1)) {
          return "segment " + std::to_string(s) + ": scan's last " + describe(got) + ", want " + describe(want);
        }
      }
    }
    return "";
  }
};

// Segments: 1 per 64 elements (uniform), per 32 (rows32, no offsets read), or one.
template <class T>
traffic traffic_of(operation op, layout l, std::int64_t n) {
  const double m = static_cast<double>(n);
  const double segments = l == layout::uniform ? m / 64 : l == layout::rows32 ? m / 32 : 1;
  const double offsets = l == layout::rows32 ? 0 : (segments + 1) * sizeof(std::int64_t);
  const double result = op == operation::sum ? sizeof(sum_type<T>) : sizeof(std::int64_t);
  if (op == operation::inclusive_scan) return {m * sizeof(T) + offsets, m * sizeof(T)};
  return {m * sizeof(T) + offsets, segments * result};
}

template <class T>
void register_row(const std::string& row, operation op, layout l, std::int64_t n, bool on_gpu, cache c, impl which) {
  const traffic bytes = traffic_of<T>(op, l, n);
  short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                          [=](benchmark::State& state) {
                                            arrays<T>& a = row_arrays<arrays<T>>(std::to_string(n) + "/" + std::to_string(static_cast<int>(l)) + (on_gpu ? "/gpu" : "/cpu"),
                                                                   static_cast<std::size_t>(n), l, on_gpu);
                                            if (on_gpu) {
                                              time_on_gpu(state, bytes, c, [&] { a.call(op, which); });
                                            } else {
                                              time_on_host(state, bytes, [&] { a.call(op, which); });
                                            }
                                            verify(state, row, [&] {
                                              a.poison_outputs();
                                              a.call(op, which);
                                              if (on_gpu) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                                              return a.verify_output(op);
                                            });
                                          }),
             bytes.total(), on_gpu);
}

const std::int64_t row_sizes[] = {std::int64_t{1} << 10, std::int64_t{1} << 28};

template <class T>
void register_type(bool gpu) {
  const std::string type = type_name<T>();
  if (!type_selected(type, {"float", "int64"})) return;
  for (operation op : {operation::sum, operation::argmax, operation::inclusive_scan}) {
    for (layout l : {layout::uniform, layout::rows32, layout::one}) {
      const std::string algorithm = std::string(operation_names[static_cast<int>(op)]) + "_" +
                                    layout_names[static_cast<int>(l)];
      for (std::int64_t n : row_sizes) {
        for (impl which : segmented_implementations) {
          const bool on_gpu = which != impl::cpu;
          if (on_gpu && !gpu) continue;
          if (!on_gpu && n > cpu_largest) continue;
          if (which == impl::raw_naive && l == layout::one && n > cpu_largest) continue;  // one thread: minutes
          for (cache c : cache_modes(traffic_of<T>(op, l, n), on_gpu)) {
            register_row<T>(row_name(algorithm, type, std::string(name(which)), n, c), op, l, n, on_gpu, c, which);
          }
        }
      }
    }
  }
}

void register_rows(bool gpu) {
  register_type<float>(gpu);
  register_type<double>(gpu);
  register_type<std::int32_t>(gpu);
  register_type<std::int64_t>(gpu);
  register_type<std::uint32_t>(gpu);
  register_type<std::uint64_t>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
