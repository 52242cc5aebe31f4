// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism's scans and the selections built on them, for any operator, predicate and equality, in
// every implementation:
//
//   prism::inclusive_scan(policy, x, out, op)                    out[i] = x[0] op ... op x[i]
//   prism::exclusive_scan(policy, x, out, init, op)              out[i] = init op x[0] op ... op x[i-1]
//   prism::inclusive_scan_by_key(policy, keys, x, out, op, eq)   the same, restarting where !eq(key[i-1], key[i])
//   prism::exclusive_scan_by_key(policy, keys, x, out, init, op, eq)
//   prism::compact_if(policy, x, stencil, out, pred)             x[i] where pred(stencil[i]), in order
//   prism::partition_if(policy, x, stencil, out, pred)           those first, then the others, both in order
//   prism::unique(policy, x, out, eq)                            each x[i] with !eq(x[i-1], x[i])
//   prism::unique_by_key(policy, keys, x, keys_out, out, eq)
//   prism::run_length_encode(policy, x, unique_out, counts_out, eq)
//   prism::reduce_by_key(policy, keys, x, keys_out, sums_out, op, eq)
//
// Thrust's shorter forms add: exclusive_scan(x, out, init), inclusive_scan_by_key(keys, x, out, eq),
// exclusive_scan_by_key(keys, x, out, init[, eq]), reduce_by_key(keys, x, keys_out, sums_out, eq),
// == where eq is not given (one functor after the arrays is the equality). The policy is optional.
//
// The selections return how many elements they wrote (the call waits), or write it into a
// one-element `count` array before the functors (nothing waits; impl::thrust excepted). The generic
// layer under <prism/scan.hpp>, for CUDA translation units' own types and functors.
//
// Contract. op must be associative (it need not commute, and needs no identity: every
// implementation keeps the order of the elements); eq must be an equivalence; both, and pred, must
// be __host__ __device__ for impl::cpu (a __device__-only lambda is refused there).
//
// The implementations (figures: docs/benchmarks/scan.md):
//   cpu     Thrust's algorithms through its OpenMP system, on host memory.
//   thrust  the same Thrust algorithms on the GPU, on the caller's stream (par_nosync), temporary
//           storage from prism's scratch. Thrust's scans are CUB's DeviceScan underneath and do not
//           synchronize; its selections (copy_if, stable_partition_copy, unique_copy,
//           unique_by_key_copy, reduce_by_key) return an iterator, so they copy the count to the
//           host and wait, even with par_nosync: those cannot be captured into a graph. Thrust's
//           unique counts in int: refused past 2^31 - 1 elements.
//   cub     cub::DeviceScan, DeviceSelect (Flagged, FlaggedIf, Unique, UniqueByKey),
//           DevicePartition::Flagged (which writes the rejected elements in reverse: a second
//           kernel turns them around), DeviceRunLengthEncode::Encode for integer values (counts
//           in int: refused past 2^31 - 1 elements) and DeviceReduce::ReduceByKey for integer keys;
//           floating-point keys (whose == joins -0.0 and +0.0) go through ReduceByKey's dispatch
//           with each run's first key carried along, as both write the run's last key; temporary
//           storage from prism's scratch.
//   raw     one pass with decoupled look-back (<prism/primitives/single_pass.cuh>): each block takes
//           a tile of 128 threads x 12 vectors of 16 bytes (6144 floats; 384 or 256 threads x 4
//           vectors for the selections, 256 x 4 for the by-key programs), asks L2 for it early
//           (below), reduces it, publishes its aggregate, learns the combination of everything
//           before it from its predecessors' states, publishes its inclusive prefix and writes its
//           outputs. Every operation is one `program` for the same kernel: the scan's value is the
//           element (scan), a (value, run started) pair (scan by key), a count of kept elements
//           (the selections, whose kept elements are gathered in shared memory and written out in
//           order with coalesced stores), or a (runs started, sum) pair (run-length encoding,
//           reduce by key). 2n bytes for a scan, like CUB's: one kernel, after a cudaMemsetAsync
//           that zeroes the tile states (prism's scratch is shared by every call on the stream, so
//           it holds anything when a call begins; skipped for a single tile, n <= 6144 floats).
//           The partition counts its flags first (n bytes more read), so that the rejected
//           elements know where they start.
//           Tiles take their index from the scratch's zeroed counter (a ticket, in the order blocks
//           start: what makes the look-back deadlock-free), which the last tile sets back to zero;
//           while the ticket's atomic is in flight, a bulk prefetch asks L2 for the tile of the
//           block's own index, the one it most likely gets.
// Determinism. The order of the elements is always kept, but the grouping is not fixed on the GPU:
// in a decoupled look-back (raw, and CUB's scans under cub and thrust) a tile combines whichever
// predecessors' states it finds published, so a floating-point sum (a scan's, reduce_by_key's) may
// differ in its last bits from run to run. Integer results, min, max and the selections' choices
// of elements are exact.
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/single_pass.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/scan.hpp>
#include <prism/scan_counted.cuh>
#include <prism/scan_programs.cuh>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/iterator>
#include <cuda/std/functional>
#include <thrust/count.h>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {

namespace detail {

// The widest of a call's element types, in bytes: what its `automatic` table is chosen by.
template <class... T>
constexpr std::size_t widest = std::max({sizeof(T)...});

[[noreturn]] inline void refuse_int_count(const char* algorithm, const char* implementation, std::size_t n) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                              " elements are more than the " + implementation +
                              " implementation's limit of 2^31 - 1 elements (it counts them in int); "
                              "impl::raw has no such limit");
}

// ---- scans ----------------------------------------------------------------------------------------

// CUB tunes its scans for each architecture only for the operators it recognizes (cuda::std::plus,
// cuda::minimum, cuda::maximum; any other falls back to a generic policy, slower on float sums than
// the tuned one that docs/benchmarks/scan.md's row inclusive_scan/float/cub runs). prism's plus on
// a built-in arithmetic type is the same sum on the GPU (integers wrap in both), so CUB, and
// Thrust's scans on CUB, get it as cuda::std::plus; the cpu keeps prism's (a signed overflow is
// undefined in host code).
template <class Op>
Op cub_operator(Op op) {
  return op;
}
template <class T>
  requires std::is_arithmetic_v<T>
cuda::std::plus<T> cub_operator(functors::plus<T>) {
  return {};
}
template <class Policy, class Op>
auto thrust_operator(const Policy&, Op op) {
  if constexpr (std::is_same_v<Policy, std::decay_t<decltype(thrust::omp::par)>>) {
    return op;
  } else {
    return cub_operator(op);
  }
}

// init present: exclusive; absent: inclusive.
template <bool Exclusive, class T, class Op>
void scan_spans(const char* algorithm, const execution_policy& policy, span<const T> x, span<T> out, Op op,
                T init) {
  const std::size_t n = x.size();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    if constexpr (Exclusive) {
      thrust::exclusive_scan(p, in, in + n, o, init, thrust_operator(p, op));
    } else {
      thrust::inclusive_scan(p, in, in + n, o, thrust_operator(p, op));
    }
  };
  dispatch<Op>({algorithm, scan_family_of<scan_operation::scan, sizeof(T)>, policy,
                {array_ref::input(x, "the input"), array_ref::output_of(out, "the output").sized(n)}, n},
               implementations{
                   .cpu = on_thrust,
                   .thrust = on_thrust,
                   // One kernel for both kinds: whether it is exclusive is an argument.
                   .raw =
                       [&] {
                         using Program = scan_program<T, Op>;
                         constexpr int V = Program::vector;
                         run_single_pass<Program>(algorithm, policy, n, [&](void*) {
                           return Program{in, o, n, op, Exclusive, init, vector_aligned<V>(in), vector_aligned<V>(o)};
                         });
                       },
                   .cub =
                       [&] {
                         const auto count = static_cast<std::int64_t>(n);
                         cub_call(algorithm, "cub::DeviceScan", policy, {n}, [&](void* temp, std::size_t& bytes, void*) {
                           if constexpr (Exclusive) {
                             return cub::DeviceScan::ExclusiveScan(temp, bytes, in, o, cub_operator(op), init, count,
                                                                   stream);
                           } else {
                             return cub::DeviceScan::InclusiveScan(temp, bytes, in, o, cub_operator(op), count, stream);
                           }
                         });
                       },
               });
}

template <bool Exclusive, class K, class T, class Op, class Eq>
void scan_by_key_spans(const char* algorithm, const execution_policy& policy, span<const K> keys, span<const T> x,
                       span<T> out, Op op, Eq eq, T init) {
  const std::size_t n = keys.size();
  const K* k = keys.data();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    if constexpr (Exclusive) {
      thrust::exclusive_scan_by_key(p, k, k + n, in, o, init, eq, thrust_operator(p, op));
    } else {
      thrust::inclusive_scan_by_key(p, k, k + n, in, o, eq, thrust_operator(p, op));
    }
  };
  dispatch<Op, Eq>(
      {algorithm, scan_family_of<scan_operation::scan_by_key, widest<K, T>>, policy,
       {array_ref::input(keys, "the keys"), array_ref::input(x, "the values").sized(n),
        // In place over the values only: a tile reads the key before its first element.
        array_ref::output_of(out, "the output", 1).sized(n)},
       n},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw =
              [&] {
                using Program = scan_by_key_program<K, T, Op, Eq>;
                constexpr int V = Program::vector;
                run_single_pass<Program>(algorithm, policy, n, [&](void*) {
                  return Program{k,  in, o, n, op, eq, Exclusive, init, vector_aligned<V>(k), vector_aligned<V>(in),
                                 vector_aligned<V>(o)};
                });
              },
          .cub =
              [&] {
                const auto count = static_cast<std::int64_t>(n);
                cub_call(algorithm, "cub::DeviceScan", policy, {n}, [&](void* temp, std::size_t& bytes, void*) {
                  if constexpr (Exclusive) {
                    return cub::DeviceScan::ExclusiveScanByKey(temp, bytes, k, in, o, cub_operator(op), init, count, eq,
                                                               stream);
                  } else {
                    return cub::DeviceScan::InclusiveScanByKey(temp, bytes, k, in, o, cub_operator(op), count, eq,
                                                               stream);
                  }
                });
              },
      });
}

// ---- selections -----------------------------------------------------------------------------------

// A selection's count is its result: returned (a pinned host slot the call waits for) or into the
// caller's one-element array (raw and cub write it on the stream). An output has n elements, more
// (the first n are the call's) or fewer that hold what is written (counted first); it may be its
// own input exactly (compact, compact_if, partition, unique, unique_by_key), never partly.
inline result_to<std::size_t> count_to(span<std::size_t>* into) {
  return {into, 0, "the count", true};
}
using counted = std::optional<std::size_t>;

// The rejected by pred: what Thrust's in-place remove_if removes.
template <class Pred>
struct rejects {
  Pred pred;
  template <class S>
  __host__ __device__ bool operator()(const S& s) const {
    return !pred(s);
  }
};

// Where an in-place call keeps a copy of its input in scratch, after `head` bytes of the
// implementation's own: the implementations whose algorithm would overwrite elements it has not
// read yet (a partition's rejected elements land past the kept ones; CUB's selections other than
// Flagged and Unique take no aliasing).
inline constexpr std::size_t copy_offset(std::size_t head) { return (head + 255) / 256 * 256; }
template <class T>
const T* copy_into(void* extra, std::size_t head, const T* from, std::size_t n, cudaStream_t stream,
                   const char* algorithm) {
  T* to = reinterpret_cast<T*>(static_cast<unsigned char*>(extra) + copy_offset(head));
  check(cudaMemcpyAsync(to, from, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync", algorithm);
  return to;
}

// In place (out is the values exactly): cpu and thrust run Thrust's in-place algorithms (remove_if,
// stable_partition); raw's compaction runs as it is (a tile reads its elements before it publishes
// anything, a tile writes only after every tile before it has published, and its writes land at or
// before the elements it read); raw's partition and cub copy the values into scratch first (n
// elements more read and written).
template <class P, class S, class Pred>
std::size_t select_spans(const char* algorithm, const execution_policy& policy, bool partition, span<const P> x,
                         span<const S> stencil, span<P> whole_out, Pred pred, span<std::size_t>* into) {
  const std::size_t n = x.size();
  // A partition writes every element: its output holds n, or nothing is counted that could help.
  const std::size_t capacity = whole_out.size();
  if (partition && capacity < n) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": the output has " + std::to_string(capacity) +
                                " elements, and a partition writes all " + std::to_string(n) +
                                " of its input (the kept ones first, then the others)");
  }
  const bool counted_first = capacity < n;
  const span<P> out = first_n(whole_out, n);
  const P* in = x.data();
  const S* st = stencil.data();
  P* o = out.data();
  const bool in_place = n > 0 && static_cast<const void*>(in) == static_cast<const void*>(o) && out.size() == n;
  const family& offered = partition  ? scan_family_of<scan_operation::partition, widest<P, S>>
                          : in_place ? scan_in_place_family
                                     : scan_family_of<scan_operation::compact, widest<P, S>>;
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p, std::size_t*) -> counted {
    if (counted_first) require_fits(algorithm, count_on_thrust(p, kept_at<S, Pred>{st, pred}, n), capacity);
    if (in_place) {
      if (!partition) return thrust::remove_if(p, o, o + n, st, rejects<Pred>{pred}) - o;
      return thrust::stable_partition(p, o, o + n, st, pred) - o;
    }
    if (!partition) return thrust::copy_if(p, in, in + n, st, o, pred) - o;
    // The others start after the kept ones: counted first (Thrust waits for the count).
    const std::size_t kept = thrust::count_if(p, st, st + n, pred);
    thrust::stable_partition_copy(p, in, in + n, st, o, o + kept, pred);
    return kept;
  };
  const std::size_t copy_bytes = in_place ? n * sizeof(P) : 0;
  return dispatch<Pred>(
      {algorithm, offered, policy,
       {array_ref::input(x, "the values"), array_ref::input(stencil, "the flags").sized(n),
        array_ref::output_of(out, "the output", 0)},
       n},
      count_to(into),
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw = [&](std::size_t* destination) -> counted {
            if (counted_first) require_fits(algorithm, count_kept_raw(algorithm, policy, st, pred, n), capacity);
            using Flags = stencil_flags<S, Pred>;
            using Program = select_program<P, nothing, Flags, compact_rounds_of<P>>;
            constexpr int V = Program::vector;
            constexpr std::size_t total_bytes = sizeof(unsigned long long);
            const auto make = [&](void* extra) {
              const P* source = in_place && partition
                                    ? reinterpret_cast<const P*>(static_cast<unsigned char*>(extra) +
                                                                 copy_offset(total_bytes))
                                    : in;
              return Program{source, nullptr, o, nullptr, Flags{st, pred, vector_aligned<V>(st)}, n,
                             vector_aligned<V>(source), false, partition,
                             static_cast<const unsigned long long*>(extra), destination};
            };
            if (!partition) {
              run_single_pass<Program>(algorithm, policy, n, make);
              return std::nullopt;
            }
            // The rejected elements start after every kept one: the flags are counted first (n
            // bytes more read), into the zeroed extra word the kernel then reads.
            constexpr int W = scan_vector<S>;
            run_single_pass<Program>(algorithm, policy, n, make,
                                     in_place ? copy_offset(total_bytes) + copy_bytes : total_bytes,
                                     [&](void* extra, cudaStream_t s) {
                                       launch(algorithm, "count_kept_kernel", count_kept_kernel<W, S, Pred>, count_blocks(n, W),
                                              block_size, s, st, pred, n, vector_aligned<W>(st),
                                              static_cast<unsigned long long*>(extra));
                                       if (in_place) copy_into(extra, total_bytes, in, n, s, algorithm);
                                     });
            return std::nullopt;
          },
          .cub = [&](std::size_t* destination) -> counted {
            if (counted_first) require_fits(algorithm, count_on_cub(algorithm, policy, kept_at<S, Pred>{st, pred}, n), capacity);
            const auto items = static_cast<std::int64_t>(n);
            if (!partition) {
              // Flags as CUB reads them (nonzero is true) take its tuned kernel, Flagged, faster than
              // FlaggedIf with the same predicate (docs/benchmarks/scan.md, compact rows).
              constexpr bool plain_flags = std::is_same_v<Pred, functors::nonzero<S>>;
              cub_call(
                  algorithm, plain_flags ? "cub::DeviceSelect::Flagged" : "cub::DeviceSelect::FlaggedIf", policy, {n},
                  [&](void* temp, std::size_t& bytes, void* extra) {
                    const P* source = in_place && extra != nullptr ? copy_into(extra, 0, in, n, stream, algorithm) : in;
                    if constexpr (plain_flags) {
                      return cub::DeviceSelect::Flagged(temp, bytes, source, st, o, destination, items, stream);
                    } else {
                      return cub::DeviceSelect::FlaggedIf(temp, bytes, source, st, o, destination, items, pred,
                                                          stream);
                    }
                  },
                  copy_bytes);
              return std::nullopt;
            }
            // CUB's count into scratch, where the turning kernel reads it.
            const thrust::transform_iterator<Pred, const S*, bool, bool> flags(st, pred);
            cub_call(
                algorithm, "cub::DevicePartition::Flagged", policy, {n},
                [&](void* temp, std::size_t& bytes, void* extra) {
                  const P* source =
                      in_place && extra != nullptr ? copy_into(extra, sizeof(std::size_t), in, n, stream, algorithm) : in;
                  return cub::DevicePartition::Flagged(temp, bytes, source, flags, o, static_cast<std::size_t*>(extra),
                                                       items, stream);
                },
                in_place ? copy_offset(sizeof(std::size_t)) + copy_bytes : sizeof(std::size_t),
                [&](void* extra) {
                  launch(algorithm, "reverse_tail_kernel", reverse_tail_kernel<P>, blocks_for((n + 1) / 2), block_size,
                         stream, o, n, static_cast<const std::size_t*>(extra), destination);
                });
            return std::nullopt;
          },
      });
}

// unique (ByKey false: the keys are the values, `values` empty) and unique_by_key. In place (the
// outputs are the inputs exactly; by key, both): cpu and thrust run Thrust's unique and
// unique_by_key; raw runs as it is (a tile reads the key before its first one, which is either
// untouched or rewritten with its own value); cub copies the inputs into scratch first.
template <bool ByKey, class K, class P, class Eq>
std::size_t unique_spans(const char* algorithm, const execution_policy& policy, span<const K> keys,
                         span<const P> values, span<K> whole_keys_out, span<P> whole_values_out, Eq eq,
                         span<std::size_t>* into) {
  const std::size_t n = keys.size();
  const std::size_t capacity = ByKey ? std::min(whole_keys_out.size(), whole_values_out.size()) : whole_keys_out.size();
  const bool counted_first = capacity < n;
  const span<K> keys_out = first_n(whole_keys_out, n);
  const span<P> values_out = first_n(whole_values_out, n);
  const K* k = keys.data();
  const P* v = values.data();
  K* ko = keys_out.data();
  P* vo = values_out.data();
  const bool keys_in_place = n > 0 && static_cast<const void*>(k) == static_cast<const void*>(ko) && keys_out.size() == n;
  const bool values_in_place =
      n > 0 && static_cast<const void*>(v) == static_cast<const void*>(vo) && values_out.size() == n;
  const bool in_place = keys_in_place && (!ByKey || values_in_place);
  if (ByKey && keys_in_place != values_in_place) {
    throw std::invalid_argument(std::string("prism::") + algorithm +
                                ": in place, both outputs are their inputs (the keys' output the keys, the values' "
                                "output the values), or neither");
  }
  const cudaStream_t stream = policy.stream();
  const auto on_cpu = [&](const auto& p, std::size_t*) -> counted {
    if (counted_first) require_fits(algorithm, count_on_thrust(p, run_start_at<K, Eq>{k, eq}, n), capacity);
    if constexpr (ByKey) {
      if (in_place) return thrust::unique_by_key(p, ko, ko + n, vo, eq).first - ko;
      return thrust::unique_by_key_copy(p, k, k + n, v, ko, vo, eq).first - ko;
    } else {
      if (in_place) return thrust::unique(p, ko, ko + n, eq) - ko;
      return thrust::unique_copy(p, k, k + n, ko, eq) - ko;
    }
  };
  const implementations unique{
      .cpu = on_cpu,
      .thrust = [&](const auto& p, std::size_t* at) -> counted {
        if (!ByKey && n > std::size_t(INT_MAX)) refuse_int_count(algorithm, "thrust", n);
        return on_cpu(p, at);
      },
      .raw = [&](std::size_t* destination) -> counted {
        if (counted_first) require_fits(algorithm, count_runs_raw(algorithm, policy, k, eq, n), capacity);
        using Q = std::conditional_t<ByKey, P, nothing>;
        const Q* q = nullptr;
        Q* qo = nullptr;
        if constexpr (ByKey) {
          q = v;
          qo = vo;
        }
        const auto run = [&]<bool Reread>(std::bool_constant<Reread>) {
          using Flags = head_flags<K, Eq, unique_key_before<K, Reread>>;
          using Program =
              select_program<K, Q, Flags, unique_rounds_of<K, Q>, 0, Reread ? unique_reread_min_blocks : 0, Reread>;
          constexpr int V = Program::vector;
          run_single_pass<Program>(algorithm, policy, n, [&](void*) {
            return Program{k, q, ko, qo, Flags{k, eq}, n, vector_aligned<V>(k), vector_aligned<V>(q), false, nullptr,
                           destination};
          });
        };
        if constexpr (unique_rereads<K, Q>) {
          if (!in_place) {
            run(std::true_type{});
            return std::nullopt;
          }
        }
        run(std::false_type{});
        return std::nullopt;
      },
      .cub = [&](std::size_t* destination) -> counted {
        if (counted_first) require_fits(algorithm, count_on_cub(algorithm, policy, run_start_at<K, Eq>{k, eq}, n), capacity);
        const auto items = static_cast<std::int64_t>(n);
        const std::size_t key_bytes = n * sizeof(K);
        cub_call(
            algorithm, "cub::DeviceSelect", policy, {n},
            [&](void* temp, std::size_t& bytes, void* extra) {
              const bool copied = in_place && extra != nullptr;
              const K* from_k = copied ? copy_into(extra, 0, k, n, stream, algorithm) : k;
              if constexpr (ByKey) {
                const P* from_v = copied ? copy_into(extra, key_bytes, v, n, stream, algorithm) : v;
                return cub::DeviceSelect::UniqueByKey(temp, bytes, from_k, from_v, ko, vo, destination, items, eq,
                                                      stream);
              } else if constexpr (std::is_same_v<Eq, functors::equal_to<K>>) {
                return cub::DeviceSelect::Unique(temp, bytes, from_k, ko, destination, items, stream);
              } else {
                // Unique compares with == only: by key, carrying nothing.
                return cub::DeviceSelect::UniqueByKey(temp, bytes, from_k, cuda::constant_iterator<char>(0), ko,
                                                      thrust::discard_iterator<>(), destination, items, eq, stream);
              }
            },
            in_place ? (ByKey ? copy_offset(key_bytes) + n * sizeof(P) : key_bytes) : 0);
        return std::nullopt;
      },
  };
  if constexpr (ByKey) {
    const family& offered =
        in_place ? scan_in_place_family : scan_family_of<scan_operation::unique_by_key, widest<K, P>>;
    return dispatch<Eq>({algorithm, offered, policy,
                         {array_ref::input(keys, "the keys"), array_ref::input(values, "the values").sized(n),
                          array_ref::output_of(keys_out, "the keys' output", 0),
                          array_ref::output_of(values_out, "the values' output", 1)},
                         n},
                        count_to(into), unique);
  } else {
    const family& offered = in_place ? scan_in_place_family : scan_family_of<scan_operation::unique, sizeof(K)>;
    return dispatch<Eq>({algorithm, offered, policy,
                         {array_ref::input(keys, "the input"), array_ref::output_of(keys_out, "the output", 0)},
                         n},
                        count_to(into), unique);
  }
}

// reduce_by_key, and (Encode) run_length_encode: the sum of ones per run, in counts_out's type C.
template <bool Encode, class K, class T, class Op, class Eq>
std::size_t reduce_by_key_spans(const char* algorithm, const execution_policy& policy, span<const K> keys,
                                span<const T> values, span<K> whole_keys_out, span<T> whole_sums_out, Op op, Eq eq,
                                span<std::size_t>* into) {
  const std::size_t n = keys.size();
  const std::size_t capacity = std::min(whole_keys_out.size(), whole_sums_out.size());
  const bool counted_first = capacity < n;
  const span<K> keys_out = first_n(whole_keys_out, n);
  const span<T> sums_out = first_n(whole_sums_out, n);
  // Equal integer keys have the same bits, so any key of a run is its first: only then may Thrust
  // and CUB write the keys themselves.
  constexpr bool keys_by_bits = std::is_same_v<Eq, functors::equal_to<K>> && std::is_integral_v<K>;
  const K* k = keys.data();
  K* ko = keys_out.data();
  T* so = sums_out.data();
  const cudaStream_t stream = policy.stream();
  // The values: the array, or a one for every element.
  const auto source = [&] {
    if constexpr (Encode) {
      return cuda::constant_iterator<T>(1);
    } else {
      return values.data();
    }
  }();
  const auto on_thrust = [&](const auto& p, std::size_t*) -> counted {
    if (counted_first) require_fits(algorithm, count_on_thrust(p, run_start_at<K, Eq>{k, eq}, n), capacity);
    if constexpr (keys_by_bits) {
      return thrust::reduce_by_key(p, k, k + n, source, ko, so, eq, op).first - ko;
    } else {
      const auto pairs_out = thrust::make_zip_iterator(ko, so);
      const auto positioned = thrust::make_zip_iterator(k, thrust::counting_iterator<std::size_t>(0));
      return thrust::reduce_by_key(p, positioned, positioned + n, thrust::make_zip_iterator(k, source),
                                   thrust::make_discard_iterator(), pairs_out, equal_or_same_position<Eq>{eq},
                                   first_key_and<K, T, Op>{op})
                 .second -
             pairs_out;
    }
  };
  const implementations reduce_by_key{
      .cpu = on_thrust,
      .thrust = on_thrust,
      .raw = [&](std::size_t* destination) -> counted {
        if (counted_first) require_fits(algorithm, count_runs_raw(algorithm, policy, k, eq, n), capacity);
        using Values = std::conditional_t<Encode, ones<T>, const T*>;
        using Program = reduce_by_key_program<K, T, Values, Op, Eq>;
        constexpr int V = Program::vector;
        run_single_pass<Program>(algorithm, policy, n, [&](void*) {
          if constexpr (Encode) {
            return Program{k, Values{}, ko, so, n, op, eq, vector_aligned<V>(k), false, destination};
          } else {
            return Program{k, source, ko, so, n, op, eq, vector_aligned<V>(k), vector_aligned<V>(source), destination};
          }
        });
        return std::nullopt;
      },
      .cub = [&](std::size_t* destination) -> counted {
        if (Encode && keys_by_bits && n > std::size_t(INT_MAX)) refuse_int_count(algorithm, "cub", n);
        if (counted_first) require_fits(algorithm, count_on_cub(algorithm, policy, run_start_at<K, Eq>{k, eq}, n), capacity);
        const auto items = static_cast<std::int64_t>(n);
        cub_call(algorithm, Encode ? "cub::DeviceRunLengthEncode::Encode" : "cub::DeviceReduce::ReduceByKey", policy,
                 {n}, [&](void* temp, std::size_t& bytes, void*) {
                   if constexpr (Encode && keys_by_bits) {
                     return cub::DeviceRunLengthEncode::Encode(temp, bytes, k, ko, so, destination, static_cast<int>(n),
                                                               stream);
                   } else if constexpr (keys_by_bits) {
                     return cub::DeviceReduce::ReduceByKey(temp, bytes, k, ko, source, so, destination, op, items,
                                                           stream);
                   } else {
                     // ReduceByKey compares with == only; the dispatch it calls takes an equality
                     // (CUB's detail layer, stable within the pinned CCCL). Each run's first key
                     // rides with the values (it would write the last one's bits).
                     const auto pairs_in = thrust::make_zip_iterator(k, source);
                     const auto pairs_out = thrust::make_zip_iterator(ko, so);
                     return cub::detail::reduce_by_key::dispatch(temp, bytes, k, thrust::discard_iterator<>(), pairs_in,
                                                                 pairs_out, destination, eq,
                                                                 first_key_and<K, T, Op>{op},
                                                                 static_cast<unsigned long long>(n), stream);
                   }
                 });
        return std::nullopt;
      },
  };
  if constexpr (Encode) {
    // Past 2^31 - 1 elements (this many bytes: keys, values' output, counts) automatic runs raw.
    constexpr std::size_t raw_from = (std::size_t{1} << 31) * (2 * sizeof(K) + sizeof(T));
    const family& offered =
        keys_by_bits ? scan_family_of<scan_operation::run_length_encode, widest<K, T>, raw_from> : scan_floating_runs_family;
    return dispatch<Op, Eq>(
        {algorithm, offered, policy,
         {array_ref::input(keys, "the input"), array_ref::output_apart(keys_out, "the values' output"),
          array_ref::output_apart(sums_out, "the counts")},
         n},
        count_to(into), reduce_by_key);
  } else {
    return dispatch<Op, Eq>({algorithm, scan_family_of<scan_operation::reduce_by_key, widest<K, T>>, policy,
                             {array_ref::input(keys, "the keys"), array_ref::input(values, "the values").sized(n),
                              array_ref::output_apart(keys_out, "the keys' output"),
                              array_ref::output_apart(sums_out, "the sums")},
                             n},
                            count_to(into), reduce_by_key);
  }
}

// ---- the generic API's helpers ------------------------------------------------------------------

template <class F>
concept generic_functor = !array_like<std::remove_reference_t<F>> && !std::is_same_v<std::remove_cvref_t<F>, scan_op>;

inline span<std::size_t>* const returned_count = nullptr;

}  // namespace detail

namespace ops {
struct compact_if { static constexpr const char* name = "compact_if"; };
struct partition_if { static constexpr const char* name = "partition_if"; };

// ---- scans ------------------------------------------------------------------------------------------

// out[i] = x[0] op x[1] op ... op x[i]. out may be x exactly (in place).
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Op>
void run(inclusive_scan, const execution_policy& policy, X&& x, O&& out, Op op) {
  using T = value_t<O>;
  detail::scan_spans<false, T>("inclusive_scan", policy, input_span(x), output_span(out), op, T{});
}

// out[i] = init op x[0] op ... op x[i-1]; out[0] = init. out may be x exactly.
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::generic_functor<Op>
void run(exclusive_scan, const execution_policy& policy, X&& x, O&& out, const value_t<O>& init, Op op) {
  detail::scan_spans<true, value_t<O>>("exclusive_scan", policy, input_span(x), output_span(out), op, init);
}

// The scans restarting at every i with !eq(keys[i - 1], keys[i]); the exclusive one gives init at
// the start of every run. out may be x exactly.
template <class K, class X, class O, class Op, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Op> && detail::generic_functor<Eq>
void run(inclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, Op op, Eq eq) {
  using T = value_t<O>;
  detail::scan_by_key_spans<false>("inclusive_scan_by_key", policy, input_span(keys), input_span(x), output_span(out),
                                   op, eq, T{});
}
template <class K, class X, class O, class Op, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Op> && detail::generic_functor<Eq>
void run(exclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, const value_t<O>& init, Op op,
                           Eq eq) {
  detail::scan_by_key_spans<true>("exclusive_scan_by_key", policy, input_span(keys), input_span(x), output_span(out),
                                  op, eq, init);
}

// Thrust's shorter forms: op defaults to plus (functors::plus: integers wrap), eq to ==. A single
// functor after the by-key arrays is the equality, as in Thrust. exclusive_scan(x, out, init) of
// the standard types is <prism/scan.hpp>'s, compiled into the library.
template <class X, class O>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && (!scan_arrays<X, O>)
void run(exclusive_scan, const execution_policy& policy, X&& x, O&& out, const value_t<O>& init) {
  run(exclusive_scan{}, policy, x, out, init, functors::plus<value_t<O>>{});
}
template <class K, class X, class O, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Eq>
void run(inclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, Eq eq) {
  run(inclusive_scan_by_key{}, policy, keys, x, out, functors::plus<value_t<O>>{}, eq);
}
template <class K, class X, class O>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>>
void run(exclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, const value_t<O>& init) {
  run(exclusive_scan_by_key{}, policy, keys, x, out, init, functors::plus<value_t<O>>{},
      functors::equal_to<value_t<K>>{});
}
template <class K, class X, class O, class Eq>
  requires array_like<std::remove_reference_t<K>> && detail::writable_array<O> && array_of<X, value_t<O>> &&
           detail::generic_functor<Eq>
void run(exclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, const value_t<O>& init,
         Eq eq) {
  run(exclusive_scan_by_key{}, policy, keys, x, out, init, functors::plus<value_t<O>>{}, eq);
}
}  // namespace ops

inline constexpr operation<ops::compact_if> compact_if{};
inline constexpr operation<ops::partition_if> partition_if{};

}  // namespace prism

// The selections' forms (compact_if, partition_if, unique, unique_by_key, run_length_encode,
// reduce_by_key with the caller's functors).
#include <prism/scan_selections.cuh>
