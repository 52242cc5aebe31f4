// SPDX-License-Identifier: Apache-2.0
// Compiled by the host C++ compiler alone, at C++23: the public headers and the compiled library
// suffice.
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/reduce.hpp>
#include <prism/version.hpp>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
  std::vector<float> out(3);
  prism::add(a, b, out);  // host memory: the cpu implementation
  if (out != std::vector<float>{5, 7, 9}) return 1;
  const float total = prism::sum(a);
  if (total != 6) return 1;
  if (prism::gpu_available()) {
    prism::device_buffer<float> da(a), db(b), dout(3);
    prism::add(da, db, dout);
    if (dout.to_host() != std::vector<float>{5, 7, 9}) return 1;
  }
  std::printf("consumer of prism %s: [%g, %g, %g], sum %g%s\n", prism::version, out[0], out[1],
              out[2], total, prism::gpu_available() ? " (cpu and gpu)" : " (cpu; no GPU here)");
  return 0;
}
