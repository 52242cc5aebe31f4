// SPDX-License-Identifier: Apache-2.0
// The element-wise family: every operation in every implementation of the registry
// (prism::elementwise_implementations, and automatic for add), against the ceilings of the run.
//
// Rows: <operation>/<type>/<implementation>/<n>[/cold|/warm], n = 2^10 ... 2^28 by 4x; the GPU
// implementations at every size, cpu up to 2^22 (its time is still a fraction of a second there).
// Types: float, half and double by default; int32 and bfloat16 too with PRISM_BENCH_TYPES=all
// (scripts/compare.sh sets it). cast rows are named by the source type: float -> half, half,
// bfloat16, int32 -> float, double -> float.
//
// Ceilings: fill and sequence write only (the write ceiling); every other operation reads and
// writes, held against the time its bytes read and written take at the read and write ceilings.
//
// Inputs are random (harness.hpp): a, b, c uniform in [-2, 2) (integers in [-1000, 1000]); a
// positive array in [0.25, 4) (integers in [1, 1000]) for sqrt, rsqrt, log and the divisor of
// div; where's mask is 0 or 1 with equal odds. After timing, each row runs its call once more on
// a poisoned output and checks 64 positions against a float64 host reference. gather reads the
// a array at its largest size at random positions (an int32 map): a random read of memory, not of
// the row's n elements. gather_if does the same where the mask is set (half the positions);
// reverse reads a and writes it mirrored (read+write ceiling, as copy).
//
// Reference rows beside the registry, for float and double add:
//   thrust_device_sync  thrust::transform(thrust::device, ...), as tutorials call it: the policy
//                       synchronizes after every call (so this row has no gpu_us).
//   raw_grid_stride     the tuned kernel's alternative design: a grid-stride loop of 16-byte
//                       vectors over 8 blocks per SM, against raw's one tile per block.
//   copy/<type>/cudaMemcpy   cudaMemcpyAsync device to device, beside the copy operation.
//
// Timing (harness.hpp): 10 repetitions of up to 8 calls each. About 6,400 rows for the default
// types (5,800 on the GPU), estimated at 1.5 to 3 minutes on an H200; --benchmark_filter
// (PRISM_BENCH_FILTER in scripts/gpu-check.sh) picks a subset, e.g. '^(add|exp)/float/'.
#include <prism/elementwise.hpp>
#include <prism/gather.hpp>

#include "harness.hpp"

#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace prism::bench {
namespace {

constexpr std::int64_t largest_size = std::int64_t{1} << 28;
constexpr std::int64_t largest_cpu_size = std::int64_t{1} << 22;

// What cast converts T to: float -> half, every other type -> float.
template <class T>
using cast_target = std::conditional_t<std::is_same_v<T, float>, __half, float>;

// The random arrays every row reads, and the outputs.
enum slot : std::uint64_t { a, b, c, positive, mask, out, cast_out, map };

template <class T>
distribution distribution_of(slot s) {
  if (s == mask) return {s, 0, 2};
  if (s == map) return {s, 0, double(largest_size)};  // positions anywhere in the largest arrays
  if constexpr (std::is_integral_v<T>) {
    return s == positive ? distribution{s, 1, 1001} : distribution{s, -1000, 1001};
  } else {
    return s == positive ? distribution{s, 0.25, 4} : distribution{s, -2, 2};
  }
}

// Slot s of element type T at its largest size, on the device or the host; made and filled on
// first use and shared by every row, so that a row costs only its timing and its check.
template <class T>
span<T> array(slot s, std::int64_t n, bool on_device) {
  static std::map<slot, device_buffer<T>> on_gpu;
  static std::map<slot, std::vector<T>> on_cpu;
  if (on_device) {
    auto [it, made] = on_gpu.try_emplace(s);
    if (made) {
      it->second = device_buffer<T>(largest_size);
      generate(it->second.view(), distribution_of<T>(s));
    }
    return it->second.view().subspan(0, static_cast<std::size_t>(n));
  }
  auto [it, made] = on_cpu.try_emplace(s);
  if (made) {
    it->second.resize(largest_cpu_size);
    // The host's map names positions in the host's (smaller) arrays.
    const distribution d = s == map ? distribution{s, 0, double(largest_cpu_size)} : distribution_of<T>(s);
    generate(span<T>(it->second), d, false);
  }
  return span<T>(it->second).subspan(0, static_cast<std::size_t>(n));
}

// The arrays of one call of size n.
template <class T>
struct operands {
  operands(std::int64_t n, bool on_device)
      : a(array<T>(slot::a, n, on_device)),
        b(array<T>(slot::b, n, on_device)),
        c(array<T>(slot::c, n, on_device)),
        positive(array<T>(slot::positive, n, on_device)),
        mask(array<std::uint8_t>(slot::mask, n, on_device)),
        map(array<std::int32_t>(slot::map, n, on_device)),
        everywhere(array<T>(slot::a, on_device ? largest_size : largest_cpu_size, on_device)),
        out(array<T>(slot::out, n, on_device)),
        cast_out(array<cast_target<T>>(slot::cast_out, n, on_device)) {}
  span<const T> a, b, c, positive;
  span<const std::uint8_t> mask;
  span<const std::int32_t> map;  // random positions in `everywhere`, the a array at its largest size
  span<const T> everywhere;
  span<T> out;
  span<cast_target<T>> cast_out;
};

// The input values at one position, and the output there before the call (axpy updates it).
struct values_at {
  std::size_t i;
  double a, b, c, positive, mask, before, a_before, gathered, mirrored;
};

// One operation: bytes per element, one call, and its result at one position in float64.
template <class T>
struct operation {
  const char* name;
  traffic per_element;
  std::function<void(const execution_policy&, const operands<T>&)> call;
  std::function<double(const values_at&)> expected;
  bool in_place = false;  // the output is also an input
  bool casts = false;     // the output is cast_out
};

template <class T>
using caller = std::function<void(const operands<T>&)>;

template <class T>
std::vector<operation<T>> operations() {
  using S = scalar<T>;
  constexpr bool integer = std::is_integral_v<T>;
  const double s = sizeof(T);
  const traffic unary{s, s}, binary{2 * s, s};
  const double lo = integer ? -500 : -1, hi = integer ? 500 : 1;  // clamp's bounds
  using E = const values_at&;
  std::vector<operation<T>> all = {
      {"add", binary, [](auto& p, auto& x) { add(p, x.a, x.b, x.out); }, [](E v) { return v.a + v.b; }},
      {"sub", binary, [](auto& p, auto& x) { sub(p, x.a, x.b, x.out); }, [](E v) { return v.a - v.b; }},
      {"mul", binary, [](auto& p, auto& x) { mul(p, x.a, x.b, x.out); }, [](E v) { return v.a * v.b; }},
      {"div", binary, [](auto& p, auto& x) { div(p, x.a, x.positive, x.out); },
       [](E v) { return integer ? std::trunc(v.a / v.positive) : v.a / v.positive; }},
      {"min", binary, [](auto& p, auto& x) { min(p, x.a, x.b, x.out); }, [](E v) { return std::min(v.a, v.b); }},
      {"max", binary, [](auto& p, auto& x) { max(p, x.a, x.b, x.out); }, [](E v) { return std::max(v.a, v.b); }},
      {"axpy", binary, [](auto& p, auto& x) { axpy(p, S(2), x.a, x.out); }, [](E v) { return 2 * v.a + v.before; }, true},
      {"axpby", binary, [](auto& p, auto& x) { axpby(p, S(2), x.a, S(-1), x.b, x.out); },
       [](E v) { return 2 * v.a - v.b; }},
      {"fma", {3 * s, s}, [](auto& p, auto& x) { fma(p, x.a, x.b, x.c, x.out); }, [](E v) { return v.a * v.b + v.c; }},
      {"where", {2 * s + 1, s}, [](auto& p, auto& x) { where(p, x.mask, x.a, x.b, x.out); },
       [](E v) { return v.mask != 0 ? v.a : v.b; }},
      {"negate", unary, [](auto& p, auto& x) { negate(p, x.a, x.out); }, [](E v) { return -v.a; }},
      {"abs", unary, [](auto& p, auto& x) { abs(p, x.a, x.out); }, [](E v) { return std::fabs(v.a); }},
      {"square", unary, [](auto& p, auto& x) { square(p, x.a, x.out); }, [](E v) { return v.a * v.a; }},
      {"relu", unary, [](auto& p, auto& x) { relu(p, x.a, x.out); }, [](E v) { return std::max(v.a, 0.0); }},
      {"scale", unary, [](auto& p, auto& x) { scale(p, S(3), x.a, x.out); }, [](E v) { return 3 * v.a; }},
      {"clamp", unary, [=](auto& p, auto& x) { clamp(p, x.a, x.out, S(lo), S(hi)); },
       [=](E v) { return std::clamp(v.a, lo, hi); }},
      {"copy", unary, [](auto& p, auto& x) { copy(p, x.a, x.out); }, [](E v) { return v.a; }},
      {"adjacent_difference", unary, [](auto& p, auto& x) { adjacent_difference(p, x.a, x.out); },
       [](E v) { return v.i == 0 ? v.a : v.a - v.a_before; }},
      // The values read at random: each costs a sector (32 bytes) of DRAM traffic, not its size;
      // the bytes counted are the fewest (the map, the values named, the output).
      {"gather", {4 + s, s}, [](auto& p, auto& x) { prism::gather(p, x.map, x.everywhere, x.out); },
       [](E v) { return v.gathered; }},
      // gather where the mask (half of it set) says, the other outputs kept (so read as `before`):
      // the map and the mask are read whole, the values and the output at the selected half.
      {"gather_if", {5 + s / 2, s / 2}, [](auto& p, auto& x) { prism::gather_if(p, x.map, x.mask, x.everywhere, x.out); },
       [](E v) { return v.mask != 0 ? v.gathered : v.before; }, true},
      // A permutation with no randomness: each element read once and written once, mirrored.
      {"reverse", unary, [](auto& p, auto& x) { prism::reverse(p, x.a, x.out); }, [](E v) { return v.mirrored; }},
      {"fill", {0, s}, [](auto& p, auto& x) { fill(p, x.out, S(1)); }, [](E) { return 1.0; }},
      // Computed in the scalar type, as the library does: float(i) for the 16-bit types.
      {"sequence", {0, s}, [](auto& p, auto& x) { sequence(p, x.out, S(0), S(1)); },
       [](E v) { return static_cast<double>(static_cast<S>(v.i)); }},
  };
  if constexpr (floating_point_element<T>) {
    const auto function = [&](const char* name, auto f, double (*reference)(double), bool on_positive) {
      all.push_back({name, unary, f, [=](E v) { return reference(on_positive ? v.positive : v.a); }});
    };
    function("sqrt", [](auto& p, auto& x) { sqrt(p, x.positive, x.out); }, [](double x) { return std::sqrt(x); }, true);
    function("rsqrt", [](auto& p, auto& x) { rsqrt(p, x.positive, x.out); }, [](double x) { return 1 / std::sqrt(x); }, true);
    function("log", [](auto& p, auto& x) { log(p, x.positive, x.out); }, [](double x) { return std::log(x); }, true);
    function("exp", [](auto& p, auto& x) { exp(p, x.a, x.out); }, [](double x) { return std::exp(x); }, false);
    function("sin", [](auto& p, auto& x) { sin(p, x.a, x.out); }, [](double x) { return std::sin(x); }, false);
    function("cos", [](auto& p, auto& x) { cos(p, x.a, x.out); }, [](double x) { return std::cos(x); }, false);
    function("tanh", [](auto& p, auto& x) { tanh(p, x.a, x.out); }, [](double x) { return std::tanh(x); }, false);
    function("sigmoid", [](auto& p, auto& x) { sigmoid(p, x.a, x.out); },
             [](double x) { return 1 / (1 + std::exp(-x)); }, false);
  }
  all.push_back({"cast", {s, double(sizeof(cast_target<T>))}, [](auto& p, auto& x) { cast(p, x.a, x.cast_out); },
                 [](E v) { return v.a; }, false, true});
  return all;
}

// Compares the output at the sampled positions with the expected values, in the output's type.
template <class O>
std::string compare(const std::vector<std::size_t>& positions, const std::vector<O>& got,
                    const std::vector<double>& want) {
  constexpr bool wide = sizeof(O) > 2;
  // 16-bit types: the float result rounded (2 eps); float and double: CUDA's math functions are
  // within a few ulp; integers: exact.
  const double relative = epsilon<O>() * (wide ? 16 : 2), absolute = epsilon<O>();
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const double expected = to_double(from_double<O>(want[k]));  // rounded to O, as the call does
    const double value = to_double(got[k]);
    if (!close(value, expected, relative, absolute)) {
      return "at index " + std::to_string(positions[k]) + " got " + describe(value) +
             ", expected " + describe(expected);
    }
  }
  return "";
}

// Runs `call` once on a poisoned output (for axpy, on fresh random values) and checks it.
template <class T>
std::string check_operation(const operation<T>& op, const caller<T>& call, const operands<T>& x,
                            bool on_device) {
  const std::size_t n = x.out.size();
  if (op.in_place) {
    generate(x.out, distribution_of<T>(slot::out), on_device);
  } else if (op.casts) {
    poison(x.cast_out, on_device);
  } else {
    poison(x.out, on_device);
  }
  const std::vector<std::size_t> positions = sample_positions(n);
  const auto values = [&](const auto* p) {
    std::vector<double> v;
    for (const auto& e : gather(p, positions, on_device)) v.push_back(to_double(e));
    return v;
  };
  const std::vector<double> a = values(x.a.data()), b = values(x.b.data()), c = values(x.c.data()),
                            pos = values(x.positive.data()), mask = values(x.mask.data()),
                            before = values(x.out.data());
  std::vector<std::size_t> left = positions, named;
  for (std::size_t& p : left) p = p > 0 ? p - 1 : 0;
  std::vector<double> a_before;
  for (const auto& e : gather(x.a.data(), left, on_device)) a_before.push_back(to_double(e));
  for (const auto& e : gather(x.map.data(), positions, on_device)) named.push_back(static_cast<std::size_t>(e));
  std::vector<double> gathered, mirrored;
  for (const auto& e : gather(x.everywhere.data(), named, on_device)) gathered.push_back(to_double(e));
  std::vector<std::size_t> mirror = positions;
  for (std::size_t& p : mirror) p = n - 1 - p;
  for (const auto& e : gather(x.a.data(), mirror, on_device)) mirrored.push_back(to_double(e));
  call(x);
  if (on_device) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<double> want;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    want.push_back(op.expected(
        {positions[k], a[k], b[k], c[k], pos[k], mask[k], before[k], a_before[k], gathered[k], mirrored[k]}));
  }
  if (op.casts) {
    if (break_requested()) perturb(x.cast_out.data(), positions[0], on_device);
    return compare(positions, gather(x.cast_out.data(), positions, on_device), want);
  }
  if (break_requested()) perturb(x.out.data(), positions[0], on_device);
  return compare(positions, gather(x.out.data(), positions, on_device), want);
}

// One row: time the call, then check it.
template <class T>
void register_row(const operation<T>& op, const std::string& row, bool on_gpu, std::int64_t n,
                  cache c, caller<T> call) {
  const traffic bytes = op.per_element * static_cast<double>(n);
  configure(benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
              const operands<T> x(n, on_gpu);
              if (on_gpu) {
                time_on_gpu(state, bytes, c, [&] { call(x); });
              } else {
                time_on_host(state, bytes, [&] { call(x); });
              }
              verify(state, row, [&] { return check_operation(op, call, x, on_gpu); });
            }),
            bytes, on_gpu);
}

// The grid-stride alternative to raw's one tile per block, for whole 16-byte vectors.
template <class T>
struct alignas(16) vector16 {
  T element[16 / sizeof(T)];
};

template <class T>
__global__ void add_grid_stride_kernel(const vector16<T>* a, const vector16<T>* b, vector16<T>* out,
                                       std::size_t vectors) {
  for (std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; t < vectors;
       t += std::size_t{gridDim.x} * blockDim.x) {
    const vector16<T> x = a[t], y = b[t];
    vector16<T> r;
#pragma unroll
    for (int k = 0; k < 16 / int(sizeof(T)); ++k) r.element[k] = x.element[k] + y.element[k];
    out[t] = r;
  }
}

template <class T>
void register_type(bool gpu) {
  const std::string type = type_name<T>();
  const std::vector<operation<T>> all = operations<T>();
  for (const operation<T>& op : all) {
    for (std::int64_t n : sizes()) {
      const traffic bytes = op.per_element * static_cast<double>(n);
      // The GPU rows of one size and cache next to each other in time: they are compared.
      for (cache c : gpu ? cache_modes(bytes) : std::vector<cache>{}) {
        for (impl which : elementwise_implementations) {
          if (which == impl::cpu) continue;
          register_row<T>(op, row_name(op.name, type, std::string(name(which)), n, c), true, n, c,
                          [call = op.call, which](const operands<T>& x) { call(par.with(which), x); });
        }
        if (std::string_view(op.name) == "add") {  // automatic: raw today; its row shows the choice
          register_row<T>(op, row_name(op.name, type, "automatic", n, c), true, n, c,
                          [call = op.call](const operands<T>& x) { call(par, x); });
        }
      }
      if (n <= largest_cpu_size) {
        register_row<T>(op, row_name(op.name, type, "cpu", n), false, n, cache::none,
                        [call = op.call](const operands<T>& x) { call(par.with(impl::cpu), x); });
      }
    }
  }
  if (!gpu) return;
  const operation<T>& add_op = all.front();
  const operation<T>& copy_op = *std::find_if(all.begin(), all.end(), [](const auto& o) {
    return std::string_view(o.name) == "copy";
  });
  for (std::int64_t n : sizes()) {
    for (cache c : cache_modes(copy_op.per_element * static_cast<double>(n))) {
      register_row<T>(copy_op, row_name("copy", type, "cudaMemcpy", n, c), true, n, c, [](const operands<T>& x) {
        check(cudaMemcpyAsync(x.out.data(), x.a.data(), x.a.size_bytes(), cudaMemcpyDeviceToDevice),
              "cudaMemcpyAsync");
      });
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      for (cache c : cache_modes(add_op.per_element * static_cast<double>(n))) {
        register_row<T>(add_op, row_name("add", type, "thrust_device_sync", n, c), true, n, c,
                        [](const operands<T>& x) {
                          thrust::transform(thrust::device, x.a.data(), x.a.data() + x.a.size(), x.b.data(),
                                            x.out.data(), cuda::std::plus<T>{});
                        });
        register_row<T>(add_op, row_name("add", type, "raw_grid_stride", n, c), true, n, c,
                        [](const operands<T>& x) {
                          // n is a multiple of the vector width here: no edge elements.
                          const std::size_t vectors = x.a.size() / (16 / sizeof(T));
                          const auto blocks = static_cast<unsigned>(std::min<std::size_t>(
                              8 * std::size_t(device().multiprocessors), (vectors + 255) / 256));
                          add_grid_stride_kernel<T><<<blocks, 256>>>(
                              reinterpret_cast<const vector16<T>*>(x.a.data()),
                              reinterpret_cast<const vector16<T>*>(x.b.data()),
                              reinterpret_cast<vector16<T>*>(x.out.data()), vectors);
                          check(cudaGetLastError(), "add_grid_stride_kernel launch");
                        });
      }
    }
  }
}

void register_rows(bool gpu) {
  const auto defaults = {std::string_view("float"), std::string_view("half"), std::string_view("double")};
  if (type_selected("float", defaults)) register_type<float>(gpu);
  if (type_selected("half", defaults)) register_type<__half>(gpu);
  if (type_selected("double", defaults)) register_type<double>(gpu);
  if (type_selected("bfloat16", defaults)) register_type<__nv_bfloat16>(gpu);
  if (type_selected("int32", defaults)) register_type<std::int32_t>(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
