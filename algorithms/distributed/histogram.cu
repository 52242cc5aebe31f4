// SPDX-License-Identifier: Apache-2.0
// Histograms of sharded arrays: every shard's histogram by the single-GPU prism call (its binning
// rules, checks and implementations), into the counts on its own GPU, then one ncclAllReduce (sum)
// of the counts in place. Counts are integers, so every rank gets the same counts whatever the
// order NCCL adds them in; uint32 counts wrap modulo 2^32 as the single-GPU ones do.
// An empty shard's histogram is all zeros (the single-GPU rule), so it adds nothing.
#include "collectives.hpp"

#include <prism/distributed_select.hpp>

#include <string>
#include <vector>

namespace prism::detail {

template <class T, class C>
void histogram_sharded(const execution_policy& policy, const sharded<T>& samples, histogram_level_t<T> lo,
                       histogram_level_t<T> hi, const replicated<histogram_level_t<T>>* edges, replicated<C>& counts,
                       std::vector<C>* host) {
  const char* algorithm = "histogram";
  const communicator& comm = samples.comm();
  // Checked on every rank alike before anything is written: the outputs' communicator here, the
  // bins and levels by the single-GPU call on the first local GPU (the same arguments on every GPU).
  require_replicated(algorithm, "the counts", comm, counts.comm(), counts.local(0).size());
  if (edges != nullptr) require_replicated(algorithm, "the edges", comm, edges->comm(), edges->local(0).size());
  device_guard guard;
  std::vector<C*> buffers;
  for (int g = 0; g < comm.local_count(); ++g) {
    guard.set(comm.device(g));
    const execution_policy p = shard_policy(algorithm, policy, comm, g);
    if (edges != nullptr) {
      prism::histogram(p, samples.local(g), edges->local(g), counts.local(g));
    } else {
      prism::histogram(p, samples.local(g), counts.local(g), lo, hi);
    }
    buffers.push_back(counts.local(g).data());
  }
  if (comm.size() > 1) all_reduce_in_place(algorithm, policy, comm, buffers.data(), counts.local(0).size(), ncclSum);
  if (host != nullptr) {
    host->resize(counts.local(0).size());
    guard.set(comm.device(0));
    read_back(algorithm, stream_of(algorithm, policy, comm, 0), host->data(), buffers[0], host->size() * sizeof(C));
  }
}

#define PRISM_HISTOGRAM_SHARDED(T, C)                                                                              \
  template void histogram_sharded<T, C>(const execution_policy&, const sharded<T>&, histogram_level_t<T>,         \
                                        histogram_level_t<T>, const replicated<histogram_level_t<T>>*,            \
                                        replicated<C>&, std::vector<C>*);
#define PRISM_HISTOGRAM_SHARDED_COUNTS(T) PRISM_HISTOGRAM_SHARDED(T, std::uint32_t) PRISM_HISTOGRAM_SHARDED(T, std::uint64_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(std::int8_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(std::uint8_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(std::int16_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(std::uint16_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(std::int32_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(std::uint32_t)
PRISM_HISTOGRAM_SHARDED_COUNTS(float)
PRISM_HISTOGRAM_SHARDED_COUNTS(double)
#undef PRISM_HISTOGRAM_SHARDED_COUNTS
#undef PRISM_HISTOGRAM_SHARDED

}  // namespace prism::detail
