// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::transform_reduce: op(init, f(x[0]), f(x[1]), ..., f(x[n-1])) for any device functor f and
// any associative, commutative operator op, in every implementation; prism::reduce, the same with
// no f (std::reduce's form).
//
// The generic layer under the whole reduction family: sum is (identity, plus), dot is
// (multiply, plus), argmin is ((value, index), the smaller value or the smaller index), variance is
// (one-element moments, Chan's combine), each one call of this template. CUDA translation units
// can call it with their own functors and accumulators (any trivially copyable type: a bool, a
// __half, a struct):
//
//   float s = prism::transform_reduce(x, 0.0f, prism::functors::plus<float>{}, square{});
//   stats s = prism::reduce(x, first_stats, combine_stats{});         // init once, no identity
//   prism::transform_reduce(prism::par.on(stream), prism::inputs(a, b), result, 0.0, plus, f);
//
// Contract. init is combined once, as in std::transform_reduce and Thrust: the result is
// op(init, op(f(x[0]), ..., f(x[n-1]))) in some grouping, and init alone for an empty input. op
// needs no identity: every implementation seeds each partial result with its first element (an
// operator whose "identity" breaks when combined with itself, like the moments of Thrust's
// summary_statistics example with a count of 0, gives the right answer). op must be associative
// and commutative (the implementations regroup and reorder). f and op must be __host__ __device__
// for impl::cpu (a __device__-only lambda in either is refused there); a __device__-only lambda
// runs on the GPU implementations if it names
// its return type (`[] __device__(float x) -> float`), which CUB and Thrust must know on the
// host. f may take the element's index first (f(i, x...)): pass it through prism::indexed(f).
//
// Result delivery. Returned, the call waits for the stream (the work before it on the stream
// included: a reduction cannot finish earlier); the GPU implementations write the result straight
// into pinned host memory, no separate copy; a capturing stream is refused (a graph cannot
// return a value). Into a one-element array `result` (device memory; host memory for cpu),
// nothing waits, and the call may be captured into a graph.
//
// The implementations (figures: docs/benchmarks/reduce.md):
//   cpu     the same Thrust calls as thrust, through Thrust's OpenMP system, on host memory.
//   thrust  thrust::reduce_into (over a transform_iterator where f changes the elements), on the
//           caller's stream, temporary storage from prism's scratch: into the device array, or,
//           returned, into the pinned host slot the call then waits for.
//   cub     cub::DeviceReduce::Reduce (TransformReduce where f changes the elements): two
//           launches, no atomics. Vector loads only for a single input without the index (CUB
//           vectorizes raw pointers, not fancy iterators).
//   raw     one launch: 16-byte vector loads, four vectors in flight per thread, a grid of as
//           many blocks as fit on the GPU at once, warp shuffles and a block reduce, and the
//           last-block combine (<prism/primitives/last_block.cuh>), whose arrival counter is the
//           scratch's zeroed word: no memset launch. Each thread's partial starts at its first
//           element, and a thread or block with none is skipped in the combines (a flag beside
//           the value); the last block combines init once, with the total.
//   cpu, thrust and cub take init as Thrust's and CUB's reductions do: once, beside the partials
//   (each of which starts at its first element).
// Determinism. Every implementation combines in an order fixed by n (and, for raw, by the number
// of SMs and the 16-byte alignment of the inputs; for cpu, by the number of processors), so
// floating-point results are run-to-run identical for the same input on the same device, and
// differ between implementations.
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/last_block.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/reduce.hpp>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/tuple>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

namespace prism {
namespace detail {

// f(i, x...) from f(x...).
template <class F>
struct ignore_index {
  F f;
  template <class... X>
  __host__ __device__ auto operator()(std::int64_t, const X&... x) const {
    return f(x...);
  }
};

template <class F>
struct index_first {
  F f;
};

// Calls f on the elements of a zipped tuple: what Thrust and CUB see of a multi-input f.
template <class F>
struct apply_to_tuple {
  F f;
  template <class Tuple>
  __host__ __device__ auto operator()(const Tuple& t) const {
    return cuda::std::apply(f, t);
  }
};

template <class F>
struct unwrap_index {
  using type = F;
  static constexpr bool uses_index = true;
};
template <class F>
struct unwrap_index<ignore_index<F>> {
  using type = F;
  static constexpr bool uses_index = false;
};

// The input as Thrust and CUB take it: one raw pointer where possible (CUB vectorizes those),
// the inputs zipped otherwise, with the index in front when f wants it.
template <class F, class... In>
auto iterate(F f, const In*... in) {
  using plain = unwrap_index<F>;
  if constexpr (!plain::uses_index && sizeof...(In) == 1) {
    return std::pair{in..., f.f};
  } else if constexpr (!plain::uses_index) {
    return std::pair{thrust::make_zip_iterator(in...), apply_to_tuple<typename plain::type>{f.f}};
  } else {
    return std::pair{thrust::make_zip_iterator(thrust::counting_iterator<std::int64_t>(0), in...),
                     apply_to_tuple<F>{f}};
  }
}

// True where f(x) is x itself: a reduction of the input as it is.
template <class F, class... In>
constexpr bool plain_reduction = false;
template <class T>
constexpr bool plain_reduction<ignore_index<functors::cast_to<T>>, T> = true;

// cpu: pairwise, as NumPy adds. A thread adding its share in one sequence loses a float sum's
// precision as the share grows (ten million 0.1f summed that way give 956,550); in order, each
// run of `pairwise_leaf` elements, then a balanced tree of those, the error grows with log n. The
// input is cut into parts of a fixed size, reduced by the policy's threads (Thrust's OpenMP
// system, or its sequential one), so the answer does not depend on the number of threads.
inline constexpr std::int64_t pairwise_leaf = 16;
inline constexpr std::int64_t pairwise_part = std::int64_t{1} << 16;

template <class Acc, class It, class Map, class Op>
Acc pairwise_reduce(It first, std::int64_t n, const Map& map, const Op& op) {  // n > 0
  if (n <= pairwise_leaf) {
    Acc a = static_cast<Acc>(map(first[0]));
    for (std::int64_t i = 1; i < n; ++i) a = op(a, static_cast<Acc>(map(first[i])));
    return a;
  }
  const std::int64_t half = (n / 2 + pairwise_leaf - 1) / pairwise_leaf * pairwise_leaf;
  const Acc left = pairwise_reduce<Acc>(first, half, map, op);
  return op(left, pairwise_reduce<Acc>(first + half, n - half, map, op));
}

template <class Acc, class It, class Map, class Op>
struct reduce_part {
  It first;
  std::int64_t n;
  Map map;
  Op op;
  Acc operator()(std::int64_t part) const {
    const std::int64_t begin = part * pairwise_part;
    return pairwise_reduce<Acc>(first + begin, std::min(pairwise_part, n - begin), map, op);
  }
};

template <class Acc, class F, class Op, class Policy, class... In>
Acc thrust_reduce(const Policy& policy, F f, Op op, Acc init, std::size_t n, const In*... in) {
  const auto count = static_cast<std::int64_t>(n);
  if (count == 0) return init;
  const auto [first, map] = iterate(f, in...);
  const std::int64_t parts = (count + pairwise_part - 1) / pairwise_part;
  const reduce_part<Acc, decltype(first), decltype(map), Op> part{first, count, map, op};
  if (parts == 1) return op(init, part(0));
  // An array of Acc, not a std::vector (whose bool is bits).
  const std::unique_ptr<Acc[]> partials(new Acc[static_cast<std::size_t>(parts)]);
  thrust::transform(policy, thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(parts),
                    partials.get(), part);
  return op(init, pairwise_reduce<Acc>(partials.get(), parts, [](const Acc& a) { return a; }, op));
}

// The same reduction into an output iterator (CCCL 3.2's reduce_into): the result stays on the
// device, and nothing waits for it.
template <class Acc, class F, class Op, class Out, class Policy, class... In>
void thrust_reduce_into(const Policy& policy, F f, Op op, Acc init, std::size_t n, Out out, const In*... in) {
  const auto count = static_cast<std::int64_t>(n);
  if constexpr (plain_reduction<F, In...>) {
    (thrust::reduce_into(policy, in, in + count, out, init, op), ...);
  } else {
    const auto [first, map] = iterate(f, in...);
    const auto mapped = thrust::make_transform_iterator(first, map);
    thrust::reduce_into(policy, mapped, mapped + count, out, init, op);
  }
}

// finalize(accumulator) as the result type, for an output iterator.
template <class R, class G>
struct finalized_as {
  G finalize;
  template <class Acc>
  __host__ __device__ R operator()(const Acc& a) const {
    return static_cast<R>(finalize(a));
  }
};

// CUB's Reduce where there is nothing to transform, TransformReduce otherwise.
template <class F, class Op, class Acc, class Out, class... In>
cudaError_t cub_reduce(void* temp, std::size_t& temp_bytes, F f, Op op, Acc init, Out* out,
                       std::size_t n, cudaStream_t stream, const In*... in) {
  const auto count = static_cast<std::int64_t>(n);
  if constexpr (plain_reduction<F, In...>) {
    return (cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, count, op, init, stream), ...);
  } else {
    const auto [first, map] = iterate(f, in...);
    return cub::DeviceReduce::TransformReduce(temp, temp_bytes, first, out, count, op, map, init,
                                              stream);
  }
}

template <class R, class V, class G>
__global__ void finalize_kernel(R* result, const V* value, G finalize) {
  *result = finalize(*value);
}

// ---- cub ----------------------------------------------------------------------------------------

// CUB writes the reduced value to `at` (the pinned host slot when returned, or the caller's array)
// when nothing is left to do; else to the first word of scratch, which a one-thread kernel
// finalizes into the caller's array, or (returned) into the slot, finalized on the host.
template <class R, class Acc, class F, class Op, class G, class... In>
std::optional<R> reduce_cub(const char* algorithm, const execution_policy& policy, F f, Op op, Acc init,
                            G finalize, R* at, bool returned, std::size_t n, const In*... in) {
  const cudaStream_t stream = policy.stream();
  constexpr bool finished = std::is_same_v<G, functors::no_finalize> && std::is_same_v<R, Acc>;
  static_assert(sizeof(Acc) <= host_slot::bytes, "a returned accumulator must fit the pinned host slot");
  cub_call(
      algorithm, "cub::DeviceReduce", policy, {n},
      [&](void* temp, std::size_t& bytes, void* extra) {
        Acc* out = finished || returned ? reinterpret_cast<Acc*>(at) : static_cast<Acc*>(extra);
        return cub_reduce(temp, bytes, f, op, init, out, n, stream, in...);
      },
      finished || returned ? 0 : sizeof(Acc),
      [&](void* extra) {
        if constexpr (!finished) {
          if (!returned) {
            launch(algorithm, "finalize_kernel", finalize_kernel<R, Acc, G>, 1, 1, stream, at,
                   static_cast<const Acc*>(extra), finalize);
          }
        }
      });
  if (finished || !returned) return std::nullopt;
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", algorithm);
  return static_cast<R>(finalize(*reinterpret_cast<const Acc*>(at)));
}

// ---- raw: the tuned kernel ----------------------------------------------------------------------

inline constexpr int vectors_in_flight = 4;

// A vector read straight as the aligned struct. The reduction's element types copy trivially, and
// in this form the four loads of a step stay ahead of their additions in the generated code
// (through load_vector's plain word they interleave with them).
template <int V, class T>
__device__ vector_of<T, V> load_vector_ahead(const T* p) {
  return *reinterpret_cast<const vector_of<T, V>*>(p);
}

// A partial result that may hold nothing yet: what the raw kernel combines across threads and
// blocks, so that no operator needs an identity (a thread past the end has no element).
template <class Acc>
struct partial {
  Acc value;
  bool held;
};
// op(a, b) where every element of a precedes every element of b, through the operator's cheaper
// `ordered` form where it has one (argmin and argmax: ties need no index comparison).
template <class Op, class Acc>
__device__ Acc combine_in_order(const Op& op, const Acc& a, const Acc& b) {
  if constexpr (requires { op.ordered(a, b); }) return op.ordered(a, b);
  else return op(a, b);
}

template <class Op>
struct combine_partials {
  Op op;
  template <class Acc>
  __device__ partial<Acc> operator()(const partial<Acc>& a, const partial<Acc>& b) const {
    if (!a.held) return b;
    if (!b.held) return a;
    return {op(a.value, b.value), true};
  }
};

// f(i, x) = (x, i), the element beside its index (argmin and argmax): the step's tree below may
// carry each element's place in the step (0 to 15) instead, a number the compiler keeps as a
// constant until a combine selects it, and turn the winner's place into its index once per step.
// The 64-bit indices of sixteen parts cost 32 registers, half the kernel's (the reduce_arg rows).
template <class F>
concept pairs_with_index = requires { requires F::pairs_with_index; };

// Each thread walks the vectors with a grid-sized stride, `vectors_in_flight` vectors per input at a
// time: four independent 16-byte loads in flight per thread. The step's elements are combined
// pairwise, a balanced tree of parts of equal size, and the tree's root into the thread's
// accumulator. For a sum that is as many additions as a chain; for the moments of variance it
// is what keeps the step free of divisions: the tree's counts are constants the compiler folds
// (a part of 2 and a part of 2 weigh 1/2 each), and the one division of Chan's combine is left
// for the root, once per 16 floats instead of once per element. The scalar head (before the
// inputs reach 16-byte alignment) and tail go to the first threads. The accumulator starts at the
// thread's first element (`held` says whether it has one; init only fills the value until then).
// Each block's partial goes to `partials`; the last block to arrive (counted in `arrivals`, which
// is zero at the launch) reduces them in a fixed order and writes finalize(op(init, total))
// (<prism/primitives/last_block.cuh>). A grid of one block writes its result directly.
template <int V, class Acc, class F, class Op, class G, class R, class... In>
__global__ void __launch_bounds__(block_size)
    reduce_vector_kernel(F f, Op op, Acc init, G finalize, R* result, staged<partial<Acc>>* partials,
                         unsigned* arrivals, std::size_t n, std::size_t head, std::size_t vectors,
                         const In*... in) {
  constexpr int U = vectors_in_flight;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  // f of the V elements of one vector of each input, at element `base`.
  const auto transform = [&](std::size_t base, int k, const auto& x) {
    return cuda::std::apply([&](const auto&... v) { return f(std::int64_t(base + k), v.element[k]...); },
                            x);
  };
  Acc acc = init;
  bool held = false;
  // v's elements follow every element acc holds: the loops below walk each thread's in order.
  const auto add = [&](const Acc& v) {
    acc = held ? combine_in_order(op, acc, v) : v;
    held = true;
  };

  std::size_t t = first;
  for (; t + (U - 1) * stride < vectors; t += U * stride) {
    cuda::std::tuple<vector_of<In, V>...> x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = cuda::std::make_tuple(load_vector_ahead<V>(in + head + (t + u * stride) * V)...);
    Acc part[U * V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if constexpr (pairs_with_index<F>) {
          part[u * V + k] = cuda::std::apply([&](const auto&... v) { return f(u * V + k, v.element[k]...); }, x[u]);
        } else {
          part[u * V + k] = transform(head + (t + u * stride) * V, k, x[u]);
        }
      }
    }
    static_assert((U * V & (U * V - 1)) == 0, "the tree pairs parts of equal size");
#pragma unroll
    for (int level = 0; (1 << level) < U * V; ++level) {
#pragma unroll
      for (int j = 0; j < U * V; j += 2 << level) part[j] = combine_in_order(op, part[j], part[j + (1 << level)]);
    }
    if constexpr (pairs_with_index<F>) {  // the place in the step back to the element's index
      const auto place = static_cast<std::size_t>(part[0].index);
      part[0].index = std::int64_t(head + (t + place / V * stride) * V + place % V);
    }
    add(part[0]);
  }
  for (; t < vectors; t += stride) {
    const std::size_t base = head + t * V;
    const auto x = cuda::std::make_tuple(load_vector_ahead<V>(in + base)...);
#pragma unroll
    for (int k = 0; k < V; ++k) add(transform(base, k, x));
  }
  const std::size_t tail = head + vectors * V;
  if (first < n - tail) add(f(std::int64_t(tail + first), in[tail + first]...));
  if (first < head) {  // before the vectors: out of order, so the full operator
    const Acc v = f(std::int64_t(first), in[first]...);
    acc = held ? op(acc, v) : v;
    held = true;
  }

  const combine_partials<Op> combine{op};
  const partial<Acc> none{init, false};
  const partial<Acc> a = block_reduce(partial<Acc>{acc, held}, combine, none);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = finalize(op(init, a.value));  // n > 0: the block holds an element
    return;
  }

  partial<Acc> total;
  if (last_block_combine(a, combine, none, partials, arrivals, total)) *result = finalize(op(init, total.value));
}

template <int V, class R, class Acc, class F, class Op, class G, class... In>
void reduce_raw_with(const char* algorithm, const execution_policy& policy, F f, Op op, Acc init,
                     G finalize, R* at, std::size_t n, std::size_t head, const In*... in) {
  const auto kernel = reduce_vector_kernel<V, Acc, F, Op, G, R, In...>;
  static const int blocks_per_sm = [&] {
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_size, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor", algorithm);
    return std::max(blocks, 1);
  }();
  const std::size_t vectors = (n - head) / V;
  const std::size_t per_block = std::size_t{block_size} * vectors_in_flight;
  const auto blocks = static_cast<unsigned>(
      std::clamp<std::size_t>((vectors + per_block - 1) / per_block, 1,
                              std::size_t(multiprocessor_count()) * blocks_per_sm));

  const scratch lease = acquire_scratch(blocks > 1 ? blocks * sizeof(staged<partial<Acc>>) : 0,
                                        with_explicit_stream(policy), algorithm);
  launch(algorithm, "reduce_vector_kernel", kernel, blocks, block_size, policy.stream(), f, op, init,
         finalize, at, static_cast<staged<partial<Acc>>*>(lease.device()), lease.zeroed_counter(), n, head, vectors,
         in...);
}

// The result goes to `at` on the stream.
template <class R, class Acc, class F, class Op, class G, class... In>
std::optional<R> reduce_raw(const char* algorithm, const execution_policy& policy, F f, Op op, Acc init,
                            G finalize, R* at, std::size_t n, const In*... in) {
  constexpr int V = vector_width<In...>;
  // Inputs misaligned with respect to each other have no vector-aligned start: then the same
  // kernel runs on single elements.
  const std::size_t head = vector_aligned_head<V>(n, in...);
  if (head < V || sizeof...(In) == 1) {
    reduce_raw_with<V>(algorithm, policy, f, op, init, finalize, at, n, std::min(head, n), in...);
  } else if constexpr (sizeof...(In) > 1) {
    reduce_raw_with<1>(algorithm, policy, f, op, init, finalize, at, n, 0, in...);
  }
  return std::nullopt;
}

// Every reduction: its inputs of one size, its result returned or into a one-element array
// (`result`, null when returned), and its implementations side by side. f takes (index, elements...).
template <class R, class Acc, class F, class Op, class G, class... In>
R reduce_spans(const char* algorithm, const family& offered, const execution_policy& policy, F f,
               Op op, Acc init, G finalize, span<R>* result, const std::tuple<span<In>...>& inputs) {
  const std::size_t n = std::get<0>(inputs).size();
  const bool returned = result == nullptr;
  return std::apply(
      [&](const auto&... x) {
        std::size_t k = 0;
        const auto on_cpu = [&](const auto& p, R*) -> std::optional<R> {
          return static_cast<R>(finalize(thrust_reduce(p, f, op, init, n, x.data()...)));
        };
        // reduce_into, finalized on the way out: into the caller's array, or (returned) into the
        // pinned slot the call then waits for. One Thrust algorithm for both deliveries, so they
        // agree bit for bit (thrust::transform_reduce and reduce_into may combine in other orders).
        const auto on_thrust = [&](const auto& p, R* at) -> std::optional<R> {
          thrust_reduce_into(p, f, op, init, n,
                             thrust::make_transform_output_iterator(at, finalized_as<R, G>{finalize}), x.data()...);
          return std::nullopt;
        };
        return dispatch<typename unwrap_index<F>::type, Op>(
            {algorithm, offered, policy, {array_ref::input(x, input_name(k++)).sized(n)...}, n},
            result_to<R>{result, static_cast<R>(finalize(init))},
            implementations{
                .cpu = serial_too{on_cpu},
                .thrust = on_thrust,
                .raw = [&](R* at) { return reduce_raw(algorithm, policy, f, op, init, finalize, at, n, x.data()...); },
                .cub = [&](R* at) {
                  return reduce_cub(algorithm, policy, f, op, init, finalize, at, returned, n, x.data()...);
                },
            });
      },
      inputs);
}

template <class F>
auto with_index(F f) {
  return ignore_index<F>{f};
}
template <class F>
F with_index(index_first<F> f) {
  return f.f;
}

// A single array, or a tuple of them (prism::inputs), as a tuple of read-only spans.
template <class In>
auto as_inputs(In&& in) {
  if constexpr (array_like<std::remove_reference_t<In>>) {
    return std::tuple{input_span(std::forward<In>(in))};
  } else {
    return std::apply([](const auto&... s) { return std::tuple{input_span(s)...}; }, in);
  }
}

}  // namespace detail

// f(i, x...) instead of f(x...): the element's index comes first.
template <class F>
detail::index_first<F> indexed(F f) {
  return {f};
}

// What transform_reduce reads: one array, or several of one size as prism::inputs(a, b, ...).
namespace detail {
template <class T>
constexpr bool tuple_of_spans = false;
template <class... T>
constexpr bool tuple_of_spans<std::tuple<span<T>...>> = sizeof...(T) > 0;
}  // namespace detail
template <class In>
concept reduce_inputs =
    array_like<std::remove_reference_t<In>> || detail::tuple_of_spans<std::remove_cvref_t<In>>;

namespace ops {
struct transform_reduce { static constexpr const char* name = "transform_reduce"; };

// init op f(x[0]) op ... op f(x[n-1]) (init for an empty input), returned: the call waits.
template <class In, class Acc, class Op, class F>
  requires reduce_inputs<In>
Acc run(transform_reduce, const execution_policy& policy, In&& inputs, Acc init, Op op, F f) {
  return detail::reduce_spans<Acc>("transform_reduce", reduce_family, policy, detail::with_index(f),
                                   op, init, functors::no_finalize{}, static_cast<span<Acc>*>(nullptr),
                                   detail::as_inputs(std::forward<In>(inputs)));
}

// The same into result[0] (one element, device memory; host memory for impl::cpu): nothing waits.
template <class In, class R, class Acc, class Op, class F>
  requires reduce_inputs<In> && writable_array_of<R, Acc>
void run(transform_reduce, const execution_policy& policy, In&& inputs, R&& result, Acc init, Op op,
                      F f) {
  span<Acc> into = output_span(result);
  detail::reduce_spans<Acc>("transform_reduce", reduce_family, policy, detail::with_index(f), op,
                            init, functors::no_finalize{}, &into,
                            detail::as_inputs(std::forward<In>(inputs)));
}
}  // namespace ops

inline constexpr operation<ops::transform_reduce> transform_reduce{};

namespace detail {
// The standard operators as the implementations run them in Acc (std::plus is not __device__).
template <class Acc, class Op>
auto device_operator(Op op) {
  constexpr reduce_operator standard = standard_reduce_operator_v<Op>;
  if constexpr (standard == reduce_operator::plus) {
    return functors::plus<Acc>{};
  } else if constexpr (standard == reduce_operator::multiplies) {
    return functors::multiplies<Acc>{};
  } else if constexpr (standard == reduce_operator::min || standard == reduce_operator::max) {
    return functors::extremum<Acc>{standard == reduce_operator::max};
  } else {
    return op;
  }
}
}  // namespace detail

namespace ops {
// std::reduce's form with any operator: init op x[0] op ... op x[n-1], init once (init for an
// empty input), in Acc. The standard operators on the compiled types run the library's
// reductions (<prism/reduce.hpp>); everything else compiles here.
template <class X, class Acc, class Op>
  requires array_like<std::remove_reference_t<X>> && (!array_like<std::remove_reference_t<Acc>>) &&
           (!reduces_with<X, Op>)
Acc run(reduce, const execution_policy& policy, X&& x, Acc init, Op op) {
  return run(transform_reduce{}, policy, x, init, detail::device_operator<Acc>(op), functors::cast_to<Acc>{});
}
template <class X, class R, class Acc, class Op>
  requires array_like<std::remove_reference_t<X>> && writable_array_of<R, Acc> && (!reduces_with<X, Op>)
void run(reduce, const execution_policy& policy, X&& x, R&& result, Acc init, Op op) {
  run(transform_reduce{}, policy, x, result, init, detail::device_operator<Acc>(op), functors::cast_to<Acc>{});
}
}  // namespace ops

}  // namespace prism
