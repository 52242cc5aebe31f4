// SPDX-License-Identifier: Apache-2.0
// cast<To>(from) compiled for the conversions that castable (elementwise.hpp) allows: between the
// floating types, and each integer type to and from float and double.
#include "operations.cuh"

namespace prism::detail {
template struct conversion<float, double>;
template struct conversion<float, __half>;
template struct conversion<float, __nv_bfloat16>;
template struct conversion<double, float>;
template struct conversion<double, __half>;
template struct conversion<double, __nv_bfloat16>;
template struct conversion<__half, float>;
template struct conversion<__half, double>;
template struct conversion<__half, __nv_bfloat16>;
template struct conversion<__nv_bfloat16, float>;
template struct conversion<__nv_bfloat16, double>;
template struct conversion<__nv_bfloat16, __half>;
}  // namespace prism::detail
