// The element-wise family, every implementation side by side with the copy ceiling.
//
// Besides the registry's implementations, two reference rows per size:
//   thrust_device_sync  thrust::transform(thrust::device, ...), as tutorials call it: the policy
//                       synchronizes the stream after every call, which costs latency.
//   raw_grid_stride     the tuned kernel's alternative design: a grid-stride loop over one
//                       float4-sized vector per step with 8 blocks per SM, instead of one tile per
//                       block. Measured here to justify the choice made in transform.cuh.
#include <prism/elementwise.hpp>
#include <prism/transform.cuh>

#include "harness.hpp"

#include <thrust/execution_policy.h>

#include <thrust/functional.h>

namespace prism::bench {
namespace {

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
}

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

// Device inputs a, b and output out of n random-ish elements (their values do not change speed).
template <class T>
struct operands {
  explicit operands(std::size_t n) : a(n), b(n), out(n) {
    check(cudaMemset(a.data(), 0x3C, n * sizeof(T)), "cudaMemset");
    check(cudaMemset(b.data(), 0x3D, n * sizeof(T)), "cudaMemset");
  }
  device_buffer<T> a, b, out;
};

template <class T>
void register_add(bool gpu) {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = 3.0 * n * sizeof(T);  // read a and b, write out
    for (impl which : elementwise_implementations()) {
      const bool on_gpu = memory_of(which) == memory::device;
      if (on_gpu && !gpu) continue;
      configure(benchmark::RegisterBenchmark(
          row_name("add", type, std::string(name(which)), n).c_str(),
          [=](benchmark::State& state) {
            if (on_gpu) {
              operands<T> x(n);
              time_on_gpu(state, nullptr, bytes,
                          [&] { add<T>(x.a.view(), x.b.view(), x.out.view(), nullptr, which); });
              relate_to_ceiling(state);
            } else {
              std::vector<T> a(n, T(1)), b(n, T(2)), out(n);
              time_on_host(state, bytes, [&] { add<T>(a, b, out, nullptr, which); });
            }
          }))->MinTime(on_gpu ? 0.05 : 0.2);
    }
    if (!gpu) continue;
    configure(benchmark::RegisterBenchmark(row_name("add", type, "thrust_device_sync", n).c_str(),
                                [=](benchmark::State& state) {
                                  operands<T> x(n);
                                  time_on_gpu(state, nullptr, bytes, [&] {
                                    thrust::transform(thrust::device, x.a.data(), x.a.data() + n,
                                                      x.b.data(), x.out.data(), thrust::plus<T>{});
                                  });
                                  relate_to_ceiling(state);
                                }))
        ->MinTime(0.05);
    configure(benchmark::RegisterBenchmark(
                  row_name("add", type, "raw_grid_stride", n).c_str(),
                  [=](benchmark::State& state) {
                    operands<T> x(n);
                    constexpr int V = 16 / sizeof(T);
                    int sms = 0;
                    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0),
                          "cudaDeviceGetAttribute");
                    const std::size_t vectors = n / V;
                    const unsigned blocks = static_cast<unsigned>(
                        std::min<std::size_t>(8 * sms, (vectors + 255) / 256));
                    time_on_gpu(state, nullptr, bytes, [&] {
                      add_grid_stride_kernel<V><<<blocks, 256>>>(thrust::plus<T>{}, x.out.data(),
                                                                  vectors, x.a.data(), x.b.data());
                      check(cudaGetLastError(), "add_grid_stride_kernel launch");
                    });
                    relate_to_ceiling(state);
                  }))
        ->MinTime(0.05);
  }
}

void register_rows(bool gpu) {
  if (gpu) {
    register_copy_rows<float>("float");
    register_copy_rows<double>("double");
  }
  register_add<float>(gpu);
  register_add<double>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
