// SPDX-License-Identifier: Apache-2.0
#pragma once
// Results prism allocates itself: device memory from prism's stream-ordered pool on each device
// (cudaMallocFromPoolAsync on the call's stream, given back with cudaFreeAsync on that stream
// when the last owner lets go), exported as a DLPack tensor or as prism_primitives.Array, a small
// array that speaks both DLPack and the CUDA array interface. No other library is needed to make
// a result: calls.cpp hands the same memory to torch, CuPy, JAX, Numba or PyCUDA as their own
// array when the inputs were theirs.
#include "arrays.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace prism::python {

// Device memory owned by whoever holds the last reference: a result array, a DLPack tensor a
// consumer holds, or both. Freed on the stream it was allocated on (the order every caching
// allocator gives: work queued there after the last use is safe), from any thread, with or without
// the GIL (torch calls a DLPack deleter from wherever its tensor dies). The Python object that owns
// that stream (a cupy Stream, a torch.cuda.Stream, a stream= object), when the call had one, is
// kept alive until the memory is freed: its handle is then live at the free, whatever order Python
// drops the stream and the result in. A bare int handle has no owner: its stream must outlive the
// memory, as in CUDA.
struct device_allocation {
  void* data = nullptr;
  std::size_t bytes = 0;
  int device = 0;
  std::uintptr_t stream = 0;
  unsigned long long stream_id = 0;  // cudaStreamGetId at allocation: a reused handle is not it
  std::thread::id thread;            // for cudaStreamPerThread, which is the allocating thread's
  PyObject* stream_owner = nullptr;  // a strong reference, dropped (under the GIL) after the free

  device_allocation() = default;
  device_allocation(const device_allocation&) = delete;
  device_allocation& operator=(const device_allocation&) = delete;
  ~device_allocation();
};

// `bytes` of device memory on `device`, ordered on `stream` (at least one byte is allocated).
// `stream_owner`, if given, is the Python object that keeps `stream` alive: the memory holds a
// reference to it until it is freed. Called with the GIL held.
std::shared_ptr<device_allocation> allocate_on_device(int device, std::uintptr_t stream, std::size_t bytes,
                                                      const char* algorithm, nb::handle stream_owner = nb::handle());

// An array of prism's own: C-contiguous elements of `type` in `memory`, written by work on
// `stream` (consumers are ordered after it: DLPack's stream argument, the CUDA array interface's
// stream field).
struct device_array {
  std::shared_ptr<device_allocation> memory;
  std::vector<std::int64_t> shape;
  element type = element::f32;
  int device = 0;
  std::uintptr_t stream = 0;
  std::size_t offset = 0;  // bytes into memory: a view's first element

  std::size_t size() const noexcept {
    std::size_t n = 1;
    for (std::int64_t e : shape) n *= static_cast<std::size_t>(e);
    return n;
  }
  void* data() const noexcept { return memory ? static_cast<char*>(memory->data) + offset : nullptr; }
};

// A DLPack capsule ("dltensor", or "dltensor_versioned" when `versioned`) over the array's memory;
// the tensor holds a reference to the memory until its consumer calls the deleter.
nb::object export_dlpack(const device_array& a, bool versioned);
// The same tensor without a capsule (DLPack 1.x's versioned form), for a C exchange table to own.
dlpack::ManagedTensorVersioned* export_managed(const device_array& a);

// Reads one of prism's arrays into `into`, ordered after its producer on `stream` when a call
// gives one (else its stream is synchronized).
void read_device_array(array& into, const device_array& a, const std::uintptr_t* stream);

// Whether `object` is a prism_primitives.Array, and the array it holds.
const device_array* as_device_array(nb::handle object);
nb::object wrap_device_array(device_array a);

}  // namespace prism::python
