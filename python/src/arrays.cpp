// SPDX-License-Identifier: Apache-2.0
#include "arrays.hpp"

#include <prism/buffer.hpp>
#include <prism/error.hpp>

#include "dlpack.hpp"
#include "results.hpp"

#include <bit>
#include <climits>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

namespace prism::python {

const char* name(element e) noexcept {
  switch (e) {
    case element::f16: return "float16";
    case element::bf16: return "bfloat16";
    case element::f32: return "float32";
    case element::f64: return "float64";
    case element::i32: return "int32";
    case element::i64: return "int64";
    case element::u32: return "uint32";
    case element::u64: return "uint64";
    case element::u8: return "uint8";
    case element::boolean: return "bool";
    case element::i8: return "int8";
    case element::i16: return "int16";
    case element::u16: return "uint16";
  }
  return "unknown";
}

std::size_t element_bytes(element e) {
  return visit(e, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

element element_named(std::string_view dtype_name) {
  for (element e : elements)
    if (dtype_name == name(e)) return e;
  throw std::invalid_argument("prism: no element type " + std::string(dtype_name) +
                              " (float16, bfloat16, float32, float64, int32, int64, uint32, uint64, uint8, bool, int8, "
                              "int16, uint16)");
}

void array::require(element expected) const {
  if (type != expected)
    throw std::invalid_argument(std::string("prism: ") + role + " is " + name(type) + ", expected " +
                                name(expected) + " (arrays are not converted: cast first)");
}

array& array::operator=(array&& other) noexcept {
  if (this != &other) {
    release();
    data = other.data;
    size = other.size;
    type = other.type;
    device_type = other.device_type;
    device_id = other.device_id;
    role = other.role;
    buffer_ = std::move(other.buffer_);
    managed_ = std::exchange(other.managed_, nullptr);
    versioned_ = other.versioned_;
    keep_ = std::move(other.keep_);
  }
  return *this;
}

void array::buffer_release::operator()(Py_buffer* view) const noexcept {
  PyBuffer_Release(view);
  delete view;
}

void array::release() noexcept {
  buffer_.reset();
  if (managed_ != nullptr) {
    if (versioned_) {
      auto* m = static_cast<dlpack::ManagedTensorVersioned*>(managed_);
      if (m->deleter != nullptr) m->deleter(m);
    } else {
      auto* m = static_cast<dlpack::ManagedTensor*>(managed_);
      if (m->deleter != nullptr) m->deleter(m);
    }
    managed_ = nullptr;
  }
  keep_.reset();
}

// DLPack's (code, bits, lanes) as one of prism's element types.
std::optional<element> element_from(const dlpack::DataType& t) {
  if (t.lanes != 1) return std::nullopt;
  const auto is = [&](std::uint8_t code, int bits) { return t.code == code && t.bits == bits; };
  if (is(dlpack::float_code, 16)) return element::f16;
  if (is(dlpack::bfloat_code, 16)) return element::bf16;
  if (is(dlpack::float_code, 32)) return element::f32;
  if (is(dlpack::float_code, 64)) return element::f64;
  if (is(dlpack::int_code, 32)) return element::i32;
  if (is(dlpack::int_code, 64)) return element::i64;
  if (is(dlpack::uint_code, 32)) return element::u32;
  if (is(dlpack::uint_code, 64)) return element::u64;
  if (is(dlpack::uint_code, 8)) return element::u8;
  if (is(dlpack::bool_code, 8)) return element::boolean;
  if (is(dlpack::int_code, 8)) return element::i8;
  if (is(dlpack::int_code, 16)) return element::i16;
  if (is(dlpack::uint_code, 16)) return element::u16;
  return std::nullopt;
}

namespace {

std::string describe_device(int type, int id) {
  switch (type) {
    case 1: return "cpu";
    case 2: return "cuda:" + std::to_string(id);
    case 3: return "cuda_host";
    case 13: return "cuda_managed:" + std::to_string(id);
    case 4: return "opencl:" + std::to_string(id);
    case 7: return "vulkan:" + std::to_string(id);
    case 8: return "metal:" + std::to_string(id);
    case 10: return "rocm:" + std::to_string(id);
    default: return "DLPack device type " + std::to_string(type) + ":" + std::to_string(id);
  }
}

[[noreturn]] void refuse(const array& a, const std::string& what) {
  throw std::invalid_argument(std::string("prism: ") + a.role + " " + what);
}

// What a protocol says of an array's layout, before it is trusted: ndim extents and their strides
// (in elements for DLPack, in bytes for the buffer protocol; null: C-contiguous).
template <class Extent>
struct layout {
  int ndim = 0;
  const Extent* shape = nullptr;
  const Extent* strides = nullptr;
};

// The element count of a layout, refused where an extent is negative or where count * item_bytes
// would not fit in 63 bits (no memory holds that much, and sizes past it overflow in the kernels'
// index arithmetic).
template <class Extent>
std::size_t element_count(const array& a, const layout<Extent>& l, std::size_t item_bytes) {
  for (int i = 0; i < l.ndim; ++i)
    if (l.shape[i] < 0)
      refuse(a, "has a negative extent (" + std::to_string(l.shape[i]) + " in dimension " + std::to_string(i) + ")");
  const std::optional<std::size_t> count = count_below_2_63(l.shape, l.ndim, item_bytes);
  if (!count) refuse(a, "is too large: its extents multiply past 2^63 bytes (a corrupt or hostile shape)");
  return *count;
}

// Elements one after another, in row-major order: what a span is. Dimensions of extent 1, and
// arrays of 0 or 1 elements, may have any strides (as NumPy's and PyTorch's own tests allow).
// `unit` is the stride of the last dimension: 1 for DLPack's element strides, the item size for
// the buffer protocol's byte strides. No product overflows: each is at most count * unit.
template <class Extent>
void require_contiguous(const array& a, const layout<Extent>& l, std::size_t count, std::int64_t unit) {
  if (l.strides == nullptr || count <= 1) return;
  std::int64_t expected = unit;
  for (int i = l.ndim; i-- > 0;) {
    if (l.shape[i] != 1 && static_cast<std::int64_t>(l.strides[i]) != expected)
      refuse(a, "is not contiguous (prism reads and writes arrays in place, without copies: pass a "
                "C-contiguous array)");
    expected *= static_cast<std::int64_t>(l.shape[i]);
  }
}

// Where a process's memory ends: no 64-bit system maps user memory (host or CUDA's unified
// addresses) at or past 2^57 (x86-64's five-level page tables stop at 2^56, arm64 at 2^52).
constexpr std::uintptr_t end_of_memory = std::uintptr_t{1} << 57;

// The data address, checked: not null when there are elements, the end of its bytes within a
// process's memory, and a multiple of the element size (the kernels read whole elements).
void place(array& a, std::uintptr_t address, std::size_t bytes, std::size_t item_bytes) {
  if (address == 0 && a.size > 0) refuse(a, "has a null data pointer");
  if (address > end_of_memory || bytes > end_of_memory - address)
    refuse(a, "has a data address whose bytes run past the end of memory");
  if (address % item_bytes != 0)
    refuse(a, "is misaligned: its address is not a multiple of its element size (" + std::to_string(item_bytes) +
                  " bytes of " + name(a.type) + "); prism reads elements in place, without copies");
  a.data = reinterpret_cast<void*>(address);
}

// ---- DLPack ----------------------------------------------------------------------------------------

std::string describe_dtype(const dlpack::DataType& t) {
  const char* kind = t.code == dlpack::int_code      ? "int"
                     : t.code == dlpack::uint_code   ? "uint"
                     : t.code == dlpack::float_code  ? "float"
                     : t.code == dlpack::bfloat_code ? "bfloat"
                     : t.code == 5                   ? "complex"
                     : t.code == dlpack::bool_code   ? "bool"
                                                     : nullptr;
  std::string text = kind != nullptr ? kind + std::to_string(t.bits)
                                     : "DLPack type code " + std::to_string(t.code) + " of " + std::to_string(t.bits) +
                                           " bits";
  if (t.lanes != 1) text += " in vectors of " + std::to_string(t.lanes) + " lanes";
  return text;
}

// Reads a DLPack tensor into a; shape, when asked for, receives its extents.
void read_tensor(array& a, const dlpack::Tensor& t, std::vector<std::int64_t>* shape) {
  const int dt = t.device.device_type;
  if (dt != dlpack::cpu && dt != dlpack::cuda && dt != dlpack::cuda_host && dt != dlpack::cuda_managed)
    refuse(a, "lives on " + describe_device(dt, t.device.device_id) + "; prism runs on the CPU and on CUDA devices");
  if (t.device.device_id < 0)
    refuse(a, "names device " + std::to_string(t.device.device_id) + " (DLPack device ids are not negative)");
  a.device_type = dt;
  a.device_id = t.device.device_id;
  if (t.ndim < 0 || t.ndim > 64)
    refuse(a, "has " + std::to_string(t.ndim) + " dimensions (DLPack tensors have 0 to 64)");
  if (t.ndim > 0 && t.shape == nullptr) refuse(a, "has " + std::to_string(t.ndim) + " dimensions but no shape");
  const auto type = element_from(t.dtype);
  if (!type) refuse(a, "has an element type prism does not support (" + describe_dtype(t.dtype) + ")");
  a.type = *type;
  const std::size_t item = element_bytes(a.type);
  const layout<std::int64_t> l{t.ndim, t.shape, t.strides};
  a.size = element_count(a, l, item);
  require_contiguous(a, l, a.size, 1);
  const auto base = reinterpret_cast<std::uintptr_t>(t.data);
  if (t.byte_offset > UINTPTR_MAX - base) refuse(a, "has a byte_offset that runs past the end of memory");
  if (base == 0 && a.size > 0) refuse(a, "has a null data pointer");
  place(a, base + static_cast<std::uintptr_t>(t.byte_offset), a.size * item, item);
  if (shape != nullptr) shape->assign(t.shape, t.shape + t.ndim);
}

bool is_named(const char* name, const char* expected) { return name != nullptr && std::strcmp(name, expected) == 0; }

// The managed tensor of a capsule named `name`.
template <class Managed>
Managed* capsule_tensor(array& a, nb::handle capsule, const char* name) {
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (m == nullptr) {
    PyErr_Clear();
    refuse(a, "is a DLPack capsule without a tensor");
  }
  return m;
}

// The tensor becomes a's: the capsule renamed as the protocol asks, the deleter called when a goes.
void consume_capsule(array& a, nb::handle capsule, const char* used_name, void* managed, bool versioned) {
  if (PyCapsule_SetName(capsule.ptr(), used_name) != 0) nb::raise_python_error();
  a.managed_ = managed;
  a.versioned_ = versioned;
}

// Reads a DLPack capsule. Consumed (the tensor is a's, renamed as the protocol asks, its deleter
// called when a goes) only once every field has passed; a refused capsule stays its producer's,
// freed by its own destructor.
void read_capsule(array& a, nb::handle capsule, bool output, bool consume, std::vector<std::int64_t>* shape) {
  const char* name = PyCapsule_GetName(capsule.ptr());
  if (name == nullptr && PyErr_Occurred()) {
    PyErr_Clear();
    refuse(a, "is an invalid capsule");
  }
  if (is_named(name, dlpack::capsule_name)) {
    auto* m = capsule_tensor<dlpack::ManagedTensor>(a, capsule, dlpack::capsule_name);
    read_tensor(a, m->dl_tensor, shape);
    if (consume) consume_capsule(a, capsule, dlpack::used_capsule_name, m, false);
  } else if (is_named(name, dlpack::versioned_capsule_name)) {
    auto* m = capsule_tensor<dlpack::ManagedTensorVersioned>(a, capsule, dlpack::versioned_capsule_name);
    // Past another major version nothing but the version may be read.
    if (m->version.major != dlpack::major_version)
      refuse(a, "is a DLPack " + std::to_string(m->version.major) + "." + std::to_string(m->version.minor) +
                    " tensor; prism reads DLPack 1.x");
    if (output && (m->flags & dlpack::flag_read_only) != 0)
      refuse(a, "is read-only (its DLPack tensor says so): an output must be writable");
    read_tensor(a, m->dl_tensor, shape);
    if (consume) consume_capsule(a, capsule, dlpack::used_versioned_capsule_name, m, true);
  } else if (is_named(name, dlpack::used_capsule_name) || is_named(name, dlpack::used_versioned_capsule_name)) {
    refuse(a, "is a DLPack capsule that was already consumed (each capsule is used once: call __dlpack__() again)");
  } else {
    refuse(a, std::string("is a capsule that holds no DLPack tensor (its name is ") +
                  (name != nullptr ? "'" + std::string(name) + "'" : std::string("null")) + ")");
  }
  if (!consume) a.keep_ = nb::borrow(capsule);
}

// ---- the buffer protocol ---------------------------------------------------------------------------

// A struct-module format (one element, native byte order) as one of prism's element types.
element element_from_format(const array& a, const char* format, Py_ssize_t itemsize) {
  std::string_view f = format != nullptr ? format : "B";  // null means unsigned bytes
  const std::string quoted = "'" + std::string(f) + "'";
  bool native_sizes = true;
  if (!f.empty() && std::string_view("@=<>!").find(f.front()) != std::string_view::npos) {
    const char order = f.front();
    constexpr bool little = std::endian::native == std::endian::little;
    if ((order == '<' && !little) || ((order == '>' || order == '!') && little))
      refuse(a, "has buffer format " + quoted + ", whose byte order is not this machine's (prism reads elements "
                "as they are: convert to native byte order first)");
    native_sizes = order == '@';
    f.remove_prefix(1);
  }
  // kind: 'b' bool, 'i' signed, 'u' unsigned, 'f' floating; with the format's item size.
  char kind = 0;
  std::size_t bytes = 0;
  if (f.size() == 1) {
    switch (f.front()) {
      case '?': kind = 'b', bytes = 1; break;
      case 'b': kind = 'i', bytes = 1; break;
      case 'B': kind = 'u', bytes = 1; break;
      case 'h': kind = 'i', bytes = 2; break;
      case 'H': kind = 'u', bytes = 2; break;
      case 'i': kind = 'i', bytes = 4; break;
      case 'I': kind = 'u', bytes = 4; break;
      case 'l': kind = 'i', bytes = native_sizes ? sizeof(long) : 4; break;
      case 'L': kind = 'u', bytes = native_sizes ? sizeof(unsigned long) : 4; break;
      case 'q': kind = 'i', bytes = 8; break;
      case 'Q': kind = 'u', bytes = 8; break;
      case 'n': kind = native_sizes ? 'i' : 0, bytes = sizeof(Py_ssize_t); break;
      case 'N': kind = native_sizes ? 'u' : 0, bytes = sizeof(std::size_t); break;
      case 'e': kind = 'f', bytes = 2; break;
      case 'f': kind = 'f', bytes = 4; break;
      case 'd': kind = 'f', bytes = 8; break;
      default: break;
    }
  }
  if (kind == 0)
    refuse(a, "has buffer format " + quoted + ", which prism does not read (one number per element: float16, "
              "float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64 or bool)");
  if (static_cast<Py_ssize_t>(bytes) != itemsize)
    refuse(a, "has buffer format " + quoted + " of " + std::to_string(bytes) + "-byte elements but an item size of " +
                  std::to_string(itemsize) + " (an inconsistent buffer)");
  switch (kind) {
    case 'b': return element::boolean;
    case 'f':
      if (bytes == 2) return element::f16;
      return bytes == 4 ? element::f32 : element::f64;
    case 'i':
      if (bytes == 1) return element::i8;
      if (bytes == 2) return element::i16;
      if (bytes == 4) return element::i32;
      if (bytes == 8) return element::i64;
      break;
    default:
      if (bytes == 1) return element::u8;
      if (bytes == 2) return element::u16;
      if (bytes == 4) return element::u32;
      if (bytes == 8) return element::u64;
      break;
  }
  refuse(a, "has elements of " + std::string(kind == 'i' ? "int" : "uint") + std::to_string(8 * bytes) +
                ", which prism does not support (float16, float32, float64, int8, int16, int32, int64, uint8, "
                "uint16, uint32, uint64, bool)");
}

// "Type: message" of a Python error.
std::string error_text(const nb::python_error& error) {
  std::string text = nb::type_name(error.type()).c_str();
  PyObject* message = PyObject_Str(error.value().ptr());
  if (message == nullptr) {
    PyErr_Clear();
    return text;
  }
  const char* utf8 = PyUnicode_AsUTF8(message);
  if (utf8 == nullptr) PyErr_Clear();
  else if (*utf8 != '\0') text += std::string(": ") + utf8;
  Py_DECREF(message);
  return text;
}

// The text of the pending Python error, which is cleared.
std::string fetch_error() {
  nb::python_error error;
  return error_text(error);
}

// Reads an object through the buffer protocol; shape, when asked for, receives its extents.
void read_buffer(array& a, nb::handle object, bool output, std::vector<std::int64_t>* shape) {
  auto view = std::make_unique<Py_buffer>();
  if (PyObject_GetBuffer(object.ptr(), view.get(), output ? PyBUF_RECORDS : PyBUF_RECORDS_RO) != 0) {
    const std::string why = fetch_error();
    if (output && PyObject_GetBuffer(object.ptr(), view.get(), PyBUF_RECORDS_RO) == 0) {
      PyBuffer_Release(view.get());
      refuse(a, "is read-only: an output must be writable");
    }
    PyErr_Clear();
    refuse(a, "cannot be read through the buffer protocol (" + why + ")");
  }
  const Py_buffer& v = *view;
  a.buffer_.reset(view.release());  // released from here on, whatever is refused below
  a.device_type = dlpack::cpu;
  a.device_id = 0;
  if (output && v.readonly) refuse(a, "is read-only: an output must be writable");
  if (v.ndim < 0 || v.ndim > 64) refuse(a, "has " + std::to_string(v.ndim) + " dimensions (buffers have 0 to 64)");
  if (v.itemsize <= 0) refuse(a, "has an item size of " + std::to_string(v.itemsize) + " bytes");
  if (v.suboffsets != nullptr) refuse(a, "is an indirect buffer (suboffsets): pass a C-contiguous array");
  a.type = element_from_format(a, v.format, v.itemsize);
  const auto item = static_cast<std::size_t>(v.itemsize);
  // No shape: one dimension of len / itemsize elements (what a buffer without PyBUF_ND is).
  const Py_ssize_t flat = v.len / v.itemsize;
  layout<Py_ssize_t> l{v.ndim, v.shape, v.strides};
  if (v.shape == nullptr && v.ndim != 0) {
    if (v.strides != nullptr) refuse(a, "has strides but no shape (an inconsistent buffer)");
    l = {1, &flat, nullptr};
  }
  a.size = element_count(a, l, item);
  if (v.len < 0 || static_cast<std::size_t>(v.len) != a.size * item)
    refuse(a, "says it holds " + std::to_string(v.len) + " bytes, but its shape has " + std::to_string(a.size) +
                  " elements of " + std::to_string(item) + " bytes (an inconsistent buffer)");
  require_contiguous(a, l, a.size, v.itemsize);
  place(a, reinterpret_cast<std::uintptr_t>(v.buf), a.size * item, item);
  if (shape != nullptr) shape->assign(l.shape, l.shape + l.ndim);
}

// ---- the CUDA array interface -------------------------------------------------------------------
// https://numba.readthedocs.io/en/stable/cuda/cuda_array_interface.html: a dictionary of shape,
// typestr, data = (pointer, read-only), version, and optionally strides (bytes; None: C order),
// descr (ignored), mask (must be None: prism reads every element) and, from version 3, stream: the
// stream on which the producer's work on the array is queued (None: nothing to wait for; 1 the
// legacy default stream, 2 the per-thread one, 0 not allowed), which the consumer must wait for.

// The interface's dictionary; a producer's failure is a ValueError chained to it.
nb::object cai_dictionary(const array& a, nb::handle object) {
  nb::object d = nb::steal(PyObject_GetAttrString(object.ptr(), "__cuda_array_interface__"));
  if (!d.is_valid()) {
    nb::python_error error;
    if (!error.matches(PyExc_Exception)) throw std::move(error);
    const std::string why = error_text(error);
    nb::raise_from(error, PyExc_ValueError, "prism: %s's __cuda_array_interface__ failed (%s)", a.role, why.c_str());
  }
  if (!PyDict_Check(d.ptr()))
    refuse(a, std::string("has a __cuda_array_interface__ that is a ") + Py_TYPE(d.ptr())->tp_name + ", not a dict");
  return d;
}

// An int field (a Python int, not a bool) within [lo, hi]; false when it is not one.
bool int_in(nb::handle v, long long lo, long long hi, long long& out) {
  if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr())) return false;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  if (overflow != 0 || x < lo || x > hi) return false;
  out = x;
  return true;
}

std::string repr_of(nb::handle v) {
  PyObject* r = PyObject_Repr(v.ptr());
  if (r == nullptr) {
    PyErr_Clear();
    return "?";
  }
  const char* utf8 = PyUnicode_AsUTF8(r);
  std::string text = utf8 != nullptr ? utf8 : "?";
  if (utf8 == nullptr) PyErr_Clear();
  Py_DECREF(r);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

// A typestr ("<f4", "|u1", "|b1", ...) as one of prism's element types.
element element_from_typestr(const array& a, nb::handle value) {
  if (!PyUnicode_Check(value.ptr())) refuse(a, "has a CUDA array interface typestr " + repr_of(value) + ", not a str");
  const char* utf8 = PyUnicode_AsUTF8(value.ptr());
  if (utf8 == nullptr) {
    PyErr_Clear();
    refuse(a, "has a CUDA array interface typestr that is not text");
  }
  const std::string_view t = utf8;
  const std::string quoted = "'" + std::string(t.substr(0, 40)) + "'";
  if (t.size() < 3 || t.size() > 4 || std::string_view("<>|=").find(t[0]) == std::string_view::npos)
    refuse(a, "has CUDA array interface typestr " + quoted + " (a byte order, a kind and a size: '<f4', '|u1', ...)");
  int bytes = 0;
  for (char c : t.substr(2)) {
    if (c < '0' || c > '9')
      refuse(a, "has CUDA array interface typestr " + quoted + " (a byte order, a kind and a size: '<f4', '|u1', ...)");
    bytes = bytes * 10 + (c - '0');
  }
  const char kind = t[1];
  std::optional<element> e;
  if (kind == 'b' && bytes == 1) e = element::boolean;
  else if (kind == 'u' && bytes == 1) e = element::u8;
  else if (kind == 'f' && bytes == 2) e = element::f16;
  else if (kind == 'f' && bytes == 4) e = element::f32;
  else if (kind == 'f' && bytes == 8) e = element::f64;
  else if (kind == 'i' && bytes == 4) e = element::i32;
  else if (kind == 'i' && bytes == 8) e = element::i64;
  else if (kind == 'u' && bytes == 4) e = element::u32;
  else if (kind == 'u' && bytes == 8) e = element::u64;
  else if (kind == 'i' && bytes == 1) e = element::i8;
  else if (kind == 'i' && bytes == 2) e = element::i16;
  else if (kind == 'u' && bytes == 2) e = element::u16;
  if (!e)
    refuse(a, "has CUDA array interface typestr " + quoted + ", an element type prism does not support (float16, "
              "float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool)");
  constexpr bool little = std::endian::native == std::endian::little;
  const char order = t[0];
  if (bytes > 1 && (order == '|' || (order == '<' && !little) || (order == '>' && little)))
    refuse(a, "has CUDA array interface typestr " + quoted + ", whose byte order is not this machine's (prism reads "
              "elements as they are)");
  return *e;
}

// A stream field's value: present (an int naming a stream) or not (None, or absent).
std::optional<std::uintptr_t> cai_stream(const array& a, nb::handle d) {
  PyObject* s = PyDict_GetItemString(d.ptr(), "stream");  // borrowed
  if (s == nullptr || s == Py_None) return std::nullopt;
  if (PyBool_Check(s)) refuse(a, "has a CUDA array interface stream that is a bool, not an int or None");
  if (!PyLong_Check(s)) refuse(a, "has a CUDA array interface stream " + repr_of(s) + ", not an int or None");
  long long handle = 0;
  if (!int_in(s, 0, LLONG_MAX, handle) || handle == 0 ||
      (handle > 2 && !(handle >= (1 << 16) && static_cast<std::uint64_t>(handle) < user_space_end)))
    refuse(a, "has CUDA array interface stream " + repr_of(s) +
                  ", which is not a CUDA stream handle (1, 2 or the address of a stream; 0 is not allowed)");
  return static_cast<std::uintptr_t>(handle);
}

// Where the memory at `address` is, as CUDA sees it: device, managed, pinned host; memory CUDA
// does not know is refused (the interface describes CUDA memory: a plain host address the cpu
// implementation would read could be anything). Without a usable GPU: device 0, which the call
// then refuses with the reason.
void cai_place_device(array& a, std::uintptr_t address) {
  a.device_type = dlpack::cuda;
  a.device_id = 0;
  if (address == 0 || !prism::gpu_available()) return;
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(address));
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    refuse(a, "has a CUDA array interface data pointer that CUDA does not know (" +
                  std::string(cudaGetErrorName(status)) + ")");
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice: a.device_type = dlpack::cuda; break;
    case cudaMemoryTypeManaged: a.device_type = dlpack::cuda_managed; break;
    case cudaMemoryTypeHost: a.device_type = dlpack::cuda_host; break;
    default:
      refuse(a, "has a CUDA array interface data pointer that is not CUDA memory (the interface describes device "
                "memory)");
  }
  a.device_id = attributes.device < 0 ? 0 : attributes.device;
}

// Reads the interface's dictionary d into a. `stream`, when the call gives one, is the stream that
// waits for the producer's (else the producer's stream is synchronized); `order` false reads the
// layout alone (describe()).
void read_cai_dictionary(array& a, nb::handle d, bool output, const std::uintptr_t* stream, bool order,
                         std::vector<std::int64_t>* shape) {
  const auto field = [&](const char* key) -> nb::handle {
    PyObject* v = PyDict_GetItemString(d.ptr(), key);  // borrowed
    if (v == nullptr) refuse(a, std::string("has a CUDA array interface without '") + key + "'");
    return v;
  };
  long long version = 0;
  const nb::handle v = field("version");
  if (!int_in(v, 0, 3, version))
    refuse(a, "has CUDA array interface version " + repr_of(v) + "; prism reads versions 0 to 3");

  // shape: a tuple (or list) of at most 64 non-negative ints.
  const nb::handle shape_value = field("shape");
  if (!PyTuple_Check(shape_value.ptr()) && !PyList_Check(shape_value.ptr()))
    refuse(a, "has a CUDA array interface shape " + repr_of(shape_value) + ", not a tuple");
  nb::object shape_items = nb::steal(PySequence_Fast(shape_value.ptr(), "shape"));
  if (!shape_items.is_valid()) nb::raise_python_error();
  const Py_ssize_t ndim = PySequence_Fast_GET_SIZE(shape_items.ptr());
  if (ndim > 64) refuse(a, "has " + std::to_string(ndim) + " dimensions (arrays have 0 to 64)");
  std::int64_t extents[64];
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    PyObject* e = PySequence_Fast_GET_ITEM(shape_items.ptr(), i);
    long long x = 0;
    if (!int_in(e, LLONG_MIN, LLONG_MAX, x)) {
      if (PyLong_Check(e) && !PyBool_Check(e))
        refuse(a, "is too large: its extent " + repr_of(e) + " does not fit in 64 bits (a corrupt or hostile shape)");
      refuse(a, "has a CUDA array interface extent " + repr_of(e) + ", not an int");
    }
    extents[i] = x;
  }

  a.type = element_from_typestr(a, field("typestr"));
  const std::size_t item = element_bytes(a.type);

  // strides: absent or None (C order), or one int per dimension, in bytes.
  std::int64_t strides[64];
  bool strided = false;
  if (PyObject* st = PyDict_GetItemString(d.ptr(), "strides"); st != nullptr && st != Py_None) {
    if (!PyTuple_Check(st) && !PyList_Check(st))
      refuse(a, "has CUDA array interface strides " + repr_of(st) + ", not a tuple or None");
    nb::object items = nb::steal(PySequence_Fast(st, "strides"));
    if (!items.is_valid()) nb::raise_python_error();
    if (PySequence_Fast_GET_SIZE(items.ptr()) != ndim)
      refuse(a, "has " + std::to_string(PySequence_Fast_GET_SIZE(items.ptr())) + " CUDA array interface strides for " +
                    std::to_string(ndim) + " dimensions");
    for (Py_ssize_t i = 0; i < ndim; ++i) {
      PyObject* e = PySequence_Fast_GET_ITEM(items.ptr(), i);
      long long x = 0;
      if (!int_in(e, LLONG_MIN, LLONG_MAX, x)) {
        if (PyLong_Check(e) && !PyBool_Check(e)) refuse(a, "is not contiguous (a stride past 64 bits: " + repr_of(e) + ")");
        refuse(a, "has a CUDA array interface stride " + repr_of(e) + ", not an int");
      }
      strides[i] = x;
    }
    strided = true;
  }

  if (PyObject* mask = PyDict_GetItemString(d.ptr(), "mask"); mask != nullptr && mask != Py_None)
    refuse(a, "is a masked array (its CUDA array interface has a mask): prism reads every element; pass the data "
              "without the mask");

  // data: (pointer, read-only).
  const nb::handle data = field("data");
  if (!PyTuple_Check(data.ptr()) || PyTuple_GET_SIZE(data.ptr()) != 2)
    refuse(a, "has CUDA array interface data " + repr_of(data) + ", not a (pointer, read-only) pair");
  PyObject* pointer = PyTuple_GET_ITEM(data.ptr(), 0);
  PyObject* read_only = PyTuple_GET_ITEM(data.ptr(), 1);
  if (!PyLong_Check(pointer) || PyBool_Check(pointer))
    refuse(a, "has a CUDA array interface data pointer " + repr_of(pointer) + ", not an int");
  const unsigned long long address = PyLong_AsUnsignedLongLong(pointer);
  if (address == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    refuse(a, "has a CUDA array interface data pointer " + repr_of(pointer) + " outside 0 .. 2^64 - 1");
  }
  if (!PyBool_Check(read_only))
    refuse(a, "has a CUDA array interface read-only flag " + repr_of(read_only) + ", not a bool");
  if (output && read_only == Py_True) refuse(a, "is read-only (its CUDA array interface says so): an output must be writable");

  const std::optional<std::uintptr_t> producer = cai_stream(a, d);

  const layout<std::int64_t> l{static_cast<int>(ndim), extents, strided ? strides : nullptr};
  a.size = element_count(a, l, item);
  require_contiguous(a, l, a.size, static_cast<std::int64_t>(item));
  place(a, static_cast<std::uintptr_t>(address), a.size * item, item);
  if (order) cai_place_device(a, static_cast<std::uintptr_t>(address));
  if (shape != nullptr) shape->assign(extents, extents + ndim);

  // The consumer waits for the producer's stream: the call's stream is made to wait, or, read
  // outside a call, the producer's stream is synchronized.
  if (order && producer && a.size > 0 && prism::gpu_available()) {
    if (stream != nullptr) {
      order_after(a.device_id, *producer, *stream, "the CUDA array interface's stream");
    } else {
      const auto s = reinterpret_cast<cudaStream_t>(*producer);
      prism::check(without_gil([&] { return cudaStreamSynchronize(s); }), "cudaStreamSynchronize",
                   "the CUDA array interface's stream");
    }
  }
}

// ---- the CUDA array interface, cached per array ----------------------------------------------------
// Numba's and PyCUDA's arrays build their dictionary in Python on every access (microseconds); their
// layout does not change once made, so the dictionary is kept per array until the array goes (a
// weak reference's callback lets it go). It is validated again at every read: only the Python
// work is saved. PyCUDA's gpudata and shape are compared, as attributes a program could rebind.

struct cached_interface {
  nb::object reference;    // weak
  nb::object dictionary;
  nb::object fingerprint;  // PyCUDA: (gpudata, shape); else None
};
std::unordered_map<PyObject*, cached_interface>& interface_cache() {
  static auto* cache = new std::unordered_map<PyObject*, cached_interface>();  // never destroyed: no
  return *cache;                                                              // teardown order issue
}

nb::object fingerprint_of(nb::handle object, array_kind kind) {
  if (kind != array_kind::pycuda) return nb::none();
  nb::object gpudata = nb::steal(PyObject_GetAttrString(object.ptr(), "gpudata"));
  nb::object shape = nb::steal(PyObject_GetAttrString(object.ptr(), "shape"));
  if (!gpudata.is_valid() || !shape.is_valid()) {
    PyErr_Clear();
    return nb::object();  // not cacheable
  }
  return nb::make_tuple(gpudata, shape);
}

bool same_fingerprint(nb::handle a, nb::handle b) {
  if (a.is_none() && b.is_none()) return true;
  if (!PyTuple_Check(a.ptr()) || !PyTuple_Check(b.ptr())) return false;
  if (PyTuple_GET_ITEM(a.ptr(), 0) != PyTuple_GET_ITEM(b.ptr(), 0)) return false;
  const int equal = PyObject_RichCompareBool(PyTuple_GET_ITEM(a.ptr(), 1), PyTuple_GET_ITEM(b.ptr(), 1), Py_EQ);
  if (equal < 0) PyErr_Clear();
  return equal == 1;
}

// The dictionary of `object`: cached for numba and pycuda arrays, fresh for any other object.
nb::object interface_of(const array& a, nb::handle object, array_kind kind) {
  if (kind != array_kind::numba && kind != array_kind::pycuda) return cai_dictionary(a, object);
  auto& cache = interface_cache();
  nb::object fingerprint = fingerprint_of(object, kind);
  if (auto found = cache.find(object.ptr()); found != cache.end()) {
    if (PyWeakref_GetObject(found->second.reference.ptr()) == object.ptr() && fingerprint.is_valid() &&
        same_fingerprint(found->second.fingerprint, fingerprint))
      return found->second.dictionary;
    cache.erase(found);
  }
  nb::object d = cai_dictionary(a, object);
  if (!fingerprint.is_valid()) return d;
  PyObject* key = object.ptr();
  nb::object forget = nb::cpp_function([key](nb::handle) { interface_cache().erase(key); });
  nb::object reference = nb::steal(PyWeakref_NewRef(object.ptr(), forget.ptr()));
  if (!reference.is_valid()) {
    PyErr_Clear();  // no weak references: not cached
    return d;
  }
  cache[key] = cached_interface{std::move(reference), d, std::move(fingerprint)};
  return d;
}

void read_cai(array& a, nb::handle object, array_kind kind, bool output, const std::uintptr_t* stream,
              std::vector<std::int64_t>* shape, bool order = true) {
  nb::object d = interface_of(a, object, kind);
  read_cai_dictionary(a, d, output, stream, order, shape);
}

// ---- a call's pending arguments ----------------------------------------------------------------------

constexpr const char* pending_capsule_name = "prism.pending";

void delete_pending(PyObject* capsule) {
  delete static_cast<pending*>(PyCapsule_GetPointer(capsule, pending_capsule_name));
}

std::string type_name_of(nb::handle object) { return Py_TYPE(object.ptr())->tp_name; }

// object.__dlpack__(stream=s) (stream=None when s is absent) as a capsule; the producer's
// refusal, or anything but a capsule, is a ValueError.
nb::object export_with_stream(const array& a, nb::handle object, const std::int64_t* s) {
  nb::object method = nb::steal(PyObject_GetAttrString(object.ptr(), "__dlpack__"));
  if (!method.is_valid()) {
    PyErr_Clear();
    refuse(a, "is a " + type_name_of(object) + " on a GPU without __dlpack__");
  }
  nb::object capsule;
  if (s != nullptr) {
    nb::object kwargs = nb::dict();
    PyDict_SetItemString(kwargs.ptr(), "stream", nb::int_(*s).ptr());
    nb::object args = nb::steal(PyTuple_New(0));
    capsule = nb::steal(PyObject_Call(method.ptr(), args.ptr(), kwargs.ptr()));
  } else {
    capsule = nb::steal(PyObject_CallNoArgs(method.ptr()));
  }
  if (!capsule.is_valid()) {
    nb::python_error error;
    if (!error.matches(PyExc_Exception)) throw std::move(error);
    const std::string why = error_text(error);
    const std::string how = s != nullptr ? "(stream=" + std::to_string(*s) + ")" : "()";
    nb::raise_from(error, PyExc_ValueError, "prism: %s's __dlpack__%s failed (%s)", a.role, how.c_str(), why.c_str());
  }
  if (!PyCapsule_CheckExact(capsule.ptr()))
    refuse(a, "has a __dlpack__() that returned a " + type_name_of(capsule) + ", not a DLPack capsule");
  return capsule;
}

void read_pending(array& a, pending& p, bool output, std::vector<std::int64_t>* shape) {
  switch (p.kind) {
    case array_kind::jax:
      if (output)
        refuse(a, "is a JAX array, which is immutable: leave out= out and prism returns a new JAX array");
      [[fallthrough]];
    case array_kind::dlpack: {
      nb::object capsule = export_with_stream(a, p.object, p.device >= 0 ? &p.dlpack_stream : nullptr);
      return read_capsule(a, capsule, output, true, shape);
    }
    case array_kind::prism:
      if (const device_array* d = as_device_array(p.object)) return read_device_array(a, *d, &p.stream);
      break;
    default:
      break;
  }
  read_cai(a, p.object, p.kind, output, &p.stream, shape);
}

// ---- either ----------------------------------------------------------------------------------------

// Reads any argument: a capsule (DLPack's, or a call's pending argument), one of prism's arrays, a
// buffer, a host object's __dlpack__() capsule, or an object with the CUDA array interface. A
// capsule passed in is consumed when `consume` is set; one made here always is.
void read(array& a, nb::handle object, bool output, bool consume, std::vector<std::int64_t>* shape) {
  if (object.is_none()) refuse(a, "is None");
  if (PyCapsule_CheckExact(object.ptr())) {
    const char* capsule_name = PyCapsule_GetName(object.ptr());
    if (capsule_name == nullptr) PyErr_Clear();
    if (is_named(capsule_name, pending_capsule_name)) {
      auto* p = static_cast<pending*>(PyCapsule_GetPointer(object.ptr(), pending_capsule_name));
      if (p == nullptr) {
        PyErr_Clear();
        refuse(a, "is an invalid capsule");
      }
      return read_pending(a, *p, output, shape);
    }
    return read_capsule(a, object, output, consume, shape);
  }
  if (const device_array* d = as_device_array(object)) {
    read_device_array(a, *d, nullptr);
    if (shape != nullptr) *shape = d->shape;
    return;
  }
  if (PyObject_CheckBuffer(object.ptr())) {
    // numpy.ma's masked arrays give their buffer, masked elements included, without the mask.
    if (PyObject_HasAttrString(object.ptr(), "_mask") && PyObject_HasAttrString(object.ptr(), "filled"))
      refuse(a, "is a masked array (numpy.ma): prism reads every element; pass x.filled(value) or "
                "x.compressed()");
    return read_buffer(a, object, output, shape);
  }
  if (has_protocol(object, "__dlpack__")) {
    nb::object capsule = export_with_stream(a, object, nullptr);
    return read_capsule(a, capsule, output, true, shape);
  }
  if (has_protocol(object, "__cuda_array_interface__"))
    return read_cai(a, object, kind_of(object), output, nullptr, shape, consume);
  refuse(a, std::string("is not an array (an object that speaks DLPack, the CUDA array interface or the buffer "
                        "protocol: NumPy, PyTorch, CuPy, JAX, Numba, PyCUDA, ...), but a ") +
                Py_TYPE(object.ptr())->tp_name);
}

}  // namespace

nb::object make_pending(pending p) {
  auto* heap = new pending(std::move(p));
  PyObject* capsule = PyCapsule_New(heap, pending_capsule_name, delete_pending);
  if (capsule == nullptr) {
    delete heap;
    nb::raise_python_error();
  }
  return nb::steal(capsule);
}

cai_summary summarize_cai(nb::handle object, array_kind kind) {
  cai_summary s;
  array probe;
  probe.role = "an argument";
  nb::object d = interface_of(probe, object, kind);
  // Every field checked here, before the call allocates anything on the array's behalf.
  read_cai_dictionary(probe, d, false, nullptr, false, nullptr);
  if (const auto stream = cai_stream(probe, d)) s.stream = *stream;
  if (probe.data != nullptr && prism::gpu_available()) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, probe.data) == cudaSuccess && attributes.device >= 0)
      s.device = attributes.device;
    (void)cudaGetLastError();
  }
  return s;
}

void order_after(int device, std::uintptr_t producer, std::uintptr_t consumer, const char* what) {
  if (same_stream(producer, consumer)) return;
  int previous = 0;
  prism::check(cudaGetDevice(&previous), "cudaGetDevice", what);
  if (previous != device) prism::check(cudaSetDevice(device), "cudaSetDevice", what);
  cudaEvent_t event = nullptr;
  cudaError_t status = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (status == cudaSuccess) {
    status = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
    if (status == cudaSuccess) status = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), event, 0);
    (void)cudaEventDestroy(event);  // released once the wait has passed it
  }
  if (previous != device) (void)cudaSetDevice(previous);
  prism::check(status, "cudaStreamWaitEvent", what);
}

void read_first(const array& a, void* into, std::size_t bytes, std::uintptr_t stream, const char* algorithm) {
  if (a.device_type == 1) {
    std::memcpy(into, a.data, bytes);
    return;
  }
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &capturing) == cudaSuccess && capturing != cudaStreamCaptureStatusNone)
    throw std::invalid_argument(std::string("prism.") + algorithm + ": " + a.role +
                                " is read on the host before the call (it waits for it), which cannot happen while "
                                "the stream is being captured into a CUDA graph");
  (void)cudaGetLastError();
  nb::gil_scoped_release release;
  prism::check(cudaMemcpyAsync(into, a.data, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync", algorithm);
  prism::check(cudaStreamSynchronize(s), "cudaStreamSynchronize", algorithm);
}

array take(nb::handle object, const char* role, bool output) {
  array a;
  a.role = role;
  read(a, object, output, true, nullptr);
  return a;
}

array take(pending& p, const char* role, bool output) {
  array a;
  a.role = role;
  read_pending(a, p, output, nullptr);
  return a;
}

array take(const dlpack::Tensor& t, const char* role) {
  array a;
  a.role = role;
  read_tensor(a, t, nullptr);
  return a;
}

std::pair<std::vector<std::int64_t>, const char*> describe(nb::handle object) {
  array a;
  a.role = "an argument";
  std::vector<std::int64_t> shape;
  read(a, object, false, false, &shape);
  return {std::move(shape), name(a.type)};
}

prism::impl implementation(const char* algorithm, const std::string& which) {
  for (prism::impl i : prism::all_implementations())
    if (prism::name(i) == which) return i;
  // Shown as Python's repr: control characters escaped (a NUL would end the message).
  throw std::invalid_argument(std::string("prism.") + algorithm + ": unknown impl " +
                              repr_of(nb::str(which.data(), which.size())) +
                              " (automatic, cpu, thrust, raw_naive, raw, cub)");
}

device_scope::device_scope(const char* algorithm, std::initializer_list<const array*> arrays) {
  const array* gpu = nullptr;
  for (const array* a : arrays)
    if (a != nullptr && a->on_gpu()) {
      gpu = a;
      break;
    }
  if (gpu == nullptr) return;  // host arrays: prism's own checks judge pinned memory
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || gpu->device_id >= count) {
    (void)cudaGetLastError();
    throw std::runtime_error(
        std::string("prism.") + algorithm + ": " + gpu->role + " is on " +
        describe_device(gpu->device_type, gpu->device_id) + ", but this process finds " +
        (status != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorName(status) +
                                     ": " + cudaGetErrorString(status) + ")"
                               : "only " + std::to_string(count) + " CUDA device(s)"));
  }
  int current = 0;
  prism::check(cudaGetDevice(&current), "cudaGetDevice", algorithm);
  if (current != gpu->device_id) {
    prism::check(cudaSetDevice(gpu->device_id), "cudaSetDevice", algorithm);
    previous_ = current;
  }
}

device_scope::~device_scope() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

}  // namespace prism::python
