// SPDX-License-Identifier: Apache-2.0
#pragma once
// The histogram family's implementations side by side: the standard histograms of
// <prism/histogram.hpp> (compiled into the library: algorithms/histogram/), and a histogram by
// the caller's own binner, for samples of any type, from CUDA code:
//
//   struct by_cell {  // the cell a particle is in; one outside [0, counts.size()) is not counted
//     __host__ __device__ int operator()(const particle& p) const { return p.cell; }
//   };
//   prism::histogram(policy, particles, counts, by_cell{});  // counts[k]: the particles in cell k
//
// The binner's semantics are those of the standard histograms: counts[k] is overwritten with the
// number of samples whose bin is k; a bin outside [0, counts.size()) is not counted; at least one
// bin and at most 2^31 - 2; the counts overlap nothing; uint32 counts wrap past 2^32 - 1 samples
// in a bin. The binner is trivially copyable and __host__ __device__ (a __device__-only lambda is
// refused on the cpu), and returns an integer; samples are trivially copyable.
//
// Every implementation asks one binner (<prism/histogram_bins.cuh>) which bin a sample falls
// into, so all of them count by the same rule, bit for bit.
// The implementations (figures: docs/benchmarks/histogram.md):
//   cpu     the Thrust way, through Thrust's OpenMP system on host memory: each sample's bin as a
//           key, the keys sorted, then each bin's count as the length of its run of keys (two
//           binary searches per bin), in parts of 2^24 samples (bounded host memory). n log n
//           work where a histogram needs n: the lesson of why histograms are not sorts.
//   thrust  the same three Thrust algorithms on the GPU (par_nosync on the caller's stream); the
//           keys and the sort's temporary storage share one lease of prism's scratch: 8 bytes
//           per sample besides the samples, and the sort moves them about 8 times.
//   cub     cub::DeviceHistogram. Integer samples (CUB's rule is exact for them) and the edges
//           form go to HistogramEven / HistogramRange directly; float and double samples, and the
//           caller's binner, go to HistogramEven as bin numbers computed by the binner (levels 0,
//           1, ..., bins; CUB's own float rule rounds twice: see <prism/histogram.hpp>). CUB 3.0.1
//           counts tiles in int: past 2^30 samples the call is split, each part counted into
//           scratch and added to the counts.
//   raw     one kernel, one pass: 16-byte sample loads (4 per thread in flight; samples of other
//           sizes one at a time), a private sub-histogram per warp in shared memory (8 per block:
//           a skewed input's colliding atomics spread over 8 copies), each vector's bins guessed
//           without a branch and settled only where a sample is near an edge (see
//           even_float_bins), one warp-aggregated increment per sample (equal bins across the
//           lanes of a warp combine in hardware, so all samples in one bin run as fast as uniform
//           ones), the copies summed and added to the global counts at the end (one atomic per
//           bin per block). uint8 samples are counted by their values, 256 counters a copy
//           whatever the bins, each value's count added to its bin (from a 256-entry table) at
//           the end. Bins that do not fit 46 KB of shared memory are counted with global atomics
//           directly. The counts are zeroed first (cudaMemsetAsync on the stream).
//
// Thrust's sort (cpu and thrust) dispatches on 32- and 64-bit offsets unless
// THRUST_FORCE_64_BIT_OFFSET_TYPE is defined before the first Thrust header, as the library's
// instantiations do: 64-bit offsets work for every size and halve what is compiled.
#include <prism/dispatch.cuh>
#include <prism/histogram.hpp>
#include <prism/histogram_bins.cuh>
#include <prism/primitives/block_reduce.cuh>
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

namespace prism {

namespace detail {

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
  __host__ __device__ unsigned operator()(const T& x) const {
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

// cpu: in parts of at most 2^24 samples, each part's runs added to the counts, so that the keys
// and the sort's storage stay at about 2^27 bytes of host memory however many samples there are
// (uint32 counts wrap the same way added up as counted at once).
template <class T, class C, class Binner>
void sorted_runs_on_host(const T* x, std::size_t n, C* counts, std::size_t bins, Binner binner) {
  const bin_key<Binner, T> key{binner, static_cast<unsigned>(bins)};
  const thrust::counting_iterator<unsigned> first_bin(0);
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
}

// thrust: the keys and the sort's storage in one lease of scratch.
template <class T, class C, class Binner>
void sorted_runs_on_gpu(const execution_policy& policy, const T* x, std::size_t n, C* counts, std::size_t bins,
                        Binner binner) {
  const bin_key<Binner, T> key{binner, static_cast<unsigned>(bins)};
  const thrust::counting_iterator<unsigned> first_bin(0);
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

// CUB 3.5 counts every 1-byte sample type in 256 private bins, a sample's bin its value as an int,
// then maps those bins onto the levels: a negative int8 sample has no private bin and is not
// counted. Signed bytes go to CUB widened to int16, CUB's general path
// (HistogramTypes.IntegerSamples/cub).
template <class T>
struct widen_byte {
  __host__ __device__ std::int16_t operator()(T v) const { return static_cast<std::int16_t>(v); }
};
template <class T>
auto cub_samples(const T* x) {
  if constexpr (sizeof(T) == 1 && std::is_signed_v<T>) {
    return thrust::transform_iterator<widen_byte<T>, const T*, std::int16_t, std::int16_t>(x, widen_byte<T>{});
  } else {
    return x;
  }
}

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

// Samples per vector: a 16-byte access of samples of 1, 2, 4 or 8 bytes; any other sample (a
// caller's type) one at a time.
template <class T>
inline constexpr int histogram_width = sizeof(T) < 16 && 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 1;

// V samples at p: one 16-byte load, or V single ones.
template <int V, class T>
__device__ void load_samples(const T* p, T (&out)[V]) {
  if constexpr (V > 1) {
    const vector_of<T, V> v = load_vector<V>(p);
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = v.element[k];
  } else {
    out[0] = *p;
  }
}

// `copies` sub-histograms of `bins` counters in dynamic shared memory, warp w adding into copy
// w % copies; copies == 0: the global counts directly. Elements [0, head) are read one at a time
// (before the first 16-byte boundary; all of them where there is none), then whole vectors, then
// the tail of fewer than V. ByValue (uint8 samples, raw_histogram's way for them): the
// sub-histograms count the 256 byte values themselves, as CUB counts 1-byte samples, and each
// value's count goes to its bin once per block at the end: no table lookup per sample (1.10x CUB
// where the bins' table made it 0.59x: rows histogram_uniform/uint8, raw against raw_by_bin, of
// docs/benchmarks/histogram.md, "Bytes counted by value").
template <class T, class Binner, class C, bool ByValue = false>
__global__ void __launch_bounds__(block_size)
    sub_histogram_kernel(const T* x, std::size_t n, std::size_t head, Binner binner, unsigned bins, unsigned copies,
                         C* counts) {
  constexpr int V = histogram_width<T>, U = histogram_unroll;
  constexpr bool bytes = std::is_same_v<T, std::uint8_t>;
  static_assert(!ByValue || bytes, "samples are counted by value where they are bytes");
  const unsigned counters = ByValue ? 256 : bins;  // per sub-histogram
  extern __shared__ unsigned sub[];
  __shared__ int table[bytes ? 256 : 1];  // uint8: every byte's bin, computed once
  if constexpr (bytes) {
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) table[i] = binner(static_cast<T>(i));
  }
  for (unsigned i = threadIdx.x; i < copies * counters; i += blockDim.x) sub[i] = 0;
  __syncthreads();

  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned* mine = copies > 0 ? sub + (warp % copies) * counters : nullptr;
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
  const auto count_vector = [&](const T (&v)[V]) {
    if constexpr (ByValue) {
#pragma unroll
      for (int k = 0; k < V; ++k) atomicAdd(mine + v[k], 1u);
      return;
    }
    int b[V];
    bool certain = true;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      bool c;
      b[k] = quick_bin(binner, table, v[k], c);
      certain &= c;
    }
    if (!certain) {
#pragma unroll
      for (int k = 0; k < V; ++k) b[k] = binner(v[k]);
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
    T v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) load_samples<V>(p + u * 32 * V, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) count_vector(v[u]);
  }
  if (base < vectors) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t i = base + u * 32 + lane;
      if (i < vectors) {
        T v[V];
        load_samples<V>(body + i * V, v);
        count_vector(v);
      }
    }
  }
  // The head and the tail, one sample per thread of the grid at a time: fewer than 2V samples,
  // unless no vector is aligned (then the head is every sample).
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t tail = head + vectors * V;
  for (std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; t < head + (n - tail); t += stride) {
    const T sample = x[t < head ? t : tail + (t - head)];
    if constexpr (ByValue) {
      atomicAdd(mine + sample, 1u);
    } else {
      const int b = binner(sample);
      if (b >= 0) add(b, 1);
    }
  }
  if (copies == 0) return;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < counters; i += blockDim.x) {
    unsigned total = 0;
    for (unsigned c = 0; c < copies; ++c) total += sub[c * counters + i];
    if constexpr (ByValue) {
      const int b = table[i];  // values outside the bins have none
      if (total > 0 && b >= 0) add_count(counts + b, total);
    } else {
      if (total > 0) add_count(counts + i, total);
    }
  }
}

// Sub-histograms per block for `bins`: one per warp where they fit (up to 1472 bins), fewer where
// they do not, 0 (global atomics) past 46 KB for one (11776 bins).
inline unsigned sub_histogram_copies(std::size_t bins) {
  unsigned copies = histogram_copies;
  while (copies > 0 && bins * copies * sizeof(unsigned) > histogram_shared_bytes) copies /= 2;
  return copies;
}

template <bool ByValue, class T, class C, class Binner>
void launch_sub_histograms(const execution_policy& policy, const T* x, std::size_t n, C* counts, std::size_t bins,
                           Binner binner) {
  const char* algorithm = "histogram";
  const cudaStream_t stream = policy.stream();
  check(cudaMemsetAsync(counts, 0, bins * sizeof(C), stream), "cudaMemsetAsync", algorithm);
  if (n == 0) return;
  constexpr int V = histogram_width<T>;
  const std::size_t counters = ByValue ? 256 : bins;
  const unsigned copies = sub_histogram_copies(counters);
  const std::size_t shared = std::size_t{copies} * counters * sizeof(unsigned);
  const auto kernel = sub_histogram_kernel<T, Binner, C, ByValue>;
  // A caller's type of 8 bytes or less, aligned to less than its size, may start no vector: then
  // every sample is read alone.
  std::size_t head = 0;
  if constexpr (V > 1) {
    head = std::min<std::size_t>(vector_aligned_head<V>(n, x), n);
    if (head == V) head = n;
  }
  const std::size_t vectors = (n - head) / V;
  const std::size_t per_block = std::size_t{block_size} * histogram_unroll;  // vectors per block per step
  const std::size_t units = vectors > 0 ? vectors : n;
  std::size_t grid =
      std::min(resident_blocks(algorithm, kernel, block_size, shared), (units + per_block - 1) / per_block);
  // A block's shared counters are 32-bit: at most 2^31 samples per block.
  grid = std::max({grid, std::size_t{1}, (n >> 31) + 1});
  launch_shared(algorithm, "sub_histogram_kernel", kernel, static_cast<unsigned>(grid), block_size, shared, stream, x, n,
                head, binner, static_cast<unsigned>(bins), copies, counts);
}

// Bytes counted by their values (ByValue above); launch_sub_histograms<false> counts them into
// their bins as other samples are (bench_histogram's raw_by_bin rows).
template <class T, class C, class Binner>
void raw_histogram(const execution_policy& policy, const T* x, std::size_t n, C* counts, std::size_t bins,
                   Binner binner) {
  launch_sub_histograms<std::is_same_v<T, std::uint8_t>>(policy, x, n, counts, bins, binner);
}

// ---- the family's two operations ----------------------------------------------------------------

// The implementations side by side, with `binner`; `cub` is the CUB call for the cub one, and
// `check_host` checks what only host memory lets the cpu check before it writes (edges' order).
// A histogram runs over its bins: with no samples every count is written 0. F... are the caller's
// functors (a __device__-only one refuses cpu).
template <class... F, class T, class C, class Binner, class CubCall, class CheckHost = nothing_after>
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
            sorted_runs_on_host(x, n, out, bins, binner);
          },
      .thrust = [&](const auto&) { n == 0 ? zero() : sorted_runs_on_gpu(policy, x, n, out, bins, binner); },
      .raw = [&] { raw_histogram(policy, x, n, out, bins, binner); },
      .cub = [&] { n == 0 ? zero() : cub_histogram(policy, x, n, out, bins, cub); },
  };
  if (edges != nullptr) {
    dispatch<F...>({algorithm, offered, policy, {s, *edges, c}, bins, samples.size_bytes()}, histogram);
  } else {
    dispatch<F...>({algorithm, offered, policy, {s, c}, bins, samples.size_bytes()}, histogram);
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
                    return cub::DeviceHistogram::HistogramEven(temp, bytes, cub_samples(x), reinterpret_cast<CC*>(out),
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
        return cub::DeviceHistogram::HistogramRange(temp, bytes, cub_samples(x), reinterpret_cast<CC*>(out),
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

// The standard samples are compiled into the library (algorithms/histogram/*.cu): a translation
// unit that includes this header links to those rather than compiling them again.
extern template void histogram_even<std::uint8_t, std::uint32_t>(const execution_policy&, span<const std::uint8_t>, span<std::uint32_t>, histogram_level_t<std::uint8_t>, histogram_level_t<std::uint8_t>);
extern template void histogram_range<std::uint8_t, std::uint32_t>(const execution_policy&, span<const std::uint8_t>, span<const histogram_level_t<std::uint8_t>>, span<std::uint32_t>);
extern template void histogram_even<std::uint8_t, std::uint64_t>(const execution_policy&, span<const std::uint8_t>, span<std::uint64_t>, histogram_level_t<std::uint8_t>, histogram_level_t<std::uint8_t>);
extern template void histogram_range<std::uint8_t, std::uint64_t>(const execution_policy&, span<const std::uint8_t>, span<const histogram_level_t<std::uint8_t>>, span<std::uint64_t>);
extern template void histogram_even<std::int32_t, std::uint32_t>(const execution_policy&, span<const std::int32_t>, span<std::uint32_t>, histogram_level_t<std::int32_t>, histogram_level_t<std::int32_t>);
extern template void histogram_range<std::int32_t, std::uint32_t>(const execution_policy&, span<const std::int32_t>, span<const histogram_level_t<std::int32_t>>, span<std::uint32_t>);
extern template void histogram_even<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<std::uint64_t>, histogram_level_t<std::int32_t>, histogram_level_t<std::int32_t>);
extern template void histogram_range<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<const histogram_level_t<std::int32_t>>, span<std::uint64_t>);
extern template void histogram_even<float, std::uint32_t>(const execution_policy&, span<const float>, span<std::uint32_t>, histogram_level_t<float>, histogram_level_t<float>);
extern template void histogram_range<float, std::uint32_t>(const execution_policy&, span<const float>, span<const histogram_level_t<float>>, span<std::uint32_t>);
extern template void histogram_even<float, std::uint64_t>(const execution_policy&, span<const float>, span<std::uint64_t>, histogram_level_t<float>, histogram_level_t<float>);
extern template void histogram_range<float, std::uint64_t>(const execution_policy&, span<const float>, span<const histogram_level_t<float>>, span<std::uint64_t>);
extern template void histogram_even<double, std::uint32_t>(const execution_policy&, span<const double>, span<std::uint32_t>, histogram_level_t<double>, histogram_level_t<double>);
extern template void histogram_range<double, std::uint32_t>(const execution_policy&, span<const double>, span<const histogram_level_t<double>>, span<std::uint32_t>);
extern template void histogram_even<double, std::uint64_t>(const execution_policy&, span<const double>, span<std::uint64_t>, histogram_level_t<double>, histogram_level_t<double>);
extern template void histogram_range<double, std::uint64_t>(const execution_policy&, span<const double>, span<const histogram_level_t<double>>, span<std::uint64_t>);
extern template void histogram_even<std::int8_t, std::uint32_t>(const execution_policy&, span<const std::int8_t>, span<std::uint32_t>, histogram_level_t<std::int8_t>, histogram_level_t<std::int8_t>);
extern template void histogram_range<std::int8_t, std::uint32_t>(const execution_policy&, span<const std::int8_t>, span<const histogram_level_t<std::int8_t>>, span<std::uint32_t>);
extern template void histogram_even<std::int8_t, std::uint64_t>(const execution_policy&, span<const std::int8_t>, span<std::uint64_t>, histogram_level_t<std::int8_t>, histogram_level_t<std::int8_t>);
extern template void histogram_range<std::int8_t, std::uint64_t>(const execution_policy&, span<const std::int8_t>, span<const histogram_level_t<std::int8_t>>, span<std::uint64_t>);
extern template void histogram_even<std::int16_t, std::uint32_t>(const execution_policy&, span<const std::int16_t>, span<std::uint32_t>, histogram_level_t<std::int16_t>, histogram_level_t<std::int16_t>);
extern template void histogram_range<std::int16_t, std::uint32_t>(const execution_policy&, span<const std::int16_t>, span<const histogram_level_t<std::int16_t>>, span<std::uint32_t>);
extern template void histogram_even<std::int16_t, std::uint64_t>(const execution_policy&, span<const std::int16_t>, span<std::uint64_t>, histogram_level_t<std::int16_t>, histogram_level_t<std::int16_t>);
extern template void histogram_range<std::int16_t, std::uint64_t>(const execution_policy&, span<const std::int16_t>, span<const histogram_level_t<std::int16_t>>, span<std::uint64_t>);
extern template void histogram_even<std::uint16_t, std::uint32_t>(const execution_policy&, span<const std::uint16_t>, span<std::uint32_t>, histogram_level_t<std::uint16_t>, histogram_level_t<std::uint16_t>);
extern template void histogram_range<std::uint16_t, std::uint32_t>(const execution_policy&, span<const std::uint16_t>, span<const histogram_level_t<std::uint16_t>>, span<std::uint32_t>);
extern template void histogram_even<std::uint16_t, std::uint64_t>(const execution_policy&, span<const std::uint16_t>, span<std::uint64_t>, histogram_level_t<std::uint16_t>, histogram_level_t<std::uint16_t>);
extern template void histogram_range<std::uint16_t, std::uint64_t>(const execution_policy&, span<const std::uint16_t>, span<const histogram_level_t<std::uint16_t>>, span<std::uint64_t>);
extern template void histogram_even<std::uint32_t, std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>, histogram_level_t<std::uint32_t>, histogram_level_t<std::uint32_t>);
extern template void histogram_range<std::uint32_t, std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<const histogram_level_t<std::uint32_t>>, span<std::uint32_t>);
extern template void histogram_even<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint64_t>, histogram_level_t<std::uint32_t>, histogram_level_t<std::uint32_t>);
extern template void histogram_range<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<const histogram_level_t<std::uint32_t>>, span<std::uint64_t>);

// The caller's binner: counts.size() bins. CUB counts the bin numbers with levels 0, 1, ..., bins
// (bin b is b; -1 is below level 0, not counted), as for float samples.
template <class T, class C, class Binner>
void histogram_binned(const execution_policy& policy, span<const T> samples, span<C> counts, Binner bin) {
  static_assert(std::is_trivially_copyable_v<T>, "prism::histogram reads samples as bytes: T must be trivially copyable");
  const std::size_t bins = counts.size();
  check_bins(bins);
  const cudaStream_t stream = policy.stream();
  using CC = cub_counter<C>;
  const caller_bins<T, Binner> binner{bin, static_cast<unsigned>(bins)};
  run_histogram<Binner>(policy, samples, counts, binner, [&](void* temp, std::size_t& bytes, const T* x, int m, C* out) {
    const thrust::transform_iterator<caller_bins<T, Binner>, const T*, int, int> bins_of(x, binner);
    return cub::DeviceHistogram::HistogramEven(temp, bytes, bins_of, reinterpret_cast<CC*>(out),
                                               static_cast<int>(bins + 1), 0, static_cast<int>(bins), m, stream);
  });
}

// A binner: not an array, nor a level (lo, hi), nor a policy.
template <class B>
concept histogram_binner = !array_like<std::remove_reference_t<B>> && !std::is_arithmetic_v<std::remove_cvref_t<B>> &&
                           !std::is_convertible_v<B, execution_policy>;

}  // namespace detail

namespace ops {


// counts[k] = the number of samples s with bin(s) == k, for k in [0, counts.size()); a sample whose
// bin is outside (negative, or counts.size() or more) is not counted.
template <class X, class N, class Binner>
  requires array_like<std::remove_reference_t<X>> && histogram_counts<N> && detail::histogram_binner<Binner>
void run(histogram, const execution_policy& policy, X&& samples, N&& counts, Binner bin) {
  detail::histogram_binned<value_t<X>, value_t<N>>(policy, input_span(samples), output_span(counts), bin);
}
}  // namespace ops



}  // namespace prism
