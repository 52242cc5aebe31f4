#pragma once
// Errors. Every CUDA call and every kernel launch in prism goes through check(): a failure throws
// prism::cuda_error naming the call, where it was made and what CUDA said. Bad arguments throw
// std::invalid_argument before anything is changed.
#include <cuda_runtime_api.h>

#include <source_location>
#include <stdexcept>
#include <string>

namespace prism {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, std::string call, std::source_location where)
      : std::runtime_error(call + " failed at " + where.file_name() + ":" +
                           std::to_string(where.line()) + ": " + cudaGetErrorName(code) + ": " +
                           cudaGetErrorString(code)),
        code_(code),
        call_(std::move(call)),
        file_(where.file_name()),
        line_(where.line()) {}

  cudaError_t code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const char* file() const noexcept { return file_; }
  unsigned line() const noexcept { return line_; }

 private:
  cudaError_t code_;
  std::string call_;
  const char* file_;
  unsigned line_;
};

// check(cudaMalloc(&p, n), "cudaMalloc") throws prism::cuda_error unless the call succeeded.
inline void check(cudaError_t code, const char* call,
                  std::source_location where = std::source_location::current()) {
  if (code != cudaSuccess) {
    // Clear a non-sticky error so that it is not reported again by the next unrelated check.
    (void)cudaGetLastError();
    throw cuda_error(code, call, where);
  }
}

}  // namespace prism
