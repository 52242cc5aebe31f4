// SPDX-License-Identifier: Apache-2.0
#include <prism/elementwise.hpp>
#include <prism/reduce.hpp>

#include <cstdio>
#include <vector>

int main() {
  std::vector<float> a{1, 2, 3}, b{4, 5, 6}, out(3);
  prism::add(a, b, out);  // host memory: the cpu implementation
  std::printf("add: %g %g %g\n", out[0], out[1], out[2]);
  std::printf("sum: %g\n", prism::sum(a));
  std::printf("the reductions' implementations:");
  for (prism::impl which : prism::reduce_implementations) {
    const auto name = prism::name(which);
    std::printf(" %.*s", static_cast<int>(name.size()), name.data());
  }
  std::printf("\n");
}
