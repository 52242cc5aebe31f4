// SPDX-License-Identifier: Apache-2.0
// prism from plain C++: host data runs the cpu implementation, device data the fastest GPU one.
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/error.hpp>
#include <prism/reduce.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

int main() {
  std::vector<float> a{1, 2, 3}, b{4, 5, 6}, out(3);
  prism::add(a, b, out);        // [5, 7, 9]
  float total = prism::sum(a);  // 6
  std::printf("cpu: add [%g, %g, %g], sum %g\n", out[0], out[1], out[2], total);
  if (out != std::vector<float>{5, 7, 9} || total != 6) return 1;

  if (prism::gpu_available()) {
    prism::device_buffer<float> da(a), db(b), dout(3);  // device copies
    cudaStream_t stream;
    prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
    prism::add(prism::par.on(stream), da, db, dout);                         // on your stream
    prism::add(prism::par.on(stream).with(prism::impl::raw), da, db, dout);  // a chosen one
    prism::device_buffer<float> device_total(1);
    prism::sum(prism::par.on(stream), da, device_total);  // into device memory: nothing waits
    std::vector<float> result = dout.to_host();           // to_host synchronizes the device
    float device_sum = device_total.to_host()[0];
    prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
    std::printf("gpu: add [%g, %g, %g], sum %g\n", result[0], result[1], result[2], device_sum);
    if (result != std::vector<float>{5, 7, 9} || device_sum != 6) return 1;
  } else {
    std::printf("gpu: none here, the cpu implementation did it all\n");
  }
  return 0;
}
