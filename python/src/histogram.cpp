// SPDX-License-Identifier: Apache-2.0
// The histogram family from Python: counts of samples in equal bins over [lo, hi), or between the
// caller's edges. Nothing waits: the counts are written into the caller's array on the call's
// stream.
#include "arrays.hpp"

#include <prism/error.hpp>
#include <prism/histogram.hpp>

#include <string>
#include <vector>

namespace prism::python {
namespace {

template <class T>
using histogram_samples = std::bool_constant<prism::histogram_sample<T>>;

// Runs f(type_tag<T>{}) for a sample type the histogram family is compiled for; bool samples
// (NumPy's and PyTorch's: the bytes 0 and 1) are counted as uint8.
template <class F>
void for_samples(const array& samples, F&& f) {
  if (samples.type == element::boolean) return f(type_tag<std::uint8_t>{});
  for_offered<histogram_samples>(samples, "histogram", "samples", f);
}

// The samples as T (for_samples' type: uint8 for bool).
template <class T>
prism::span<const T> samples_of(const array& samples) {
  if (samples.type == element::boolean) return {static_cast<const T*>(samples.data), samples.size};
  return samples.in<T>();
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
    const auto x = samples_of<T>(samples);
    with_counts(counts, [&](auto c) {
      device_scope device("histogram", {&samples, &counts});
      without_gil([&] { prism::histogram(p, x, c, lo, hi); });
    });
  });
}

// Edges must be strictly increasing, without NaN: out of order they would count nothing, or
// count wrongly, without a word. The library checks host edges too, but reads device edges only on
// the GPU: here they are copied to the host and checked before the call, on the call's stream
// (after the producer's pending writes to them), which makes the call wait for them.
template <class L>
void require_increasing(const array& edges, prism::span<const L> e, std::uintptr_t stream) {
  std::vector<L> copy;
  const L* host = e.data();
  if (edges.device_type != 1 && e.size() > 1) {
    copy.resize(e.size());
    read_first(edges, copy.data(), e.size_bytes(), stream, "histogram");
    host = copy.data();
  }
  for (std::size_t k = 0; k + 1 < e.size(); ++k)
    if (!(host[k] < host[k + 1]))
      throw std::invalid_argument("prism.histogram: the edges must be strictly increasing (and not NaN): edges[" +
                                  std::to_string(k) + "] is not less than edges[" + std::to_string(k + 1) + "]");
}

void histogram_edges(nb::handle samples_, nb::handle edges_, nb::handle counts_, const std::string& which,
                     std::uintptr_t stream) {
  const array samples = take(samples_, "samples", false), edges = take(edges_, "edges", false),
              counts = take(counts_, "out", true);
  const auto p = policy("histogram", which, stream);
  for_samples(samples, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto x = samples_of<T>(samples);
    const auto e = edges.in<prism::histogram_level_t<T>>();  // the level type: int64 for integers
    with_counts(counts, [&](auto c) {
      device_scope device("histogram", {&samples, &edges, &counts});
      require_increasing(edges, e, stream);
      without_gil([&] { prism::histogram(p, x, e, c); });
    });
  });
}

}  // namespace

void bind_histogram(nb::module_& m) {
  using namespace nb::literals;
  m.def("histogram", &histogram, "samples"_a, "counts"_a, "lo"_a, "hi"_a, "impl"_a, "stream"_a);
  m.def("histogram_edges", &histogram_edges, "samples"_a, "edges"_a, "counts"_a, "impl"_a, "stream"_a);
}

}  // namespace prism::python
