// SPDX-License-Identifier: Apache-2.0
// The scan family: every implementation side by side, and the stages of the scan's lesson.
//
// Rows (algorithm/type/implementation/n, n = 2^10 ... 2^28 by 4x, float, int32 and int64):
//   inclusive_scan, exclusive_scan               prefix sums
//   inclusive_scan_by_key                        int32 keys in runs of 4
//   compact, partition                           uint8 flags, half of them set at random
//   unique, run_length_encode                    values in runs of 4
//   unique_by_key, reduce_by_key                 int32 keys in runs of 4
//   inclusive_scan/<type>/lesson_<stage>/n       the lesson's stages (float and int32)
// Bytes are the fewest that must move: a scan reads n and writes n elements; by key it reads the
// keys too; a compaction reads n values and n flags and writes the kept values; a partition
// writes all n; unique and the by-key reductions read their inputs and write one element (or
// key and value, or value and 64-bit count) per run. Selections deliver their count to device
// memory, so that nothing waits (Thrust's selections wait anyway: their algorithms return the
// count to the host). cpu rows stop at 2^22 elements, to keep the suite's run short; `automatic`
// is not timed (it runs raw or cub, by the tables of scan_family_of that these rows set).
#include <prism/scan.hpp>

#include "harness.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

enum class operation {
  inclusive_scan, exclusive_scan, inclusive_scan_by_key, compact, partition, unique,
  run_length_encode, unique_by_key, reduce_by_key
};

constexpr const char* name_of(operation op) {
  constexpr const char* names[] = {"inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "compact",
                                   "partition", "unique", "run_length_encode", "unique_by_key", "reduce_by_key"};
  return names[static_cast<int>(op)];
}

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;
constexpr std::size_t run = 4;  // the length of every run of equal keys or values

// Rows are short, to keep the suite's GPU run to a minute or two: 3 repetitions of a fixed number
// of calls (about a millisecond's worth; a fixed count also spares Google Benchmark's estimation
// runs).
benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 5e-6 + bytes / 2e12 : 2e-5 + bytes / 1e9;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(1e-3 / expected, 1.0, 32.0));
  return configure(b)->Repetitions(3)->Iterations(calls);
}

// The arrays of one (operation, type, n): values (in runs of `run` equal ones where the operation
// needs them), int32 keys in runs, flags with half of them set at random, and the outputs; on the
// host, and on the GPU where there is one.
template <class T>
struct arrays {
  std::vector<T> host_x, host_out;
  std::vector<std::int32_t> host_keys, host_keys_out;
  std::vector<std::uint8_t> host_flags;
  std::vector<std::uint64_t> host_counts;
  device_buffer<T> x, out;
  device_buffer<std::int32_t> keys, keys_out;
  device_buffer<std::uint8_t> flags;
  device_buffer<std::uint64_t> counts;
  device_buffer<std::size_t> count;
  std::size_t host_count = 0;

  arrays(std::size_t n, operation op, bool gpu) {
    const bool runs = op == operation::unique || op == operation::run_length_encode;
    const bool keyed = op == operation::inclusive_scan_by_key || op == operation::unique_by_key ||
                       op == operation::reduce_by_key;
    const bool flagged = op == operation::compact || op == operation::partition;
    host_x.resize(n);
    host_out.assign(n, T{});
    if (keyed) host_keys.resize(n), host_keys_out.assign(n, 0);
    if (flagged) host_flags.resize(n);
    if (op == operation::run_length_encode) host_counts.assign(n, 0);
#pragma omp parallel for
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      host_x[i] = runs ? static_cast<T>(i / run % 1000) : static_cast<T>(i % 17);
      if (keyed) host_keys[i] = static_cast<std::int32_t>(i / run);
      if (flagged) {
        std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
        h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
        host_flags[i] = static_cast<std::uint8_t>((h >> 40) & 1);
      }
    }
    if (!gpu) return;
    count = device_buffer<std::size_t>(1);
    x = device_buffer<T>(host_x);
    out = device_buffer<T>(n);
    if (keyed) keys = device_buffer<std::int32_t>(host_keys), keys_out = device_buffer<std::int32_t>(n);
    if (flagged) flags = device_buffer<std::uint8_t>(host_flags);
    if (op == operation::run_length_encode) counts = device_buffer<std::uint64_t>(n);
  }

  // One call of `op`, its count (if any) into device memory, or host memory for cpu.
  void call(operation op, impl which) {
    const execution_policy policy = par.with(which);
    if (which != impl::cpu) {
      call_on(op, policy, x.view(), out.view(), keys.view(), keys_out.view(), flags.view(), counts.view(), count.view());
    } else {
      call_on(op, policy, span<T>(host_x), span<T>(host_out), span<std::int32_t>(host_keys),
              span<std::int32_t>(host_keys_out), span<std::uint8_t>(host_flags), span<std::uint64_t>(host_counts),
              span<std::size_t>(&host_count, 1));
    }
  }

  static void call_on(operation op, const execution_policy& policy, span<T> x, span<T> out, span<std::int32_t> keys,
                      span<std::int32_t> keys_out, span<std::uint8_t> flags, span<std::uint64_t> counts,
                      span<std::size_t> count) {
    const span<const T> in = x;
    switch (op) {
      case operation::inclusive_scan: inclusive_scan(policy, in, out); break;
      case operation::exclusive_scan: exclusive_scan(policy, in, out); break;
      case operation::inclusive_scan_by_key: inclusive_scan_by_key(policy, keys, in, out); break;
      case operation::compact: compact(policy, in, flags, out, count); break;
      case operation::partition: partition(policy, in, flags, out, count); break;
      case operation::unique: unique(policy, in, out, count); break;
      case operation::run_length_encode: run_length_encode(policy, in, out, counts, count); break;
      case operation::unique_by_key: unique_by_key(policy, keys, in, keys_out, out, count); break;
      case operation::reduce_by_key: reduce_by_key(policy, keys, in, keys_out, out, count); break;
    }
  }
};

// The arrays of the row being run: made by its first repetition and kept for the rows after it
// with the same (operation, type, n) -- every implementation of one size -- then freed.
template <class T>
arrays<T>& arrays_for(const std::string& key, std::size_t n, operation op) {
  static std::string current;
  static std::shared_ptr<void> held;
  if (current != key || !held) {
    held.reset();  // the previous row's memory first
    held = std::make_shared<arrays<T>>(n, op, gpu_available());
    current = key;
  }
  return *static_cast<arrays<T>*>(held.get());
}

// The fewest bytes a call must move (flags half set, runs of `run`).
template <class T>
double bytes_of(operation op, std::int64_t n) {
  const double v = sizeof(T), k = sizeof(std::int32_t), e = static_cast<double>(n), runs = e / run;
  switch (op) {
    case operation::inclusive_scan:
    case operation::exclusive_scan: return 2 * e * v;
    case operation::inclusive_scan_by_key: return e * (k + 2 * v);
    case operation::compact: return e * (v + 1) + e / 2 * v;
    case operation::partition: return e * (2 * v + 1);
    case operation::unique: return e * v + runs * v;
    case operation::run_length_encode: return e * v + runs * (v + 8);
    case operation::unique_by_key:
    case operation::reduce_by_key: return e * (k + v) + runs * (k + v);
  }
  return 0;
}

template <class T>
void register_operation(operation op, bool gpu) {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = bytes_of<T>(op, n);
    const std::string key = std::string(name_of(op)) + "/" + type + "/" + std::to_string(n);
    for (impl which : scan_implementations) {
      const bool on_gpu = which != impl::cpu;
      if (on_gpu && !gpu) continue;
      if (!on_gpu && n > cpu_largest) continue;
      short_rows(benchmark::RegisterBenchmark(
                     row_name(name_of(op), type, std::string(name(which)), n).c_str(),
                     [=](benchmark::State& state) {
                       arrays<T>& a = arrays_for<T>(key, static_cast<std::size_t>(n), op);
                       if (on_gpu) {
                         time_on_gpu(state, nullptr, bytes, [&] { a.call(op, which); });
                         relate_to_ceiling(state);
                       } else {
                         time_on_host(state, bytes, [&] { a.call(op, which); });
                       }
                     }),
                 bytes, on_gpu);
    }
  }
}

// The stages of the scan's lesson, timed like the implementations.
template <class T>
void register_lesson() {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = 2.0 * n * sizeof(T);
    const std::string key = "lesson/" + type + "/" + std::to_string(n);
    for (scan_stage stage : scan_lesson) {
      short_rows(benchmark::RegisterBenchmark(
                     row_name("inclusive_scan", type, "lesson_" + std::string(name(stage)), n).c_str(),
                     [=](benchmark::State& state) {
                       arrays<T>& a = arrays_for<T>(key, static_cast<std::size_t>(n), operation::inclusive_scan);
                       time_on_gpu(state, nullptr, bytes, [&] { inclusive_scan(stage, par, a.x, a.out); });
                       relate_to_ceiling(state);
                     }),
                 bytes, true);
    }
  }
}

template <class T>
void register_type(bool gpu) {
  for (operation op : {operation::inclusive_scan, operation::exclusive_scan, operation::inclusive_scan_by_key,
                       operation::compact, operation::partition, operation::unique, operation::run_length_encode,
                       operation::unique_by_key, operation::reduce_by_key}) {
    register_operation<T>(op, gpu);
  }
}

void register_rows(bool gpu) {
  if (gpu) {
    register_lesson<float>();
    register_lesson<std::int32_t>();
  }
  register_type<float>(gpu);
  register_type<std::int32_t>(gpu);
  register_type<std::int64_t>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
