// SPDX-License-Identifier: Apache-2.0
// The segmented family from Python: one reduction (sum, min, max, argmin, argmax) or one prefix sum
// per segment, the segments given by offsets (int32 or int64, one more than the segments) or by a
// fixed size (the rows of a matrix). Nothing waits: the results are written into the caller's
// arrays on the call's stream.
#include "arrays.hpp"

#include <prism/segmented.hpp>

#include <cstdint>
#include <string>

namespace prism::python {
namespace {

template <class T>
using segmented_elements = std::bool_constant<prism::segmented_element<T>>;

// Runs f(segments) for the offsets (int32 or int64) or, where `offsets` is None, fixed_segments.
template <class F>
void with_segments(const char* algorithm, const array* offsets, std::size_t size, F&& f) {
  if (offsets == nullptr) return f(prism::fixed_segments{size});
  switch (offsets->type) {
    case element::i32: return f(offsets->in<std::int32_t>());
    case element::i64: return f(offsets->in<std::int64_t>());
    default:
      throw std::invalid_argument(std::string("prism.") + algorithm + ": offsets of " + name(offsets->type) +
                                  " are not offered (int32, int64)");
  }
}

// Takes the values, the segments (offsets, or a fixed segment size) and out, then runs
// body(policy, values as T, segments, out) for the values' type, on their device.
template <class Body>
void over_segments(const char* algorithm, nb::handle values_, nb::handle offsets_, std::size_t segment_size,
                   nb::handle out_, const std::string& which, std::uintptr_t stream, Body&& body) {
  const array values = take(values_, "values", false), out = take(out_, "out", true);
  array offsets;
  const bool by_offsets = !offsets_.is_none();
  if (by_offsets) offsets = take(offsets_, "offsets", false);
  const auto p = policy(algorithm, which, stream);
  for_offered<segmented_elements>(values, algorithm, "values", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto x = values.in<T>();
    with_segments(algorithm, by_offsets ? &offsets : nullptr, segment_size, [&](auto segments) {
      device_scope device(algorithm, {&values, &out, by_offsets ? &offsets : &values});
      body(p, x, segments, out);
    });
  });
}

void segment_reduce(const std::string& op, nb::handle values_, nb::handle offsets_, std::size_t segment_size,
                    nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const std::string algorithm = "segmented_" + op;
  if (op != "sum" && op != "min" && op != "max" && op != "argmin" && op != "argmax") {
    throw std::invalid_argument("prism.segment_reduce: op is \"sum\", \"min\", \"max\", \"argmin\" or \"argmax\", not \"" +
                                op + "\"");
  }
  over_segments(algorithm.c_str(), values_, offsets_, segment_size, out_, which, stream,
                [&](const auto& p, auto x, auto segments, const array& out) {
                  using T = typename decltype(x)::value_type;
                  using P = prism::segment_position_t<decltype(segments)>;
                  if (op == "sum") {
                    const auto o = out.out<prism::sum_type<T>>();
                    without_gil([&] { prism::segmented_sum(p, x, segments, o); });
                  } else if (op == "min" || op == "max") {
                    const auto o = out.out<T>();
                    without_gil([&] {
                      if (op == "min") prism::segmented_min(p, x, segments, o);
                      else prism::segmented_max(p, x, segments, o);
                    });
                  } else {
                    const auto o = out.out<P>();
                    without_gil([&] {
                      if (op == "argmin") prism::segmented_argmin(p, x, segments, o);
                      else prism::segmented_argmax(p, x, segments, o);
                    });
                  }
                });
}

void segment_scan(bool exclusive, nb::handle values_, nb::handle offsets_, std::size_t segment_size, nb::handle out_,
                  const std::string& which, std::uintptr_t stream) {
  const char* algorithm = exclusive ? "segmented_exclusive_scan" : "segmented_inclusive_scan";
  over_segments(algorithm, values_, offsets_, segment_size, out_, which, stream,
                [&](const auto& p, auto x, auto segments, const array& out) {
                  const auto o = out.out<typename decltype(x)::value_type>();
                  without_gil([&] {
                    if (exclusive) prism::segmented_exclusive_scan(p, x, segments, o);
                    else prism::segmented_inclusive_scan(p, x, segments, o);
                  });
                });
}

}  // namespace

void bind_segmented(nb::module_& m) {
  using namespace nb::literals;
  m.def("segment_reduce", &segment_reduce, "op"_a, "values"_a, "offsets"_a.none(), "segment_size"_a, "out"_a,
        "impl"_a, "stream"_a);
  m.def("segment_scan", &segment_scan, "exclusive"_a, "values"_a, "offsets"_a.none(), "segment_size"_a, "out"_a,
        "impl"_a, "stream"_a);
}

}  // namespace prism::python
