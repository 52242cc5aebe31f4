// SPDX-License-Identifier: Apache-2.0
// The scan family: every implementation side by side, and the stages of the scan's lesson.
//
// Rows (algorithm/type/implementation/n, n = 2^10 ... 2^28 by 4x, float, int32 and int64):
//   inclusive_scan, exclusive_scan               prefix sums
//   inclusive_scan_by_key                        int32 keys in runs of 4
//   compact, partition                           uint8 flags, half of them set at random
//   unique, run_length_encode                    values in runs of 4
//   unique_by_key, reduce_by_key                 int32 keys in runs of 4
//   inclusive_scan/<type>/lesson_<stage>/n       the lesson's stages (float and int32)
//   compact, unique /float/<impl>_counted/2^28   into a counted output (exactly the count's size:
//                                                prism counts first, one more pass over the flags
//                                                or the values), against the input-sized rows
//   compact, unique /float/<impl>_in_place/2^28  the output is the input (restored from a copy
//                                                before each call, outside the timed region)
//   inclusive_scan, compact /uint8/<impl>/n        bytes (16 a vector)
//   inclusive_scan, inclusive_scan_by_key, run_length_encode, reduce_by_key, compact,
//   unique_by_key /int64/, reduce_by_key/float/ and /int32/, inclusive_scan_by_key/float/,
//   unique/int64/, /int32/ and /float/, run_length_encode/int32/, and inclusive_scan/uint8/
//     raw_<threads>x<rounds>[_min<k>]/n          the raw program (n = 2^24, 2^28) in other tile
//                                                shapes (threads per block, rounds of 16-byte
//                                                vectors per thread) than its own, run directly,
//                                                every key held in registers from its load (as the
//                                                library's were before they were read again), no
//                                                blocks an SM asked, or k (unique_by_key/int64/,
//                                                inclusive_scan_by_key/int64/)
//   inclusive_scan_by_key, unique, unique_by_key, run_length_encode /int64/
//     raw[_reread]_<threads>x<rounds>x<V>[_min<k>]/n  blocked: V consecutive elements a thread and
//                                                round (16 bytes a load), scanned in sequence
//     raw_transposed_<threads>x1x<V>[_min<k>]/n  the same, each warp's span read coalesced and handed
//                                                to its lanes through shared memory (_min<k>: k
//                                                blocks an SM asked of the compiler)
//   run_length_encode /int32/ and /int64/, reduce_by_key /float/ and /int32/
//     raw_staged_<threads>x<rounds>/n            the runs staged in shared memory, written by the block
//   run_length_encode /int64/
//     raw_transposed_staged_<threads>x1x<V>/n    transposed, and its runs staged as above
//   unique/ (int64, float, int32; with _min<k>: int64)
//     raw_reread_<threads>x<rounds>[_min<k>]/n   the kept keys read again where they are staged
//                                                instead of kept in registers from the load (as
//                                                the library's unique of 4-byte keys), and no
//                                                blocks an SM asked of the compiler, or k
// Bytes are the fewest that must move: a scan reads n and writes n elements; by key it reads the
// keys too; a compaction reads n values and n flags and writes the kept values; a partition
// writes all n; unique and the by-key reductions read their inputs and write one element (or
// key and value, or value and 64-bit count) per run. Selections deliver their count to device
// memory, so that nothing waits (Thrust's selections wait anyway: their algorithms return the
// count to the host). cpu rows stop at 2^22 elements, to keep the suite's run short; `automatic`
// is not timed (it runs raw or cub, by the tables of scan_family_of that these rows set).
// Checked: after timing, each row runs once more on poisoned outputs and compares every output
// element (and the count) with a host reference. The values are small integers, (i mod 17) - 8
// (whose prefix sums stay within -36 .. 36) or, in runs, (i / 4) mod 1000, so that every sum is
// exact in every type and the comparison can be too.
#include <prism/scan.hpp>
#include <prism/scan_programs.cuh>

#include "harness.hpp"

#include <thrust/execution_policy.h>
#include <thrust/mismatch.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

enum class operation {
  inclusive_scan, exclusive_scan, inclusive_scan_by_key, compact, partition, unique,
  run_length_encode, unique_by_key, reduce_by_key
};

constexpr const char* name_of(operation op) {
  constexpr const char* names[] = {"inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "compact",
                                   "partition", "unique", "run_length_encode", "unique_by_key", "reduce_by_key"};
  return names[static_cast<int>(op)];
}

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;
constexpr std::size_t run = 4;  // the length of every run of equal keys or values

// Rows are short, to keep the suite's GPU run to a minute or two: 3 repetitions of a fixed number
// of calls (about a millisecond's worth; a fixed count also spares Google Benchmark's estimation
// runs).
benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 5e-6 + bytes / 2e12 : 2e-5 + bytes / 1e9;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(1e-3 / expected, 1.0, 32.0));
  return configure(b)->Repetitions(3)->Iterations(calls);
}

// The arrays of one (operation, type, n): values (in runs of `run` equal ones where the operation
// needs them), int32 keys in runs, flags with half of them set at random, and the outputs; on the
// host, and on the GPU where there is one.
template <class T>
struct arrays {
  std::vector<T> host_x, host_out;
  std::vector<std::int32_t> host_keys, host_keys_out;
  std::vector<std::uint8_t> host_flags;
  std::vector<std::uint64_t> host_counts;
  device_buffer<T> x, out;
  device_buffer<std::int32_t> keys, keys_out;
  device_buffer<std::uint8_t> flags;
  device_buffer<std::uint64_t> counts;
  device_buffer<std::size_t> count;
  std::size_t host_count = 0;

  arrays(std::size_t n, operation op, bool gpu) {
    const bool runs = op == operation::unique || op == operation::run_length_encode;
    const bool keyed = op == operation::inclusive_scan_by_key || op == operation::unique_by_key ||
                       op == operation::reduce_by_key;
    const bool flagged = op == operation::compact || op == operation::partition;
    host_x.resize(n);
    host_out.assign(n, T{});
    if (keyed) host_keys.resize(n), host_keys_out.assign(n, 0);
    if (flagged) host_flags.resize(n);
    if (op == operation::run_length_encode) host_counts.assign(n, 0);
#pragma omp parallel for
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      host_x[i] = runs ? static_cast<T>(i / run % 1000) : static_cast<T>(i % 17 - 8);
      if (keyed) host_keys[i] = static_cast<std::int32_t>(i / run);
      if (flagged) {
        std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
        h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
        host_flags[i] = static_cast<std::uint8_t>((h >> 40) & 1);
      }
    }
    if (!gpu) return;
    count = device_buffer<std::size_t>(1);
    x = device_buffer<T>(host_x);
    out = device_buffer<T>(n);
    if (keyed) keys = device_buffer<std::int32_t>(host_keys), keys_out = device_buffer<std::int32_t>(n);
    if (flagged) flags = device_buffer<std::uint8_t>(host_flags);
    if (op == operation::run_length_encode) counts = device_buffer<std::uint64_t>(n);
  }

  // One call of `op`, its count (if any) into device memory, or host memory for cpu; `counted`: into
  // an output of exactly the count's elements (GPU rows), which makes the call count first;
  // `in_place` (GPU rows): out is the input too, as restore() left it.
  void call(operation op, impl which, bool counted = false, bool in_place = false) {
    const execution_policy policy = par.with(which);
    if (which != impl::cpu) {
      if (counted) expect(op);
      const span<T> o = counted ? out.view().subspan(0, want_count) : out.view();
      call_on(op, policy, in_place ? out.view() : x.view(), o, keys.view(), keys_out.view(), flags.view(),
              counts.view(), count.view());
    } else {
      call_on(op, policy, span<T>(host_x), span<T>(host_out), span<std::int32_t>(host_keys),
              span<std::int32_t>(host_keys_out), span<std::uint8_t>(host_flags), span<std::uint64_t>(host_counts),
              span<std::size_t>(&host_count, 1));
    }
  }

  // Before an in-place call: out takes x's values again.
  void restore() {
    prism::check(cudaMemcpyAsync(out.data(), x.data(), x.size() * sizeof(T), cudaMemcpyDeviceToDevice, nullptr),
                 "cudaMemcpyAsync");
  }

  // The outputs a call must write, from a sequential pass on the host: made by the first row that
  // checks and kept for the other implementations of the same (operation, type, n).
  std::vector<T> want_out;
  std::vector<std::int32_t> want_keys;
  std::vector<std::uint64_t> want_counts;
  std::size_t want_count = 0;  // a selection's count
  bool expected = false;

  void expect(operation op) {
    if (expected) return;
    expected = true;
    const std::size_t n = host_x.size();
    const auto run_starts = [&](std::size_t i) {
      return i == 0 || (host_keys.empty() ? host_x[i] != host_x[i - 1] : host_keys[i] != host_keys[i - 1]);
    };
    want_out.reserve(n);
    T total{};
    for (std::size_t i = 0; i < n; ++i) {
      switch (op) {
        case operation::inclusive_scan_by_key:
          if (run_starts(i)) total = T{};
          [[fallthrough]];
        case operation::inclusive_scan:
          total = static_cast<T>(total + host_x[i]);
          want_out.push_back(total);
          break;
        case operation::exclusive_scan:
          want_out.push_back(total);
          total = static_cast<T>(total + host_x[i]);
          break;
        case operation::compact:
        case operation::partition:
          if (host_flags[i] != 0) want_out.push_back(host_x[i]);
          break;
        case operation::unique:
          if (run_starts(i)) want_out.push_back(host_x[i]);
          break;
        case operation::run_length_encode:
          if (run_starts(i)) want_out.push_back(host_x[i]), want_counts.push_back(0);
          ++want_counts.back();
          break;
        case operation::unique_by_key:
        case operation::reduce_by_key:
          if (run_starts(i)) {
            want_keys.push_back(host_keys[i]);
            want_out.push_back(host_x[i]);
          } else if (op == operation::reduce_by_key) {
            want_out.back() = static_cast<T>(want_out.back() + host_x[i]);
          }
          break;
      }
    }
    want_count = want_out.size();
    if (op == operation::partition) {
      for (std::size_t i = 0; i < n; ++i)
        if (host_flags[i] == 0) want_out.push_back(host_x[i]);
    }
  }

  // The expected outputs in device memory, copied once: a gigabyte of output is too much to copy
  // back for every row, so the GPU rows are compared on the GPU (by Thrust).
  device_buffer<T> want_out_on_gpu;
  device_buffer<std::int32_t> want_keys_on_gpu;
  device_buffer<std::uint64_t> want_counts_on_gpu;

  // The first of the first `count` elements of `got` (device memory, or host memory for cpu) that
  // differs from `want`, or count.
  template <class U>
  static std::size_t first_difference(const U* got, const std::vector<U>& want, device_buffer<U>& want_on_gpu,
                                      std::size_t count, bool on_gpu) {
    if (!on_gpu) return static_cast<std::size_t>(std::mismatch(want.begin(), want.begin() + count, got).first - want.begin());
    if (want_on_gpu.size() != want.size()) want_on_gpu = device_buffer<U>(want);
    const U* first = want_on_gpu.data();
    return static_cast<std::size_t>(thrust::mismatch(thrust::device, first, first + count, got).first - first);
  }
  // One element of an output, read or written where it lives.
  static T load(const T* p, std::size_t i, bool on_gpu) {
    if (!on_gpu) return p[i];
    T v;
    prism::check(cudaMemcpy(&v, p + i, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return v;
  }
  static void store(T* p, T v, bool on_gpu) {
    if (!on_gpu) {
      *p = v;
    } else {
      prism::check(cudaMemcpy(p, &v, sizeof v, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }

  // Runs the row's call once more on poisoned outputs: "" if it wrote what expect() says, else
  // what is wrong.
  template <class Call>
  std::string check(operation op, bool on_gpu, Call call) {
    expect(op);
    const bool selects = op != operation::inclusive_scan && op != operation::exclusive_scan &&
                         op != operation::inclusive_scan_by_key;
    const auto poison_all = [&](auto&&... outputs) {
      ((outputs.size() > 0 ? poison(outputs, on_gpu) : void()), ...);
    };
    if (on_gpu) {
      poison_all(out.view(), keys_out.view(), counts.view(), count.view());
    } else {
      poison_all(span<T>(host_out), span<std::int32_t>(host_keys_out), span<std::uint64_t>(host_counts),
                 span<std::size_t>(&host_count, 1));
    }
    call();
    if (on_gpu) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    // How much was written: a selection says so in its count (a partition writes every element).
    std::size_t written = host_x.size();
    if (selects) {
      if (on_gpu) prism::check(cudaMemcpy(&host_count, count.data(), sizeof host_count, cudaMemcpyDeviceToHost), "cudaMemcpy");
      if (host_count != want_count) return "count " + std::to_string(host_count) + ", expected " + std::to_string(want_count);
      if (op != operation::partition) written = host_count;
    }
    T* const got = on_gpu ? out.data() : host_out.data();
    if (break_requested() && written > 0) store(got, static_cast<T>(load(got, 0, on_gpu) + T(1)), on_gpu);
    if (const std::size_t at = first_difference(got, want_out, want_out_on_gpu, written, on_gpu); at < written)
      return "out[" + std::to_string(at) + "] is " + describe(static_cast<double>(load(got, at, on_gpu))) +
             ", expected " + describe(static_cast<double>(want_out[at]));
    if (!want_keys.empty() &&
        first_difference(on_gpu ? keys_out.data() : host_keys_out.data(), want_keys, want_keys_on_gpu, written, on_gpu) < written)
      return "a key out is wrong";
    if (!want_counts.empty() &&
        first_difference(on_gpu ? counts.data() : host_counts.data(), want_counts, want_counts_on_gpu, written, on_gpu) < written)
      return "a run length is wrong";
    return "";
  }

  static void call_on(operation op, const execution_policy& policy, span<T> x, span<T> out, span<std::int32_t> keys,
                      span<std::int32_t> keys_out, span<std::uint8_t> flags, span<std::uint64_t> counts,
                      span<std::size_t> count) {
    const span<const T> in = x;
    switch (op) {
      case operation::inclusive_scan: inclusive_scan(policy, in, out); break;
      case operation::exclusive_scan: exclusive_scan(policy, in, out); break;
      case operation::inclusive_scan_by_key:
        if constexpr (by_key_element<T>) inclusive_scan_by_key(policy, keys, in, out);
        break;
      case operation::compact: compact(policy, in, flags, out, count); break;
      case operation::partition: partition(policy, in, flags, out, count); break;
      case operation::unique: unique(policy, in, out, count); break;
      case operation::run_length_encode: run_length_encode(policy, in, out, counts, count); break;
      case operation::unique_by_key:
        if constexpr (by_key_element<T>) unique_by_key(policy, keys, in, keys_out, out, count);
        break;
      case operation::reduce_by_key:
        if constexpr (by_key_element<T>) reduce_by_key(policy, keys, in, keys_out, out, count);
        break;
    }
  }
};

// The arrays of the row being run: made by its first repetition and kept for the rows after it
// with the same (operation, type, n) -- every implementation of one size -- then freed.
// The fewest bytes a call must move (flags half set, runs of `run`).
template <class T>
double bytes_of(operation op, std::int64_t n) {
  const double v = sizeof(T), k = sizeof(std::int32_t), e = static_cast<double>(n), runs = e / run;
  switch (op) {
    case operation::inclusive_scan:
    case operation::exclusive_scan: return 2 * e * v;
    case operation::inclusive_scan_by_key: return e * (k + 2 * v);
    case operation::compact: return e * (v + 1) + e / 2 * v;
    case operation::partition: return e * (2 * v + 1);
    case operation::unique: return e * v + runs * v;
    case operation::run_length_encode: return e * v + runs * (v + 8);
    case operation::unique_by_key:
    case operation::reduce_by_key: return e * (k + v) + runs * (k + v);
  }
  return 0;
}

// compact and unique of floats at 2^28 into a counted output (what the count pass costs) and in
// place, against the rows of the same call into an output of the input's size.
void register_counted_and_in_place(bool gpu) {
  if (!gpu) return;
  const std::int64_t n = std::int64_t{1} << 28;
  for (operation op : {operation::compact, operation::unique}) {
    const double bytes = bytes_of<float>(op, n);
    const std::string key = std::string(name_of(op)) + "/float/" + std::to_string(n);
    for (impl which : scan_implementations) {
      if (which == impl::cpu) continue;
      for (const bool in_place : {false, true}) {
        const std::string row =
            row_name(name_of(op), "float", std::string(name(which)) + (in_place ? "_in_place" : "_counted"), n);
        short_rows(benchmark::RegisterBenchmark(
                       row.c_str(),
                       [=](benchmark::State& state) {
                         arrays<float>& a =
                             row_arrays<arrays<float>>(key, static_cast<std::size_t>(n), op, gpu_available());
                         const auto before = [&] {
                           if (in_place) a.restore();
                         };
                         const auto run = [&] { a.call(op, which, !in_place, in_place); };
                         time_on_gpu(state, traffic{bytes / 2, bytes / 2}, cache::none, run, nullptr, before);
                         relate_to_ceiling(state);
                         verify(state, row, [&] {
                           return a.check(op, true, [&] {
                             before();
                             run();
                           });
                         });
                       }),
                   bytes, true);
      }
    }
  }
}

// One raw call of `op` with the program in the tile shape <Threads, Rounds>, built as
// <prism/scan.cuh> builds it (inclusive; keys and values aligned as the arrays are). Lane: the key
// before a run's head (and, read again, the one after its end) from the neighbour lane, the load
// in two steps: every round's vectors and lane 0's or 31's own reads, then the shuffles
// (key_before::shuffled, <prism/scan_programs.cuh>).
template <operation op, int Threads, int Rounds, bool Staged, int MinBlocks, bool Reread, bool Lane, int Vector,
          bool Transposed, class T>
void call_in_shape(arrays<T>& a) {
  using namespace prism::detail;
  constexpr key_before lane_or_read = Lane ? key_before::shuffled : key_before::read;
  const execution_policy policy = par.with(impl::raw);
  const std::size_t n = a.x.size();
  const T* x = a.x.data();
  T* out = a.out.data();
  const std::int32_t* keys = a.keys.data();
  using plus = functors::plus<T>;
  using same_key = functors::equal_to<std::int32_t>;
  const auto aligned = [](const auto* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if constexpr (op == operation::inclusive_scan) {
    using Program = scan_program<T, plus, Threads, Rounds>;
    run_single_pass<Program>("inclusive_scan", policy, n, [&](void*) {
      return Program{x, out, n, {}, false, T{}, aligned(x), aligned(out)};
    });
  } else if constexpr (op == operation::inclusive_scan_by_key) {
    using Program = scan_by_key_program<std::int32_t, T, plus, same_key, Threads, Rounds, MinBlocks, lane_or_read,
                                        Vector != 0 ? Vector : scan_vector<std::int32_t, T>, Transposed>;
    run_single_pass<Program>("inclusive_scan_by_key", policy, n, [&](void*) {
      return Program{keys, x, out, n, {}, {}, false, T{}, aligned(keys), aligned(x), aligned(out)};
    });
  } else if constexpr (op == operation::run_length_encode) {  // integers by their bits, as the library has them
    using U = std::make_unsigned_t<T>;
    using Shape = reduce_by_key_shape<U, std::uint64_t, ones<std::uint64_t>>;
    using Program = reduce_by_key_program<U, std::uint64_t, ones<std::uint64_t>, functors::plus<std::uint64_t>,
                                          functors::equal_to<U>, Threads, Rounds, Staged, MinBlocks, Reread,
                                          lane_or_read, Vector != 0 ? Vector : Shape::vector, Transposed>;
    const auto* bits = reinterpret_cast<const U*>(x);
    run_single_pass<Program>("run_length_encode", policy, n, [&](void*) {
      return Program{bits, {}, reinterpret_cast<U*>(out), a.counts.data(), n, {}, {}, aligned(x), false, a.count.data()};
    });
  } else if constexpr (op == operation::unique) {  // integers by their bits, as the library has them
    using U = typename std::conditional_t<std::is_floating_point_v<T>, std::type_identity<T>, std::make_unsigned<T>>::type;
    using Flags =
        head_flags<U, functors::equal_to<U>, Lane ? key_before::shuffled : unique_key_before<U, Reread>>;
    using Program = select_program<U, nothing, Flags, Rounds, Threads, MinBlocks, Reread,
                                   Vector != 0 ? Vector : select_vector<U, nothing, Flags>, Transposed>;
    const auto* values = reinterpret_cast<const U*>(x);
    run_single_pass<Program>("unique", policy, n, [&](void*) {
      return Program{values, static_cast<const nothing*>(nullptr), reinterpret_cast<U*>(out),
                     static_cast<nothing*>(nullptr), Flags{values, {}}, n, aligned(x), false, false, nullptr,
                     a.count.data()};
    });
  } else if constexpr (op == operation::compact) {  // by a byte of flags, as the library has it
    using Flags = stencil_flags<std::uint8_t, functors::nonzero<std::uint8_t>>;
    using Program = select_program<T, nothing, Flags, Rounds, Threads, MinBlocks, Reread>;
    constexpr int V = Program::vector;
    const std::uint8_t* flags = a.flags.data();
    run_single_pass<Program>("compact", policy, n, [&](void*) {
      return Program{x, static_cast<const nothing*>(nullptr), out, static_cast<nothing*>(nullptr),
                     Flags{flags, {}, vector_aligned<V>(flags)}, n, vector_aligned<V>(x), false, false, nullptr,
                     a.count.data()};
    });
  } else if constexpr (op == operation::unique_by_key) {
    using Flags = head_flags<std::int32_t, same_key, lane_or_read>;
    using Program = select_program<std::int32_t, T, Flags, Rounds, Threads, MinBlocks, Reread,
                                   Vector != 0 ? Vector : select_vector<std::int32_t, T, Flags>, Transposed>;
    constexpr int V = Program::vector;
    run_single_pass<Program>("unique_by_key", policy, n, [&](void*) {
      return Program{keys, x, a.keys_out.data(), out, Flags{keys, {}}, n, vector_aligned<V>(keys), vector_aligned<V>(x),
                     false, nullptr, a.count.data()};
    });
  } else {
    static_assert(op == operation::reduce_by_key);
    using Program =
        reduce_by_key_program<std::int32_t, T, const T*, plus, same_key, Threads, Rounds, Staged, MinBlocks, Reread,
                              lane_or_read,
                              Vector != 0 ? Vector : reduce_by_key_shape<std::int32_t, T, const T*>::vector>;
    run_single_pass<Program>("reduce_by_key", policy, n, [&](void*) {
      return Program{keys, x, a.keys_out.data(), out, n, {}, {}, aligned(keys), aligned(x), a.count.data()};
    });
  }
}

template <operation op, int Threads, int Rounds, class T = std::int64_t, bool Staged = false, int MinBlocks = 0,
          bool Reread = false, bool Lane = false, int Vector = 0, bool Transposed = false>
void register_shape() {
  const std::string type = type_name<T>();
  for (const std::int64_t n : {std::int64_t{1} << 24, std::int64_t{1} << 28}) {
    const double bytes = bytes_of<T>(op, n);
    const std::string key = std::string(name_of(op)) + "/" + type + "/" + std::to_string(n);
    const std::string shape = std::string(Staged && Transposed ? "raw_transposed_staged_"
                                          : Staged             ? "raw_staged_"
                                          : Transposed         ? "raw_transposed_"
                                          : Reread             ? "raw_reread_"
                                                               : "raw_") +
                              std::to_string(Threads) + "x" + std::to_string(Rounds) +
                              (Vector > 0 ? "x" + std::to_string(Vector) : "") +
                              (MinBlocks > 0 ? "_min" + std::to_string(MinBlocks) : "") +
                              (Lane ? "_lane" : "");
    const std::string row = row_name(name_of(op), type, shape, n);
    short_rows(benchmark::RegisterBenchmark(
                   row.c_str(),
                   [=](benchmark::State& state) {
                     arrays<T>& a = row_arrays<arrays<T>>(key, static_cast<std::size_t>(n), op, gpu_available());
                     const auto call = [&] {
                       call_in_shape<op, Threads, Rounds, Staged, MinBlocks, Reread, Lane, Vector, Transposed>(a);
                     };
                     time_on_gpu(state, nullptr, bytes, call);
                     relate_to_ceiling(state);
                     verify(state, row, [&] { return a.check(op, true, call); });
                   }),
               bytes, true);
  }
}

// The shapes tried beside the 8-byte programs' own (scan_programs.cuh: the scan's 128 x 24,
// run_length_encode's and the scan by key's 128 x 12, reduce_by_key's 256 x 8; 4-byte elements'
// 128 x 12 and 256 x 4 among the tried); the by-key programs stage a tile in shared memory, which
// holds at most 256 x 8 of them.
template <operation op>
void register_keyed_shapes() {
  register_shape<op, 256, 4>();
  register_shape<op, 128, 8>();
  if constexpr (op == operation::inclusive_scan_by_key) {
    register_shape<op, 256, 8>();   // its former shape
    register_shape<op, 128, 12>();  // its own, without the five blocks an SM asked
  } else {
    register_shape<op, 128, 12>();
  }
}
void register_shapes(bool gpu) {
  if (!gpu) return;
  register_shape<operation::inclusive_scan, 128, 12>();
  register_shape<operation::inclusive_scan, 128, 16>();
  register_shape<operation::inclusive_scan, 256, 12>();
  register_keyed_shapes<operation::inclusive_scan_by_key>();
  register_keyed_shapes<operation::reduce_by_key>();
  register_shape<operation::run_length_encode, 256, 4>();
  register_shape<operation::run_length_encode, 128, 8>();
  register_shape<operation::run_length_encode, 256, 8>();
  register_shape<operation::run_length_encode, 128, 12>();  // its former shape, keys held
  // The by-key scan of 4-byte keys and values, beside its own 128 x 8: its former 256 x 4, and 256 x 8.
  register_shape<operation::inclusive_scan_by_key, 256, 4, float>();
  register_shape<operation::inclusive_scan_by_key, 256, 8, float>();
  // The scan of bytes: 16 a vector, so its own 128 x 12 holds 192 of them a thread (254 registers,
  // spilling); 3 and 6 rounds hold 48 and 96, as 12 rounds of floats hold 48.
  register_shape<operation::inclusive_scan, 128, 3, std::uint8_t>();
  register_shape<operation::inclusive_scan, 128, 6, std::uint8_t>();
  // unique of keys alone, in its own 256 x 8 (0.86x CUB for int64, 0.93x for floats when it was
  // the row raw_256x8): its former 384 x 4, and tiles of half as many keys, in half the threads
  // or half the rounds.
  register_shape<operation::unique, 384, 4>();
  register_shape<operation::unique, 128, 8>();
  register_shape<operation::unique, 256, 4>();
  register_shape<operation::unique, 384, 4, float>();
  register_shape<operation::unique, 128, 8, float>();
  register_shape<operation::unique, 256, 4, float>();
  register_shape<operation::unique, 384, 4, std::int32_t>();
  // unique of 4-byte keys in its own 256 x 8, its keys held rather than read again.
  register_shape<operation::unique, 256, 8, float>();
  register_shape<operation::unique, 256, 8, std::int32_t>();
  // compact of int64 in its own 256 x 8 and unique_by_key of int64 values with int32 keys in its
  // own 128 x 8: the shapes before (384 x 4, 256 x 4), and 128 x 8 and 256 x 6 beside them.
  register_shape<operation::compact, 384, 4>();
  register_shape<operation::compact, 128, 8>();
  register_shape<operation::unique_by_key, 256, 4>();
  register_shape<operation::unique_by_key, 256, 6>();
  // reduce_by_key of floats (int32 keys), at 0.68x CUB in its own 256 x 4.
  register_shape<operation::reduce_by_key, 256, 4, float>();
  register_shape<operation::reduce_by_key, 256, 4, std::int32_t>();
  register_shape<operation::reduce_by_key, 128, 4, float>();
  register_shape<operation::reduce_by_key, 256, 2, float>();
  register_shape<operation::reduce_by_key, 512, 2, float>();
  // run_length_encode of 4-byte keys (four a vector), in its own 256 x 6 (1.09x CUB when it was
  // the row raw_256x6): its former 256 x 4, and 128 x 6 and 256 x 8 around it.
  register_shape<operation::run_length_encode, 256, 4, std::int32_t>();
  register_shape<operation::run_length_encode, 256, 6, std::int32_t>();  // its own, keys held
  register_shape<operation::run_length_encode, 128, 6, std::int32_t>();
  register_shape<operation::run_length_encode, 256, 8, std::int32_t>();
  // The runs staged in shared memory and written by the whole block (reduce_by_key_program's
  // Staged), in the tiles whose staging fits beside the engine's own shared memory.
  register_shape<operation::run_length_encode, 256, 2, std::int32_t, true>();
  register_shape<operation::run_length_encode, 128, 4, std::int32_t, true>();
  register_shape<operation::run_length_encode, 128, 4, std::int64_t, true>();
  register_shape<operation::reduce_by_key, 256, 2, float, true>();
  register_shape<operation::reduce_by_key, 128, 4, float, true>();
  register_shape<operation::reduce_by_key, 256, 2, std::int32_t, true>();
  // unique of 4-byte keys read again as the library's, without the five blocks an SM it asks.
  register_shape<operation::unique, 256, 8, float, false, 0, true>();
  register_shape<operation::unique, 256, 8, std::int32_t, false, 0, true>();
  // unique of int64 with its kept keys read again where they are staged (select_program's Reread),
  // as the library's unique of 4-byte keys has them: 63 registers instead of 80.
  register_shape<operation::unique, 256, 8, std::int64_t, false, 0, true>();
  // Blocks an SM asked of the 8-byte selections: unique of int64 read again (63 registers, four
  // blocks of 256; 34 KB of shared memory a block allow six) and unique_by_key of int64 values
  // with int32 keys in its own 128 x 8 (94 registers, five blocks of 128; 26 KB allow eight).
  register_shape<operation::unique, 256, 8, std::int64_t, false, 5, true>();
  register_shape<operation::unique, 256, 8, std::int64_t, false, 6, true>();
  register_shape<operation::unique_by_key, 128, 8, std::int64_t, false, 6>();
  register_shape<operation::unique_by_key, 128, 8, std::int64_t, false, 8>();
  // Each row a program in the library's own shape, the key before a run's head (and, read again,
  // the one after its end) from the neighbour lane, the shuffles after every round's loads
  // (key_before::shuffled), beside raw or raw_<shape> reading it: the selections, the by-key
  // scans, reduce_by_key and run-length encoding (docs/benchmarks/scan.md, "The eighteenth run";
  // unique of 4-byte keys, the scan by key of int64 values and reduce_by_key of floats are the
  // library's own).
  register_shape<operation::unique, 256, 8, std::int64_t, false, 0, false, true>();
  register_shape<operation::unique, 256, 8, float, false, 5, true, true>();
  register_shape<operation::unique, 256, 8, std::int32_t, false, 5, true, true>();
  register_shape<operation::unique_by_key, 128, 8, std::int64_t, false, 0, false, true>();
  register_shape<operation::inclusive_scan_by_key, 128, 8, float, false, 0, false, true>();
  register_shape<operation::inclusive_scan_by_key, 128, 12, std::int64_t, false, 5, false, true>();
  register_shape<operation::reduce_by_key, 256, 4, float, false, 0, true, true>();
  register_shape<operation::run_length_encode, 256, 6, std::int32_t, false, 0, true, true>();
  register_shape<operation::run_length_encode, 128, 16, std::int64_t, false, 0, true, true>();
  // The same where the two steps hold more registers: unique of int64 read again, and run-length
  // encoding of int64 (106 registers in two steps, 92 in one) asked for five blocks an SM.
  register_shape<operation::unique, 256, 8, std::int64_t, false, 0, true, true>();
  register_shape<operation::run_length_encode, 128, 16, std::int64_t, false, 5, true, true>();
  // The scan by key of int64 values in blocks of six warps (its own 128 x 12 holds five blocks of
  // four, 46% of its stalls at the block's barriers): tiles of 192 x 8, the same 3,072 elements,
  // as built (96 registers: three blocks) and with four blocks asked.
  register_shape<operation::inclusive_scan_by_key, 192, 8>();
  register_shape<operation::inclusive_scan_by_key, 192, 8, std::int64_t, false, 4>();
  // The 8-byte programs blocked: each thread a run of consecutive elements (raw_<threads>x<rounds>x<V>,
  // V elements a vector, loaded 16 bytes at a time) scanned in sequence, as CUB's agents hold
  // theirs, instead of two elements a vector: a vector's fixed work (its heads' key before, its
  // slot in the warp's scan, its prefix) once every V elements.
  register_shape<operation::inclusive_scan_by_key, 128, 1, std::int64_t, false, 0, false, false, 16>();
  register_shape<operation::inclusive_scan_by_key, 128, 1, std::int64_t, false, 0, false, false, 24>();
  register_shape<operation::inclusive_scan_by_key, 128, 2, std::int64_t, false, 0, false, false, 8>();
  register_shape<operation::inclusive_scan_by_key, 128, 3, std::int64_t, false, 0, false, false, 8>();
  register_shape<operation::inclusive_scan_by_key, 256, 1, std::int64_t, false, 0, false, false, 8>();
  register_shape<operation::unique, 256, 1, std::int64_t, false, 0, false, false, 16>();
  register_shape<operation::unique, 256, 2, std::int64_t, false, 0, false, false, 8>();
  register_shape<operation::unique, 128, 1, std::int64_t, false, 0, false, false, 16>();
  register_shape<operation::unique, 256, 1, std::int64_t, false, 0, true, false, 16>();
  register_shape<operation::unique_by_key, 128, 1, std::int64_t, false, 0, false, false, 16>();
  register_shape<operation::unique_by_key, 128, 2, std::int64_t, false, 0, false, false, 8>();
  register_shape<operation::unique_by_key, 256, 1, std::int64_t, false, 0, false, false, 8>();
  register_shape<operation::run_length_encode, 128, 1, std::int64_t, false, 0, true, false, 16>();
  register_shape<operation::run_length_encode, 128, 2, std::int64_t, false, 0, true, false, 16>();
  register_shape<operation::run_length_encode, 256, 1, std::int64_t, false, 0, true, false, 16>();
  register_shape<operation::run_length_encode, 128, 2, std::int64_t, false, 0, true, false, 8>();
  // The same through shared memory (raw_transposed_<threads>x1x<V>): each warp's span read by
  // consecutive lanes on consecutive 16-byte vectors and handed to the lanes blocked (the scan by
  // key's outputs written back the same way), V odd, in CUB's shapes for these types and beside them.
  register_shape<operation::inclusive_scan_by_key, 224, 1, std::int64_t, false, 0, false, false, 13, true>();
  register_shape<operation::inclusive_scan_by_key, 224, 1, std::int64_t, false, 0, false, false, 15, true>();
  register_shape<operation::inclusive_scan_by_key, 128, 1, std::int64_t, false, 0, false, false, 15, true>();
  register_shape<operation::inclusive_scan_by_key, 256, 1, std::int64_t, false, 0, false, false, 11, true>();
  register_shape<operation::unique, 384, 1, std::int64_t, false, 0, false, false, 11, true>();
  register_shape<operation::unique, 256, 1, std::int64_t, false, 0, false, false, 11, true>();
  register_shape<operation::unique, 256, 1, std::int64_t, false, 0, false, false, 15, true>();
  register_shape<operation::unique, 128, 1, std::int64_t, false, 0, false, false, 15, true>();
  register_shape<operation::unique_by_key, 256, 1, std::int64_t, false, 0, false, false, 11, true>();
  register_shape<operation::unique_by_key, 256, 1, std::int64_t, false, 0, false, false, 13, true>();
  register_shape<operation::unique_by_key, 128, 1, std::int64_t, false, 0, false, false, 15, true>();
  register_shape<operation::run_length_encode, 128, 1, std::int64_t, false, 0, true, false, 19, true>();
  register_shape<operation::run_length_encode, 128, 1, std::int64_t, false, 0, true, false, 15, true>();
  register_shape<operation::run_length_encode, 256, 1, std::int64_t, false, 0, true, false, 11, true>();
  register_shape<operation::run_length_encode, 128, 1, std::int64_t, false, 0, true, false, 23, true>();
  // Run-length encoding transposed with its runs staged (CUB's two-phase scatter): a lane's runs
  // are V elements from its neighbours', so that each of their stores spans several lines.
  register_shape<operation::run_length_encode, 128, 1, std::int64_t, true, 0, true, false, 19, true>();
  register_shape<operation::run_length_encode, 128, 1, std::int64_t, true, 0, true, false, 15, true>();
  // Five blocks an SM asked of the compiler, as CUB's scan by key of int64 holds (56 registers in
  // 224 threads): the scan by key transposed in 224 x 1 x 13 (71 registers, four blocks), unique
  // of int64 in 256 x 2 x 8 (63 registers, four blocks).
  register_shape<operation::inclusive_scan_by_key, 224, 1, std::int64_t, false, 5, false, false, 13, true>();
  register_shape<operation::unique, 256, 2, std::int64_t, false, 5, false, false, 8>();
}

template <class T>
void register_operation(operation op, bool gpu) {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = bytes_of<T>(op, n);
    const std::string key = std::string(name_of(op)) + "/" + type + "/" + std::to_string(n);
    for (impl which : scan_implementations) {
      const bool on_gpu = which != impl::cpu;
      if (on_gpu && !gpu) continue;
      if (!on_gpu && n > cpu_largest) continue;
      const std::string row = row_name(name_of(op), type, std::string(name(which)), n);
      short_rows(benchmark::RegisterBenchmark(
                     row.c_str(),
                     [=](benchmark::State& state) {
                       arrays<T>& a = row_arrays<arrays<T>>(key, static_cast<std::size_t>(n), op, gpu_available());
                       if (on_gpu) {
                         time_on_gpu(state, nullptr, bytes, [&] { a.call(op, which); });
                         relate_to_ceiling(state);
                       } else {
                         time_on_host(state, bytes, [&] { a.call(op, which); });
                       }
                       verify(state, row, [&] { return a.check(op, on_gpu, [&] { a.call(op, which); }); });
                     }),
                 bytes, on_gpu);
    }
  }
}

// The stages of the scan's lesson, timed like the implementations.
template <class T>
void register_lesson() {
  const std::string type = type_name<T>();
  for (std::int64_t n : sizes()) {
    const double bytes = 2.0 * n * sizeof(T);
    const std::string key = "lesson/" + type + "/" + std::to_string(n);
    for (scan_stage stage : scan_lesson) {
      const std::string row = row_name("inclusive_scan", type, "lesson_" + std::string(name(stage)), n);
      short_rows(benchmark::RegisterBenchmark(
                     row.c_str(),
                     [=](benchmark::State& state) {
                       arrays<T>& a = row_arrays<arrays<T>>(key, static_cast<std::size_t>(n), operation::inclusive_scan, gpu_available());
                       const auto call = [&] { inclusive_scan(stage, par, a.x, a.out); };
                       time_on_gpu(state, nullptr, bytes, call);
                       relate_to_ceiling(state);
                       verify(state, row, [&] { return a.check(operation::inclusive_scan, true, call); });
                     }),
                 bytes, true);
    }
  }
}

template <class T>
void register_type(bool gpu) {
  for (operation op : {operation::inclusive_scan, operation::exclusive_scan, operation::inclusive_scan_by_key,
                       operation::compact, operation::partition, operation::unique, operation::run_length_encode,
                       operation::unique_by_key, operation::reduce_by_key}) {
    register_operation<T>(op, gpu);
  }
}

void register_rows(bool gpu) {
  if (gpu) {
    register_lesson<float>();
    register_lesson<std::int32_t>();
  }
  register_type<float>(gpu);
  register_type<std::int32_t>(gpu);
  register_type<std::int64_t>(gpu);
  // Bytes: the scan and the compaction of uint8 values (16 a vector), beside their shape rows.
  register_operation<std::uint8_t>(operation::inclusive_scan, gpu);
  register_operation<std::uint8_t>(operation::compact, gpu);
  register_counted_and_in_place(gpu);
  register_shapes(gpu);
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
