// SPDX-License-Identifier: Apache-2.0
// The search family: every implementation side by side, and the stages of its lesson.
//
// Rows (algorithm/type/implementation/n; n = 2^10 and 2^28 queries into a sorted array of n):
//   lower_bound/<type>          queries at random, uniform over the array's range
//   lower_bound_sorted/<type>   the same queries sorted, passed as query_order::sorted
//   lower_bound/uint32/lesson_<stage>/n   the lesson's stages (merge_path with the sorted queries);
//                               staged_top and sort_first also at 2^22, 2^24 and 2^26, where raw
//                               turns from one to the other
// Types: float and int64 by default (PRISM_BENCH_TYPES=all: the six). cpu rows at 2^10 only.
//
// Bytes: the fewest a search must move: the sorted array and the queries read once, the int64
// positions written once, (2 sizeof(T) + 8) n; held against the read+write ceiling of that mix. A
// sorted search by merge path moves about that; one binary search per query reads far more (a
// 32-byte sector per level, most of them from L2), and its row's % of the ceiling says how far it is
// from streaming. Each row checks its output once, at sampled positions: sorted[p - 1] < q <= sorted[p].
#include <prism/search.hpp>
#include <prism/sort.hpp>

#include "harness.hpp"

#include <algorithm>
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

// The range of the values: floats in [-1, 1), integers over 2^40 (int64) or 2^31 (4 bytes).
template <class T>
distribution values(std::uint64_t stream) {
  if constexpr (std::is_floating_point_v<T>) return {stream, -1, 1};
  if constexpr (sizeof(T) == 8) return {stream, std::is_signed_v<T> ? -0x1p40 : 0, 0x1p40};
  return {stream, std::is_signed_v<T> ? -0x1p30 : 0, 0x1p31};
}

// The arrays of one (type, n): the sorted array, the queries at random and sorted, the positions;
// on the GPU, and on the host for the cpu rows.
template <class T>
struct arrays {
  std::size_t n;
  bool on_device;
  device_buffer<T> sorted, queries, sorted_queries;
  device_buffer<std::int64_t> out;
  std::vector<T> host_sorted, host_queries, host_sorted_queries;
  std::vector<std::int64_t> host_out;

  arrays(std::size_t n_, bool gpu) : n(n_), on_device(gpu) {
    if (gpu) {
      device_buffer<T> raw(n);
      sorted = device_buffer<T>(n);
      queries = device_buffer<T>(n);
      sorted_queries = device_buffer<T>(n);
      out = device_buffer<std::int64_t>(n);
      generate(raw.view(), values<T>(11));
      prism::sort(par.with(impl::cub), raw, sorted);
      generate(queries.view(), values<T>(12));
      prism::sort(par.with(impl::cub), queries, sorted_queries);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } else {
      host_sorted.resize(n);
      host_queries.resize(n);
      generate(span<T>(host_sorted), values<T>(11), false);
      generate(span<T>(host_queries), values<T>(12), false);
      std::sort(host_sorted.begin(), host_sorted.end());
      host_sorted_queries = host_queries;
      std::sort(host_sorted_queries.begin(), host_sorted_queries.end());
      host_out.assign(n, 0);
    }
  }

  span<const T> the_sorted() const { return on_device ? span<const T>(sorted.view()) : span<const T>(host_sorted); }
  span<const T> the_queries(bool in_order) const {
    if (on_device) return in_order ? span<const T>(sorted_queries.view()) : span<const T>(queries.view());
    return in_order ? span<const T>(host_sorted_queries) : span<const T>(host_queries);
  }
  span<std::int64_t> the_out() { return on_device ? out.view() : span<std::int64_t>(host_out); }

  void call(impl which, bool in_order) {
    prism::lower_bound(par.with(which), the_sorted(), the_queries(in_order), the_out(),
                       in_order ? query_order::sorted : query_order::any);
  }
  void call(search_stage stage, bool in_order) {
    if constexpr (std::is_same_v<T, std::uint32_t>) {
      prism::lower_bound(stage, par, the_sorted(), the_queries(in_order), the_out());
    }
  }

  // Empty when every sampled position p of query q has sorted[p - 1] < q <= sorted[p].
  std::string verify_output(bool in_order) {
    const auto at = sample_positions(n);
    std::vector<std::int64_t> p = gather(the_out().data(), at, on_device);
    if (break_requested()) for (auto& v : p) v = v == 0 ? 1 : v - 1;
    const std::vector<T> q = gather(the_queries(in_order).data(), at, on_device);
    std::vector<std::size_t> below, above;
    for (std::size_t k = 0; k < at.size(); ++k) {
      if (p[k] < 0 || static_cast<std::size_t>(p[k]) > n) return "position " + std::to_string(at[k]) + " out of range";
      below.push_back(p[k] == 0 ? 0 : static_cast<std::size_t>(p[k]) - 1);
      above.push_back(static_cast<std::size_t>(p[k]) == n ? n - 1 : static_cast<std::size_t>(p[k]));
    }
    const std::vector<T> b = gather(the_sorted().data(), below, on_device), a = gather(the_sorted().data(), above, on_device);
    for (std::size_t k = 0; k < at.size(); ++k) {
      const bool low_ok = p[k] == 0 || b[k] < q[k];
      const bool high_ok = static_cast<std::size_t>(p[k]) == n || !(a[k] < q[k]);
      if (!low_ok || !high_ok) {
        return "query " + std::to_string(at[k]) + " (" + describe(to_double(q[k])) + "): position " +
               std::to_string(p[k]);
      }
    }
    return "";
  }
};

template <class T>
traffic traffic_of(std::int64_t n) {
  const double m = static_cast<double>(n);
  return {m * 2 * sizeof(T), m * sizeof(std::int64_t)};
}

template <class T, class Call>
void register_row(const std::string& row, std::int64_t n, bool on_gpu, bool in_order, cache c, Call call) {
  const traffic bytes = traffic_of<T>(n);
  short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                          [=](benchmark::State& state) {
                                            arrays<T>& a = row_arrays<arrays<T>>(std::to_string(n) + (on_gpu ? "/gpu" : "/cpu"), static_cast<std::size_t>(n), on_gpu);
                                            if (on_gpu) {
                                              time_on_gpu(state, bytes, c, [&] { call(a); });
                                            } else {
                                              time_on_host(state, bytes, [&] { call(a); });
                                            }
                                            verify(state, row, [&] {
                                              if (on_gpu) {
                                                poison(a.out.view(), true);
                                                call(a);
                                                check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                                              } else {
                                                poison(span<std::int64_t>(a.host_out), false);
                                                call(a);
                                              }
                                              return a.verify_output(in_order);
                                            });
                                          }),
             bytes.total(), on_gpu);
}

const std::int64_t row_sizes[] = {std::int64_t{1} << 10, std::int64_t{1} << 28};

template <class T>
void register_type(bool gpu) {
  const std::string type = type_name<T>();
  if (!type_selected(type, {"float", "int64"})) return;
  for (bool in_order : {false, true}) {
    const std::string algorithm = in_order ? "lower_bound_sorted" : "lower_bound";
    for (std::int64_t n : row_sizes) {
      for (impl which : search_implementations) {
        const bool on_gpu = which != impl::cpu;
        if (on_gpu && !gpu) continue;
        if (!on_gpu && n > cpu_largest) continue;
        for (cache c : cache_modes(traffic_of<T>(n), on_gpu)) {
          register_row<T>(row_name(algorithm, type, std::string(name(which)), n, c), n, on_gpu, in_order, c,
                          [=](arrays<T>& a) { a.call(which, in_order); });
        }
      }
    }
  }
}

void register_lesson() {
  using T = std::uint32_t;
  const auto stage_row = [](search_stage stage, std::int64_t n) {
    const bool in_order = stage == search_stage::merge_path;
    for (cache c : cache_modes(traffic_of<T>(n))) {
      register_row<T>(row_name(in_order ? "lower_bound_sorted" : "lower_bound", "uint32",
                               "lesson_" + std::string(name(stage)), n, c),
                      n, true, in_order, c, [=](arrays<T>& a) { a.call(stage, in_order); });
    }
  };
  for (std::int64_t n : row_sizes) {
    for (search_stage stage : search_lesson) stage_row(stage, n);
  }
  // Between them, where raw's random search turns to sorting the queries first (sort_first_pays).
  for (std::int64_t n : {std::int64_t{1} << 22, std::int64_t{1} << 24, std::int64_t{1} << 26}) {
    stage_row(search_stage::staged_top, n);
    stage_row(search_stage::sort_first, n);
  }
}

void register_rows(bool gpu) {
  if (gpu) register_lesson();
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
