// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every binding shares: an argument as prism sees it (address, element count, element type,
// where it lives), the implementation named by a string, the stream as an integer handle, the
// array's GPU made current for the call, and the call itself run without the GIL.
//
// Arrays arrive through three protocols, read here rather than by a library so that every field
// is checked before it is used: DLPack (a capsule from __dlpack__(stream=...), made by the call
// (calls.cpp) so that the producer orders its pending work before ours, or __dlpack__() of a host
// object), the CUDA array interface (version 0 to 3: Numba's and PyCUDA's arrays, and any object
// with __cuda_array_interface__; the consumer waits for the stream it names) and the buffer
// protocol. Nothing is converted: what the caller passed is what prism reads and writes, or the
// call is refused here.
#include "dlpack.hpp"

#include <prism/execution.hpp>
#include <prism/span.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace prism::python {

namespace nb = nanobind;

// The element types prism is compiled for, plus the byte-sized condition and flag types.
enum class element { f16, bf16, f32, f64, i32, i64, u32, u64, u8, boolean, i8, i16, u16 };

const char* name(element e) noexcept;
// DLPack's (code, bits, lanes) as one of prism's element types; none where prism has no such type.
std::optional<element> element_from(const dlpack::DataType& t);

// The C++ type of an element, for visit().
template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) for the C++ type of e.
template <class F>
decltype(auto) visit(element e, F&& f) {
  switch (e) {
    case element::f16: return f(type_tag<__half>{});
    case element::bf16: return f(type_tag<__nv_bfloat16>{});
    case element::f32: return f(type_tag<float>{});
    case element::f64: return f(type_tag<double>{});
    case element::i32: return f(type_tag<std::int32_t>{});
    case element::i64: return f(type_tag<std::int64_t>{});
    case element::u32: return f(type_tag<std::uint32_t>{});
    case element::u64: return f(type_tag<std::uint64_t>{});
    case element::u8: return f(type_tag<std::uint8_t>{});
    case element::boolean: return f(type_tag<bool>{});
    case element::i8: return f(type_tag<std::int8_t>{});
    case element::i16: return f(type_tag<std::int16_t>{});
    case element::u16: return f(type_tag<std::uint16_t>{});
  }
  throw std::logic_error("prism: unknown element type");
}

// Every element type, in visit()'s order.
inline constexpr element elements[] = {element::f16, element::bf16, element::f32, element::f64, element::i32,
                                       element::i64, element::u32, element::u64, element::u8, element::boolean,
                                       element::i8,  element::i16,  element::u16};

// "float32, float64, ...": the names of the element types for which offered(type_tag<T>{}) is
// true, for the messages that refuse the others.
template <class Offered>
std::string offered_names(Offered offered) {
  std::string names;
  for (element e : elements)
    visit(e, [&](auto tag) {
      if (offered(tag)) names += (names.empty() ? "" : ", ") + std::string(name(e));
    });
  return names;
}

template <class T>
constexpr element element_of() noexcept {
  if constexpr (std::is_same_v<T, __half>) return element::f16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return element::bf16;
  else if constexpr (std::is_same_v<T, float>) return element::f32;
  else if constexpr (std::is_same_v<T, double>) return element::f64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return element::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return element::i64;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return element::u32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return element::u64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return element::u8;
  else if constexpr (std::is_same_v<T, std::int8_t>) return element::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return element::i16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return element::u16;
  else {
    static_assert(std::is_same_v<T, bool>, "prism: not an element type of the Python module");
    return element::boolean;
  }
}

// One argument of a call, validated: a C-contiguous run of `size` elements of `type` at `data`,
// aligned to the element. It holds what the protocol lent (the buffer view, or the DLPack tensor
// whose deleter it calls when it goes), and so keeps the producer's array alive for as long as it
// lives; the call's spans are taken from it. Move-only; it must be destroyed with the GIL held.
struct array {
  void* data = nullptr;
  std::size_t size = 0;
  element type = element::f32;
  int device_type = 1;  // DLPack's: 1 CPU, 2 CUDA, 3 CUDA pinned host, 13 CUDA managed
  int device_id = 0;
  const char* role = "";

  array() = default;
  array(array&& other) noexcept { *this = std::move(other); }
  array& operator=(array&& other) noexcept;
  array(const array&) = delete;
  array& operator=(const array&) = delete;
  ~array() { release(); }

  bool on_gpu() const noexcept { return device_type == 2 || device_type == 13; }

  // The array as a span of T; throws std::invalid_argument unless its elements are T.
  template <class T>
  prism::span<const T> in() const {
    require(element_of<T>());
    return {static_cast<const T*>(data), size};
  }
  template <class T>
  prism::span<T> out() const {
    require(element_of<T>());
    return {static_cast<T*>(data), size};
  }
  // The same bytes as elements of another type of the same size (int64 counts as uint64, a
  // two-element array as one minmax pair).
  template <class T>
  prism::span<T> out_as(std::size_t count) const {
    return {static_cast<T*>(data), count};
  }
  void require(element expected) const;

  // What the protocols lent, given back when the array goes.
  struct buffer_release {
    void operator()(Py_buffer* view) const noexcept;
  };
  std::unique_ptr<Py_buffer, buffer_release> buffer_;  // on the heap: exporters may point into it
  void* managed_ = nullptr;   // a consumed DLPack tensor (ManagedTensor or ManagedTensorVersioned)
  bool versioned_ = false;
  nb::object keep_;           // a capsule read without being consumed

 private:
  void release() noexcept;
};

// Calls f(type_tag<T>{}) for the C++ type of a's elements where Offered<T>::value holds (the types
// a family is compiled for) and refuses any other type: "prism.<algorithm>: <what> of <type> are
// not offered (<the offered types>)". f returns R for every type it is called with.
template <template <class> class Offered, class R = void, class F>
R for_offered(const array& a, const char* algorithm, const char* what, F&& f) {
  return visit(a.type, [&](auto tag) -> R {
    if constexpr (Offered<typename decltype(tag)::type>::value) {
      return f(tag);
    } else {
      const std::string offered =
          offered_names([](auto t) { return Offered<typename decltype(t)::type>::value; });
      throw std::invalid_argument(std::string("prism.") + algorithm + ": " + what + " of " + name(a.type) +
                                  " are not offered (" + offered + ")");
    }
  });
}

// An index or a count: an int64 or uint64 array (the same eight bytes for any value below 2^63),
// seen as R (size_t or uint64_t).
template <class R>
prism::span<R> count_span(const array& a) {
  if (a.type != element::i64 && a.type != element::u64)
    throw std::invalid_argument(std::string("prism: ") + a.role + " is " + name(a.type) + ", expected int64 or uint64");
  return a.out_as<R>(a.size);
}

// The kinds of array a call knows by their type (its module), each read the way that is
// cheapest and right for it: numpy (the buffer protocol), torch and cupy (DLPack on the
// producer's stream), jax (DLPack; immutable, so never an output), numba and pycuda (the CUDA
// array interface, its dictionary cached per array), prism (prism's own result arrays), cai and
// dlpack (any other object with __cuda_array_interface__ or __dlpack__), buffer (any other object
// with the buffer protocol), other (none of these: refused when read).
enum class array_kind : std::uint8_t { numpy, torch, cupy, jax, numba, pycuda, prism, cai, dlpack, buffer, other };
const char* name(array_kind k) noexcept;
array_kind kind_of(nb::handle object);
// The C exchange table of DLPack 1.3 that object's type carries, for torch and CuPy (else null).
const dlpack::ExchangeAPI* exchange_api_of(nb::handle object);
// Whether object has the attribute (a protocol's): on its type (a property that raises counts) or itself.
bool has_protocol(nb::handle object, const char* attribute);

// An argument as the call hands it to take(): the object and the call's stream, so that the read
// can order the producer's work before the call's (DLPack's stream=, the CUDA array interface's
// stream field). A capsule named "prism.pending"; take() reads it once.
struct pending {
  nb::object object;
  array_kind kind;
  std::uintptr_t stream;       // the call's stream (0: the legacy default stream)
  std::int64_t dlpack_stream;  // the same as DLPack spells it (1 for the legacy default stream)
  int device;                  // the call's GPU, or -1 for a call on the host
};
nb::object make_pending(pending p);

// A stream handle from an int, a torch.cuda.Stream, a cupy Stream or anything with
// __cuda_stream__: a bool or another object is a TypeError, a handle that cannot be a stream a
// ValueError (0 the legacy default stream, 1 cudaStreamLegacy, 2 cudaStreamPerThread, else an
// address in user space: at least 2^16 and below user_space_end).
std::uintptr_t stream_handle(nb::handle stream);
extern const std::uint64_t user_space_end;

// Whether two handles name the same stream (0 and 1 are both the legacy default stream).
inline bool same_stream(std::uintptr_t a, std::uintptr_t b) noexcept {
  const auto legacy = [](std::uintptr_t s) { return s == 0 || s == 1; };
  return a == b || (legacy(a) && legacy(b));
}

// Makes `consumer` wait for the work queued on `producer` so far (an event recorded there), on
// `device`; nothing when they are the same stream.
void order_after(int device, std::uintptr_t producer, std::uintptr_t consumer, const char* what);

// What the call needs of an array with the CUDA array interface before it is read: its device
// (from the data pointer; 0 without a usable GPU) and the stream its producer names (none: 0).
// Every field is checked here (std::invalid_argument), before the call allocates a result.
struct cai_summary {
  int device = 0;
  std::uintptr_t stream = 0;
};
cai_summary summarize_cai(nb::handle object, array_kind kind);

// The element count of ndim extents (none negative), or nothing where count * item_bytes would
// reach 2^63 bytes (no memory holds that much, and sizes past it overflow in index arithmetic).
template <class Extent>
std::optional<std::size_t> count_below_2_63(const Extent* extents, int ndim, std::size_t item_bytes) {
  for (int i = 0; i < ndim; ++i)
    if (extents[i] == 0) return 0;
  const std::uint64_t most = static_cast<std::uint64_t>(INT64_MAX) / item_bytes;  // elements that fit
  std::uint64_t count = 1;
  for (int i = 0; i < ndim; ++i) {
    const auto extent = static_cast<std::uint64_t>(extents[i]);
    if (extent > most / count) return std::nullopt;
    count *= extent;
  }
  return static_cast<std::size_t>(count);
}

// Takes an argument: `role` names it in messages ("a", "out", ...). The object is a DLPack capsule
// (consumed), a call's pending argument, one of prism's arrays, an object with the buffer
// protocol, a host object with __dlpack__ (called without a stream) or an object with
// __cuda_array_interface__ (its stream, if it names one, synchronized: no call says which stream
// would wait). Throws std::invalid_argument for anything that is not a C-contiguous array of a
// supported type on the CPU or a CUDA device, of a size that fits in memory, aligned to its
// element, and for a read-only output.
array take(nb::handle object, const char* role, bool output);
// Copies a's first `bytes` into host memory: memcpy for host memory, else (device, managed or
// pinned memory, which GPU work may still be writing) on `stream`, waited for without the GIL; a
// stream capturing a graph is refused (std::invalid_argument, naming `algorithm` and a).
void read_first(const array& a, void* into, std::size_t bytes, std::uintptr_t stream, const char* algorithm);
// The same for a call's pending argument, read in place (no capsule), and for a DLPack tensor its
// producer lends for the call alone (the C exchange table's view: not consumed, nothing released).
array take(pending& p, const char* role, bool output);
array take(const dlpack::Tensor& t, const char* role);

// The same checks, for the Python layer's result allocation: the array's shape (its extents) and
// its element type's name. A capsule passed in is read without being consumed.
std::pair<std::vector<std::int64_t>, const char*> describe(nb::handle object);

// The size in bytes of one element.
std::size_t element_bytes(element e);
// The element type of a dtype's name (float32, bfloat16, ...); std::invalid_argument for another.
element element_named(std::string_view dtype_name);

// The implementation named `which`: automatic, cpu, thrust, raw_naive, raw, cub.
prism::impl implementation(const char* algorithm, const std::string& which);

// Sets the device of the call's GPU arrays current on this thread for the call's lifetime
// (prism runs on the current device), and restores the previous one. Throws a clear
// std::runtime_error naming the array's device when this process sees no such GPU.
class device_scope {
 public:
  device_scope(const char* algorithm, std::initializer_list<const array*> arrays);
  ~device_scope();
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = -1;
};

// The policy of a call: the implementation and the stream (an integer handle; 0 is the legacy
// default stream, 2 cudaStreamPerThread).
inline prism::execution_policy policy(const char* algorithm, const std::string& which,
                                      std::uintptr_t stream) {
  return prism::par.with(implementation(algorithm, which))
      .on(reinterpret_cast<cudaStream_t>(stream));
}

// Runs f() with the GIL released: prism's call may wait for a stream (a returned value) or run
// the cpu implementation on all cores, and other Python threads keep running meanwhile.
template <class F>
decltype(auto) without_gil(F&& f) {
  nb::gil_scoped_release release;
  return f();
}

// A scalar argument as the operation's scalar type (float for the 16-bit types): a Python int
// for integer types (out of range: std::invalid_argument), an int or float for floating ones.
template <class S>
S scalar_from(nb::handle value, const char* what) {
  if constexpr (std::is_integral_v<S>) {
    // Anything with __index__ (int, numpy.int64, ...), never a float: no silent truncation.
    nb::object index = nb::steal(PyNumber_Index(value.ptr()));
    if (!index.is_valid()) {
      PyErr_Clear();
      throw std::invalid_argument(std::string("prism: ") + what + " must be an integer for integer arrays");
    }
    S result{};
    if (!nb::try_cast<S>(index, result, false))
      throw std::invalid_argument(std::string("prism: ") + what + " is out of the array type's range");
    return result;
  } else {
    const double result = PyFloat_AsDouble(value.ptr());  // float, int, numpy scalars: __float__
    if (result == -1.0 && PyErr_Occurred()) {
      const bool overflow = PyErr_ExceptionMatches(PyExc_OverflowError);  // an int past double's range
      PyErr_Clear();
      throw std::invalid_argument(std::string("prism: ") + what +
                                  (overflow ? " is out of the array type's range" : " must be a real number"));
    }
    return static_cast<S>(result);
  }
}

// What each family registers on the module.
void bind_elementwise(nb::module_& m);
void bind_reduce(nb::module_& m);
void bind_scan(nb::module_& m);
void bind_sort(nb::module_& m);
void bind_histogram(nb::module_& m);
void bind_merge(nb::module_& m);
void bind_calls(nb::module_& m);
void bind_results(nb::module_& m);
void bind_runtime_kernels(nb::module_& m);

}  // namespace prism::python
