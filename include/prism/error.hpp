// SPDX-License-Identifier: Apache-2.0
#pragma once
// Errors. Bad arguments throw std::invalid_argument before anything is changed. Every CUDA call
// and kernel launch goes through check(): a failure throws prism::cuda_error naming the prism
// operation, the CUDA call, CUDA's own name and message, and where the call was made (for
// prism::device_buffer, the caller's line).
//
// Errors left behind by the caller are not prism's: kernels are launched with
// cudaLaunchKernelEx, whose status is the launch's own. CUB and Thrust read the last error after
// their launches, so before calling them prism clears an error still pending from an earlier
// launch of the caller's (a sticky error, a crashed context, is reported by whichever call meets
// it first).
#include <cuda_runtime_api.h>

#include <source_location>
#include <stdexcept>
#include <string>

namespace prism {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, std::string call, std::string operation = {},
             std::source_location where = std::source_location::current())
      : std::runtime_error(describe(code, call, operation, where)),
        code_(code),
        call_(std::move(call)),
        operation_(std::move(operation)),
        file_(where.file_name()),
        line_(where.line()) {}

  cudaError_t code() const noexcept { return code_; }
  // The CUDA (or CUB, Thrust) call that failed, and the prism operation that made it.
  const std::string& call() const noexcept { return call_; }
  const std::string& operation() const noexcept { return operation_; }
  const char* file() const noexcept { return file_; }
  unsigned line() const noexcept { return line_; }

  // The same error, said of `operation` (the dispatch layer names the algorithm).
  cuda_error of(std::string operation) const {
    cuda_error e = *this;
    static_cast<std::runtime_error&>(e) =
        std::runtime_error(describe(code_, call_, operation, std::source_location{}, file_, line_));
    e.operation_ = std::move(operation);
    return e;
  }

 private:
  static std::string describe(cudaError_t code, const std::string& call,
                              const std::string& operation, std::source_location where,
                              const char* file = nullptr, unsigned line = 0) {
    std::string what = operation.empty() ? std::string("prism: ") : "prism::" + operation + ": ";
    // The two failures of a machine without a usable GPU, said plainly.
    if (code == cudaErrorNoDevice) what += "no CUDA device; ";
    if (code == cudaErrorInsufficientDriver) what += "no CUDA driver (or one too old); ";
    what += call + " failed: " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code);
    if (file == nullptr) {
      file = where.file_name();
      line = where.line();
    }
    if (file != nullptr && *file != '\0') what += " (at " + std::string(file) + ":" + std::to_string(line) + ")";
    return what;
  }

  cudaError_t code_;
  std::string call_;
  std::string operation_;
  const char* file_;
  unsigned line_;
};

// check(cudaMalloc(&p, n), "cudaMalloc") throws prism::cuda_error unless the call succeeded.
inline void check(cudaError_t code, const char* call, const char* operation = "",
                  std::source_location where = std::source_location::current()) {
  if (code != cudaSuccess) {
    // Clear a non-sticky error so that it is not reported again by the next unrelated check.
    (void)cudaGetLastError();
    throw cuda_error(code, call, operation, where);
  }
}

}  // namespace prism
