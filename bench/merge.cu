// SPDX-License-Identifier: Apache-2.0
// The merge family: every implementation of merge side by side.
//
// Rows (algorithm/type/implementation/n, n the output's size):
//   merge/float/<impl>/1024        two sorted arrays of 2^9 floats: the latency a caller sees
//   merge/float/<impl>/268435456   two sorted arrays of 2^27 floats
//   merge/uint32/lesson_<stage>/268435456   the lesson's stages (algorithms/merge/lesson.cuh), the
//                                  same arrays merged as uint32 (positive floats' bits sort alike)
//   merge/float/raw_<threads>x<items>[_b<blocks>][_async|_bulk]/268435456   raw's kernels in other
//                                  tile shapes (threads per block, outputs per thread, and blocks per
//                                  SM asked of __launch_bounds__) than its own 512 x 15, bulk (CUB's
//                                  DeviceMerge tiles 512 x 15 on the H200), _async: the tile
//                                  loaded by cp.async, not through registers, _bulk: each of its
//                                  two ranges by one bulk copy (cp.async.bulk, as CUB loads it to
//                                  shared memory)
// Inputs: a[i] = (i + u_i) / 2^k with u_i uniform in [0, 1) (and b likewise, another stream), so
// both are sorted and interleave at random. Bytes: every input element read once and every output
// written once, 8 bytes per output element (read+write, held against the ceiling of that pattern).
// cpu rows only at the small size; `automatic` is not timed (it is cub, by merge_automatic). Each
// row checks its output once: sorted, n elements, and the same elements (a checksum of the bits).
//   merge_by_key/float/<impl>/n    the same keys, each with a uint32 value made from its bits;
//                                  16 bytes per output (keys and values read and written); checked:
//                                  the keys as merge's, every value its key's
//   <set operation>/uint32/<impl>/n   set_union, set_intersection, set_difference and
//                                  set_symmetric_difference of a[i] = 2 i + (i mod 3 == 0) and
//                                  b[j] = 3 j + (j mod 2): sorted, overlapping in about a third of
//                                  their values; the count into a one-element array (nothing
//                                  waits); bytes: both inputs read, the result written; checked
//                                  against std::set_* on the host
// Peers: Thrust's merge_by_key and set operations are the thrust rows; CUB has DeviceMerge (the
// cub rows) and no set operations.
#include <prism/merge.cuh>
#include <prism/merge.hpp>

#include "harness.hpp"

#include <algorithm>
#include <iterator>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;

benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 2e-5 + bytes / 2e12 : 2e-4 + bytes / 2e8;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(2e-3 / expected, 1.0, 16.0));
  return configure(b)->Repetitions(5)->Iterations(calls);
}

inline float sorted_element(std::uint64_t stream, std::size_t i, std::size_t n) {
  return static_cast<float>((static_cast<double>(i) + uniform(seed(), stream, i)) / static_cast<double>(n));
}

__global__ void sorted_kernel(float* out, std::size_t n, std::uint64_t stream, std::uint64_t s) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<float>((static_cast<double>(i) + uniform(s, stream, i)) / static_cast<double>(n));
  }
}

std::uint64_t checksum(const float* v, std::size_t n) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, v + i, 4);
    sum += splitmix64(b);
  }
  return sum;
}

struct arrays {
  std::size_t half;
  std::vector<float> host_a, host_b, host_out;
  device_buffer<float> a, b, out;
  std::uint64_t want = 0;

  arrays(std::size_t n, bool gpu) : half(n / 2) {
    if (gpu) {
      a = device_buffer<float>(half);
      b = device_buffer<float>(n - half);
      out = device_buffer<float>(n);
      launch_resident(sorted_kernel, 256, nullptr, a.data(), a.size(), std::uint64_t{11}, seed());
      launch_resident(sorted_kernel, 256, nullptr, b.data(), b.size(), std::uint64_t{12}, seed());
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      host_a = a.to_host();
      host_b = b.to_host();
    } else {
      host_a.resize(half);
      host_b.resize(n - half);
      for (std::size_t i = 0; i < host_a.size(); ++i) host_a[i] = sorted_element(11, i, host_a.size());
      for (std::size_t i = 0; i < host_b.size(); ++i) host_b[i] = sorted_element(12, i, host_b.size());
    }
    host_out.assign(n, 0.0f);
    want = checksum(host_a.data(), host_a.size()) + checksum(host_b.data(), host_b.size());
    if (!gpu) host_a.shrink_to_fit();
  }

  // The lesson's uint32 merge, over the same arrays: positive floats' bits sort as they do.
  void call(merge_stage stage) {
    const auto bits = [](const device_buffer<float>& x) {
      return span<const std::uint32_t>(reinterpret_cast<const std::uint32_t*>(x.data()), x.size());
    };
    prism::merge(stage, par, bits(a), bits(b),
                 span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(out.data()), out.size()));
  }

  // raw's kernels in the tile shape <Threads, Items, MinBlocks>, as the library calls them for floats.
  template <unsigned Threads, unsigned Items, unsigned MinBlocks, detail::tile_load Load>
  void call_in_shape() {
    using B = std::uint32_t;
    const auto bits = [](const device_buffer<float>& x) { return reinterpret_cast<const B*>(x.data()); };
    const detail::no_values* none = nullptr;
    detail::raw_merge<Threads, Items, MinBlocks, Load>("merge", par.with(impl::raw), bits(a), a.size(), bits(b), b.size(),
                                                 reinterpret_cast<B*>(out.data()), none, none,
                                                 static_cast<detail::no_values*>(nullptr),
                                                 detail::key_order<B>{detail::key_kind::floating_point});
  }

  void call(impl which) {
    const execution_policy policy = par.with(which);
    if (which == impl::cpu) {
      prism::merge(policy, host_a, host_b, host_out);
    } else {
      prism::merge(policy, a.view(), b.view(), out.view());
    }
  }

  std::string check(bool on_gpu) {
    std::vector<float> got = on_gpu ? out.to_host() : host_out;
    if (break_requested() && got.size() > 1) std::swap(got.front(), got.back());
    for (std::size_t i = 1; i < got.size(); ++i)
      if (!(got[i - 1] <= got[i])) return "not sorted at " + std::to_string(i);
    if (checksum(got.data(), got.size()) != want) return "not the elements of the inputs";
    return "";
  }
};
// merge_by_key: a value per key, made from its bits, so that the pairs can be checked.
inline std::uint32_t value_of(float key) {
  std::uint32_t b;
  std::memcpy(&b, &key, 4);
  return b ^ 0x5A5A5A5Au;
}
__global__ void values_kernel(const float* keys, std::uint32_t* values, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    values[i] = __float_as_uint(keys[i]) ^ 0x5A5A5A5Au;
  }
}

struct pair_arrays {
  arrays keys;
  std::vector<std::uint32_t> host_va, host_vb, host_vout;
  device_buffer<std::uint32_t> va, vb, vout;

  pair_arrays(std::size_t n, bool gpu) : keys(n, gpu) {
    if (gpu) {
      va = device_buffer<std::uint32_t>(keys.a.size());
      vb = device_buffer<std::uint32_t>(keys.b.size());
      vout = device_buffer<std::uint32_t>(n);
      launch_resident(values_kernel, 256, nullptr, keys.a.data(), va.data(), va.size());
      launch_resident(values_kernel, 256, nullptr, keys.b.data(), vb.data(), vb.size());
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } else {
      for (float k : keys.host_a) host_va.push_back(value_of(k));
      for (float k : keys.host_b) host_vb.push_back(value_of(k));
      host_vout.assign(n, 0);
    }
  }
  void call(impl which) {
    const execution_policy policy = par.with(which);
    if (which == impl::cpu) {
      prism::merge_by_key(policy, keys.host_a, host_va, keys.host_b, host_vb, keys.host_out, host_vout);
    } else {
      prism::merge_by_key(policy, keys.a.view(), va.view(), keys.b.view(), vb.view(), keys.out.view(), vout.view());
    }
  }
  std::string check(bool on_gpu) {
    if (std::string why = keys.check(on_gpu); !why.empty()) return why;
    const std::vector<float> k = on_gpu ? keys.out.to_host() : keys.host_out;
    std::vector<std::uint32_t> v = on_gpu ? vout.to_host() : host_vout;
    if (break_requested() && !v.empty()) v.front() ^= 1;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] != value_of(k[i])) return "value " + std::to_string(i) + " is not its key's";
    return "";
  }
};

// The set operations' inputs: a[i] = 2 i + (i mod 3 == 0), b[j] = 3 j + (j mod 2).
__global__ void set_input_kernel(std::uint32_t* a, std::size_t a_n, std::uint32_t* b, std::size_t b_n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < a_n + b_n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if (i < a_n) a[i] = static_cast<std::uint32_t>(2 * i + (i % 3 == 0));
    else b[i - a_n] = static_cast<std::uint32_t>(3 * (i - a_n) + (i - a_n) % 2);
  }
}

struct set_arrays {
  std::vector<std::uint32_t> host_a, host_b, host_out;
  device_buffer<std::uint32_t> a, b, out;
  device_buffer<std::size_t> count;
  std::vector<std::size_t> host_count = std::vector<std::size_t>(1);
  std::vector<std::uint32_t> want[4];  // per set_operation, computed when first asked

  set_arrays(std::size_t n, bool gpu) {
    const std::size_t half = n / 2;
    host_a.resize(half);
    host_b.resize(n - half);
    for (std::size_t i = 0; i < host_a.size(); ++i) host_a[i] = static_cast<std::uint32_t>(2 * i + (i % 3 == 0));
    for (std::size_t j = 0; j < host_b.size(); ++j) host_b[j] = static_cast<std::uint32_t>(3 * j + j % 2);
    if (gpu) {
      a = device_buffer<std::uint32_t>(half);
      b = device_buffer<std::uint32_t>(n - half);
      out = device_buffer<std::uint32_t>(n);
      count = device_buffer<std::size_t>(1);
      launch_resident(set_input_kernel, 256, nullptr, a.data(), a.size(), b.data(), b.size());
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } else {
      host_out.assign(n, 0);
    }
  }
  const std::vector<std::uint32_t>& reference(set_operation op) {
    auto& w = want[static_cast<int>(op)];
    if (!w.empty() || host_a.empty()) return w;
    const auto a0 = host_a.begin(), a1 = host_a.end(), b0 = host_b.begin(), b1 = host_b.end();
    auto into = std::back_inserter(w);
    switch (op) {
      case set_operation::set_union: std::set_union(a0, a1, b0, b1, into); break;
      case set_operation::set_intersection: std::set_intersection(a0, a1, b0, b1, into); break;
      case set_operation::set_difference: std::set_difference(a0, a1, b0, b1, into); break;
      case set_operation::set_symmetric_difference: std::set_symmetric_difference(a0, a1, b0, b1, into); break;
    }
    return w;
  }
  void call(impl which, set_operation op) {
    const execution_policy policy = par.with(which);
    if (which == impl::cpu) {
      run_set(op, policy, host_a, host_b, host_out, host_count);
    } else {
      run_set(op, policy, a.view(), b.view(), out.view(), count.view());
    }
  }
  template <class A, class O, class C>
  static void run_set(set_operation op, const execution_policy& policy, A&& a, A&& b, O&& out, C&& count) {
    switch (op) {
      case set_operation::set_union: prism::set_union(policy, a, b, out, count); break;
      case set_operation::set_intersection: prism::set_intersection(policy, a, b, out, count); break;
      case set_operation::set_difference: prism::set_difference(policy, a, b, out, count); break;
      case set_operation::set_symmetric_difference: prism::set_symmetric_difference(policy, a, b, out, count); break;
    }
  }
  std::string check(set_operation op, bool on_gpu) {
    const auto& w = reference(op);
    const std::size_t got_count = on_gpu ? count.to_host()[0] : host_count[0];
    if (got_count != w.size()) return "count " + std::to_string(got_count) + ", want " + std::to_string(w.size());
    std::vector<std::uint32_t> got = on_gpu ? out.to_host() : host_out;
    if (break_requested() && !got.empty()) got.front() += 1;
    if (!std::equal(w.begin(), w.end(), got.begin())) return "the elements differ from std::" + std::string(name(op));
    return "";
  }
};

// merge's and merge_by_key's rows at n: every implementation (cpu at the small size only), the
// arrays A of n elements (host or device ones), bytes_per_element read and as many written.
template <class A>
void register_merge_rows(const char* algorithm, std::int64_t n, double bytes_per_element, bool gpu) {
  const traffic bytes{bytes_per_element * static_cast<double>(n), bytes_per_element * static_cast<double>(n)};
  for (impl which : merge_implementations) {
    const bool on_gpu = which != impl::cpu;
    if ((on_gpu && !gpu) || (!on_gpu && n > cpu_largest)) continue;
    for (cache c : cache_modes(bytes, on_gpu)) {
      const std::string row = row_name(algorithm, "float", std::string(name(which)), n, c);
      short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                              [=](benchmark::State& state) {
                                                auto& a = row_arrays<A>(std::to_string(n) + (on_gpu ? "/gpu" : "/cpu"),
                                                                        static_cast<std::size_t>(n), on_gpu);
                                                if (on_gpu) {
                                                  time_on_gpu(state, bytes, c, [&] { a.call(which); });
                                                } else {
                                                  time_on_host(state, bytes, [&] { a.call(which); });
                                                }
                                                verify(state, row, [&] { return a.check(on_gpu); });
                                              }),
                 bytes.total(), on_gpu);
    }
  }
}

template <unsigned Threads, unsigned Items, unsigned MinBlocks = 0, detail::tile_load Load = detail::tile_load::registers>
void register_shape() {
  const std::int64_t n = std::int64_t{1} << 28;
  const traffic bytes{4.0 * static_cast<double>(n), 4.0 * static_cast<double>(n)};
  const std::string shape = "raw_" + std::to_string(Threads) + "x" + std::to_string(Items) +
                            (MinBlocks != 0 ? "_b" + std::to_string(MinBlocks) : std::string()) +
                            (Load == detail::tile_load::async  ? "_async"
                             : Load == detail::tile_load::bulk ? "_bulk"
                                                               : "");
  for (cache c : cache_modes(bytes)) {
    const std::string row = row_name("merge", "float", shape, n, c);
    short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                            [=](benchmark::State& state) {
                                              arrays& a = row_arrays<arrays>(std::to_string(n) + "/gpu", static_cast<std::size_t>(n), true);
                                              time_on_gpu(state, bytes, c, [&] { a.call_in_shape<Threads, Items, MinBlocks, Load>(); });
                                              verify(state, row, [&] { return a.check(true); });
                                            }),
               bytes.total(), true);
  }
}

void register_rows(bool gpu) {
  for (std::int64_t n : {std::int64_t{1} << 10, std::int64_t{1} << 28}) {
    register_merge_rows<arrays>("merge", n, 4, gpu);
    register_merge_rows<pair_arrays>("merge_by_key", n, 8, gpu);
    // The set operations: both inputs read, the result written (its size from the reference).
    const traffic most{4.0 * static_cast<double>(n), 4.0 * static_cast<double>(n)};
    for (set_operation op : {set_operation::set_union, set_operation::set_intersection, set_operation::set_difference,
                             set_operation::set_symmetric_difference}) {
      for (impl which : set_operation_implementations) {
        const bool on_gpu = which != impl::cpu;
        if ((on_gpu && !gpu) || (!on_gpu && n > cpu_largest)) continue;
        for (cache c : cache_modes(most, on_gpu)) {
          const std::string row = row_name(std::string(name(op)), "uint32", std::string(name(which)), n, c);
          short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                                  [=](benchmark::State& state) {
                                                    auto& a = row_arrays<set_arrays>(std::to_string(n) + (on_gpu ? "/gpu" : "/cpu"), static_cast<std::size_t>(n), on_gpu);
                                                    const traffic bytes{4.0 * static_cast<double>(n),
                                                                        4.0 * static_cast<double>(a.reference(op).size())};
                                                    if (on_gpu) {
                                                      time_on_gpu(state, bytes, c, [&] { a.call(which, op); });
                                                    } else {
                                                      time_on_host(state, bytes, [&] { a.call(which, op); });
                                                    }
                                                    verify(state, row, [&] {
                                                      a.call(which, op);
                                                      if (on_gpu) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                                                      return a.check(op, on_gpu);
                                                    });
                                                  }),
                     most.total(), on_gpu);
        }
      }
    }
  }
  // The lesson's stages at the large size (device memory only).
  if (!gpu) return;
  const std::int64_t n = std::int64_t{1} << 28;
  const traffic bytes{4.0 * static_cast<double>(n), 4.0 * static_cast<double>(n)};
  for (merge_stage stage : merge_lesson) {
    for (cache c : cache_modes(bytes)) {
      const std::string row = row_name("merge", "uint32", "lesson_" + std::string(name(stage)), n, c);
      short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                              [=](benchmark::State& state) {
                                                arrays& a = row_arrays<arrays>(std::to_string(n) + "/gpu", static_cast<std::size_t>(n), true);
                                                time_on_gpu(state, bytes, c, [&] { a.call(stage); });
                                                verify(state, row, [&] { return a.check(true); });
                                              }),
                 bytes.total(), true);
    }
  }
  register_shape<256, 15>();
  register_shape<512, 15>();
  register_shape<256, 15, 0, detail::tile_load::async>();
  register_shape<512, 15, 0, detail::tile_load::bulk>();
  register_shape<256, 23, 0, detail::tile_load::bulk>();
  register_shape<128, 15, 0, detail::tile_load::bulk>();
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
