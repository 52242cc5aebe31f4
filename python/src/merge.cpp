// SPDX-License-Identifier: Apache-2.0
// The merge family from Python: merging two sorted arrays (with values carried along) and the set
// operations of two sorted arrays, whose count comes back returned (the call waits) or into a
// one-element int64/uint64 array (nothing waits).
#include "arrays.hpp"

#include <prism/merge.hpp>

#include <optional>
#include <string>

namespace prism::python {
namespace {

template <class K>
using merge_keys = std::bool_constant<prism::merge_key<K>>;

// Runs f(type_tag<K>{}) for a key type the family is compiled for.
template <class R = void, class F>
R for_merge_keys(const char* algorithm, const array& keys, F&& f) {
  return for_offered<merge_keys, R>(keys, algorithm, "keys", f);
}

void merge(nb::handle a_, nb::handle b_, nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array a = take(a_, "a", false), b = take(b_, "b", false), out = take(out_, "out", true);
  const auto p = policy("merge", which, stream);
  for_merge_keys("merge", out, [&](auto tag) {
    using K = typename decltype(tag)::type;
    const auto x = a.in<K>();
    const auto y = b.in<K>();
    const auto o = out.out<K>();
    device_scope device("merge", {&a, &b, &out});
    without_gil([&] { prism::merge(p, x, y, o); });
  });
}

// Values travel with their keys as bits: any 4- or 8-byte element type, the same in all three.
template <class F>
void for_merge_values(const array& values_a, const array& values_b, const array& values_out, F&& f) {
  values_b.require(values_a.type);
  values_out.require(values_a.type);
  switch (values_a.type) {
    case element::f32:
    case element::i32:
    case element::u32:
      return f(type_tag<std::uint32_t>{});
    case element::f64:
    case element::i64:
    case element::u64:
      return f(type_tag<std::uint64_t>{});
    default:
      throw std::invalid_argument(std::string("prism.merge_by_key: values of ") + name(values_a.type) +
                                  " are not offered (4- or 8-byte elements)");
  }
}

void merge_by_key(nb::handle keys_a_, nb::handle values_a_, nb::handle keys_b_, nb::handle values_b_,
                  nb::handle keys_out_, nb::handle values_out_, const std::string& which, std::uintptr_t stream) {
  const array keys_a = take(keys_a_, "keys_a", false), values_a = take(values_a_, "values_a", false),
              keys_b = take(keys_b_, "keys_b", false), values_b = take(values_b_, "values_b", false),
              keys_out = take(keys_out_, "keys_out", true), values_out = take(values_out_, "values_out", true);
  const auto p = policy("merge_by_key", which, stream);
  for_merge_keys("merge_by_key", keys_out, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    for_merge_values(values_a, values_b, values_out, [&](auto value_tag) {
      using V = typename decltype(value_tag)::type;
      const prism::span<const V> va(static_cast<const V*>(values_a.data), values_a.size);
      const prism::span<const V> vb(static_cast<const V*>(values_b.data), values_b.size);
      const auto vo = values_out.out_as<V>(values_out.size);
      const auto ka = keys_a.in<K>();
      const auto kb = keys_b.in<K>();
      const auto ko = keys_out.out<K>();
      device_scope device("merge_by_key", {&keys_a, &values_a, &keys_b, &values_b, &keys_out, &values_out});
      without_gil([&] { prism::merge_by_key(p, ka, va, kb, vb, ko, vo); });
    });
  });
}

prism::set_operation set_operation_from(const std::string& op) {
  for (auto o : {set_operation::set_union, set_operation::set_intersection, set_operation::set_difference,
                 set_operation::set_symmetric_difference})
    if (op == prism::name(o)) return o;
  throw std::invalid_argument("prism: unknown set operation '" + op + "'");
}

// One set operation, by its tag in the family's table (prism::ops::set_algorithms).
template <class Op, class K>
std::size_t run_set(const execution_policy& p, prism::span<const K> a, prism::span<const K> b, prism::span<K> out,
                    prism::span<std::size_t>* count) {
  if (count != nullptr) {
    prism::ops::call<Op>(p, a, b, out, *count);
    return 0;
  }
  return prism::ops::call<Op>(p, a, b, out);
}

nb::object set_operation(const std::string& op, nb::handle a_, nb::handle b_, nb::handle out_, nb::handle count_,
                         const std::string& which, std::uintptr_t stream) {
  const prism::set_operation o = set_operation_from(op);
  const char* algorithm = std::string_view(prism::name(o)).data();
  const array a = take(a_, "a", false), b = take(b_, "b", false), out = take(out_, "out", true);
  std::optional<array> count;
  if (!count_.is_none()) count = take(count_, "count", true);
  const auto p = policy(algorithm, which, stream);
  return for_merge_keys<nb::object>(algorithm, out, [&](auto tag) -> nb::object {
    using K = typename decltype(tag)::type;
    const auto x = a.in<K>();
    const auto y = b.in<K>();
    const auto r = out.out<K>();
    device_scope device(algorithm, {&a, &b, &out, count ? &*count : nullptr});
    const auto entry = [&](prism::span<std::size_t>* c) -> std::size_t {
      std::size_t n = 0;
      prism::for_each_type(prism::ops::set_algorithms{}, [&](auto op_tag) {
        using Op = typename decltype(op_tag)::type;
        if (prism::ops::set_algorithm<Op>::which == o) n = run_set<Op, K>(p, x, y, r, c);
      });
      return n;
    };
    if (!count) return nb::int_(without_gil([&] { return entry(nullptr); }));
    prism::span<std::size_t> c = count_span<std::size_t>(*count);
    without_gil([&] { entry(&c); });
    return nb::none();
  });
}

}  // namespace

void bind_merge(nb::module_& m) {
  using namespace nb::literals;
  m.def("merge", &merge, "a"_a, "b"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("merge_by_key", &merge_by_key, "keys_a"_a, "values_a"_a, "keys_b"_a, "values_b"_a, "keys_out"_a,
        "values_out"_a, "impl"_a, "stream"_a);
  m.def("set_operation", &set_operation, "op"_a, "a"_a, "b"_a, "out"_a, "count"_a.none(), "impl"_a, "stream"_a);
}

}  // namespace prism::python
