#pragma once
// Thrust reports CUDA failures in its own exception type, thrust::system_error; prism's callers
// get prism::cuda_error from every implementation instead.
#include <prism/error.hpp>

#include <thrust/system/cuda/error.h>
#include <thrust/system_error.h>

#include <source_location>

namespace prism::detail {

// Called from a `catch (const thrust::system_error& e)` block: throws e's CUDA failure as a
// prism::cuda_error naming `call`, and rethrows anything else unchanged.
[[noreturn]] inline void rethrow_as_cuda_error(const thrust::system_error& e, const char* call,
                                               std::source_location where = std::source_location::current()) {
  if (e.code().category() != thrust::cuda_category()) throw;
  throw cuda_error(static_cast<cudaError_t>(e.code().value()), call, where);
}

}  // namespace prism::detail
