// SPDX-License-Identifier: Apache-2.0
// The reduction family from Python. Each reduction delivers its result the two ways the C++ API
// does: returned (out is None: the call waits for the stream and the value comes back as a Python
// number) or written into a one-element array (nothing waits). The result types are the C++ ones:
// sum_type (int32 -> int64), real_type (mean of ints -> float64); an index or a count goes into an
// int64 or uint64 element (the same eight bytes for any value below 2^63).
#include "calls.hpp"

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

// The result array of type R for `into`: exactly R, or for an index or a count (Counted: R is
// size_t or uint64_t) either eight-byte integer type. A sum of unsigned integers is uint64 and
// counts as a value: exactly R.
template <class R, bool Counted>
prism::span<R> result_span(const array& out) {
  if constexpr (Counted) {
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
template <class R, bool Counted = false, class Entry>
nb::object deliver(const char* algorithm, const array& x, const array* out, Entry entry) {
  if (out == nullptr) return returned<R>(algorithm, x, entry);
  prism::span<R> into = result_span<R, Counted>(*out);
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

// A value returned to the host as NumPy's scalar of its type (a tuple of two for minmax); the
// scalar types are looked up once.
nb::object host_scalar(element type, nb::handle value) {
  static nb::object* types = new nb::object[std::size(elements)];
  nb::object& kind = types[static_cast<std::size_t>(type)];
  if (!kind.is_valid()) kind = nb::module_::import_("numpy").attr("dtype")(name(type)).attr("type");
  if (PyTuple_Check(value.ptr())) return nb::make_tuple(kind(value[0]), kind(value[1]));
  return kind(value);
}

// Where a reduction's value goes: `into` (the caller's out), or, for GPU input without one, a 0-d
// array of `type` the call allocates into it (of two elements for minmax); none: to the host.
std::optional<array> result_array(call& c, nb::object& into, const std::vector<std::int64_t>& shape, element type) {
  if (into.is_none() && c.returns_array()) into = c.allocate(shape, name(type));
  if (into.is_none()) return std::nullopt;
  return c.take(into, "out", true);
}

// One entry per reduction of the family's table (prism::ops::reductions): the whole call. Without
// out, GPU input gets a 0-d array of its kind (nothing waits, as torch.sum), host input a NumPy
// scalar (the call waits); with out (one element, two for minmax) nothing waits.
template <class Op>
nb::object reduction(nb::handle x_, nb::handle out_, const std::string& which, nb::handle stream) {
  call c({x_, out_}, stream);
  const array x = c.take(x_, "x", false);
  const auto p = policy(Op::name, which, c.stream());
  nb::object result = visit(x.type, [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    if constexpr (offers<Op, T>()) {
      using R = typename ops::reduction<Op>::template result<T>;
      constexpr bool pair = std::is_same_v<R, prism::minmax_result<T>>;
      // argmin and argmax: a position (int64, as NumPy's), not a uint64 value.
      constexpr bool index = std::is_same_v<Op, ops::argmin> || std::is_same_v<Op, ops::argmax>;
      const element type = [] {
        if constexpr (pair) return element_of<T>();  // [min, max] in x's type
        else if constexpr (index) return element::i64;
        else return element_of<R>();
      }();
      nb::object into = nb::borrow(out_);
      const std::optional<array> r =
          result_array(c, into, pair ? std::vector<std::int64_t>{2} : std::vector<std::int64_t>{}, type);
      const array* out = r ? &*r : nullptr;
      const auto in = x.in<T>();
      const auto entry = [&](auto* to) { return ops::reduction<Op>::template entry<T>(p, in, to); };
      nb::object value;
      if constexpr (pair) value = deliver_pair<T>(x, out, entry);
      else value = deliver<R, index>(Op::name, x, out, entry);
      return out != nullptr ? into : host_scalar(type, value);
    }
    not_offered(Op::name, x.type);
  });
  c.done();
  return result;
}

// sum a[i] * b[i], in sum's type; delivered as the reductions are.
nb::object dot(nb::handle a_, nb::handle b_, nb::handle out_, const std::string& which, nb::handle stream) {
  call c({a_, b_, out_}, stream);
  const array a = c.take(a_, "a", false), b = c.take(b_, "b", false);
  const auto p = policy("dot", which, c.stream());
  nb::object result = visit(a.type, [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    if constexpr (prism::signed_reduce_element<T>) {
      using R = prism::sum_type<T>;
      nb::object into = nb::borrow(out_);
      const std::optional<array> r = result_array(c, into, {}, element_of<R>());
      const array* out = r ? &*r : nullptr;
      const auto x = a.in<T>(), y = b.in<T>();
      // b's device is checked by the library (host and device memory mixed, another GPU).
      nb::object value = deliver<R>("dot", a, out, [&](auto* into) { return detail::dot(p, x, y, into); });
      return out != nullptr ? into : host_scalar(element_of<R>(), value);
    }
    not_offered("dot", a.type);
  });
  c.done();
  return result;
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
      return deliver<std::uint64_t, true>("count_if", x, out,
                                    [&](auto* into) { return detail::count_if(p, in, c, value, into); });
    }
    not_offered("count_if", x.type);
  });
}

// A count's value, from a one-element int64 or uint64 array on the host or a GPU: the call waits.
std::uint64_t read_count(nb::handle x_, std::uintptr_t stream) {
  const array x = take(x_, "count", false);
  if (count_span<std::uint64_t>(x).size() != 1)
    throw std::invalid_argument("prism: count has " + std::to_string(x.size) + " elements, expected 1");
  std::uint64_t value = 0;
  device_scope device("count_if", {&x});
  read_first(x, &value, sizeof value, stream, "count_if");
  return value;
}

}  // namespace

void bind_reduce(nb::module_& m) {
  using namespace nb::literals;
  // The table: _prism.reduce.<name>, and (name, doc) of each for the Python layer's functions.
  nb::module_ r = m.def_submodule("reduce");
  nb::list names;
  for_each_type(ops::reductions{}, [&](auto t) {
    using Op = typename decltype(t)::type;
    r.def(Op::name, &reduction<Op>, "x"_a, "out"_a.none(), "impl"_a, "stream"_a.none());
    names.append(nb::make_tuple(Op::name, ops::reduction<Op>::doc));
  });
  r.attr("reductions") = names;
  m.def("dot", &dot, "a"_a, "b"_a, "out"_a.none(), "impl"_a, "stream"_a.none());
  m.def("count_if", &count_if, "x"_a, "compare"_a, "value"_a, "out"_a.none(), "impl"_a, "stream"_a);
  m.def("read_count", &read_count, "count"_a, "stream"_a);
}

}  // namespace prism::python
