// SPDX-License-Identifier: Apache-2.0
// The scan family from Python: scans (sum, min, max; by key too), reduce_by_key (sum, min, max), and the selections whose count comes
// back returned (the call waits) or into a one-element int64/uint64 array (nothing waits). Outputs
// are taken as the library takes them: the input's size, larger, smaller where they hold what is
// written (counted first), or the input itself (in place).
#include "arrays.hpp"

#include <prism/scan.hpp>

#include <string>

namespace prism::python {
namespace {

// The operation of that name, by the library's own names of its scan operations.
prism::scan_op scan_op_from(const std::string& op) {
  std::string names;
  for (scan_op o : {scan_op::sum, scan_op::min, scan_op::max}) {
    if (op == name(o)) return o;
    names += (names.empty() ? "" : ", ") + std::string(name(o));
  }
  throw std::invalid_argument("prism: unknown scan operation '" + op + "' (" + names + ")");
}

template <class T>
using scan_values = std::bool_constant<prism::scan_element<T>>;
template <class T>
using by_key_values = std::bool_constant<prism::by_key_element<T>>;
template <class K>
using scan_keys = std::bool_constant<prism::key_element<K>>;

// Runs f(type_tag<T>{}) for a value type the family is compiled for.
template <class F>
nb::object for_values(const char* algorithm, const array& values, F&& f) {
  return for_offered<scan_values, nb::object>(values, algorithm, "values", f);
}
template <class F>
nb::object for_by_key_values(const char* algorithm, const array& values, F&& f) {
  return for_offered<by_key_values, nb::object>(values, algorithm, "values", f);
}
template <class F>
nb::object for_keys(const char* algorithm, const array& keys, F&& f) {
  return for_offered<scan_keys, nb::object>(keys, algorithm, "keys", f);
}

// Flags of bool or any integer type, as unsigned integers of their size (nonzero keeps: the bits
// decide); flags of 2 bytes are not compiled, nor flags wider than 1 byte over values narrower
// than 4.
template <class T, class F>
nb::object with_flags(const array& flags, F&& f) {
  const auto as = [&](auto bits) -> nb::object {
    using S = decltype(bits);
    return f(prism::span<const S>(static_cast<const S*>(flags.data), flags.size));
  };
  switch (flags.type) {
    case element::boolean:
    case element::u8:
    case element::i8: return as(std::uint8_t{});
    case element::i32:
    case element::u32:
      if constexpr (sizeof(T) >= 4) return as(std::uint32_t{});
      break;
    case element::i64:
    case element::u64:
      if constexpr (sizeof(T) >= 4) return as(std::uint64_t{});
      break;
    default: break;
  }
  throw std::invalid_argument(std::string("prism: flags is ") + name(flags.type) +
                              ", expected bool, int8 or uint8 (or int32, uint32, int64, uint64 over values of 4 or 8 "
                              "bytes)");
}

// The optional count argument.
std::optional<array> optional_count(nb::handle count) {
  if (count.is_none()) return std::nullopt;
  return take(count, "count", true);
}

// A selection's count: returned (count is None) or into count[0].
template <class Entry>
nb::object count_of(const std::optional<array>& count, Entry entry) {
  if (!count) {
    const std::size_t n = without_gil([&] { return entry(static_cast<prism::span<std::size_t>*>(nullptr)); });
    return nb::int_(n);
  }
  prism::span<std::size_t> c = count_span<std::size_t>(*count);
  without_gil([&] { entry(&c); });
  return nb::none();
}

void scan(const std::string& kind, const std::string& op, nb::handle x_, nb::handle out_, const std::string& which,
          std::uintptr_t stream) {
  const scan_op o = scan_op_from(op);
  const char* algorithm = kind == "exclusive" ? "exclusive_scan" : "inclusive_scan";
  const array x = take(x_, "x", false), out = take(out_, "out", true);
  const auto p = policy(algorithm, which, stream);
  for_values(algorithm, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = x.in<T>();
    const auto r = out.out<T>();
    device_scope device(algorithm, {&x, &out});
    without_gil([&] {
      if (kind == "exclusive") prism::exclusive_scan(p, in, r, o);
      else prism::inclusive_scan(p, in, r, o);
    });
    return nb::none();
  });
}

void scan_by_key(const std::string& kind, const std::string& op, nb::handle keys_, nb::handle x_, nb::handle out_,
                 const std::string& which, std::uintptr_t stream) {
  const scan_op o = scan_op_from(op);
  const char* algorithm = kind == "exclusive" ? "exclusive_scan_by_key" : "inclusive_scan_by_key";
  const array keys = take(keys_, "keys", false), x = take(x_, "x", false), out = take(out_, "out", true);
  const auto p = policy(algorithm, which, stream);
  for_keys(algorithm, keys, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    return for_by_key_values(algorithm, out, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto k = keys.in<K>();
      const auto in = x.in<T>();
      const auto r = out.out<T>();
      device_scope device(algorithm, {&keys, &x, &out});
      without_gil([&] {
        if (kind == "exclusive") prism::exclusive_scan_by_key(p, k, in, r, o);
        else prism::inclusive_scan_by_key(p, k, in, r, o);
      });
      return nb::none();
    });
  });
}

nb::object select(const std::string& which_selection, nb::handle values_, nb::handle flags_, nb::handle out_,
                  nb::handle count_, const std::string& which, std::uintptr_t stream) {
  const bool compact = which_selection == "compact";
  const char* algorithm = compact ? "compact" : "partition";
  const array values = take(values_, "values", false), flags = take(flags_, "flags", false),
              out = take(out_, "out", true);
  const auto count = optional_count(count_);
  const auto p = policy(algorithm, which, stream);
  return for_values(algorithm, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = values.in<T>();
    const auto r = out.out<T>();
    return with_flags<T>(flags, [&](auto f) {
      device_scope device(algorithm, {&values, &flags, &out, count ? &*count : nullptr});
      return count_of(count, [&](prism::span<std::size_t>* c) -> std::size_t {
        if (c != nullptr) {
          compact ? prism::compact(p, in, f, r, *c) : prism::partition(p, in, f, r, *c);
          return 0;
        }
        return compact ? prism::compact(p, in, f, r) : prism::partition(p, in, f, r);
      });
    });
  });
}

nb::object unique(nb::handle values_, nb::handle out_, nb::handle count_, const std::string& which,
                  std::uintptr_t stream) {
  const array values = take(values_, "values", false), out = take(out_, "out", true);
  const auto count = optional_count(count_);
  const auto p = policy("unique", which, stream);
  return for_values("unique", out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = values.in<T>();
    const auto r = out.out<T>();
    device_scope device("unique", {&values, &out, count ? &*count : nullptr});
    return count_of(count, [&](prism::span<std::size_t>* c) -> std::size_t {
      if (c != nullptr) {
        prism::unique(p, in, r, *c);
        return 0;
      }
      return prism::unique(p, in, r);
    });
  });
}

nb::object unique_by_key(nb::handle keys_, nb::handle values_, nb::handle keys_out_, nb::handle values_out_,
                         nb::handle count_, const std::string& which, std::uintptr_t stream) {
  const array keys = take(keys_, "keys", false), values = take(values_, "values", false),
              keys_out = take(keys_out_, "keys_out", true), values_out = take(values_out_, "values_out", true);
  const auto count = optional_count(count_);
  const auto p = policy("unique_by_key", which, stream);
  return for_keys("unique_by_key", keys, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    return for_by_key_values("unique_by_key", values_out, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto k = keys.in<K>();
      const auto v = values.in<T>();
      const auto ko = keys_out.out<K>();
      const auto vo = values_out.out<T>();
      device_scope device("unique_by_key", {&keys, &values, &keys_out, &values_out, count ? &*count : nullptr});
      return count_of(count, [&](prism::span<std::size_t>* c) -> std::size_t {
        if (c != nullptr) {
          prism::unique_by_key(p, k, v, ko, vo, *c);
          return 0;
        }
        return prism::unique_by_key(p, k, v, ko, vo);
      });
    });
  });
}

nb::object run_length_encode(nb::handle values_, nb::handle unique_out_, nb::handle counts_out_, nb::handle count_,
                             const std::string& which, std::uintptr_t stream) {
  const array values = take(values_, "values", false), unique_out = take(unique_out_, "unique_out", true),
              counts_out = take(counts_out_, "counts_out", true);
  const auto count = optional_count(count_);
  const auto p = policy("run_length_encode", which, stream);
  return for_values("run_length_encode", unique_out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = values.in<T>();
    const auto u = unique_out.out<T>();
    // Lengths in int32, uint32, int64 or uint64, as the caller's counts_out is.
    const auto encode = [&](auto lengths) -> nb::object {
      device_scope device("run_length_encode", {&values, &unique_out, &counts_out, count ? &*count : nullptr});
      return count_of(count, [&](prism::span<std::size_t>* c) -> std::size_t {
        if (c != nullptr) {
          prism::run_length_encode(p, in, u, lengths, *c);
          return 0;
        }
        return prism::run_length_encode(p, in, u, lengths);
      });
    };
    switch (counts_out.type) {
      case element::i32: return encode(counts_out.out<std::int32_t>());
      case element::u32: return encode(counts_out.out<std::uint32_t>());
      case element::i64: return encode(counts_out.out<std::int64_t>());
      case element::u64: return encode(counts_out.out<std::uint64_t>());
      default:
        throw std::invalid_argument(std::string("prism: counts_out is ") + name(counts_out.type) +
                                    ", expected int32, uint32, int64 or uint64");
    }
  });
}

nb::object reduce_by_key(const std::string& op, nb::handle keys_, nb::handle values_, nb::handle keys_out_,
                         nb::handle sums_out_, nb::handle count_, const std::string& which, std::uintptr_t stream) {
  const scan_op o = scan_op_from(op);
  const array keys = take(keys_, "keys", false), values = take(values_, "values", false),
              keys_out = take(keys_out_, "keys_out", true), sums_out = take(sums_out_, "sums_out", true);
  const auto count = optional_count(count_);
  const auto p = policy("reduce_by_key", which, stream);
  return for_keys("reduce_by_key", keys, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    return for_by_key_values("reduce_by_key", sums_out, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto k = keys.in<K>();
      const auto v = values.in<T>();
      const auto ko = keys_out.out<K>();
      const auto so = sums_out.out<T>();
      device_scope device("reduce_by_key", {&keys, &values, &keys_out, &sums_out, count ? &*count : nullptr});
      return count_of(count, [&](prism::span<std::size_t>* c) -> std::size_t {
        if (c != nullptr) {
          prism::reduce_by_key(p, k, v, ko, so, *c, o);
          return 0;
        }
        return prism::reduce_by_key(p, k, v, ko, so, o);
      });
    });
  });
}

}  // namespace

void bind_scan(nb::module_& m) {
  using namespace nb::literals;
  m.def("scan", &scan, "kind"_a, "op"_a, "x"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("scan_by_key", &scan_by_key, "kind"_a, "op"_a, "keys"_a, "x"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("select", &select, "which"_a, "values"_a, "flags"_a, "out"_a, "count"_a.none(), "impl"_a, "stream"_a);
  m.def("unique", &unique, "values"_a, "out"_a, "count"_a.none(), "impl"_a, "stream"_a);
  m.def("unique_by_key", &unique_by_key, "keys"_a, "values"_a, "keys_out"_a, "values_out"_a, "count"_a.none(),
        "impl"_a, "stream"_a);
  m.def("run_length_encode", &run_length_encode, "values"_a, "unique_out"_a, "counts_out"_a, "count"_a.none(),
        "impl"_a, "stream"_a);
  m.def("reduce_by_key", &reduce_by_key, "op"_a, "keys"_a, "values"_a, "keys_out"_a, "sums_out"_a, "count"_a.none(),
        "impl"_a, "stream"_a);
}

}  // namespace prism::python
