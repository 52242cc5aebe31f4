// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every prism benchmark shares: the ceilings measured in the same run, two timings per row,
// cold and warm caches, random inputs, the check that follows the timing, and the statistics.
//
// Rows are named algorithm/type/implementation/n, with a fifth part /cold or /warm for the sizes
// whose working set fits in the GPU's L2 (bench/report reads all five). Each row reports:
//   us              the latency a caller sees: CUDA events around the call on an idle stream
//   gpu_us          the GPU time alone: the call is queued behind a kernel that holds the stream
//                   until the host has queued all of it (nvbench's method), so the events measure
//                   the GPU work and none of the host's. Absent where the call itself waits for
//                   the GPU (thrust's reductions, thrust::device): such a call cannot be queued
//                   behind a held stream.
//   GB/s            bytes_read + bytes_written (the fewest that must move) over gpu_us (over us
//                   where there is no GPU time: cpu rows, calls that wait)
//   pct_of_ceiling  GB/s over the ceiling of the row's own access pattern, ceiling_GBps: the
//                   read ceiling for reductions, the write ceiling for generators, and for a
//                   call that reads and writes the time its bytes take at the costs per byte read
//                   and written fitted to two measured kernels that read and write together (one
//                   and two arrays read per array written): see ceiling_for
// and, as Google Benchmark aggregates over 10 repetitions (each the mean of up to 8 calls):
// median, mean, stddev, cv, min, max, p25 and p75, of the latency (real_time) and every counter.
//
// Cold rows read a buffer twice the L2's size before every timed call (outside the timed region),
// which leaves the L2 full of clean lines of something else; warm rows run back to back, so their
// data stays in L2. Larger sizes have one row, whose data cannot stay in L2 anyway.
//
// Environment: PRISM_BENCH_TYPES=float,half,... (or all) chooses the element types registered
// (each suite has its default set); PRISM_BENCH_SEED changes the inputs; PRISM_BENCH_BREAK=1
// perturbs every output after the call and before the check, to show that a wrong result fails
// its row (the suite then exits 1 and names the rows); PRISM_BENCH_LIST_ALL=1 with
// --benchmark_list_tests lists the GPU rows on a machine without a GPU too.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/span.hpp>

#include <benchmark/benchmark.h>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace prism::bench {

// ---- names ----------------------------------------------------------------------------------

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, __half>) return "half";
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bfloat16";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
}

// n = 2^10, 2^12, ..., 2^28.
inline std::vector<std::int64_t> sizes() {
  std::vector<std::int64_t> n;
  for (int p = 10; p <= 28; p += 2) n.push_back(std::int64_t{1} << p);
  return n;
}

// The arrays of the row being timed, made by A(args...) when a row first asks for `key` (its size,
// shape, where it lives) and kept for the row's repetitions; the previous row's are freed first,
// so that one row's arrays are held at a time, whatever their type.
struct held_arrays {
  std::string key;
  std::shared_ptr<void> arrays;
};
inline held_arrays& held_row() {
  static held_arrays held;  // one set across every A
  return held;
}
template <class A, class... Args>
A& row_arrays(const std::string& key, Args&&... args) {
  held_arrays& held = held_row();
  const std::string typed = std::string(typeid(A).name()) + "/" + key;
  if (!held.arrays || held.key != typed) {
    held.arrays.reset();
    held.arrays = std::make_shared<A>(std::forward<Args>(args)...);
    held.key = typed;
  }
  return *static_cast<A*>(held.arrays.get());
}

// none: the working set does not fit in L2, one row; cold and warm: two rows of a size that fits.
enum class cache { none, cold, warm };

inline std::string row_name(const std::string& algorithm, const std::string& type,
                            const std::string& implementation, std::int64_t n,
                            cache c = cache::none) {
  std::string name = algorithm + "/" + type + "/" + implementation + "/" + std::to_string(n);
  if (c == cache::cold) name += "/cold";
  if (c == cache::warm) name += "/warm";
  return name;
}

// Whether a suite registers rows of `type`: PRISM_BENCH_TYPES (comma-separated, or "all") if
// set, else the suite's default set. compare.sh sets "all", so every type can be reached.
inline bool type_selected(std::string_view type, std::initializer_list<std::string_view> defaults) {
  const char* chosen = std::getenv("PRISM_BENCH_TYPES");
  if (chosen == nullptr || *chosen == '\0') {
    return std::find(defaults.begin(), defaults.end(), type) != defaults.end();
  }
  const std::string list = std::string(",") + chosen + ",";
  return list == ",all," || list.find("," + std::string(type) + ",") != std::string::npos;
}

// ---- the device -----------------------------------------------------------------------------

struct device_facts {
  bool gpu = false;
  std::string name = "none";
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
};

inline const device_facts& device() {
  static const device_facts facts = [] {
    device_facts f;
    f.gpu = gpu_available();
    if (!f.gpu) return f;
    int id = 0;
    check(cudaGetDevice(&id), "cudaGetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, id), "cudaGetDeviceProperties");
    f.name = properties.name;
    f.multiprocessors = properties.multiProcessorCount;
    f.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
    return f;
  }();
  return facts;
}

// ---- bytes moved, and the ceilings they are held against -------------------------------------

// The fewest bytes a call must read and write.
struct traffic {
  double read = 0;
  double written = 0;
  double total() const { return read + written; }
  const char* pattern() const {
    if (written == 0) return "read-only";
    if (read == 0) return "write-only";
    return "read+write";
  }
  traffic operator*(double n) const { return {read * n, written * n}; }
};

// Rows of this traffic: cold and warm where it fits in L2, one row otherwise (and on the host).
inline std::vector<cache> cache_modes(const traffic& bytes, bool on_gpu = true) {
  if (!on_gpu || bytes.total() > static_cast<double>(device().l2_bytes)) return {cache::none};
  return {cache::cold, cache::warm};
}

// A kernel that moves bytes as fast as this GPU can: the ceiling of one access pattern.
struct ceiling {
  double gbps = 0;
  std::string how;  // which candidate won, in words
};

struct ceiling_set {
  ceiling read, write, copy;
  // Reads and writes together: one and two arrays read per array written, 16-byte accesses.
  ceiling mixed1, mixed2;
  double bytes = 0;  // bytes each candidate moved per call
};

const ceiling_set& ceilings();  // below: measured once per run, on the first use

// Seconds per GB read and per GB written when reads and writes share the memory (it loses time
// turning between them), fitted to the two mixed kernels: one GB read and one written take
// 2 / mixed1 s, two read and one written 3 / mixed2 s. Zero where they were not measured.
struct mixed_cost {
  double read = 0, written = 0;
};
inline mixed_cost mixed_costs(const ceiling_set& c) {
  if (c.mixed1.gbps <= 0 || c.mixed2.gbps <= 0) return {};
  const double read = 3 / c.mixed2.gbps - 2 / c.mixed1.gbps;
  const double written = 2 / c.mixed1.gbps - read;
  if (read <= 0 || written <= 0) return {};
  return {read, written};
}

// The ceiling of a row's own access pattern, in GB/s: the read ceiling for a read-only row, the
// write ceiling for a write-only one; for a row that reads and writes, the time its bytes take at
// the fitted mixed costs (exactly the measured kernel's figure for add's 2:1, a copy's 1:1), and
// never above the time at the read and write ceilings apart, which no mix can beat.
inline double ceiling_for(const traffic& bytes) {
  const ceiling_set& c = ceilings();
  if (c.read.gbps <= 0 || c.write.gbps <= 0 || bytes.total() <= 0) return 0;
  const double apart = bytes.total() / (bytes.read / c.read.gbps + bytes.written / c.write.gbps);
  const mixed_cost mixed = mixed_costs(c);
  if (bytes.read == 0 || bytes.written == 0 || mixed.read <= 0) return apart;
  return std::min(apart, bytes.total() / (bytes.read * mixed.read + bytes.written * mixed.written));
}

inline double copy_ceiling_gbps() { return ceilings().copy.gbps; }

// ---- kernels of the harness itself -------------------------------------------------------------

// The read ceiling: a grid-stride loop of 16-byte loads, Unroll of them in flight per thread
// before any is used; XOR of all of it, stored only if it equals a key the compiler cannot know,
// so no load can be dropped. Also the L2 flush of cold rows (plain loads allocate in L2).
template <int Unroll>
__global__ void read_grid_stride_kernel(const uint4* in, std::size_t vectors, unsigned key,
                                        unsigned* sink) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  unsigned x = 0;
  for (; i + (Unroll - 1) * stride < vectors; i += Unroll * stride) {
    uint4 v[Unroll];
#pragma unroll
    for (int k = 0; k < Unroll; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < Unroll; ++k) x ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vectors; i += stride) {
    const uint4 v = in[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == key) *sink = x;
}

// The same with one tile of blockDim.x * Unroll vectors per block and no loop.
template <int Unroll>
__global__ void read_tile_kernel(const uint4* in, std::size_t vectors, unsigned key, unsigned* sink) {
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} * Unroll + threadIdx.x;
  uint4 v[Unroll];
#pragma unroll
  for (int k = 0; k < Unroll; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    v[k] = i < vectors ? in[i] : uint4{0, 0, 0, 0};
  }
  unsigned x = 0;
#pragma unroll
  for (int k = 0; k < Unroll; ++k) x ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  if (x == key) *sink = x;
}

// The write ceiling: 16-byte stores, grid-stride, plain or streaming (evict-first) ones.
template <int Unroll, bool Streaming>
__global__ void write_grid_stride_kernel(uint4* out, std::size_t vectors, uint4 value) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + (Unroll - 1) * stride < vectors; i += Unroll * stride) {
#pragma unroll
    for (int k = 0; k < Unroll; ++k) {
      if constexpr (Streaming) {
        __stcs(out + i + k * stride, value);
      } else {
        out[i + k * stride] = value;
      }
    }
  }
  for (; i < vectors; i += stride) out[i] = value;
}

template <int Unroll>
__global__ void write_tile_kernel(uint4* out, std::size_t vectors, uint4 value) {
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} * Unroll + threadIdx.x;
#pragma unroll
  for (int k = 0; k < Unroll; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < vectors) out[i] = value;
  }
}

// The read+write ceilings: Streams arrays of `vectors` (back to back in `in`) read with 16-byte
// loads, their XOR stored with 16-byte stores into `out`: Streams = 1 is a copy, 2 the pattern of
// a binary element-wise operation. Grid-stride, Unroll vectors of each array in flight per thread...
template <int Streams, int Unroll>
__global__ void mixed_grid_stride_kernel(const uint4* in, std::size_t vectors, uint4* out) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + (Unroll - 1) * stride < vectors; i += Unroll * stride) {
    uint4 v[Streams][Unroll];
#pragma unroll
    for (int s = 0; s < Streams; ++s)
#pragma unroll
      for (int u = 0; u < Unroll; ++u) v[s][u] = in[s * vectors + i + u * stride];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      uint4 x = v[0][u];
#pragma unroll
      for (int s = 1; s < Streams; ++s) x = uint4{x.x ^ v[s][u].x, x.y ^ v[s][u].y, x.z ^ v[s][u].z, x.w ^ v[s][u].w};
      out[i + u * stride] = x;
    }
  }
  for (; i < vectors; i += stride) {
    uint4 x = in[i];
#pragma unroll
    for (int s = 1; s < Streams; ++s) {
      const uint4 w = in[s * vectors + i];
      x = uint4{x.x ^ w.x, x.y ^ w.y, x.z ^ w.z, x.w ^ w.w};
    }
    out[i] = x;
  }
}

// ... or CUB's element-wise transform of the same arrays, whose bulk-copy path (on sm_90 the
// Tensor Memory Accelerator stages tiles in shared memory) moves some patterns faster than any
// plain load/store kernel: without it as a candidate, CUB's own rows would beat the ceiling.
struct xor_vectors {
  __device__ uint4 operator()(uint4 a) const { return a; }
  __device__ uint4 operator()(uint4 a, uint4 b) const { return uint4{a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w}; }
};
template <int Streams>
void mixed_cub_transform(const uint4* in, std::size_t vectors, uint4* out) {
  const auto n = static_cast<std::int64_t>(vectors);
  cudaError_t status;
  if constexpr (Streams == 1) {
    status = cub::DeviceTransform::Transform(cuda::std::make_tuple(in), out, n, xor_vectors{});
  } else {
    status = cub::DeviceTransform::Transform(cuda::std::make_tuple(in, in + vectors), out, n, xor_vectors{});
  }
  check(status, "cub::DeviceTransform::Transform");
}

// ... or one tile of blockDim.x * Unroll vectors per block, no loop (prism's raw add's shape).
template <int Streams, int Unroll>
__global__ void mixed_tile_kernel(const uint4* in, std::size_t vectors, uint4* out) {
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} * Unroll + threadIdx.x;
#pragma unroll
  for (int u = 0; u < Unroll; ++u) {
    const std::size_t i = first + static_cast<std::size_t>(u) * blockDim.x;
    if (i >= vectors) break;
    uint4 x = in[i];
#pragma unroll
    for (int s = 1; s < Streams; ++s) {
      const uint4 w = in[s * vectors + i];
      x = uint4{x.x ^ w.x, x.y ^ w.y, x.z ^ w.z, x.w ^ w.w};
    }
    out[i] = x;
  }
}

// Holds its stream until the host sets *release, or until timeout_ns have passed (then it sets
// *timed_out: the host was itself waiting for the GPU, inside the call being timed).
__global__ inline void hold_stream_kernel(const volatile int* release, int* timed_out,
                                          unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(256);
  }
}

// Launches `kernel` with as many blocks of `threads` as fit on the GPU at once (x `waves`).
template <class... Params, class... Args>
void launch_resident(void (*kernel)(Params...), int threads, cudaStream_t stream, Args... args) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  kernel<<<std::max(1, per_sm) * device().multiprocessors, threads, 0, stream>>>(args...);
  check(cudaGetLastError(), "harness kernel launch");
}

// ---- holding a stream, flushing L2 ---------------------------------------------------------------

// The flag the hold kernel waits on, in mapped pinned memory that the host writes directly.
class stream_hold {
 public:
  stream_hold() {
    check(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int), cudaHostAllocMapped),
          "cudaHostAlloc");
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), flags_, 0),
          "cudaHostGetDevicePointer");
  }
  stream_hold(const stream_hold&) = delete;
  stream_hold& operator=(const stream_hold&) = delete;

  void hold(cudaStream_t stream, unsigned long long timeout_ns) {
    std::atomic_ref<int>(flags_[0]).store(0);
    std::atomic_ref<int>(flags_[1]).store(0);
    hold_stream_kernel<<<1, 1, 0, stream>>>(device_flags_, device_flags_ + 1, timeout_ns);
    check(cudaGetLastError(), "hold_stream_kernel launch");
  }
  void release() { std::atomic_ref<int>(flags_[0]).store(1, std::memory_order_release); }
  // After the stream has drained.
  bool timed_out() const { return std::atomic_ref<int>(flags_[1]).load() != 0; }

 private:
  int* flags_ = nullptr;
  int* device_flags_ = nullptr;
};

inline stream_hold& holder() {
  static stream_hold h;
  return h;
}

// Reads a buffer of twice the L2's size: afterwards the L2 holds clean lines of it and nothing
// of the row's data (a memset would leave dirty lines that the timed call would write back).
inline void flush_l2(cudaStream_t stream) {
  static const device_buffer<uint4> buffer = [] {
    device_buffer<uint4> b(std::max<std::size_t>(2 * device().l2_bytes, 1 << 20) / sizeof(uint4));
    check(cudaMemset(b.data(), 0, b.size() * sizeof(uint4)), "cudaMemset");
    return b;
  }();
  static device_buffer<unsigned> sink(1);
  launch_resident(read_grid_stride_kernel<4>, 512, stream, static_cast<const uint4*>(buffer.data()),
                  buffer.size(), 0x9E3779B9u, sink.data());
}

// ---- one call, timed two ways ------------------------------------------------------------------

class event_pair {
 public:
  event_pair() {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~event_pair() {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  double seconds() const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms / 1e3;
  }
  cudaEvent_t start, stop;
};

// The latency a caller sees: events around the call on an idle stream.
// `before` is queued ahead of the timed region (a row that sorts in place restores its input there).
struct nothing_before {
  void operator()() const {}
};

template <class Run, class Before = nothing_before>
double latency_seconds(cudaStream_t stream, event_pair& events, cache c, Run& run, Before before = {}) {
  before();
  if (c == cache::cold) flush_l2(stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaEventRecord(events.start, stream), "cudaEventRecord");
  run();
  check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
  check(cudaEventSynchronize(events.stop), "cudaEventSynchronize");
  return events.seconds();
}

// The GPU time alone: the stream is held while the host queues start event, call and stop event,
// so the events measure the GPU's work without the host's. Negative when the call waited for the
// GPU (the hold timed out): then there is no GPU time of its own to measure. The default timeout,
// 20 ms, is far longer than queuing any call takes.
template <class Run, class Before = nothing_before>
double gpu_seconds(cudaStream_t stream, event_pair& events, cache c, Run& run,
                   unsigned long long timeout_ns = 20'000'000, Before before = {}) {
  before();
  if (c == cache::cold) flush_l2(stream);
  holder().hold(stream, timeout_ns);
  check(cudaEventRecord(events.start, stream), "cudaEventRecord");
  run();
  check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
  holder().release();
  check(cudaEventSynchronize(events.stop), "cudaEventSynchronize");
  return holder().timed_out() ? -1.0 : events.seconds();
}

// Sets the counters of one repetition from its mean latency and GPU time (0: none).
inline void set_counters(benchmark::State& state, const traffic& bytes, double latency,
                         double gpu, bool on_gpu) {
  const double time = gpu > 0 ? gpu : latency;
  state.counters["bytes"] = bytes.total();
  state.counters["bytes_read"] = bytes.read;
  state.counters["bytes_written"] = bytes.written;
  state.counters["us"] = latency * 1e6;
  if (gpu > 0) state.counters["gpu_us"] = gpu * 1e6;
  state.counters["GB/s"] = bytes.total() / time / 1e9;
  if (on_gpu && ceiling_for(bytes) > 0) {
    state.counters["ceiling_GBps"] = ceiling_for(bytes);
    state.counters["pct_of_ceiling"] = 100.0 * bytes.total() / time / 1e9 / ceiling_for(bytes);
  }
  std::string label = bytes.pattern();
  if (on_gpu && gpu <= 0) label += "; no gpu_us: the call waits for the GPU";
  state.SetLabel(label);
}

// Times `run` (which queues one call on `stream`) after a warm-up: every iteration measures the
// latency (the manual time) and, unless the call waits for the GPU, the GPU time. `before` is
// queued ahead of every call, outside the timed region.
template <class Run, class Before = nothing_before>
void time_on_gpu(benchmark::State& state, const traffic& bytes, cache c, Run&& run,
                 cudaStream_t stream = nullptr, Before before = {}) {
  before();
  run();  // warm-up: lazy module loading, first-touch, scratch, and the data into L2 if warm
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  event_pair events;
  // A second warm-up that also tells whether the call waits for the GPU (a 2 ms hold: a call that
  // waits costs that much, a call that does not is queued in microseconds); tried twice, since a
  // kernel loaded lazily on its first launch behind the held stream would wait once too.
  const bool has_gpu_time = gpu_seconds(stream, events, c, run, 2'000'000, before) >= 0 ||
                            gpu_seconds(stream, events, c, run, 2'000'000, before) >= 0;
  double latency = 0, gpu = 0;
  int gpu_samples = 0;
  for (auto _ : state) {
    const double seconds = latency_seconds(stream, events, c, run, before);
    state.SetIterationTime(seconds);
    latency += seconds;
    if (has_gpu_time) {
      const double g = gpu_seconds(stream, events, c, run, 20'000'000, before);
      if (g >= 0) {
        gpu += g;
        ++gpu_samples;
      }
    }
  }
  const auto iterations = static_cast<double>(state.iterations());
  set_counters(state, bytes, latency / iterations, gpu_samples > 0 ? gpu / gpu_samples : 0, true);
}

// Wall-clock time of a host call: cpu rows, and GPU calls that return a value to the host (a
// cold one flushes the GPU's L2 first, outside the timed region).
template <class Run>
void time_on_host(benchmark::State& state, const traffic& bytes, Run&& run, cache c = cache::none) {
  run();
  double total = 0;
  for (auto _ : state) {
    if (c == cache::cold) {
      flush_l2(nullptr);
      check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
    }
    const auto begin = std::chrono::steady_clock::now();
    run();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    state.SetIterationTime(seconds);
    total += seconds;
  }
  set_counters(state, bytes, total / static_cast<double>(state.iterations()), 0, false);
}

// The first harness's calls, kept for suites written against it: `bytes` counted as half read,
// half written (a copy's pattern), warm.
template <class Run>
void time_on_gpu(benchmark::State& state, cudaStream_t stream, double bytes, Run&& run) {
  time_on_gpu(state, traffic{bytes / 2, bytes / 2}, cache::none, run, stream);
}
template <class Run>
void time_on_host(benchmark::State& state, double bytes, Run&& run) {
  time_on_host(state, traffic{bytes / 2, bytes / 2}, run);
}
inline void relate_to_ceiling(benchmark::State&) {}  // time_on_gpu sets pct_of_ceiling itself

// ---- the ceilings ------------------------------------------------------------------------------

// The median GB/s of `run` (moving `bytes` per call) over 11 GPU-time samples after a warm-up.
template <class Run>
double median_gbps(double bytes, Run run) {
  event_pair events;
  for (int i = 0; i < 2; ++i) run();
  std::vector<double> seconds;
  for (int i = 0; i < 11; ++i) seconds.push_back(gpu_seconds(nullptr, events, cache::none, run));
  std::nth_element(seconds.begin(), seconds.begin() + 5, seconds.end());
  return bytes / seconds[5] / 1e9;
}

// Each ceiling is the best of a few kernels (block size, loads in flight, loop or one tile per
// block), so that no implementation's row can beat it: a row above 100% means the ceiling kernel,
// not the memory, was the limit. 4 GiB per call where memory allows (launch and tail effects
// vanish), else 1 GiB.
inline ceiling_set measure_ceilings() {
  ceiling_set c;
  std::size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  const std::size_t bytes = free > (std::size_t{6} << 30) ? std::size_t{4} << 30 : std::size_t{1} << 30;
  c.bytes = static_cast<double>(bytes);
  const std::size_t vectors = bytes / sizeof(uint4);
  device_buffer<uint4> buffer(vectors);
  device_buffer<unsigned> sink(1);
  check(cudaMemset(buffer.data(), 0x3C, bytes), "cudaMemset");
  const uint4* in = buffer.data();
  const auto best = [](ceiling& into, const std::string& how, double gbps) {
    if (gbps > into.gbps) into = {gbps, how};
  };
  const auto grid_stride = [&](auto kernel, int threads, int unroll) {
    best(c.read, "grid-stride, " + std::to_string(threads) + " threads, " + std::to_string(unroll) +
                     " 16-byte loads in flight per thread",
         median_gbps(bytes, [&] { launch_resident(kernel, threads, nullptr, in, vectors, 1u, sink.data()); }));
  };
  grid_stride(read_grid_stride_kernel<4>, 256, 4);
  grid_stride(read_grid_stride_kernel<4>, 512, 4);
  grid_stride(read_grid_stride_kernel<4>, 1024, 4);
  grid_stride(read_grid_stride_kernel<8>, 256, 8);
  grid_stride(read_grid_stride_kernel<2>, 1024, 2);
  const auto tile = [&](auto kernel, int threads, int unroll) {
    const std::size_t per_block = std::size_t(threads) * unroll;
    const auto blocks = static_cast<unsigned>((vectors + per_block - 1) / per_block);
    best(c.read, "one tile per block, " + std::to_string(threads) + " threads x " +
                     std::to_string(unroll) + " 16-byte loads",
         median_gbps(bytes, [&] { kernel<<<blocks, threads>>>(in, vectors, 1u, sink.data()); }));
  };
  tile(read_tile_kernel<4>, 256, 4);
  tile(read_tile_kernel<2>, 512, 2);

  uint4* out = buffer.data();
  const uint4 value{1, 2, 3, 4};
  const auto write = [&](const std::string& how, auto launch) { best(c.write, how, median_gbps(bytes, launch)); };
  write("grid-stride, 256 threads, 4 16-byte stores per step", [&] {
    launch_resident(write_grid_stride_kernel<4, false>, 256, nullptr, out, vectors, value);
  });
  write("grid-stride, 256 threads, 4 16-byte streaming stores (st.global.cs) per step", [&] {
    launch_resident(write_grid_stride_kernel<4, true>, 256, nullptr, out, vectors, value);
  });
  write("grid-stride, 1024 threads, 2 16-byte stores per step", [&] {
    launch_resident(write_grid_stride_kernel<2, false>, 1024, nullptr, out, vectors, value);
  });
  write("one tile per block, 256 threads x 4 16-byte stores", [&] {
    write_tile_kernel<4><<<static_cast<unsigned>((vectors + 1023) / 1024), 256>>>(out, vectors, value);
  });
  write("cudaMemsetAsync", [&] { check(cudaMemsetAsync(out, 0, bytes), "cudaMemsetAsync"); });

  // Copy: the first half of the buffer into the second; bytes read + written = the whole buffer.
  best(c.copy, "cudaMemcpyAsync device to device, " + std::to_string(bytes >> 21) + " MiB",
       median_gbps(bytes, [&] {
         check(cudaMemcpyAsync(out + vectors / 2, in, bytes / 2, cudaMemcpyDeviceToDevice),
               "cudaMemcpyAsync");
       }));

  // Reads and writes together: the buffer as Streams + 1 arrays, the last one written.
  const auto mixed = [&](ceiling& into, auto streams) {
    constexpr int k = decltype(streams)::value;
    const std::size_t part = vectors / (k + 1);
    const double moved = static_cast<double>(part) * (k + 1) * sizeof(uint4);
    uint4* written = buffer.data() + k * part;
    const auto blocks = [&](int threads, int unroll) {
      return static_cast<unsigned>((part + std::size_t(threads) * unroll - 1) / (std::size_t(threads) * unroll));
    };
    best(into, "grid-stride, 256 threads, 4 16-byte vectors of each array in flight per thread",
         median_gbps(moved, [&] { launch_resident(mixed_grid_stride_kernel<k, 4>, 256, nullptr, in, part, written); }));
    best(into, "grid-stride, 1024 threads, 2 16-byte vectors of each array in flight per thread",
         median_gbps(moved, [&] { launch_resident(mixed_grid_stride_kernel<k, 2>, 1024, nullptr, in, part, written); }));
    best(into, "one tile per block, 256 threads x 1 16-byte vector of each array",
         median_gbps(moved, [&] { mixed_tile_kernel<k, 1><<<blocks(256, 1), 256>>>(in, part, written); }));
    best(into, "one tile per block, 256 threads x 4 16-byte vectors of each array",
         median_gbps(moved, [&] { mixed_tile_kernel<k, 4><<<blocks(256, 4), 256>>>(in, part, written); }));
    best(into, "cub::DeviceTransform::Transform of 16-byte vectors",
         median_gbps(moved, [&] { mixed_cub_transform<k>(in, part, written); }));
  };
  c.mixed1 = c.copy;
  mixed(c.mixed1, std::integral_constant<int, 1>{});
  mixed(c.mixed2, std::integral_constant<int, 2>{});
  return c;
}

inline const ceiling_set& ceilings() {
  static const ceiling_set c = device().gpu ? measure_ceilings() : ceiling_set{};
  return c;
}

// ---- random inputs -----------------------------------------------------------------------------

inline std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* text = std::getenv("PRISM_BENCH_SEED");
    return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 0) : 20261130ull;
  }();
  return s;
}

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Element i of random stream `stream`: uniform in [0, 1), the same on the host and the device.
__host__ __device__ inline double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  return static_cast<double>(splitmix64(splitmix64(seed ^ splitmix64(stream)) + i) >> 11) * 0x1.0p-53;
}

// A value of the range [lo, hi) as T: integers round down (so [0, 2) gives 0 or 1).
template <class T>
__host__ __device__ T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __double2half(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __double2bfloat16(v);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::floor(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
__host__ __device__ double to_double(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return static_cast<double>(v);
  }
}

// Machine epsilon of T (0 for integers: they must match exactly).
template <class T>
constexpr double epsilon() {
  if constexpr (std::is_same_v<T, __half>) return 0x1.0p-10;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return 0x1.0p-7;
  if constexpr (std::is_same_v<T, float>) return 0x1.0p-23;
  if constexpr (std::is_same_v<T, double>) return 0x1.0p-52;
  return 0;
}

// A range of random values; stream tells arrays apart.
struct distribution {
  std::uint64_t stream;
  double lo, hi;
};

template <class T>
__global__ void generate_kernel(T* out, std::size_t n, std::uint64_t seed, distribution d) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = from_double<T>(d.lo + (d.hi - d.lo) * uniform(seed, d.stream, i));
  }
}

// Fills device memory (or host memory, for the cpu rows) with the seeded random values of `d`.
template <class T>
void generate(span<T> out, const distribution& d, bool on_device = true) {
  if (out.empty()) return;
  if (on_device) {
    launch_resident(generate_kernel<T>, 256, nullptr, out.data(), out.size(), seed(), d);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  } else {
    for (std::size_t i = 0; i < out.size(); ++i)
      out.data()[i] = from_double<T>(d.lo + (d.hi - d.lo) * uniform(seed(), d.stream, i));
  }
}

// Fills an output with 0x7F bytes before a checked call, so that an unwritten element fails (a
// NaN for 16-bit floats, about 3e38 for float and double, far out of range for integers).
template <class T>
void poison(span<T> out, bool on_device) {
  if (on_device) {
    check(cudaMemset(out.data(), 0x7F, out.size_bytes()), "cudaMemset");
  } else {
    std::memset(static_cast<void*>(out.data()), 0x7F, out.size_bytes());
  }
}

// ---- the check after the timing --------------------------------------------------------------

// PRISM_BENCH_BREAK=1: perturb every output before it is checked.
inline bool break_requested() {
  const char* text = std::getenv("PRISM_BENCH_BREAK");
  return text != nullptr && *text != '\0' && std::string_view(text) != "0";
}

// Positions checked in an array of n: the first and last 16, and 32 spread through the middle
// from a seeded offset.
inline std::vector<std::size_t> sample_positions(std::size_t n) {
  std::vector<std::size_t> p;
  for (std::size_t k = 0; k < 16 && k < n; ++k) {
    p.push_back(k);
    p.push_back(n - 1 - k);
  }
  const std::size_t stride = std::max<std::size_t>(n / 32, 1);
  const std::size_t offset = splitmix64(seed() ^ n) % stride;
  for (std::size_t i = offset; i < n; i += stride) p.push_back(i);
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

template <class T>
__global__ void gather_kernel(const T* in, const std::size_t* positions, std::size_t count, T* out) {
  const std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (k < count) out[k] = in[positions[k]];
}

// The elements at `positions`, from device or host memory.
template <class T>
std::vector<T> gather(const T* array, const std::vector<std::size_t>& positions, bool on_device) {
  std::vector<T> values(positions.size());
  if (!on_device) {
    for (std::size_t k = 0; k < positions.size(); ++k) values[k] = array[positions[k]];
    return values;
  }
  device_buffer<std::size_t> where{std::span<const std::size_t>(positions)};
  device_buffer<T> got(positions.size());
  gather_kernel<<<static_cast<unsigned>((positions.size() + 255) / 256), 256>>>(
      array, where.data(), positions.size(), got.data());
  check(cudaGetLastError(), "gather_kernel launch");
  got.copy_to(values);
  return values;
}

// What PRISM_BENCH_BREAK does to element `i` of an output: v -> v + 1 + |v|, never v itself.
template <class T>
void perturb(T* array, std::size_t i, bool on_device) {
  T v;
  if (on_device) {
    check(cudaMemcpy(&v, array + i, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  } else {
    v = array[i];
  }
  const double x = to_double(v);
  v = from_double<T>(x + 1 + std::fabs(x));
  if (on_device) {
    check(cudaMemcpy(array + i, &v, sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  } else {
    array[i] = v;
  }
}

// |got - want| <= relative * |want| + absolute; NaN and infinities must match.
inline bool close(double got, double want, double relative, double absolute) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= relative * std::fabs(want) + absolute;
}

inline std::string describe(double v) {
  std::ostringstream text;
  text.precision(17);
  text << v;
  return text.str();
}

// Rows whose check failed, for the summary at the end of the run.
inline std::vector<std::string>& failed_rows() {
  static std::vector<std::string> rows;
  return rows;
}

// Runs a row's check once (on its first repetition: the inputs and the call are the same in every
// repetition) and fails every repetition of the row if it found a wrong result. `check` returns
// an empty string when the output is right, else what is wrong.
inline void verify(benchmark::State& state, const std::string& row,
                   const std::function<std::string()>& check) {
  static std::map<std::string, std::string> verdicts;
  auto [it, first] = verdicts.try_emplace(row);
  if (first) {
    it->second = check();
    if (!it->second.empty()) failed_rows().push_back(row + ": " + it->second);
  }
  if (!it->second.empty()) state.SkipWithError(("wrong result: " + it->second).c_str());
}

// ---- registration ----------------------------------------------------------------------------

inline double percentile(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  const double at = q * static_cast<double>(s.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  const std::size_t above = std::min(below + 1, s.size() - 1);
  return s[below] + (at - static_cast<double>(below)) * (s[above] - s[below]);
}

// Every row: manual time, repeated (10 times unless set), reported as aggregates with the spread.
inline benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b) {
  return b->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(10)
      ->ReportAggregatesOnly(true)
      ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); })
      ->ComputeStatistics("p25", [](const std::vector<double>& v) { return percentile(v, 0.25); })
      ->ComputeStatistics("p75", [](const std::vector<double>& v) { return percentile(v, 0.75); });
}

// The same with a fixed number of calls per repetition, from the expected time of one call: up
// to 8 for calls of a few microseconds (each repetition then averages 8 calls), 1 from a tenth of
// a millisecond. Fixed counts keep the run's time predictable.
inline benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b,
                                                 const traffic& bytes, bool on_gpu) {
  const double expected = on_gpu ? 5e-6 + bytes.total() / 3e12 : 2e-5 + bytes.total() / 1e10;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(1e-4 / expected, 1.0, 8.0));
  return configure(b)->Iterations(calls);
}

// The main of every suite: records the device and the ceilings in the run's context (measured
// first, unless the run only lists the rows), registers the rows, runs them, and exits 1 if a
// row's check failed.
inline int run_main(int argc, char** argv, void (*register_rows)(bool gpu)) {
  const bool listing = std::any_of(argv + 1, argv + argc, [](const char* a) {
    return std::string_view(a).starts_with("--benchmark_list_tests") &&
           std::string_view(a) != "--benchmark_list_tests=false";
  });
  const bool gpu = device().gpu;
  if (gpu) {
    benchmark::AddCustomContext("gpu", device().name);
    benchmark::AddCustomContext("l2_bytes", std::to_string(device().l2_bytes));
    if (!listing) {
      const ceiling_set& c = ceilings();
      benchmark::AddCustomContext("read_ceiling_GBps", std::to_string(c.read.gbps));
      benchmark::AddCustomContext("write_ceiling_GBps", std::to_string(c.write.gbps));
      benchmark::AddCustomContext("copy_ceiling_GBps", std::to_string(c.copy.gbps));
      benchmark::AddCustomContext("read_ceiling_kernel", c.read.how);
      benchmark::AddCustomContext("write_ceiling_kernel", c.write.how);
      benchmark::AddCustomContext("copy_ceiling_kernel", c.copy.how);
      benchmark::AddCustomContext("mixed1_ceiling_GBps", std::to_string(c.mixed1.gbps));
      benchmark::AddCustomContext("mixed2_ceiling_GBps", std::to_string(c.mixed2.gbps));
      benchmark::AddCustomContext("mixed1_ceiling_kernel", c.mixed1.how);
      benchmark::AddCustomContext("mixed2_ceiling_kernel", c.mixed2.how);
      benchmark::AddCustomContext("ceiling_bytes", std::to_string(c.bytes));
    }
  } else {
    benchmark::AddCustomContext("gpu", "none: cpu implementation only");
  }
  benchmark::AddCustomContext("seed", std::to_string(seed()));
  if (break_requested()) benchmark::AddCustomContext("broken_on_purpose", "PRISM_BENCH_BREAK");
  // PRISM_BENCH_LIST_ALL: list the GPU rows too on a machine without a GPU (scripts/compare.sh
  // takes the names from the list, which then does not depend on the machine).
  const char* list_all = std::getenv("PRISM_BENCH_LIST_ALL");
  register_rows(gpu || (listing && list_all != nullptr && *list_all != '\0'));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!failed_rows().empty()) {
    std::fprintf(stderr, "%zu rows gave a wrong result:\n", failed_rows().size());
    for (const std::string& row : failed_rows()) std::fprintf(stderr, "  %s\n", row.c_str());
    return 1;
  }
  return 0;
}

}  // namespace prism::bench
