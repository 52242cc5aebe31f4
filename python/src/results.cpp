// SPDX-License-Identifier: Apache-2.0
// Results prism allocates itself, and prism_primitives.Array (results.hpp).
#include "results.hpp"

#include <prism/buffer.hpp>
#include <prism/error.hpp>

#include "dlpack.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

namespace prism::python {
namespace {

// prism's pool on each device: stream-ordered sub-allocation, memory kept by the pool once freed
// (no release threshold: the steady state asks the driver for nothing).
cudaMemPool_t pool_of(int device, const char* algorithm) {
  static std::mutex lock;
  static std::array<cudaMemPool_t, 64> pools{};
  if (device < 0 || device >= static_cast<int>(pools.size()))
    throw std::invalid_argument("prism: device " + std::to_string(device) + " is past the 64 devices prism pools for");
  std::lock_guard<std::mutex> guard(lock);
  if (pools[device] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    prism::check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate", algorithm);
    std::uint64_t keep = UINT64_MAX;
    prism::check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute",
                 algorithm);
    pools[device] = pool;
  }
  return pools[device];
}

// The device current for a scope, the previous one restored.
class on_device {
 public:
  explicit on_device(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      previous_ = -1;
    }
    if (previous_ != device) {
      if (cudaSetDevice(device) != cudaSuccess) (void)cudaGetLastError();
    } else {
      previous_ = -1;
    }
  }
  ~on_device() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  on_device(const on_device&) = delete;
  on_device& operator=(const on_device&) = delete;

 private:
  int previous_ = -1;
};

// DLPack's view of one of prism's arrays: the tensor, its shape, and the memory it keeps alive.
struct exported {
  std::vector<std::int64_t> shape;
  std::shared_ptr<device_allocation> memory;
  dlpack::ManagedTensor plain{};
  dlpack::ManagedTensorVersioned versioned{};
};

void fill_tensor(dlpack::Tensor& t, exported& e, const device_array& a) {
  t.data = a.data();
  t.device = {dlpack::cuda, a.device};
  t.ndim = static_cast<std::int32_t>(e.shape.size());
  switch (a.type) {
    case element::f16: t.dtype = {dlpack::float_code, 16, 1}; break;
    case element::bf16: t.dtype = {dlpack::bfloat_code, 16, 1}; break;
    case element::f32: t.dtype = {dlpack::float_code, 32, 1}; break;
    case element::f64: t.dtype = {dlpack::float_code, 64, 1}; break;
    case element::i32: t.dtype = {dlpack::int_code, 32, 1}; break;
    case element::i64: t.dtype = {dlpack::int_code, 64, 1}; break;
    case element::u32: t.dtype = {dlpack::uint_code, 32, 1}; break;
    case element::u64: t.dtype = {dlpack::uint_code, 64, 1}; break;
    case element::u8: t.dtype = {dlpack::uint_code, 8, 1}; break;
    case element::boolean: t.dtype = {dlpack::bool_code, 8, 1}; break;
    case element::i8: t.dtype = {dlpack::int_code, 8, 1}; break;
    case element::i16: t.dtype = {dlpack::int_code, 16, 1}; break;
    case element::u16: t.dtype = {dlpack::uint_code, 16, 1}; break;
  }
  t.shape = e.shape.empty() ? nullptr : e.shape.data();
  t.strides = nullptr;  // compact, row-major
  t.byte_offset = 0;
}

void delete_plain(dlpack::ManagedTensor* m) { delete static_cast<exported*>(m->manager_ctx); }
void delete_versioned(dlpack::ManagedTensorVersioned* m) { delete static_cast<exported*>(m->manager_ctx); }

// A capsule nobody consumed frees its tensor itself.
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, dlpack::capsule_name)) {
    auto* m = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::capsule_name));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, dlpack::versioned_capsule_name)) {
    auto* m = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, dlpack::versioned_capsule_name));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
  PyErr_Clear();
}

// The CUDA array interface's typestr of an element type (bfloat16 has none).
const char* typestr_of(element e) {
  switch (e) {
    case element::f16: return "<f2";
    case element::f32: return "<f4";
    case element::f64: return "<f8";
    case element::i32: return "<i4";
    case element::i64: return "<i8";
    case element::u32: return "<u4";
    case element::u64: return "<u8";
    case element::u8: return "|u1";
    case element::boolean: return "|b1";
    case element::i8: return "|i1";
    case element::i16: return "<i2";
    case element::u16: return "<u2";
    case element::bf16: return nullptr;
  }
  return nullptr;
}

nb::tuple shape_tuple(const std::vector<std::int64_t>& shape) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
  if (t == nullptr) nb::raise_python_error();
  for (std::size_t i = 0; i < shape.size(); ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(shape[i]));
  return nb::steal<nb::tuple>(t);
}

// A stream argument of a consumer (DLPack's stream=, None: the legacy default stream; -1: none).
std::optional<std::uintptr_t> consumer_stream(nb::handle stream) {
  if (stream.is_none()) return std::uintptr_t{1};
  long long s = 0;
  if (!PyLong_Check(stream.ptr()) || PyBool_Check(stream.ptr()))
    throw nb::type_error("prism.Array.__dlpack__: stream must be an int or None");
  s = PyLong_AsLongLong(stream.ptr());
  if (s == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw std::invalid_argument("prism.Array.__dlpack__: stream out of range");
  }
  if (s == -1) return std::nullopt;
  if (s == 0) throw std::invalid_argument("prism.Array.__dlpack__: stream 0 is not allowed (DLPack: 1 is the legacy "
                                          "default stream)");
  return stream_handle(stream);
}

nb::object array_dlpack(const device_array& a, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                        nb::handle copy) {
  if (!copy.is_none() && PyObject_IsTrue(copy.ptr()) == 1)
    throw nb::buffer_error("prism.Array: exported in place only (copy=True is not offered)");
  if (!dl_device.is_none()) {
    const auto wanted = nb::cast<std::pair<int, int>>(dl_device);
    if (wanted.first != dlpack::cuda || wanted.second != a.device)
      throw nb::buffer_error(("prism.Array lives on cuda:" + std::to_string(a.device) + "; exported there only").c_str());
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    const auto v = nb::cast<std::pair<int, int>>(max_version);
    versioned = v.first >= 1;
  }
  if (const auto s = consumer_stream(stream); s && a.size() > 0) order_after(a.device, a.stream, *s, "prism.Array");
  return export_dlpack(a, versioned);
}

nb::object array_interface(const device_array& a) {
  const char* typestr = typestr_of(a.type);
  if (typestr == nullptr)
    throw nb::attribute_error("prism.Array of bfloat16 has no CUDA array interface (no typestr names bfloat16): use "
                              "DLPack");
  nb::dict d;
  d["shape"] = shape_tuple(a.shape);
  d["typestr"] = typestr;
  d["data"] = nb::make_tuple(nb::int_(reinterpret_cast<std::uintptr_t>(a.data())), false);
  d["version"] = 3;
  d["strides"] = nb::none();
  // The producer's stream, for the consumer to wait on: the legacy default stream is 1 here.
  if (a.size() == 0) d["stream"] = nb::none();
  else d["stream"] = nb::int_(a.stream == 0 ? std::uintptr_t{1} : a.stream);
  return std::move(d);
}

// A copy on the host (a NumPy array), after the array's stream has finished writing it.
nb::object array_to_host(const device_array& a) {
  nb::object numpy = nb::module_::import_("numpy");
  if (a.type == element::bf16)
    throw std::invalid_argument("prism.Array: NumPy has no bfloat16 (read it through DLPack, with torch)");
  nb::object host = numpy.attr("empty")(shape_tuple(a.shape), name(a.type));
  array view = take(host, "the host copy", true);
  const std::size_t bytes = a.size() * element_bytes(a.type);
  if (bytes > 0) {
    on_device device(a.device);
    const auto s = reinterpret_cast<cudaStream_t>(a.stream);
    without_gil([&] {
      prism::check(cudaMemcpyAsync(view.data, a.data(), bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync",
                   "prism.Array");
      prism::check(cudaStreamSynchronize(s), "cudaStreamSynchronize", "prism.Array");
    });
  }
  return host;
}

}  // namespace

namespace {

// Whether Python can still take a reference back: not before it starts nor once it is finalizing
// (a thread that takes the GIL then may never return; the reference is left, the process ending).
bool python_running() {
  if (!Py_IsInitialized()) return false;
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsFinalizing();
#else
  return !_Py_IsFinalizing();
#endif
}

}  // namespace

device_allocation::~device_allocation() {
  if (data != nullptr) {
    on_device scope(device);
    auto s = reinterpret_cast<cudaStream_t>(stream);
    // Freed on the stream it was allocated on, if that is still possible. Guaranteed: with an
    // owner (the Python object of the stream, held since the allocation: a cupy Stream, a
    // torch.cuda.Stream, a stream= object) the handle is live here, the owner's stream not yet
    // destroyed. Not guaranteed: a bare int handle (no owner), or an owner that does not own its
    // stream (an external stream's wrapper), may name a stream destroyed since. The id below tells
    // when the handle now names another stream (the free is then not ordered there); a handle
    // destroyed and not reused cannot be told apart: calling CUDA on it is undefined behaviour, so
    // the stream of an int handle must outlive the memory made on it, as in CUDA.
    // cudaStreamPerThread is the allocating thread's only: from another thread it is not that
    // stream. When the free cannot be ordered, the device finishes first and the legacy default
    // stream frees it.
    bool ordered = true;
    if (stream == 2) {
      ordered = std::this_thread::get_id() == thread;
    } else if (stream > 2) {
      unsigned long long id = 0;
      ordered = cudaStreamGetId(s, &id) == cudaSuccess && id == stream_id;
    }
    if (!ordered) {
      (void)cudaGetLastError();
      (void)cudaDeviceSynchronize();
      s = nullptr;
    }
    if (cudaFreeAsync(data, s) != cudaSuccess) (void)cudaGetLastError();  // a destructor must not throw
  }
  // Then the stream's owner may go (its stream destroyed after the free is queued on it). This
  // may run on any thread, with or without the GIL: it is taken for the reference.
  if (stream_owner != nullptr && python_running()) {
    const PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(stream_owner);
    PyGILState_Release(gil);
  }
  stream_owner = nullptr;
}

std::shared_ptr<device_allocation> allocate_on_device(int device, std::uintptr_t stream, std::size_t bytes,
                                                      const char* algorithm, nb::handle stream_owner) {
  auto memory = std::make_shared<device_allocation>();
  memory->device = device;
  memory->stream = stream;
  memory->bytes = bytes;
  memory->thread = std::this_thread::get_id();
  on_device scope(device);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  if (stream > 2) prism::check(cudaStreamGetId(s, &memory->stream_id), "cudaStreamGetId", algorithm);
  void* data = nullptr;
  prism::check(cudaMallocFromPoolAsync(&data, bytes == 0 ? 1 : bytes, pool_of(device, algorithm), s),
               "cudaMallocFromPoolAsync", algorithm);
  memory->data = data;
  // The legacy default stream and cudaStreamPerThread are never destroyed: no owner is needed.
  if (stream > 2 && stream_owner.is_valid() && !stream_owner.is_none()) {
    Py_INCREF(stream_owner.ptr());
    memory->stream_owner = stream_owner.ptr();
  }
  return memory;
}

dlpack::ManagedTensorVersioned* export_managed(const device_array& a) {
  auto* e = new exported{a.shape, a.memory};
  e->versioned.version = {dlpack::major_version, 0};
  e->versioned.manager_ctx = e;
  e->versioned.deleter = delete_versioned;
  e->versioned.flags = 0;
  fill_tensor(e->versioned.dl_tensor, *e, a);
  return &e->versioned;
}

nb::object export_dlpack(const device_array& a, bool versioned) {
  PyObject* capsule = nullptr;
  if (versioned) {
    dlpack::ManagedTensorVersioned* m = export_managed(a);
    capsule = PyCapsule_New(m, dlpack::versioned_capsule_name, capsule_destructor);
    if (capsule == nullptr) delete_versioned(m);
  } else {
    auto* e = new exported{a.shape, a.memory};
    e->plain.manager_ctx = e;
    e->plain.deleter = delete_plain;
    fill_tensor(e->plain.dl_tensor, *e, a);
    capsule = PyCapsule_New(&e->plain, dlpack::capsule_name, capsule_destructor);
    if (capsule == nullptr) delete e;
  }
  if (capsule == nullptr) nb::raise_python_error();
  return nb::steal(capsule);
}

void read_device_array(array& into, const device_array& a, const std::uintptr_t* stream) {
  into.data = a.data();
  into.size = a.size();
  into.type = a.type;
  into.device_type = dlpack::cuda;
  into.device_id = a.device;
  into.keep_.reset();
  if (into.size == 0 || !a.memory) return;
  if (stream != nullptr) {
    order_after(a.device, a.stream, *stream, "prism.Array");
  } else {
    on_device scope(a.device);
    const auto s = reinterpret_cast<cudaStream_t>(a.stream);
    prism::check(without_gil([&] { return cudaStreamSynchronize(s); }), "cudaStreamSynchronize", "prism.Array");
  }
}

const device_array* as_device_array(nb::handle object) {
  if (!nb::isinstance<device_array>(object)) return nullptr;
  return nb::inst_ptr<device_array>(object);
}

nb::object wrap_device_array(device_array a) { return nb::cast(std::move(a), nb::rv_policy::move); }

void bind_results(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<device_array>(m, "Array",
                           "An array prism allocated on a GPU: C-contiguous, exported through DLPack "
                           "(__dlpack__, with the stream argument honoured) and the CUDA array interface "
                           "(version 3, its stream field the one that wrote it). numpy.asarray(a) or a.get() "
                           "copies it to the host.")
      .def_prop_ro("shape", [](const device_array& a) { return shape_tuple(a.shape); })
      .def_prop_ro("dtype", [](const device_array& a) { return name(a.type); })
      .def_prop_ro("size", [](const device_array& a) { return a.size(); })
      .def_prop_ro("ndim", [](const device_array& a) { return a.shape.size(); })
      .def_prop_ro("nbytes", [](const device_array& a) { return a.size() * element_bytes(a.type); })
      .def_prop_ro("device", [](const device_array& a) { return a.device; })
      .def_prop_ro("stream", [](const device_array& a) { return a.stream; })
      .def_prop_ro("data_ptr", [](const device_array& a) { return reinterpret_cast<std::uintptr_t>(a.data()); })
      .def("__len__",
           [](const device_array& a) {
             if (a.shape.empty()) throw nb::type_error("len() of a 0-d prism.Array");
             return a.shape[0];
           })
      .def("__dlpack__", &array_dlpack, nb::kw_only(), "stream"_a = nb::none(), "max_version"_a = nb::none(),
           "dl_device"_a = nb::none(), "copy"_a = nb::none())
      .def("__dlpack_device__", [](const device_array& a) { return nb::make_tuple(int(dlpack::cuda), a.device); })
      .def_prop_ro("__cuda_array_interface__", &array_interface)
      .def(
          "reshape",
          [](const device_array& a, nb::args shape) {
            nb::handle given = shape.size() == 1 && !PyLong_Check(shape[0].ptr()) ? shape[0] : nb::handle(shape);
            std::vector<std::int64_t> extents;
            int unknown = -1;
            for (nb::handle e : given) {
              const auto v = nb::cast<std::int64_t>(e);
              if (v == -1 && unknown < 0) unknown = static_cast<int>(extents.size());
              else if (v < 0) throw std::invalid_argument("prism.Array.reshape: negative extent");
              extents.push_back(v);
            }
            // Products checked as any shape's: wrapped past 2^63, (2^61 + 1) x 8 would pass for 8.
            const auto product = [&] { return count_below_2_63(extents.data(), static_cast<int>(extents.size()), 1); };
            const auto other_size = [] { return std::invalid_argument("prism.Array.reshape: the new shape has another size"); };
            const auto size = static_cast<std::size_t>(a.size());
            if (unknown >= 0) {
              extents[unknown] = 1;
              const std::optional<std::size_t> known = product();
              if (!known) throw other_size();
              extents[unknown] = *known == 0 ? 0 : static_cast<std::int64_t>(size / *known);
            }
            const std::optional<std::size_t> total = product();
            if (!total || *total != size) throw other_size();
            device_array view = a;
            view.shape = extents;
            return view;
          },
          "A view of the same elements in another shape (C order).")
      .def(
          "__getitem__",
          [](const device_array& a, nb::slice s) {
            if (a.shape.size() != 1) throw nb::index_error("prism.Array: slices of 1-d arrays only");
            const auto [start, stop, step, length] = s.compute(static_cast<std::size_t>(a.shape[0]));
            if (step != 1) throw nb::index_error("prism.Array: contiguous slices only (step 1)");
            device_array view = a;
            view.offset += static_cast<std::size_t>(start) * element_bytes(a.type);
            view.shape = {static_cast<std::int64_t>(length)};
            return view;
          },
          "A contiguous 1-d slice, sharing the memory.")
      .def("get", &array_to_host, "A NumPy copy, once the array's stream has written it.")
      .def(
          "__array__",
          [](const device_array& a, nb::handle dtype, nb::handle) {
            nb::object host = array_to_host(a);
            return dtype.is_none() ? host : host.attr("astype")(dtype);
          },
          "dtype"_a = nb::none(), "copy"_a = nb::none())
      .def("__repr__", [](const device_array& a) {
        std::string text = "prism.Array(shape=(";
        for (std::size_t i = 0; i < a.shape.size(); ++i) text += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : i + 1 < a.shape.size() ? ", " : "");
        return text + "), dtype=" + name(a.type) + ", device=cuda:" + std::to_string(a.device) + ")";
      });
}

}  // namespace prism::python
