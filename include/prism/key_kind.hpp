// SPDX-License-Identifier: Apache-2.0
#pragma once
// What an element of a standard type is, for the families that compare keys by their bits
// (search, merge, top-k): unsigned integers as they are, signed ones with the sign bit flipped,
// floating point in the sort family's order (<prism/sort.hpp>). The compiled entries take it at
// run time, so each is compiled once per element size.
#include <cstdint>
#include <type_traits>

namespace prism::detail {

enum class key_kind : std::uint8_t { unsigned_integer, signed_integer, floating_point };

template <class T>
inline constexpr key_kind key_kind_of = std::is_floating_point_v<T> ? key_kind::floating_point
                                        : std::is_signed_v<T>       ? key_kind::signed_integer
                                                                    : key_kind::unsigned_integer;

}  // namespace prism::detail
