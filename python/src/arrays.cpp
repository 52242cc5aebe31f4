// SPDX-License-Identifier: Apache-2.0
#include "arrays.hpp"

#include <prism/buffer.hpp>
#include <prism/error.hpp>

#include "dlpack.hpp"

#include <bit>
#include <climits>
#include <cstring>
#include <string>
#include <string_view>

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
  }
  return "unknown";
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

// The size in bytes of one element of each type.
std::size_t element_bytes(element e) {
  return visit(e, [](auto tag) { return sizeof(typename decltype(tag)::type); });
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
  bool empty = false;
  for (int i = 0; i < l.ndim; ++i) {
    if (l.shape[i] < 0)
      refuse(a, "has a negative extent (" + std::to_string(l.shape[i]) + " in dimension " + std::to_string(i) + ")");
    empty = empty || l.shape[i] == 0;
  }
  if (empty) return 0;
  const std::uint64_t most = static_cast<std::uint64_t>(INT64_MAX) / item_bytes;  // elements that fit
  std::uint64_t count = 1;
  for (int i = 0; i < l.ndim; ++i) {
    const auto extent = static_cast<std::uint64_t>(l.shape[i]);
    if (extent > most / count)
      refuse(a, "is too large: its extents multiply past 2^63 bytes (a corrupt or hostile shape)");
    count *= extent;
  }
  return static_cast<std::size_t>(count);
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
  return std::nullopt;
}

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
              "float32, float64, int32, int64, uint32, uint64, uint8 or bool)");
  if (static_cast<Py_ssize_t>(bytes) != itemsize)
    refuse(a, "has buffer format " + quoted + " of " + std::to_string(bytes) + "-byte elements but an item size of " +
                  std::to_string(itemsize) + " (an inconsistent buffer)");
  switch (kind) {
    case 'b': return element::boolean;
    case 'f':
      if (bytes == 2) return element::f16;
      return bytes == 4 ? element::f32 : element::f64;
    case 'i':
      if (bytes == 4) return element::i32;
      if (bytes == 8) return element::i64;
      break;
    default:
      if (bytes == 1) return element::u8;
      if (bytes == 4) return element::u32;
      if (bytes == 8) return element::u64;
      break;
  }
  refuse(a, "has elements of " + std::string(kind == 'i' ? "int" : "uint") + std::to_string(8 * bytes) +
                ", which prism does not support (float16, float32, float64, int32, int64, uint32, uint64, uint8, "
                "bool)");
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

// ---- either ----------------------------------------------------------------------------------------

// Reads any argument: a capsule, a buffer, or a host object's __dlpack__() capsule. A capsule
// passed in is consumed when `consume` is set; one made here always is.
void read(array& a, nb::handle object, bool output, bool consume, std::vector<std::int64_t>* shape) {
  if (object.is_none()) refuse(a, "is None");
  if (PyCapsule_CheckExact(object.ptr())) return read_capsule(a, object, output, consume, shape);
  if (PyObject_CheckBuffer(object.ptr())) return read_buffer(a, object, output, shape);
  if (!PyObject_HasAttrString(object.ptr(), "__dlpack__"))
    refuse(a, std::string("is not an array (an object that speaks DLPack or the buffer protocol: NumPy, PyTorch, "
                          "CuPy, ...), but a ") + Py_TYPE(object.ptr())->tp_name);
  nb::object capsule = nb::steal(PyObject_CallMethod(object.ptr(), "__dlpack__", nullptr));
  if (!capsule.is_valid()) {
    // The producer's refusal is the caller's bad input (ValueError, chained to it); an interrupt
    // or an exit is not.
    nb::python_error error;
    if (!error.matches(PyExc_Exception)) throw std::move(error);
    const std::string why = error_text(error);
    nb::raise_from(error, PyExc_ValueError, "prism: %s's __dlpack__() failed (%s)", a.role, why.c_str());
  }
  if (!PyCapsule_CheckExact(capsule.ptr()))
    refuse(a, std::string("has a __dlpack__() that returned a ") + Py_TYPE(capsule.ptr())->tp_name +
                  ", not a DLPack capsule");
  read_capsule(a, capsule, output, true, shape);
}

}  // namespace

array take(nb::handle object, const char* role, bool output) {
  array a;
  a.role = role;
  read(a, object, output, true, nullptr);
  return a;
}

std::pair<std::vector<std::int64_t>, const char*> describe(nb::handle object) {
  array a;
  a.role = "the array";
  std::vector<std::int64_t> shape;
  read(a, object, false, false, &shape);
  return {std::move(shape), name(a.type)};
}

prism::impl implementation(const char* algorithm, const std::string& which) {
  for (prism::impl i : prism::all_implementations())
    if (prism::name(i) == which) return i;
  throw std::invalid_argument(std::string("prism.") + algorithm + ": unknown impl '" + which +
                              "' (automatic, cpu, thrust, raw_naive, raw, cub)");
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
