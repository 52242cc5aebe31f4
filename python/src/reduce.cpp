// SPDX-License-Identifier: Apache-2.0
// The reduction family from Python. Each reduction delivers its result the two ways the C++ API
// does: returned (out is None: the call waits for the stream and the value comes back as a Python
// number) or written into a one-element array (nothing waits). The result types are the C++ ones:
// sum_type (int32 -> int64), real_type (mean of ints -> float64); an index or a count goes into an
// int64 or uint64 element (the same eight bytes for any value below 2^63).
#include "arrays.hpp"

#include <prism/reduce.hpp>

#include <nanobind/stl/pair.h>

#include <string>

namespace prism::python {
namespace {

// A Python value from a C++ result.
template <class R>
nb::object to_python(const R& value) {
  if constexpr (requires { value.min; value.max; }) {
    return nb::make_tuple(value.min, value.max);
  } else {
    return nb::cast(value);
  }
}

// The result array of type R for `into`: exactly R, or for an index or a count (size_t,
// uint64_t) either eight-byte integer type.
template <class R>
prism::span<R> result_span(const array& out) {
  if constexpr (std::is_same_v<R, std::size_t> || std::is_same_v<R, std::uint64_t>) {
    return count_span<R>(out);
  } else {
    return out.out<R>();
  }
}

// Runs a compiled entry point entry(into) with its result returned; R is its result type.
template <class R, class Entry>
nb::object returned(const char* algorithm, const array& x, Entry entry) {
  device_scope device(algorithm, {&x});
  R value = without_gil([&] { return entry(static_cast<prism::span<R>*>(nullptr)); });
  return to_python(value);
}

// The same returned (no out) or into out.
template <class R, class Entry>
nb::object deliver(const char* algorithm, const array& x, const array* out, Entry entry) {
  if (out == nullptr) return returned<R>(algorithm, x, entry);
  prism::span<R> into = result_span<R>(*out);
  device_scope device(algorithm, {&x, out});
  without_gil([&] { entry(&into); });
  return nb::none();
}

// minmax into a two-element array of x's type: [min, max].
template <class T, class Entry>
nb::object deliver_pair(const array& x, const array* out, Entry entry) {
  using R = prism::minmax_result<T>;
  if (out == nullptr) return returned<R>("minmax", x, entry);
  (void)out->out<T>();  // the element type
  if (out->size != 2)
    throw std::invalid_argument("prism.minmax: out must have two elements (min, max), it has " +
                                std::to_string(out->size));
  prism::span<R> into = out->out_as<R>(1);
  device_scope device("minmax", {&x, out});
  without_gil([&] { entry(&into); });
  return nb::none();
}

[[noreturn]] void not_offered(const std::string& op, element type) {
  throw std::invalid_argument("prism." + op + ": not offered for " + name(type));
}

// Whether reduction Op is offered for T, for any element type visit() knows.
template <class Op, class T>
constexpr bool offers() {
  if constexpr (prism::reduce_element<T>) return ops::reduction<Op>::template offered<T>;
  else return false;
}

// One binding per reduction of the family's table (prism::ops::reductions).
template <class Op>
nb::object reduction(nb::handle x_, nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array x = take(x_, "x", false);
  std::optional<array> result;
  if (!out_.is_none()) result = take(out_, "out", true);
  const array* out = result ? &*result : nullptr;
  const auto p = policy(Op::name, which, stream);
  return visit(x.type, [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    if constexpr (offers<Op, T>()) {
      using R = typename ops::reduction<Op>::template result<T>;
      const auto in = x.in<T>();
      const auto entry = [&](auto* into) { return ops::reduction<Op>::template entry<T>(p, in, into); };
      if constexpr (std::is_same_v<R, prism::minmax_result<T>>) return deliver_pair<T>(x, out, entry);
      else return deliver<R>(Op::name, x, out, entry);
    }
    not_offered(Op::name, x.type);
  });
}

// The result's element type for an input of `type`, by the same table ("int64" for an index).
template <class Op>
std::string result_type(const std::string& type) {
  for (element e : elements)
    if (type == name(e))
      return visit(e, [&](auto tag) -> std::string {
        using T = typename decltype(tag)::type;
        if constexpr (offers<Op, T>()) {
          using R = typename ops::reduction<Op>::template result<T>;
          if constexpr (std::is_same_v<R, std::size_t>) return "int64";
          else if constexpr (std::is_same_v<R, prism::minmax_result<T>>) return name(e);
          else return name(element_of<R>());
        }
        not_offered(Op::name, e);
      });
  return type;  // a type prism does not read: the call itself refuses it, naming why
}

nb::object dot(nb::handle a_, nb::handle b_, nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array a = take(a_, "a", false), b = take(b_, "b", false);
  std::optional<array> result;
  if (!out_.is_none()) result = take(out_, "out", true);
  const array* out = result ? &*result : nullptr;
  const auto p = policy("dot", which, stream);
  return visit(a.type, [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    if constexpr (prism::signed_reduce_element<T>) {
      const auto x = a.in<T>(), y = b.in<T>();
      // b's device is checked by the library (host and device memory mixed, another GPU).
      return deliver<prism::sum_type<T>>("dot", a, out, [&](auto* into) { return detail::dot(p, x, y, into); });
    }
    not_offered("dot", a.type);
  });
}

prism::comparison comparison_from(const std::string& compare) {
  constexpr std::pair<std::string_view, prism::comparison> names[] = {
      {"==", comparison::equal}, {"!=", comparison::not_equal}, {"<", comparison::less},
      {"<=", comparison::less_equal}, {">", comparison::greater}, {">=", comparison::greater_equal}};
  for (auto [n, c] : names)
    if (n == compare) return c;
  throw std::invalid_argument("prism: unknown comparison '" + compare + "' (==, !=, <, <=, >, >=)");
}

nb::object count_if(nb::handle x_, const std::string& compare, nb::handle value_, nb::handle out_,
                    const std::string& which, std::uintptr_t stream) {
  const array x = take(x_, "x", false);
  std::optional<array> result;
  if (!out_.is_none()) result = take(out_, "out", true);
  const array* out = result ? &*result : nullptr;
  const comparison c = comparison_from(compare);
  const auto p = policy("count_if", which, stream);
  return visit(x.type, [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    if constexpr (prism::reduce_element<T>) {
      const T value = scalar_from<T>(value_, "value");
      const auto in = x.in<T>();
      return deliver<std::uint64_t>("count_if", x, out,
                                    [&](auto* into) { return detail::count_if(p, in, c, value, into); });
    }
    not_offered("count_if", x.type);
  });
}

}  // namespace

void bind_reduce(nb::module_& m) {
  using namespace nb::literals;
  // The table: _prism.reduce.<name>, its result type for each input type, and (name, doc) of each
  // for the Python layer's functions.
  nb::module_ r = m.def_submodule("reduce");
  nb::list names;
  for_each_type(ops::reductions{}, [&](auto t) {
    using Op = typename decltype(t)::type;
    r.def(Op::name, &reduction<Op>, "x"_a, "out"_a.none(), "impl"_a, "stream"_a);
    r.def((std::string(Op::name) + "_result_type").c_str(), &result_type<Op>, "type"_a);
    names.append(nb::make_tuple(Op::name, ops::reduction<Op>::doc));
  });
  r.attr("reductions") = names;
  m.def("dot", &dot, "a"_a, "b"_a, "out"_a.none(), "impl"_a, "stream"_a);
  m.def("count_if", &count_if, "x"_a, "compare"_a, "value"_a, "out"_a.none(), "impl"_a, "stream"_a);
}

}  // namespace prism::python
