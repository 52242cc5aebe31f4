// SPDX-License-Identifier: Apache-2.0
// Lesson 1: add two vectors on the GPU.
//
// The classic first GPU program adds [1, 2, 3] and [4, 5, 6]. The steps are always the same:
// put the inputs in device memory, run one thread per element, check for errors, bring the
// result back. We do it three ways: with Thrust, with a hand-written kernel, and with prism,
// which wraps both (and three more implementations) behind one call.
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/error.hpp>

#include <cuda/std/functional>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/transform.h>

#include <cstdio>
#include <vector>

// The hand-written kernel: each thread adds one element. The grid has more threads than
// elements (a whole number of blocks), so each checks that its index is in range. The index
// is 64-bit because an int would overflow for arrays past 2^31 elements.
__global__ void add_kernel(const float* a, const float* b, float* out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// Prints a result and checks it: [1, 2, 3] + [4, 5, 6] is [5, 7, 9], exactly, in any implementation.
bool print_and_check(const char* how, const std::vector<float>& v) {
  const bool right = v == std::vector<float>{5, 7, 9};
  std::printf("%-22s [%g, %g, %g]%s\n", how, v[0], v[1], v[2], right ? "" : "   WRONG: want [5, 7, 9]");
  return right;
}

int main() {
  const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
  const std::size_t n = a.size();
  bool ok = true;

  if (!prism::gpu_available()) {
    // No GPU: prism's cpu implementation runs the same Thrust algorithm on the host (OpenMP).
    std::vector<float> out(n);
    prism::add(a, b, out);  // host memory: prism runs its cpu implementation
    return print_and_check("prism (cpu, no GPU):", out) ? 0 : 1;
  }

  // 1. Thrust. device_vector allocates device memory and copies the host data in; transform
  //    launches the kernel; copying into a std::vector brings the result back. Thrust checks
  //    every CUDA call and throws thrust::system_error on failure.
  {
    thrust::device_vector<float> d_a(a.begin(), a.end()), d_b(b.begin(), b.end()), d_out(n);
    thrust::transform(d_a.begin(), d_a.end(), d_b.begin(), d_out.begin(), cuda::std::plus<float>());
    std::vector<float> out(n);
    thrust::copy(d_out.begin(), d_out.end(), out.begin());
    ok &= print_and_check("thrust:", out);
  }

  // 2. By hand: every step is ours, so every step is checked.
  {
    float *d_a = nullptr, *d_b = nullptr, *d_out = nullptr;
    const std::size_t bytes = n * sizeof(float);
    // Allocate device memory.
    prism::check(cudaMalloc(reinterpret_cast<void**>(&d_a), bytes), "cudaMalloc");
    prism::check(cudaMalloc(reinterpret_cast<void**>(&d_b), bytes), "cudaMalloc");
    prism::check(cudaMalloc(reinterpret_cast<void**>(&d_out), bytes), "cudaMalloc");
    // Copy the inputs in.
    prism::check(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    prism::check(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    // Launch enough 256-thread blocks to cover n. A launch returns no status: errors in its
    // configuration are read with cudaGetLastError, errors while it runs surface at the next
    // synchronizing call (the copy back).
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
    add_kernel<<<blocks, threads>>>(d_a, d_b, d_out, n);
    prism::check(cudaGetLastError(), "add_kernel launch");
    // Copy the result back: cudaMemcpy waits for the kernel to finish first.
    std::vector<float> out(n);
    prism::check(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    ok &= print_and_check("hand-written kernel:", out);
    prism::check(cudaFree(d_a), "cudaFree");
    prism::check(cudaFree(d_b), "cudaFree");
    prism::check(cudaFree(d_out), "cudaFree");
  }

  // 3. prism: device_buffer owns device memory (and copies host data in); add picks the fastest
  //    implementation; to_host copies back. Errors throw prism::cuda_error or
  //    std::invalid_argument (a host pointer passed where device memory is needed, say).
  {
    prism::device_buffer<float> d_a(a), d_b(b), d_out(n);
    prism::add(d_a, d_b, d_out);
    ok &= print_and_check("prism:", d_out.to_host());
  }
  return ok ? 0 : 1;
}
