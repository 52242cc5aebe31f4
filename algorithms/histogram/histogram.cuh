// SPDX-License-Identifier: Apache-2.0
#pragma once
// The histogram family's implementations side by side (the semantics: <prism/histogram.hpp>).
//
// Every implementation asks one binner which bin a sample falls into, so all of them count by the
// same rule, bit for bit:
//   even_float_bins   equal bins of float or double samples: a fast guess in T, settled against
//                     the edges (histogram_edge) where the guess is too close to one to trust
//   even_integer_bins equal bins of uint8 or int32 samples: exact, in integers
//   edge_bins         the caller's edges: a binary search
// The implementations (figures: docs/benchmarks/histogram.md):
//   cpu     the Thrust way, through Thrust's OpenMP system on host memory: each sample's bin as a
//           key, the keys sorted, then each bin's count as the length of its run of keys (two
//           binary searches per bin), in parts of 2^24 samples (bounded host memory). n log n
//           work where a histogram needs n: the lesson of why histograms are not sorts.
//   thrust  the same three Thrust algorithms on the GPU (par_nosync on the caller's stream); the
//           keys and the sort's temporary storage share one lease of prism's scratch: 8 bytes
//           per sample besides the samples, and the sort moves them about 8 times.
//   cub     cub::DeviceHistogram. Integer samples (CUB's rule is exact for them) and the edges
//           form go to HistogramEven / HistogramRange directly; float and double samples go to
//           HistogramEven as bin numbers computed by the binner (CUB's own float rule rounds
//           twice: see the header). CUB 3.0.1 counts tiles in int: past 2^30 samples the call
//           is split, each part counted into scratch and added to the counts.
//   raw     one kernel, one pass: 16-byte sample loads (4 per thread in flight), a private
//           sub-histogram per warp in shared memory (8 per block: a skewed input's colliding
//           atomics spread over 8 copies), each vector's bins guessed without a branch and
//           settled only where a sample is near an edge (see even_float_bins), one warp-aggregated
//           increment per sample (equal bins across the lanes of a warp combine in hardware, so
//           all samples in one bin run as fast as uniform ones), the copies summed and added to
//           the global counts at the end (one atomic per bin per block).
//           uint8 samples look their bin up in a 256-entry table in shared memory. Bins that do
//           not fit 46 KB of shared memory are counted with global atomics directly. The counts
//           are zeroed first (cudaMemsetAsync on the stream).
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/dispatch.cuh>
#include <prism/histogram.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_histogram.cuh>
#include <cuda/std/functional>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/transform.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace prism::detail {

// ---- the binners: sample -> bin, or -1 when it is not counted ---------------------------------

// Equal bins of float or double samples. The rule (the header's): bin k holds edge(k) <= x <
// edge(k + 1). The guess q = (x - lo) * scale in T is within `margin` bins of the exact position;
// where its fraction is farther than that from both integers, floor(q) is the bin for certain
// and no edge is computed (all but about 3 samples in 10^4 for 256 bins over [0, 1)). Otherwise
// the edges settle it. guess() is that fast path alone, without a branch, so that a kernel can
// guess a whole vector and settle only the rare vector with an uncertain sample.
template <class T>
struct even_float_bins {
  T lo, hi;
  T scale;         // bins / (hi - lo), rounded to T
  T margin;        // how far the guess may be from the exact position, in bins (1: always settle)
  T upper;         // 1 - margin
  double dlo, width;
  unsigned bins;

  // Edge k, as histogram_edge computes it on the host (no fused multiply-add on either side).
  __host__ __device__ T edge(unsigned k) const {
    if (k == 0) return lo;
    if (k >= bins) return hi;
#ifdef __CUDA_ARCH__
    const double e = __dadd_rn(dlo, __dmul_rn(static_cast<double>(k), width));
#else
    const double offset = static_cast<double>(k) * width;
    const double e = dlo + offset;
#endif
    const T t = static_cast<T>(e);
    return t < hi ? t : hi;
  }

  // floor(q), and whether it is the bin for certain (x in [lo, hi), the fraction clear of the
  // margins). Uncertain covers everything else: outside, +-inf, NaN, close to an edge.
  __host__ __device__ unsigned guess(T x, bool& certain) const {
    const T q = (x - lo) * scale;
    unsigned k;
    T fraction;
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<T, float>) {
      // floor(q) without the conversion unit (a quarter of the arithmetic rate): q + 2^23 rounded
      // toward zero keeps q's integer part in its low mantissa bits, and the fraction is exact.
      // For q >= 2^23 the bits are wrong, but q is then an integer and the fraction 0 or 1:
      // uncertain. So are negative q (x < lo).
      constexpr float shift = 8388608.0f;
      const float t = __fadd_rz(q, shift);
      k = __float_as_uint(t) & 0x7FFFFFu;
      fraction = q - (t - shift);
    } else
#endif
    {
      k = q >= T(0) && q < static_cast<T>(bins) ? static_cast<unsigned>(q) : bins;
      fraction = q - static_cast<T>(k);
    }
    // q >= 0 stands for x >= lo (x < lo gives q < 0, or -0 with fraction 0). x >= hi needs no
    // test of its own: its exact position is at least `bins`, so q is at least bins - margin,
    // which puts k past the bins or the fraction past `upper`. NaN fails every comparison.
    certain = q >= T(0) && k < bins && fraction > margin && fraction < upper;
    return k;
  }

  __host__ __device__ int settle(T x, unsigned k) const {
    if (k > bins - 1) k = bins - 1;
    while (k > 0 && x < edge(k)) --k;
    while (k + 1 < bins && !(x < edge(k + 1))) ++k;
    return static_cast<int>(k);
  }

  __host__ __device__ int operator()(T x) const {
    if (!(x >= lo && x < hi)) return -1;  // outside, +-inf, NaN
    bool certain;
    const unsigned k = guess(x, certain);
    if (certain) return static_cast<int>(k);
    const T q = (x - lo) * scale;  // >= 0 here; the walk starts from its floor
    return settle(x, q < static_cast<T>(bins) ? static_cast<unsigned>(q) : bins - 1);
  }
};

template <class T>
even_float_bins<T> make_even_bins(T lo, T hi, std::size_t bins) {
  even_float_bins<T> b{};
  b.lo = lo;
  b.hi = hi;
  b.bins = static_cast<unsigned>(bins);
  b.dlo = static_cast<double>(lo);
  b.width = (static_cast<double>(hi) - static_cast<double>(lo)) / static_cast<double>(bins);
  const double range = static_cast<double>(hi) - static_cast<double>(lo);
  const double n = static_cast<double>(bins);
  b.scale = static_cast<T>(n / range);
  // Bounds, in bins: the guess rounds 3 times in T (x - lo, the scale, the product) and the
  // scale once in double; an edge rounds 3 times in double, then to T at its own magnitude (at
  // most max(|lo|, |hi|)). Twice their sum, with room to spare.
  const double ut = std::numeric_limits<T>::epsilon() / 2, ud = std::numeric_limits<double>::epsilon() / 2;
  const double largest = std::max(std::abs(static_cast<double>(lo)), std::abs(static_cast<double>(hi)));
  const double guess = n * (4 * ut + 4 * ud) + 2 * n * static_cast<double>(std::numeric_limits<T>::denorm_min()) / range;
  const double edges = n * (4 * ud + (ud + ut) * largest / range);
  const double margin = 2 * (guess + edges);
  b.margin = margin < 0.25 ? static_cast<T>(margin) : T(1);
  b.upper = T(1) - b.margin;
  return b;
}

// Equal bins of integer samples: bin k holds k * range <= (x - lo) * bins < (k + 1) * range,
// exactly (both sides below 2^63: x - lo < 2^32 and bins < 2^31). A guess in double, settled by
// those two products: no 64-bit division per sample.
template <class T>
struct even_integer_bins {
  std::int64_t lo, hi;
  std::uint64_t range;
  double scale;
  unsigned bins;

  __host__ __device__ int operator()(T x) const {
    const auto v = static_cast<std::int64_t>(x);
    if (v < lo || v >= hi) return -1;
    const std::uint64_t scaled = static_cast<std::uint64_t>(v - lo) * bins;
    const double q = static_cast<double>(v - lo) * scale;
    unsigned k = q < static_cast<double>(bins) ? static_cast<unsigned>(q) : bins - 1;
    while (k > 0 && std::uint64_t{k} * range > scaled) --k;
    while (k + 1 < bins && std::uint64_t{k + 1} * range <= scaled) ++k;
    return static_cast<int>(k);
  }
};

template <class T>
even_integer_bins<T> make_even_integer_bins(std::int64_t lo, std::int64_t hi, std::size_t bins) {
  const auto range = static_cast<std::uint64_t>(hi - lo);
  return {lo, hi, range, static_cast<double>(bins) / static_cast<double>(range), static_cast<unsigned>(bins)};
}

// The caller's edges: the last k with edges[k] <= x (a binary search over bins + 1 edges). Edges
// out of order give some bin in [0, bins), never an index outside.
template <class T, class L>
struct edge_bins {
  const L* edges;
  unsigned bins;
  __host__ __device__ int operator()(T x) const {
    const L v = static_cast<L>(x);
    if (!(v >= edges[0] && v < edges[bins])) return -1;
    unsigned low = 0, high = bins;  // edges[low] <= v < edges[high]
    while (high - low > 1) {
      const unsigned mid = low + (high - low) / 2;
      if (edges[mid] <= v) {
        low = mid;
      } else {
        high = mid;
      }
    }
    return static_cast<int>(low);
  }
};

// ---- checks -------------------------------------------------------------------------------------

[[noreturn]] inline void refuse_histogram(const std::string& why) {
  throw std::invalid_argument("prism::histogram: " + why);
}

inline void check_bins(std::size_t bins) {
  if (bins == 0) refuse_histogram("the counts are empty: a histogram needs at least one bin");
  if (bins > histogram_max_bins) {
    refuse_histogram(std::to_string(bins) + " bins are more than the limit of 2^31 - 2 (CUB counts levels in int)");
  }
}

template <class T>
void check_levels(histogram_level_t<T> lo, histogram_level_t<T> hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) refuse_histogram("lo and hi must be finite");
    if (!(lo < hi)) refuse_histogram("lo must be less than hi");
    if (!std::isfinite(hi - lo)) refuse_histogram("hi - lo must be finite in the sample type");
  } else {
    constexpr std::int64_t low = std::numeric_limits<T>::min(), high = std::int64_t{std::numeric_limits<T>::max()} + 1;
    if (!(lo < hi)) refuse_histogram("lo must be less than hi");
    if (lo < low || hi > high) {
      refuse_histogram("lo and hi must lie in [" + std::to_string(low) + ", " + std::to_string(high) +
                       "] for this sample type");
    }
  }
}

// ---- thrust and cpu: sort the bins, count each run ----------------------------------------------

// A sample's key: its bin, or `bins` for a sample not counted (sorted after every bin).
template <class Binner, class T>
struct bin_key {
  Binner binner;
  unsigned bins;
  __host__ __device__ unsigned operator()(T x) const {
    const int b = binner(x);
    return b < 0 ? bins : static_cast<unsigned>(b);
  }
};

// The length of key k's run in the sorted keys.
template <class C>
struct run_length {
  const unsigned* keys;
  std::size_t n;
  __host__ __device__ C operator()(unsigned k) const {
    return static_cast<C>(thrust::upper_bound(thrust::seq, keys, keys + n, k) -
                          thrust::lower_bound(thrust::seq, keys, keys + n, k));
  }
};

// Thrust's sort asks for its temporary storage once, after a size query and before any work.
// The probe records that size and stops the sort there; the lease then holds the keys and the
// sort's storage together, and lease_allocator hands the sort its part.
struct sort_probe_done {};
struct probe_allocator {
  using value_type = char;
  std::size_t* requested;
  char* allocate(std::ptrdiff_t bytes) {
    *requested = static_cast<std::size_t>(bytes);
    throw sort_probe_done{};
  }
  void deallocate(char*, std::size_t) noexcept {}
};
struct lease_allocator {
  using value_type = char;
  char* memory;
  std::size_t bytes;
  char* allocate(std::ptrdiff_t wanted) {
    if (memory == nullptr || static_cast<std::size_t>(wanted) > bytes) {
      throw std::logic_error("prism::histogram: Thrust's sort asked for more temporary storage than it said");
    }
    char* p = memory;
    memory = nullptr;  // one request, as the probe saw
    return p;
  }
  void deallocate(char*, std::size_t) noexcept {}
};

template <class T, class C, class Binner>
void sorted_runs(const execution_policy& policy, impl which, const T* x, std::size_t n, C* counts, std::size_t bins,
                 Binner binner) {
  const bin_key<Binner, T> key{binner, static_cast<unsigned>(bins)};
  const thrust::counting_iterator<unsigned> first_bin(0);
  if (which == impl::cpu) {
    // In parts of at most 2^24 samples, each part's runs added to the counts: the keys and the
    // sort's storage stay at about 2^27 bytes of host memory however many samples there are
    // (uint32 counts wrap the same way added up as counted at once).
    constexpr std::size_t part = std::size_t{1} << 24;
    std::vector<unsigned> keys(std::min(n, part));
    std::vector<C> part_counts(n > part ? bins : 0);
    for (std::size_t start = 0; start < n; start += part) {
      const std::size_t m = std::min(part, n - start);
      thrust::transform(thrust::omp::par, x + start, x + start + m, keys.data(), key);
      thrust::sort(thrust::omp::par, keys.begin(), keys.begin() + m);
      C* into = start == 0 ? counts : part_counts.data();
      thrust::transform(thrust::omp::par, first_bin, first_bin + bins, into, run_length<C>{keys.data(), m});
      if (start > 0) {
        thrust::transform(thrust::omp::par, counts, counts + bins, part_counts.data(), counts, cuda::std::plus<C>());
      }
    }
    return;
  }
  const cudaStream_t stream = policy.stream();
  std::size_t sort_bytes = 0;
  try {
    thrust::sort(thrust::cuda::par_nosync(probe_allocator{&sort_bytes}).on(stream), static_cast<unsigned*>(nullptr),
                 static_cast<unsigned*>(nullptr) + n);
  } catch (const sort_probe_done&) {
  }
  const std::size_t key_bytes = round256(n * sizeof(unsigned));
  const scratch lease = acquire_scratch(key_bytes + sort_bytes, with_explicit_stream(policy), "histogram");
  auto* keys = static_cast<unsigned*>(lease.device());
  const auto on_stream = thrust::cuda::par_nosync.on(stream);
  thrust::transform(on_stream, x, x + n, keys, key);
  thrust::sort(thrust::cuda::par_nosync(lease_allocator{static_cast<char*>(lease.device()) + key_bytes, sort_bytes})
                   .on(stream),
               keys, keys + n);
  thrust::transform(on_stream, first_bin, first_bin + bins, counts, run_length<C>{keys, n});
}

// ---- cub ------------------------------------------------------------------------------------------

// CUB's counter types are the ones atomicAdd takes.
template <class C>
using cub_counter = std::conditional_t<sizeof(C) == 4, unsigned int, unsigned long long>;

template <class C>
__global__ void add_counts_kernel(C* counts, const C* part, std::size_t bins) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < bins;
       i += std::size_t{gridDim.x} * blockDim.x)
    counts[i] += part[i];
}

// call(temp, temp_bytes, first sample, samples (int), counts) over parts of at most 2^30 samples:
// one part goes straight into the counts; more are each counted into scratch and added.
inline constexpr std::size_t cub_part = std::size_t{1} << 30;
// CUB counts up to 2^31 - 1 samples per call (an int): more are counted in parts into scratch, each
// part's counts added to the caller's.
template <class T, class C, class Call>
void cub_histogram(const execution_policy& policy, const T* x, std::size_t n, C* counts, std::size_t bins, Call call) {
  const char* algorithm = "histogram";
  const cudaStream_t stream = policy.stream();
  const bool split = n > cub_part;
  const std::size_t first = std::min(n, cub_part);
  cub_call(
      algorithm, "cub::DeviceHistogram", policy, {first, bins},
      [&](void* temp, std::size_t& bytes, void* extra) -> cudaError_t {
        if (temp == nullptr || !split) return call(temp, bytes, x, static_cast<int>(first), counts);
        auto* part = static_cast<C*>(extra);
        check(cudaMemsetAsync(counts, 0, bins * sizeof(C), stream), "cudaMemsetAsync", algorithm);
        const unsigned grid = static_cast<unsigned>(std::min<std::size_t>((bins + block_size - 1) / block_size, 4096));
        for (std::size_t start = 0; start < n; start += cub_part) {
          const std::size_t m = std::min(cub_part, n - start);
          check(call(temp, bytes, x + start, static_cast<int>(m), part), "cub::DeviceHistogram", algorithm);
          launch(algorithm, "add_counts_kernel", add_counts_kernel<C>, grid, block_size, stream, counts,
                 static_cast<const C*>(part), bins);
        }
        return cudaSuccess;
      },
      split ? bins * sizeof(C) : 0);
}

// ---- raw: sub-histograms in shared memory ------------------------------------------------------

// 16-byte vectors in flight per thread per step.
inline constexpr int histogram_unroll = 4;
// Dynamic shared memory for the sub-histograms: 46 KB, so that with the kernel's static shared
// memory (uint8's 1 KB table) a block stays within the 48 KB that need no opt-in.
inline constexpr std::size_t histogram_shared_bytes = 46 * 1024;
// Sub-histograms per block: one per warp.
inline constexpr unsigned histogram_copies = block_size / 32;

__device__ inline void add_count(std::uint32_t* c, unsigned v) { atomicAdd(reinterpret_cast<unsigned*>(c), v); }
__device__ inline void add_count(std::uint64_t* c, unsigned v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(c), static_cast<unsigned long long>(v));
}

// A sample's bin on a kernel's fast path, and whether it is certain: the float binner's guess;
// uint8 samples from their table; any other binner's answer, always certain.
template <class Binner, class T>
__device__ int quick_bin(const Binner& binner, const int*, T x, bool& certain) {
  certain = true;
  return binner(x);
}
template <class Binner>
__device__ int quick_bin(const Binner&, const int* table, std::uint8_t x, bool& certain) {
  certain = true;
  return table[x];
}
template <class T>
__device__ int quick_bin(const even_float_bins<T>& binner, const int*, T x, bool& certain) {
  return static_cast<int>(binner.guess(x, certain));
}

// `copies` sub-histograms of `bins` counters in dynamic shared memory, warp w adding into copy
// w % copies; copies == 0: the global counts directly. Elements [0, head) are read one at a time
// (before the first 16-byte boundary), then whole vectors, then the tail of fewer than V.
template <class T, class Binner, class C>
__global__ void __launch_bounds__(block_size)
    sub_histogram_kernel(const T* x, std::size_t n, std::size_t head, Binner binner, unsigned bins, unsigned copies,
                         C* counts) {
  constexpr int V = 16 / sizeof(T), U = histogram_unroll;
  extern __shared__ unsigned sub[];
  __shared__ int table[sizeof(T) == 1 ? 256 : 1];  // uint8: every byte's bin, computed once
  if constexpr (sizeof(T) == 1) {
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) table[i] = binner(static_cast<T>(i));
  }
  for (unsigned i = threadIdx.x; i < copies * bins; i += blockDim.x) sub[i] = 0;
  __syncthreads();

  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned* mine = copies > 0 ? sub + (warp % copies) * bins : nullptr;
  const auto add = [&](int b, unsigned c) {
    if (copies > 0) {
      atomicAdd(mine + b, c);
    } else {
      add_count(counts + b, c);
    }
  };
  // One vector: every sample's bin guessed (no branch per sample), the rare vector with an
  // uncertain sample settled by the full rule. One atomic increment per sample: the compiler
  // makes atomicAdd(p, 1) a warp-aggregated increment (ATOMS.POPC.INC: the lanes on one address
  // add their number in one step), so a skewed input costs no more than a uniform one, where
  // adding a vector's 4 at once to one address (ATOMS.ADD) serializes the lanes.
  const auto count_vector = [&](const vector_of<T, V>& v) {
    int b[V];
    bool certain = true;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      bool c;
      b[k] = quick_bin(binner, table, v.element[k], c);
      certain &= c;
    }
    if (!certain) {
#pragma unroll
      for (int k = 0; k < V; ++k) b[k] = binner(v.element[k]);
    }
    bool counted = true;  // no sample outside the bins (the usual case: no test per atomic)
#pragma unroll
    for (int k = 0; k < V; ++k) counted &= b[k] >= 0;
    if (counted) {
#pragma unroll
      for (int k = 0; k < V; ++k) add(b[k], 1);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (b[k] >= 0) add(b[k], 1);
    }
  };

  // Whole vectors: each warp takes 32 * U consecutive vectors per step, lane l the vectors
  // l, l + 32, ... of them (coalesced). Full steps need no bounds checks; a warp's last step
  // may be partial.
  const T* body = x + head;
  const std::size_t vectors = (n - head) / V;
  const std::size_t warps = std::size_t{gridDim.x} * (blockDim.x / 32);
  std::size_t base = (std::size_t{blockIdx.x} * (blockDim.x / 32) + warp) * 32 * U;
  for (; base + 32 * U <= vectors; base += warps * 32 * U) {
    const T* p = body + (base + lane) * V;
    vector_of<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = load_vector<V>(p + u * 32 * V);
#pragma unroll
    for (int u = 0; u < U; ++u) count_vector(v[u]);
  }
  if (base < vectors) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t i = base + u * 32 + lane;
      if (i < vectors) count_vector(load_vector<V>(body + i * V));
    }
  }
  // The head and the tail: fewer than 2V elements, one per thread of the grid.
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const std::size_t tail = head + vectors * V;
  if (t < head) {
    const int b = binner(x[t]);
    if (b >= 0) add(b, 1);
  }
  if (t < n - tail) {
    const int b = binner(x[tail + t]);
    if (b >= 0) add(b, 1);
  }
  if (copies == 0) return;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < bins; i += blockDim.x) {
    unsigned total = 0;
    for (unsigned c = 0; c < copies; ++c) total += sub[c * bins + i];
    if (total > 0) add_count(counts + i, total);
  }
}

// Sub-histograms per block for `bins`: one per warp where they fit (up to 1472 bins), fewer where
// they do not, 0 (global atomics) past 46 KB for one (11776 bins).
inline unsigned sub_histogram_copies(std::size_t bins) {
  unsigned copies = histogram_copies;
  while (copies > 0 && bins * copies * sizeof(unsigned) > histogram_shared_bytes) copies /= 2;
  return copies;
}

template <class T, class C, class Binner>
void raw_histogram(const execution_policy& policy, const T* x, std::size_t n, C* counts, std::size_t bins,
                   Binner binner) {
  const char* algorithm = "histogram";
  const cudaStream_t stream = policy.stream();
  check(cudaMemsetAsync(counts, 0, bins * sizeof(C), stream), "cudaMemsetAsync", algorithm);
  if (n == 0) return;
  constexpr int V = 16 / sizeof(T);
  const unsigned copies = sub_histogram_copies(bins);
  const std::size_t shared = std::size_t{copies} * bins * sizeof(unsigned);
  const auto kernel = sub_histogram_kernel<T, Binner, C>;
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor", algorithm);
  const std::size_t head = std::min<std::size_t>(vector_aligned_head<V>(n, x), n);
  const std::size_t vectors = (n - head) / V;
  const std::size_t per_block = std::size_t{block_size} * histogram_unroll;  // vectors per block per step
  std::size_t grid = std::min<std::size_t>(std::size_t(std::max(per_sm, 1)) * multiprocessor_count(),
                                           (vectors + per_block - 1) / per_block);
  // A block's shared counters are 32-bit: at most 2^31 samples per block.
  grid = std::max({grid, std::size_t{1}, (n >> 31) + 1});
  launch_shared(algorithm, "sub_histogram_kernel", kernel, static_cast<unsigned>(grid), block_size, shared, stream, x, n,
                head, binner, static_cast<unsigned>(bins), copies, counts);
}

// ---- the family's two operations ----------------------------------------------------------------

// The implementations side by side, with `binner`; `cub` is the CUB call for the cub one, and
// `check_host` checks what only host memory lets the cpu check before it writes (edges' order).
// A histogram runs over its bins: with no samples every count is written 0.
template <class T, class C, class Binner, class CubCall, class CheckHost = nothing_after>
void run_histogram(const execution_policy& policy, span<const T> samples, span<C> counts, Binner binner,
                   CubCall cub, const array_ref* edges = nullptr, CheckHost check_host = {}) {
  const char* algorithm = "histogram";
  const std::size_t n = samples.size(), bins = counts.size();
  const T* x = samples.data();
  C* out = counts.data();
  const cudaStream_t stream = policy.stream();
  const auto zero = [&] { check(cudaMemsetAsync(out, 0, bins * sizeof(C), stream), "cudaMemsetAsync", algorithm); };
  // The counts overlap nothing, not even exactly: a histogram never runs in place.
  const array_ref s = array_ref::input(samples, "the samples"), c = array_ref::output_apart(counts, "the counts");
  const family& offered = edges != nullptr || bins > histogram_measured_bins ? histogram_family
                          : std::is_same_v<T, float>                         ? histogram_float_family
                          : std::is_same_v<T, std::uint8_t>                  ? histogram_uint8_family
                                                                             : histogram_family;
  const implementations histogram{
      .cpu =
          [&](const auto&) {
            check_host(nullptr);
            if (n == 0) return std::fill(out, out + bins, C(0));
            sorted_runs(policy, impl::cpu, x, n, out, bins, binner);
          },
      .thrust = [&](const auto&) { n == 0 ? zero() : sorted_runs(policy, impl::thrust, x, n, out, bins, binner); },
      .raw = [&] { raw_histogram(policy, x, n, out, bins, binner); },
      .cub = [&] { n == 0 ? zero() : cub_histogram(policy, x, n, out, bins, cub); },
  };
  if (edges != nullptr) {
    dispatch({algorithm, offered, policy, {s, *edges, c}, bins, samples.size_bytes()}, histogram);
  } else {
    dispatch({algorithm, offered, policy, {s, c}, bins, samples.size_bytes()}, histogram);
  }
}

// The family's entry points, declared in <prism/histogram.hpp> and instantiated for each sample
// type in its own file (uint8.cu, int32.cu, float.cu, double.cu), so that they build in parallel.
template <class T, class C>
void histogram_even(const execution_policy& policy, span<const T> samples, span<C> counts, histogram_level_t<T> lo,
                    histogram_level_t<T> hi) {
  const std::size_t bins = counts.size();
  check_bins(bins);
  check_levels<T>(lo, hi);
  const cudaStream_t stream = policy.stream();
  using CC = cub_counter<C>;
  if constexpr (std::is_floating_point_v<T>) {
    const even_float_bins<T> binner = make_even_bins<T>(lo, hi, bins);
    // CUB counts the binner's bin numbers with levels 0, 1, ..., bins: bin b is b (its integer
    // rule is exact), and -1 is below level 0, not counted.
    run_histogram(policy, samples, counts, binner,
                  [&](void* temp, std::size_t& bytes, const T* x, int m, C* out) {
                    const thrust::transform_iterator<even_float_bins<T>, const T*, int, int> bins_of(x, binner);
                    return cub::DeviceHistogram::HistogramEven(temp, bytes, bins_of, reinterpret_cast<CC*>(out),
                                                               static_cast<int>(bins + 1), 0, static_cast<int>(bins),
                                                               m, stream);
                  });
  } else {
    const even_integer_bins<T> binner = make_even_integer_bins<T>(lo, hi, bins);
    run_histogram(policy, samples, counts, binner,
                  [&](void* temp, std::size_t& bytes, const T* x, int m, C* out) {
                    return cub::DeviceHistogram::HistogramEven(temp, bytes, x, reinterpret_cast<CC*>(out),
                                                               static_cast<int>(bins + 1), static_cast<long long>(lo),
                                                               static_cast<long long>(hi), m, stream);
                  });
  }
}

template <class T, class C>
void histogram_range(const execution_policy& policy, span<const T> samples, span<const histogram_level_t<T>> edges,
                     span<C> counts) {
  using L = histogram_level_t<T>;
  if (edges.size() < 2) refuse_histogram("the edges need at least two elements (one bin)");
  check_bins(edges.size() - 1);
  require_size(edges.size() - 1, counts.size(), "histogram", "the counts");
  const array_ref e = array_ref::input(edges, "the edges");
  const std::size_t bins = counts.size();
  const cudaStream_t stream = policy.stream();
  using CC = cub_counter<C>;
  using CubLevel = std::conditional_t<std::is_integral_v<L>, long long, L>;
  const edge_bins<T, L> binner{edges.data(), static_cast<unsigned>(bins)};
  run_histogram(
      policy, samples, counts, binner,
      [&](void* temp, std::size_t& bytes, const T* x, int m, C* out) {
        return cub::DeviceHistogram::HistogramRange(temp, bytes, x, reinterpret_cast<CC*>(out),
                                                    static_cast<int>(bins + 1),
                                                    reinterpret_cast<const CubLevel*>(edges.data()), m, stream);
      },
      &e,
      // Host edges can be checked without waiting for anything.
      [&](void*) {
        for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
          if (!(edges.data()[k] < edges.data()[k + 1])) {
            refuse_histogram("the edges must be strictly increasing (and not NaN): edges[" + std::to_string(k) +
                             "] is not less than edges[" + std::to_string(k + 1) + "]");
          }
        }
      });
}

}  // namespace prism::detail
