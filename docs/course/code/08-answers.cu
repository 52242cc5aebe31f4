// SPDX-License-Identifier: Apache-2.0
// Answers: a clamp of your own, and how many elements lie in a range, in one pass each.
#include <prism/reduce.cuh>
#include <prism/transform.cuh>

#include <cstdint>
#include <cstdio>
#include <vector>

struct clamp_to {
  float lo, hi;
  __host__ __device__ float operator()(float v) const { return v < lo ? lo : (v > hi ? hi : v); }
};

struct in_range {
  float lo, hi;
  __host__ __device__ std::int64_t operator()(float v) const { return lo <= v && v < hi ? 1 : 0; }
};

int main() {
  const std::vector<float> x{-3, 0.5f, 2, 7, -1, 4};
  std::vector<float> y(x.size());
  prism::transform(x, y, clamp_to{-1, 3});
  std::printf("clamped:");
  for (float v : y) std::printf(" %g", v);
  const std::int64_t count = prism::transform_reduce(x, std::int64_t{0}, prism::functors::plus<std::int64_t>{},
                                                     in_range{0, 4});
  std::printf("\nin [0, 4): %lld\n", static_cast<long long>(count));
}
