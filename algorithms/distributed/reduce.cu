// SPDX-License-Identifier: Apache-2.0
// Reductions over sharded arrays: each shard reduced on its own GPU by the single-GPU prism call,
// into device memory, then NCCL across the ranks. Three shapes:
//   summed    sum, product, dot, norm1, count_if: the shard's result goes straight into the result
//             slot, and ncclAllReduce (sum or product) combines the slots in place.
//   extremes  min, max, minmax, norm_inf, argmin, argmax: each rank's state is (value, second
//             value, global index, present); the k states are all-gathered and every GPU picks the
//             winner with the single-GPU operators (NaN wins; of equal values the first index).
//             ncclAllReduce's min and max would not propagate NaN, nor carry an index.
//   moments   mean, variance, stddev, norm2: (count, mean, squared deviations) per rank, from the
//             single-GPU mean and variance; gathered and combined with Chan's pairwise formula in
//             float64 (the mean of means weighted by counts, not a plain sum of means).
// Combining the gathered states in rank order on every GPU gives every rank the same bits.
#include "collectives.hpp"

#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/launch.cuh>

#include <cuda/std/cmath>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace prism::detail {
namespace {

const char* name_of(sharded_reduction what) {
  constexpr const char* names[] = {"sum", "product", "dot", "norm1", "count_if", "min", "max", "minmax",
                                   "argmin", "argmax", "norm_inf", "norm2", "mean", "variance", "stddev"};
  return names[static_cast<int>(what)];
}

enum class shape { summed, extremes, moments };
shape shape_of(sharded_reduction what) {
  switch (what) {
    case sharded_reduction::sum:
    case sharded_reduction::product:
    case sharded_reduction::dot:
    case sharded_reduction::norm1:
    case sharded_reduction::count_if: return shape::summed;
    case sharded_reduction::norm2:
    case sharded_reduction::mean:
    case sharded_reduction::variance:
    case sharded_reduction::stddev: return shape::moments;
    default: return shape::extremes;
  }
}

bool has_empty_result(sharded_reduction what) { return shape_of(what) == shape::summed || what == sharded_reduction::norm2 || what == sharded_reduction::norm_inf; }

// ---- extremes -------------------------------------------------------------------------------------

template <class T>
struct extreme_state {
  T value;     // min, max, norm_inf, argmin/argmax's value; minmax's min
  T second;    // minmax's max
  std::size_t index;  // argmin/argmax: the local index, then the global one
  std::uint32_t present;  // 0 for an empty shard
  std::uint32_t spare;
};
static_assert(sizeof(extreme_state<double>) <= communicator::slot_bytes);

bool is_arg(sharded_reduction what) {
  return what == sharded_reduction::argmin || what == sharded_reduction::argmax;
}

// Completes this rank's state after the single-GPU call: argmin/argmax fetch the value at their
// index and make the index global.
template <class T>
__global__ void assemble_extreme_kernel(extreme_state<T>* state, bool arg, const T* shard, std::uint64_t start,
                                        bool present) {
  state->present = present ? 1u : 0u;
  state->spare = 0;
  if (present && arg) {
    state->value = shard[state->index];
    state->index += start;
  }
}

// Every GPU combines the k states in rank order.
template <class T>
__global__ void combine_extremes_kernel(const extreme_state<T>* states, int k, sharded_reduction what, void* result) {
  bool have = false;
  extreme_state<T> best{};
  const bool largest = what == sharded_reduction::max || what == sharded_reduction::norm_inf ||
                       what == sharded_reduction::argmax;
  for (int r = 0; r < k; ++r) {
    const extreme_state<T> s = states[r];
    if (s.present == 0) continue;
    if (!have) {
      best = s;
      have = true;
      continue;
    }
    if (what == sharded_reduction::minmax) {
      best.value = functors::extremum<T>{false}(best.value, s.value);
      best.second = functors::extremum<T>{true}(best.second, s.second);
    } else if (what == sharded_reduction::argmin || what == sharded_reduction::argmax) {
      const functors::located<T> a(best.value, static_cast<std::int64_t>(best.index));
      const functors::located<T> b(s.value, static_cast<std::int64_t>(s.index));
      const functors::located<T> w = functors::arg_extremum<T>{largest}(a, b);
      best.value = w.value;
      best.index = static_cast<std::size_t>(w.index);
    } else {
      best.value = functors::extremum<T>{largest}(best.value, s.value);
    }
  }
  if (!have) best.value = T(0);  // norm_inf of an empty array
  switch (what) {
    case sharded_reduction::minmax: *static_cast<minmax_result<T>*>(result) = {best.value, best.second}; break;
    case sharded_reduction::argmin:
    case sharded_reduction::argmax: *static_cast<std::size_t*>(result) = best.index; break;
    default: *static_cast<T*>(result) = best.value; break;
  }
}

// ---- moments ---------------------------------------------------------------------------------------

struct moment_state {
  double count, mean, m2;
};
// Where the single-GPU calls leave their values inside slot 0, beside the state.
constexpr std::size_t first_value_at = 64, second_value_at = 128;

template <class V>
__global__ void assemble_moments_kernel(moment_state* state, bool with_spread, std::uint64_t n) {
  const auto* base = reinterpret_cast<const unsigned char*>(state);
  const double first = n > 0 ? static_cast<double>(*reinterpret_cast<const V*>(base + first_value_at)) : 0.0;
  const double second = n > 0 && with_spread ? static_cast<double>(*reinterpret_cast<const V*>(base + second_value_at)) : 0.0;
  *state = {static_cast<double>(n), first, second * static_cast<double>(n)};
}

template <class R>
__global__ void combine_moments_kernel(const moment_state* states, int k, sharded_reduction what, R* result) {
  if (what == sharded_reduction::norm2) {
    double squares = 0;
    for (int r = 0; r < k; ++r)
      if (states[r].count > 0) squares += states[r].mean * states[r].mean;
    *result = static_cast<R>(cuda::std::sqrt(squares));
    return;
  }
  functors::moments<double> all{0, 0, 0};
  for (int r = 0; r < k; ++r) all = functors::combine_moments<double>{}(all, {states[r].count, states[r].mean, states[r].m2});
  const double variance = all.m2 / all.count;
  switch (what) {
    case sharded_reduction::mean: *result = static_cast<R>(all.mean); break;
    case sharded_reduction::variance: *result = static_cast<R>(variance); break;
    default: *result = static_cast<R>(cuda::std::sqrt(variance)); break;
  }
}

// ---- the local step of each shape --------------------------------------------------------------------

template <class T, class R>
void summed_local(sharded_reduction what, const execution_policy& p, span<const T> x, span<const T> y,
                  comparison compare, T value, span<R> into) {
  switch (what) {
    case sharded_reduction::sum:
      if constexpr (std::is_same_v<R, sum_type<T>>) prism::sum(p, x, into);
      break;
    case sharded_reduction::product:
      if constexpr (std::is_same_v<R, sum_type<T>> && signed_reduce_element<T>) prism::product(p, x, into);
      break;
    case sharded_reduction::dot:
      if constexpr (std::is_same_v<R, sum_type<T>> && signed_reduce_element<T>) prism::dot(p, x, y, into);
      break;
    case sharded_reduction::norm1:
      if constexpr (std::is_same_v<R, T> && floating_element<T>) prism::norm1(p, x, into);
      break;
    case sharded_reduction::count_if:
      if constexpr (std::is_same_v<R, std::uint64_t>) prism::count_if(p, x, compare, value, into);
      break;
    default: break;
  }
}

template <class T>
void extreme_local(sharded_reduction what, const execution_policy& p, span<const T> x, extreme_state<T>* state) {
  if (x.empty()) return;
  switch (what) {
    case sharded_reduction::min: prism::min(p, x, span<T>(&state->value, 1)); break;
    case sharded_reduction::max: prism::max(p, x, span<T>(&state->value, 1)); break;
    case sharded_reduction::minmax:
      // minmax_result<T> {min, max} is laid out as the state's {value, second}.
      static_assert(offsetof(extreme_state<T>, second) == sizeof(T));
      prism::minmax(p, x, span<minmax_result<T>>(reinterpret_cast<minmax_result<T>*>(&state->value), 1));
      break;
    case sharded_reduction::argmin: prism::argmin(p, x, span<std::size_t>(&state->index, 1)); break;
    case sharded_reduction::argmax: prism::argmax(p, x, span<std::size_t>(&state->index, 1)); break;
    case sharded_reduction::norm_inf:
      if constexpr (floating_element<T>) prism::norm_inf(p, x, span<T>(&state->value, 1));
      break;
    default: break;
  }
}

template <class T, class V>
void moments_local(sharded_reduction what, const execution_policy& p, span<const T> x, unsigned char* slot) {
  if (x.empty()) return;
  V* first = reinterpret_cast<V*>(slot + first_value_at);
  V* second = reinterpret_cast<V*>(slot + second_value_at);
  if (what == sharded_reduction::norm2) {
    if constexpr (floating_element<T> && std::is_same_v<V, T>) prism::norm2(p, x, span<V>(first, 1));
    return;
  }
  if constexpr (signed_reduce_element<T> && std::is_same_v<V, real_type<T>>) {
    prism::mean(p, x, span<V>(first, 1));
    if (what != sharded_reduction::mean) prism::variance(p, x, span<V>(second, 1));
  }
}

}  // namespace

template <class T, class R>
R reduce_sharded(const execution_policy& policy, sharded_reduction what, const sharded<T>& x, const sharded<T>* y,
                 comparison compare, T value, replicated<R>* into) {
  const char* algorithm = name_of(what);
  const communicator& comm = x.comm();
  if (y != nullptr) require_aligned(algorithm, {&x.layout(), &y->layout()});
  if (into != nullptr) {
    if (!(into->comm() == comm))
      throw std::invalid_argument(std::string("prism::") + algorithm + ": the result belongs to another communicator");
    require_size(1, into->local(0).size(), algorithm, "the result");
  }
  // The same verdict on every rank: every rank knows the whole array's size.
  if (x.size() == 0 && !has_empty_result(what))
    throw std::invalid_argument(std::string("prism::") + algorithm + ": the input is empty, and an empty input has no " +
                                algorithm);
  const int k = comm.size(), local = comm.local_count();
  std::vector<R*> results(local);
  for (int g = 0; g < local; ++g)
    results[g] = into != nullptr ? into->local(g).data() : reinterpret_cast<R*>(result_slot(comm, g));

  device_guard guard;
  const shape s = shape_of(what);
  // The local step on every GPU first, so that all of them work at once.
  for (int g = 0; g < local; ++g) {
    guard.set(comm.device(g));
    const execution_policy p = shard_policy(algorithm, policy, comm, g);
    const span<const T> shard = x.local(g);
    unsigned char* slot = own_slot(comm, g);
    if (s == shape::summed) {
      summed_local<T, R>(what, p, shard, y != nullptr ? y->local(g) : span<const T>{}, compare, value,
                         span<R>(results[g], 1));
    } else if (s == shape::extremes) {
      auto* state = reinterpret_cast<extreme_state<T>*>(slot);
      extreme_local<T>(what, p, shard, state);
      launch(algorithm, "assemble_extreme_kernel", assemble_extreme_kernel<T>, 1, 1, p.stream(), state, is_arg(what),
             shard.data(), x.local_start(g), !shard.empty());
    } else if constexpr (std::is_floating_point_v<R>) {
      moments_local<T, R>(what, p, shard, slot);
      launch(algorithm, "assemble_moments_kernel", assemble_moments_kernel<R>, 1, 1, p.stream(),
             reinterpret_cast<moment_state*>(slot), what == sharded_reduction::variance || what == sharded_reduction::stddev,
             static_cast<std::uint64_t>(shard.size()));
    }
  }
  // Across the ranks.
  if (s == shape::summed) {
    if constexpr (std::is_arithmetic_v<R>) {
      if (k > 1)
        all_reduce_in_place<R>(algorithm, policy, comm, results.data(), 1,
                               what == sharded_reduction::product ? ncclProd : ncclSum);
    }
  } else {
    all_gather_slots(algorithm, policy, comm, s == shape::extremes ? sizeof(extreme_state<T>) : sizeof(moment_state));
    for (int g = 0; g < local; ++g) {
      guard.set(comm.device(g));
      const cudaStream_t stream = stream_of(algorithm, policy, comm, g);
      if (s == shape::extremes) {
        launch(algorithm, "combine_extremes_kernel", combine_extremes_kernel<T>, 1, 1, stream,
               reinterpret_cast<const extreme_state<T>*>(gathered_slots(comm, g)), k, what, static_cast<void*>(results[g]));
      } else {
        if constexpr (std::is_floating_point_v<R>) {
          launch(algorithm, "combine_moments_kernel", combine_moments_kernel<R>, 1, 1, stream,
                 reinterpret_cast<const moment_state*>(gathered_slots(comm, g)), k, what, results[g]);
        }
      }
    }
  }
  if (into != nullptr) return R{};
  // Returned: local GPU 0's copy, through the pinned slot.
  guard.set(comm.device(0));
  read_back(algorithm, stream_of(algorithm, policy, comm, 0), comm.pinned_slot(), results[0], sizeof(R));
  R r;
  std::memcpy(&r, comm.pinned_slot(), sizeof(R));
  return r;
}

// Every (element type, result type) the header's reductions use, once each.
#define PRISM_INSTANTIATE(T, R)                                                                                \
  template R reduce_sharded<T, R>(const execution_policy&, sharded_reduction, const sharded<T>&, const sharded<T>*, \
                                  comparison, T, replicated<R>*);
PRISM_INSTANTIATE(float, float)
PRISM_INSTANTIATE(float, minmax_result<float>)
PRISM_INSTANTIATE(float, std::size_t)
PRISM_INSTANTIATE(double, double)
PRISM_INSTANTIATE(double, minmax_result<double>)
PRISM_INSTANTIATE(double, std::size_t)
PRISM_INSTANTIATE(std::int32_t, std::int64_t)
PRISM_INSTANTIATE(std::int32_t, std::int32_t)
PRISM_INSTANTIATE(std::int32_t, minmax_result<std::int32_t>)
PRISM_INSTANTIATE(std::int32_t, std::size_t)
PRISM_INSTANTIATE(std::int32_t, double)
PRISM_INSTANTIATE(std::int64_t, std::int64_t)
PRISM_INSTANTIATE(std::int64_t, minmax_result<std::int64_t>)
PRISM_INSTANTIATE(std::int64_t, std::size_t)
PRISM_INSTANTIATE(std::int64_t, double)
PRISM_INSTANTIATE(std::uint32_t, std::uint64_t)
PRISM_INSTANTIATE(std::uint32_t, std::uint32_t)
PRISM_INSTANTIATE(std::uint32_t, minmax_result<std::uint32_t>)
PRISM_INSTANTIATE(std::uint64_t, std::uint64_t)
PRISM_INSTANTIATE(std::uint64_t, minmax_result<std::uint64_t>)
#undef PRISM_INSTANTIATE
static_assert(std::is_same_v<std::size_t, std::uint64_t>, "the instantiations above count size_t as uint64_t");

}  // namespace prism::detail
