// SPDX-License-Identifier: Apache-2.0
// Scans over sharded arrays. Rank r's outputs need the combination of every shard before its own
// (its prefix). The textbook way scans every shard alone, exchanges the shard totals, and adds each
// rank's prefix to its outputs afterwards: 4n bytes moved by every rank but the first (read and
// write to scan, read and write again to add). Here each rank except the last first reduces its
// shard (n bytes read: the total the ranks after it need), the totals are all-gathered (k values),
// and every rank then scans its shard once with its prefix folded into the scan's first element:
// 3n bytes per rank. The prefix is read from device memory by the scan kernel itself (prism's
// single-pass kernel with decoupled look-back, whose tile 0 starts from a program's initial()), so
// nothing waits on the host. On one GPU the reduce and the exchange are skipped: the plain scan.
//
// Integer sums add as unsigned integers of their size (the same bits as a wrapping signed sum);
// the totals come from prism::sum (64-bit for 32-bit integers) and are cut back to the scan's type,
// which keeps exactly the bits a wrapping sum would have.
#include "collectives.hpp"

#include <prism/functors.cuh>
#include <prism/scan.cuh>

#include <string>

namespace prism::detail {
namespace {

// The scan program of <prism/scan.cuh>, whose first element starts from this rank's prefix: the
// totals of ranks 0 .. rank-1 combined, read from the gathered slots when the kernel runs.
template <class S, class Op, class G>
struct prefixed_scan_program : scan_program<S, Op> {
  const G* totals;
  int rank;

  __device__ maybe<S> initial() const {
    if (rank == 0) return {this->init, this->exclusive};
    S prefix = static_cast<S>(totals[0]);
    for (int r = 1; r < rank; ++r) prefix = this->op(prefix, static_cast<S>(totals[r]));
    return {prefix, true};
  }
};

template <class T>
__global__ void write_identity_kernel(T* slot, T identity) {
  *slot = identity;
}

// One scan with operator `op` over storage type S (x and out reinterpreted), totals of type G.
template <class T, class S, class G, class Op, class Total>
void scan_with(const char* algorithm, const execution_policy& policy, bool exclusive, const sharded<T>& x,
               sharded<T>& out, Op op, S identity, Total local_total) {
  const communicator& comm = x.comm();
  const int k = comm.size(), local = comm.local_count();
  device_guard guard;
  if (k > 1) {
    // Each rank's total, except the last rank's, which no one needs (its slot is sent as it is).
    for (int g = 0; g < local; ++g) {
      if (comm.rank(g) == k - 1) continue;
      guard.set(comm.device(g));
      local_total(shard_policy(algorithm, policy, comm, g), x.local(g), reinterpret_cast<G*>(own_slot(comm, g)));
    }
    all_gather_slots(algorithm, policy, comm, sizeof(G));
  }
  using Program = prefixed_scan_program<S, Op, G>;
  constexpr int V = Program::vector;
  for (int g = 0; g < local; ++g) {
    const std::size_t n = x.local_size(g);
    if (n == 0) continue;
    guard.set(comm.device(g));
    const execution_policy p = shard_policy(algorithm, policy, comm, g);
    const S* in = reinterpret_cast<const S*>(x.local(g).data());
    S* o = reinterpret_cast<S*>(out.local(g).data());
    const G* totals = reinterpret_cast<const G*>(gathered_slots(comm, g));
    const int rank = k > 1 ? comm.rank(g) : 0;
    translate_errors(algorithm, [&] {
      run_single_pass<Program>(algorithm, p, n, [&](void*) {
        return Program{{in, o, n, op, exclusive, identity, vector_aligned<V>(in), vector_aligned<V>(o)}, totals, rank};
      });
    });
  }
}

}  // namespace

template <scan_element T>
void scan_sharded(const execution_policy& policy, scan_kind kind, scan_op op, const sharded<T>& x, sharded<T>& out) {
  const char* algorithm = kind == scan_kind::inclusive ? "inclusive_scan" : "exclusive_scan";
  require_aligned(algorithm, {&out.layout(), &x.layout()});
  const impl which = policy.implementation();
  if (which != impl::automatic && which != impl::raw)
    throw std::invalid_argument(std::string("prism::") + algorithm + ": a sharded scan runs prism's single-pass kernel "
                                "(impl::raw or automatic), not " + std::string(name(which)));
  const bool exclusive = kind == scan_kind::exclusive;
  if (op == scan_op::sum) {
    using S = sum_storage<T>;
    using G = sum_type<T>;
    scan_with<T, S, G>(algorithm, policy, exclusive, x, out, functors::plus<S>{}, S(0),
                       [](const execution_policy& p, span<const T> shard, G* slot) { prism::sum(p, shard, span<G>(slot, 1)); });
  } else {
    const functors::extremum<T> extremum{op == scan_op::max};
    scan_with<T, T, T>(algorithm, policy, exclusive, x, out, extremum, extremum.identity(),
                       [&](const execution_policy& p, span<const T> shard, T* slot) {
                         if (shard.empty()) {
                           launch(algorithm, "write_identity_kernel", write_identity_kernel<T>, 1, 1, p.stream(), slot,
                                  extremum.identity());
                         } else if (op == scan_op::max) {
                           prism::max(p, shard, span<T>(slot, 1));
                         } else {
                           prism::min(p, shard, span<T>(slot, 1));
                         }
                       });
  }
}

template void scan_sharded<float>(const execution_policy&, scan_kind, scan_op, const sharded<float>&, sharded<float>&);
template void scan_sharded<double>(const execution_policy&, scan_kind, scan_op, const sharded<double>&, sharded<double>&);
template void scan_sharded<std::int32_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::int32_t>&,
                                         sharded<std::int32_t>&);
template void scan_sharded<std::int64_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::int64_t>&,
                                         sharded<std::int64_t>&);
template void scan_sharded<std::uint32_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::uint32_t>&,
                                          sharded<std::uint32_t>&);
template void scan_sharded<std::uint64_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::uint64_t>&,
                                          sharded<std::uint64_t>&);

}  // namespace prism::detail
