// Compiled by the host C++ compiler alone: the public headers and the compiled library suffice.
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
  std::vector<float> out(3);
  prism::add<float>(a, b, out, nullptr, prism::impl::cpu);
  if (out != std::vector<float>{5, 7, 9}) return 1;
  if (prism::gpu_available()) {
    prism::device_buffer<float> da(a), db(b), dout(3);
    prism::add<float>(da, db, dout);
    if (dout.to_host() != std::vector<float>{5, 7, 9}) return 1;
  }
  std::printf("consumer: [%g, %g, %g]%s\n", out[0], out[1], out[2],
              prism::gpu_available() ? " (cpu and gpu)" : " (cpu; no GPU here)");
  return 0;
}
