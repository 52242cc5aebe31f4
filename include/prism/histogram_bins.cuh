// SPDX-License-Identifier: Apache-2.0
#pragma once
// The histogram family's binners: which bin a sample falls into, or -1 when it is not counted.
// Every implementation of <prism/histogram.cuh> asks one of them, so all count by the same rule,
// bit for bit:
//   even_float_bins   equal bins of float or double samples: a fast guess in T, settled against
//                     the edges (histogram_edge) where the guess is too close to one to trust
//   even_integer_bins equal bins of uint8 or int32 samples: exact, in integers
//   edge_bins         the caller's edges: a binary search
//   caller_bins       the caller's own binner: its answer, when it is one of the bins
#include <prism/histogram.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

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

// The caller's binner, bin(sample) -> an integer: counted when it is in [0, bins), else not.
template <class T, class Binner>
struct caller_bins {
  Binner bin;
  unsigned bins;
  __host__ __device__ int operator()(const T& x) const {
    const auto b = bin(x);
    using B = decltype(b);
    static_assert(std::is_integral_v<B>, "a binner returns an integer bin");
    if constexpr (std::is_signed_v<B>) {
      if (b < 0) return -1;
    }
    return static_cast<unsigned long long>(b) < bins ? static_cast<int>(b) : -1;
  }
};

}  // namespace prism::detail
