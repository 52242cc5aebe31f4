// SPDX-License-Identifier: Apache-2.0
// The sort family: every implementation side by side, and the stages of the radix sort's lesson.
//
// Rows (algorithm/type/implementation/n, n = 2^10 ... 2^28 by 4x):
//   sort/uint32, sort/float               uniform random keys (every uint32; floats in [-1, 1))
//   sort_few/uint32, sort_few/float       16 distinct keys, at random
//   sort_in_place/uint32                  the same keys as sort/uint32, sorted in place (the GPU
//                                         implementations; the input is restored before each call,
//                                         outside the timed region): Thrust's own spelling, which
//                                         out of place must copy the input first
//   sort_by_key/uint32                    uniform uint32 keys carrying uint32 values
//   argsort/float                         uniform float keys, int32 indices
//   sort/uint32/lesson_<stage>/n          the lesson's stages (uint32, uniform)
//   sort, sort_few, sort_by_key /uint32/early_<K>/n (2^24, 2^28)
//                                         stage 5's one-sweep sort run directly, K keys a thread
//                                         (raw: 24 for keys; pairs 16 in blocks of 384), and carrying values:
//                                         which tile the early-counts pass wants, with and
//                                         without values; early_<B>x<K>: blocks of B threads;
//                                         early_match_<K> (sort, sort_few): keys ranked by
//                                         __match_any_sync instead of ballots. Every early row
//                                         ranks and moves the keys of a pass of one digit too,
//                                         which raw copies to the same places by a kernel of
//                                         its own (SkipOneDigit, CopyApart), but
//                                         early_<shape>_copy: copied by the pass kernel's blocks,
//                                         each its own tile (as raw did before)
// Every other call is out of place (keys_in -> keys_out), so each repetition sorts the same input.
//
// Bytes: a sort has no "fewest bytes" that a copy ceiling applies to; rows count what the fastest
// implementation (an LSD radix sort with 8-bit digits: CUB's onesweep, prism's raw) moves at
// least: the keys read and written once per pass, sizeof(key) passes, plus the values (or the
// indices) likewise: 4 x (4 + 4) = 32 bytes per uint32 key, 64 per uint32 pair. The label says so.
// The figure to compare is keys/s (the Gkeys/s counter: n over the GPU time); GB/s is that figure
// times the bytes above, so that the % of the ceiling says how close a radix sort's traffic is to
// the copy rate. cpu rows stop at 2^22 elements; `automatic` is not timed (it is cub, by
// sort_automatic). Each row checks its output once: sorted, and a permutation of the input (by a
// checksum of the keys; argsort: the keys gathered through the indices are sorted).
#include <prism/primitives/onesweep.cuh>
#include <prism/sort.hpp>

#include "harness.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace prism::bench {
namespace {

enum class operation { sort, sort_few, sort_in_place, sort_by_key, argsort };

constexpr const char* name_of(operation op) {
  constexpr const char* names[] = {"sort", "sort_few", "sort_in_place", "sort_by_key", "argsort"};
  return names[static_cast<int>(op)];
}

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;

// Rows are short, as in the scan suite: 3 repetitions of a fixed number of calls.
benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 2e-5 + bytes / 2e12 : 2e-4 + bytes / 2e8;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(2e-3 / expected, 1.0, 16.0));
  return configure(b)->Repetitions(3)->Iterations(calls);
}

// The bits a key sorts by (floats: every value here is a number, no NaN).
template <class K>
bool in_order(K a, K b) {
  return a <= b;
}

template <class K>
std::uint64_t checksum(const std::vector<K>& v) {
  std::uint64_t s = 0;
  for (const K& k : v) {
    std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t> b;
    std::memcpy(&b, &k, sizeof(K));
    s += b * 0x9E3779B97F4A7C15ull ^ (b >> 7);
  }
  return s;
}

// The arrays of one (operation, type, n), on the host and on the GPU where there is one.
template <class K>
struct arrays {
  std::vector<K> host_keys, host_keys_out;
  std::vector<std::uint32_t> host_values, host_values_out;
  std::vector<std::int32_t> host_indices;
  device_buffer<K> keys, keys_out;
  device_buffer<std::uint32_t> values, values_out;
  device_buffer<std::int32_t> indices;

  arrays(std::size_t n, operation op, bool gpu) {
    host_keys.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t r = splitmix64(seed() ^ splitmix64(i));
      if constexpr (std::is_floating_point_v<K>) {
        host_keys[i] = op == operation::sort_few ? static_cast<K>(r % 16) - K(8) : static_cast<K>(uniform(seed(), 7, i) * 2 - 1);
      } else {
        host_keys[i] = op == operation::sort_few ? static_cast<K>(r % 16) : static_cast<K>(r >> 11);
      }
    }
    host_keys_out.assign(n, K{});
    if (op == operation::sort_by_key) {
      host_values.resize(n);
      for (std::size_t i = 0; i < n; ++i) host_values[i] = static_cast<std::uint32_t>(i);
      host_values_out.assign(n, 0);
    }
    if (op == operation::argsort) host_indices.assign(n, 0);
    if (!gpu) return;
    keys = device_buffer<K>(host_keys);
    keys_out = device_buffer<K>(n);
    if (op == operation::sort_by_key) values = device_buffer<std::uint32_t>(host_values), values_out = device_buffer<std::uint32_t>(n);
    if (op == operation::argsort) indices = device_buffer<std::int32_t>(n);
  }

  void call(operation op, impl which) {
    const execution_policy policy = par.with(which);
    if (which == impl::cpu) {
      call_on(op, policy, span<const K>(host_keys), span<K>(host_keys_out), span<const std::uint32_t>(host_values),
              span<std::uint32_t>(host_values_out), span<std::int32_t>(host_indices));
    } else {
      call_on(op, policy, span<const K>(keys.view()), keys_out.view(), span<const std::uint32_t>(values.view()),
              values_out.view(), indices.view());
    }
  }

  static void call_on(operation op, const execution_policy& policy, span<const K> k, span<K> ko,
                      span<const std::uint32_t> v, span<std::uint32_t> vo, span<std::int32_t> idx) {
    switch (op) {
      case operation::sort:
      case operation::sort_few: sort(policy, k, ko); break;
      case operation::sort_in_place: sort(policy, ko); break;
      case operation::sort_by_key: sort_by_key(policy, k, v, ko, vo); break;
      case operation::argsort: argsort(policy, k, idx); break;
    }
  }

  // sort_in_place's input, put back before each call.
  void restore() {
    prism::check(cudaMemcpyAsync(keys_out.data(), keys.data(), keys.size() * sizeof(K), cudaMemcpyDeviceToDevice),
                 "cudaMemcpyAsync");
  }

  // Empty when the output is right: sorted, and the same keys (a checksum); sort_by_key's values
  // are the positions of their keys; argsort's indices gather a sorted sequence of the same keys.
  std::string check(operation op, bool on_gpu) {
    std::vector<K> got = on_gpu ? keys_out.to_host() : host_keys_out;
    if (op == operation::argsort) {
      const std::vector<std::int32_t> idx = on_gpu ? indices.to_host() : host_indices;
      for (std::size_t i = 0; i < idx.size(); ++i) {
        if (idx[i] < 0 || static_cast<std::size_t>(idx[i]) >= host_keys.size()) return "index out of range";
        got[i] = host_keys[static_cast<std::size_t>(idx[i])];
      }
    }
    if (break_requested() && !got.empty()) {
      if (got.front() != got.back()) {
        std::swap(got.front(), got.back());
      } else {
        got.front() = static_cast<K>(got.front() + K(1));
      }
    }
    for (std::size_t i = 1; i < got.size(); ++i)
      if (!in_order(got[i - 1], got[i])) return "not sorted at " + std::to_string(i);
    if (checksum(got) != checksum(host_keys)) return "not a permutation of the input";
    if (op == operation::sort_by_key) {
      const std::vector<std::uint32_t> v = on_gpu ? values_out.to_host() : host_values_out;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] >= host_keys.size() || host_keys[v[i]] != got[i]) return "value " + std::to_string(i) + " is not its key's";
    }
    return "";
  }
};

// sizeof(K) passes of 8-bit digits, each reading and writing the keys (and values, or indices).
template <class K>
traffic traffic_of(operation op, std::int64_t n) {
  const double passes = sizeof(K), carried = op == operation::sort_by_key || op == operation::argsort ? 4 : 0;
  const double per_pass = static_cast<double>(n) * (sizeof(K) + carried);
  return {passes * per_pass, passes * per_pass};
}

// keys/s from the row's time (the GPU time where there is one), and the label on the bytes.
inline void count_keys(benchmark::State& state, std::int64_t n, operation op) {
  const double us = state.counters.count("gpu_us") ? state.counters["gpu_us"].value : state.counters["us"].value;
  if (us > 0) state.counters["Gkeys/s"] = static_cast<double>(n) / us / 1e3;
  state.SetLabel(op == operation::sort_by_key || op == operation::argsort
                     ? "bytes: keys and values read+written once per 8-bit pass"
                     : "bytes: keys read+written once per 8-bit pass");
}

template <class K>
void register_operation(operation op, bool gpu) {
  const std::string type = type_name<K>();
  for (std::int64_t n : sizes()) {
    const traffic bytes = traffic_of<K>(op, n);
    const std::string key = std::string(name_of(op)) + "/" + type + "/" + std::to_string(n);
    for (impl which : sort_implementations) {
      const bool on_gpu = which != impl::cpu;
      if (on_gpu && !gpu) continue;
      if (!on_gpu && (n > cpu_largest || op == operation::sort_in_place)) continue;
      for (cache c : cache_modes(bytes, on_gpu)) {
        const std::string row = row_name(name_of(op), type, std::string(name(which)), n, c);
        short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                                [=](benchmark::State& state) {
                                                  arrays<K>& a = row_arrays<arrays<K>>(key, static_cast<std::size_t>(n), op, gpu_available());
                                                  if (on_gpu) {
                                                    time_on_gpu(state, bytes, c, [&] { a.call(op, which); }, nullptr, [&] {
                                                      if (op == operation::sort_in_place) a.restore();
                                                    });
                                                  } else {
                                                    time_on_host(state, bytes, [&] { a.call(op, which); });
                                                  }
                                                  count_keys(state, n, op);
                                                  verify(state, row, [&] { return a.check(op, on_gpu); });
                                                }),
                   bytes.total(), on_gpu);
      }
    }
  }
}

// The stages of the radix sort's lesson, timed like the implementations (stage 5 is raw).
void register_lesson() {
  for (std::int64_t n : sizes()) {
    const traffic bytes = traffic_of<std::uint32_t>(operation::sort, n);
    const std::string key = "sort/uint32/" + std::to_string(n);
    for (sort_stage stage : sort_lesson) {
      for (cache c : cache_modes(bytes)) {
        const std::string row = row_name("sort", "uint32", "lesson_" + std::string(name(stage)), n, c);
        short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                                [=](benchmark::State& state) {
                                                  auto& a = row_arrays<arrays<std::uint32_t>>(key, static_cast<std::size_t>(n),
                                                                                      operation::sort, gpu_available());
                                                  time_on_gpu(state, bytes, c,
                                                              [&] { sort(stage, par, a.keys, a.keys_out); });
                                                  count_keys(state, n, operation::sort);
                                                  verify(state, row, [&] { return a.check(operation::sort, true); });
                                                }),
                   bytes.total(), true);
      }
    }
  }
}

// Stage 5's sort (<prism/primitives/onesweep.cuh>) with K keys per thread in blocks of Threads, on
// the rows' arrays; MatchAny: keys ranked by __match_any_sync instead of ballots (rows
// early_match_<K>). Passes of one digit are ranked as any other (no SkipOneDigit), unless Copy:
// copied by the pass's blocks, each its own tile (rows early_<shape>_copy; raw copies them by a
// kernel of its own).
template <operation op, unsigned K, unsigned Threads = detail::radix::threads, bool MatchAny = false, bool Copy = false>
void register_early() {
  using Key = std::uint32_t;
  for (const std::int64_t n : {std::int64_t{1} << 24, std::int64_t{1} << 28}) {
    const traffic bytes = traffic_of<Key>(op, n);
    const std::string key = std::string(name_of(op)) + "/uint32/" + std::to_string(n);
    for (cache c : cache_modes(bytes)) {
      const std::string shape = std::string(MatchAny ? "match_" : "") +
                                (Threads == detail::radix::threads ? "" : std::to_string(Threads) + "x") + std::to_string(K) +
                                (Copy ? "_copy" : "");
      const std::string row = row_name(name_of(op), "uint32", "early_" + shape, n, c);
      short_rows(benchmark::RegisterBenchmark(
                     row.c_str(),
                     [=](benchmark::State& state) {
                       auto& a = row_arrays<arrays<Key>>(key, static_cast<std::size_t>(n), op, gpu_available());
                       using order = detail::radix::bits_order<Key>;
                       const order bits{detail::key_kind::unsigned_integer, false};
                       constexpr bool pairs = op == operation::sort_by_key;
                       time_on_gpu(state, bytes, c, [&] {
                         detail::radix::onesweep_sort<Key, std::uint32_t, pairs, true, K, Threads, MatchAny, Copy, false>(
                             name_of(op), par, a.keys.data(), a.keys_out.data(), pairs ? a.values.data() : nullptr,
                             pairs ? a.values_out.data() : nullptr, false, a.keys.size(), bits);
                       });
                       count_keys(state, n, op);
                       verify(state, row, [&] { return a.check(op, true); });
                     }),
                 bytes.total(), true);
    }
  }
}

void register_rows(bool gpu) {
  if (gpu) {
    register_lesson();
    register_early<operation::sort, 12>();
    register_early<operation::sort, 16>();
    register_early<operation::sort, 20>();
    register_early<operation::sort, 24>();
    register_early<operation::sort, 28>();
    register_early<operation::sort, 32>();
    register_early<operation::sort_few, 16>();
    register_early<operation::sort, 24, detail::radix::threads, true>();
    register_early<operation::sort_few, 24, detail::radix::threads, true>();
    register_early<operation::sort_few, 24>();
    register_early<operation::sort_by_key, 12>();
    register_early<operation::sort_by_key, 16>();
    register_early<operation::sort_by_key, 20>();
    register_early<operation::sort_by_key, 24>();
    register_early<operation::sort, 16, 384>();
    register_early<operation::sort, 19, 384>();
    register_early<operation::sort, 21, 384>();
    register_early<operation::sort, 12, 512>();
    register_early<operation::sort, 14, 512>();
    register_early<operation::sort_by_key, 12, 384>();
    register_early<operation::sort_by_key, 16, 384>();
    // Passes of one digit copied by the pass's blocks, against raw's copy by a kernel of its own
    // (docs/benchmarks/sort.md, "Passes of one digit copied apart").
    register_early<operation::sort_by_key, 16, 384, false, true>();
    register_early<operation::sort, 24, detail::radix::threads, false, true>();
    register_early<operation::sort_few, 24, detail::radix::threads, false, true>();
  }
  register_operation<std::uint32_t>(operation::sort, gpu);
  register_operation<std::uint32_t>(operation::sort_few, gpu);
  register_operation<std::uint32_t>(operation::sort_in_place, gpu);
  register_operation<float>(operation::sort, gpu);
  register_operation<float>(operation::sort_few, gpu);
  register_operation<std::uint32_t>(operation::sort_by_key, gpu);
  register_operation<float>(operation::argsort, gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
