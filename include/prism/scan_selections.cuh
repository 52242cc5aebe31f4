// SPDX-License-Identifier: Apache-2.0
#pragma once
// The generic selections of <prism/scan.cuh> (which includes this header; include that one): their
// forms with the caller's predicates, equalities and operators, over the implementations of
// scan.cuh's selections section.
#include <prism/scan.cuh>

namespace prism {
namespace ops {

// ---- selections: the count returned, or into count[0] ---------------------------------------------

// x[i] where pred(stencil[i]), in order, to out[0, count).
template <class X, class S, class O, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           detail::generic_functor<Pred>
std::size_t run(compact_if, const execution_policy& policy, X&& x, S&& stencil, O&& out, Pred pred) {
  return detail::select_spans("compact_if", policy, false, input_span(x), input_span(stencil), output_span(out), pred,
                              detail::returned_count);
}
template <class X, class S, class O, class C, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           count_array<C> && detail::generic_functor<Pred>
void run(compact_if, const execution_policy& policy, X&& x, S&& stencil, O&& out, C&& count, Pred pred) {
  span<std::size_t> c = output_span(count);
  detail::select_spans("compact_if", policy, false, input_span(x), input_span(stencil), output_span(out), pred, &c);
}

// x[i] where pred(stencil[i]) first, then the others, each in its original order; returns (or
// delivers) how many satisfied pred.
template <class X, class S, class O, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           detail::generic_functor<Pred>
std::size_t run(partition_if, const execution_policy& policy, X&& x, S&& stencil, O&& out, Pred pred) {
  return detail::select_spans("partition_if", policy, true, input_span(x), input_span(stencil), output_span(out), pred,
                              detail::returned_count);
}
template <class X, class S, class O, class C, class Pred>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && array_like<std::remove_reference_t<S>> &&
           count_array<C> && detail::generic_functor<Pred>
void run(partition_if, const execution_policy& policy, X&& x, S&& stencil, O&& out, C&& count, Pred pred) {
  span<std::size_t> c = output_span(count);
  detail::select_spans("partition_if", policy, true, input_span(x), input_span(stencil), output_span(out), pred, &c);
}

// x[i] where i == 0 or !eq(x[i - 1], x[i]).
template <class X, class O, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Eq>
std::size_t run(unique, const execution_policy& policy, X&& x, O&& out, Eq eq) {
  using T = value_t<O>;
  return detail::unique_spans<false>("unique", policy, input_span(x), span<const T>{}, output_span(out), span<T>{}, eq,
                                     detail::returned_count);
}
template <class X, class O, class C, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && count_array<C> && detail::generic_functor<Eq>
void run(unique, const execution_policy& policy, X&& x, O&& out, C&& count, Eq eq) {
  using T = value_t<O>;
  span<std::size_t> c = output_span(count);
  detail::unique_spans<false>("unique", policy, input_span(x), span<const T>{}, output_span(out), span<T>{}, eq, &c);
}

// The first (key, value) of every run of keys equal under eq.
template <class K, class X, class KO, class O, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && detail::generic_functor<Eq>
std::size_t run(unique_by_key, const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& out, Eq eq) {
  return detail::unique_spans<true>("unique_by_key", policy, input_span(keys), input_span(x), output_span(keys_out),
                                    output_span(out), eq, detail::returned_count);
}
template <class K, class X, class KO, class O, class C, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && count_array<C> && detail::generic_functor<Eq>
void run(unique_by_key, const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& out, C&& count, Eq eq) {
  span<std::size_t> c = output_span(count);
  detail::unique_spans<true>("unique_by_key", policy, input_span(keys), input_span(x), output_span(keys_out),
                             output_span(out), eq, &c);
}

// Every run of elements equal under eq as (its first element, its length in N's integer type).
template <class X, class O, class N, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::writable_array<N> &&
           std::is_integral_v<value_t<N>> && detail::generic_functor<Eq>
std::size_t run(run_length_encode, const execution_policy& policy, X&& x, O&& unique_out, N&& counts_out, Eq eq) {
  using L = value_t<N>;
  detail::check_run_lengths<L>(input_span(x).size());
  return detail::reduce_by_key_spans<true>("run_length_encode", policy, input_span(x), span<const L>{},
                                           output_span(unique_out), output_span(counts_out), functors::plus<L>{}, eq,
                                           detail::returned_count);
}
template <class X, class O, class N, class C, class Eq>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::writable_array<N> &&
           std::is_integral_v<value_t<N>> && count_array<C> && detail::generic_functor<Eq>
void run(run_length_encode, const execution_policy& policy, X&& x, O&& unique_out, N&& counts_out, C&& count, Eq eq) {
  using L = value_t<N>;
  detail::check_run_lengths<L>(input_span(x).size());
  span<std::size_t> c = output_span(count);
  detail::reduce_by_key_spans<true>("run_length_encode", policy, input_span(x), span<const L>{}, output_span(unique_out),
                                    output_span(counts_out), functors::plus<L>{}, eq, &c);
}

// Every run of keys equal under eq as (its first key, its values combined with op in order).
template <class K, class X, class KO, class O, class Op, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && detail::generic_functor<Op> && detail::generic_functor<Eq>
std::size_t run(reduce_by_key, const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& sums_out, Op op, Eq eq) {
  return detail::reduce_by_key_spans<false>("reduce_by_key", policy, input_span(keys), input_span(x),
                                            output_span(keys_out), output_span(sums_out), op, eq,
                                            detail::returned_count);
}
template <class K, class X, class KO, class O, class C, class Op, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && count_array<C> && detail::generic_functor<Op> && detail::generic_functor<Eq>
void run(reduce_by_key, const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& sums_out, C&& count, Op op,
                   Eq eq) {
  span<std::size_t> c = output_span(count);
  detail::reduce_by_key_spans<false>("reduce_by_key", policy, input_span(keys), input_span(x), output_span(keys_out),
                                     output_span(sums_out), op, eq, &c);
}

// Thrust's form with an equality only: the values added (functors::plus).
template <class K, class X, class KO, class O, class Eq>
  requires detail::writable_array<KO> && array_of<K, value_t<KO>> && detail::writable_array<O> &&
           array_of<X, value_t<O>> && detail::generic_functor<Eq>
std::size_t run(reduce_by_key, const execution_policy& policy, K&& keys, X&& x, KO&& keys_out, O&& sums_out, Eq eq) {
  return run(reduce_by_key{}, policy, keys, x, keys_out, sums_out, functors::plus<value_t<O>>{}, eq);
}
}  // namespace ops

}  // namespace prism
