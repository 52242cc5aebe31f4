// SPDX-License-Identifier: Apache-2.0
#pragma once
// One process per GPU, started by MPI: the communicator of an MPI communicator's processes.
//
//   MPI_Init(&argc, &argv);
//   {
//     prism::communicator comm = prism::mpi_communicator(MPI_COMM_WORLD);  // rank i -> a GPU of its node
//     prism::sharded<float> x(comm, n);
//     ...
//   }  // prism's objects go before MPI does
//   MPI_Finalize();
//
// Header-only, so that prism itself does not depend on MPI: the program that includes this header
// links MPI (CMake: MPI::MPI_CXX, or MPI::MPI_C). Rank 0 makes NCCL's unique id and broadcasts it;
// each process takes the GPU of its rank on its own node (the node's i-th process GPU i) unless
// told which; more processes on a node than it has GPUs are refused (NCCL puts one rank per GPU). If rank 0 cannot make the id (no GPU, no network), every rank throws.
#include <prism/distributed.hpp>

#include <mpi.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace prism {

inline communicator mpi_communicator(MPI_Comm comm = MPI_COMM_WORLD, int device = -1) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The id, and whether rank 0 could make it, in one broadcast: no rank waits for an id that
  // never comes.
  struct {
    ncclUniqueId id;
    int ok;
    char why[256];
  } shared{};
  if (rank == 0) {
    try {
      shared.id = communicator::unique_id();
      shared.ok = 1;
    } catch (const std::exception& e) {
      std::snprintf(shared.why, sizeof shared.why, "%s", e.what());
    }
  }
  MPI_Bcast(&shared, sizeof shared, MPI_BYTE, 0, comm);
  if (shared.ok == 0)
    throw std::runtime_error(std::string("prism::mpi_communicator: rank 0 could not start NCCL: ") + shared.why);
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess) (void)cudaGetLastError();
  int usable = 1;
  if (device < 0) {
    // The GPU of this process's rank among the processes of its node; NCCL cannot put two ranks
    // on one GPU, so a node with more processes than GPUs is refused.
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int local_rank = 0, local_size = 1;
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    device = local_rank;
    usable = local_size <= visible ? 1 : 0;
  }
  // Every rank must have its GPU before any starts NCCL, which would wait for a rank that throws.
  if (device >= visible) usable = 0;
  int all_usable = 0;
  MPI_Allreduce(&usable, &all_usable, 1, MPI_INT, MPI_MIN, comm);
  if (all_usable == 0)
    throw std::invalid_argument("prism::mpi_communicator: a node has more processes than GPUs, or a rank has no "
                                "CUDA device (this rank: device " + std::to_string(device) + ", " +
                                std::to_string(visible) + " visible); every rank gives up");
  return communicator::one_rank(shared.id, rank, size, device);
}

}  // namespace prism
