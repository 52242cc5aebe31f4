#pragma once
// Every implementation of the generic layer takes the same functor; impl::cpu calls it on the
// host, which a __device__-only extended lambda cannot be. This tells them apart at compile time
// so that cpu can refuse such a lambda by name instead of failing to compile.
namespace prism::detail {

template <class F>
constexpr bool device_only_lambda() {
#ifdef __NVCC__
  return __nv_is_extended_device_lambda_closure_type(F);
#else
  return false;
#endif
}

}  // namespace prism::detail
