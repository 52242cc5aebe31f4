// SPDX-License-Identifier: Apache-2.0
// Your own operations through the generic layer: a functor, a lambda, a reduction of your own.
#include <prism/reduce.cuh>
#include <prism/transform.cuh>

#include <cstdint>
#include <cstdio>
#include <vector>

// y = a x^2 + b in one pass: one read and one write per element, where square, scale and add
// would take three of each.
struct quadratic {
  float a, b;
  __host__ __device__ float operator()(float x) const { return a * x * x + b; }
};

int main() {
  std::vector<float> x(8), y(8);
  prism::tabulate(x, [] __host__ __device__(std::int64_t i) { return static_cast<float>(i) - 3; });
  prism::transform(x, y, quadratic{2, 1});
  std::printf("x:");
  for (float v : x) std::printf(" %g", v);
  std::printf("\ny = 2x^2 + 1:");
  for (float v : y) std::printf(" %g", v);

  // Two inputs, one output: a fused multiply-add written as a lambda.
  std::vector<float> z(8);
  prism::transform(prism::inputs(x, y), z, [] __host__ __device__(float u, float v) { return u * v + 1; });
  std::printf("\nx * y + 1:");
  for (float v : z) std::printf(" %g", v);

  // A reduction of your own: the sum of squares, f = square, op = plus, identity 0.
  const float squares = prism::transform_reduce(
      x, 0.0f, prism::functors::plus<float>{}, [] __host__ __device__(float v) { return v * v; });
  std::printf("\nsum of x^2: %g\n", squares);
}
