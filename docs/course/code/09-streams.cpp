// SPDX-License-Identifier: Apache-2.0
// needs: gpu
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/error.hpp>
#include <prism/reduce.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <thread>
#include <vector>

int main() {
  const std::size_t n = 1 << 20;
  prism::device_buffer<float> x(std::vector<float>(n, 1.0f)), y(n), total(1);

  // Your stream, nothing waits: add and sum are queued; only to_host waits.
  cudaStream_t stream;
  prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  prism::add(prism::par.on(stream), x, x, y);     // y = 2
  prism::sum(prism::par.on(stream), y, total);    // total = 2n, into device memory
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::printf("on a stream: %.0f\n", total.to_host()[0]);

  // A CUDA graph: capture the two calls once, replay them.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  prism::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  prism::add(prism::par.on(stream), y, x, y);     // y += 1
  prism::sum(prism::par.on(stream), y, total);
  prism::check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  prism::check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int replay = 0; replay < 3; ++replay) prism::check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::printf("after three replays: %.0f\n", total.to_host()[0]);
  prism::check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  prism::check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");

  // Threads, each on its own stream, each with its own data.
  std::vector<float> sums(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&sums, t, n] {
      prism::device_buffer<float> mine(std::vector<float>(n, float(t)));
      sums[t] = prism::sum(prism::par.on(cudaStreamPerThread), mine);  // returned: this call waits
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("eight threads:");
  for (float s : sums) std::printf(" %.0f", s);
  std::printf("\n");
}
