// SPDX-License-Identifier: Apache-2.0
#pragma once
// The order a radix sort sorts in, as its kernels and comparators see it: every key becomes an
// unsigned integer whose order is the keys' order (CUB's "twiddling"), read 8 bits at a time.
//
//   bits_order<B>           the standard keys (int32 ... double) as their bits B (uint32_t or
//                           uint64_t), what they are (unsigned, signed, floating) told at run time:
//                           one instantiation per key size, not per type.
//   decomposed_order<K, D>  a caller's key type K, by the arithmetic fields its decomposer D names
//                           (CUB's convention: D(key) is a cuda::std::tuple of references to them,
//                           the most significant first): the fields' ordered bits side by side.
//   key_order<B>            the standard keys' order, ascending, as a comparison on their bits
//                           (search, merge, the set operations, the distributed sort).
//
// Each gives its number of 8-bit digits (`passes`), digit(key, pass) for pass 0 (the least
// significant) on, and a strict weak order, operator()(a, b), that agrees with the digits: what
// the comparison sorts (cpu, thrust) use, so that they give the radix sorts' result bit for bit.
//
// The map to unsigned integers, per arithmetic value: an unsigned integer is itself; a signed one
// flips its sign bit; a float or double flips its sign bit if positive and is negated if negative
// (its bits' two's complement: the complement plus one, so that -0.0 lands where +0.0 does and the
// two are one key; every other value keeps a place of its own). Descending complements the
// result. So NaNs sort by their bits: after +inf with the sign bit clear, before -inf with it set
// (<prism/sort.hpp> has the whole order). The map is three masks chosen once per call from the
// key's kind (<prism/key_kind.hpp>; `key_map`, `order_masks`), then a shift, three logic operations
// and a subtraction per key, without a branch: the sort kernels compute a key's digit several
// times per pass, and an instruction-bound pass pays for each (docs/benchmarks/sort.md, "Fewer
// instructions a key").
#include <prism/key_kind.hpp>

#include <cuda/std/bit>
#include <cuda/std/tuple>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace prism {

namespace detail::radix {

inline constexpr unsigned digit_bits = 8;
inline constexpr unsigned radix = 1u << digit_bits;  // digits per pass

// The map above for keys of bits B, ascending, as masks: `floating` keeps a negative float's sign
// spread over every bit (zero for integers), `flip` is the sign bit (zero for unsigned).
template <class B>
struct key_map {
  B floating, flip;
  __host__ __device__ explicit key_map(key_kind kind)
      : floating(kind == key_kind::floating_point ? B(~B(0)) : B(0)),
        flip(kind == key_kind::unsigned_integer ? B(0) : B(B(1) << (8 * sizeof(B) - 1))) {}
  // The unsigned integer whose order is the key's order.
  __host__ __device__ B operator()(B bits) const {
    const B negative = B(static_cast<std::make_signed_t<B>>(bits) >> (8 * sizeof(B) - 1)) & floating;
    return B(B(bits ^ (negative | flip)) - negative);
  }
};

// ... in either direction: `complement` is every bit when descending.
template <class B>
struct order_masks {
  key_map<B> map;
  B complement;
  __host__ __device__ order_masks(key_kind kind, bool descending)
      : map(kind), complement(descending ? B(~B(0)) : B(0)) {}
  __host__ __device__ B operator()(B bits) const { return B(map(bits) ^ complement); }
};

template <class B>
__host__ __device__ inline B ordered(B bits, key_kind kind, bool descending) {
  return order_masks<B>(kind, descending)(bits);
}

// The standard keys by their bits. The masks are made when the order is (on the host, once per
// call), so a kernel reads them as launch parameters; they are all the order keeps.
template <class B>
struct bits_order {
  using key_type = B;
  static constexpr unsigned passes = sizeof(B) * 8 / digit_bits;
  order_masks<B> masks;

  __host__ __device__ bits_order(key_kind kind, bool descending) : masks(kind, descending) {}
  __host__ __device__ explicit bits_order(order_masks<B> m) : masks(m) {}
  __host__ __device__ bits_order() : bits_order(key_kind::unsigned_integer, false) {}  // unsigned, ascending
  __host__ __device__ unsigned digit(B key, unsigned pass) const {
    return static_cast<unsigned>(masks(key) >> (pass * digit_bits)) & (radix - 1);
  }
  __host__ __device__ bool operator()(B a, B b) const { return masks(a) < masks(b); }
};

// ---- a caller's key, by its fields ------------------------------------------------------------

// The arithmetic types a field may have: integers (bool included) and float and double.
template <class F>
inline constexpr bool radix_field = (std::is_integral_v<F> || std::is_same_v<F, float> || std::is_same_v<F, double>) &&
                                    (sizeof(F) == 1 || sizeof(F) == 2 || sizeof(F) == 4 || sizeof(F) == 8);

template <std::size_t Bytes>
struct unsigned_of;
template <> struct unsigned_of<1> { using type = std::uint8_t; };
template <> struct unsigned_of<2> { using type = std::uint16_t; };
template <> struct unsigned_of<4> { using type = std::uint32_t; };
template <> struct unsigned_of<8> { using type = std::uint64_t; };

// A field's ordered bits.
template <class F>
__host__ __device__ typename unsigned_of<sizeof(F)>::type ordered_field(F value, bool descending) {
  using U = typename unsigned_of<sizeof(F)>::type;
  return ordered(cuda::std::bit_cast<U>(value), key_kind_of<F>, descending);
}

// What a decomposer returns: a tuple of references to fields.
template <class T>
struct field_tuple : std::false_type {};
template <class... F>
struct field_tuple<cuda::std::tuple<F&...>> : std::bool_constant<(sizeof...(F) > 0) && (radix_field<std::remove_cv_t<F>> && ...)> {
  static constexpr std::size_t count = sizeof...(F);
  static constexpr std::size_t sizes[] = {sizeof(F)...};
  static constexpr std::size_t bytes = (sizeof(F) + ...);
  // The bytes of the fields after field i: where its bits start in the decomposed key, counted
  // from the least significant end.
  __host__ __device__ static constexpr std::size_t bytes_after(std::size_t i) {
    std::size_t b = 0;
    for (std::size_t j = i + 1; j < count; ++j) b += sizes[j];
    return b;
  }
};

template <class D, class K>
using fields_of = decltype(std::declval<const D&>()(std::declval<K&>()));

}  // namespace detail::radix

// A decomposer of K: called with a K&, it returns a cuda::std::tuple of references to K's
// arithmetic fields (integers, float, double), the most significant first (CUB's convention for
// cub::DeviceRadixSort with a decomposer). The fields it leaves out do not take part in the order;
// they travel with the key. __host__ __device__ (the cpu implementation calls it on the host).
template <class D, class K>
concept radix_decomposer = std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<D> && requires {
  typename detail::radix::fields_of<D, K>;
} && detail::radix::field_tuple<detail::radix::fields_of<D, K>>::value;

namespace detail::radix {

// A caller's key by the fields its decomposer names.
template <class K, class D>
struct decomposed_order {
  using key_type = K;
  using fields = field_tuple<fields_of<D, K>>;
  static constexpr unsigned passes = static_cast<unsigned>(fields::bytes) * 8 / digit_bits;
  // The bits CUB sorts (end_bit): every field's.
  static constexpr int bits = static_cast<int>(fields::bytes * 8);
  D decomposer;
  bool descending;

  __host__ __device__ unsigned digit(const K& key, unsigned pass) const {
    K copy = key;
    return digit_of(decomposer(copy), pass, std::make_index_sequence<fields::count>{});
  }
  __host__ __device__ bool operator()(const K& a, const K& b) const {
    K x = a, y = b;
    return compare(decomposer(x), decomposer(y), std::make_index_sequence<fields::count>{}) < 0;
  }

 private:
  // Each digit lies in one field (fields are whole bytes): the field's byte `pass - its start`.
  template <class Tuple, std::size_t... I>
  __host__ __device__ unsigned digit_of(const Tuple& t, unsigned pass, std::index_sequence<I...>) const {
    unsigned d = 0;
    ((d |= field_digit<fields::bytes_after(I)>(cuda::std::get<I>(t), pass)), ...);
    return d;
  }
  template <std::size_t Start, class F>
  __host__ __device__ unsigned field_digit(const F& field, unsigned pass) const {
    const unsigned byte = pass - static_cast<unsigned>(Start);  // wraps past sizeof(F) below Start
    if (byte >= sizeof(F)) return 0;
    return static_cast<unsigned>(ordered_field(field, descending) >> (byte * digit_bits)) & (radix - 1);
  }
  // -1, 0 or 1: a before, with, or after b, the most significant field first.
  template <class Tuple, std::size_t... I>
  __host__ __device__ int compare(const Tuple& a, const Tuple& b, std::index_sequence<I...>) const {
    int order = 0;
    ((order = order != 0 ? order : compare_field(cuda::std::get<I>(a), cuda::std::get<I>(b))), ...);
    return order;
  }
  template <class F>
  __host__ __device__ int compare_field(const F& a, const F& b) const {
    const auto x = ordered_field(a, descending), y = ordered_field(b, descending);
    return x < y ? -1 : (y < x ? 1 : 0);
  }
};

// Positions compared by their keys: Thrust's argsort.
template <class Order, class I>
struct index_order {
  const typename Order::key_type* keys;
  Order order;
  __host__ __device__ bool operator()(I a, I b) const { return order(keys[a], keys[b]); }
};

}  // namespace detail::radix

namespace detail {

// The same order, ascending, as a comparison of keys by their bits: what the searches, the merges
// and the set operations compare with, and the distributed sort's splitters; ordinal(x) is the
// key's place in it (key_map above).
template <class B>
struct key_order {
  radix::key_map<B> map;
  __host__ __device__ explicit key_order(key_kind kind) : map(kind) {}
  __host__ __device__ B ordinal(B x) const { return map(x); }
  __host__ __device__ key_kind kind() const {
    return map.floating ? key_kind::floating_point : map.flip ? key_kind::signed_integer : key_kind::unsigned_integer;
  }
  __host__ __device__ bool operator()(B x, B y) const { return map(x) < map(y); }
};

}  // namespace detail

}  // namespace prism
