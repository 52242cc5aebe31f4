// SPDX-License-Identifier: Apache-2.0
// The sort and histogram families from Python: stable radix sorts (keys, keys with values, the
// sorting permutation) and histograms (equal bins, or between edges). Nothing waits: the results
// are written into the caller's arrays on the call's stream.
#include "arrays.hpp"

#include <prism/histogram.hpp>
#include <prism/sort.hpp>

#include <string>

namespace prism::python {
namespace {

prism::sort_order order_of(bool descending) { return descending ? sort_order::descending : sort_order::ascending; }

// Runs f(type_tag<K>{}) for a key type the sort family is compiled for.
template <class F>
void for_sort_keys(const char* algorithm, const array& keys, F&& f) {
  visit(keys.type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    if constexpr (prism::sort_key<K>) {
      f(tag);
    } else {
      throw std::invalid_argument(std::string("prism.") + algorithm + ": keys of " + name(keys.type) +
                                  " are not offered (int32, int64, uint32, uint64, float32, float64)");
    }
  });
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

void sort(nb::handle keys_, nb::handle out_, bool descending, const std::string& which, std::uintptr_t stream) {
  const array keys = take(keys_, "keys", false), out = take(out_, "out", true);
  const auto p = policy("sort", which, stream);
  for_sort_keys("sort", out, [&](auto tag) {
    using K = typename decltype(tag)::type;
    const auto in = keys.in<K>();
    const auto o = out.out<K>();
    device_scope device("sort", {&keys, &out});
    without_gil([&] { prism::sort(p, in, o, order_of(descending)); });
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

// Runs f(type_tag<T>{}) for a sample type the histogram family is compiled for.
template <class F>
void for_samples(const array& samples, F&& f) {
  visit(samples.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (prism::histogram_sample<T>) {
      f(tag);
    } else {
      throw std::invalid_argument(std::string("prism.histogram: samples of ") + name(samples.type) +
                                  " are not offered (uint8, int32, float32, float64)");
    }
  });
}

// Runs f(counts) with the counts as uint32 or uint64 (an int64 array as uint64: the same bits for
// any count below 2^63).
template <class F>
void with_counts(const array& counts, F&& f) {
  if (counts.type == element::u32) return f(counts.out<std::uint32_t>());
  if (counts.type == element::u64 || counts.type == element::i64) return f(counts.out_as<std::uint64_t>(counts.size));
  throw std::invalid_argument(std::string("prism: ") + counts.role + " is " + name(counts.type) +
                              ", expected int64, uint64 or uint32");
}

void histogram(nb::handle samples_, nb::handle counts_, nb::handle lo_, nb::handle hi_, const std::string& which,
               std::uintptr_t stream) {
  const array samples = take(samples_, "samples", false), counts = take(counts_, "out", true);
  const auto p = policy("histogram", which, stream);
  for_samples(samples, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using L = prism::histogram_level_t<T>;
    const L lo = scalar_from<L>(lo_, "lo"), hi = scalar_from<L>(hi_, "hi");
    const auto x = samples.in<T>();
    with_counts(counts, [&](auto c) {
      device_scope device("histogram", {&samples, &counts});
      without_gil([&] { prism::histogram(p, x, c, lo, hi); });
    });
  });
}

void histogram_edges(nb::handle samples_, nb::handle edges_, nb::handle counts_, const std::string& which,
                     std::uintptr_t stream) {
  const array samples = take(samples_, "samples", false), edges = take(edges_, "edges", false),
              counts = take(counts_, "out", true);
  const auto p = policy("histogram", which, stream);
  for_samples(samples, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto x = samples.in<T>();
    const auto e = edges.in<prism::histogram_level_t<T>>();  // the level type: int64 for integers
    with_counts(counts, [&](auto c) {
      device_scope device("histogram", {&samples, &edges, &counts});
      without_gil([&] { prism::histogram(p, x, e, c); });
    });
  });
}

}  // namespace

void bind_sort(nb::module_& m) {
  using namespace nb::literals;
  m.def("sort", &sort, "keys"_a, "out"_a, "descending"_a, "impl"_a, "stream"_a);
  m.def("sort_by_key", &sort_by_key, "keys"_a, "values"_a, "keys_out"_a, "values_out"_a, "descending"_a, "impl"_a,
        "stream"_a);
  m.def("argsort", &argsort, "keys"_a, "indices"_a, "descending"_a, "impl"_a, "stream"_a);
  m.def("histogram", &histogram, "samples"_a, "counts"_a, "lo"_a, "hi"_a, "impl"_a, "stream"_a);
  m.def("histogram_edges", &histogram_edges, "samples"_a, "edges"_a, "counts"_a, "impl"_a, "stream"_a);
}

}  // namespace prism::python
