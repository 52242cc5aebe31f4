// SPDX-License-Identifier: Apache-2.0
// The search family from Python: the positions of many queries in one sorted array (lower and upper
// bounds, both at once), and whether each is there. Nothing waits: the results are written into
// the caller's arrays on the call's stream.
#include "arrays.hpp"

#include <prism/search.hpp>

#include <string>

namespace prism::python {
namespace {

template <class T>
using search_elements = std::bool_constant<prism::search_element<T>>;

prism::query_order order_of(bool sorted_queries) {
  return sorted_queries ? prism::query_order::sorted : prism::query_order::any;
}

// Runs f(type_tag<I>{}) for the positions' type of `out`: int32, int64, uint32 or uint64.
template <class F>
void for_positions(const char* algorithm, const array& out, F&& f) {
  switch (out.type) {
    case element::i32: return f(type_tag<std::int32_t>{});
    case element::i64: return f(type_tag<std::int64_t>{});
    case element::u32: return f(type_tag<std::uint32_t>{});
    case element::u64: return f(type_tag<std::uint64_t>{});
    default:
      throw std::invalid_argument(std::string("prism.") + algorithm + ": positions of " + name(out.type) +
                                  " are not offered (int32, int64, uint32, uint64)");
  }
}

// side "left": lower_bound (numpy.searchsorted's default), "right": upper_bound.
void bounds(const std::string& side, nb::handle sorted_, nb::handle queries_, nb::handle out_, bool sorted_queries,
            const std::string& which, std::uintptr_t stream) {
  if (side != "left" && side != "right") {
    throw std::invalid_argument("prism.searchsorted: side is \"left\" or \"right\", not \"" + side + "\"");
  }
  const bool left = side == "left";
  const char* algorithm = left ? "lower_bound" : "upper_bound";
  const array sorted = take(sorted_, "a", false), queries = take(queries_, "v", false), out = take(out_, "out", true);
  const auto p = policy(algorithm, which, stream);
  for_offered<search_elements>(sorted, algorithm, "elements", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto a = sorted.in<T>();
    const auto v = queries.in<T>();
    for_positions(algorithm, out, [&](auto index) {
      using I = typename decltype(index)::type;
      const auto o = out.out<I>();
      device_scope device(algorithm, {&sorted, &queries, &out});
      without_gil([&] {
        if (left) {
          prism::lower_bound(p, a, v, o, order_of(sorted_queries));
        } else {
          prism::upper_bound(p, a, v, o, order_of(sorted_queries));
        }
      });
    });
  });
}

void equal_range(nb::handle sorted_, nb::handle queries_, nb::handle lower_, nb::handle upper_, bool sorted_queries,
                 const std::string& which, std::uintptr_t stream) {
  const char* algorithm = "equal_range";
  const array sorted = take(sorted_, "a", false), queries = take(queries_, "v", false),
              lower = take(lower_, "lower", true), upper = take(upper_, "upper", true);
  const auto p = policy(algorithm, which, stream);
  for_offered<search_elements>(sorted, algorithm, "elements", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto a = sorted.in<T>();
    const auto v = queries.in<T>();
    for_positions(algorithm, lower, [&](auto index) {
      using I = typename decltype(index)::type;
      const auto lo = lower.out<I>();
      const auto hi = upper.out<I>();  // refused here unless of lower's type
      device_scope device(algorithm, {&sorted, &queries, &lower, &upper});
      without_gil([&] { prism::equal_range(p, a, v, lo, hi, order_of(sorted_queries)); });
    });
  });
}

void binary_search(nb::handle sorted_, nb::handle queries_, nb::handle found_, bool sorted_queries,
                   const std::string& which, std::uintptr_t stream) {
  const char* algorithm = "binary_search";
  const array sorted = take(sorted_, "a", false), queries = take(queries_, "v", false),
              found = take(found_, "out", true);
  const auto p = policy(algorithm, which, stream);
  if (found.type != element::boolean && found.type != element::u8) {
    throw std::invalid_argument(std::string("prism.binary_search: flags of ") + name(found.type) +
                                " are not offered (bool, uint8)");
  }
  for_offered<search_elements>(sorted, algorithm, "elements", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto a = sorted.in<T>();
    const auto v = queries.in<T>();
    const auto f = found.out_as<std::uint8_t>(found.size);  // bool and uint8: one byte, 0 or 1
    device_scope device(algorithm, {&sorted, &queries, &found});
    without_gil([&] { prism::binary_search(p, a, v, f, order_of(sorted_queries)); });
  });
}

}  // namespace

void bind_search(nb::module_& m) {
  using namespace nb::literals;
  m.def("bounds", &bounds, "side"_a, "a"_a, "v"_a, "out"_a, "sorted_queries"_a, "impl"_a, "stream"_a);
  m.def("equal_range", &equal_range, "a"_a, "v"_a, "lower"_a, "upper"_a, "sorted_queries"_a, "impl"_a, "stream"_a);
  m.def("binary_search", &binary_search, "a"_a, "v"_a, "out"_a, "sorted_queries"_a, "impl"_a, "stream"_a);
}

}  // namespace prism::python
