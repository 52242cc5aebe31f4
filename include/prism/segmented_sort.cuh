// SPDX-License-Identifier: Apache-2.0
#pragma once
// The segmented sorts' implementations, side by side (<prism/segmented_sort.hpp> has the contract
// and what each implementation does; figures: docs/benchmarks/segmented_sort.md). The standard keys
// are compiled into the library from here (algorithms/sort/segmented_*.cu), the keys as their bits:
// every implementation sorts the keys' ordered bits, so one instantiation serves each key size.
//
// Every order here is the sort family's one order: cpu, thrust and raw compare the keys' ordered
// bits (radix::order_masks of <prism/primitives/radix_order.cuh>, the radix sorts' transform); CUB
// sorts those bits themselves (below, "cub", says why).
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/scratch.hpp>
#include <prism/segmented_sort.hpp>
#include <prism/segments.cuh>
#include <prism/sort.cuh>
#include <prism/span.hpp>

#include <cub/device/device_segmented_sort.cuh>
#include <cuda/iterator>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism::detail {

namespace segmented_sorting {

// The segments: <prism/segments.cuh>'s segment_bounds, clamped into the keys.
using bounds = segment_bounds;

// Keys alone: the values' place holds this.
struct no_values {};
template <class V>
inline constexpr bool carries_values = !std::is_same_v<V, no_values>;

// ---- thrust and cpu: two stable sorts, then a gather ------------------------------------------------

struct part_of {
  bounds seg;
  __host__ __device__ std::int64_t operator()(std::int64_t p) const { return seg.part(p); }
};

template <class B, class V>
struct gather_sorted {
  bounds seg;
  const std::int64_t* positions;
  const B* keys_in;
  B* keys_out;
  const V* values_in;
  V* values_out;
  __host__ __device__ void operator()(std::int64_t i) const {
    if (!seg.covers(i)) return;
    const std::int64_t p = positions[i];
    keys_out[i] = keys_in[p];
    if constexpr (carries_values<V>) values_out[i] = values_in[p];
  }
};

// Host memory for the cpu, scratch of its own on the GPU (Thrust's allocator holds the stream's).
template <class Policy>
class work_memory {
 public:
  static constexpr bool on_host = std::is_same_v<Policy, std::decay_t<decltype(thrust::omp::par)>>;
  work_memory(std::size_t bytes, const execution_policy& policy, const char* algorithm) {
    if constexpr (on_host) {
      host_ = std::make_unique<std::max_align_t[]>(bytes / sizeof(std::max_align_t) + 1);
      data_ = reinterpret_cast<unsigned char*>(host_.get());
    } else {
      device_.emplace(acquire_separate_scratch(bytes, with_explicit_stream(policy), algorithm));
      data_ = static_cast<unsigned char*>(device_->device());
    }
  }
  unsigned char* data() const { return data_; }

 private:
  std::unique_ptr<std::max_align_t[]> host_;
  std::optional<scratch> device_;
  unsigned char* data_ = nullptr;
};

// The positions sorted by their keys' ordered bits (a radix sort on the GPU, a merge sort on the
// host), then stably by the part of the array they are in: each segment's positions, in key
// order, where its keys go. Keys and values are then gathered through them (from a copy when
// sorting in place, so that no gather reads what another writes).
template <class Policy, class B, class V>
void two_pass_sort(const Policy& p, const char* algorithm, const execution_policy& policy, const bounds& seg,
                   radix::order_masks<B> order, const B* kin, B* kout, const V* vin, V* vout, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(seg.n);
  const bool keys_copied = kin == kout;
  const bool values_copied = carries_values<V> && static_cast<const void*>(vin) == static_cast<void*>(vout);
  const std::size_t key_bytes = round256(n * sizeof(B)), word_bytes = round256(n * sizeof(std::int64_t));
  std::size_t value_bytes = 0;
  if constexpr (carries_values<V>) value_bytes = round256(n * sizeof(V));
  const work_memory<Policy> memory(key_bytes * (1 + keys_copied) + 2 * word_bytes + value_bytes * values_copied,
                                   policy, algorithm);
  unsigned char* at = memory.data();
  B* ordered = reinterpret_cast<B*>(at);
  auto* positions = reinterpret_cast<std::int64_t*>(at + key_bytes);
  auto* parts = reinterpret_cast<std::int64_t*>(at + key_bytes + word_bytes);
  at += key_bytes + 2 * word_bytes;
  if (keys_copied) {
    B* copy = reinterpret_cast<B*>(at);
    copy_unless_same(p, kin, copy, n, stream, algorithm);
    kin = copy;
    at += key_bytes;
  }
  if constexpr (carries_values<V>) {
    if (values_copied) {
      V* copy = reinterpret_cast<V*>(at);
      copy_unless_same(p, vin, copy, n, stream, algorithm);
      vin = copy;
    }
  }
  thrust::transform(p, kin, kin + n, ordered, order);
  thrust::sequence(p, positions, positions + n);
  thrust::stable_sort_by_key(p, ordered, ordered + n, positions);
  thrust::transform(p, positions, positions + n, parts, part_of{seg});
  thrust::stable_sort_by_key(p, parts, parts + n, positions);
  thrust::for_each(p, thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(seg.n),
                   gather_sorted<B, V>{seg, positions, kin, kout, vin, vout});
}

// ---- raw: one block per segment -------------------------------------------------------------------

// A key with its value side by side, as the block sort and the merges move them. Where the two
// differ in size the bytes that pad the pair are a member, zeroed: every byte of an element is
// written, and a copy of it whole (CUB moves the elements it carries by words) reads none that
// never was (compute-sanitizer's initcheck reported the padding of 8-byte keys with 4-byte values).
template <class B, class V, std::size_t Gap = 2 * std::max(sizeof(B), sizeof(V)) - sizeof(B) - sizeof(V)>
struct keyed {
  B key;
  unsigned char gap[Gap] = {};
  V value;
};
template <class B, class V>
struct keyed<B, V, 0> {
  B key;
  V value;
};

// The order of keys (or keyed values) by their keys' ordered bits.
template <class B>
struct key_less {
  radix::bits_order<B> order;
  __device__ bool operator()(B a, B b) const { return order(a, b); }
  template <class V>
  __device__ bool operator()(const keyed<B, V>& a, const keyed<B, V>& b) const {
    return order(a.key, b.key);
  }
};

// Where a segment's elements come from and go to: the keys' arrays, and the values' when they travel.
template <class B, class V>
struct segment_io {
  using key_bits = B;
  using element = std::conditional_t<carries_values<V>, keyed<B, V>, B>;
  static_assert(sizeof(element) == (carries_values<V> ? 2 * std::max(sizeof(B), sizeof(V)) : sizeof(B)),
                "an element has no byte that is not a member");
  const B* keys_in;
  B* keys_out;
  const V* values_in;
  V* values_out;
  __host__ __device__ static B key_of(const element& x) {
    if constexpr (carries_values<V>) {
      return x.key;
    } else {
      return x;
    }
  }
  __device__ element load(std::size_t i) const {
    if constexpr (carries_values<V>) {
      return {.key = keys_in[i], .value = values_in[i]};
    } else {
      return keys_in[i];
    }
  }
  __device__ void store(std::size_t i, const element& x) const {
    if constexpr (carries_values<V>) {
      keys_out[i] = x.key;
      values_out[i] = x.value;
    } else {
      keys_out[i] = x;
    }
  }
};

// Segment after segment (blockIdx.x, then a grid's stride on): up to a tile (sort_items per
// thread) sorted in shared memory and stored; longer, its tiles of merge_items per thread (odd:
// the block sort's merges in shared memory meet no bank conflict) sorted into runs[0], then merged
// by this block, runs of width doubling each pass between runs[0] and runs[1], the last pass
// storing the output. __syncthreads() makes one pass's global writes visible to the block's next
// pass.
template <class IO, class Comp>
__global__ void __launch_bounds__(block_size)
    segment_sort_kernel(IO io, typename IO::element* run0, typename IO::element* run1, bounds seg, Comp comp) {
  using T = typename IO::element;
  constexpr unsigned tile = sort_tile<T>, V = merge_items<T>, long_tile = merge_tile<T>;
  constexpr unsigned buffer = tile > long_tile ? tile : long_tile;
  __shared__ shared_elements<T, 2 * buffer> buffers;
  T* const shared0 = buffers.data();
  T* const shared1 = shared0 + buffer;
  for (std::int64_t s = blockIdx.x; s < seg.segments; s += gridDim.x) {
    const std::size_t begin = static_cast<std::size_t>(seg.begin(s));
    const std::size_t m = static_cast<std::size_t>(seg.end(s)) - begin;
    const auto load = [&](std::size_t base) { return [&io, base](std::size_t i) { return io.load(base + i); }; };
    const auto store = [&io, begin](std::size_t i, const T& x) { io.store(begin + i, x); };
    if (m <= tile) {
      block_sort_tile<T>(static_cast<unsigned>(m), load(begin), store, comp, shared0, shared1);
      continue;
    }
    if (m <= long_tile) {
      block_sort_tile<T, V>(static_cast<unsigned>(m), load(begin), store, comp, shared0, shared1);
      continue;
    }
    T* runs[2] = {run0 + begin, run1 + begin};
    for (std::size_t t = 0; t < m; t += long_tile) {
      T* to = runs[0] + t;
      block_sort_tile<T, V>(static_cast<unsigned>(m - t < long_tile ? m - t : long_tile), load(begin + t),
                            [to](std::size_t i, const T& x) { to[i] = x; }, comp, shared0, shared1);
    }
    int from = 0;
    for (std::size_t width = long_tile; width < m; width *= 2) {
      const bool last = 2 * width >= m;
      for (std::size_t first = threadIdx.x * V; first < m; first += std::size_t{block_size} * V) {
        if (last) {
          merge_outputs_to(static_cast<const T*>(runs[from]), store, m, width, first, V, comp);
        } else {
          merge_outputs(static_cast<const T*>(runs[from]), runs[1 - from], m, width, first, V, comp);
        }
      }
      __syncthreads();
      from = 1 - from;
    }
  }
}

template <class B, class V>
void raw_segmented_sort(const char* algorithm, const execution_policy& policy, const bounds& seg,
                        radix::bits_order<B> order, const B* kin, B* kout, const V* vin, V* vout) {
  using IO = segment_io<B, V>;
  using T = typename IO::element;
  if (seg.segments <= 0) return;
  // Runs in scratch only where a segment may be longer than both tiles: offsets' segments may all be.
  const bool long_segments =
      seg.width != 0 || seg.fixed_size > static_cast<std::int64_t>(std::max(sort_tile<T>, merge_tile<T>));
  const std::size_t run_bytes = long_segments ? round256(static_cast<std::size_t>(seg.n) * sizeof(T)) : 0;
  const scratch lease = acquire_scratch(2 * run_bytes + 256, with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  T* run0 = long_segments ? reinterpret_cast<T*>(memory) : nullptr;
  T* run1 = long_segments ? reinterpret_cast<T*>(memory + run_bytes) : nullptr;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(seg.segments, 0x7FFFFFFF));
  launch(algorithm, "segment_sort_kernel", segment_sort_kernel<IO, key_less<B>>, blocks, block_size, policy.stream(),
         IO{kin, kout, vin, vout}, run0, run1, seg, key_less<B>{order});
}

// ---- cub -----------------------------------------------------------------------------------------
// CUB's DeviceSegmentedSort sorts short segments by a merge sort that compares keys with `<`: for
// floating-point keys with NaNs that is not a strict weak ordering, and the result would not be
// the family's order. So CUB is handed the keys' ordered bits (unsigned integers whose order is the
// family's, descending included) and carries the keys themselves (with their values) as its
// values: one StableSortPairs per key size and value size, ascending, whatever the key type.

// Segment s's first offset, or its end, as CUB reads them (an iterator over the segments' numbers).
struct bound_at {
  bounds seg;
  bool end;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const { return end ? seg.end(s) : seg.begin(s); }
};

// ordered[i] = the ordered bits of key i; carried[i] = element i (key, or key and value) unless
// carried is null (the keys themselves are CUB's values).
template <class IO>
__global__ void ordered_bits_kernel(IO io, typename IO::key_bits* ordered, typename IO::element* carried,
                                    std::size_t n, radix::order_masks<typename IO::key_bits> order) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const auto x = io.load(i);
    ordered[i] = order(IO::key_of(x));
    if (carried != nullptr) carried[i] = x;
  }
}

// The sorted elements back into the keys' and values' outputs, where a segment covers them.
template <class IO>
__global__ void unpack_kernel(IO io, const typename IO::element* sorted, bounds seg) {
  const auto n = static_cast<std::size_t>(seg.n);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    if (seg.covers(static_cast<std::int64_t>(i))) io.store(i, sorted[i]);
  }
}

template <class B, class V>
void cub_segmented_sort(const char* algorithm, const execution_policy& policy, const bounds& seg,
                        radix::order_masks<B> order, const B* kin, B* kout, const V* vin, V* vout) {
  using IO = segment_io<B, V>;
  using T = typename IO::element;
  const cudaStream_t stream = policy.stream();
  const std::size_t n = static_cast<std::size_t>(seg.n);
  // Keys alone out of place: the input keys are CUB's values and the output its values' output.
  // Otherwise the elements are copied (packed) into scratch and unpacked after.
  const bool packed = carries_values<V> || kin == kout;
  const std::size_t key_bytes = round256(n * sizeof(B)), element_bytes = packed ? round256(n * sizeof(T)) : 0;
  const auto numbers = cuda::make_counting_iterator(std::int64_t{0});
  const auto starts = cuda::make_transform_iterator(numbers, bound_at{seg, false});
  const auto ends = cuda::make_transform_iterator(numbers, bound_at{seg, true});
  const IO io{kin, kout, vin, vout};
  cub_call(
      algorithm, "cub::DeviceSegmentedSort::StableSortPairs", policy, {n, static_cast<std::size_t>(seg.segments)},
      [&](void* temp, std::size_t& bytes, void* extra) {
        auto* e = static_cast<unsigned char*>(extra);
        B* ordered_in = reinterpret_cast<B*>(e);
        B* ordered_out = reinterpret_cast<B*>(e == nullptr ? nullptr : e + key_bytes);
        T* carried_in = packed ? reinterpret_cast<T*>(e == nullptr ? nullptr : e + 2 * key_bytes) : nullptr;
        T* carried_out = packed ? reinterpret_cast<T*>(e == nullptr ? nullptr : e + 2 * key_bytes + element_bytes)
                                : reinterpret_cast<T*>(kout);
        if (temp != nullptr) {
          launch(algorithm, "ordered_bits_kernel", ordered_bits_kernel<IO>, stride_blocks(n), block_size, stream, io,
                 ordered_in, carried_in, n, order);
        }
        const T* values_in = packed ? carried_in : reinterpret_cast<const T*>(kin);
        return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, static_cast<const B*>(ordered_in), ordered_out,
                                                         values_in, carried_out, static_cast<std::int64_t>(n),
                                                         seg.segments, starts, ends, stream);
      },
      2 * key_bytes + 2 * element_bytes,
      [&](void* extra) {
        if (!packed) return;
        const auto* sorted = reinterpret_cast<const T*>(static_cast<unsigned char*>(extra) + 2 * key_bytes + element_bytes);
        launch(algorithm, "unpack_kernel", unpack_kernel<IO>, stride_blocks(n), block_size, stream, io, sorted, seg);
      });
}

}  // namespace segmented_sorting

// ---- the implementations side by side ----------------------------------------------------------------

// Keys (V = segmented_sorting::no_values) or keys and values of 4 or 8 bytes, every segment sorted.
template <sort_key K, class V>
void segmented_sort_spans(const char* algorithm, const execution_policy& policy, span<const K> keys_in,
                          span<const V> values_in, segment_list list, span<K> keys_out, span<V> values_out,
                          sort_order order) {
  using B = sort_bits<K>;
  constexpr bool pairs = segmented_sorting::carries_values<V>;
  const std::size_t n = keys_in.size();
  const segmented_sorting::bounds seg = segment_bounds_of(algorithm, list, n);
  const bool descending = order == sort_order::descending;
  const B* kin = reinterpret_cast<const B*>(keys_in.data());
  B* kout = reinterpret_cast<B*>(keys_out.data());
  const V* vin = values_in.data();
  V* vout = values_out.data();
  const cudaStream_t stream = policy.stream();
  const array_ref offsets{list.offsets, list.offsets_count, list.offsets_count * list.offset_bytes, false,
                          "the offsets"};
  const auto on_thrust = [&](const auto& p) {
    segmented_sorting::two_pass_sort(p, algorithm, policy, seg, radix::order_masks<B>{key_kind_of<K>, descending},
                             kin, kout, vin, vout, stream);
  };
  const auto impls = implementations{
      .cpu = on_thrust,
      .thrust = on_thrust,
      .raw =
          [&] {
            segmented_sorting::raw_segmented_sort(algorithm, policy, seg, radix::bits_order<B>{key_kind_of<K>, descending},
                                          kin, kout, vin, vout);
          },
      .cub =
          [&] {
            segmented_sorting::cub_segmented_sort(algorithm, policy, seg,
                                          radix::order_masks<B>{key_kind_of<K>, descending}, kin, kout, vin,
                                          vout);
          },
      .cpu_check = [&] { check_segment_offsets(algorithm, seg); },
  };
  // No segment, nothing to sort: the checks still run.
  const std::size_t work = seg.segments > 0 ? n : 0;
  if constexpr (pairs) {
    dispatch({algorithm, sort_family, policy,
              {array_ref::input(keys_in, "the keys"), array_ref::input(values_in, "the values").sized(n),
               array_ref::output_of(keys_out, "the keys' output", 0).sized(n),
               array_ref::output_of(values_out, "the values' output", 1).sized(n), offsets},
              work, 2 * (keys_in.size_bytes() + values_in.size_bytes())},
             impls);
  } else {
    dispatch({algorithm, sort_family, policy,
              {array_ref::input(keys_in, "the keys"), array_ref::output_of(keys_out, "the output", 0).sized(n),
               offsets},
              work, 2 * keys_in.size_bytes()},
             impls);
  }
}

template <sort_key K>
void segmented_sort_keys(const execution_policy& policy, span<const K> keys_in, segment_list list, span<K> keys_out,
                         sort_order order) {
  segmented_sort_spans<K, segmented_sorting::no_values>("segmented_sort", policy, keys_in, {}, list, keys_out, {}, order);
}

template <sort_key K, class V>
void segmented_sort_pairs(const execution_policy& policy, span<const K> keys_in, span<const V> values_in,
                          segment_list list, span<K> keys_out, span<V> values_out, sort_order order) {
  segmented_sort_spans<K, V>("segmented_sort_by_key", policy, keys_in, values_in, list, keys_out, values_out, order);
}

}  // namespace prism::detail
