// SPDX-License-Identifier: Apache-2.0
// The segmented sorts: every implementation side by side, segments of one size given by int32
// offsets (as CSR rows are), and the peers' sort along the last axis of a matrix (bench/peers.py:
// torch.sort(dim=-1), cupy.sort(axis=-1)) on the same shapes.
//
// Rows (algorithm/type/implementation/n, n = 2^16 ... 2^28 by 4x, never fewer keys than one
// segment):
//   segmented_sort_seg128/uint32, /float          segments of 128 keys (short rows: shared memory)
//   segmented_sort_seg65536/uint32, /float        segments of 2^16 keys (long rows: merges or passes)
//   segmented_sort_by_key_seg128/uint32           uint32 keys carrying uint32 values
// Keys are uniform random (every uint32; floats in [-1, 1)); every call is out of place, so each
// repetition sorts the same input.
//
// Bytes: the fewest a segmented sort must move, each key (and value) read once and written once,
// against the read+write ceiling of the same run: 8 bytes per uint32 key, 16 per pair. A radix or
// merge sort moves several times that, so the % of the ceiling says how far from a copy it is;
// Gkeys/s (n over the GPU time) is the figure that compares with bench/sort.cu's rows. cpu rows
// stop at 2^22 keys; `automatic` is not timed (it is cub, by sort_automatic). Each row checks its
// output once: every segment sorted and a permutation of its input (a checksum per segment);
// sort_by_key's values are their keys' positions.
#include <prism/segmented_sort.hpp>

#include "harness.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;

benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 2e-5 + bytes / 4e11 : 2e-4 + bytes / 4e7;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(2e-3 / expected, 1.0, 16.0));
  return configure(b)->Repetitions(3)->Iterations(calls);
}

template <class K>
std::uint64_t hash_of(K k) {
  std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t> b;
  std::memcpy(&b, &k, sizeof(K));
  return b * 0x9E3779B97F4A7C15ull ^ (b >> 7);
}

// The arrays of one (type, segment size, n, with values), on the host and the GPU.
template <class K>
struct arrays {
  std::size_t segment;
  bool pairs;
  std::vector<K> host_keys, host_keys_out;
  std::vector<std::uint32_t> host_values, host_values_out;
  std::vector<std::int32_t> host_offsets;
  device_buffer<K> keys, keys_out;
  device_buffer<std::uint32_t> values, values_out;
  device_buffer<std::int32_t> offsets;

  arrays(std::size_t n, std::size_t segment_size, bool with_values, bool gpu) : segment(segment_size), pairs(with_values) {
    host_keys.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<K>) {
        host_keys[i] = static_cast<K>(uniform(seed(), 7, i) * 2 - 1);
      } else {
        host_keys[i] = static_cast<K>(splitmix64(seed() ^ splitmix64(i)) >> 11);
      }
    }
    host_keys_out.assign(n, K{});
    host_offsets.resize(n / segment + 1);
    for (std::size_t s = 0; s < host_offsets.size(); ++s) host_offsets[s] = static_cast<std::int32_t>(s * segment);
    if (pairs) {
      host_values.resize(n);
      for (std::size_t i = 0; i < n; ++i) host_values[i] = static_cast<std::uint32_t>(i);
      host_values_out.assign(n, 0);
    }
    if (!gpu) return;
    keys = device_buffer<K>(host_keys);
    keys_out = device_buffer<K>(n);
    offsets = device_buffer<std::int32_t>(host_offsets);
    if (pairs) values = device_buffer<std::uint32_t>(host_values), values_out = device_buffer<std::uint32_t>(n);
  }

  void call(impl which) {
    const execution_policy policy = par.with(which);
    if (which == impl::cpu) {
      if (pairs) {
        segmented_sort_by_key(policy, host_keys, host_values, host_offsets, host_keys_out, host_values_out);
      } else {
        segmented_sort(policy, host_keys, host_offsets, host_keys_out);
      }
    } else if (pairs) {
      segmented_sort_by_key(policy, span<const K>(keys.view()), span<const std::uint32_t>(values.view()),
                            span<const std::int32_t>(offsets.view()), keys_out.view(), values_out.view());
    } else {
      segmented_sort(policy, span<const K>(keys.view()), span<const std::int32_t>(offsets.view()), keys_out.view());
    }
  }

  std::string check(bool on_gpu) {
    std::vector<K> got = on_gpu ? keys_out.to_host() : host_keys_out;
    if (break_requested() && !got.empty()) {
      if (got.front() != got.back()) {
        std::swap(got.front(), got.back());
      } else {
        got.front() = static_cast<K>(got.front() + K(1));
      }
    }
    for (std::size_t begin = 0; begin < got.size(); begin += segment) {
      std::uint64_t want = 0, have = 0;
      for (std::size_t i = begin; i < begin + segment; ++i) {
        if (i > begin && !(got[i - 1] <= got[i])) return "segment at " + std::to_string(begin) + " not sorted at " + std::to_string(i);
        want += hash_of(host_keys[i]);
        have += hash_of(got[i]);
      }
      if (want != have) return "segment at " + std::to_string(begin) + " is not a permutation of its input";
    }
    if (pairs) {
      const std::vector<std::uint32_t> v = on_gpu ? values_out.to_host() : host_values_out;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] / segment != i / segment || host_keys[v[i]] != got[i]) return "value " + std::to_string(i) + " is not its key's";
      }
    }
    return "";
  }
};

template <class K>
void register_rows_of(std::size_t segment, bool pairs, bool gpu) {
  const std::string algorithm =
      std::string(pairs ? "segmented_sort_by_key_seg" : "segmented_sort_seg") + std::to_string(segment);
  const std::string type = type_name<K>();
  for (std::int64_t n : sizes()) {
    if (n < static_cast<std::int64_t>(segment) || n < (std::int64_t{1} << 16)) continue;
    const double per_key = sizeof(K) + (pairs ? sizeof(std::uint32_t) : 0);
    const traffic bytes{static_cast<double>(n) * per_key, static_cast<double>(n) * per_key};
    const std::string key = algorithm + "/" + type + "/" + std::to_string(n);
    for (impl which : sort_implementations) {
      const bool on_gpu = which != impl::cpu;
      if ((on_gpu && !gpu) || (!on_gpu && n > cpu_largest)) continue;
      for (cache c : cache_modes(bytes, on_gpu)) {
        const std::string row = row_name(algorithm, type, std::string(name(which)), n, c);
        short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                                [=](benchmark::State& state) {
                                                  auto& a = row_arrays<arrays<K>>(key, static_cast<std::size_t>(n), segment, pairs, gpu_available());
                                                  if (on_gpu) {
                                                    time_on_gpu(state, bytes, c, [&] { a.call(which); });
                                                  } else {
                                                    time_on_host(state, bytes, [&] { a.call(which); });
                                                  }
                                                  const double us = state.counters.count("gpu_us")
                                                                        ? state.counters["gpu_us"].value
                                                                        : state.counters["us"].value;
                                                  if (us > 0) state.counters["Gkeys/s"] = static_cast<double>(n) / us / 1e3;
                                                  state.SetLabel("bytes: keys (and values) read+written once");
                                                  verify(state, row, [&] { return a.check(on_gpu); });
                                                }),
                   bytes.total(), on_gpu);
      }
    }
  }
}

void register_rows(bool gpu) {
  for (std::size_t segment : {std::size_t{128}, std::size_t{1} << 16}) {
    register_rows_of<std::uint32_t>(segment, false, gpu);
    register_rows_of<float>(segment, false, gpu);
  }
  register_rows_of<std::uint32_t>(128, true, gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
