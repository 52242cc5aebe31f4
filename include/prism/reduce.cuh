#pragma once
// prism::transform_reduce: op(f(x[0]), f(x[1]), ..., f(x[n-1])) for any device functor f and any
// associative, commutative operator op with an identity, in every implementation.
//
// The generic layer under the whole reduction family: sum is (identity, plus), dot is
// (multiply, plus), argmin is ((value, index), the smaller value or the smaller index), variance is
// (one-element moments, Chan's combine), each one call of this template. CUDA translation units
// can call it with their own functors and types.
//
//   float s = prism::transform_reduce(square{}, prism::reduction::plus<float>{}, 0.0f,
//                                     std::tuple{x}, stream);             // to the host
//   prism::transform_reduce(square{}, plus, 0.0f, std::tuple{x}, result, stream); // to the device
//
// Contract. `identity` must satisfy op(identity, v) == v: every implementation seeds many partial
// results with it. op must be associative and commutative (the implementations regroup and
// reorder). f and op must be __host__ __device__ for impl::cpu; a __device__-only lambda runs on
// the GPU implementations if it names its return type (`[] __device__(float x) -> float`), which
// CUB and Thrust must know on the host. f may take the element's index first (f(i, x...)): pass
// it through prism::indexed(f).
//
// Result delivery. To the host, the call returns the value and waits for the stream (the work
// before it on the stream included: a reduction cannot finish earlier); the GPU implementations
// write the result straight into the stream's pinned host slot, no separate copy. To a device
// pointer, nothing waits, except in impl::thrust (below).
//
// The implementations:
//   cpu     the same Thrust calls as thrust, through Thrust's OpenMP system, on host memory.
//   thrust  thrust::reduce (transform_reduce where f changes the elements) on the caller's stream,
//           temporary storage from prism's cache.
//           Thrust's reduce always synchronizes and copies its result to (pageable) host memory,
//           about 15 us a call on H200 whatever n; to a device pointer the value then goes back
//           as a launch argument: the only implementation whose device delivery waits.
//   cub     cub::DeviceReduce::Reduce (TransformReduce where f changes the elements): two
//           launches, no atomics. Vector loads only for a single input without the index (CUB
//           vectorizes raw pointers, not fancy iterators).
//   raw     one launch: 16-byte vector loads, four vectors in flight per thread, a grid of as
//           many 256-thread blocks as fit on the GPU at once, warp shuffles and a block reduce,
//           and a last-block combine: the last block to finish reduces every block's partial in
//           a fixed order. Its arrival counter is the cache's self-clearing one: no memset launch.
// Determinism. Every implementation combines in an order fixed by n (and, for raw, by the number
// of SMs and the 16-byte alignment of the inputs; for cpu, by the number of processors), so
// floating-point results are run-to-run
// identical for the same input on the same device, and differ between implementations.
#include <prism/arithmetic.cuh>
#include <prism/buffer.hpp>
#include <prism/device_lambda.cuh>
#include <prism/error.hpp>
#include <prism/memory.hpp>
#include <prism/registry.hpp>
#include <prism/span.hpp>
#include <prism/temporary_storage.hpp>
#include <prism/thrust_error.cuh>
#include <prism/vector_access.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/cmath>
#include <cuda/std/limits>
#include <cuda/std/tuple>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

namespace prism {

// ---- the operators of the family ----------------------------------------------------------------
namespace reduction {

// x as T: the transform of a plain reduction (sum, min, max). Where it changes nothing (T is the
// element type), Thrust and CUB get their plain reduce on the raw pointer, which they vectorize.
template <class T>
struct convert {
  template <class X>
  __host__ __device__ T operator()(X x) const {
    return static_cast<T>(x);
  }
};

// a + b and a * b; integers wrap around (<prism/arithmetic.cuh>), as in the element-wise family.
template <class T>
using plus = arithmetic::plus<T>;
template <class T>
using multiplies = arithmetic::multiplies<T>;
using arithmetic::is_nan;

// The smaller (or, with largest, the larger) of two values; a NaN wins over any number, so a NaN
// anywhere in the input is the result, whatever the order of combination.
template <class T>
struct extremum {
  bool largest;
  __host__ __device__ T operator()(T a, T b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return (largest ? a < b : b < a) ? b : a;
  }
  __host__ __device__ T identity() const {
    using limits = cuda::std::numeric_limits<T>;
    if constexpr (limits::has_infinity) {
      return largest ? -limits::infinity() : limits::infinity();
    } else {
      return largest ? limits::lowest() : limits::max();
    }
  }
};

template <class T>
struct range {
  T min, max;
};

// min and max in one pass; NaN propagates into both.
template <class T>
struct min_and_max {
  __host__ __device__ range<T> operator()(range<T> a, range<T> b) const {
    return {extremum<T>{false}(a.min, b.min), extremum<T>{true}(a.max, b.max)};
  }
  __host__ __device__ range<T> identity() const {
    return {extremum<T>{false}.identity(), extremum<T>{true}.identity()};
  }
};

template <class T>
struct located {
  T value;
  std::int64_t index;
};

// The position of the smallest (largest) value; of equal values the first; a NaN beats any
// number, so the result is the first NaN if there is one (as numpy and torch do). A total order on
// (value, index), so the result does not depend on the order of combination.
template <class T>
struct arg_extremum {
  bool largest;
  __host__ __device__ located<T> operator()(located<T> a, located<T> b) const {
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value == b.value) return a.index < b.index ? a : b;
    return (largest ? a.value < b.value : b.value < a.value) ? b : a;
  }
  __host__ __device__ located<T> identity() const {
    return {extremum<T>{largest}.identity(), cuda::std::numeric_limits<std::int64_t>::max()};
  }
};

// Count, mean and the sum of squared deviations from the mean of a part of the input. The count
// is kept in R: the combine needs it as R anyway, and a 64-bit integer conversion per element
// would cost more than the loads (for float, counts past 2^24 round, by under one part in 2^24).
template <class R>
struct moments {
  R count;
  R mean;
  R m2;
};

// Chan, Golub and LeVeque's pairwise combine of two parts' moments: exact in exact arithmetic,
// and without the cancellation of sum(x^2) - sum(x)^2/n.
template <class R>
struct combine_moments {
  __host__ __device__ moments<R> operator()(const moments<R>& a, const moments<R>& b) const {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const R count = a.count + b.count;
    const R delta = b.mean - a.mean;
    // b's share of the whole; exactly 1/2 for parts of equal size (the raw kernel's tree), where
    // saying so spares the compiler a division it may not fold.
    const R share_b = a.count == b.count ? R(0.5) : b.count / count;
    return {count, a.mean + delta * share_b, a.m2 + b.m2 + delta * delta * a.count * share_b};
  }
};

// What the result is made of after the reduction (applied once, on the device or the host).
struct no_finalize {
  template <class V>
  __host__ __device__ V operator()(const V& v) const {
    return v;
  }
};

}  // namespace reduction

// ---- the generic layer --------------------------------------------------------------------------
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

// Thrust's temporary storage from prism's cache: the first (and, for reduce, only) request takes
// the stream's lease, which is held until the call returns.
class lease_allocator {
 public:
  using value_type = char;
  explicit lease_allocator(cudaStream_t stream) : stream_(stream) {}
  char* allocate(std::ptrdiff_t bytes) {
    if (lease_) {
      throw std::logic_error("prism: Thrust asked for a second temporary allocation in one call");
    }
    lease_.emplace(acquire_temporary_storage(static_cast<std::size_t>(bytes), stream_));
    return static_cast<char*>(lease_->device());
  }
  void deallocate(char*, std::size_t) noexcept {}

 private:
  cudaStream_t stream_;
  std::optional<temporary_storage_lease> lease_;
};

// True where f(x) is x itself: a reduction of the input as it is.
template <class F, class... In>
constexpr bool plain_reduction = false;
template <class T>
constexpr bool plain_reduction<ignore_index<reduction::convert<T>>, T> = true;

template <class Acc, class F, class Op, class Policy, class... In>
Acc thrust_reduce(const Policy& policy, F f, Op op, Acc identity, std::size_t n, const In*... in) {
  const auto count = static_cast<std::int64_t>(n);
  if constexpr (plain_reduction<F, In...>) {
    return (thrust::reduce(policy, in, in + count, identity, op), ...);
  } else {
    const auto [first, map] = iterate(f, in...);
    return thrust::transform_reduce(policy, first, first + count, map, identity, op);
  }
}

// CUB's Reduce where there is nothing to transform, TransformReduce otherwise.
template <class F, class Op, class Acc, class Out, class... In>
cudaError_t cub_reduce(void* temp, std::size_t& temp_bytes, F f, Op op, Acc identity, Out* out,
                       std::size_t n, cudaStream_t stream, const In*... in) {
  const auto count = static_cast<std::int64_t>(n);
  if constexpr (plain_reduction<F, In...>) {
    return (cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, count, op, identity, stream), ...);
  } else {
    const auto [first, map] = iterate(f, in...);
    return cub::DeviceReduce::TransformReduce(temp, temp_bytes, first, out, count, op, map, identity,
                                              stream);
  }
}

template <class R, class V>
__global__ void write_value_kernel(R* result, V value) {
  *result = value;
}

template <class R, class V, class G>
__global__ void finalize_kernel(R* result, const V* value, G finalize) {
  *result = finalize(*value);
}

template <class R, class V>
void write_on_device(R* result, const V& value, cudaStream_t stream) {
  write_value_kernel<<<1, 1, 0, stream>>>(result, static_cast<R>(value));
  check(cudaGetLastError(), "write_value_kernel launch");
}

inline constexpr std::size_t round_up(std::size_t bytes, std::size_t to) {
  return (bytes + to - 1) / to * to;
}

// ---- cub ----------------------------------------------------------------------------------------

// CUB writes the reduced value to `out`: the pinned host slot (to the host), the caller's pointer
// (to the device, when nothing is left to do), or a device slot that a one-thread kernel
// finalizes into the caller's pointer.
template <class R, class Acc, class F, class Op, class G, class... In>
R reduce_cub(F f, Op op, Acc identity, G finalize, R* device_result, std::size_t n,
             cudaStream_t stream, const In*... in) {
  std::size_t temp_bytes = 0;
  check(cub_reduce(nullptr, temp_bytes, f, op, identity, static_cast<Acc*>(nullptr), n, stream, in...),
        "cub::DeviceReduce");
  const std::size_t slot = round_up(sizeof(Acc), 256);
  auto lease = acquire_temporary_storage(slot + temp_bytes, stream);
  auto* device_slot = static_cast<Acc*>(lease.device());
  void* temp = static_cast<char*>(lease.device()) + slot;
  constexpr bool finished = std::is_same_v<G, reduction::no_finalize> && std::is_same_v<R, Acc>;
  Acc* out = device_result == nullptr ? static_cast<Acc*>(lease.pinned_host())
             : finished                 ? reinterpret_cast<Acc*>(device_result)
                                        : device_slot;
  check(cub_reduce(temp, temp_bytes, f, op, identity, out, n, stream, in...), "cub::DeviceReduce");
  if (device_result != nullptr) {
    if (!finished) {
      finalize_kernel<<<1, 1, 0, stream>>>(device_result, device_slot, finalize);
      check(cudaGetLastError(), "finalize_kernel launch");
    }
    return R{};
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return static_cast<R>(finalize(*out));
}

// ---- raw: the tuned kernel ----------------------------------------------------------------------

inline constexpr unsigned reduce_block = 256;
inline constexpr int vectors_in_flight = 4;

// A value of any trivially copyable type moved between lanes one 32-bit word at a time.
template <class T>
__device__ T shuffle_down(const T& v, int delta) {
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = __shfl_down_sync(0xFFFFFFFFu, w[i], delta);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// A store of every word of v, padding included (so that a reader of whole words reads nothing
// unwritten), and a load that bypasses L1 (ld.global.cg): the partials cross between blocks.
template <class T>
__device__ void store_to_l2(T* p, const T& v) {
  static_assert(sizeof(T) % 4 == 0 && alignof(T) >= 4);
  unsigned w[sizeof(T) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 4); ++i) __stcg(reinterpret_cast<unsigned*>(p) + i, w[i]);
}

template <class T>
__device__ T load_from_l2(const T* p) {
  static_assert(sizeof(T) % 4 == 0 && alignof(T) >= 4);
  unsigned w[sizeof(T) / 4];
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 4); ++i) w[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// Shuffles within each warp, then the first warp reduces the warps' results. The result is valid
// in thread 0; the order of combination is fixed, so it is deterministic.
template <class Acc, class Op>
__device__ Acc block_reduce(Acc v, Op op, Acc identity) {
  __shared__ __align__(16) unsigned char storage[32 * sizeof(Acc)];
  Acc* warp_results = reinterpret_cast<Acc*>(storage);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) v = op(v, shuffle_down(v, delta));
  __syncthreads();  // storage may still be read from a previous call
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_results[lane] : identity;
#pragma unroll
    for (int delta = 16; delta > 0; delta /= 2) v = op(v, shuffle_down(v, delta));
  }
  return v;
}

// A vector read straight as the aligned struct. The reduction's element types copy trivially, and
// in this form the four loads of a step stay ahead of their additions in the generated code
// (through load_vector's plain word they interleave with them).
template <int V, class T>
__device__ vector_of<T, V> load_vector_ahead(const T* p) {
  return *reinterpret_cast<const vector_of<T, V>*>(p);
}

// Each thread walks the vectors with a grid-sized stride, `vectors_in_flight` vectors per input at a
// time: four independent 16-byte loads in flight per thread. The step's elements are combined
// pairwise, a balanced tree of parts of equal size, and the tree's root into the thread's
// accumulator. For a sum that is as many additions as a chain; for the moments of variance it
// is what keeps the step free of divisions: the tree's counts are constants the compiler folds
// (a part of 2 and a part of 2 weigh 1/2 each), and the one division of Chan's combine is left
// for the root, once per 16 floats instead of once per element. The scalar head (before the
// inputs reach 16-byte alignment) and tail go to the first threads. Each block's partial goes to
// `partials`; the last block to arrive (counted in `arrivals`, which is zero at the launch)
// reduces them in a fixed order, writes finalize(result) and sets `arrivals` back to zero for the
// next launch on the stream. A grid of one block writes its result directly.
template <int V, class Acc, class F, class Op, class G, class R, class... In>
__global__ void __launch_bounds__(reduce_block)
    reduce_vector_kernel(F f, Op op, Acc identity, G finalize, R* result, Acc* partials,
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
  Acc acc = identity;

  std::size_t t = first;
  for (; t + (U - 1) * stride < vectors; t += U * stride) {
    cuda::std::tuple<vector_of<In, V>...> x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = cuda::std::make_tuple(load_vector_ahead<V>(in + head + (t + u * stride) * V)...);
    Acc part[U * V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int k = 0; k < V; ++k) part[u * V + k] = transform(head + (t + u * stride) * V, k, x[u]);
    }
    static_assert((U * V & (U * V - 1)) == 0, "the tree pairs parts of equal size");
#pragma unroll
    for (int level = 0; (1 << level) < U * V; ++level) {
#pragma unroll
      for (int j = 0; j < U * V; j += 2 << level) part[j] = op(part[j], part[j + (1 << level)]);
    }
    acc = op(acc, part[0]);
  }
  for (; t < vectors; t += stride) {
    const std::size_t base = head + t * V;
    const auto x = cuda::std::make_tuple(load_vector_ahead<V>(in + base)...);
#pragma unroll
    for (int k = 0; k < V; ++k) acc = op(acc, transform(base, k, x));
  }
  if (first < head) acc = op(acc, f(std::int64_t(first), in[first]...));
  const std::size_t tail = head + vectors * V;
  if (first < n - tail) acc = op(acc, f(std::int64_t(tail + first), in[tail + first]...));

  Acc a = block_reduce(acc, op, identity);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = finalize(a);
    return;
  }

  __shared__ bool last;
  if (threadIdx.x == 0) {
    store_to_l2(partials + blockIdx.x, a);
    __threadfence();  // the partial is visible before the arrival is counted
    last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  Acc c = identity;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) c = op(c, load_from_l2(partials + i));
  c = block_reduce(c, op, identity);
  if (threadIdx.x == 0) {
    *result = finalize(c);
    *arrivals = 0;  // every other block has counted itself: none reads it again
  }
}

template <int V, class R, class Acc, class F, class Op, class G, class... In>
R reduce_raw_with(F f, Op op, Acc identity, G finalize, R* device_result, std::size_t n,
                  std::size_t head, cudaStream_t stream, const In*... in) {
  const auto kernel = reduce_vector_kernel<V, Acc, F, Op, G, R, In...>;
  static const int blocks_per_sm = [&] {
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, reduce_block, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max(blocks, 1);
  }();
  const std::size_t vectors = (n - head) / V;
  const std::size_t per_block = std::size_t{reduce_block} * vectors_in_flight;
  const auto blocks = static_cast<unsigned>(
      std::clamp<std::size_t>((vectors + per_block - 1) / per_block, 1,
                              std::size_t(multiprocessor_count()) * blocks_per_sm));

  auto lease = acquire_temporary_storage(blocks > 1 ? blocks * sizeof(Acc) : 0, stream);
  auto* partials = static_cast<Acc*>(lease.device());
  R* out = device_result != nullptr ? device_result : static_cast<R*>(lease.pinned_host());
  kernel<<<blocks, reduce_block, 0, stream>>>(f, op, identity, finalize, out, partials,
                                              lease.zeroed_counter(), n, head, vectors, in...);
  check(cudaGetLastError(), "reduce_vector_kernel launch");
  if (device_result != nullptr) return R{};
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return *out;
}

template <class R, class Acc, class F, class Op, class G, class... In>
R reduce_raw(F f, Op op, Acc identity, G finalize, R* device_result, std::size_t n,
             cudaStream_t stream, const In*... in) {
  static_assert(sizeof(R) <= temporary_storage_lease::pinned_host_bytes);
  constexpr int V = vector_width<In...>;
  // Inputs misaligned with respect to each other have no vector-aligned start: then the same
  // kernel runs on single elements.
  const std::size_t head = vector_aligned_head<V>(n, in...);
  if (head < V || sizeof...(In) == 1) {
    return reduce_raw_with<V>(f, op, identity, finalize, device_result, n, std::min(head, n), stream,
                              in...);
  }
  if constexpr (sizeof...(In) > 1) {
    return reduce_raw_with<1>(f, op, identity, finalize, device_result, n, 0, stream, in...);
  }
  return R{};
}


// The one entry of every implementation. f takes (index, elements...). The result goes to
// device_result (asynchronously) or, if that is null, is returned.
template <class R, class Acc, class F, class Op, class G, class... In>
R reduce(F f, Op op, Acc identity, G finalize, R* device_result, std::size_t n,
         cudaStream_t stream, impl which, const char* algorithm, const In*... in) {
  if (n == 0) {
    const R empty = static_cast<R>(finalize(identity));
    if (device_result == nullptr) return empty;
    if (which == impl::cpu) {
      *device_result = empty;
    } else {
      write_on_device(device_result, empty, stream);
    }
    return R{};
  }
  try {
    switch (which) {
      case impl::cpu:
        if constexpr (detail::device_only_lambda<typename unwrap_index<F>::type>()) {
          throw std::invalid_argument(std::string("prism::") + algorithm +
                                      ": a __device__ lambda cannot run on the cpu");
        } else {
          const R r = static_cast<R>(finalize(thrust_reduce(thrust::omp::par, f, op, identity, n, in...)));
          if (device_result == nullptr) return r;
          *device_result = r;
          return R{};
        }
      case impl::thrust: {
        lease_allocator allocator(stream);
        const R r = static_cast<R>(finalize(
            thrust_reduce(thrust::cuda::par_nosync(allocator).on(stream), f, op, identity, n, in...)));
        if (device_result == nullptr) return r;
        write_on_device(device_result, r, stream);  // the value rides in the launch: no copy
        return R{};
      }
      case impl::raw:
      // Measured on H200 (docs/benchmarks/reduce.md): raw matched or beat cub for sum, min,
      // argmax, dot, the norms and variance at every size (cub ahead by at most 0.5% from 2^14
      // up, 2% below, where calls take a few microseconds), and has the lower latency, to the
      // host too.
      case impl::automatic:
        return reduce_raw(f, op, identity, finalize, device_result, n, stream, in...);
      case impl::cub:
        return reduce_cub(f, op, identity, finalize, device_result, n, stream, in...);
      default:
        throw std::invalid_argument(std::string("prism::") + algorithm +
                                    ": no implementation named " + std::string(name(which)));
    }
  } catch (const thrust::system_error& e) {
    rethrow_as_cuda_error(e, "thrust::transform_reduce");
  }
}

// The checks every reduction makes before touching anything.
template <class... In>
void require_inputs(const std::tuple<span<In>...>& inputs, impl which, const char* algorithm) {
  std::apply(
      [&](const auto& first, const auto&... rest) {
        std::size_t k = 0;
        require_memory(first, memory_of(which), algorithm, input_name(k++));
        ((require_same_size(first.size(), rest.size(), algorithm, input_name(k)),
          require_memory(rest, memory_of(which), algorithm, input_name(k++))),
         ...);
      },
      inputs);
}

template <class R>
void require_result(span<R> result, impl which, const char* algorithm) {
  require_same_size(1, result.size(), algorithm, "the result");
  require_memory(result, memory_of(which), algorithm, "the result");
}

template <class R, class Acc, class F, class Op, class G, class... In>
R reduce_spans(F f, Op op, Acc identity, G finalize, R* device_result,
               const std::tuple<span<In>...>& inputs, cudaStream_t stream, impl which,
               const char* algorithm) {
  return std::apply(
      [&](const auto&... in) {
        return reduce<R>(f, op, identity, finalize, device_result, std::get<0>(inputs).size(), stream,
                         which, algorithm, static_cast<const In*>(in.data())...);
      },
      inputs);
}

}  // namespace detail

// f(i, x...) instead of f(x...): the element's index comes first.
template <class F>
detail::index_first<F> indexed(F f) {
  return {f};
}

namespace detail {
template <class F>
auto with_index(F f) {
  return ignore_index<F>{f};
}
template <class F>
F with_index(index_first<F> f) {
  return f.f;
}
}  // namespace detail

// op over f of every element (identity for an empty input), returned to the host.
template <class F, class Op, class Acc, class... In>
Acc transform_reduce(F f, Op op, Acc identity, std::tuple<span<In>...> inputs,
                     cudaStream_t stream = nullptr, impl which = impl::automatic,
                     const char* algorithm = "transform_reduce") {
  detail::require_inputs(inputs, which, algorithm);
  return detail::reduce_spans<Acc>(detail::with_index(f), op, identity, reduction::no_finalize{},
                                   static_cast<Acc*>(nullptr), inputs, stream, which, algorithm);
}

// The same into result[0] (one element, device memory; host memory for impl::cpu), asynchronously.
template <class F, class Op, class Acc, class... In>
void transform_reduce(F f, Op op, Acc identity, std::tuple<span<In>...> inputs, span<Acc> result,
                      cudaStream_t stream = nullptr, impl which = impl::automatic,
                      const char* algorithm = "transform_reduce") {
  detail::require_inputs(inputs, which, algorithm);
  detail::require_result(result, which, algorithm);
  detail::reduce_spans<Acc>(detail::with_index(f), op, identity, reduction::no_finalize{},
                            result.data(), inputs, stream, which, algorithm);
}

}  // namespace prism
