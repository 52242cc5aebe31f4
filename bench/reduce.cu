// SPDX-License-Identifier: Apache-2.0
// The reduction family: every implementation side by side with the copy ceiling and the peers.
//
// Rows (algorithm/type/implementation/n, n = 2^10 ... 2^28 by 4x, float and double):
//   sum/...            every implementation of sum, and every stage of its lesson (lesson_<stage>)
//   min, argmax, dot, norm1, norm2, variance/...   every implementation of the reduction family
//   dot, norm1, norm2/<type>/cublas/...    cublas<t>dot, <t>asum, <t>nrm2 (result to device memory)
//   copy/<type>/cudaMemcpy/...             the device-to-device copy ceiling of this run
//   sum_to_host/<type>/<impl>/1024         latency of a sum returned to the host (wall clock)
//   sum_to_host/<type>/thrust_device_reduce/1024   thrust::reduce(thrust::device, ...), as
//                                          tutorials write it: allocates, synchronizes, copies.
// The GPU rows deliver their result to device memory, so they time the reduction alone; bytes
// are the input's (n * sizeof(T), twice that for dot). `automatic` is not timed: it is raw, which measured fastest.
#include <prism/reduce.hpp>

#include "harness.hpp"

#include <cublas_v2.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <string>
#include <vector>

namespace prism::bench {
namespace {

enum class reduction { sum, min, argmax, dot, norm1, norm2, variance };

constexpr const char* name_of(reduction r) {
  switch (r) {
    case reduction::sum: return "sum";
    case reduction::min: return "min";
    case reduction::argmax: return "argmax";
    case reduction::dot: return "dot";
    case reduction::norm1: return "norm1";
    case reduction::norm2: return "norm2";
    case reduction::variance: return "variance";
  }
  return "";
}

// One call of reduction r, its result into `result` (8 bytes of device memory, host for cpu).
template <class T>
void reduce_once(reduction r, span<const T> x, span<const T> y, void* result, impl which) {
  const span<T> value(static_cast<T*>(result), 1);
  switch (r) {
    case reduction::sum: sum(par.with(which), x, value); break;
    case reduction::min: min(par.with(which), x, value); break;
    case reduction::argmax:
      argmax(par.with(which), x, span<std::size_t>(static_cast<std::size_t*>(result), 1));
      break;
    case reduction::dot: dot(par.with(which), x, y, value); break;
    case reduction::norm1: norm1(par.with(which), x, value); break;
    case reduction::norm2: norm2(par.with(which), x, value); break;
    case reduction::variance: variance(par.with(which), x, value); break;
  }
}

// Rows are short: 3 repetitions of at least 0.03 s keep the suite's whole run within minutes.
benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b) {
  return configure(b)->MinTime(0.03)->Repetitions(3);
}

// The second input only for dot: every row allocates and fills its own arrays.
template <class T>
struct inputs {
  inputs(std::size_t n, reduction r) : x(n), y(r == reduction::dot ? n : 0), result(1) {
    check(cudaMemset(x.data(), 0x3C, n * sizeof(T)), "cudaMemset");
    if (y.size() > 0) check(cudaMemset(y.data(), 0x3D, y.size() * sizeof(T)), "cudaMemset");
  }
  device_buffer<T> x, y;
  device_buffer<double> result;
};

template <class T>
void register_reduction(reduction r, std::span<const impl> implementations, bool gpu) {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = (r == reduction::dot ? 2.0 : 1.0) * n * sizeof(T);
    for (impl which : implementations) {
      if (which == impl::automatic) continue;
      const bool on_gpu = which != impl::cpu;
      if (on_gpu && !gpu) continue;
      short_rows(benchmark::RegisterBenchmark(
          row_name(name_of(r), type, std::string(name(which)), n).c_str(),
          [=](benchmark::State& state) {
            if (on_gpu) {
              inputs<T> in(n, r);
              time_on_gpu(state, nullptr, bytes, [&] {
                reduce_once<T>(r, in.x.view(), in.y.view(), in.result.data(), which);
              });
              relate_to_ceiling(state);
            } else {
              std::vector<T> x(n, T(1)), y(r == reduction::dot ? n : 0, T(2));
              double result = 0;
              time_on_host(state, bytes, [&] { reduce_once<T>(r, x, y, &result, which); });
            }
          }));
    }
  }
}

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}

// One cuBLAS handle for the run, on the default stream, results to device memory (asynchronous,
// like the prism rows).
cublasHandle_t cublas() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t h;
    check_cublas(cublasCreate(&h), "cublasCreate");
    check_cublas(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
    return h;
  }();
  return handle;
}

// cuBLAS counts in int: every size here fits.
template <class T>
void cublas_once(reduction r, const T* x, const T* y, T* result, int n) {
  if constexpr (std::is_same_v<T, float>) {
    if (r == reduction::dot) check_cublas(cublasSdot(cublas(), n, x, 1, y, 1, result), "cublasSdot");
    if (r == reduction::norm1) check_cublas(cublasSasum(cublas(), n, x, 1, result), "cublasSasum");
    if (r == reduction::norm2) check_cublas(cublasSnrm2(cublas(), n, x, 1, result), "cublasSnrm2");
  } else {
    if (r == reduction::dot) check_cublas(cublasDdot(cublas(), n, x, 1, y, 1, result), "cublasDdot");
    if (r == reduction::norm1) check_cublas(cublasDasum(cublas(), n, x, 1, result), "cublasDasum");
    if (r == reduction::norm2) check_cublas(cublasDnrm2(cublas(), n, x, 1, result), "cublasDnrm2");
  }
}

template <class T>
void register_cublas(reduction r) {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = (r == reduction::dot ? 2.0 : 1.0) * n * sizeof(T);
    short_rows(benchmark::RegisterBenchmark(row_name(name_of(r), type, "cublas", n).c_str(),
                                            [=](benchmark::State& state) {
                                              inputs<T> in(n, r);
                                              auto* result = reinterpret_cast<T*>(in.result.data());
                                              time_on_gpu(state, nullptr, bytes, [&] {
                                                cublas_once<T>(r, in.x.data(), in.y.data(), result,
                                                               static_cast<int>(n));
                                              });
                                              relate_to_ceiling(state);
                                            }));
  }
}

// What a caller waits for a small sum to come back: wall clock per call, from the call to the
// value in hand.
template <class T>
void register_latency(bool gpu) {
  const std::string type = type_name<T>();
  constexpr std::int64_t n = 1024;
  for (impl which : reduce_implementations) {
    const bool on_gpu = which != impl::cpu;
    if (on_gpu && !gpu) continue;
    short_rows(benchmark::RegisterBenchmark(
        row_name("sum_to_host", type, std::string(name(which)), n).c_str(),
        [=](benchmark::State& state) {
          if (on_gpu) {
            inputs<T> in(n, reduction::sum);
            time_on_host(state, n * sizeof(T), [&] {
              benchmark::DoNotOptimize(sum(par.with(which), in.x.view()));
            });
          } else {
            std::vector<T> x(n, T(1));
            time_on_host(state, n * sizeof(T), [&] { benchmark::DoNotOptimize(sum(par.with(which), x)); });
          }
        }));
  }
  if (!gpu) return;
  short_rows(benchmark::RegisterBenchmark(
      row_name("sum_to_host", type, "thrust_device_reduce", n).c_str(), [=](benchmark::State& state) {
        inputs<T> in(n, reduction::sum);
        time_on_host(state, n * sizeof(T), [&] {
          benchmark::DoNotOptimize(thrust::reduce(thrust::device, in.x.data(), in.x.data() + n, T(0)));
        });
      }));
}

// The stages of the sum's lesson, timed like the implementations.
template <class T>
void register_sum_lesson() {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    for (reduce_stage stage : reduce_lesson) {
      short_rows(benchmark::RegisterBenchmark(
          row_name("sum", type, "lesson_" + std::string(name(stage)), n).c_str(),
          [=](benchmark::State& state) {
            inputs<T> in(n, reduction::sum);
            const span<T> value(reinterpret_cast<T*>(in.result.data()), 1);
            time_on_gpu(state, nullptr, n * sizeof(T), [&] { sum(stage, par, in.x.view(), value); });
            relate_to_ceiling(state);
          }));
    }
  }
}

template <class T>
void register_type(bool gpu) {
  if (gpu) register_sum_lesson<T>();
  for (reduction r : {reduction::sum, reduction::min, reduction::argmax, reduction::dot, reduction::norm1,
                      reduction::norm2, reduction::variance}) {
    register_reduction<T>(r, reduce_implementations, gpu);
  }
  if (gpu) {
    for (reduction r : {reduction::dot, reduction::norm1, reduction::norm2}) register_cublas<T>(r);
  }
  register_latency<T>(gpu);
}

void register_rows(bool gpu) {
  if (gpu) {
    register_copy_rows<float>("float");
    register_copy_rows<double>("double");
  }
  register_type<float>(gpu);
  register_type<double>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
