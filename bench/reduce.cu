// SPDX-License-Identifier: Apache-2.0
// The reduction family: every implementation of the registry (prism::reduce_implementations,
// and automatic for sum), every stage of the sum's lesson and cuBLAS, against the read ceiling of
// the run (a reduction reads its input and writes one value).
//
// Rows (algorithm/type/implementation/n[/cold|/warm], n = 2^10 ... 2^28 by 4x, float and double):
//   sum/...                 every implementation, automatic, and the lesson: lesson_<stage>
//   product, min, max, minmax, argmin, argmax, count_if, dot, norm1, norm2, norm_inf, mean,
//   variance, stddev/...    every implementation (count_if counts x > 1)
//   dot, norm1, norm2/<type>/cublas/...            cublas<t>dot, <t>asum, <t>nrm2
//   sum_to_host/<type>/<impl>/1024                 a sum returned to the host: wall clock from
//                                                  the call to the value in hand
//   sum_to_host/<type>/thrust_device_reduce/1024   thrust::reduce(thrust::device, ...), as
//                                                  tutorials write it
// The GPU rows deliver their result to device memory, so they time the reduction alone; thrust's
// reductions return to the host whatever they are given, so their rows have no gpu_us. cpu runs
// up to 2^22.
//
// Inputs (harness.hpp): x and y uniform in [0.5, 1.5), so that a lost part of the input shows in
// the sum (product's input is z, uniform in [1 - 2^-10, 1 + 2^-10), whose product stays within
// float's range at every size); in x, for every size n, a largest and a smallest value planted at
// random positions in [n/2, n), so that argmax's and argmin's answers are random positions in the
// second half of each size and no kernel can pass by reading a prefix. After timing, each row
// checks its result against float64 references computed on the host from the same arrays.
#include <prism/reduce.hpp>

#include "harness.hpp"

#include <cublas_v2.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

constexpr std::int64_t largest_size = std::int64_t{1} << 28;
constexpr std::int64_t largest_cpu_size = std::int64_t{1} << 22;

enum class reduction {
  sum, product, min, max, minmax, argmin, argmax, count_if, dot, norm1, norm2, norm_inf, mean, variance, stddev
};
constexpr reduction every_reduction[] = {
    reduction::sum,   reduction::product, reduction::min,   reduction::max,      reduction::minmax,
    reduction::argmin, reduction::argmax, reduction::count_if, reduction::dot,   reduction::norm1,
    reduction::norm2, reduction::norm_inf, reduction::mean, reduction::variance, reduction::stddev};

constexpr const char* name_of(reduction r) {
  constexpr const char* names[] = {"sum",      "product", "min",   "max",   "minmax",   "argmin", "argmax", "count_if",
                                   "dot",      "norm1",   "norm2", "norm_inf", "mean", "variance", "stddev"};
  return names[static_cast<int>(r)];
}

// ---- inputs ------------------------------------------------------------------------------------

// Where size n's planted extremes go: random positions in [n/2, n), the two apart.
std::pair<std::size_t, std::size_t> planted_positions(std::int64_t n) {
  const std::size_t half = static_cast<std::size_t>(n / 2);
  const std::size_t high = half + splitmix64(seed() ^ n ^ 0xA) % half;
  std::size_t low = half + splitmix64(seed() ^ n ^ 0xB) % half;
  if (low == high) low = half + (low - half + 1) % half;
  return {high, low};
}

// x (stream 0, extremes planted), y (stream 1) or product's z (stream 2), of `size` elements on
// the device or the host.
template <class T>
void make_input(span<T> out, int which, bool on_device) {
  const double spread = which == 2 ? 0x1.0p-10 : 0.5;
  generate(out, distribution{static_cast<std::uint64_t>(which), 1 - spread, 1 + spread}, on_device);
  if (which != 0) return;
  int k = 0;
  for (std::int64_t n : sizes()) {
    if (static_cast<std::size_t>(n) > out.size()) break;
    const auto [high, low] = planted_positions(n);
    // Each size's extremes beyond the smaller sizes': the largest and smallest of its prefix.
    const T values[2] = {from_double<T>(2.0 + k), from_double<T>(0.4 - 0.03 * k)};
    for (int e = 0; e < 2; ++e) {
      T* at = out.data() + (e == 0 ? high : low);
      if (on_device) {
        check(cudaMemcpy(at, &values[e], sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
      } else {
        *at = values[e];
      }
    }
    ++k;
  }
}

template <class T>
span<const T> input(int which, std::int64_t n, bool on_device) {
  static std::map<int, device_buffer<T>> on_gpu;
  static std::map<int, std::vector<T>> on_cpu;
  if (on_device) {
    auto [it, made] = on_gpu.try_emplace(which);
    if (made) {
      it->second = device_buffer<T>(largest_size);
      make_input(it->second.view(), which, true);
    }
    return it->second.view().subspan(0, static_cast<std::size_t>(n));
  }
  auto [it, made] = on_cpu.try_emplace(which);
  if (made) {
    it->second.resize(largest_cpu_size);
    make_input(span<T>(it->second), which, false);
  }
  return span<const T>(it->second).subspan(0, static_cast<std::size_t>(n));
}

// ---- float64 references ------------------------------------------------------------------------

struct reference {
  double sum, abs_sum, min, max, dot, sum_squares, variance, product;
  std::size_t argmin, argmax, count_above_one, n;
};

// The references of every size in one pass over the largest arrays (each size is a prefix).
template <class T>
std::map<std::int64_t, reference> references_of(const T* x, const T* y, const T* z, std::int64_t largest) {
  std::map<std::int64_t, reference> refs;
  double sum = 0, abs_sum = 0, squares = 0, dot = 0, product = 1;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  std::size_t argmin = 0, argmax = 0, above = 0;
  const std::vector<std::int64_t> all = sizes();
  auto next = all.begin();
  for (std::int64_t i = 0; i < largest && next != all.end(); ++i) {
    const double v = to_double(x[i]), w = to_double(y[i]);
    sum += v;
    abs_sum += std::fabs(v);
    squares += v * v;
    dot += v * w;
    product *= to_double(z[i]);
    above += v > 1.0;
    if (v < low) low = v, argmin = static_cast<std::size_t>(i);
    if (v > high) high = v, argmax = static_cast<std::size_t>(i);
    if (i + 1 == *next) {
      const double mean = sum / static_cast<double>(i + 1);
      refs[i + 1] = {sum,     abs_sum, low,    high,   dot,  squares, squares / static_cast<double>(i + 1) - mean * mean,
                     product, argmin,  argmax, above,   static_cast<std::size_t>(i + 1)};
      ++next;
    }
  }
  return refs;
}

// The references for the device arrays (copied back once) or the host ones.
template <class T>
const reference& reference_for(std::int64_t n, bool on_device) {
  static std::map<bool, std::map<std::int64_t, reference>> cache;
  auto [it, made] = cache.try_emplace(on_device);
  if (made) {
    const std::int64_t largest = on_device ? largest_size : largest_cpu_size;
    if (on_device) {
      std::vector<T> x(largest), y(largest), z(largest);
      check(cudaMemcpy(x.data(), input<T>(0, largest, true).data(), largest * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
      check(cudaMemcpy(y.data(), input<T>(1, largest, true).data(), largest * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
      check(cudaMemcpy(z.data(), input<T>(2, largest, true).data(), largest * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
      it->second = references_of(x.data(), y.data(), z.data(), largest);
    } else {
      it->second = references_of(input<T>(0, largest, false).data(), input<T>(1, largest, false).data(),
                                 input<T>(2, largest, false).data(), largest);
    }
  }
  return it->second.at(n);
}

// The result against the reference: sums within a relative tolerance of the sum of magnitudes,
// extremes and indices exactly. The GPU implementations add a few thousand elements per thread at
// most; cpu adds a whole share per OpenMP thread in T (2^21 floats on two cores: 1e-3 off for
// float variance), so its tolerance is ten times wider.
// A product's rounding errors add up like a random walk over its n factors (about sqrt(n / 3)
// units of roundoff), plus a drift: partial products start at 1 and stay near it, where rounding
// to nearest is biased (float: 1.7e-3 at 2^24 and 7e-2 at 2^28 in CUB's order, against float64).
// It is allowed 8 sqrt(n) units, or n / 32 where more: half the product at 2^28 in float, which
// still tells a product with a tenth of its factors left out (about 70 times too large at 2^28).
// minmax's second value is the max.
template <class T>
std::string judge(reduction r, const reference& ref, std::pair<double, double> got, bool on_device) {
  const double wider = on_device ? 1 : 10;
  const bool single = sizeof(T) == 4;
  const double tolerance = (single ? 1e-4 : 1e-10) * wider;
  const double variance_tolerance = (single ? 1e-3 : 1e-9) * wider;
  const double n = static_cast<double>(ref.n);
  const double product_tolerance = std::max(8 * std::sqrt(n), n / 32) * (single ? 0x1.0p-24 : 0x1.0p-53);
  const double low = to_double(from_double<T>(ref.min)), high = to_double(from_double<T>(ref.max));
  double want = 0, scale = 0;
  switch (r) {
    case reduction::sum: want = ref.sum, scale = tolerance * ref.abs_sum; break;
    case reduction::product: want = ref.product, scale = product_tolerance * ref.product; break;
    case reduction::min: want = low; break;
    case reduction::max: want = high; break;
    case reduction::minmax:
      want = low;
      if (got.second != high)
        return "minmax's max = " + describe(got.second) + ", expected " + describe(high);
      break;
    case reduction::argmin: want = static_cast<double>(ref.argmin); break;
    case reduction::argmax: want = static_cast<double>(ref.argmax); break;
    case reduction::count_if: want = static_cast<double>(ref.count_above_one); break;
    case reduction::dot: want = ref.dot, scale = tolerance * ref.dot; break;
    case reduction::norm1: want = ref.abs_sum, scale = tolerance * ref.abs_sum; break;
    case reduction::norm2: want = std::sqrt(ref.sum_squares), scale = tolerance * want; break;
    case reduction::norm_inf: want = high; break;  // every input is positive
    case reduction::mean: want = ref.sum / n, scale = tolerance * ref.abs_sum / n; break;
    case reduction::variance: want = ref.variance, scale = variance_tolerance * ref.variance; break;
    case reduction::stddev: want = std::sqrt(ref.variance), scale = variance_tolerance * want; break;
  }
  if (close(got.first, want, 0, scale)) return "";
  return std::string(name_of(r)) + " = " + describe(got.first) + ", expected " + describe(want) +
         " (tolerance " + describe(scale) + ")";
}

// ---- calls -------------------------------------------------------------------------------------

// One call of reduction r, its result into `result` (8 bytes of device memory, host for cpu).
template <class T>
void reduce_once(reduction r, const execution_policy& policy, span<const T> x, span<const T> y,
                 void* result) {
  const span<T> value(static_cast<T*>(result), 1);
  const span<std::size_t> index(static_cast<std::size_t*>(result), 1);
  switch (r) {
    case reduction::sum: sum(policy, x, value); break;
    case reduction::product: product(policy, y, value); break;  // y is product's z here (register_row)
    case reduction::min: min(policy, x, value); break;
    case reduction::max: max(policy, x, value); break;
    case reduction::minmax: minmax(policy, x, span<minmax_result<T>>(static_cast<minmax_result<T>*>(result), 1)); break;
    case reduction::argmin: argmin(policy, x, index); break;
    case reduction::argmax: argmax(policy, x, index); break;
    case reduction::count_if:
      count_if(policy, x, comparison::greater, T(1), span<std::uint64_t>(static_cast<std::uint64_t*>(result), 1));
      break;
    case reduction::dot: dot(policy, x, y, value); break;
    case reduction::norm1: norm1(policy, x, value); break;
    case reduction::norm2: norm2(policy, x, value); break;
    case reduction::norm_inf: norm_inf(policy, x, value); break;
    case reduction::mean: mean(policy, x, value); break;
    case reduction::variance: variance(policy, x, value); break;
    case reduction::stddev: stddev(policy, x, value); break;
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

// ---- rows --------------------------------------------------------------------------------------

template <class T>
using reducer = std::function<void(span<const T> x, span<const T> y, void* result)>;

// Reads the result (and perturbs it first under PRISM_BENCH_BREAK) as doubles: the value, and
// minmax's max second.
template <class T>
std::pair<double, double> read_result(reduction r, void* result, bool on_device) {
  const auto read = [&](auto* p, int k) {
    if (break_requested()) perturb(p, k, on_device);
    std::remove_pointer_t<decltype(p)> v{};
    if (on_device) {
      check(cudaMemcpy(&v, p + k, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy");
    } else {
      v = p[k];
    }
    return to_double(v);
  };
  if (r == reduction::argmin || r == reduction::argmax) return {read(static_cast<std::size_t*>(result), 0), 0};
  if (r == reduction::count_if) return {read(static_cast<std::uint64_t*>(result), 0), 0};
  if (r == reduction::minmax) return {read(static_cast<T*>(result), 0), read(static_cast<T*>(result), 1)};
  return {read(static_cast<T*>(result), 0), 0};
}

template <class T>
void register_row(reduction r, const std::string& row, bool on_gpu, std::int64_t n, cache c,
                  reducer<T> call) {
  const traffic bytes{(r == reduction::dot ? 2.0 : 1.0) * static_cast<double>(n) * sizeof(T), 0};
  configure(benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
              const span<const T> x = input<T>(0, n, on_gpu), y = input<T>(r == reduction::product ? 2 : 1, n, on_gpu);
              device_buffer<double> device_result(on_gpu ? 2 : 0);  // room for minmax of double
              double host_result[2] = {};
              void* result = on_gpu ? static_cast<void*>(device_result.data()) : host_result;
              if (on_gpu) {
                time_on_gpu(state, bytes, c, [&] { call(x, y, result); });
              } else {
                time_on_host(state, bytes, [&] { call(x, y, result); });
              }
              verify(state, row, [&] {
                poison(span<double>(static_cast<double*>(result), 2), on_gpu);
                call(x, y, result);
                if (on_gpu) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                return judge<T>(r, reference_for<T>(n, on_gpu), read_result<T>(r, result, on_gpu), on_gpu);
              });
            }),
            bytes, on_gpu);
}

template <class T>
void register_reduction(reduction r, bool gpu) {
  const std::string type = type_name<T>(), algorithm = name_of(r);
  const bool blas = r == reduction::dot || r == reduction::norm1 || r == reduction::norm2;
  for (std::int64_t n : sizes()) {
    const traffic bytes{(r == reduction::dot ? 2.0 : 1.0) * static_cast<double>(n) * sizeof(T), 0};
    // The GPU rows of one size and cache next to each other in time: they are compared.
    for (cache c : gpu ? cache_modes(bytes) : std::vector<cache>{}) {
      for (impl which : reduce_implementations) {
        if (which == impl::cpu) continue;
        register_row<T>(r, row_name(algorithm, type, std::string(name(which)), n, c), true, n, c,
                        [=](span<const T> x, span<const T> y, void* out) { reduce_once<T>(r, par.with(which), x, y, out); });
      }
      if (r == reduction::sum) {
        register_row<T>(r, row_name(algorithm, type, "automatic", n, c), true, n, c,
                        [=](span<const T> x, span<const T> y, void* out) { reduce_once<T>(r, par, x, y, out); });
        for (reduce_stage stage : reduce_lesson) {
          register_row<T>(r, row_name(algorithm, type, "lesson_" + std::string(name(stage)), n, c), true, n, c,
                          [=](span<const T> x, span<const T>, void* out) {
                            sum(stage, par, x, span<T>(static_cast<T*>(out), 1));
                          });
        }
      }
      if (blas) {
        register_row<T>(r, row_name(algorithm, type, "cublas", n, c), true, n, c,
                        [=](span<const T> x, span<const T> y, void* out) {
                          cublas_once<T>(r, x.data(), y.data(), static_cast<T*>(out), static_cast<int>(x.size()));
                        });
      }
    }
    if (n <= largest_cpu_size) {
      register_row<T>(r, row_name(algorithm, type, "cpu", n), false, n, cache::none,
                      [=](span<const T> x, span<const T> y, void* out) { reduce_once<T>(r, par.with(impl::cpu), x, y, out); });
    }
  }
}

// What a caller waits for a small sum to come back: wall clock from the call to the value in hand.
template <class T>
void register_sum_to_host(bool gpu) {
  const std::string type = type_name<T>();
  constexpr std::int64_t n = 1024;
  const traffic bytes{n * sizeof(T), 0};
  const auto row = [&](const std::string& implementation, bool on_gpu, cache c, std::function<T(span<const T>)> call) {
    const std::string name = row_name("sum_to_host", type, implementation, n, c);
    configure(benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
                const span<const T> x = input<T>(0, n, on_gpu);
                time_on_host(state, bytes, [&] { benchmark::DoNotOptimize(call(x)); }, c);
                verify(state, name, [&] {
                  T value = call(x);
                  if (break_requested()) perturb(&value, 0, false);
                  return judge<T>(reduction::sum, reference_for<T>(n, on_gpu), {to_double(value), 0}, on_gpu);
                });
              }),
              bytes, on_gpu);
  };
  for (cache c : gpu ? cache_modes(bytes) : std::vector<cache>{}) {
    for (impl which : reduce_implementations) {
      if (which != impl::cpu) row(std::string(name(which)), true, c, [=](span<const T> x) { return sum(par.with(which), x); });
    }
    row("thrust_device_reduce", true, c, [](span<const T> x) {
      return thrust::reduce(thrust::device, x.data(), x.data() + x.size(), T(0));
    });
  }
  row("cpu", false, cache::none, [](span<const T> x) { return sum(par.with(impl::cpu), x); });
}

template <class T>
void register_type(bool gpu) {
  for (reduction r : every_reduction) register_reduction<T>(r, gpu);
  register_sum_to_host<T>(gpu);
}

void register_rows(bool gpu) {
  const auto defaults = {std::string_view("float"), std::string_view("double")};
  if (type_selected("float", defaults)) register_type<float>(gpu);
  if (type_selected("double", defaults)) register_type<double>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
