// SPDX-License-Identifier: Apache-2.0
// The element-wise family, every implementation side by side with the copy ceiling.
//
// Rows: <operation>/<type>/<implementation>/<n> for every operation of the family, for float,
// half and double (cast rows convert float -> half, half -> float and double -> float and are
// named by the source type), n = 2^10 ... 2^28 by 4x, and every implementation of the registry:
// the GPU ones at every size; cpu up to 2^22, where its time is still a fraction of a second;
// automatic on add only (it is raw for every operation, so its other rows would repeat raw's).
//
// Besides the registry's implementations, two reference rows per size for float and double add:
//   thrust_device_sync  thrust::transform(thrust::device, ...), as tutorials call it: the policy
//                       synchronizes the stream after every call, which costs latency.
//   raw_grid_stride     the tuned kernel's alternative design: a grid-stride loop over one
//                       float4-sized vector per step with 8 blocks per SM, instead of one tile per
//                       block. Measured here to justify the choice made in transform.cuh.
//
// Timing: 3 repetitions of at least 5 ms of GPU time each (the median is what docs/ quote).
// With ~3,700 rows the whole suite runs in about 4 minutes on an H200; --benchmark_filter picks a
// subset (e.g. '^(add|exp)/float/').
#include <prism/elementwise.hpp>
#include <prism/transform.cuh>

#include "harness.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <functional>
#include <map>

namespace prism::bench {
namespace {

constexpr std::int64_t largest_cpu_size = std::int64_t{1} << 22;

// The grid-stride alternative to detail::transform_vector_kernel (for aligned data of a
// multiple of V elements, which is what the benchmark passes).
template <int V, class F, class T>
__global__ void add_grid_stride_kernel(F f, T* out, std::size_t vectors, const T* a, const T* b) {
  using vec = detail::vector_of<T, V>;
  for (std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; t < vectors;
       t += std::size_t{gridDim.x} * blockDim.x) {
    const vec x = reinterpret_cast<const vec*>(a)[t], y = reinterpret_cast<const vec*>(b)[t];
    vec r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.element[k] = f(x.element[k], y.element[k]);
    reinterpret_cast<vec*>(out)[t] = r;
  }
}

// Device arrays shared by every row: `slot` k of type T holds 2^28 elements, allocated and filled
// once (positive values near 1, which every operation accepts), so a row costs only its timing.
template <class T>
span<T> device_array(int slot, std::int64_t n) {
  static std::map<int, device_buffer<T>> arrays;
  auto [it, made] = arrays.try_emplace(slot);
  if (made) {
    const std::size_t largest = std::size_t{1} << 28;
    it->second = device_buffer<T>(largest);
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      check(cudaMemset(it->second.data(), 1, largest), "cudaMemset");  // a mask: all true
    } else {
      fill(it->second, static_cast<scalar<T>>(0.75 + 0.0625 * slot));
    }
  }
  return it->second.view().subspan(0, static_cast<std::size_t>(n));
}

// Host arrays for the cpu rows, likewise shared.
template <class T>
std::span<T> host_array(int slot, std::int64_t n) {
  static std::map<int, std::vector<T>> arrays;
  auto [it, made] = arrays.try_emplace(slot);
  if (made) it->second.assign(largest_cpu_size, static_cast<T>(0.75 + 0.0625 * slot));
  return {it->second.data(), static_cast<std::size_t>(n)};
}

// Where the arrays of one call live: on the device, or on the host for impl::cpu.
template <class T>
span<T> array_for(impl which, int slot, std::int64_t n) {
  if (which == impl::cpu) {
    const auto h = host_array<T>(slot, n);
    return {h.data(), h.size()};
  }
  return device_array<T>(slot, n);
}

// One operation: its name, the bytes it must move per element, and one call on arrays of n.
template <class T>
struct operation {
  const char* name;
  double bytes_per_element;
  std::function<void(impl, std::int64_t)> call;
};

template <class T>
std::vector<operation<T>> operations() {
  const double s = sizeof(T);
  // Inputs in slots 0, 1, 2; the output in slot 3.
  const auto in = [](impl w, int k, std::int64_t n) { return span<const T>(array_for<T>(w, k, n)); };
  const auto out = [](impl w, std::int64_t n) { return array_for<T>(w, 3, n); };
  std::vector<operation<T>> all = {
      {"add", 3 * s, [=](impl w, std::int64_t n) { add(par.with(w), in(w, 0, n), in(w, 1, n), out(w, n)); }},
      {"sub", 3 * s, [=](impl w, std::int64_t n) { sub(par.with(w), in(w, 0, n), in(w, 1, n), out(w, n)); }},
      {"mul", 3 * s, [=](impl w, std::int64_t n) { mul(par.with(w), in(w, 0, n), in(w, 1, n), out(w, n)); }},
      {"div", 3 * s, [=](impl w, std::int64_t n) { div(par.with(w), in(w, 0, n), in(w, 1, n), out(w, n)); }},
      {"min", 3 * s, [=](impl w, std::int64_t n) { min(par.with(w), in(w, 0, n), in(w, 1, n), out(w, n)); }},
      {"max", 3 * s, [=](impl w, std::int64_t n) { max(par.with(w), in(w, 0, n), in(w, 1, n), out(w, n)); }},
      // axpy updates y in place: read x and y, write y.
      {"axpy", 3 * s, [=](impl w, std::int64_t n) { axpy(par.with(w), 2, in(w, 0, n), out(w, n)); }},
      {"axpby", 3 * s, [=](impl w, std::int64_t n) { axpby(par.with(w), 2, in(w, 0, n), -1, in(w, 1, n), out(w, n)); }},
      {"fma", 4 * s, [=](impl w, std::int64_t n) { fma(par.with(w), in(w, 0, n), in(w, 1, n), in(w, 2, n), out(w, n)); }},
      {"where", 3 * s + 1, [=](impl w, std::int64_t n) {
         const span<const std::uint8_t> mask = array_for<std::uint8_t>(w, 0, n);
         where(par.with(w), mask, in(w, 0, n), in(w, 1, n), out(w, n));
       }},
      {"negate", 2 * s, [=](impl w, std::int64_t n) { negate(par.with(w), in(w, 0, n), out(w, n)); }},
      {"abs", 2 * s, [=](impl w, std::int64_t n) { abs(par.with(w), in(w, 0, n), out(w, n)); }},
      {"square", 2 * s, [=](impl w, std::int64_t n) { square(par.with(w), in(w, 0, n), out(w, n)); }},
      {"sqrt", 2 * s, [=](impl w, std::int64_t n) { sqrt(par.with(w), in(w, 0, n), out(w, n)); }},
      {"rsqrt", 2 * s, [=](impl w, std::int64_t n) { rsqrt(par.with(w), in(w, 0, n), out(w, n)); }},
      {"exp", 2 * s, [=](impl w, std::int64_t n) { exp(par.with(w), in(w, 0, n), out(w, n)); }},
      {"log", 2 * s, [=](impl w, std::int64_t n) { log(par.with(w), in(w, 0, n), out(w, n)); }},
      {"sin", 2 * s, [=](impl w, std::int64_t n) { sin(par.with(w), in(w, 0, n), out(w, n)); }},
      {"cos", 2 * s, [=](impl w, std::int64_t n) { cos(par.with(w), in(w, 0, n), out(w, n)); }},
      {"tanh", 2 * s, [=](impl w, std::int64_t n) { tanh(par.with(w), in(w, 0, n), out(w, n)); }},
      {"sigmoid", 2 * s, [=](impl w, std::int64_t n) { sigmoid(par.with(w), in(w, 0, n), out(w, n)); }},
      {"relu", 2 * s, [=](impl w, std::int64_t n) { relu(par.with(w), in(w, 0, n), out(w, n)); }},
      {"scale", 2 * s, [=](impl w, std::int64_t n) { scale(par.with(w), 3, in(w, 0, n), out(w, n)); }},
      {"clamp", 2 * s, [=](impl w, std::int64_t n) { clamp(par.with(w), in(w, 0, n), out(w, n), 0.8f, 0.9f); }},
      {"copy", 2 * s, [=](impl w, std::int64_t n) { copy(par.with(w), in(w, 0, n), out(w, n)); }},
      {"fill", s, [=](impl w, std::int64_t n) { fill(par.with(w), out(w, n), 1); }},
      {"sequence", s, [=](impl w, std::int64_t n) { sequence(par.with(w), out(w, n), 0, 1); }},
  };
  // Conversion: float -> half, and half or double -> float.
  using To = std::conditional_t<std::is_same_v<T, float>, __half, float>;
  all.push_back({"cast", s + sizeof(To), [=](impl w, std::int64_t n) {
                   cast(par.with(w), in(w, 0, n), array_for<To>(w, 4, n));
                 }});
  return all;
}

template <class T>
void register_operations(bool gpu) {
  const std::string type = type_name<T>();
  for (const operation<T>& op : operations<T>()) {
    for (std::int64_t n : sizes()) {
      for (impl which : {impl::cpu, impl::thrust, impl::raw_naive, impl::raw, impl::cub, impl::automatic}) {
        const bool on_gpu = which != impl::cpu;
        if (on_gpu && !gpu) continue;
        if (!on_gpu && n > largest_cpu_size) continue;
        if (which == impl::automatic && std::string(op.name) != "add") continue;
        const double bytes = op.bytes_per_element * static_cast<double>(n);
        configure(benchmark::RegisterBenchmark(
                      row_name(op.name, type, std::string(name(which)), n).c_str(),
                      [=, call = op.call](benchmark::State& state) {
                        if (on_gpu) {
                          time_on_gpu(state, nullptr, bytes, [&] { call(which, n); });
                          relate_to_ceiling(state);
                        } else {
                          time_on_host(state, bytes, [&] { call(which, n); });
                        }
                      }))
            ->Repetitions(3)
            ->MinTime(0.005);
      }
    }
  }
}

template <class T>
void register_add_references() {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = 3.0 * n * sizeof(T);  // read a and b, write out
    configure(benchmark::RegisterBenchmark(
                  row_name("add", type, "thrust_device_sync", n).c_str(),
                  [=](benchmark::State& state) {
                    const T* a = device_array<T>(0, n).data();
                    const T* b = device_array<T>(1, n).data();
                    T* out = device_array<T>(3, n).data();
                    time_on_gpu(state, nullptr, bytes, [&] {
                      thrust::transform(thrust::device, a, a + n, b, out, thrust::plus<T>{});
                    });
                    relate_to_ceiling(state);
                  }))
        ->Repetitions(3)
        ->MinTime(0.005);
    configure(benchmark::RegisterBenchmark(
                  row_name("add", type, "raw_grid_stride", n).c_str(),
                  [=](benchmark::State& state) {
                    const T* a = device_array<T>(0, n).data();
                    const T* b = device_array<T>(1, n).data();
                    T* out = device_array<T>(3, n).data();
                    constexpr int V = 16 / sizeof(T);
                    const std::size_t vectors = n / V;
                    const unsigned blocks = static_cast<unsigned>(
                        std::min<std::size_t>(8 * detail::multiprocessor_count(), (vectors + 255) / 256));
                    time_on_gpu(state, nullptr, bytes, [&] {
                      add_grid_stride_kernel<V><<<blocks, 256>>>(thrust::plus<T>{}, out, vectors,
                                                                  a, b);
                      check(cudaGetLastError(), "add_grid_stride_kernel launch");
                    });
                    relate_to_ceiling(state);
                  }))
        ->Repetitions(3)
        ->MinTime(0.005);
  }
}

void register_rows(bool gpu) {
  if (gpu) {
    register_copy_rows<float>("float", 0.005);
    register_copy_rows<__half>("half", 0.005);
    register_copy_rows<double>("double", 0.005);
    register_add_references<float>();
    register_add_references<double>();
  }
  register_operations<float>(gpu);
  register_operations<__half>(gpu);
  register_operations<double>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
