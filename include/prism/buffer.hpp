#pragma once
// prism::device_buffer<T>: owns `size` elements of device memory on the device that was current
// when it was made. Move-only; converts to prism::span without copying. Usable from plain C++.
#include <prism/error.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace prism {

// True when a CUDA device can be used from this process.
inline bool gpu_available() noexcept {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  if (!ok) (void)cudaGetLastError();
  return ok;
}

// The number of multiprocessors of the current device: what a grid that fills the GPU once is
// sized from.
inline int multiprocessor_count() {
  int device = 0, count = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute");
  return count;
}

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t size) : size_(size) {
    if (size_ == 0) return;
    void* memory = nullptr;
    check(cudaMalloc(&memory, size_ * sizeof(T)), "cudaMalloc");
    data_ = static_cast<T*>(memory);
  }
  // A device copy of host data.
  explicit device_buffer(std::span<const T> host) : device_buffer(host.size()) {
    copy_from(host);
  }
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (data_ != nullptr) (void)cudaFree(data_);  // a destructor must not throw
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  span<T> view() const noexcept { return {data_, size_}; }

  // Blocking copies to and from host memory of the same size.
  void copy_from(std::span<const T> host) {
    if (host.size() != size_) throw std::invalid_argument("prism::device_buffer: size mismatch");
    if (size_ > 0)
      check(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void copy_to(std::span<T> host) const {
    if (host.size() != size_) throw std::invalid_argument("prism::device_buffer: size mismatch");
    if (size_ > 0)
      check(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    copy_to(host);
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace prism
