// SPDX-License-Identifier: Apache-2.0
// A merge sort with your own comparator: <prism/sort.cuh>, from CUDA code (nvcc).
#include <prism/sort.cuh>

#include <cstdio>
#include <vector>

struct city {
  int population;  // in thousands
  int id;
};

// Largest first; a __host__ __device__ comparator runs in every implementation, the cpu one too.
struct by_population {
  __host__ __device__ bool operator()(const city& a, const city& b) const { return a.population > b.population; }
};

int main() {
  std::vector<city> cities{{870, 0}, {21540, 1}, {3100, 2}, {21540, 3}, {870, 4}, {12000, 5}};
  prism::sort(cities, by_population{});  // in place; host memory: the cpu implementation
  for (const city& c : cities) std::printf("%d:%d ", c.id, c.population);
  std::printf("\n");  // stable: 1 before 3, 0 before 4
}
