// SPDX-License-Identifier: Apache-2.0
// Lesson 6: one array over several GPUs.
//
// A sharded array splits its elements into one contiguous block per GPU. Work that touches each
// element alone (add, exp, fill) runs on every block at once and needs no communication. A sum
// needs one number from every GPU: each GPU sums its block, then NCCL's all-reduce adds the k
// partial sums and leaves the total on every GPU. A scan needs more: the outputs of GPU r depend on
// every block before it, so each GPU first reduces its block, the k totals are exchanged
// (all-gather), and each GPU scans its block starting from the combination of the totals before
// it. Each GPU moves 3n bytes instead of a single GPU's 2n, and none waits for the host.
//
// The same program runs as one process driving every GPU of the machine:
//   ./06_multi_gpu
// or as one process per GPU, on one machine or several (README: "Several GPUs, several machines"):
//   mpirun -np 2 ./06_multi_gpu
// It checks the sum and the scan of 2^26 + 3 floats (an awkward size, so the blocks differ)
// against what they must be, and says how the array was split.
#include <prism/distributed.hpp>

#if PRISM_WITH_MPI
#include <prism/distributed_mpi.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int run(const prism::communicator& comm, bool speaker) {
  // x[i] = i mod 8 - 3.5 (so the prefix sums stay small and exact to check): -3.5 ... 3.5, repeated.
  const std::uint64_t n = (std::uint64_t{1} << 26) + 3;
  std::vector<float> host(n);
  for (std::uint64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 8) - 3.5f;

  prism::sharded<float> x(comm, n), prefix(comm, n);
  x.copy_from(host);  // each process copies the blocks of its own GPUs
  if (speaker) {
    std::printf("%llu floats over %d GPU(s), %s:", static_cast<unsigned long long>(n), comm.size(),
                comm.single_process_mode() ? "one process drives them all" : "one process per GPU");
    for (int r = 0; r < comm.size(); ++r)
      std::printf(" [%llu, %llu)", static_cast<unsigned long long>(x.layout().start(r)),
                  static_cast<unsigned long long>(x.layout().start(r + 1)));
    std::printf("\n");
  }

  // The sum: every full period of 8 adds to 0; the 3 left over are -3.5 - 2.5 - 1.5.
  const float total = prism::sum(x);
  const bool sum_ok = total == -7.5f;

  // The scan: prefix[i] = the sum of the period so far. Each process checks the elements it holds.
  prism::inclusive_scan(x, prefix);
  std::vector<float> result(n, NAN);
  prefix.copy_to(result);
  bool scan_ok = true;
  for (int g = 0; g < prefix.local_count(); ++g) {
    for (std::uint64_t i = prefix.local_start(g); i < prefix.local_start(g) + prefix.local_size(g); ++i) {
      const double k = static_cast<double>(i % 8);
      const double want = (k + 1) * (k / 2 - 3.5);  // -3.5 + -2.5 + ... up to element i of its period
      if (result[i] != want) {
        std::printf("rank %d: prefix[%llu] = %g, want %g\n", comm.rank(g), static_cast<unsigned long long>(i),
                    result[i], want);
        scan_ok = false;
        break;
      }
    }
  }
  std::printf("rank %d%s: sum %g (%s), scan of its part %s\n", comm.rank(0),
              comm.local_count() > 1 ? " and the others" : "", total, sum_ok ? "right" : "WRONG",
              scan_ok ? "right" : "WRONG");
  return sum_ok && scan_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
#if PRISM_WITH_MPI
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#else
  (void)argc;
  (void)argv;
  const int rank = 0, size = 1;
#endif
  if (!prism::gpu_available()) {
    if (rank == 0) std::printf("no GPU here: a sharded array lives on GPUs, so this lesson needs one (skipped)\n");
  } else {
    try {
#if PRISM_WITH_MPI
      // Under mpirun: one process per GPU. Alone: this process drives every GPU it sees.
      const prism::communicator comm =
          size > 1 ? prism::mpi_communicator(MPI_COMM_WORLD) : prism::communicator::single_process();
#else
      const prism::communicator comm = prism::communicator::single_process();
#endif
      status = run(comm, rank == 0);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
      status = 1;
    }
  }
#if PRISM_WITH_MPI
  MPI_Finalize();
#endif
  (void)size;
  return status;
}
