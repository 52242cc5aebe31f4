// SPDX-License-Identifier: Apache-2.0
// Scaling over GPUs: add, sum (into device memory) and inclusive scan of sharded float arrays on
// k = 1 and k = 2 GPUs, with NCCL's own all-reduce as the reference.
//
//   bench_scale --benchmark_out=scale_single.json                    one process drives the GPUs
//   mpirun -np 2 bench_scale --benchmark_out=scale_mpi.json          one process per GPU (rank 0 writes)
//   bench/scale_report scale_single.json scale_mpi.json --out docs/benchmarks
//
// Rows are scaling/operation/mode/k/n (n: elements in all):
//   weak/<op>/<mode>/<k>/<2^28 k>     2^28 floats per GPU: ideally the time of k = 1
//   strong/<op>/<mode>/<k>/2^29       2^29 floats in all: ideally 1/k of the time of k = 1
//   reference/allreduce/<mode>/<k>/1  ncclAllReduce of one float: the latency a sum pays on top
//   reference/allreduce/<mode>/<k>/2^28  of 2^28 floats: NCCL's bus bandwidth (busbw counter)
// mode is `single` (one process, every GPU) or `mpi` (one process per GPU; k = 1 is rank 0 alone
// on a communicator of its own while the others wait). Each row's time is the GPU time of the
// slowest GPU: every GPU's stream is held by a spin kernel while the host enqueues the whole call
// on all of them, start and stop events are recorded on each GPU around the call, then all are
// released at once (in MPI mode after a barrier), and the largest stop - start is the time
// (so the host's launch costs are not counted, and no GPU waits for the host between its calls).
// `us` is the wall time a caller sees from the first enqueue to the end of the last GPU's work.
// Counters: GB/s over all GPUs (add moves 12 bytes per element, sum 4, the scan 8 -- the fewest a
// single GPU must move), busbw for the reference rows (NCCL's definition: bytes x 2(k-1)/k over
// the time). bench/scale_report computes the weak-scaling efficiency t(k = 1) / t(k = 2) and the
// strong-scaling speed-up t(k = 1) / t(k = 2) per operation and mode.
// The sort rows (weak/sort, strong/sort: uint32 keys, i * 2654435761 mod 2^32, a permutation) are
// timed by the wall clock from the call to the end of every GPU's work: the sample sort waits for
// its GPUs between its phases, so its streams cannot be held. Their counters split the time into
// the local sort, the exchange (samples, splitters, cuts, all-to-all) and the merge, and give the
// imbalance (the largest shard over n / k); GB/s counts 8 bytes per key (read and written once).
// weak/histogram and weak/top_k: 2^28 floats per GPU spread evenly over [0, 1] (i / n, rounded to
// float), 256 equal bins over [0, 2) into uint32 counts, and the 64 largest with their indices
// (both into replicated arrays, so held and timed like sum); GB/s counts 4 bytes per element read.
// reference/all_to_all/<mode>/<k>/<2^28 k>: NCCL's own all-to-all of 2^28 uint32 per GPU, every
// rank sending n / k^2 elements to every rank (itself by a copy) in one group of ncclSend and
// ncclRecv, the pattern of the sort's exchange: its busbw (bytes sent to other ranks over the
// time) is the figure the sort's exchange_ms is measured against.
#include <prism/distributed.hpp>

#if PRISM_WITH_MPI
#include <prism/distributed_mpi.hpp>
#endif

#include "harness.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

int world_rank = 0, world_size = 1;

double max_over_ranks(double v) {
#if PRISM_WITH_MPI
  double all = v;
  MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
#else
  return v;
#endif
}
void barrier() {
#if PRISM_WITH_MPI
  MPI_Barrier(MPI_COMM_WORLD);
#endif
}

// A hold flag per local GPU in pinned memory every GPU can read (portable, mapped).
class multi_hold {
 public:
  explicit multi_hold(int gpus) : gpus_(gpus) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int) * gpus,
                        cudaHostAllocMapped | cudaHostAllocPortable),
          "cudaHostAlloc");
  }
  void hold(int g, cudaStream_t stream) {
    std::atomic_ref<int>(flags_[2 * g]).store(0);
    std::atomic_ref<int>(flags_[2 * g + 1]).store(0);
    hold_stream_kernel<<<1, 1, 0, stream>>>(flags_ + 2 * g, flags_ + 2 * g + 1, 200'000'000ull);
    check(cudaGetLastError(), "hold_stream_kernel launch");
  }
  void release() {
    for (int g = 0; g < gpus_; ++g) std::atomic_ref<int>(flags_[2 * g]).store(1, std::memory_order_release);
  }
  bool timed_out() const {
    for (int g = 0; g < gpus_; ++g)
      if (std::atomic_ref<int>(flags_[2 * g + 1]).load() != 0) return true;
    return false;
  }

 private:
  int gpus_;
  int* flags_ = nullptr;
};

// The arrays of one row, on the row's communicator.
enum class operation { add, sum, inclusive_scan, allreduce, sort, histogram, top_k, all_to_all };

inline constexpr std::size_t histogram_bins = 256, top_count = 64;

struct arrays {
  sharded<float> x, y, out;
  replicated<float> total;
  sharded<std::uint32_t> keys, received;
  std::optional<sharded<std::uint32_t>> sorted;
  sharded_sort_report report;
  replicated<std::uint32_t> counts;
  replicated<float> top_values;
  replicated<std::int64_t> top_indices;
  arrays(const communicator& comm, std::uint64_t n, operation op)
      : x(comm, uses_floats(op) ? n : 0), y(comm, uses_floats(op) && !spread(op) ? n : 0),
        out(comm, uses_floats(op) && !spread(op) ? n : 0), total(comm), keys(comm, uses_floats(op) ? 0 : n),
        received(comm, op == operation::all_to_all ? n : 0), counts(comm, histogram_bins),
        top_values(comm, top_count), top_indices(comm, top_count) {
    if (spread(op)) {
      sequence(x, 0.0f, 1.0f / static_cast<float>(n));  // [0, 1), evenly
    } else {
      fill(x, 1.0f);
      fill(y, 2.0f);
    }
    if (!uses_floats(op)) sequence(keys, 0u, 2654435761u);
    comm.synchronize();
  }
  static bool uses_floats(operation op) { return op != operation::sort && op != operation::all_to_all; }
  static bool spread(operation op) { return op == operation::histogram || op == operation::top_k; }
};

void check_nccl(ncclResult_t r, const char* call = "ncclAllReduce") {
  if (r != ncclSuccess) throw nccl_error(r, call, "bench_scale");
}

// NCCL's all-to-all as the sort's exchange does it: block d of every rank's keys to rank d, in one
// group of ncclSend and ncclRecv with every peer, a copy for the block a rank keeps. Every shard is
// n / k here (n a multiple of k^2), so every block is n / k^2.
void all_to_all(const communicator& comm, arrays& a) {
  const int k = comm.size();
  const std::uint64_t shard = a.keys.local_size(0), block = shard / k;
  device_guard guard;
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int g = 0; g < comm.local_count(); ++g) {
    guard.set(comm.device(g));
    const int r = comm.rank(g);
    const std::uint32_t* from = a.keys.local(g).data();
    std::uint32_t* into = a.received.local(g).data();
    for (int d = 0; d < k; ++d) {
      if (d == r) {
        check(cudaMemcpyAsync(into + d * block, from + d * block, block * sizeof(std::uint32_t),
                              cudaMemcpyDeviceToDevice, comm.stream(g)),
              "cudaMemcpyAsync");
        continue;
      }
      check_nccl(ncclSend(from + d * block, block * sizeof(std::uint32_t), ncclUint8, d, comm.nccl(g), comm.stream(g)),
                 "ncclSend");
      check_nccl(ncclRecv(into + d * block, block * sizeof(std::uint32_t), ncclUint8, d, comm.nccl(g), comm.stream(g)),
                 "ncclRecv");
    }
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

// One timed call on every local GPU of comm (nothing on a rank outside it): the GPU time of the
// slowest GPU over all ranks, and the wall time.
std::pair<double, double> time_once(const communicator* comm, const std::function<void()>& call) {
  double gpu = 0, wall = 0;
  if (comm != nullptr) {
    const int local = comm->local_count();
    static std::unique_ptr<multi_hold> holds;
    static int hold_gpus = 0;
    if (hold_gpus < local) holds = std::make_unique<multi_hold>(hold_gpus = local);
    std::vector<cudaEvent_t> start(local), stop(local);
    device_guard guard;
    for (int g = 0; g < local; ++g) {
      guard.set(comm->device(g));
      check(cudaEventCreate(&start[g]), "cudaEventCreate");
      check(cudaEventCreate(&stop[g]), "cudaEventCreate");
      holds->hold(g, comm->stream(g));
      check(cudaEventRecord(start[g], comm->stream(g)), "cudaEventRecord");
    }
    const auto begin = std::chrono::steady_clock::now();
    call();
    for (int g = 0; g < local; ++g) {
      guard.set(comm->device(g));
      check(cudaEventRecord(stop[g], comm->stream(g)), "cudaEventRecord");
    }
    barrier();
    holds->release();
    comm->synchronize();
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (holds->timed_out()) std::fprintf(stderr, "warning: a held stream timed out\n");
    for (int g = 0; g < local; ++g) {
      float ms = 0;
      guard.set(comm->device(g));
      check(cudaEventElapsedTime(&ms, start[g], stop[g]), "cudaEventElapsedTime");
      gpu = std::max(gpu, ms / 1e3);
      (void)cudaEventDestroy(start[g]);
      (void)cudaEventDestroy(stop[g]);
    }
  } else {
    barrier();
  }
  return {max_over_ranks(gpu), max_over_ranks(wall)};
}

// The communicators a run uses: k = 1 and k = every GPU (single), or rank 0 alone and every rank
// (mpi). Made once.
struct communicators {
  std::unique_ptr<communicator> one, all;
};
communicators& made() {
  static communicators c;
  return c;
}

const communicator* communicator_for(int k) {
  communicators& c = made();
  if (world_size == 1) {
    if (k == 1) {
      if (!c.one) c.one = std::make_unique<communicator>(communicator::single_process({0}));
      return c.one.get();
    }
    if (!c.all) c.all = std::make_unique<communicator>(communicator::single_process());
    return c.all.get();
  }
#if PRISM_WITH_MPI
  if (k == 1) {
    if (world_rank != 0) return nullptr;
    if (!c.one) c.one = std::make_unique<communicator>(communicator::one_rank(communicator::unique_id(), 0, 1, 0));
    return c.one.get();
  }
  if (!c.all) c.all = std::make_unique<communicator>(mpi_communicator(MPI_COMM_WORLD));
  return c.all.get();
#else
  return nullptr;
#endif
}

// The sorted keys: n in all, and ascending within and across the shards this process holds.
std::string verify_sort(const communicator& comm, arrays& a, std::uint64_t n) {
  const sharded<std::uint32_t>& sorted = *a.sorted;
  if (sorted.size() != n) return "sorted " + std::to_string(sorted.size()) + " keys of " + std::to_string(n);
  comm.synchronize();
  device_guard guard;
  std::uint32_t before = 0;
  for (int g = 0; g < comm.local_count(); ++g) {
    const std::uint64_t m = sorted.local_size(g);
    if (m == 0) continue;
    guard.set(comm.device(g));
    std::vector<std::uint32_t> keys(m);
    check(cudaMemcpy(keys.data(), sorted.local(g).data(), m * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    if (keys[0] < before || !std::is_sorted(keys.begin(), keys.end()))
      return "rank " + std::to_string(comm.rank(g)) + "'s shard is out of order";
    before = keys.back();
  }
  return "";
}

// Checks a few outputs of the row's last call: add gives 3, the sum n, the scan i + 1; the
// histogram counts n samples in all, the top-k is in order and starts near 1.
std::string verify_row(operation op, const communicator& comm, arrays& a, std::uint64_t n) {
  if (op == operation::sort) return verify_sort(comm, a, n);
  if (op == operation::histogram) {
    std::uint64_t counted = 0;
    for (std::uint32_t c : a.counts.to_host(0)) counted += c;
    return counted == n ? "" : "histogram counted " + std::to_string(counted) + " of " + std::to_string(n);
  }
  if (op == operation::top_k) {
    const std::vector<float> values = a.top_values.to_host(0);
    const std::int64_t best = a.top_indices.to_host(0)[0];
    const bool ordered = std::is_sorted(values.rbegin(), values.rend());
    return ordered && values[0] > 0.99f && best >= 0 && best < static_cast<std::int64_t>(n)
               ? ""
               : "top_k's best is " + std::to_string(values[0]) + " at " + std::to_string(best);
  }
  if (op == operation::all_to_all) return "";
  if (op == operation::sum) {
    const double got = a.total.to_host(0)[0];
    return std::abs(got - double(n)) <= 1e-3 * double(n) ? "" : "sum " + std::to_string(got) + ", want " + std::to_string(n);
  }
  if (op == operation::allreduce) return "";
  comm.synchronize();
  device_guard guard;
  for (int g = 0; g < comm.local_count(); ++g) {
    if (a.out.local_size(g) == 0) continue;
    guard.set(comm.device(g));
    for (std::uint64_t local : {std::uint64_t{0}, a.out.local_size(g) / 2, a.out.local_size(g) - 1}) {
      float got = 0;
      check(cudaMemcpy(&got, a.out.local(g).data() + local, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
      const double i = double(a.out.local_start(g) + local);
      const double want = op == operation::add ? 3.0 : i + 1;
      if (std::abs(got - want) > 1e-6 * want) return "element " + std::to_string(i) + ": " + std::to_string(got);
    }
  }
  return "";
}

void register_row(const std::string& scaling, operation op, const char* op_name, int k, std::uint64_t n) {
  const std::string mode = world_size == 1 ? "single" : "mpi";
  const std::string row = scaling + "/" + op_name + "/" + mode + "/" + std::to_string(k) + "/" + std::to_string(n);
  const double bytes = op == operation::add ? 12.0 * n : op == operation::sum ? 4.0 * n
                       : op == operation::inclusive_scan || op == operation::sort ? 8.0 * n : 4.0 * n;
  // What crosses between GPUs in the all-to-all: every rank's blocks for the k - 1 others.
  const double crossing = 4.0 * n * (k - 1) / k;
  benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
    const communicator* comm = communicator_for(k);
    std::unique_ptr<arrays> a;
    // The reference all-reduce works on x (the first n floats of it, per rank).
    if (comm != nullptr)
      a = std::make_unique<arrays>(*comm, op == operation::allreduce ? n * comm->size() : n, op);
    const std::function<void()> call = [&] {
      switch (op) {
        case operation::add: add(a->x, a->y, a->out); break;
        case operation::sum: sum(a->x, a->total); break;
        case operation::inclusive_scan: inclusive_scan(a->x, a->out); break;
        case operation::sort:
          a->sorted.reset();
          a->sorted.emplace(prism::sort(a->keys, &a->report));
          break;
        case operation::histogram: histogram(a->x, a->counts, 0.0f, 2.0f); break;
        case operation::top_k: top_k(a->x, top_count, a->top_values, a->top_indices); break;
        case operation::all_to_all: all_to_all(*comm, *a); break;
        case operation::allreduce: {
          check_nccl(ncclGroupStart());
          for (int g = 0; g < comm->local_count(); ++g)
            check_nccl(ncclAllReduce(a->x.local(g).data(), a->y.local(g).data(), n, ncclFloat32, ncclSum, comm->nccl(g),
                                     comm->stream(g)));
          check_nccl(ncclGroupEnd());
          break;
        }
      }
    };
    // Warm-up: the first call sets up NCCL's connections and prism's scratch, unheld; then two held.
    if (comm != nullptr) {
      call();
      comm->synchronize();
    }
    // The sort waits for its GPUs inside the call: timed by the wall clock, every rank together.
    const auto timed = [&]() -> std::pair<double, double> {
      if (op != operation::sort) return time_once(comm, call);
      barrier();
      const auto begin = std::chrono::steady_clock::now();
      if (comm != nullptr) {
        call();
        comm->synchronize();
      }
      const double wall =
          max_over_ranks(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
      return {wall, wall};
    };
    for (int warm = 0; warm < 2; ++warm) timed();
    double gpu_total = 0, wall_total = 0;
    for (auto _ : state) {
      const auto [gpu, wall] = timed();
      state.SetIterationTime(gpu);
      gpu_total += gpu;
      wall_total += wall;
    }
    const double iterations = static_cast<double>(state.iterations());
    const double gpu = gpu_total / iterations;
    state.counters["gpu_us"] = gpu * 1e6;
    state.counters["us"] = wall_total / iterations * 1e6;
    state.counters["k"] = k;
    state.counters["bytes"] = bytes;
    state.counters["GB/s"] = bytes / gpu / 1e9;
    if (op == operation::allreduce) state.counters["busbw_GBps"] = bytes * 2.0 * (k - 1) / k / gpu / 1e9;
    if (op == operation::all_to_all) state.counters["busbw_GBps"] = crossing / gpu / 1e9;
    if (op == operation::sort) {  // every rank takes part in the maxima, one outside the row too
      const sharded_sort_report r = a ? a->report : sharded_sort_report{};
      state.counters["local_sort_ms"] = max_over_ranks(r.local_sort_ms);
      state.counters["exchange_ms"] = max_over_ranks(r.exchange_ms);
      state.counters["merge_ms"] = max_over_ranks(r.merge_ms);
      state.counters["imbalance"] = max_over_ranks(r.imbalance);
    }
    std::string wrong = comm != nullptr ? verify_row(op, *comm, *a, n) : "";
    // Every rank learns whether any rank's check failed.
    if (max_over_ranks(wrong.empty() ? 0.0 : 1.0) > 0) state.SkipWithError(("wrong result: " + (wrong.empty() ? std::string("on another rank") : wrong)).c_str());
  })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(op == operation::allreduce && n == 1 ? 50 : 5)
      ->Repetitions(10)
      ->ReportAggregatesOnly(true);
}

void register_rows(int gpus) {
  const std::uint64_t per_gpu = std::uint64_t{1} << 28, strong = std::uint64_t{1} << 29;
  std::vector<int> ks = {1};
  const int most = world_size == 1 ? gpus : world_size;
  if (most >= 2) ks.push_back(most);
  for (int k : ks) {
    register_row("weak", operation::add, "add", k, per_gpu * k);
    register_row("weak", operation::sum, "sum", k, per_gpu * k);
    register_row("weak", operation::inclusive_scan, "inclusive_scan", k, per_gpu * k);
    register_row("strong", operation::add, "add", k, strong);
    register_row("strong", operation::sum, "sum", k, strong);
    register_row("strong", operation::inclusive_scan, "inclusive_scan", k, strong);
    register_row("weak", operation::sort, "sort", k, per_gpu * k);
    register_row("strong", operation::sort, "sort", k, strong);
    register_row("weak", operation::histogram, "histogram", k, per_gpu * k);
    register_row("weak", operation::top_k, "top_k", k, per_gpu * k);
    if (k > 1) {
      register_row("reference", operation::all_to_all, "all_to_all", k, per_gpu * k);
      register_row("reference", operation::allreduce, "allreduce", k, 1);
      register_row("reference", operation::allreduce, "allreduce", k, per_gpu);
    }
  }
}

// Prints nothing: the console and the JSON come from rank 0 only.
class silent_reporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) {
  using namespace prism::bench;
#if PRISM_WITH_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
#endif
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  int status = 0;
  if (gpus == 0) {
    std::printf("bench_scale: no CUDA device here; it times sharded arrays over GPUs, so nothing to do\n");
  } else {
    benchmark::AddCustomContext("mode", world_size == 1 ? "single" : "mpi");
    benchmark::AddCustomContext("ranks", std::to_string(world_size));
    benchmark::AddCustomContext("gpus_visible", std::to_string(gpus));
    int version = 0;
    ncclGetVersion(&version);
    benchmark::AddCustomContext("nccl_version", std::to_string(version));
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) benchmark::AddCustomContext("gpu", properties.name);
    register_rows(gpus);
    // Other ranks neither print nor write the JSON: rank 0 reports for all.
    std::vector<char*> args(argv, argv + argc);
    if (world_rank != 0)
      args.erase(std::remove_if(args.begin() + 1, args.end(),
                                [](const char* a) { return std::string(a).starts_with("--benchmark_out"); }),
                 args.end());
    int count = static_cast<int>(args.size());
    benchmark::Initialize(&count, args.data());
    try {
      if (world_rank == 0) {
        benchmark::RunSpecifiedBenchmarks();
      } else {
        silent_reporter quiet;
        benchmark::RunSpecifiedBenchmarks(&quiet);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_scale (rank %d): %s\n", world_rank, e.what());
      status = 1;
    }
    benchmark::Shutdown();
    made().one.reset();
    made().all.reset();
  }
#if PRISM_WITH_MPI
  MPI_Finalize();
#endif
  return status;
}
