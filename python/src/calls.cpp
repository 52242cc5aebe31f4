// SPDX-License-Identifier: Apache-2.0
// One call from Python (calls.hpp): the kinds of its arrays, its device and stream, the arrays
// read or handed over, results allocated, arrays on a foreign stream kept alive. All of it here, in
// C++: a call from Python costs its few attribute lookups and nothing else.
#include "calls.hpp"

#include <prism/buffer.hpp>
#include <prism/dispatch.hpp>
#include <prism/error.hpp>

#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace prism::python {

// Where Linux maps a process's memory unless asked for more: up to 2^47 on x86-64, 2^48 on arm64
// (Grace); elsewhere up to 2^57, past any 64-bit address space.
#if defined(__x86_64__) || defined(_M_X64)
const std::uint64_t user_space_end = std::uint64_t{1} << 47;
#elif defined(__aarch64__)
const std::uint64_t user_space_end = std::uint64_t{1} << 48;
#else
const std::uint64_t user_space_end = std::uint64_t{1} << 57;
#endif

const char* name(array_kind k) noexcept {
  switch (k) {
    case array_kind::numpy: return "numpy";
    case array_kind::torch: return "torch";
    case array_kind::cupy: return "cupy";
    case array_kind::jax: return "jax";
    case array_kind::numba: return "numba";
    case array_kind::pycuda: return "pycuda";
    case array_kind::prism: return "prism";
    case array_kind::cai: return "cai";
    case array_kind::dlpack: return "dlpack";
    case array_kind::buffer: return "buffer";
    case array_kind::other: return "other";
  }
  return "other";
}

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

bool has_protocol(nb::handle object, const char* attribute) {
  // The type's attribute first: a property that raises is still the protocol (its failure is the
  // producer's, reported as such), then the object's own.
  if (PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(object.ptr())), attribute)) return true;
  const bool found = PyObject_HasAttrString(object.ptr(), attribute);
  PyErr_Clear();
  return found;
}

namespace {

// The kind of a type, from its module; the protocols decide for types of no known library.
array_kind kind_of_type(PyTypeObject* type, nb::handle object) {
  if (nb::isinstance<device_array>(object)) return array_kind::prism;
  nb::object module = nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__module__"));
  std::string_view m;
  if (module.is_valid() && PyUnicode_Check(module.ptr())) {
    const char* utf8 = PyUnicode_AsUTF8(module.ptr());
    if (utf8 != nullptr) m = utf8;
  }
  PyErr_Clear();
  const bool buffer = type->tp_as_buffer != nullptr && type->tp_as_buffer->bf_getbuffer != nullptr;
  if (starts_with(m, "torch")) return array_kind::torch;
  if (starts_with(m, "cupy")) return array_kind::cupy;
  if (starts_with(m, "jax") || starts_with(m, "jaxlib")) return array_kind::jax;
  if (starts_with(m, "numba")) return array_kind::numba;
  if (starts_with(m, "pycuda")) return array_kind::pycuda;
  if (starts_with(m, "numpy") && buffer) return array_kind::numpy;
  if (buffer) return array_kind::buffer;
  // Not cached by type below: an object of no library may speak a protocol its type does not.
  if (has_protocol(object, "__dlpack__")) return array_kind::dlpack;
  if (has_protocol(object, "__cuda_array_interface__")) return array_kind::cai;
  return array_kind::other;
}

// The C exchange table a type carries (DLPack 1.3's `__dlpack_c_exchange_api__`, a capsule, or the
// draft's `__c_dlpack_exchange_api__`, an int), if it is one prism can use: major version 1, with
// the view and the current stream.
const dlpack::ExchangeAPI* exchange_api_of_type(PyTypeObject* type) {
  for (const char* attribute : {"__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"}) {
    nb::object value = nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), attribute));
    void* pointer = nullptr;
    if (value.is_valid() && PyCapsule_CheckExact(value.ptr()))
      pointer = PyCapsule_GetPointer(value.ptr(), dlpack::exchange_api_capsule_name);
    else if (value.is_valid() && PyLong_Check(value.ptr()))
      pointer = PyLong_AsVoidPtr(value.ptr());
    PyErr_Clear();
    const auto* api = static_cast<const dlpack::ExchangeAPI*>(pointer);
    if (api != nullptr && api->header.version.major == dlpack::major_version &&
        api->dltensor_from_py_object_no_sync != nullptr && api->current_work_stream != nullptr &&
        api->managed_tensor_to_py_object_no_sync != nullptr)
      return api;
  }
  return nullptr;
}

// What is known of the types seen so far (the types held, so that an address is never reused).
// Only the types of known libraries are kept: an object of no library is looked at each time.
struct type_seen {
  nb::object type;
  array_kind kind;
  const dlpack::ExchangeAPI* api;  // torch's and CuPy's, where the type carries one
};
std::vector<type_seen>& types_seen() {
  static auto* seen = [] {
    auto* v = new std::vector<type_seen>();
    v->reserve(256);  // never moved: pointers to its entries stay valid
    return v;
  }();
  return *seen;
}

const type_seen* seen(nb::handle object) {
  PyTypeObject* type = Py_TYPE(object.ptr());
  for (const type_seen& t : types_seen())
    if (t.type.ptr() == reinterpret_cast<PyObject*>(type)) return &t;
  const array_kind k = kind_of_type(type, object);
  if (k == array_kind::dlpack || k == array_kind::cai || k == array_kind::other || types_seen().size() >= 256)
    return nullptr;
  const dlpack::ExchangeAPI* api =
      k == array_kind::torch || k == array_kind::cupy ? exchange_api_of_type(type) : nullptr;
  types_seen().push_back({nb::borrow(reinterpret_cast<PyObject*>(type)), k, api});
  return &types_seen().back();
}

}  // namespace

array_kind kind_of(nb::handle object) {
  if (const type_seen* t = seen(object)) return t->kind;
  return kind_of_type(Py_TYPE(object.ptr()), object);
}

const dlpack::ExchangeAPI* exchange_api_of(nb::handle object) {
  const type_seen* t = seen(object);
  return t != nullptr ? t->api : nullptr;
}

namespace {

// An int from a Python int of any size, or nothing when it does not fit in 64 bits (signed).
std::optional<long long> int64_of(nb::handle v) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (overflow != 0) return std::nullopt;
  return x;
}

[[noreturn]] void not_a_stream(const std::string& value) {
  throw std::invalid_argument("prism: stream " + value +
                              " is not a CUDA stream handle (0, 1, 2 or the address of a stream: a torch.cuda.Stream's "
                              "cuda_stream, a cupy Stream's ptr)");
}

std::string text_of(nb::handle v) {
  PyObject* r = PyObject_Str(v.ptr());
  if (r == nullptr) {
    PyErr_Clear();
    return "?";
  }
  const char* utf8 = PyUnicode_AsUTF8(r);
  std::string text = utf8 != nullptr ? utf8 : "?";
  PyErr_Clear();
  Py_DECREF(r);
  return text;
}

std::uintptr_t checked_handle(nb::handle value) {
  const auto h = int64_of(value);
  if (!h) not_a_stream(text_of(value));
  if (*h < 0 || (*h > 2 && !(*h >= (1 << 16) && static_cast<std::uint64_t>(*h) < user_space_end)))
    not_a_stream(std::to_string(*h));
  return static_cast<std::uintptr_t>(*h);
}

}  // namespace

std::uintptr_t stream_handle(nb::handle stream) {
  if (PyBool_Check(stream.ptr())) throw nb::type_error("prism: stream must be an int handle or a stream object, not a bool");
  if (PyLong_Check(stream.ptr())) return checked_handle(stream);
  nb::object protocol = nb::steal(PyObject_GetAttrString(stream.ptr(), "__cuda_stream__"));
  if (protocol.is_valid()) {
    nb::object answer = nb::steal(PyObject_CallNoArgs(protocol.ptr()));
    nb::object handle;
    std::string why = "no answer";
    if (answer.is_valid()) {
      // The protocol's answer is exactly a 2-tuple (version, handle).
      if (!PyTuple_Check(answer.ptr()) || PyTuple_GET_SIZE(answer.ptr()) != 2) {
        why = PyTuple_Check(answer.ptr()) ? "a tuple of " + std::to_string(PyTuple_GET_SIZE(answer.ptr())) + " elements"
                                          : std::string("a ") + Py_TYPE(answer.ptr())->tp_name;
      } else {
        PyObject* second = PyTuple_GET_ITEM(answer.ptr(), 1);
        if (!PyBool_Check(second)) handle = nb::steal(PyNumber_Index(second));
      }
    }
    if (!handle.is_valid()) {
      if (PyErr_Occurred()) {
        nb::python_error error;
        if (!error.matches(PyExc_Exception)) throw std::move(error);  // KeyboardInterrupt, SystemExit: not a refusal
        why = std::string(nb::type_name(error.type()).c_str()) + ": " + text_of(error.value());
      }
      throw nb::type_error(("prism: the stream's __cuda_stream__() gave no (version, handle) pair (" + why + ")").c_str());
    }
    return checked_handle(handle);
  }
  if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) nb::raise_python_error();
  PyErr_Clear();
  for (const char* attribute : {"cuda_stream", "ptr"}) {  // torch.cuda.Stream, cupy.cuda.Stream
    nb::object value = nb::steal(PyObject_GetAttrString(stream.ptr(), attribute));
    if (value.is_valid() && PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr())) return checked_handle(value);
    PyErr_Clear();
  }
  throw nb::type_error(("prism: stream must be an int handle, a torch.cuda.Stream, a cupy Stream or have "
                        "__cuda_stream__, not " + std::string(Py_TYPE(stream.ptr())->tp_name))
                           .c_str());
}

namespace {

// ---- what prism uses of each library, looked up once it is in use ---------------------------------

nb::object attribute_path(const char* module, std::initializer_list<const char*> path) {
  nb::object o = nb::module_::import_(module);
  for (const char* p : path) o = o.attr(p);
  return o;
}

struct libraries {
  nb::object torch_raw_stream;   // torch._C._cuda_getCurrentRawStream(device)
  nb::object torch_to_dlpack;    // torch._C._to_dlpack(tensor), or None
  nb::object torch_from_dlpack;  // torch._C._from_dlpack(capsule)
  nb::object torch_empty;
  nb::object torch_module;
  nb::object cupy_current_stream, cupy_from_dlpack;
  nb::object jax_from_dlpack;
  nb::object numba_as_cuda_array;
  nb::object pycuda_gpuarray;
  nb::object numpy_empty, numpy_empty_like, numpy_dtype;

  static libraries& get() {
    static auto* l = new libraries();  // kept to the end: no teardown order with Python's
    return *l;
  }

  void load_torch() {
    if (torch_module.is_valid()) return;
    nb::object torch = nb::module_::import_("torch");
    nb::object c = torch.attr("_C");
    torch_raw_stream = nb::getattr(c, "_cuda_getCurrentRawStream", nb::none());
    torch_from_dlpack = nb::getattr(c, "_from_dlpack", nb::none());
    if (torch_from_dlpack.is_none()) torch_from_dlpack = attribute_path("torch.utils.dlpack", {"from_dlpack"});
    torch_empty = torch.attr("empty");
    // torch's C export of a capsule, if it takes a tensor alone without a warning.
    torch_to_dlpack = nb::none();
    nb::object export_ = nb::getattr(c, "_to_dlpack", nb::none());
    if (!export_.is_none()) {
      nb::object warnings = nb::module_::import_("warnings");
      nb::object catcher = warnings.attr("catch_warnings")();
      catcher.attr("__enter__")();
      try {
        warnings.attr("simplefilter")("error");
        export_(torch_empty(1));
        torch_to_dlpack = export_;
      } catch (const nb::python_error&) {  // another signature, or deprecated: __dlpack__ serves
      }
      catcher.attr("__exit__")(nb::none(), nb::none(), nb::none());
    }
    torch_module = torch;
  }

  void load_numpy() {
    if (numpy_empty.is_valid()) return;
    nb::object numpy = nb::module_::import_("numpy");
    numpy_empty = numpy.attr("empty");
    numpy_empty_like = numpy.attr("empty_like");
    numpy_dtype = numpy.attr("dtype");
  }
};

// The interned Python string of an attribute name (a literal): looked up by its address, so that
// an attribute on the call path costs no decoding or hashing of the name.
PyObject* interned(const char* attribute) {
  static std::vector<std::pair<const char*, PyObject*>>* names = new std::vector<std::pair<const char*, PyObject*>>();
  for (const auto& [literal, name] : *names)
    if (literal == attribute) return name;
  PyObject* name = PyUnicode_InternFromString(attribute);
  if (name == nullptr) nb::raise_python_error();
  names->emplace_back(attribute, name);  // kept for the process's life
  return name;
}

nb::object call_attr(nb::handle object, const char* attribute) {
  nb::object v = nb::steal(PyObject_GetAttr(object.ptr(), interned(attribute)));
  if (!v.is_valid()) nb::raise_python_error();
  return v;
}

bool truth(nb::handle v) {
  const int t = PyObject_IsTrue(v.ptr());
  if (t < 0) nb::raise_python_error();
  return t == 1;
}

// The CUDA device of a GPU array, or -1 for host memory.
int gpu_device(nb::handle x, array_kind kind) {
  switch (kind) {
    case array_kind::numpy:
    case array_kind::buffer:
    case array_kind::other:
      return -1;
    case array_kind::torch:
      if (!truth(call_attr(x, "is_cuda"))) return -1;
      return nb::cast<int>(call_attr(x, "get_device")());
    case array_kind::cupy:
      return nb::cast<int>(call_attr(call_attr(x, "device"), "id"));
    case array_kind::prism:
      return as_device_array(x)->device;
    case array_kind::numba:
    case array_kind::pycuda:
    case array_kind::cai:
      return summarize_cai(x, kind).device;
    case array_kind::jax:
    case array_kind::dlpack: {
      nb::object where = nb::steal(PyObject_GetAttrString(x.ptr(), "__dlpack_device__"));
      if (!where.is_valid()) {
        PyErr_Clear();
        return -1;
      }
      nb::object answer = nb::steal(PyObject_CallNoArgs(where.ptr()));
      std::optional<long long> type, id;
      if (answer.is_valid() && PySequence_Check(answer.ptr()) && PySequence_Size(answer.ptr()) == 2) {
        nb::object t = nb::steal(PySequence_GetItem(answer.ptr(), 0)), i = nb::steal(PySequence_GetItem(answer.ptr(), 1));
        if (t.is_valid() && i.is_valid()) {
          nb::object ti = nb::steal(PyNumber_Index(t.ptr())), ii = nb::steal(PyNumber_Index(i.ptr()));
          if (ti.is_valid() && ii.is_valid()) type = int64_of(ti), id = int64_of(ii);
        }
      }
      if (!type || !id) {
        std::string why = "no (device type, device id) pair";
        if (PyErr_Occurred()) {
          nb::python_error error;
          why = std::string(nb::type_name(error.type()).c_str()) + ": " + text_of(error.value());
        }
        throw std::invalid_argument("prism: " + std::string(Py_TYPE(x.ptr())->tp_name) +
                                    ".__dlpack_device__() gave no (device type, device id) pair of integers (" + why +
                                    ")");
      }
      if ((*type == 2 || *type == 13) && *id >= 0 && *id < (1 << 30)) return static_cast<int>(*id);
      return -1;  // CUDA and CUDA managed are GPUs; anything else is read (or refused) as it is
    }
  }
  return -1;
}

// The handle of the producer's current stream on `device` (0: the legacy default stream), and in
// `owner` the Python object that keeps it alive, where the producer gives one (none: the handle is
// an int alone, or a stream that is never destroyed).
std::uintptr_t producer_stream(array_kind kind, int device, nb::handle like, nb::object& owner) {
  libraries& l = libraries::get();
  switch (kind) {
    case array_kind::torch: {
      // torch's current stream, from its exchange table where it has one (no Python call).
      if (const dlpack::ExchangeAPI* api = exchange_api_of(like)) {
        void* s = nullptr;
        if (api->current_work_stream(dlpack::cuda, device, &s) == 0) return reinterpret_cast<std::uintptr_t>(s);
        PyErr_Clear();
      }
      l.load_torch();
      // torch's current stream is one of its pool's, which torch never destroys: the raw handle
      // alone (no owner) is enough, and costs no Stream object.
      if (!l.torch_raw_stream.is_none()) return nb::cast<std::uintptr_t>(l.torch_raw_stream(device));
      owner = attribute_path("torch.cuda", {"current_stream"})(device);
      return nb::cast<std::uintptr_t>(owner.attr("cuda_stream"));
    }
    case array_kind::cupy: {
      if (!l.cupy_current_stream.is_valid()) l.cupy_current_stream = attribute_path("cupy.cuda", {"get_current_stream"});
      try {
        nb::object current = l.cupy_current_stream(device);
        const auto s = nb::cast<std::uintptr_t>(current.attr("ptr"));
        owner = std::move(current);
        return s;
      } catch (const nb::python_error& error) {  // a CuPy whose get_current_stream takes no device
        if (!error.matches(PyExc_TypeError)) throw;
        nb::object scope = attribute_path("cupy.cuda", {"Device"})(device);
        scope.attr("__enter__")();
        nb::object current = l.cupy_current_stream();
        const auto s = nb::cast<std::uintptr_t>(current.attr("ptr"));
        scope.attr("__exit__")(nb::none(), nb::none(), nb::none());
        owner = std::move(current);
        return s;
      }
    }
    case array_kind::prism: {
      // The stream the array was made on, and the owner its memory keeps alive.
      const device_array* a = as_device_array(like);
      if (a->memory && a->memory->stream_owner != nullptr) owner = nb::borrow(a->memory->stream_owner);
      return a->stream;
    }
    case array_kind::numba:
    case array_kind::pycuda:
    case array_kind::cai: {
      const std::uintptr_t s = summarize_cai(like, kind).stream;
      return s == 1 ? 0 : s;
    }
    default:
      return 0;  // another DLPack producer: the legacy default stream, as DLPack's stream=None means
  }
}

// Calls on a stream other than their producer's, and the arrays they keep alive (the GIL guards it).
struct held_call {
  cudaEvent_t event;
  std::vector<nb::object> arrays;
};
std::vector<held_call>& held_calls() {
  static auto* held = new std::vector<held_call>();
  return *held;
}

bool event_passed(cudaEvent_t event) {
  const cudaError_t status = cudaEventQuery(event);
  if (status == cudaErrorNotReady) return false;
  (void)cudaGetLastError();
  (void)cudaEventDestroy(event);
  return true;
}

void release_passed() {
  auto& held = held_calls();
  std::erase_if(held, [](const held_call& h) { return event_passed(h.event); });
}

std::size_t held() {
  release_passed();
  return held_calls().size();
}

// DLPack has no negative bit: an export would hand over the stored values, not the ones the tensor
// reads. (A conjugate bit is only ever set on complex tensors, which prism refuses by their type.)
void refuse_negative(nb::handle x) {
  PyObject* args[] = {x.ptr()};
  nb::object negative = nb::steal(PyObject_VectorcallMethod(interned("is_neg"), args, 1, nullptr));
  if (!negative.is_valid()) nb::raise_python_error();
  if (truth(negative))
    throw std::invalid_argument(
        "prism: a torch tensor with its negative bit set would be read as stored, not as it reads: call "
        ".resolve_neg() first (prism never copies)");
}

// Whether torch's exchange table lends a view of a tensor whose negative bit is set (then each
// tensor is asked, as for its capsule); asked once, of a negative view of one element.
bool views_need_negative_check(const dlpack::ExchangeAPI* api) {
  static int needed = -1;
  if (needed < 0) {
    needed = 1;
    try {
      nb::object torch = nb::module_::import_("torch");
      nb::object negative = torch.attr("_neg_view")(torch.attr("zeros")(1));
      dlpack::Tensor t{};
      if (api->dltensor_from_py_object_no_sync(negative.ptr(), &t) != 0) {
        PyErr_Clear();
        needed = 0;
      }
    } catch (const nb::python_error&) {  // no _neg_view: ask every tensor
    }
  }
  return needed == 1;
}

// ---- dtypes by name ----------------------------------------------------------------------------------

// The name of a dtype object (numpy's, torch's, CuPy's and JAX's are numpy's), or a str as it is.
std::string dtype_name(nb::handle dtype) {
  static auto* seen = new std::vector<std::pair<nb::object, std::string>>();
  for (const auto& [d, n] : *seen)
    if (d.ptr() == dtype.ptr()) return n;
  std::string n;
  if (PyUnicode_Check(dtype.ptr())) return nb::cast<std::string>(dtype);
  const std::string text = text_of(dtype);
  if (starts_with(text, "torch.")) {
    n = text.substr(6);
  } else {
    libraries& l = libraries::get();
    l.load_numpy();
    n = nb::cast<std::string>(l.numpy_dtype(dtype).attr("name"));
  }
  if (seen->size() < 256) seen->emplace_back(nb::borrow(dtype), n);
  return n;
}

// x.__dlpack__(stream=stream) as a capsule; whatever the producer raises becomes a ValueError that
// names it (the producer's own exception chained), and anything but a capsule is refused.
nb::object dlpack_capsule(nb::handle x, long long stream) {
  nb::object method = nb::steal(PyObject_GetAttrString(x.ptr(), "__dlpack__"));
  if (!method.is_valid()) {
    PyErr_Clear();
    throw std::invalid_argument("prism: a " + std::string(Py_TYPE(x.ptr())->tp_name) + " on a GPU without __dlpack__");
  }
  nb::object capsule;
  try {
    capsule = method(nb::arg("stream") = stream);
  } catch (nb::python_error& error) {
    if (!error.matches(PyExc_Exception)) throw;
    const std::string why = std::string(nb::type_name(error.type()).c_str()) + ": " + text_of(error.value());
    nb::raise_from(error, PyExc_ValueError, "prism: %s.__dlpack__(stream=%lld) failed (%s)", Py_TYPE(x.ptr())->tp_name,
                   static_cast<long long>(stream), why.c_str());
  }
  if (!PyCapsule_CheckExact(capsule.ptr()))
    throw std::invalid_argument("prism: " + std::string(Py_TYPE(x.ptr())->tp_name) + ".__dlpack__() returned a " +
                                Py_TYPE(capsule.ptr())->tp_name + ", not a DLPack capsule");
  return capsule;
}

// The kinds whose shape and dtype attributes describe what their arrays hold.
bool described_by_attributes(array_kind kind) {
  switch (kind) {
    case array_kind::numpy:
    case array_kind::torch:
    case array_kind::cupy:
    case array_kind::jax:
    case array_kind::numba:
    case array_kind::pycuda:
      return true;
    default:
      return false;
  }
}

// The shape and dtype name of x, for results like it.
std::pair<std::vector<std::int64_t>, std::string> shape_and_dtype(nb::handle x, array_kind kind, int device) {
  if (described_by_attributes(kind)) {
    nb::object shape = call_attr(x, "shape");
    std::vector<std::int64_t> extents;
    for (nb::handle e : shape) extents.push_back(nb::cast<std::int64_t>(e));
    return {std::move(extents), dtype_name(call_attr(x, "dtype"))};
  }
  if (kind == array_kind::prism) {
    const device_array* a = as_device_array(x);
    return {a->shape, name(a->type)};
  }
  // Anything else as the compiled layer reads it, with the same checks. Of a GPU array only the
  // layout is read, so its producer is asked for no synchronization (stream -1).
  if (device >= 0 && kind == array_kind::dlpack) {
    nb::object capsule = dlpack_capsule(x, -1);
    auto [shape, type] = describe(capsule);
    return {std::move(shape), type};
  }
  auto [shape, type] = describe(x);
  return {std::move(shape), type};
}

nb::tuple as_tuple(const std::vector<std::int64_t>& shape) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
  if (t == nullptr) nb::raise_python_error();
  for (std::size_t i = 0; i < shape.size(); ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(shape[i]));
  return nb::steal<nb::tuple>(t);
}

// The host's physical memory in bytes (0 where the system does not say), asked once.
std::uint64_t host_memory() {
  static const std::uint64_t memory = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : std::uint64_t{0};
  }();
  return memory;
}

// Refuses a result of `bytes` larger than the `memory` bytes of `where` (0: not known).
void refuse_past_memory(std::uint64_t bytes, std::uint64_t memory, const std::string& where) {
  if (memory != 0 && bytes > memory)
    throw std::invalid_argument("prism: a result of " + std::to_string(bytes) + " bytes is more than the " +
                                std::to_string(memory) + " bytes of " + where);
}

// The memory of a device in bytes, asked once per device (the GIL guards the table).
std::uint64_t device_memory(int device) {
  static std::vector<std::uint64_t> known;
  if (static_cast<std::size_t>(device) >= known.size()) known.resize(device + 1, 0);
  if (known[device] == 0) {
    std::size_t free = 0, total = 0;
    prism::check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo", "allocate");
    known[device] = total;
  }
  return known[device];
}

}  // namespace

// ---- the call ---------------------------------------------------------------------------------------

call::call(std::span<const nb::handle> arrays, nb::handle stream) {
  for (nb::handle x : arrays)
    if (!x.is_none()) see(x);
  settle(stream);
}

// The kind and device of one of the call's arrays: the first GPU array decides the call's device.
void call::see(nb::handle x) {
  const array_kind k = kind_of(x);
  // After the first GPU array, the arrays of known libraries are not asked again (their device
  // is checked where they are read); a plain DLPack producer still answers __dlpack_device__,
  // so that one whose answer is broken is refused whichever argument it is.
  if (device_ >= 0) {
    if (k == array_kind::dlpack) (void)gpu_device(x, k);
    return;
  }
  if (!like_.is_valid()) kind_ = k, like_ = nb::borrow(x);
  int d = -1;
  if (const lent* v = view(x)) {
    const int type = v->tensor.device.device_type;
    if (type == dlpack::cuda || type == dlpack::cuda_managed) d = v->tensor.device.device_id;
  } else {
    d = gpu_device(x, k);
  }
  if (d >= 0) kind_ = k, like_ = nb::borrow(x), device_ = d;
}

// The producer's stream and the call's.
void call::settle(nb::handle stream) {
  if (device_ >= 0) {
    producer_ = producer_stream(kind_, device_, like_, producer_owner_);
    if (stream.is_none()) {
      stream_ = producer_, stream_owner_ = producer_owner_;
    } else {
      stream_ = stream_handle(stream);
      // A stream object keeps its stream alive; an int handle does not (it must outlive the
      // work and memory on it), unless it names the producer's stream, whose owner is known.
      if (!PyLong_Check(stream.ptr())) stream_owner_ = nb::borrow(stream);
      else if (stream_ == producer_) stream_owner_ = producer_owner_;
    }
    foreign_ = !same_stream(stream_, producer_);
  } else {
    stream_ = stream.is_none() ? 0 : stream_handle(stream);
  }
  dlpack_stream_ = stream_ == 0 ? 1 : static_cast<std::int64_t>(stream_);
}

// x's view from its type's C exchange table, asked once per call; none where the type has no
// table or the table refuses x (the Python protocols then read it, and say why).
const call::lent* call::view(nb::handle x) {
  for (std::size_t i = 0; i < lent_count_; ++i)
    if (lent_[i].object == x.ptr()) return &lent_[i];
  const dlpack::ExchangeAPI* api = exchange_api_of(x);
  if (api == nullptr || lent_count_ == lent_.size()) return nullptr;
  lent& v = lent_[lent_count_];
  v.object = x.ptr();
  if (api->dltensor_from_py_object_no_sync(x.ptr(), &v.tensor) != 0) {
    PyErr_Clear();
    return nullptr;
  }
  return &lent_[lent_count_++];
}

array call::take(nb::handle x, const char* role, bool output) {
  if (foreign_) arrays_.push_back(nb::borrow(x));
  for (auto& [result, memory] : own_results_)
    if (result.ptr() == x.ptr()) {
      array a;
      a.role = role;
      read_device_array(a, memory, &stream_);
      return a;
    }
  const array_kind k = kind_of(x);
  // On the producer's stream there is nothing to order: the exchange table's view serves.
  if (!foreign_ && (k == array_kind::torch || k == array_kind::cupy))
    if (const lent* v = view(x)) {
      if (k == array_kind::torch && views_need_negative_check(exchange_api_of(x))) refuse_negative(x);
      return prism::python::take(v->tensor, role);
    }
  switch (k) {
    case array_kind::numpy:
    case array_kind::buffer:
    case array_kind::other:
    case array_kind::torch:
    case array_kind::cupy:
      return prism::python::take(hand_over(x), role, output);
    default: {
      pending p{nb::borrow(x), k, stream_, dlpack_stream_, device_};
      return prism::python::take(p, role, output);
    }
  }
}

nb::object call::operator()(nb::handle x) {
  if (x.is_none()) return nb::none();
  if (foreign_) arrays_.push_back(nb::borrow(x));
  return hand_over(x);
}

nb::object call::hand_over(nb::handle x) {
  // A result this call made is written through prism's own array beneath it: no export from
  // the library it was handed to (JAX arrays are otherwise never outputs).
  for (const auto& [result, memory] : own_results_)
    if (result.ptr() == x.ptr())
      return make_pending({wrap_device_array(memory), array_kind::prism, stream_, dlpack_stream_, device_});
  const array_kind k = kind_of(x);
  switch (k) {
    case array_kind::numpy:
    case array_kind::buffer:
    case array_kind::other:  // refused by take(), with the reason
      return nb::borrow(x);
    case array_kind::torch: {
      refuse_negative(x);
      libraries& l = libraries::get();
      l.load_torch();
      // On torch's current stream __dlpack__ has nothing to order: the C export is the same
      // capsule without the Python-level checks, and it says itself where the tensor lives.
      if (!foreign_ && !l.torch_to_dlpack.is_none()) return l.torch_to_dlpack(x);
      if (!truth(call_attr(x, "is_cuda"))) return nb::borrow(x);
      return dlpack_capsule(x, dlpack_stream_);
    }
    case array_kind::cupy:
      return dlpack_capsule(x, dlpack_stream_);
    default:
      return make_pending({nb::borrow(x), k, stream_, dlpack_stream_, device_});
  }
}

void call::done() {
  if (wait_for_results_) {
    const auto s = reinterpret_cast<cudaStream_t>(stream_);
    prism::check(without_gil([&] { return cudaStreamSynchronize(s); }), "cudaStreamSynchronize", "prism");
  }
  if (foreign_ && !arrays_.empty()) {
    release_passed();
    int previous = 0;
    prism::check(cudaGetDevice(&previous), "cudaGetDevice", "prism");
    if (previous != device_) prism::check(cudaSetDevice(device_), "cudaSetDevice", "prism");
    cudaEvent_t event = nullptr;
    cudaError_t status = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (status == cudaSuccess) {
      status = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream_));
      if (status != cudaSuccess) (void)cudaEventDestroy(event);
    }
    if (previous != device_) (void)cudaSetDevice(previous);
    prism::check(status, "cudaEventRecord", "prism");
    held_calls().push_back({event, std::move(arrays_)});
    arrays_.clear();
  }
}

nb::object call::empty(nb::handle shape_, const std::string& dtype_name) {
  std::vector<std::int64_t> shape;
  for (nb::handle e : shape_) {
    std::int64_t extent = 0;
    if (!nb::try_cast(e, extent, false))
      throw std::invalid_argument("prism: a result's extent " + std::string(nb::repr(e).c_str()) +
                                  " is not an integer of 64 bits");
    shape.push_back(extent);
  }
  return allocate(shape, dtype_name);
}

nb::object call::like(nb::handle x, nb::handle dtype, bool flat) {
  const array_kind k = kind_of(x);
  if (k == array_kind::numpy && dtype.is_none() && !flat && device_ < 0) {
    libraries& l = libraries::get();
    l.load_numpy();
    return l.numpy_empty_like(x);
  }
  std::vector<std::int64_t> shape;
  std::string type;
  const lent* v = k == array_kind::torch || k == array_kind::cupy ? view(x) : nullptr;
  // The shape and type the exchange table lent, no attribute asked; the layout is the call's to
  // check where it reads the array, naming it.
  const std::optional<element> lent_type = v != nullptr ? element_from(v->tensor.dtype) : std::nullopt;
  if (lent_type && v->tensor.ndim >= 0 && (v->tensor.ndim == 0 || v->tensor.shape != nullptr)) {
    shape.assign(v->tensor.shape, v->tensor.shape + v->tensor.ndim);
    type = name(*lent_type);
  } else {
    std::tie(shape, type) = shape_and_dtype(x, k, device_);
  }
  if (!dtype.is_none()) type = dtype_name(dtype);
  if (flat) {
    std::int64_t size = 1;
    for (std::int64_t e : shape) size *= e;
    shape = {size};
  }
  return allocate(shape, type);
}

nb::object call::allocate(const std::vector<std::int64_t>& shape, const std::string& dtype_name) {
  libraries& l = libraries::get();
  const bool numpy_has = dtype_name != "bfloat16";
  for (std::int64_t e : shape)
    if (e < 0) throw std::invalid_argument("prism: a result cannot have a negative extent");
  // As for the arrays a call reads: no result of 2^63 bytes or more (its size would overflow), and
  // none larger than the memory it goes to (a ValueError, not an out-of-memory error; on the host,
  // memory the system promises but cannot give would end the process when written).
  const std::size_t item = element_bytes(element_named(dtype_name));
  const std::optional<std::size_t> count = count_below_2_63(shape.data(), static_cast<int>(shape.size()), item);
  if (!count) throw std::invalid_argument("prism: a result of that shape would not fit in 2^63 bytes");
  if (device_ < 0) {
    refuse_past_memory(*count * item, host_memory(), "this machine's memory");
    if (kind_ == array_kind::torch) {
      l.load_torch();
      nb::object dtype = nb::getattr(l.torch_module, dtype_name.c_str(), nb::none());
      if (dtype.is_none()) throw std::invalid_argument("prism: PyTorch has no " + dtype_name);
      return l.torch_empty(as_tuple(shape), nb::arg("dtype") = dtype);
    }
    if (!numpy_has) throw std::invalid_argument("prism: NumPy and CuPy have no " + dtype_name);
    l.load_numpy();
    return l.numpy_empty(as_tuple(shape), nb::arg("dtype") = dtype_name);
  }
  array where;  // the device the result goes to, refused with its name if this process cannot reach it
  where.device_type = 2;
  where.device_id = device_;
  where.role = "the result";
  device_scope scope("allocate", {&where});
  refuse_past_memory(*count * item, device_memory(device_), "cuda:" + std::to_string(device_));
  device_array result;
  result.type = element_named(dtype_name);
  result.shape = shape;
  result.device = device_;
  result.stream = stream_;
  result.memory =
      allocate_on_device(device_, stream_, result.size() * element_bytes(result.type), "prism", stream_owner_);
  switch (kind_) {
    case array_kind::torch: {
      l.load_torch();
      nb::object tensor;
      // torch's C exchange table makes the tensor without a capsule or a Python call.
      if (const dlpack::ExchangeAPI* api = exchange_api_of(like_); api != nullptr) {
        void* made = nullptr;
        const int status = api->managed_tensor_to_py_object_no_sync(export_managed(result), &made);
        if (status != 0 || made == nullptr) {
          // DLPack does not say who owns the tensor after a failure: prism leaves it to the
          // table's library rather than free it twice.
          if (PyErr_Occurred()) nb::raise_python_error();
          throw std::runtime_error("prism: PyTorch's DLPack exchange table could not make the result tensor");
        }
        tensor = nb::steal(static_cast<PyObject*>(made));
      } else {
        tensor = l.torch_from_dlpack(export_dlpack(result, false));
      }
      own_results_.emplace_back(tensor, std::move(result));
      return tensor;
    }
    case array_kind::cupy: {
      if (!numpy_has) throw std::invalid_argument("prism: NumPy and CuPy have no " + dtype_name);
      if (!l.cupy_from_dlpack.is_valid()) l.cupy_from_dlpack = attribute_path("cupy", {"from_dlpack"});
      nb::object imported = l.cupy_from_dlpack(wrap_device_array(result));
      own_results_.emplace_back(imported, std::move(result));
      return imported;
    }
    case array_kind::jax: {
      // JAX takes an array as it is when it imports it: the call's work is finished first (done()).
      if (!l.jax_from_dlpack.is_valid()) l.jax_from_dlpack = attribute_path("jax.dlpack", {"from_dlpack"});
      wait_for_results_ = true;
      nb::object imported = l.jax_from_dlpack(wrap_device_array(result));
      own_results_.emplace_back(imported, std::move(result));
      return imported;
    }
    case array_kind::numba:
      if (!numpy_has) throw std::invalid_argument("prism: Numba has no " + dtype_name);
      if (!l.numba_as_cuda_array.is_valid()) l.numba_as_cuda_array = attribute_path("numba.cuda", {"as_cuda_array"});
      return l.numba_as_cuda_array(wrap_device_array(std::move(result)));
    case array_kind::pycuda: {
      if (!numpy_has) throw std::invalid_argument("prism: PyCUDA has no " + dtype_name);
      if (!l.pycuda_gpuarray.is_valid()) l.pycuda_gpuarray = attribute_path("pycuda.gpuarray", {"GPUArray"});
      l.load_numpy();
      const auto pointer = reinterpret_cast<std::uintptr_t>(result.data());
      nb::object owner = wrap_device_array(std::move(result));
      return l.pycuda_gpuarray(as_tuple(shape), l.numpy_dtype(dtype_name), nb::arg("gpudata") = pointer,
                               nb::arg("base") = owner);
    }
    default:
      return wrap_device_array(std::move(result));
  }
}

namespace {

// The dtype name alone: the dtype attribute where it describes the array (no shape, no export),
// else as describe_like reads it.
nb::str dtype_of(nb::handle x) {
  const array_kind k = kind_of(x);
  const std::string n = described_by_attributes(k)
                            ? dtype_name(call_attr(x, "dtype"))
                            : shape_and_dtype(x, k, k == array_kind::dlpack ? gpu_device(x, k) : -1).second;
  return nb::str(n.c_str(), n.size());
}

// The shape and dtype name of an array, for results like it (Python's _describe).
nb::tuple describe_like(nb::handle x) {
  const array_kind k = kind_of(x);
  auto [shape, type] = shape_and_dtype(x, k, k == array_kind::dlpack ? gpu_device(x, k) : -1);
  return nb::make_tuple(as_tuple(shape), nb::str(type.c_str(), type.size()));
}

}  // namespace

void bind_calls(nb::module_& m) {
  using namespace nb::literals;
  m.attr("user_space") = nb::int_(user_space_end);
  m.def("cpu_serial_below_bytes", &prism::detail::cpu_serial_below_bytes,
        "Below this many bytes moved the cpu implementation runs on the calling thread alone.");
  m.def("held", &held, "How many calls on an explicit stream still keep their arrays alive.");
  m.def("stream_handle", [](nb::handle s) { return stream_handle(s); }, "stream"_a);
  m.def("kind", [](nb::handle x) { return name(kind_of(x)); }, "array"_a);
  m.def("describe_like", &describe_like, "array"_a.none());
  m.def("dtype_of", &dtype_of, "array"_a.none());
  nb::class_<call>(m, "Call")
      .def(
          "__init__",
          [](call* self, nb::handle arrays, nb::handle stream) {
            nb::object items = nb::steal(PySequence_Fast(arrays.ptr(), "prism: the call's arrays"));
            if (!items.is_valid()) nb::raise_python_error();
            const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
            std::vector<nb::handle> handles(PySequence_Fast_ITEMS(items.ptr()), PySequence_Fast_ITEMS(items.ptr()) + n);
            new (self) call(handles, stream);
          },
          "arrays"_a, "stream"_a.none())
      .def("__call__", &call::operator(), "array"_a.none())
      .def("done", &call::done)
      .def("empty", &call::empty, "shape"_a, "dtype"_a)
      .def("like", &call::like, "array"_a.none(), "dtype"_a.none() = nb::none(), "flat"_a = false)
      .def_prop_ro("stream", &call::stream)
      .def_prop_ro("device", &call::device)
      .def_prop_ro("kind", &call::kind)
      .def_prop_ro("returns_array", &call::returns_array)
      .def_prop_ro("foreign", &call::foreign);
}

}  // namespace prism::python
