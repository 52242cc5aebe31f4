// SPDX-License-Identifier: Apache-2.0
// cast<To>(from) between the integer types and float or double, and between integers of one
// signedness (see castable in elementwise.hpp).
#include "operations.cuh"

namespace prism::detail {
template struct conversion<std::int32_t, float>;
template struct conversion<std::int32_t, double>;
template struct conversion<std::int64_t, float>;
template struct conversion<std::int64_t, double>;
template struct conversion<std::uint32_t, float>;
template struct conversion<std::uint32_t, double>;
template struct conversion<std::uint64_t, float>;
template struct conversion<std::uint64_t, double>;
template struct conversion<float, std::int32_t>;
template struct conversion<float, std::int64_t>;
template struct conversion<float, std::uint32_t>;
template struct conversion<float, std::uint64_t>;
template struct conversion<double, std::int32_t>;
template struct conversion<double, std::int64_t>;
template struct conversion<double, std::uint32_t>;
template struct conversion<double, std::uint64_t>;
template struct conversion<std::int32_t, std::int64_t>;
template struct conversion<std::int64_t, std::int32_t>;
template struct conversion<std::uint32_t, std::uint64_t>;
template struct conversion<std::uint64_t, std::uint32_t>;
}  // namespace prism::detail
