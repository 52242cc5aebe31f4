// SPDX-License-Identifier: Apache-2.0
// The sort family from Python: stable radix sorts of keys, of keys with values, and the sorting
// permutation, of a whole array or of each row of one (the segmented sorts, rows of `cols`).
// Nothing waits: the results are written into the caller's arrays on the call's stream.
#include "arrays.hpp"

#include <prism/elementwise.hpp>
#include <prism/segmented_sort.hpp>
#include <prism/sort.hpp>

#include <nanobind/stl/optional.h>

#include <algorithm>
#include <string>

namespace prism::python {
namespace {

prism::sort_order order_of(bool descending) { return descending ? sort_order::descending : sort_order::ascending; }

template <class K>
using sort_keys = std::bool_constant<prism::sort_key<K>>;

// Runs f(type_tag<K>{}) for a key type the sort family is compiled for.
template <class F>
void for_sort_keys(const char* algorithm, const array& keys, F&& f) {
  for_offered<sort_keys>(keys, algorithm, "keys", f);
}

// Values travel with their keys as bits: any 4- or 8-byte element type, the same in and out.
template <class F>
void for_sort_values(const array& values, const array& values_out, F&& f) {
  values_out.require(values.type);
  switch (values.type) {
    case element::f32:
    case element::i32:
    case element::u32:
      return f(type_tag<std::uint32_t>{});
    case element::f64:
    case element::i64:
    case element::u64:
      return f(type_tag<std::uint64_t>{});
    default:
      throw std::invalid_argument(std::string("prism.sort_by_key: values of ") + name(values.type) +
                                  " are not offered (4- or 8-byte elements)");
  }
}

// The keys sorted whole, or each row of `cols` keys on its own (the last axis of a C-contiguous
// array: prism::segmented_sort).
void sort(nb::handle keys_, nb::handle out_, std::optional<std::size_t> cols, bool descending,
          const std::string& which, std::uintptr_t stream) {
  const array keys = take(keys_, "keys", false), out = take(out_, "out", true);
  const auto p = policy("sort", which, stream);
  for_sort_keys("sort", out, [&](auto tag) {
    using K = typename decltype(tag)::type;
    const auto in = keys.in<K>();
    const auto o = out.out<K>();
    device_scope device("sort", {&keys, &out});
    without_gil([&] {
      if (cols) prism::segmented_sort(p, in, prism::fixed_segments{*cols}, o, order_of(descending));
      else prism::sort(p, in, o, order_of(descending));
    });
  });
}

void sort_by_key(nb::handle keys_, nb::handle values_, nb::handle keys_out_, nb::handle values_out_, bool descending,
                 const std::string& which, std::uintptr_t stream) {
  const array keys = take(keys_, "keys", false), values = take(values_, "values", false),
              keys_out = take(keys_out_, "keys_out", true), values_out = take(values_out_, "values_out", true);
  const auto p = policy("sort_by_key", which, stream);
  for_sort_keys("sort_by_key", keys_out, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    for_sort_values(values, values_out, [&](auto value_tag) {
      using V = typename decltype(value_tag)::type;
      const auto k = keys.in<K>();
      const auto ko = keys_out.out<K>();
      const prism::span<const V> v(static_cast<const V*>(values.data), values.size);
      const auto vo = values_out.out_as<V>(values_out.size);
      device_scope device("sort_by_key", {&keys, &values, &keys_out, &values_out});
      without_gil([&] { prism::sort_by_key(p, k, v, ko, vo, order_of(descending)); });
    });
  });
}

void argsort(nb::handle keys_, nb::handle indices_, bool descending, const std::string& which,
             std::uintptr_t stream) {
  const array keys = take(keys_, "keys", false), indices = take(indices_, "out", true);
  const auto p = policy("argsort", which, stream);
  for_sort_keys("argsort", keys, [&](auto tag) {
    using K = typename decltype(tag)::type;
    const auto k = keys.in<K>();
    device_scope device("argsort", {&keys, &indices});
    if (indices.type == element::i32) {
      const auto i = indices.out<std::int32_t>();
      without_gil([&] { prism::argsort(p, k, i, order_of(descending)); });
    } else {
      const auto i = indices.out<std::int64_t>();  // refused here unless int64
      without_gil([&] { prism::argsort(p, k, i, order_of(descending)); });
    }
  });
}

// Each row's sorting permutation, positions within the row (int64): the positions 0 .. cols - 1
// written into every row (one row by sequence, then copies doubling the rows written), then
// carried as values by the segmented sort; the sorted keys go to `sorted`, discarded.
// Each row's positions 0 .. cols - 1 are written into `positions` (the call's own array, or out
// itself when the call made out), then sorted with the keys into out: a caller's out is written
// only by the sort, after every check.
void argsort_rows(nb::handle keys_, nb::handle sorted_, nb::handle positions_, nb::handle indices_, std::size_t cols,
                  bool descending, const std::string& which, std::uintptr_t stream) {
  const array keys = take(keys_, "keys", false), sorted = take(sorted_, "sorted keys", true),
              positions = take(positions_, "positions", true), indices = take(indices_, "out", true);
  const auto p = policy("argsort", which, stream);
  for_sort_keys("argsort", keys, [&](auto tag) {
    using K = typename decltype(tag)::type;
    const auto k = keys.in<K>();
    const auto s = sorted.out<K>();
    const auto i = indices.out<std::int64_t>();
    const auto at = positions.out<std::int64_t>();
    device_scope device("argsort", {&keys, &sorted, &positions, &indices});
    without_gil([&] {
      const std::size_t n = i.size();
      if (n != k.size() || at.size() != n) throw std::invalid_argument("prism.argsort: out must have the keys' size");
      if (cols > 0 && n > 0) {
        prism::sequence(p, at.subspan(0, std::min(cols, n)), std::int64_t{0});
        for (std::size_t have = cols; have < n; have *= 2) {
          const std::size_t more = std::min(have, n - have);
          prism::copy(p, prism::span<const std::int64_t>(at.subspan(0, more)), at.subspan(have, more));
        }
      }
      prism::segmented_sort_by_key(p, k, prism::span<const std::int64_t>(at), prism::fixed_segments{cols}, s, i,
                                   order_of(descending));
    });
  });
}

}  // namespace

void bind_sort(nb::module_& m) {
  using namespace nb::literals;
  m.def("sort", &sort, "keys"_a, "out"_a, "cols"_a.none(), "descending"_a, "impl"_a, "stream"_a);
  m.def("sort_by_key", &sort_by_key, "keys"_a, "values"_a, "keys_out"_a, "values_out"_a, "descending"_a, "impl"_a,
        "stream"_a);
  m.def("argsort", &argsort, "keys"_a, "indices"_a, "descending"_a, "impl"_a, "stream"_a);
  m.def("argsort_rows", &argsort_rows, "keys"_a, "sorted"_a, "positions"_a, "indices"_a, "cols"_a, "descending"_a,
        "impl"_a, "stream"_a);
}

}  // namespace prism::python
