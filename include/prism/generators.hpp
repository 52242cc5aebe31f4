// SPDX-License-Identifier: Apache-2.0
#pragma once
// Generated inputs for the plain C++ API: an input that is a function of the index, where a
// program would otherwise fill an array first.
//
//   prism::sum(prism::iota(1.0, n));                            // 1 + 2 + ... + n
//   prism::mul(x, prism::constant(2.0f, x.size()), y);           // y[i] = x[i] * 2
//   prism::compact(prism::iota<std::int64_t>(0, n), flags, out); // the positions of the set flags
//   prism::sort_by_key(keys, prism::iota<std::uint32_t>(0, n), sorted, order); // the permutation
//
// The standard generators are the two the element-wise family computes: prism::constant(value,
// n), every element `value` (prism::fill's), and prism::iota(start, n, step = 1), element i
// `start + i * step` in the element type's arithmetic (prism::sequence's: integers wrap; __half
// and __nv_bfloat16 take float parameters, computed in float and rounded). Any other function of
// the index is the generic layer's: prism::tabulate(out, f) and Thrust's iterators as inputs
// (<prism/transform.cuh>, <prism/iterators.cuh>).
//
// Where they are accepted (an input of one of these forms may be a generator, the outputs not):
//   the reductions of the table (sum, product, min, max, minmax, argmin, argmax, norms, mean,
//   variance, stddev), returned or into a result; the element-wise binary operations (add, sub,
//   mul, div, min, max: either input or both) and unary ones (negate, abs, exp, ...);
//   compact's values; sort_by_key's values_in (the out-of-place form).
// How: the compiled entries read arrays, so the generator is computed into memory where the call
// runs (prism::fill or prism::sequence on the call's stream; device scratch of its own, released
// stream-ordered after the call, or a host array for cpu) and the call reads that. It costs one
// write and one read of the generated elements more than a fused kernel, and no allocation by the
// program; in CUDA code the generic layer fuses them (<prism/iterators.cuh>).
// Where it runs: as the call's other arrays say (host memory: the host; device memory: the GPU), a
// named implementation's place (cpu: the host), and with nothing to say (sum(iota(...)) under
// automatic) the GPU if there is one.
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/reduce.hpp>
#include <prism/scan.hpp>
#include <prism/scratch.hpp>
#include <prism/sort.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

namespace prism {

// start, start + step, start + 2 step, ... (n elements).
template <class T>
struct iota_input {
  using value_type = T;
  scalar<T> start;
  std::size_t n;
  scalar<T> step;
};
// value, value, ... (n elements).
template <class T>
struct constant_input {
  using value_type = T;
  scalar<T> value;
  std::size_t n;
};

// The element type comes from start (or value), or is named: prism::iota<std::int64_t>(0, n).
template <arithmetic_element T>
constexpr iota_input<T> iota(T start, std::size_t n, T step = T(1)) noexcept {
  return {scalar<T>(start), n, scalar<T>(step)};
}
template <arithmetic_element T>
constexpr constant_input<T> constant(T value, std::size_t n) noexcept {
  return {scalar<T>(value), n};
}

template <class G>
concept generated_input = requires { typename std::remove_cvref_t<G>::value_type; } &&
                          (std::is_same_v<std::remove_cvref_t<G>, iota_input<typename std::remove_cvref_t<G>::value_type>> ||
                           std::is_same_v<std::remove_cvref_t<G>, constant_input<typename std::remove_cvref_t<G>::value_type>>);

// An input of element type T: an array of T or a generator of T.
template <class X, class T>
concept input_of = array_of<X, T> || (generated_input<X> && std::is_same_v<typename std::remove_cvref_t<X>::value_type, T>);

namespace detail {
template <class X>
struct input_value {
  using type = value_t<X>;
};
template <generated_input X>
struct input_value<X> {
  using type = typename std::remove_cvref_t<X>::value_type;
};
template <class X>
using input_value_t = typename input_value<X>::type;

// Whether a generated input is computed on the GPU: where the call's first non-empty array lives,
// else where the named implementation runs, else the GPU if there is one.
inline bool generate_on_device(const execution_policy& policy, std::initializer_list<span<const std::byte>> near) {
  if (policy.implementation() == impl::cpu) return false;
  if (policy.implementation() != impl::automatic) return true;
  for (const span<const std::byte>& a : near) {
    if (a.empty()) continue;
    const residence r = placement_of(a.data()).where;
    return r == residence::device || r == residence::managed;
  }
  return gpu_available();
}

template <class X>
span<const std::byte> bytes_of_array(X&& x) {
  const auto s = input_span(x);
  return {reinterpret_cast<const std::byte*>(s.data()), s.size_bytes()};
}

// An input as an array: an array as it is, a generator computed into memory of its own.
template <class T>
class realized {
 public:
  realized(span<const T> array) : view_(array) {}
  template <generated_input G>
  realized(const execution_policy& policy, const G& g, bool on_device) {
    if (g.n == 0) return;
    span<T> out;
    if (on_device) {
      execution_policy p = policy;
      if (p.stream() == nullptr) {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
        p = p.on(cudaStreamPerThread);
#else
        p = p.on(cudaStreamLegacy);
#endif
      }
      lease_.emplace(acquire_separate_scratch(g.n * sizeof(T), p, "generated input"));
      out = {static_cast<T*>(lease_->device()), g.n};
      fill_with(policy.with(impl::automatic), g, out);  // device memory: a GPU implementation
    } else {
      host_.resize(g.n);
      out = {host_.data(), g.n};
      fill_with(policy.with(impl::cpu), g, out);
    }
    view_ = out;
  }
  span<const T> view() const noexcept { return view_; }

 private:
  static void fill_with(const execution_policy& p, const iota_input<T>& g, span<T> out) {
    prism::sequence(p, out, g.start, g.step);
  }
  static void fill_with(const execution_policy& p, const constant_input<T>& g, span<T> out) {
    prism::fill(p, out, g.value);
  }
  std::optional<scratch> lease_;
  std::vector<T> host_;
  span<const T> view_;
};

template <class X>
auto realize(const execution_policy& policy, X&& x, bool on_device) {
  using T = input_value_t<X>;
  if constexpr (generated_input<X>) {
    return realized<T>(policy, x, on_device);
  } else {
    return realized<T>(input_span(x));
  }
}
}  // namespace detail

namespace ops {

// The reductions of the table, of a generated input: returned, or into result[0].
template <class Op, generated_input G>
  requires reducible<Op, span<const typename std::remove_cvref_t<G>::value_type>>
auto run(Op op, const execution_policy& policy, G&& g) {
  const auto x = detail::realize(policy, g, detail::generate_on_device(policy, {}));
  return run(op, policy, x.view());
}
template <class Op, generated_input G, class O>
  requires reducible<Op, span<const typename std::remove_cvref_t<G>::value_type>> &&
           result_array<O, reduction_result<Op, span<const typename std::remove_cvref_t<G>::value_type>>>
void run(Op op, const execution_policy& policy, G&& g, O&& result) {
  const auto x = detail::realize(policy, g, detail::generate_on_device(policy, {detail::bytes_of_array(result)}));
  run(op, policy, x.view(), result);
}

// The element-wise binary operations with either input (or both) generated.
template <class Op, class A, class B, class O>
  requires requires { binary<Op>::code; } && elementwise_output<O> && (generated_input<A> || generated_input<B>) &&
           input_of<A, value_t<O>> && input_of<B, value_t<O>>
void run(Op op, const execution_policy& policy, A&& a, B&& b, O&& out) {
  const bool on_device = detail::generate_on_device(policy, {detail::bytes_of_array(out)});
  const auto x = detail::realize(policy, a, on_device);
  const auto y = detail::realize(policy, b, on_device);
  run(op, policy, x.view(), y.view(), out);
}

// The element-wise unary operations of a generated input.
template <class Op, generated_input X, class O>
  requires requires { unary<Op>::code; } && elementwise_output<O> && input_of<X, value_t<O>> &&
           (unary<Op>::template offered<value_t<O>>)
void run(Op op, const execution_policy& policy, X&& x, O&& out) {
  const auto in = detail::realize(policy, x, detail::generate_on_device(policy, {detail::bytes_of_array(out)}));
  run(op, policy, in.view(), out);
}

// compact with generated values: compact(iota(0, n), flags, out) lists the positions of the set flags.
template <generated_input X, class F, class O>
  requires scan_output<O> && input_of<X, value_t<O>> && flag_array<F>
std::size_t run(compact op, const execution_policy& policy, X&& values, F&& flags, O&& out) {
  const auto v = detail::realize(policy, values, detail::generate_on_device(policy, {detail::bytes_of_array(flags)}));
  return run(op, policy, v.view(), flags, out);
}
template <generated_input X, class F, class O, class C>
  requires scan_output<O> && input_of<X, value_t<O>> && flag_array<F> && count_array<C>
void run(compact op, const execution_policy& policy, X&& values, F&& flags, O&& out, C&& count) {
  const auto v = detail::realize(policy, values, detail::generate_on_device(policy, {detail::bytes_of_array(flags)}));
  run(op, policy, v.view(), flags, out, count);
}

// sort_by_key with generated values_in: sort_by_key(keys, iota(0, n), keys_out, order_out) gives
// the sorted keys and the permutation that sorts them.
template <class KI, generated_input VI, class KO, class VO>
  requires sort_key_arrays<KI, KO> && sort_value_output<VO> && input_of<VI, value_t<VO>>
void run(sort_by_key op, const execution_policy& policy, KI&& keys_in, VI&& values_in, KO&& keys_out, VO&& values_out,
         sort_order order = sort_order::ascending) {
  const auto v = detail::realize(policy, values_in, detail::generate_on_device(policy, {detail::bytes_of_array(keys_in)}));
  run(op, policy, keys_in, v.view(), keys_out, values_out, order);
}

}  // namespace ops
}  // namespace prism
