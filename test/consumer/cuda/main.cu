// SPDX-License-Identifier: Apache-2.0
// prism's generic layer from a consumer's CUDA code: a running maximum with the consumer's own
// operator, on the host (the cpu implementation runs anywhere) and on the GPU where there is one.
#include <prism/buffer.hpp>
#include <prism/scan.cuh>

#include <cub/version.cuh>
#include <thrust/version.h>

#include <cstdio>
#include <vector>

static_assert(CUB_VERSION >= 300500, "the consumer compiles against the CCCL prism was built with (3.5 or newer)");

struct larger {
  __host__ __device__ int operator()(int a, int b) const { return a < b ? b : a; }
};

int main() {
  const std::vector<int> x{3, 1, 4, 1, 5, 9, 2, 6};
  const std::vector<int> want{3, 3, 4, 4, 5, 9, 9, 9};
  std::vector<int> out(x.size());
  prism::inclusive_scan(x, out, larger{});
  if (out != want) return 1;
  if (prism::gpu_available()) {
    prism::device_buffer<int> dx(x), dout(x.size());
    prism::inclusive_scan(dx, dout, larger{});
    if (dout.to_host() != want) return 1;
  }
  std::printf("CUB %d, Thrust %d: running maximum [%d ... %d]%s\n", CUB_VERSION, THRUST_VERSION, out.front(),
              out.back(), prism::gpu_available() ? " (cpu and gpu)" : " (cpu; no GPU here)");
  return 0;
}
