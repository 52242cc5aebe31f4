// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every public operation is: one object, declared once.
//
//   inline constexpr operation<ops::sum> sum{};
//
// `ops::sum` is an empty tag. The forms the operation accepts are the overloads of `run` for that
// tag (found by argument-dependent lookup, so a header may add forms to an operation another
// declared: <prism/scan.cuh> adds the scans with a caller's operator to the compiled ones of
// <prism/scan.hpp>). Every `run` takes the execution policy first; the object adds the form
// without one (prism::par: automatic, the default stream), so no operation spells that twice.
//
//   prism::sum(x);                          // run(ops::sum{}, par, x)
//   prism::sum(prism::par.on(stream), x);   // run(ops::sum{}, policy, x)
//
// A form whose first argument is not a policy but is the operation's own (a lesson's stage, say)
// is called as written when `run` has it. Objects rather than overloaded functions: one name is
// one thing (no argument-dependent lookup of std::copy or std::min where prism's was meant), and
// an operation can be passed to a function template whole.
#include <prism/execution.hpp>

#include <type_traits>
#include <utility>

namespace prism {

template <class T, class... U>
concept one_of = (std::is_same_v<T, U> || ...);

template <class P>
concept policy_argument = std::is_same_v<std::remove_cvref_t<P>, execution_policy>;

namespace ops {
void run() = delete;  // `run` below is looked up by argument-dependent lookup only

// The forms an operation has, as written or with the default policy put first.
template <class Op, class... A>
concept runs_as_written = requires(A&&... a) { run(Op{}, std::forward<A>(a)...); };
template <class Op, class... A>
concept runs_with_default_policy = requires(A&&... a) { run(Op{}, par, std::forward<A>(a)...); };

template <class Op, class... A>
decltype(auto) call(A&&... a) {
  return run(Op{}, std::forward<A>(a)...);
}
}  // namespace ops

template <class Op>
struct operation {
  using tag = Op;

  template <class... A>
    requires ops::runs_as_written<Op, A...>
  decltype(auto) operator()(A&&... a) const {
    return ops::call<Op>(std::forward<A>(a)...);
  }

  template <class First, class... A>
    requires(!policy_argument<First> && !ops::runs_as_written<Op, First, A...> &&
             ops::runs_with_default_policy<Op, First, A...>)
  decltype(auto) operator()(First&& first, A&&... a) const {
    return ops::call<Op>(par, std::forward<First>(first), std::forward<A>(a)...);
  }
};

// Two operations are in two families each: min and max are element-wise (min(a, b, out)) and
// reductions (min(x), min(x, result)); each family's header adds its forms.
namespace ops {
struct min { static constexpr const char* name = "min"; };
struct max { static constexpr const char* name = "max"; };
}  // namespace ops
inline constexpr operation<ops::min> min{};
inline constexpr operation<ops::max> max{};

// A list of types: a family's operations, an operation's element types.
template <class... T>
struct type_list { static constexpr const char* name = "type_list"; };

template <class... T, class F>
constexpr void for_each_type(type_list<T...>, F&& f) {
  (f(std::type_identity<T>{}), ...);
}

}  // namespace prism
