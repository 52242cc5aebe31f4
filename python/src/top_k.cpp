// SPDX-License-Identifier: Apache-2.0
// The top-k family from Python: the k best elements of each row (the last axis), or of each segment
// between offsets, and where they came from, into the caller's arrays, best first, ties by the
// lower index. Nothing waits.
#include "arrays.hpp"

#include <prism/top_k.hpp>

#include <cstdint>
#include <string>

namespace prism::python {
namespace {

template <class T>
using top_k_elements = std::bool_constant<prism::top_k_element<T>>;

void top_k(nb::handle x_, nb::handle offsets_, std::size_t row_length, std::size_t k, nb::handle values_,
           nb::handle indices_, bool largest, const std::string& which, std::uintptr_t stream) {
  const char* algorithm = "top_k";
  const array x = take(x_, "x", false), values = take(values_, "values", true),
              indices = take(indices_, "indices", true);
  array offsets;
  const bool by_offsets = !offsets_.is_none();
  if (by_offsets) offsets = take(offsets_, "offsets", false);
  const auto p = policy(algorithm, which, stream);
  for_offered<top_k_elements>(x, algorithm, "elements", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = x.in<T>();
    const auto v = values.out<T>();  // refused here unless of x's type
    const auto run = [&](auto index) {
      using I = typename decltype(index)::type;
      const auto i = indices.out<I>();
      device_scope device(algorithm, {&x, &values, &indices, by_offsets ? &offsets : &x});
      if (!by_offsets) return without_gil([&] { prism::top_k_rows(p, in, row_length, k, v, i, largest); });
      switch (offsets.type) {
        case element::i32: {
          const auto o = offsets.in<std::int32_t>();
          return without_gil([&] { prism::top_k_segments(p, in, o, k, v, i, largest); });
        }
        case element::i64: {
          const auto o = offsets.in<std::int64_t>();
          return without_gil([&] { prism::top_k_segments(p, in, o, k, v, i, largest); });
        }
        default:
          throw std::invalid_argument(std::string("prism.top_k: offsets of ") + name(offsets.type) +
                                      " are not offered (int32, int64)");
      }
    };
    switch (indices.type) {
      case element::i32: return run(type_tag<std::int32_t>{});
      case element::i64: return run(type_tag<std::int64_t>{});
      default:
        throw std::invalid_argument(std::string("prism.top_k: indices of ") + name(indices.type) +
                                    " are not offered (int32, int64)");
    }
  });
}

}  // namespace

void bind_top_k(nb::module_& m) {
  using namespace nb::literals;
  m.def("top_k", &top_k, "x"_a, "offsets"_a.none(), "row_length"_a, "k"_a, "values"_a, "indices"_a, "largest"_a,
        "impl"_a, "stream"_a);
}

}  // namespace prism::python
