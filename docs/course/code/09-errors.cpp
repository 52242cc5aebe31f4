// SPDX-License-Identifier: Apache-2.0
#include <prism/elementwise.hpp>
#include <prism/reduce.hpp>

#include <cstdio>
#include <stdexcept>
#include <vector>

int main() {
  std::vector<float> a(4, 1.0f), b(3, 1.0f), out(4, -1.0f);
  try {
    prism::add(a, b, out);  // sizes differ
  } catch (const std::invalid_argument&) {
    std::printf("mismatched sizes: std::invalid_argument\n");
  }
  try {
    prism::add(prism::par.with(prism::impl::cub), a, a, out);  // host memory for a GPU implementation
  } catch (const std::invalid_argument&) {
    std::printf("host memory for cub: std::invalid_argument\n");
  }
  try {
    (void)prism::mean(std::vector<float>{});  // a mean of nothing
  } catch (const std::invalid_argument&) {
    std::printf("mean of nothing: std::invalid_argument\n");
  }
  std::printf("out unchanged: %g %g %g %g\n", out[0], out[1], out[2], out[3]);
}
