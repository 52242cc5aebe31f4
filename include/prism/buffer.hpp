// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::device_buffer<T>: owns `size` elements of device memory on the device that was current
// when it was made. Move-only; an array like any other (prism::add(a, b, out) takes it), and
// converts to prism::span without copying. Usable from plain C++.
//
//   prism::device_buffer<float> d{1.0f, 2.0f, 3.0f};   // from a host range or a list
//   d.resize(5);                                         // keeps the first 3, zeroes the new ones
//   d.set(4, 7.0f); float v = d.get(0);                  // one element, a blocking copy each
// thrust::device_vector works with every call as well (it is an array like any other).
#include <prism/error.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <ranges>
#include <source_location>
#include <string>
#include <span>
#include <stdexcept>
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

template <class T>
class device_buffer {
 public:
  using value_type = T;

  device_buffer() = default;
  explicit device_buffer(std::size_t size,
                         std::source_location where = std::source_location::current())
      : size_(size) {
    if (size_ == 0) return;
    void* memory = nullptr;
    check(cudaMalloc(&memory, size_ * sizeof(T)), "cudaMalloc", "device_buffer", where);
    data_ = static_cast<T*>(memory);
  }
  // A device copy of host data: prism::device_buffer d(host_vector).
  explicit device_buffer(std::span<const T> host,
                         std::source_location where = std::source_location::current())
      : device_buffer(host.size(), where) {
    copy_from(host, where);
  }
  // From any host range (a list, an iterator pair's elements): copied once through host memory
  // when it is not contiguous.
  device_buffer(std::initializer_list<T> host, std::source_location where = std::source_location::current())
      : device_buffer(std::span<const T>(host.begin(), host.size()), where) {}
  template <std::input_iterator I, std::sentinel_for<I> S>
  device_buffer(I first, S last, std::source_location where = std::source_location::current())
      : device_buffer(std::span<const T>(std::vector<T>(first, last)), where) {}
  template <std::ranges::input_range R>
    requires(!std::ranges::contiguous_range<R> && !std::is_same_v<std::remove_cvref_t<R>, device_buffer>)
  explicit device_buffer(R&& host, std::source_location where = std::source_location::current())
      : device_buffer(std::ranges::begin(host), std::ranges::end(host), where) {}
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

  // size() becomes `size`: the first min(size(), size) elements are kept (a device-to-device copy
  // into a new allocation, on the default stream, waited for), new ones are zero bytes (0 for
  // every arithmetic type). Views taken before are invalid after a resize that changes the size.
  void resize(std::size_t size, std::source_location where = std::source_location::current()) {
    if (size == size_) return;
    device_buffer grown(size, where);
    if (size > 0) {
      const std::size_t kept = std::min(size, size_);
      if (kept > 0)
        check(cudaMemcpy(grown.data_, data_, kept * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy",
              "device_buffer::resize", where);
      if (size > kept)
        check(cudaMemset(grown.data_ + kept, 0, (size - kept) * sizeof(T)), "cudaMemset", "device_buffer::resize",
              where);
      check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize", "device_buffer::resize", where);
    }
    *this = std::move(grown);
  }

  // One element, by a blocking copy (std::out_of_range past the end). Work queued on other streams
  // is not waited for: synchronize first where it writes this buffer.
  T get(std::size_t i, std::source_location where = std::source_location::current()) const {
    require_index(i, "get");
    T value;
    check(cudaMemcpy(&value, data_ + i, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy", "device_buffer::get", where);
    return value;
  }
  void set(std::size_t i, const T& value, std::source_location where = std::source_location::current()) {
    require_index(i, "set");
    check(cudaMemcpy(data_ + i, &value, sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy", "device_buffer::set", where);
    check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize", "device_buffer::set", where);
  }

  // Blocking copies to and from host memory of the same size. From pageable memory cudaMemcpy
  // may return before its DMA has landed (the data is staged): the default stream is waited for,
  // so that work on a stream that does not wait for the default one (non-blocking) sees the data.
  void copy_from(std::span<const T> host,
                 std::source_location where = std::source_location::current()) {
    if (host.size() != size_) throw std::invalid_argument("prism::device_buffer: size mismatch");
    if (size_ > 0) {
      check(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice),
            "cudaMemcpy", "device_buffer::copy_from", where);
      check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize", "device_buffer::copy_from", where);
    }
  }
  void copy_to(std::span<T> host,
               std::source_location where = std::source_location::current()) const {
    if (host.size() != size_) throw std::invalid_argument("prism::device_buffer: size mismatch");
    if (size_ > 0)
      check(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost),
            "cudaMemcpy", "device_buffer::copy_to", where);
  }
  std::vector<T> to_host(std::source_location where = std::source_location::current()) const {
    std::vector<T> host(size_);
    copy_to(host, where);
    return host;
  }

 private:
  void require_index(std::size_t i, const char* what) const {
    if (i >= size_)
      throw std::out_of_range(std::string("prism::device_buffer::") + what + ": element " + std::to_string(i) +
                              " of " + std::to_string(size_));
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// prism::device_buffer d(host) deduces T from a host array.
template <class C>
  requires array_like<std::remove_reference_t<C>>
device_buffer(C&&) -> device_buffer<std::remove_cv_t<element_t<C>>>;

}  // namespace prism
