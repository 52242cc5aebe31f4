// SPDX-License-Identifier: Apache-2.0
// Counted outputs of the selections, in every implementation (automatic included): an output of
// exactly the count, one a little larger, one of the input's size and one larger than the input
// are written (the first `count` elements, the rest untouched); one element too few is refused,
// std::invalid_argument naming the count, with every output and the count array untouched. The
// references are exact (integer sums; what a selection keeps is bits).
#include <prism/scan.hpp>

#include "testing.hpp"

#include <cstdint>
#include <functional>
#include <type_traits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

class Counted : public ::testing::TestWithParam<impl> {};

// The registry and automatic (on device memory it runs a GPU implementation).
const impl counted_implementations[] = {impl::cpu, impl::thrust, impl::raw, impl::cub, impl::automatic};

// One output of a selection: `capacity` poisoned elements where the implementation reads them.
template <class T>
struct output {
  placed_array<T> array;
  output(std::size_t capacity, impl which) : array(std::vector<T>(capacity, poison<T>()), memory_of(which)) {}
  // The first `want.size()` elements are `want`, the others still poisoned.
  ::testing::AssertionResult holds(const std::vector<T>& want) const {
    const auto got = array.values();
    for (std::size_t i = 0; i < got.size(); ++i) {
      const T expected = i < want.size() ? want[i] : poison<T>();
      if (!same(got[i], expected)) {
        return ::testing::AssertionFailure() << "element " << i << " of " << got.size() << ": got " << +got[i]
                                             << ", want " << +expected << (i < want.size() ? "" : " (untouched)");
      }
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult untouched() const { return holds({}); }

 private:
  static bool same(T a, T b) { return element_bits(a) == element_bits(b); }
};

// Runs `call(count)` (count null: returned; else into a poisoned one-element array) with outputs of
// every capacity below; `Case` makes the outputs (make(capacity)), runs (run(outputs, policy, count))
// and checks them (holds(outputs), untouched(outputs)). `need` is the smallest output the call
// takes: the count, or n for a partition. `written` is what it returns.
template <class Case>
void check_counted(impl which, const char* what, std::size_t n, std::size_t need, std::size_t written, Case&& c) {
  SCOPED_TRACE(::testing::Message() << what << ", n " << n << ", writes " << written);
  const auto policy = prism::par.with(which);
  const std::size_t poisoned = 0xDEADBEEF;
  const auto run = [&](std::size_t capacity, bool refused) {
    SCOPED_TRACE(::testing::Message() << "output of " << capacity << (refused ? " (too small)" : ""));
    for (bool returned : {true, false}) {
      auto outputs = c.make(capacity);
      placed_array<std::size_t> count(std::vector<std::size_t>{poisoned}, memory_of(which));
      prism::span<std::size_t> destination = count.view();
      try {
        const std::size_t got = c.run(outputs, policy, returned ? nullptr : &destination);
        synchronize_for(which);
        EXPECT_FALSE(refused) << "an output too small was taken";
        EXPECT_EQ(returned ? got : count.values()[0], written);
        EXPECT_TRUE(c.holds(outputs));
      } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(refused) << e.what();
        EXPECT_NE(std::string(e.what()).find(" " + std::to_string(need) + " "), std::string::npos)
            << "the refusal names what the output must hold: " << e.what();
        EXPECT_TRUE(c.untouched(outputs));
        EXPECT_EQ(count.values()[0], poisoned) << "the count array changed";
      }
    }
  };
  for (std::size_t capacity : {need, need + 3, n, n + 5}) {
    if (capacity >= need) run(capacity, false);
  }
  if (need > 0) run(need - 1, true);
}

template <class T>
std::vector<T> in_runs(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(1 + mix(seed ^ mix(i / 3)) % 5);
  return v;
}

template <class T>
void check_selections(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", seed " << seed);
  const auto x = random_vector<T>(n, seed);
  std::vector<std::uint8_t> flags(n);
  for (std::size_t i = 0; i < n; ++i) flags[i] = mix(seed + i) % 7 == 0 ? 3 : 0;
  std::vector<T> kept, others;
  for (std::size_t i = 0; i < n; ++i) (flags[i] ? kept : others).push_back(x[i]);
  placed_array<T> dx(x, memory_of(which));
  placed_array<std::uint8_t> df(flags, memory_of(which));

  struct one_output {
    std::vector<T> want;
    std::function<std::size_t(prism::span<T>, const prism::execution_policy&, prism::span<std::size_t>*)> call;
    impl which;
    output<T> make(std::size_t capacity) const { return output<T>(capacity, which); }
    std::size_t run(output<T>& o, const prism::execution_policy& p, prism::span<std::size_t>* c) const {
      return call(o.array.view(), p, c);
    }
    ::testing::AssertionResult holds(const output<T>& o) const { return o.holds(want); }
    ::testing::AssertionResult untouched(const output<T>& o) const { return o.untouched(); }
  };
  one_output compact{kept, [&](prism::span<T> out, const prism::execution_policy& p, prism::span<std::size_t>* c) {
                       if (c == nullptr) return prism::compact(p, dx.view(), df.view(), out);
                       prism::compact(p, dx.view(), df.view(), out, *c);
                       return std::size_t{0};
                     }, which};
  check_counted(which, "compact", n, kept.size(), kept.size(), compact);

  std::vector<T> parted = kept;
  parted.insert(parted.end(), others.begin(), others.end());
  one_output partition{parted, [&](prism::span<T> out, const prism::execution_policy& p, prism::span<std::size_t>* c) {
                         if (c == nullptr) return prism::partition(p, dx.view(), df.view(), out);
                         prism::partition(p, dx.view(), df.view(), out, *c);
                         return std::size_t{0};
                       }, which};
  check_counted(which, "partition", n, n, kept.size(), partition);

  const auto r = in_runs<T>(n, seed);
  std::vector<T> heads;
  std::vector<std::uint64_t> lengths;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || r[i - 1] != r[i]) {
      heads.push_back(r[i]);
      lengths.push_back(0);
    }
    ++lengths.back();
  }
  placed_array<T> dr(r, memory_of(which));
  one_output unique{heads, [&](prism::span<T> out, const prism::execution_policy& p, prism::span<std::size_t>* c) {
                      if (c == nullptr) return prism::unique(p, dr.view(), out);
                      prism::unique(p, dr.view(), out, *c);
                      return std::size_t{0};
                    }, which};
  check_counted(which, "unique", n, heads.size(), heads.size(), unique);

  // run_length_encode: both outputs of one capacity, then the counts' `spare` elements larger.
  struct encoded {
    std::vector<T> want_values;
    std::vector<std::uint64_t> want_counts;
    std::size_t spare;
    impl which;
    placed_array<T>* input;
    struct arrays {
      output<T> values;
      output<std::uint64_t> counts;
    };
    arrays make(std::size_t capacity) const {
      return {output<T>(capacity, which), output<std::uint64_t>(capacity + spare, which)};
    }
    std::size_t run(arrays& a, const prism::execution_policy& p, prism::span<std::size_t>* c) const {
      if (c == nullptr) return prism::run_length_encode(p, input->view(), a.values.array.view(), a.counts.array.view());
      prism::run_length_encode(p, input->view(), a.values.array.view(), a.counts.array.view(), *c);
      return 0;
    }
    ::testing::AssertionResult holds(const arrays& a) const {
      if (auto r = a.values.holds(want_values); !r) return r;
      return a.counts.holds(want_counts);
    }
    ::testing::AssertionResult untouched(const arrays& a) const {
      if (auto r = a.values.untouched(); !r) return r;
      return a.counts.untouched();
    }
  };
  for (std::size_t spare : {std::size_t{0}, std::size_t{4}}) {
    check_counted(which, "run_length_encode", n, heads.size(), heads.size(), encoded{heads, lengths, spare, which, &dr});
  }
}

// unique_by_key and reduce_by_key: keys of K, values of T (integers: the sums are exact).
template <class K, class T>
void check_by_key(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << type_name<T>() << " values, seed " << seed);
  const auto keys = in_runs<K>(n, seed);
  const auto x = random_vector<T>(n, seed);
  std::vector<K> run_keys;
  std::vector<T> firsts, sums;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i - 1] != keys[i]) {
      run_keys.push_back(keys[i]);
      firsts.push_back(x[i]);
      sums.push_back(T(0));
    }
    using U = std::make_unsigned_t<T>;  // integers wrap, as the library's sums do
    sums.back() = static_cast<T>(static_cast<U>(static_cast<U>(sums.back()) + static_cast<U>(x[i])));
  }
  placed_array<K> dk(keys, memory_of(which));
  placed_array<T> dx(x, memory_of(which));
  struct by_key {
    std::vector<K> want_keys;
    std::vector<T> want_values;
    std::size_t spare;
    impl which;
    bool reduce;
    placed_array<K>* dk;
    placed_array<T>* dx;
    struct arrays {
      output<K> keys;
      output<T> values;
    };
    arrays make(std::size_t capacity) const { return {output<K>(capacity, which), output<T>(capacity + spare, which)}; }
    std::size_t run(arrays& a, const prism::execution_policy& p, prism::span<std::size_t>* c) const {
      if (reduce) {
        if (c == nullptr) return prism::reduce_by_key(p, dk->view(), dx->view(), a.keys.array.view(), a.values.array.view());
        prism::reduce_by_key(p, dk->view(), dx->view(), a.keys.array.view(), a.values.array.view(), *c);
      } else {
        if (c == nullptr) return prism::unique_by_key(p, dk->view(), dx->view(), a.keys.array.view(), a.values.array.view());
        prism::unique_by_key(p, dk->view(), dx->view(), a.keys.array.view(), a.values.array.view(), *c);
      }
      return 0;
    }
    ::testing::AssertionResult holds(const arrays& a) const {
      if (auto r = a.keys.holds(want_keys); !r) return r;
      return a.values.holds(want_values);
    }
    ::testing::AssertionResult untouched(const arrays& a) const {
      if (auto r = a.keys.untouched(); !r) return r;
      return a.values.untouched();
    }
  };
  for (std::size_t spare : {std::size_t{0}, std::size_t{4}}) {
    check_counted(which, "unique_by_key", n, run_keys.size(), run_keys.size(),
                  by_key{run_keys, firsts, spare, which, false, &dk, &dx});
    check_counted(which, "reduce_by_key", n, run_keys.size(), run_keys.size(),
                  by_key{run_keys, sums, spare, which, true, &dk, &dx});
  }
}

const std::size_t counted_sizes[] = {0, 1, 3, 1000, 4099, 100003};

TEST_P(Counted, EverySelection) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : counted_sizes) {
    for_each_type(types<float, double, std::int32_t, std::uint64_t>{},
                  [&]<class T>() { check_selections<T>(GetParam(), n); });
    check_by_key<std::int32_t, std::int32_t>(GetParam(), n);
    check_by_key<std::uint64_t, std::int64_t>(GetParam(), n);
  }
}

// An output smaller than its input that starts at the input is a partial overlap, refused before
// anything is counted; an input-sized or larger one there is in place.
TEST_P(Counted, SmallerOutputOverTheInputIsRefused) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto policy = prism::par.with(which);
  const std::vector<float> x{1, 1, 2, 2, 3, 3, 3, 4};
  placed_array<float> dx(x, memory_of(which));
  EXPECT_THROW(prism::unique(policy, dx.view(), dx.view().subspan(0, 6)), std::invalid_argument);
  EXPECT_EQ(dx.values(), x);
  EXPECT_EQ(prism::unique(policy, dx.view(), dx.view()), 4u);
  EXPECT_EQ(dx.values()[3], 4.0f);
}

// A counted output waits for its count: refused inside a graph capture, the capture still valid.
TEST(GpuCounted, RefusedInsideACapture) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (impl which : {impl::raw, impl::cub, impl::automatic}) {
    SCOPED_TRACE(prism::name(which));
    std::vector<float> x(1000, 1.0f);
    std::vector<std::uint8_t> flags(1000, 0);
    flags[7] = 1;
    placed_array<float> dx(x, memory::device);
    placed_array<std::uint8_t> df(flags, memory::device);
    placed_array<float> out(std::vector<float>(10, poison<float>()), memory::device);
    placed_array<std::size_t> count(std::vector<std::size_t>{0}, memory::device);
    cudaStream_t stream = nullptr;
    prism::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    prism::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    EXPECT_THROW(prism::compact(prism::par.on(stream).with(which), dx.view(), df.view(), out.view(), count.view()),
                 std::invalid_argument);
    cudaGraph_t graph = nullptr;
    EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the capture was invalidated";
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
}

INSTANTIATE_TEST_SUITE_P(, Counted,
                         ::testing::ValuesIn(std::begin(counted_implementations), std::end(counted_implementations)),
                         impl_name);

}  // namespace
