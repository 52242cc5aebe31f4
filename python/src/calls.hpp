// SPDX-License-Identifier: Apache-2.0
#pragma once
// One call from Python: where it runs (the first GPU array's device, else the host), on which
// stream (the producer's current one, or stream=), the arguments read in the cheapest way their
// kind allows, results allocated like the inputs, and arrays on a foreign stream kept alive until
// it has passed the call. The busiest operations (the element-wise table, the reductions) are one
// C++ entry each that makes its call here and reads its arrays with take(); the others are made
// from Python through _prism.Call, which hands each array over as an object (operator()):
//
//   call = _prism.Call((a, b, out), stream)   # stream: None, an int, or a stream object
//   out = call.like(a) if out is None else out
//   _prism.sort(call(a), call(out), impl, call.stream)
//   call.done()
//
// Arrays whose type carries DLPack's C exchange table (PyTorch's tensors) are read through it, on
// the producer's current stream: the array's layout and the library's current stream come from C
// function pointers, without a Python call.
#include "arrays.hpp"
#include "results.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace prism::python {

class call {
 public:
  // The call's arrays (None where an optional one is absent) and stream= (None, an int handle, or
  // a stream object).
  call(std::span<const nb::handle> arrays, nb::handle stream);
  call(std::initializer_list<nb::handle> arrays, nb::handle stream)
      : call(std::span<const nb::handle>(arrays.begin(), arrays.size()), stream) {}

  // x read for the compiled layer (std::invalid_argument with `role` in the message if it cannot
  // be), ordered after its producer's pending work where the call's stream is not the producer's.
  array take(nb::handle x, const char* role, bool output);
  // x handed to the compiled layer's take() as an object: host arrays as they are, torch and CuPy
  // arrays as DLPack capsules on the call's stream, the others as a pending argument.
  nb::object operator()(nb::handle x);
  // After the call: the arrays of a call on a foreign stream are kept until the stream passes it;
  // results handed to JAX are complete before JAX sees them.
  void done();

  // A result of `shape` and dtype `dtype_name`: on the host a NumPy array (a torch tensor for
  // torch's host tensors); on a GPU prism's own memory, on the call's stream, handed back as the
  // input's kind of array, or as a prism.Array for kinds prism does not know.
  nb::object allocate(const std::vector<std::int64_t>& shape, const std::string& dtype_name);
  nb::object empty(nb::handle shape, const std::string& dtype_name);
  // A result shaped like x (flattened when asked), of x's dtype or `dtype`.
  nb::object like(nb::handle x, nb::handle dtype, bool flat);

  std::uintptr_t stream() const noexcept { return stream_; }
  int device() const noexcept { return device_; }
  const char* kind() const noexcept { return name(kind_); }
  // Whether a reduction without out= returns an array (GPU arrays: nothing waits; torch's host
  // tensors, as torch.sum does) rather than a NumPy scalar.
  bool returns_array() const noexcept { return device_ >= 0 || kind_ == array_kind::torch; }
  bool foreign() const noexcept { return foreign_; }

  // A view lent by a C exchange table, for the arrays read through one.
  struct lent {
    PyObject* object;
    dlpack::Tensor tensor;
  };

 private:
  void see(nb::handle x);
  void settle(nb::handle stream);
  nb::object hand_over(nb::handle x);
  const lent* view(nb::handle x);

  array_kind kind_ = array_kind::numpy;
  nb::object like_;
  std::vector<std::pair<nb::object, device_array>> own_results_;  // (a result handed out, prism's array under it)
  std::array<lent, 8> lent_{};  // the views asked so far (no allocation: a call has a few arrays)
  std::size_t lent_count_ = 0;
  int device_ = -1;
  std::uintptr_t producer_ = 0, stream_ = 0;
  nb::object producer_owner_;
  nb::object stream_owner_;  // the Python object that keeps stream_ alive (none for an int handle)
  std::int64_t dlpack_stream_ = 1;
  bool foreign_ = false;
  bool wait_for_results_ = false;
  std::vector<nb::object> arrays_;
};

}  // namespace prism::python
