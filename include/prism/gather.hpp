// SPDX-License-Identifier: Apache-2.0
#pragma once
// Element-wise moves beside gather and scatter, callable from plain C++ (compiled per element
// size in algorithms/elementwise/gather_if.cu and reverse.cu; the implementations are in
// <prism/gather.cuh>):
//
//   prism::gather_if(map, stencil, values, out);   // out[i] = values[map[i]] where stencil[i]
//   prism::scatter_if(values, map, stencil, out);  // out[map[i]] = values[i] where stencil[i]
//   prism::reverse(x, out);                        // out[i] = x[n - 1 - i]
//   prism::reverse(x);                             // the same in place
//
// Thrust's semantics (thrust::gather_if, thrust::scatter_if): the stencil is bytes (uint8_t or
// bool), set when not 0; where it is not set, out[i] (gather_if) or the element the map names
// (scatter_if) is left untouched, and map[i] is not used, so it need not be a valid index there:
// bounds::checked checks only the indices whose stencil is set. Elements move as their bits, any
// movable_element (<prism/elementwise.hpp>); maps are int32 or int64.
#include <prism/elementwise.hpp>

#include <cstddef>
#include <cstdint>

namespace prism {

// A stencil or mask: bytes, true when not 0.
template <class S>
concept stencil_array = array_of<S, std::uint8_t> || array_of<S, bool>;

namespace detail {
template <std::size_t Size, class I>
struct selective_permutation {
  using bits = bits_of_size<Size>;
  static void gather_if(const execution_policy& policy, span<const I> map, span<const std::uint8_t> stencil,
                        span<const bits> values, span<bits> out, bounds checking);
  static void scatter_if(const execution_policy& policy, span<const bits> values, span<const I> map,
                         span<const std::uint8_t> stencil, span<bits> out, bounds checking);
};

template <std::size_t Size>
struct reversal {
  using bits = bits_of_size<Size>;
  // out may be x exactly (in place).
  static void reverse(const execution_policy& policy, span<const bits> x, span<bits> out);
};

template <class S>
span<const std::uint8_t> stencil_bytes(S&& stencil) {
  static_assert(sizeof(bool) == 1);  // bool is one byte holding 0 or 1 where CUDA runs
  const auto s = input_span(stencil);
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
}  // namespace detail

namespace ops {
struct gather_if { static constexpr const char* name = "gather_if"; };
struct scatter_if { static constexpr const char* name = "scatter_if"; };
struct reverse { static constexpr const char* name = "reverse"; };

// out[i] = values[map[i]] where stencil[i] is set; out has the map's size, the stencil too, and
// out overlaps nothing.
template <class M, class S, class V, class O>
  requires index_array<M> && stencil_array<S> && array_like<std::remove_reference_t<O>> &&
           movable_element<value_t<O>> && array_of<V, value_t<O>>
void run(gather_if, const execution_policy& policy, M&& map, S&& stencil, V&& values, O&& out,
         bounds checking = bounds::unchecked) {
  using P = detail::selective_permutation<sizeof(value_t<O>), value_t<M>>;
  P::gather_if(policy, input_span(map), detail::stencil_bytes(stencil), detail::as_bits(input_span(values)),
               detail::as_bits(output_span(out)), checking);
}

// out[map[i]] = values[i] where stencil[i] is set; the map and the stencil have the values' size;
// out overlaps nothing. An index set twice leaves one of its values, which one is not defined.
template <class V, class M, class S, class O>
  requires index_array<M> && stencil_array<S> && array_like<std::remove_reference_t<O>> &&
           movable_element<value_t<O>> && array_of<V, value_t<O>>
void run(scatter_if, const execution_policy& policy, V&& values, M&& map, S&& stencil, O&& out,
         bounds checking = bounds::unchecked) {
  using P = detail::selective_permutation<sizeof(value_t<O>), value_t<M>>;
  P::scatter_if(policy, detail::as_bits(input_span(values)), input_span(map), detail::stencil_bytes(stencil),
                detail::as_bits(output_span(out)), checking);
}

// out[i] = x[n - 1 - i]; out has x's size and may be x exactly (in place), nothing else of it.
template <class X, class O>
  requires array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> && array_of<X, value_t<O>>
void run(reverse, const execution_policy& policy, X&& x, O&& out) {
  detail::reversal<sizeof(value_t<O>)>::reverse(policy, detail::as_bits(input_span(x)),
                                                detail::as_bits(output_span(out)));
}
// x reversed in place.
template <class X>
  requires array_like<std::remove_reference_t<X>> && (!std::is_const_v<element_t<X>>) && movable_element<value_t<X>>
void run(reverse, const execution_policy& policy, X&& x) {
  const auto bits = detail::as_bits(output_span(x));
  detail::reversal<sizeof(value_t<X>)>::reverse(policy, bits, bits);
}
}  // namespace ops

inline constexpr operation<ops::gather_if> gather_if{};
inline constexpr operation<ops::scatter_if> scatter_if{};
inline constexpr operation<ops::reverse> reverse{};

}  // namespace prism
