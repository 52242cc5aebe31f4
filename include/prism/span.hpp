// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::span: a non-owning view of `size` elements starting at `data`, and the arrays that
// convert to one.
//
// Every algorithm takes its arrays as spans. A span does not say where its memory lives: the
// dispatch layer asks CUDA (host, pinned, managed, or device memory of which GPU) and picks or
// checks the implementation from that. The size is 64-bit: arrays past 2^32 elements are fine.
//
// An array is anything with contiguous elements and a size: std::vector, std::array, C arrays,
// std::span, thrust::device_vector and host_vector, prism::device_buffer, prism::span. Its element
// type is deduced, so prism::add(a, b, out) needs no template argument.
#include <concepts>
#include <cstdint>
#include <cstddef>
#include <iterator>
#include <tuple>
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
using data_pointer_t = decltype(raw_pointer(std::data(std::declval<C&>())));
}  // namespace detail

// Contiguous elements with a size, whatever owns them.
template <class C>
concept array_like = requires(C& c) {
  { detail::raw_pointer(std::data(c)) } -> std::convertible_to<const volatile void*>;
  { std::size(c) } -> std::convertible_to<std::size_t>;
};

// The element type of an array, const included (a const std::vector<float> has const float).
template <array_like C>
using element_t = std::remove_pointer_t<detail::data_pointer_t<std::remove_reference_t<C>>>;

namespace detail {
// The fixed-width integer of an integer type's size and sign: long long (and long, where
// std::int64_t is long long) are the same bytes as std::int64_t, the type the library is compiled
// for, and are handled as it. Other types (characters among them) are themselves.
template <class T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, wchar_t> &&
                          !std::is_same_v<T, char32_t> && (sizeof(T) == 4 || sizeof(T) == 8)>
struct standard_element {
  using type = T;
};
template <class T>
struct standard_element<T, true> {
  using sized = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  using type = std::conditional_t<std::is_signed_v<T>, sized, std::make_unsigned_t<sized>>;
};
}  // namespace detail

// The element type without const, as the library is compiled for it (a long long as int64).
template <array_like C>
using value_t = typename detail::standard_element<std::remove_cv_t<element_t<C>>>::type;

// An array of T that can be read (any constness) or written.
template <class C, class T>
concept array_of = array_like<std::remove_reference_t<C>> && std::is_same_v<value_t<C>, T>;
template <class C, class T>
concept writable_array_of = array_of<C, T> && !std::is_const_v<element_t<C>>;

template <class T>
class span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr span() noexcept = default;
  constexpr span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}

  // Any array whose elements convert (span<T> -> span<const T> included), lvalue or rvalue: a
  // temporary std::span or subspan is a view like this one. No copy is made.
  template <class C>
    requires(!std::is_same_v<std::remove_cvref_t<C>, span> &&
             array_like<std::remove_reference_t<C>> &&
             std::is_convertible_v<element_t<C> (*)[], T (*)[]>)
  constexpr span(C&& array) noexcept
      : span(detail::raw_pointer(std::data(array)), static_cast<std::size_t>(std::size(array))) {}

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

// prism::span{v} deduces the element type, const included, from an array.
template <class C>
  requires array_like<std::remove_reference_t<C>>
span(C&&) -> span<element_t<C>>;

// The span of an array, read-only or writable, of its value_t (the same bytes).
template <class C>
span<const value_t<C>> input_span(C&& array) noexcept {
  const auto* data = detail::raw_pointer(std::data(array));
  return {reinterpret_cast<const value_t<C>*>(data), static_cast<std::size_t>(std::size(array))};
}
template <class C>
span<std::conditional_t<std::is_const_v<element_t<C>>, const value_t<C>, value_t<C>>> output_span(C&& array) noexcept {
  using V = std::conditional_t<std::is_const_v<element_t<C>>, const value_t<C>, value_t<C>>;
  auto* data = detail::raw_pointer(std::data(array));
  return {reinterpret_cast<V*>(data), static_cast<std::size_t>(std::size(array))};
}

// Several inputs for the generic layer (transform, transform_reduce), as read-only spans:
// prism::transform(prism::inputs(a, b, c), out, f).
template <class... A>
  requires(array_like<std::remove_reference_t<A>> && ...)
constexpr auto inputs(A&&... arrays) noexcept {
  return std::tuple{input_span(std::forward<A>(arrays))...};
}

namespace detail {
// The unsigned integer of a size (a pair of them for 16 bytes): what an element that is only moved,
// or compared by its bits, is handled as.
struct alignas(16) bits128 {
  std::uint64_t low, high;
};
template <std::size_t Size>
using bits_of_size = std::conditional_t<
    Size == 1, std::uint8_t,
    std::conditional_t<Size == 2, std::uint16_t,
                       std::conditional_t<Size == 4, std::uint32_t, std::conditional_t<Size == 8, std::uint64_t, bits128>>>>;

// The same array seen as elements of another type of the same size: same address and size.
template <class To, class From>
span<To> reinterpret_span(span<From> s) noexcept {
  static_assert(sizeof(std::remove_cv_t<To>) == sizeof(std::remove_cv_t<From>));
  return {reinterpret_cast<To*>(s.data()), s.size()};
}
// ... as the unsigned bits of its elements' size, for elements aligned to their size.
template <class T>
auto as_bits(span<T> s) noexcept {
  using B = std::conditional_t<std::is_const_v<T>, const bits_of_size<sizeof(T)>, bits_of_size<sizeof(T)>>;
  static_assert(alignof(bits_of_size<sizeof(T)>) == alignof(T), "an element moved as bits is aligned to its size");
  return reinterpret_span<B>(s);
}
}  // namespace detail

}  // namespace prism
