// SPDX-License-Identifier: Apache-2.0
// prism_primitives._prism: the compiled layer of the Python package. It knows arrays only as what
// DLPack, the CUDA array interface or the buffer protocol says of them (address, type, shape,
// strides, device), and streams only as integer handles. A call (calls.cpp) finds the arrays'
// kinds, device and stream, hands them over, allocates results (results.cpp) and keeps arrays
// alive where it must; python/prism_primitives/__init__.py only names the operations.
//
// Errors cross into Python as nanobind translates the standard exceptions: std::invalid_argument
// (bad input, refused before anything is changed) as ValueError, prism::cuda_error and the other
// std::runtime_errors as RuntimeError with the whole message (CUDA's included).
#include "arrays.hpp"

#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/error.hpp>
#include <prism/version.hpp>

namespace prism::python {
void bind_search(nb::module_& m);  // python/src/search.cpp
void bind_segmented(nb::module_& m);  // python/src/segmented.cpp
void bind_top_k(nb::module_& m);   // python/src/top_k.cpp
namespace {

// The lowest layer, for the benchmark: the same binary call `times` times, its arguments taken
// once, so that what is timed is the C++ call alone.
void repeat_add(nb::handle a_, nb::handle b_, nb::handle out_, const std::string& which, std::uintptr_t stream,
                int times) {
  const array a = take(a_, "a", false), b = take(b_, "b", false), out = take(out_, "out", true);
  const auto p = policy("add", which, stream);
  const auto x = a.in<float>(), y = b.in<float>();
  const auto z = out.out<float>();
  device_scope device("add", {&a, &b, &out});
  without_gil([&] {
    for (int i = 0; i < times; ++i) prism::add(p, x, y, z);
  });
}

// The shape and element type of an array as prism reads it, for the Python layer's results like
// it (a capsule passed in is read, not consumed).
nb::tuple describe_array(nb::handle object) {
  auto [shape, type] = describe(object);
  nb::list extents;
  for (std::int64_t extent : shape) extents.append(extent);
  return nb::make_tuple(nb::tuple(extents), type);
}

}  // namespace
}  // namespace prism::python

NB_MODULE(_prism, m) {
  namespace py = prism::python;
  using namespace nanobind::literals;
  m.doc() = "prism's compiled layer: use the functions of prism_primitives instead";
  m.attr("version") = PRISM_VERSION_STRING;
  m.def("gpu_available", &prism::gpu_available);
  m.def("describe", &py::describe_array, "array"_a);
  m.def("repeat_add", &py::repeat_add, "a"_a, "b"_a, "out"_a, "impl"_a, "stream"_a, "times"_a);
  py::bind_elementwise(m);
  py::bind_reduce(m);
  py::bind_scan(m);
  py::bind_sort(m);
  py::bind_histogram(m);
  py::bind_merge(m);
  py::bind_search(m);
  py::bind_segmented(m);
  py::bind_top_k(m);
  py::bind_calls(m);
  py::bind_results(m);
  py::bind_runtime_kernels(m);
}
