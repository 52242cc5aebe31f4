// SPDX-License-Identifier: Apache-2.0
// Sharded arrays against float64 host references. One source, two binaries:
//   test_distributed      one process drives the GPUs: k = 1 (device 0) and k = every visible GPU
//   test_distributed_mpi  one process per GPU (PRISM_TEST_MPI): run it under `mpirun -np 2` (or 1,
//                         or alone); every rank runs the same tests in the same order, since every
//                         distributed call is collective.
// Every rank makes every call even when a check fails (EXPECT, not ASSERT, after the first
// collective call of a test), so that a failure never leaves another rank waiting in NCCL.
// Each rank checks the parts of the arrays it holds and every reduction's full result.
#include <prism/distributed.hpp>

#include "testing.hpp"

#if PRISM_TEST_MPI
#include <prism/distributed_mpi.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

using namespace prism::testing;
using prism::communicator;
using prism::sharded;

// ---- the communicators under test ------------------------------------------------------------------

struct mode {
  std::string name;
  std::function<communicator()> make;
};

std::vector<mode> modes() {
#if PRISM_TEST_MPI
  return {{"mpi", [] { return prism::mpi_communicator(MPI_COMM_WORLD); }}};
#else
  return {{"k1", [] { return communicator::single_process({0}); }},
          {"all", [] { return communicator::single_process(); }}};
#endif
}

// One communicator per mode for the whole run: NCCL's start-up is slow, and collective.
std::map<std::string, std::unique_ptr<communicator>>& communicators() {
  static std::map<std::string, std::unique_ptr<communicator>> made;
  return made;
}
communicator& shared_communicator(const mode& m) {
  auto& c = communicators()[m.name];
  if (!c) c = std::make_unique<communicator>(m.make());
  return *c;
}

#if PRISM_TEST_MPI
// NCCL puts one rank per GPU: with more processes on a node than GPUs (mpirun -np 2 on a machine
// with one), every rank skips, all of them alike.
std::string too_many_processes() {
  static const std::string why = [] {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local_size = 1, visible = 0;
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&visible) != cudaSuccess) (void)cudaGetLastError();
    int fits = local_size <= visible ? 1 : 0, all_fit = 0;
    MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_fit ? std::string() : std::to_string(local_size) + " processes on a node with " + std::to_string(visible) +
                                         " GPU(s): one process per GPU at most";
  }();
  return why;
}
#endif

// The same seed on every rank: every rank builds the same host arrays.
std::uint64_t shared_seed() {
  std::uint64_t seed = fresh_seed();
#if PRISM_TEST_MPI
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
#endif
  return seed;
}

// The global indices this process holds.
template <class T>
std::vector<std::pair<std::uint64_t, std::uint64_t>> held(const sharded<T>& a) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (int g = 0; g < a.local_count(); ++g) ranges.emplace_back(a.local_start(g), a.local_start(g) + a.local_size(g));
  return ranges;
}

// Compares what this process holds of `got` with want(i), within `ulps` of T's precision (and an
// absolute floor of `floor`); reports the first few mismatches.
template <class T, class Want>
void expect_held(const sharded<T>& got, Want want, double ulps, double floor = 0) {
  std::vector<T> host(got.size(), poison<T>());
  got.copy_to(host);
  int reported = 0;
  for (auto [begin, end] : held(got)) {
    for (std::uint64_t i = begin; i < end && reported < 5; ++i) {
      const double w = want(i);
      const double g = static_cast<double>(host[i]);
      bool ok;
      if (std::isnan(w)) {
        ok = std::isnan(g);
      } else if (std::isinf(w)) {
        ok = g == w;  // the identity of an exclusive min or max scan
      } else if constexpr (std::is_floating_point_v<T>) {
        ok = std::abs(g - w) <= ulps * std::numeric_limits<T>::epsilon() * std::abs(w) + floor;
      } else {
        ok = g == w;
      }
      if (!ok) {
        ADD_FAILURE() << "element " << i << " of " << got.size() << ": got " << g << ", want " << w;
        ++reported;
      }
    }
  }
}


class Distributed : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device: sharded arrays live on GPUs";
#if PRISM_TEST_MPI
    if (const std::string why = too_many_processes(); !why.empty()) GTEST_SKIP() << why;
#endif
    comm_ = &shared_communicator(modes()[GetParam()]);
  }
  communicator& comm() { return *comm_; }

 private:
  communicator* comm_ = nullptr;
};

std::string mode_name(const ::testing::TestParamInfo<int>& info) { return modes()[info.param].name; }

// Sizes: none, one, fewer than the ranks, odd, not a multiple of a scan tile, past 2^20.
std::vector<std::uint64_t> sizes_for(int k) {
  return {0, 1, static_cast<std::uint64_t>(k > 1 ? k - 1 : 1), 7, 3 * 4096 + 5, (1u << 20) + 3};
}

// ---- layout: no GPU needed -------------------------------------------------------------------------

TEST(DistributedLayout, BlockDistributionDiffersByAtMostOne) {
  const auto starts = prism::detail::block_starts(10, 4);  // 3 3 2 2
  EXPECT_EQ(starts, (std::vector<std::uint64_t>{0, 3, 6, 8, 10}));
  const auto few = prism::detail::block_starts(1, 2);  // rank 1 holds nothing
  EXPECT_EQ(few, (std::vector<std::uint64_t>{0, 1, 1}));
  const std::uint64_t huge = (std::uint64_t{1} << 33) + 3;
  const auto big = prism::detail::block_starts(huge, 2);
  EXPECT_EQ(big[1], (std::uint64_t{1} << 32) + 2);
  EXPECT_EQ(big[2], huge);
}

TEST(DistributedLayout, ExplicitSizesNeedOnePerRank) {
  EXPECT_EQ(prism::detail::starts_of({2, 0, 5}, 3), (std::vector<std::uint64_t>{0, 2, 2, 7}));
  EXPECT_THROW(prism::detail::starts_of({2, 5}, 3), std::invalid_argument);
}

TEST(DistributedLayout, MisalignedArraysAreNamed) {
  const prism::shard_layout a{nullptr, {0, 5, 10}}, b{nullptr, {0, 4, 10}}, c{nullptr, {0, 5, 11}};
  const prism::shard_layout other{&a, {0, 5, 10}};
  EXPECT_NO_THROW(prism::detail::require_aligned("add", {&a, &a}));
  try {
    prism::detail::require_aligned("add", {&a, &b});
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0's shard ends at 4 against 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(prism::detail::require_aligned("add", {&a, &c}), std::invalid_argument);
  EXPECT_THROW(prism::detail::require_aligned("add", {&a, &other}), std::invalid_argument);
}


// The sample sort's plan (algorithms/distributed/sort.cu) run on the host over simulated ranks:
// the same splitters, cuts and sizes the GPUs compute, then every rank's received pieces stably
// merged, against one stable sort of everything. Many duplicates, empty ranks, k up to 8.
TEST(DistributedSort, SamplePlanSortsStablyAndBalances) {
  using prism::detail::sort_sample;
  std::mt19937_64 random(fresh_seed());
  for (int k : {2, 3, 5, 8}) {
    for (std::uint64_t distinct : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1} << 40}) {
      // Shards of random sizes (some empty); each element is (key, its global index).
      std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> shards(k);
      std::uint64_t n = 0;
      for (int r = 0; r < k; ++r) {
        const std::uint64_t m = r == 1 ? 0 : random() % 5000;
        for (std::uint64_t i = 0; i < m; ++i) shards[r].push_back({random() % distinct, n++});
      }
      const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
      std::vector<sort_sample> samples;
      for (int r = 0; r < k; ++r) {
        std::stable_sort(shards[r].begin(), shards[r].end(), by_key);
        const std::uint64_t m = shards[r].size(), s = prism::detail::samples_per_rank;
        for (std::uint64_t i = 0; i < s; ++i) {
          const std::uint64_t position = m >= s ? i * m / s : i;
          const std::uint64_t next = m >= s ? (i + 1 == s ? m : (i + 1) * m / s) : position + 1;
          samples.push_back(position < m ? sort_sample{shards[r][position].first, std::uint32_t(r), 1, position,
                                                       next - position}
                                         : sort_sample{});
        }
      }
      const std::vector<sort_sample> splitters = prism::detail::choose_splitters(samples, k);
      ASSERT_EQ(splitters.size(), n == 0 ? 0u : std::size_t(k - 1));
      std::vector<std::uint64_t> cuts;
      for (int r = 0; r < k; ++r) {
        cuts.push_back(0);
        for (const sort_sample& splitter : splitters) {
          const auto lower = std::lower_bound(shards[r].begin(), shards[r].end(), std::pair{splitter.ordinal, 0ull}, by_key);
          const auto upper = std::upper_bound(shards[r].begin(), shards[r].end(), std::pair{splitter.ordinal, 0ull}, by_key);
          cuts.push_back(prism::detail::cut_at(splitter, std::uint32_t(r), lower - shards[r].begin(),
                                               upper - shards[r].begin()));
        }
        cuts.push_back(shards[r].size());
      }
      const std::vector<std::uint64_t> sizes = prism::detail::sizes_after_exchange(cuts, k);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> result;
      for (int d = 0; d < k; ++d) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> received;  // in rank order, then merged stably
        for (int r = 0; r < k; ++r) {
          const std::uint64_t begin = cuts[r * (k + 1) + d], end = cuts[r * (k + 1) + d + 1];
          ASSERT_LE(begin, end);
          received.insert(received.end(), shards[r].begin() + begin, shards[r].begin() + end);
        }
        ASSERT_EQ(received.size(), sizes[d]);
        std::stable_sort(received.begin(), received.end(), by_key);
        result.insert(result.end(), received.begin(), received.end());
        // Weighted regular sampling's bound for shards of any sizes: n / k + 2 n / s, and a few for
        // the rounding of the positions.
        EXPECT_LE(sizes[d], n / k + 2 * n / prism::detail::samples_per_rank + k + 1) << "k " << k << ", rank " << d;
      }
      std::vector<std::pair<std::uint64_t, std::uint64_t>> all;
      for (const auto& shard : shards) all.insert(all.end(), shard.begin(), shard.end());
      std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      std::stable_sort(all.begin(), all.end(), by_key);
      EXPECT_EQ(result, all) << "k " << k << ", " << distinct << " distinct keys";
    }
  }
}

// The selections' plan (algorithms/distributed/select.cu): a rank whose first kept element
// continues the last run of the nearest non-empty rank before it (empty ranks skipped) drops it.
TEST(DistributedSelect, PlanDropsRunsThatCrossShards) {
  // Shards (as unique's runs): [1 1 2] [] [2 2 3] [3] [4]: the 2 of rank 2 continues rank 0's run
  // across the empty rank 1, the 3 of rank 3 continues rank 2's, the 4 of rank 4 does not.
  const std::vector<std::vector<int>> shards = {{1, 1, 2}, {}, {2, 2, 3}, {3}, {4}};
  std::vector<std::uint64_t> counts;
  std::vector<bool> present;
  for (const auto& s : shards) {
    std::vector<int> u = s;
    u.erase(std::unique(u.begin(), u.end()), u.end());
    counts.push_back(u.size());
    present.push_back(!s.empty());
  }
  const auto plan = prism::detail::plan_selection(counts, present, [&](int before, int r) {
    return shards[before].back() == shards[r].front();
  });
  EXPECT_EQ(plan.sizes, (std::vector<std::uint64_t>{2, 0, 1, 0, 1}));
  EXPECT_EQ(plan.skip, (std::vector<std::uint64_t>{0, 0, 1, 1, 0}));
  // compact never drops: the sizes are the counts.
  const auto kept = prism::detail::plan_selection(counts, present, [](int, int) { return false; });
  EXPECT_EQ(kept.sizes, counts);
  // A present rank that kept nothing (a compaction of zeros) is never asked and skips nothing.
  const auto none = prism::detail::plan_selection({3, 0, 2}, {true, true, true}, [](int, int) { return true; });
  EXPECT_EQ(none.sizes, (std::vector<std::uint64_t>{3, 0, 1}));
}

// ---- element-wise ------------------------------------------------------------------------------------

TEST_P(Distributed, GpuElementwiseMatchesHost) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  for (std::uint64_t n : sizes_for(comm().size())) {
    SCOPED_TRACE(n);
    std::vector<float> a(n), b(n);
    std::vector<std::uint8_t> m(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      a[i] = random_element<float>(seed, i);                       // [-1, 1)
      b[i] = 0.5f + std::abs(random_element<float>(seed + 1, i));  // [0.5, 1.5): sqrt, log, div
      m[i] = static_cast<std::uint8_t>(mix(seed ^ i) & 1);
    }
    sharded<float> da(comm(), n), db(comm(), n), out(comm(), n);
    sharded<std::uint8_t> dm(comm(), n);
    sharded<double> wide(comm(), n);
    da.copy_from(a);
    db.copy_from(b);
    dm.copy_from(m);
    struct op {
      const char* name;
      std::function<void()> call;
      std::function<double(std::uint64_t)> want;
      double ulps;
    };
    const auto A = [&](std::uint64_t i) { return double(a[i]); };
    const auto B = [&](std::uint64_t i) { return double(b[i]); };
    const std::vector<op> ops = {
        {"add", [&] { prism::add(da, db, out); }, [&](auto i) { return A(i) + B(i); }, 1},
        {"sub", [&] { prism::sub(da, db, out); }, [&](auto i) { return A(i) - B(i); }, 1},
        {"mul", [&] { prism::mul(da, db, out); }, [&](auto i) { return A(i) * B(i); }, 1},
        {"div", [&] { prism::div(da, db, out); }, [&](auto i) { return A(i) / B(i); }, 1},
        {"min", [&] { prism::min(da, db, out); }, [&](auto i) { return std::min(A(i), B(i)); }, 0},
        {"max", [&] { prism::max(da, db, out); }, [&](auto i) { return std::max(A(i), B(i)); }, 0},
        {"axpby", [&] { prism::axpby(2.0f, da, -3.0f, db, out); }, [&](auto i) { return 2 * A(i) - 3 * B(i); }, 4},
        {"fma", [&] { prism::fma(da, db, da, out); }, [&](auto i) { return A(i) * B(i) + A(i); }, 2},
        {"where", [&] { prism::where(dm, da, db, out); }, [&](auto i) { return m[i] ? A(i) : B(i); }, 0},
        {"negate", [&] { prism::negate(da, out); }, [&](auto i) { return -A(i); }, 0},
        {"abs", [&] { prism::abs(da, out); }, [&](auto i) { return std::abs(A(i)); }, 0},
        {"square", [&] { prism::square(da, out); }, [&](auto i) { return A(i) * A(i); }, 1},
        {"relu", [&] { prism::relu(da, out); }, [&](auto i) { return std::max(A(i), 0.0); }, 0},
        {"scale", [&] { prism::scale(3.0f, da, out); }, [&](auto i) { return 3 * A(i); }, 1},
        {"clamp", [&] { prism::clamp(da, out, -0.5f, 0.25f); }, [&](auto i) { return std::clamp(A(i), -0.5, 0.25); }, 0},
        {"copy", [&] { prism::copy(da, out); }, A, 0},
        {"sqrt", [&] { prism::sqrt(db, out); }, [&](auto i) { return std::sqrt(B(i)); }, 2},
        {"rsqrt", [&] { prism::rsqrt(db, out); }, [&](auto i) { return 1 / std::sqrt(B(i)); }, 4},
        {"exp", [&] { prism::exp(da, out); }, [&](auto i) { return std::exp(A(i)); }, 4},
        {"log", [&] { prism::log(db, out); }, [&](auto i) { return std::log(B(i)); }, 4},
        {"sin", [&] { prism::sin(da, out); }, [&](auto i) { return std::sin(A(i)); }, 4},
        {"cos", [&] { prism::cos(da, out); }, [&](auto i) { return std::cos(A(i)); }, 4},
        {"tanh", [&] { prism::tanh(da, out); }, [&](auto i) { return std::tanh(A(i)); }, 4},
        {"sigmoid", [&] { prism::sigmoid(da, out); }, [&](auto i) { return 1 / (1 + std::exp(-A(i))); }, 4},
        {"fill", [&] { prism::fill(out, 2.5f); }, [&](auto) { return 2.5; }, 0},
        {"sequence", [&] { prism::sequence(out, -3.0f, 0.5f); }, [&](auto i) { return -3.0 + 0.5 * double(i); }, 2},
    };
    for (const op& o : ops) {
      SCOPED_TRACE(o.name);
      prism::fill(out, std::numeric_limits<float>::quiet_NaN());  // poisoned
      o.call();
      // An absolute floor for results near 0 (2a - 3b cancels, sin, log of values near 1): the
      // rounding of terms of size up to 8.
      expect_held(out, o.want, o.ulps, 16 * std::numeric_limits<float>::epsilon());
    }
    prism::axpy(2.0f, da, db);  // b = 2a + b, in place
    expect_held(db, [&](auto i) { return 2 * A(i) + B(i); }, 2, 4 * std::numeric_limits<float>::epsilon());
    prism::cast(da, wide);
    expect_held(wide, A, 0);
  }
}

// ---- reductions ----------------------------------------------------------------------------------------

template <class T>
struct host_reference {
  double sum = 0, abs_sum = 0, squares = 0, mean = 0, variance = 0, min = 0, max = 0, max_abs = 0;
  std::uint64_t argmin = 0, argmax = 0, negatives = 0;
  explicit host_reference(const std::vector<T>& x) {
    const std::size_t n = x.size();
    if (n == 0) return;
    min = max = double(x[0]);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = double(x[i]);
      sum += v;
      abs_sum += std::abs(v);
      squares += v * v;
      max_abs = std::max(max_abs, std::abs(v));
      negatives += v < 0;
      if (v < min) min = v, argmin = i;
      if (v > max) max = v, argmax = i;
    }
    mean = sum / double(n);
    for (std::size_t i = 0; i < n; ++i) variance += (double(x[i]) - mean) * (double(x[i]) - mean);
    variance /= double(n);
  }
};

// Within a float sum's rounding: eps(T) * sqrt(n) * the sum of magnitudes, times 8.
template <class T>
double sum_tolerance(std::uint64_t n, double magnitude) {
  if constexpr (!std::is_floating_point_v<T>) return 0;
  return 8 * std::numeric_limits<T>::epsilon() * std::sqrt(double(n) + 1) * magnitude;
}

template <class T>
void check_reductions(communicator& comm, std::uint64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::to_string(n) + " elements of " + (std::is_same_v<T, float> ? "float" : "int32"));
  std::vector<T> x(n), y(n);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = random_element<T>(seed, i), y[i] = random_element<T>(seed + 7, i);
  // The largest value twice, in the first and the last shard: argmax must give the first.
  if (n > 2) x[n - 1] = x[0] = static_cast<T>(std::is_floating_point_v<T> ? 2 : (1 << 30));
  const host_reference<T> want(x);
  sharded<T> dx(comm, n), dy(comm, n);
  dx.copy_from(x);
  dy.copy_from(y);
  double dot = 0;
  for (std::uint64_t i = 0; i < n; ++i) dot += double(x[i]) * double(y[i]);

  EXPECT_LE(std::abs(double(prism::sum(dx)) - want.sum), sum_tolerance<T>(n, want.abs_sum));
  if constexpr (std::is_floating_point_v<T>) {
    EXPECT_LE(std::abs(double(prism::dot(dx, dy)) - dot), sum_tolerance<T>(n, double(n)));
  } else {
    // Products of 2^30-sized values: the 64-bit sum wraps, as the reference does here.
    std::uint64_t wrapped = 0;
    for (std::uint64_t i = 0; i < n; ++i)
      wrapped += static_cast<std::uint64_t>(std::int64_t(x[i]) * std::int64_t(y[i]));
    EXPECT_EQ(prism::dot(dx, dy), static_cast<std::int64_t>(wrapped));
  }
  EXPECT_EQ(prism::count_if(dx, prism::comparison::less, T(0)), want.negatives);
  if (n == 0) {
    EXPECT_THROW(prism::min(dx), std::invalid_argument);
    EXPECT_THROW(prism::argmax(dx), std::invalid_argument);
    EXPECT_THROW(prism::mean(dx), std::invalid_argument);
    return;
  }
  EXPECT_EQ(double(prism::min(dx)), want.min);
  EXPECT_EQ(double(prism::max(dx)), want.max);
  const auto mm = prism::minmax(dx);
  EXPECT_EQ(double(mm.min), want.min);
  EXPECT_EQ(double(mm.max), want.max);
  EXPECT_EQ(prism::argmin(dx), want.argmin);
  EXPECT_EQ(prism::argmax(dx), want.argmax);
  using R = prism::real_type<T>;
  // Relative to the values' scale (the variance is at most max_abs^2).
  const double relative = std::is_same_v<R, float> ? 1e-4 : 1e-9;
  EXPECT_NEAR(double(prism::mean(dx)), want.mean, relative * want.max_abs);
  EXPECT_NEAR(double(prism::variance(dx)), want.variance, relative * want.max_abs * want.max_abs);
  EXPECT_NEAR(double(prism::stddev(dx)), std::sqrt(want.variance), relative * want.max_abs);
  if constexpr (std::is_floating_point_v<T>) {
    EXPECT_LE(std::abs(double(prism::norm1(dx)) - want.abs_sum), sum_tolerance<T>(n, want.abs_sum));
    EXPECT_LE(std::abs(double(prism::norm2(dx)) - std::sqrt(want.squares)), sum_tolerance<T>(n, std::sqrt(want.squares) + 1));
    EXPECT_EQ(double(prism::norm_inf(dx)), want.max_abs);
  }
  // Into device memory, on every local GPU: the same values.
  prism::replicated<prism::sum_type<T>> total(comm);
  prism::replicated<std::size_t> where(comm);
  prism::replicated<R> variance(comm);
  prism::sum(dx, total);
  prism::argmax(dx, where);
  prism::variance(dx, variance);
  for (int g = 0; g < comm.local_count(); ++g) {
    EXPECT_EQ(total.to_host(g)[0], prism::sum(dx));
    EXPECT_EQ(where.to_host(g)[0], want.argmax);
    EXPECT_EQ(variance.to_host(g)[0], prism::variance(dx));
  }
}

TEST_P(Distributed, GpuReductionsMatchHost) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  for (std::uint64_t n : sizes_for(comm().size())) {
    check_reductions<float>(comm(), n, seed);
    check_reductions<std::int32_t>(comm(), n, seed);
  }
  // product: values near 1, so that the product neither vanishes nor overflows.
  const std::uint64_t n = 1001;
  std::vector<double> x(n);
  double want = 1;
  for (std::uint64_t i = 0; i < n; ++i) x[i] = 1 + random_element<double>(seed, i) / 64, want *= x[i];
  sharded<double> dx(comm(), n);
  dx.copy_from(x);
  EXPECT_NEAR(prism::product(dx), want, 1e-12 * want);
}

TEST_P(Distributed, GpuNanWinsEveryExtremum) {
  const std::uint64_t n = 100001;
  std::vector<float> x(n);
  const std::uint64_t seed = shared_seed();
  for (std::uint64_t i = 0; i < n; ++i) x[i] = random_element<float>(seed, i);
  x[n - 5] = x[n - 2] = std::numeric_limits<float>::quiet_NaN();  // in the last shard
  sharded<float> dx(comm(), n);
  dx.copy_from(x);
  EXPECT_TRUE(std::isnan(prism::min(dx)));
  EXPECT_TRUE(std::isnan(prism::max(dx)));
  EXPECT_TRUE(std::isnan(prism::norm_inf(dx)));
  EXPECT_EQ(prism::argmin(dx), n - 5);
  EXPECT_EQ(prism::argmax(dx), n - 5);
}

// ---- scans ----------------------------------------------------------------------------------------------

template <class T>
void check_scans(communicator& comm, std::uint64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::to_string(n) + " elements");
  std::vector<T> x(n);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = random_element<T>(seed, i);
  sharded<T> dx(comm, n), out(comm, n);
  dx.copy_from(x);
  for (prism::scan_op op : {prism::scan_op::sum, prism::scan_op::min, prism::scan_op::max}) {
    SCOPED_TRACE(prism::name(op));
    // The float64 reference, wrapping like T for integer sums.
    std::vector<double> inclusive(n), exclusive(n);
    double running = 0, magnitude = 0;
    T wrapped{};
    for (std::uint64_t i = 0; i < n; ++i) {
      const double v = double(x[i]);
      magnitude += std::abs(v);
      if (op == prism::scan_op::sum) {
        if constexpr (std::is_floating_point_v<T>) {
          exclusive[i] = running;
          running += v;
          inclusive[i] = running;
        } else {
          using U = std::make_unsigned_t<T>;
          exclusive[i] = double(wrapped);
          wrapped = static_cast<T>(static_cast<U>(wrapped) + static_cast<U>(x[i]));
          inclusive[i] = double(wrapped);
        }
      } else {
        const bool largest = op == prism::scan_op::max;
        const double identity = std::is_floating_point_v<T>
                                    ? (largest ? -INFINITY : INFINITY)
                                    : double(largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        exclusive[i] = i == 0 ? identity : inclusive[i - 1];
        inclusive[i] = i == 0 ? v : (largest ? std::max(inclusive[i - 1], v) : std::min(inclusive[i - 1], v));
      }
    }
    const double floor = sum_tolerance<T>(n, magnitude + 1);
    prism::fill(out, prism::scalar<T>(poison<T>()));
    prism::inclusive_scan(dx, out, op);
    expect_held(out, [&](std::uint64_t i) { return inclusive[i]; }, 0, floor);
    prism::fill(out, prism::scalar<T>(poison<T>()));
    prism::exclusive_scan(dx, out, op);
    expect_held(out, [&](std::uint64_t i) { return exclusive[i]; }, 0, floor);
    // In place.
    prism::copy(dx, out);
    prism::inclusive_scan(out, out, op);
    expect_held(out, [&](std::uint64_t i) { return inclusive[i]; }, 0, floor);
  }
}

TEST_P(Distributed, GpuScansMatchHost) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  for (std::uint64_t n : sizes_for(comm().size())) {
    check_scans<float>(comm(), n, seed);
    check_scans<std::int32_t>(comm(), n, seed);
  }
  check_scans<double>(comm(), 4097, seed);
  check_scans<std::uint64_t>(comm(), 4097, seed);
}

// ---- sorting ----------------------------------------------------------------------------------------------

// The sort family's order on the bits of K: what prism::sort and the sharded sort sort by.
template <class K>
std::uint64_t ordinal_of(K key) {
  using B = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;
  B x;
  std::memcpy(&x, &key, sizeof x);
  constexpr B sign = B(1) << (sizeof(B) * 8 - 1);
  if constexpr (std::is_unsigned_v<K>) return x;
  else if constexpr (std::is_integral_v<K>) return x ^ sign;
  else {
    if (x == sign) x = 0;  // -0.0 is +0.0
    return (x & sign) ? B(~x) : B(x ^ sign);
  }
}

// Keys with duplicates and, for floating point, both zeros and NaNs of both signs.
template <class K>
std::vector<K> sort_keys_for(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<K> keys(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<K>) {
      const std::uint64_t pick = random() % 16;
      keys[i] = pick == 0   ? K(0.0)
                : pick == 1 ? -K(0.0)
                : pick == 2 ? std::numeric_limits<K>::quiet_NaN()
                : pick == 3 ? -std::numeric_limits<K>::quiet_NaN()
                            : K(std::int64_t(random() % 200) - 100) / K(4);
    } else {
      keys[i] = static_cast<K>(random() % 1000 - (std::is_signed_v<K> ? 500 : 0));
    }
  }
  return keys;
}

// Every index stably by the sort family's order, best (largest, or smallest) first, ties to the
// lower index: the host's stable sort and argsort (smallest first), and its top-k (the first k).
template <class T>
std::vector<std::int64_t> best_first(const std::vector<T>& x, bool largest) {
  std::vector<std::int64_t> order(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return largest ? ordinal_of(x[a]) > ordinal_of(x[b]) : ordinal_of(x[a]) < ordinal_of(x[b]);
  });
  return order;
}

// prism::sort and prism::sort_by_key of sharded arrays against one stable sort on the host: the
// same bits in the same order (values are the global indices, so stability shows), shards whose
// sizes add up, and a report that says how even they are.
template <class K>
void check_sort(communicator& comm, std::uint64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::string(typeid(K).name()) + ", n = " + std::to_string(n));
  const std::vector<K> keys = sort_keys_for<K>(n, seed);
  const std::vector<std::int64_t> order = best_first(keys, false);
  sharded<K> dkeys(comm, n);
  sharded<std::uint32_t> dvalues(comm, n);
  dkeys.copy_from(keys);
  std::vector<std::uint32_t> index(n);
  for (std::uint64_t i = 0; i < n; ++i) index[i] = static_cast<std::uint32_t>(i);
  dvalues.copy_from(index);
  prism::sharded_sort_report report;
  const sharded<K> sorted = prism::sort(dkeys, &report);
  const auto [sorted_keys, sorted_values] = prism::sort_by_key(dkeys, dvalues);
  EXPECT_EQ(sorted.size(), n);
  EXPECT_EQ(sorted.layout().starts, sorted_keys.layout().starts) << "the same keys, the same split";
  EXPECT_EQ(sorted_values.layout().starts, sorted_keys.layout().starts);
  EXPECT_GE(report.imbalance, n == 0 ? 0.0 : 1.0);
  EXPECT_LE(report.largest_shard, n / comm.size() + 2 * n / prism::detail::samples_per_rank + comm.size() + 1);
  std::vector<K> got(n), got_by_key(n);
  std::vector<std::uint32_t> got_values(n, 0xFFFFFFFFu);
  sorted.copy_to(got);
  sorted_keys.copy_to(got_by_key);
  sorted_values.copy_to(got_values);
  int reported = 0;
  for (auto [begin, end] : held(sorted)) {
    for (std::uint64_t i = begin; i < end && reported < 5; ++i) {
      const K want = keys[order[i]];
      // Stable: even the two zeros, equal in the order, keep their places.
      if (std::memcmp(&got[i], &want, sizeof(K)) != 0) ADD_FAILURE() << "sort: element " << i << " (" << ++reported << ")";
      if (std::memcmp(&got_by_key[i], &want, sizeof(K)) != 0 || got_values[i] != order[i])
        ADD_FAILURE() << "sort_by_key: element " << i << " holds index " << got_values[i] << ", want " << order[i]
                      << " (" << ++reported << ")";
    }
  }
}

TEST_P(Distributed, GpuSortIsTheStableSort) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  for (std::uint64_t n : sizes_for(comm().size())) {
    check_sort<float>(comm(), n, seed);
    check_sort<std::uint32_t>(comm(), n, seed);
  }
  check_sort<double>(comm(), 4099, seed);
  check_sort<std::int64_t>(comm(), 4099, seed);
  check_sort<std::int32_t>(comm(), 100003, seed);
  check_sort<std::uint64_t>(comm(), 100003, seed);
}

TEST_P(Distributed, GpuSortOfEqualKeysBalances) {
  // Every key the same: the splitters tell them apart by rank and position, so the shards stay even.
  const std::uint64_t n = (1u << 20) + 7;
  sharded<std::uint32_t> x(comm(), n);
  prism::fill(x, 42u);
  prism::sharded_sort_report report;
  const sharded<std::uint32_t> sorted = prism::sort(x, &report);
  EXPECT_LE(report.imbalance, 1.0 + double(comm().size()) / prism::detail::samples_per_rank + 1e-3);
  EXPECT_EQ(prism::count_if(sorted, prism::comparison::equal, 42u), n);
}

// ---- argsort, histogram, top-k, compact, unique ---------------------------------------------------------------

// What this process holds of a sharded array, by global index (the rest of the vector poisoned).
template <class T>
std::vector<T> held_copy(const sharded<T>& a) {
  std::vector<T> host(a.size(), poison<T>());
  a.copy_to(host);
  return host;
}

template <class K>
void check_argsort(communicator& comm, std::uint64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::string(typeid(K).name()) + ", n = " + std::to_string(n));
  const std::vector<K> keys = sort_keys_for<K>(n, seed);
  const std::vector<std::int64_t> order = best_first(keys, false);
  sharded<K> dkeys(comm, n);
  dkeys.copy_from(keys);
  const sharded<std::int64_t> indices = prism::argsort(dkeys);
  EXPECT_EQ(indices.size(), n);
  const std::vector<std::int64_t> got = held_copy(indices);
  int reported = 0;
  for (auto [begin, end] : held(indices))
    for (std::uint64_t i = begin; i < end && reported < 5; ++i)
      if (got[i] != order[i]) ADD_FAILURE() << "position " << i << ": " << got[i] << ", want " << order[i] << " (" << ++reported << ")";
}

TEST_P(Distributed, GpuArgsortIsTheStableOrder) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  for (std::uint64_t n : sizes_for(comm().size())) check_argsort<float>(comm(), n, seed);
  check_argsort<std::int32_t>(comm(), 4099, seed);
  check_argsort<double>(comm(), 1001, seed);
}

// Equal bins and edges, into replicated counts (poisoned first) and returned, against a host loop
// with histogram.hpp's rules: float bins by histogram_edge, integer bins exact, NaN and the
// samples outside [lo, hi) not counted.
TEST_P(Distributed, GpuHistogramMatchesHost) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  const std::size_t bins = 37;
  for (std::uint64_t n : sizes_for(comm().size())) {
    SCOPED_TRACE(n);
    std::vector<float> x(n);
    std::vector<std::int32_t> y(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      x[i] = i % 97 == 5 ? std::numeric_limits<float>::quiet_NaN() : random_element<float>(seed, i);
      y[i] = static_cast<std::int32_t>(mix(seed ^ i) % 300) - 150;
    }
    const float lo = -0.75f, hi = 0.8f;
    const std::int64_t ilo = -100, ihi = 101;
    std::vector<float> edges(bins + 1);
    for (std::size_t b = 0; b <= bins; ++b) edges[b] = prism::histogram_edge(lo, hi, bins, b);
    std::vector<std::uint64_t> want(bins, 0), want_int(bins, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (x[i] >= lo && x[i] < hi) ++want[std::upper_bound(edges.begin(), edges.end(), x[i]) - edges.begin() - 1];
      if (y[i] >= ilo && y[i] < ihi) ++want_int[(y[i] - ilo) * std::int64_t(bins) / (ihi - ilo)];
    }
    sharded<float> dx(comm(), n);
    sharded<std::int32_t> dy(comm(), n);
    dx.copy_from(x);
    dy.copy_from(y);
    prism::replicated<std::uint32_t> counts(comm(), bins);
    counts.copy_from(std::vector<std::uint32_t>(bins, 0xDEADBEEFu));
    EXPECT_THROW(counts.copy_from(std::vector<std::uint32_t>(bins + 1)), std::invalid_argument);
    prism::histogram(dx, counts, lo, hi);
    for (int g = 0; g < comm().local_count(); ++g) {
      const std::vector<std::uint32_t> got = counts.to_host(g);
      EXPECT_EQ(std::vector<std::uint64_t>(got.begin(), got.end()), want) << "local GPU " << g;
    }
    EXPECT_EQ(prism::histogram(dx, bins, lo, hi), want);
    EXPECT_EQ(prism::histogram(dy, bins, ilo, ihi), want_int);
    prism::replicated<float> dedges(comm(), bins + 1);
    dedges.copy_from(edges);
    EXPECT_EQ(prism::histogram(dx, dedges), want) << "the same bins as edges";
    prism::replicated<std::uint64_t> wide(comm(), bins);
    wide.copy_from(std::vector<std::uint64_t>(bins, ~0ull));
    prism::histogram(dx, dedges, wide);
    EXPECT_EQ(wide.to_host(0), want);
  }
}

template <class T>
void expect_top_k(const std::vector<T>& x, const std::vector<std::int64_t>& order, std::size_t k,
                  const std::vector<T>& values, const std::vector<std::int64_t>& indices) {
  ASSERT_EQ(values.size(), k);
  ASSERT_EQ(indices.size(), k);
  int reported = 0;
  for (std::size_t j = 0; j < k && reported < 5; ++j) {
    // Bit for bit: the value at the index, so a -0.0 stays -0.0.
    if (indices[j] != order[j] || std::memcmp(&values[j], &x[order[j]], sizeof(T)) != 0)
      ADD_FAILURE() << "place " << j << " of " << k << ": index " << indices[j] << ", want " << order[j] << " ("
                    << ++reported << ")";
  }
}

template <class T>
void check_top_k(communicator& comm, std::uint64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::string(typeid(T).name()) + ", n = " + std::to_string(n));
  const std::vector<T> x = sort_keys_for<T>(n, seed);  // duplicates, both zeros, NaNs of both signs
  sharded<T> dx(comm, n);
  dx.copy_from(x);
  for (bool largest : {true, false}) {
    const std::vector<std::int64_t> order = best_first(x, largest);
    // None, one, a few, more than a shard holds, all of them.
    for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5}, n / comm.size() + 2, n}) {
      if (k > n) continue;
      SCOPED_TRACE("k = " + std::to_string(k) + (largest ? ", largest" : ", smallest"));
      const prism::sharded_top_k<T> got = prism::top_k(dx, k, largest);
      expect_top_k(x, order, k, got.values, got.indices);
      prism::replicated<T> values(comm, k);
      prism::replicated<std::int64_t> indices(comm, k);
      values.copy_from(std::vector<T>(k, poison<T>()));
      indices.copy_from(std::vector<std::int64_t>(k, -1));
      prism::top_k(dx, k, values, indices, largest);
      for (int g = 0; g < comm.local_count(); ++g) expect_top_k(x, order, k, values.to_host(g), indices.to_host(g));
    }
  }
}

TEST_P(Distributed, GpuTopKMatchesHost) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  for (std::uint64_t n : sizes_for(comm().size())) {
    check_top_k<float>(comm(), n, seed);
    check_top_k<std::int32_t>(comm(), n, seed);
  }
  check_top_k<double>(comm(), 4097, seed);
  check_top_k<std::uint64_t>(comm(), 4097, seed);
  // k larger than every shard: every candidate of every rank is needed.
  const std::uint64_t n = 3 * static_cast<std::uint64_t>(comm().size()) + 1;
  const std::vector<float> x = sort_keys_for<float>(n, seed + 1);
  sharded<float> dx(comm(), n);
  dx.copy_from(x);
  const auto got = prism::top_k(dx, n - 1);
  expect_top_k(x, best_first(x, true), n - 1, got.values, got.indices);
}

// Values in runs (lengths 1 to 4, so runs cross the shard boundaries), floats with both zeros and NaNs.
template <class T>
std::vector<T> runs_for(std::uint64_t n, std::uint64_t seed) {
  std::vector<T> x(n);
  const std::vector<T> keys = sort_keys_for<T>(n, seed);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = i > 0 && mix(seed ^ (i * 3)) % 4 != 0 ? x[i - 1] : keys[i];
  if constexpr (std::is_floating_point_v<T>) {
    for (std::uint64_t i = 1; i < n; i += 11) x[i] = x[i - 1] == T(0) ? -x[i - 1] : x[i];  // -0.0 after +0.0
  }
  return x;
}

// Compares what this process holds of `got` with the host result `want`, bit for bit, and the
// shards with the data: rank r holds what rank r's shard of the input kept.
template <class T>
void expect_selected(const sharded<T>& got, const std::vector<T>& want, const std::vector<std::uint64_t>& kept_per_rank) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t r = 0; r < kept_per_rank.size(); ++r) EXPECT_EQ(got.layout().count(int(r)), kept_per_rank[r]) << "rank " << r;
  const std::vector<T> host = held_copy(got);
  int reported = 0;
  for (auto [begin, end] : held(got))
    for (std::uint64_t i = begin; i < end && reported < 5; ++i)
      if (std::memcmp(&host[i], &want[i], sizeof(T)) != 0) ADD_FAILURE() << "element " << i << " (" << ++reported << ")";
}

template <class T>
void check_selections(communicator& comm, const std::vector<std::uint64_t>& shard_sizes, std::uint64_t seed) {
  std::uint64_t n = 0;
  for (std::uint64_t m : shard_sizes) n += m;
  SCOPED_TRACE(std::string(typeid(T).name()) + ", n = " + std::to_string(n));
  const std::vector<T> x = runs_for<T>(n, seed);
  std::vector<std::uint8_t> flags(n);
  for (std::uint64_t i = 0; i < n; ++i) flags[i] = mix(seed + i) % 3 == 0 ? 0 : std::uint8_t(1 + i % 5);
  sharded<T> dx(comm, shard_sizes);
  sharded<std::uint8_t> dflags(comm, shard_sizes);
  dx.copy_from(x);
  dflags.copy_from(flags);
  // Host references: std::copy_if and std::unique (== in T: NaN equals nothing, -0.0 equals 0.0).
  std::vector<T> compacted, uniq;
  std::vector<std::uint64_t> compacted_per_rank, unique_per_rank;
  std::uint64_t start = 0;
  for (std::uint64_t m : shard_sizes) {
    std::uint64_t c = 0, u = 0;
    for (std::uint64_t i = start; i < start + m; ++i) {
      if (flags[i] != 0) compacted.push_back(x[i]), ++c;
      if (i == 0 || !(x[i] == x[i - 1])) uniq.push_back(x[i]), ++u;
    }
    compacted_per_rank.push_back(c);
    unique_per_rank.push_back(u);
    start += m;
  }
  std::vector<T> check = x;
  check.erase(std::unique(check.begin(), check.end()), check.end());
  EXPECT_EQ(check.size(), uniq.size()) << "the host references agree";
  expect_selected(prism::compact(dx, dflags), compacted, compacted_per_rank);
  expect_selected(prism::unique(dx), uniq, unique_per_rank);
}

TEST_P(Distributed, GpuCompactAndUniqueMatchHost) {
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE(seed);
  const int k = comm().size();
  for (std::uint64_t n : sizes_for(k)) {
    const auto starts = prism::detail::block_starts(n, k);
    std::vector<std::uint64_t> sizes;
    for (int r = 0; r < k; ++r) sizes.push_back(starts[r + 1] - starts[r]);
    check_selections<float>(comm(), sizes, seed);
  }
  // Uneven shards, empty ones between: a run continues across an empty rank.
  std::vector<std::uint64_t> sizes(k, 0);
  for (int r = 0; r < k; r += 2) sizes[r] = 5 + r;
  check_selections<float>(comm(), sizes, seed);
  check_selections<std::int32_t>(comm(), sizes, seed);
  check_selections<double>(comm(), std::vector<std::uint64_t>(k, 1001), seed);
  check_selections<std::uint8_t>(comm(), std::vector<std::uint64_t>(k, 4097), seed);
  // Every element equal: one survives, on the first non-empty rank.
  sharded<std::uint32_t> same(comm(), 1001);
  prism::fill(same, 7u);
  const sharded<std::uint32_t> one = prism::unique(same);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(one.layout().count(0), 1u);
}

// Refused on every rank before any output is written; the communicator works afterwards.
TEST_P(Distributed, GpuSelectionsRefuseMismatchedArrays) {
  const int k = comm().size();
  const std::uint64_t n = 10;
  std::vector<std::uint64_t> uneven(k, 0);
  uneven[0] = n;
  sharded<float> x(comm(), n);
  sharded<std::uint8_t> flags(comm(), n), shorter(comm(), n - 1), other(comm(), uneven);
  prism::sequence(x, 0.0f, 1.0f);
  flags.copy_from(std::vector<std::uint8_t>(n, 1));
  EXPECT_THROW((void)prism::compact(x, shorter), std::invalid_argument);
  if (k > 1) EXPECT_THROW((void)prism::compact(x, other), std::invalid_argument);
  prism::replicated<float> values(comm(), 3);
  prism::replicated<std::int64_t> indices(comm(), 4);
  values.copy_from(std::vector<float>(3, -1.0f));
  indices.copy_from(std::vector<std::int64_t>(4, -1));
  EXPECT_THROW(prism::top_k(x, 3, values, indices), std::invalid_argument);  // indices of 4
  EXPECT_THROW((void)prism::top_k(x, n + 1), std::invalid_argument);
  prism::replicated<std::uint32_t> counts(comm(), 4);
  counts.copy_from(std::vector<std::uint32_t>(4, 99u));
  EXPECT_THROW(prism::histogram(x, counts, 1.0f, 1.0f), std::invalid_argument);  // lo == hi
#if !PRISM_TEST_MPI
  // Outputs of another communicator (the other mode's, where this run has made it).
  if (communicator* elsewhere = communicators()[modes()[1 - GetParam()].name].get()) {
    prism::replicated<std::uint32_t> foreign(*elsewhere, 4);
    EXPECT_THROW(prism::histogram(x, foreign, 0.0f, 10.0f), std::invalid_argument);
    prism::replicated<float> foreign_values(*elsewhere, 3);
    prism::replicated<std::int64_t> three(comm(), 3);
    EXPECT_THROW(prism::top_k(x, 3, foreign_values, three), std::invalid_argument);
  }
#endif
  for (int g = 0; g < comm().local_count(); ++g) {
    EXPECT_EQ(values.to_host(g), std::vector<float>(3, -1.0f)) << "nothing written";
    EXPECT_EQ(indices.to_host(g), std::vector<std::int64_t>(4, -1));
    EXPECT_EQ(counts.to_host(g), std::vector<std::uint32_t>(4, 99u));
  }
  EXPECT_EQ(prism::compact(x, flags).size(), n);
  EXPECT_EQ(prism::top_k(x, 1).indices, std::vector<std::int64_t>{std::int64_t(n - 1)});
}

// ---- empty shards and mismatched arrays ---------------------------------------------------------------------

TEST_P(Distributed, GpuEmptyShardsContributeNothing) {
  const int k = comm().size();
  const std::uint64_t n = 9;
  // Every element on the last rank, then every element on the first: the others hold nothing.
  for (bool on_last : {true, false}) {
    std::vector<std::uint64_t> sizes(k, 0);
    sizes[on_last ? k - 1 : 0] = n;
    std::vector<float> x(n);
    for (std::uint64_t i = 0; i < n; ++i) x[i] = float(i % 4) - 1.5f;  // -1.5 -0.5 0.5 1.5 ...
    sharded<float> dx(comm(), sizes), out(comm(), sizes);
    dx.copy_from(x);
    EXPECT_EQ(prism::sum(dx), -1.5f);  // (-1.5 - 0.5 + 0.5 + 1.5) * 2 - 1.5
    EXPECT_EQ(prism::argmax(dx), 3u);
    EXPECT_EQ(prism::argmin(dx), 0u);
    EXPECT_FLOAT_EQ(prism::mean(dx), -1.5f / 9);
    prism::inclusive_scan(dx, out);
    double running = 0;
    expect_held(out, [&](std::uint64_t i) {
      running = 0;
      for (std::uint64_t j = 0; j <= i; ++j) running += x[j];
      return running;
    }, 0, 1e-6);
    prism::exclusive_scan(dx, out, prism::scan_op::max);
    expect_held(out, [&](std::uint64_t i) {
      double m = -INFINITY;
      for (std::uint64_t j = 0; j < i; ++j) m = std::max(m, double(x[j]));
      return m;
    }, 0);
  }
}

TEST_P(Distributed, GpuMismatchedShardingsThrowOnEveryRank) {
  const int k = comm().size();
  const std::uint64_t n = 10;
  std::vector<std::uint64_t> uneven(k, 0);
  uneven[0] = n;
  sharded<float> a(comm(), n), b(comm(), uneven), out(comm(), n), shorter(comm(), n - 1);
  prism::fill(a, 1.0f);
  prism::fill(b, 1.0f);
  if (k > 1) {
    // Split differently: every rank knows every rank's boundaries, so every rank throws.
    EXPECT_THROW(prism::add(a, b, out), std::invalid_argument);
    EXPECT_THROW(prism::dot(a, b), std::invalid_argument);
    EXPECT_THROW(prism::inclusive_scan(a, b), std::invalid_argument);
  }
  EXPECT_THROW(prism::add(a, shorter, out), std::invalid_argument);
  EXPECT_THROW(prism::exclusive_scan(shorter, out), std::invalid_argument);
  // The host array must be the whole array.
  std::vector<float> wrong(n + 1);
  EXPECT_THROW(a.copy_from(wrong), std::invalid_argument);
#if PRISM_TEST_MPI
  // Ranks that ask for different arrays all throw, in the constructor, together.
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (k > 1) EXPECT_THROW((void)sharded<float>(comm(), n + rank), std::invalid_argument);
#endif
  // And the communicator still works afterwards.
  EXPECT_EQ(prism::sum(a), float(n));
}

// ---- past 2^31 elements in all ----------------------------------------------------------------------------------

TEST_P(Distributed, GpuHugePast2To31) {
  // 2^31 + 2^20 + 3 uint32 ones (8.6 GB, and as much again for the scan): the sum counts them, the
  // scan numbers them (wrapping past 2^32 is not reached), and an argmax planted past 2^31 is found.
  const std::uint64_t n = (std::uint64_t{1} << 31) + (1u << 20) + 3;
  sharded<std::uint32_t> x(comm(), n), out(comm(), n);
  prism::fill(x, 1u);
  EXPECT_EQ(prism::sum(x), n);
  prism::inclusive_scan(x, out);
  std::vector<std::uint64_t> probes = {0, 1, (std::uint64_t{1} << 31) - 1, std::uint64_t{1} << 31, n - 1};
  for (int r = 0; r <= comm().size(); ++r) {
    const std::uint64_t s = x.layout().start(r);
    if (s > 0) probes.push_back(s - 1);
    if (s < n) probes.push_back(s);
  }
  const std::uint64_t planted = (std::uint64_t{1} << 31) + 12345;
  for (int g = 0; g < x.local_count(); ++g) {
    prism::device_guard guard(comm().device(g));
    comm().synchronize();
    for (std::uint64_t i : probes) {
      if (i < x.local_start(g) || i >= x.local_start(g) + x.local_size(g)) continue;
      std::uint32_t got = 0;
      prism::check(cudaMemcpy(&got, out.local(g).data() + (i - x.local_start(g)), 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      EXPECT_EQ(got, static_cast<std::uint32_t>(i + 1)) << "element " << i;
    }
    if (planted >= x.local_start(g) && planted < x.local_start(g) + x.local_size(g)) {
      const std::uint32_t two = 2;
      prism::check(cudaMemcpy(x.local(g).data() + (planted - x.local_start(g)), &two, 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // landed before the next call
    }
  }
  EXPECT_EQ(prism::argmax(x), planted);
  EXPECT_EQ(prism::sum(x), n + 1);
}

INSTANTIATE_TEST_SUITE_P(Sharded, Distributed, ::testing::Range(0, static_cast<int>(modes().size())), mode_name);

}  // namespace

#if PRISM_TEST_MPI
// MPI's main: every rank runs the tests and prints what it found (--gtest_brief=1: its failures).
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int result = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (result == 0 && unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) result = 77;
  // A rank that failed makes the whole run fail.
  int worst = 0;
  int mine = result == 77 ? 0 : result;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  communicators().clear();  // NCCL before MPI goes
  MPI_Finalize();
  return worst != 0 ? 1 : result;
}
#endif
