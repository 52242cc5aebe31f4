#pragma once
// prism::span: a non-owning view of `size` elements starting at `data`.
//
// Every algorithm takes its arrays as spans. A span does not say where its memory lives: the GPU
// implementations need device memory, `cpu` needs host memory, and each call checks which it got.
// The size is 64-bit, so arrays past 2^31 elements are fine.
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace prism {

namespace detail {
// A container's data() is a raw pointer (std::vector, prism::device_buffer) or a fancy pointer
// with .get() (thrust::device_vector's thrust::device_ptr): either gives the address.
template <class P>
constexpr auto raw_pointer(P p) noexcept {
  if constexpr (std::is_pointer_v<P>) {
    return p;
  } else {
    return p.get();
  }
}

template <class C>
using container_element_t =
    std::remove_pointer_t<decltype(raw_pointer(std::declval<C&>().data()))>;
}  // namespace detail

template <class T>
class span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr span() noexcept = default;
  constexpr span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}

  // span<T> -> span<const T>.
  template <class U>
    requires(!std::is_same_v<U, T> && std::is_convertible_v<U (*)[], T (*)[]>)
  constexpr span(span<U> other) noexcept : span(other.data(), other.size()) {}

  // Any contiguous container whose elements convert: std::vector, thrust::device_vector,
  // prism::device_buffer. No copy is made.
  template <class C>
    requires(!std::is_same_v<std::remove_cvref_t<C>, span> &&
             std::is_convertible_v<detail::container_element_t<C> (*)[], T (*)[]> &&
             requires(C& c) { c.size(); })
  constexpr span(C& container) noexcept
      : span(detail::raw_pointer(container.data()), static_cast<std::size_t>(container.size())) {}

  constexpr T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }

  // Elements [offset, offset + count): no bounds check, like std::span.
  constexpr span subspan(std::size_t offset, std::size_t count) const noexcept {
    return {data_ + offset, count};
  }
  constexpr span subspan(std::size_t offset) const noexcept {
    return {data_ + offset, size_ - offset};
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// prism::span{v} deduces the element type, const included, from a container.
template <class C>
span(C&) -> span<detail::container_element_t<C>>;

// An input span whose element type is named by the call (add<float>(a, b, out), sum<float>(x)),
// not deduced, so that containers convert.
template <class T>
using input = std::type_identity_t<span<const T>>;

}  // namespace prism
