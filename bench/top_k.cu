// SPDX-License-Identifier: Apache-2.0
// The top-k family: every implementation side by side, and cub::DeviceTopK called bare.
//
// Rows (algorithm/type/implementation/n): top_k_k<k>/<type>/<impl>/n, the k largest of n uniform
// values with int32 indices, k = 1, 100, 10000, n = 2^10 (where k <= n), 2^20 and 2^28 (cpu: up
// to 2^20). The row radix_select (float) is the lesson's stage 2, the selection raw runs past
// k = 128 (below it raw reads x once: the fused select). The row cub_bare is cub::DeviceTopK::MaxPairs alone (values and positions, unordered,
// its ties unspecified, temporary storage allocated once): what CUB costs before prism makes its
// result the documented one. torch.topk is bench/peers.py's (the same n and k).
// Types: float by default (PRISM_BENCH_TYPES=all: float, double, int32, uint64).
//
// top_k_segments_seg1024_k8/<type>/<impl>/n: the 8 largest of each segment of 1,024 (int32
// offsets), n = 2^20 and 2^28, the GPU implementations (every one sorts within the segments,
// then takes). Checked against each segment's 8 best on the host.
//
// Bytes: the fewest a top-k must move: x read once, the k values and indices written,
// n sizeof(T) + k (sizeof(T) + 4); held against the read-only ceiling (k is small beside n). Sort
// then take moves about 2 x 4 passes of (sizeof(T) + 4) n more; radix select reads x once per
// digit and twice more; AIR top-k's later passes read a shrinking buffer of candidates.
// Each row checks its output once against a host reference (the k largest by the sort family's
// order, ties by the lower index), computed once per (type, n, k); cub_bare's against the same set
// of values, sorted.
#include <prism/primitives/radix_order.cuh>
#include <prism/top_k.hpp>

#include "harness.hpp"

#include <cub/device/device_topk.cuh>
#include <cuda/iterator>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

template <class T>
distribution value_range(std::uint64_t stream) {
  if constexpr (std::is_floating_point_v<T>) return {stream, -1, 1};
  if constexpr (sizeof(T) == 8) return {stream, std::is_signed_v<T> ? -0x1p40 : 0, 0x1p40};
  return {stream, std::is_signed_v<T> ? -0x1p30 : 0, 0x1p31};
}

template <class T>
struct arrays {
  using U = prism::detail::bits_of_size<sizeof(T)>;
  std::size_t n, k_most;
  bool on_device;
  device_buffer<T> x, values;
  device_buffer<std::int32_t> indices;
  std::vector<T> host_x, host_values;
  std::vector<std::int32_t> host_indices;
  device_buffer<unsigned char> cub_temp;
  std::map<std::size_t, std::vector<std::int32_t>> reference;

  arrays(std::size_t n_, std::size_t k_, bool gpu) : n(n_), k_most(k_), on_device(gpu) {
    if (gpu) {
      x = device_buffer<T>(n);
      values = device_buffer<T>(k_most);
      indices = device_buffer<std::int32_t>(k_most);
      generate(x.view(), value_range<T>(21));
    } else {
      host_x.resize(n);
      generate(span<T>(host_x), value_range<T>(21), false);
      host_values.resize(k_most);
      host_indices.resize(k_most);
    }
  }
  span<const T> the_x() const { return on_device ? span<const T>(x.view()) : span<const T>(host_x); }
  span<T> the_values(std::size_t k) { return (on_device ? values.view() : span<T>(host_values)).subspan(0, k); }
  span<std::int32_t> the_indices(std::size_t k) {
    return (on_device ? indices.view() : span<std::int32_t>(host_indices)).subspan(0, k);
  }

  void call(impl which, std::size_t k) { prism::top_k(par.with(which), the_x(), k, the_values(k), the_indices(k)); }

  // cub::DeviceTopK::MaxPairs of the values and their positions, as CUB's own example calls it.
  void call_cub_bare(std::size_t k) {
    const auto env = cuda::std::execution::env{
        cuda::stream_ref{cudaStream_t{}}, cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                                   cuda::execution::output_ordering::unsorted)};
    const auto positions = cuda::counting_iterator<std::int32_t>(0);
    std::size_t bytes = 0;
    const auto items = static_cast<std::int64_t>(n), wanted = static_cast<std::int64_t>(k);
    check(cub::DeviceTopK::MaxPairs(nullptr, bytes, x.data(), values.data(), positions, indices.data(), items, wanted,
                                    env),
          "cub::DeviceTopK::MaxPairs");
    if (cub_temp.size() < bytes) cub_temp = device_buffer<unsigned char>(bytes);
    check(cub::DeviceTopK::MaxPairs(cub_temp.data(), bytes, x.data(), values.data(), positions, indices.data(), items,
                                    wanted, env),
          "cub::DeviceTopK::MaxPairs");
  }

  // The k largest positions, by (the family's order descending, position).
  const std::vector<std::int32_t>& reference_for(std::size_t k) {
    auto& r = reference[k];
    if (!r.empty()) return r;
    std::vector<T> host = on_device ? x.to_host() : host_x;
    std::vector<std::int32_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    const auto kind = detail::key_kind_of<T>;
    const auto rank = [&](std::int32_t i) {
      U b;
      std::memcpy(&b, &host[static_cast<std::size_t>(i)], sizeof(T));
      return detail::radix::ordered(b, kind, true);
    };
    const auto better = [&](std::int32_t a, std::int32_t b) {
      const U ra = rank(a), rb = rank(b);
      return ra < rb || (ra == rb && a < b);
    };
    std::nth_element(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k - 1), p.end(), better);
    std::sort(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k), better);
    r.assign(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k));
    return r;
  }

  // Empty when the indices are the reference's (bare: when the values are the reference's, as a set).
  std::string verify_output(std::size_t k, bool bare) {
    const auto& want = reference_for(k);
    std::vector<std::int32_t> got(k);
    std::vector<T> got_values(k);
    if (on_device) {  // the first k of buffers sized for the largest k
      check(cudaMemcpy(got.data(), indices.data(), k * sizeof(std::int32_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
      check(cudaMemcpy(got_values.data(), values.data(), k * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    } else {
      std::copy(host_indices.begin(), host_indices.begin() + static_cast<std::ptrdiff_t>(k), got.begin());
      std::copy(host_values.begin(), host_values.begin() + static_cast<std::ptrdiff_t>(k), got_values.begin());
    }
    if (break_requested()) got[0] += 1;
    const std::vector<std::size_t> at(want.begin(), want.end());
    std::vector<T> want_values = gather(the_x().data(), at, on_device);
    if (bare) {
      std::sort(want_values.begin(), want_values.end());
      std::sort(got_values.begin(), got_values.end());
      return want_values == got_values ? "" : "the values differ from the reference's";
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (got[j] != want[j]) {
        return "index " + std::to_string(j) + ": " + std::to_string(got[j]) + ", want " + std::to_string(want[j]);
      }
    }
    return "";
  }
};

// Segments of `seg` by int32 offsets, the k best of each.
template <class T>
struct segment_arrays {
  using U = prism::detail::bits_of_size<sizeof(T)>;
  std::size_t n, seg, k, segments;
  device_buffer<T> x, values;
  device_buffer<std::int32_t> indices, offsets;
  std::vector<std::int32_t> reference;  // each segment's k best positions within it, best first

  segment_arrays(std::size_t n_, std::size_t seg_, std::size_t k_)
      : n(n_), seg(seg_), k(k_), segments(n_ / seg_), x(n_), values(segments * k_), indices(segments * k_) {
    generate(x.view(), value_range<T>(23));
    std::vector<std::int32_t> o(segments + 1);
    for (std::size_t s = 0; s <= segments; ++s) o[s] = static_cast<std::int32_t>(s * seg);
    offsets = device_buffer<std::int32_t>(span<const std::int32_t>(o));
  }
  void call(impl which) {
    prism::top_k_segments(par.with(which), span<const T>(x.view()), span<const std::int32_t>(offsets.view()), k,
                          values.view(), indices.view());
  }
  std::string verify_output() {
    if (reference.empty()) {
      const std::vector<T> host = x.to_host();
      const auto kind = detail::key_kind_of<T>;
      std::vector<std::int32_t> p(seg);
      for (std::size_t s = 0; s < segments; ++s) {
        const auto rank = [&](std::int32_t i) {
          U b;
          std::memcpy(&b, &host[s * seg + static_cast<std::size_t>(i)], sizeof(T));
          return detail::radix::ordered(b, kind, true);
        };
        const auto better = [&](std::int32_t a, std::int32_t b) {
          const U ra = rank(a), rb = rank(b);
          return ra < rb || (ra == rb && a < b);
        };
        std::iota(p.begin(), p.end(), 0);
        std::partial_sort(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k), p.end(), better);
        reference.insert(reference.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    std::vector<std::int32_t> got = indices.to_host();
    if (break_requested()) got[0] += 1;
    for (std::size_t j = 0; j < got.size(); ++j) {
      if (got[j] != reference[j]) {
        return "slot " + std::to_string(j) + ": " + std::to_string(got[j]) + ", want " + std::to_string(reference[j]);
      }
    }
    return "";
  }
};

template <class T>
traffic traffic_of(std::int64_t n, std::size_t k) {
  return {static_cast<double>(n) * sizeof(T), static_cast<double>(k) * (sizeof(T) + 4)};
}

template <class T, class Call>
void register_row(const std::string& row, std::int64_t n, std::size_t k, bool on_gpu, bool bare, cache c, Call call) {
  const traffic bytes = traffic_of<T>(n, k);
  configure(benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
    arrays<T>& a = row_arrays<arrays<T>>(std::to_string(n) + (on_gpu ? "/gpu" : "/cpu"), static_cast<std::size_t>(n), 10000, on_gpu);
    if (on_gpu) {
      time_on_gpu(state, bytes, c, [&] { call(a); });
    } else {
      time_on_host(state, bytes, [&] { call(a); });
    }
    verify(state, row, [&] {
      poison(a.the_indices(k), on_gpu);
      poison(a.the_values(k), on_gpu);
      call(a);
      if (on_gpu) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      return a.verify_output(k, bare);
    });
  }));
}

const std::int64_t row_sizes[] = {std::int64_t{1} << 10, std::int64_t{1} << 20, std::int64_t{1} << 28};
const std::size_t row_ks[] = {1, 100, 10000};

template <class T>
void register_type(bool gpu) {
  const std::string type = type_name<T>();
  if (!type_selected(type, {"float"})) return;
  for (std::size_t k : row_ks) {
    const std::string algorithm = "top_k_k" + std::to_string(k);
    for (std::int64_t n : row_sizes) {
      if (static_cast<std::int64_t>(k) > n) continue;
      for (impl which : top_k_implementations) {
        const bool on_gpu = which != impl::cpu;
        if (on_gpu && !gpu) continue;
        if (!on_gpu && n > (std::int64_t{1} << 20)) continue;
        for (cache c : cache_modes(traffic_of<T>(n, k), on_gpu)) {
          register_row<T>(row_name(algorithm, type, std::string(name(which)), n, c), n, k, on_gpu, false, c,
                          [=](arrays<T>& a) { a.call(which, k); });
        }
      }
      if (!gpu) continue;
      for (cache c : cache_modes(traffic_of<T>(n, k))) {
        register_row<T>(row_name(algorithm, type, "cub_bare", n, c), n, k, true, true, c,
                        [=](arrays<T>& a) { a.call_cub_bare(k); });
        if constexpr (std::is_same_v<T, float>) {  // the lesson's stage 2, which raw passes for k <= 128
          register_row<T>(row_name(algorithm, type, "radix_select", n, c), n, k, true, false, c, [=](arrays<T>& a) {
            prism::top_k(top_k_stage::radix_select, par, a.the_x(), k, a.the_values(k), a.the_indices(k));
          });
        }
      }
    }
  }
}

template <class T>
void register_segment_rows(bool gpu) {
  const std::string type = type_name<T>();
  if (!gpu || !type_selected(type, {"float"})) return;
  constexpr std::size_t seg = 1024, k = 8;
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 28}) {
    const traffic bytes = traffic_of<T>(n, static_cast<std::size_t>(n) / seg * k);
    for (impl which : top_k_implementations) {
      if (which == impl::cpu) continue;
      for (cache c : cache_modes(bytes)) {
        const std::string row = row_name("top_k_segments_seg1024_k8", type, std::string(name(which)), n, c);
        configure(benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
          auto& a = row_arrays<segment_arrays<T>>(std::to_string(n), static_cast<std::size_t>(n), seg, k);
          time_on_gpu(state, bytes, c, [&] { a.call(which); });
          verify(state, row, [&] {
            poison(a.indices.view(), true);
            a.call(which);
            check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            return a.verify_output();
          });
        }));
      }
    }
  }
}

void register_rows(bool gpu) {
  register_segment_rows<float>(gpu);
  register_type<float>(gpu);
  register_type<double>(gpu);
  register_type<std::int32_t>(gpu);
  register_type<std::uint64_t>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
