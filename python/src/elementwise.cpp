// SPDX-License-Identifier: Apache-2.0
// The element-wise family from Python: each binding takes its arrays, picks the element type from
// the output (the inputs must have the same one, as in C++), and calls the library's compiled
// entry point for that type with the GIL released. Which operation runs is a string, mapped here
// onto the library's own operation enums: one binding per shape of operation, as in the library.
#include "calls.hpp"

#include <prism/elementwise.hpp>
#include <prism/gather.hpp>

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace prism::python {
namespace {

template <class T>
using arithmetic = std::bool_constant<prism::arithmetic_element<T>>;

// Runs f(type_tag<T>{}) for out's type, or refuses a type the family does not compute in.
template <class F>
void for_output(const char* algorithm, const array& out, F&& f) {
  for_offered<arithmetic>(out, algorithm, "outputs", f);
}

// ---- operands: an array, or one value for every element -------------------------------------------
// NumPy broadcasts a scalar (np.add(x, 1), np.where(x > 0, x, 0)), and so do the binary operations
// and where: an operand may be one value in place of an array. A Python int, float or bool (exactly
// those types) is converted to the result's element type, as NumPy 2 converts Python numbers (a
// float for an integer array is refused, as is an integer out of range); an array of one element
// beside longer arrays (a NumPy scalar, a 0-d array, a reduction's result) must have that type,
// and a GPU one is read first: the call waits for it (a NumPy one beside GPU arrays is read on the
// host). The value is written into a temporary array of the call's length (fill), which the
// operation reads: one more pass, and that array's memory.

bool is_number(nb::handle x) noexcept {
  PyObject* o = x.ptr();
  return PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o);
}

// What the call reads of an operand: None for a number (it is not an array).
nb::handle array_or_none(nb::handle x) noexcept { return is_number(x) ? nb::none() : x; }

struct operand {
  nb::handle object;
  const char* role;
  array values;           // as the call took it; empty for a number
  bool number = false;
  bool repeated = false;  // one value standing for every element
};

// Takes the operands, each refused by its name before anything is made.
void take_operands(call& c, std::span<operand> operands) {
  for (operand& o : operands) {
    o.number = is_number(o.object);
    if (!o.number) o.values = c.take(o.object, o.role, false);
  }
}

// The length of the first operand that is an array of other than one element, if one is.
std::optional<std::size_t> length_of(std::span<const operand> operands) {
  for (const operand& o : operands)
    if (!o.number && o.values.size != 1) return o.values.size;
  return std::nullopt;
}

// Marks the operands that stand for one value in a call of n elements: the numbers, the arrays of
// one element where n is not 1, and in a call on a GPU a host array of one element (a NumPy
// scalar or array beside torch or CuPy arrays, as those libraries take NumPy scalars), which is
// read on the host whatever n is.
void repeat(std::span<operand> operands, std::size_t n, const call& c) {
  for (operand& o : operands)
    o.repeated = o.number || (o.values.size == 1 && (n != 1 || (c.device() >= 0 && !o.values.on_gpu())));
}

// The first operand that is an array of the call's length (not one value repeated), or null.
const operand* full_length(std::span<const operand> operands) noexcept {
  for (const operand& o : operands)
    if (!o.repeated) return &o;
  return nullptr;
}

// A number that becomes an element of T (fill's value, a binary operation's operand), as the
// scalar type's value. A half is the one nearest the number, one rounding, as NumPy converts a
// Python float (through float it would round twice: 1 + 2^-11 + 2^-40 to 1, not 1 + 2^-10); a
// bfloat16 goes through float, as PyTorch and ml_dtypes convert one.
template <class T>
prism::scalar<T> element_from(nb::handle value, const char* what) {
  using S = prism::scalar<T>;
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<S>(__half(scalar_from<double>(value, what)));
  } else {
    return scalar_from<S>(value, what);
  }
}

// The operands checked before the device is touched: an array not of T is refused, a number is
// converted to T's element nearest it (element_from; refused out of its range). Returns the numbers' values.
template <class T>
std::array<prism::scalar<T>, 2> check_operands(std::span<const operand, 2> operands) {
  std::array<prism::scalar<T>, 2> numbers{};
  for (int i = 0; i < 2; ++i)
    if (operands[i].number) numbers[i] = element_from<T>(operands[i].object, operands[i].role);
    else (void)operands[i].values.in<T>();
  return numbers;
}

// f(x, y) with the two operands as spans of T: an array as it is, a repeated one as a temporary
// array of n elements filled with its value (a number's, or an array's one element, read first),
// alive while f runs. On the call's device.
template <class T, class F>
void with_values(const char* algorithm, call& c, std::span<operand, 2> operands,
                 std::array<prism::scalar<T>, 2> values, std::size_t n, const prism::execution_policy& p, F&& f) {
  using S = prism::scalar<T>;
  for (int i = 0; i < 2; ++i)
    if (operands[i].repeated && !operands[i].number) {
      T v{};
      read_first(operands[i].values, &v, sizeof(T), c.stream(), algorithm);
      values[i] = static_cast<S>(v);
    }
  nb::object made[2];
  array filled[2];
  prism::span<const T> spans[2];
  for (int i = 0; i < 2; ++i) {
    if (!operands[i].repeated) {
      spans[i] = operands[i].values.in<T>();
      continue;
    }
    made[i] = c.allocate({static_cast<std::int64_t>(n)}, name(element_of<T>()));
    filled[i] = c.take(made[i], operands[i].role, true);
    const auto full = filled[i].out<T>();
    without_gil([&] { detail::elementwise<T>::generate(p, generator_op::fill, full, values[i], S{}); });
    spans[i] = full;
  }
  f(spans[0], spans[1]);
}

// One entry per binary operation of the family's table (prism::ops::binaries): the whole call,
// from the caller's arrays (out allocated like the array operand when it is None) to the result.
template <class Op>
nb::object binary(nb::handle a_, nb::handle b_, nb::handle out_, const std::string& which, nb::handle stream) {
  call c({array_or_none(a_), array_or_none(b_), out_}, stream);
  nb::object result;
  {
    operand operands[2] = {{a_, "a"}, {b_, "b"}};
    take_operands(c, operands);
    array out;
    if (!out_.is_none()) result = nb::borrow(out_), out = c.take(result, "out", true);
    // The length of the longer array, else of out: NumPy broadcasts one value to out's shape too.
    const std::size_t n = length_of(operands).value_or(out_.is_none() ? 1 : out.size);
    repeat(operands, n, c);
    if (out_.is_none()) {
      const operand* shape = full_length(operands);
      if (shape == nullptr)
        throw std::invalid_argument(std::string("prism.") + Op::name +
                                    ": a and b are both numbers: one must be an array (or give out=)");
      result = c.like(shape->object, nb::none(), false);
      out = c.take(result, "out", true);
    }
    const auto p = policy(Op::name, which, c.stream());
    for_output(Op::name, out, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto z = out.out<T>();
      const auto numbers = check_operands<T>(operands);
      device_scope device(Op::name, {&operands[0].values, &operands[1].values, &out});
      with_values<T>(Op::name, c, operands, numbers, n, p, [&](auto x, auto y) {
        without_gil([&] { detail::elementwise<T>::binary(p, ops::binary<Op>::code, x, y, z); });
      });
    });
  }
  c.done();
  return result;
}

// One entry per unary operation of the table (prism::ops::unaries), for the types it offers.
template <class Op>
nb::object unary(nb::handle x_, nb::handle out_, const std::string& which, nb::handle stream) {
  call c({x_, out_}, stream);
  nb::object result;
  {
    const array x = c.take(x_, "x", false);
    result = out_.is_none() ? c.like(x_, nb::none(), false) : nb::borrow(out_);
    const array out = c.take(result, "out", true);
    const auto p = policy(Op::name, which, c.stream());
    for_output(Op::name, out, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (ops::unary<Op>::template offered<T>) {
        const auto in = x.in<T>();
        const auto r = out.out<T>();
        device_scope device(Op::name, {&x, &out});
        without_gil([&] { detail::elementwise<T>::unary(p, ops::unary<Op>::code, in, r, {}, {}); });
      } else {
        const std::string offered = offered_names([](auto t) {
          using U = typename decltype(t)::type;
          if constexpr (prism::arithmetic_element<U>) return ops::unary<Op>::template offered<U>;
          else return false;
        });
        throw std::invalid_argument(std::string("prism.") + Op::name + ": not offered for " + name(out.type) +
                                    " (" + offered + ")");
      }
    });
  }
  c.done();
  return result;
}

// scale (p = alpha) and clamp (p = lo, q = hi).
void scale_or_clamp(const std::string& op, nb::handle x_, nb::handle out_, nb::handle p_, nb::handle q_,
                    const std::string& which, std::uintptr_t stream) {
  const bool clamp = op == "clamp";
  const array x = take(x_, "x", false), out = take(out_, "out", true);
  const auto p = policy(op.c_str(), which, stream);
  for_output(op.c_str(), out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = prism::scalar<T>;
    const S first = scalar_from<S>(p_, clamp ? "lo" : "alpha");
    const S second = clamp ? scalar_from<S>(q_, "hi") : S{};
    const auto in = x.in<T>();
    const auto result = out.out<T>();
    device_scope device(op.c_str(), {&x, &out});
    without_gil([&] {
      detail::elementwise<T>::unary(p, clamp ? unary_op::clamp : unary_op::scale, in, result, first, second);
    });
  });
}

void axpby(const std::string& algorithm, nb::handle alpha_, nb::handle x_, nb::handle beta_, nb::handle y_,
           nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array x = take(x_, "x", false), y = take(y_, "y", false), out = take(out_, "out", true);
  const auto p = policy(algorithm.c_str(), which, stream);
  for_output(algorithm.c_str(), out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = prism::scalar<T>;
    const S alpha = scalar_from<S>(alpha_, "alpha"), beta = scalar_from<S>(beta_, "beta");
    const auto a = x.in<T>(), b = y.in<T>();
    const auto z = out.out<T>();
    device_scope device(algorithm.c_str(), {&x, &y, &out});
    const char* name = algorithm == "axpy" ? "axpy" : "axpby";
    without_gil([&] { detail::elementwise<T>::axpby(p, name, alpha, a, beta, b, z); });
  });
}

void fma(nb::handle a_, nb::handle b_, nb::handle c_, nb::handle out_, const std::string& which,
         std::uintptr_t stream) {
  const array a = take(a_, "a", false), b = take(b_, "b", false), c = take(c_, "c", false),
              out = take(out_, "out", true);
  const auto p = policy("fma", which, stream);
  for_output("fma", out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto x = a.in<T>(), y = b.in<T>(), z = c.in<T>();
    const auto r = out.out<T>();
    device_scope device("fma", {&a, &b, &c, &out});
    without_gil([&] { detail::elementwise<T>::fma(p, x, y, z, r); });
  });
}

// The condition is bytes: uint8 or bool (NumPy's and PyTorch's bool are one byte, 0 or 1).
prism::span<const std::uint8_t> condition_bytes(const array& condition) {
  if (condition.type != element::u8 && condition.type != element::boolean)
    throw std::invalid_argument(std::string("prism: ") + condition.role + " is " + name(condition.type) +
                                ", expected bool or uint8");
  return {static_cast<const std::uint8_t*>(condition.data), condition.size};
}

// out[i] = a[i] where condition[i], else b[i]. Without out=, the result has the shape of the
// condition (of a or b where one is as long) and the type of a or b, whichever is an array; of
// numbers alone, NumPy's: float64 if one is a float, else int64 (bool for two bools: refused).
nb::object where(nb::handle condition_, nb::handle a_, nb::handle b_, nb::handle out_, const std::string& which,
                 nb::handle stream) {
  call c({array_or_none(a_), array_or_none(b_), condition_, out_}, stream);
  nb::object result;
  {
    const array condition = c.take(condition_, "condition", false);
    operand operands[2] = {{a_, "a"}, {b_, "b"}};
    take_operands(c, operands);
    const auto mask = condition_bytes(condition);
    repeat(operands, condition.size, c);
    if (out_.is_none()) {
      const operand* shape = full_length(operands);
      const operand* typed = !operands[0].number ? &operands[0] : !operands[1].number ? &operands[1] : nullptr;
      nb::object dtype = nb::none();
      if (shape == nullptr && typed != nullptr) {
        dtype = nb::str(name(typed->values.type));
      } else if (shape == nullptr) {
        const bool floats = PyFloat_CheckExact(a_.ptr()) || PyFloat_CheckExact(b_.ptr());
        const bool bools = PyBool_Check(a_.ptr()) && PyBool_Check(b_.ptr());
        dtype = nb::str(floats ? "float64" : bools ? "bool" : "int64");
      }
      result = c.like(shape != nullptr ? shape->object : condition_, dtype, false);
    } else {
      result = nb::borrow(out_);
    }
    const array out = c.take(result, "out", true);
    const auto p = policy("where", which, c.stream());
    for_output("where", out, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto r = out.out<T>();
      const auto numbers = check_operands<T>(operands);
      device_scope device("where", {&condition, &operands[0].values, &operands[1].values, &out});
      with_values<T>("where", c, operands, numbers, condition.size, p, [&](auto x, auto y) {
        without_gil([&] { detail::elementwise<T>::where(p, mask, x, y, r); });
      });
    });
  }
  c.done();
  return result;
}

void generate(const std::string& op, nb::handle out_, nb::handle start_, nb::handle step_,
              const std::string& which, std::uintptr_t stream) {
  const generator_op o = op == "fill" ? generator_op::fill : generator_op::sequence;
  const array out = take(out_, "out", true);
  const auto p = policy(op.c_str(), which, stream);
  for_output(op.c_str(), out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = prism::scalar<T>;
    const S start = o == generator_op::fill ? element_from<T>(start_, "value") : scalar_from<S>(start_, "start");
    const S step = step_.is_none() ? S{} : scalar_from<S>(step_, "step");
    const auto r = out.out<T>();
    device_scope device(op.c_str(), {&out});
    without_gil([&] { detail::elementwise<T>::generate(p, o, r, start, step); });
  });
}

// cast: every pair of types the library converts between (prism::castable).
void cast(nb::handle x_, nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array x = take(x_, "x", false), out = take(out_, "out", true);
  const auto p = policy("cast", which, stream);
  visit(x.type, [&](auto from_tag) {
    visit(out.type, [&](auto to_tag) {
      using From = typename decltype(from_tag)::type;
      using To = typename decltype(to_tag)::type;
      if constexpr (prism::castable<From, To>) {
        const auto in = x.in<From>();
        const auto r = out.out<To>();
        device_scope device("cast", {&x, &out});
        without_gil([&] { detail::conversion<From, To>::cast(p, in, r); });
      } else {
        throw std::invalid_argument(std::string("prism.cast: no conversion from ") + name(x.type) + " to " +
                                    name(out.type));
      }
    });
  });
}

void adjacent_difference(nb::handle x_, nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array x = take(x_, "x", false), out = take(out_, "out", true);
  const auto p = policy("adjacent_difference", which, stream);
  for_output("adjacent_difference", out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = x.in<T>();
    const auto r = out.out<T>();
    device_scope device("adjacent_difference", {&x, &out});
    without_gil([&] { detail::elementwise<T>::adjacent_difference(p, in, r); });
  });
}

// gather (map, values, out) and scatter (values, map, out): any element type, moved as bits; the
// map int32 or int64.
void permute(const std::string& op, nb::handle first_, nb::handle second_, nb::handle out_, bool checked,
             const std::string& which, std::uintptr_t stream) {
  const bool gather = op == "gather";
  const array first = take(first_, gather ? "map" : "values", false),
              second = take(second_, gather ? "values" : "map", false), out = take(out_, "out", true);
  const array& map = gather ? first : second;
  const array& values = gather ? second : first;
  const auto p = policy(op.c_str(), which, stream);
  const prism::bounds b = checked ? prism::bounds::checked : prism::bounds::unchecked;
  if (map.type != element::i32 && map.type != element::i64)
    throw std::invalid_argument("prism." + op + ": map is " + name(map.type) + ", expected int32 or int64");
  visit(out.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto v = values.in<T>();
    const auto r = out.out<T>();
    device_scope device(op.c_str(), {&first, &second, &out});
    const auto run = [&](auto m) {
      without_gil([&] { gather ? prism::gather(p, m, v, r, b) : prism::scatter(p, v, m, r, b); });
    };
    map.type == element::i32 ? run(map.in<std::int32_t>()) : run(map.in<std::int64_t>());
  });
}

// gather_if (map, values, where, out) and scatter_if (values, map, where, out): gather and scatter
// where the mask (bool or uint8) is set, the other elements of out untouched (NumPy's where=).
void permute_where(const std::string& op, nb::handle first_, nb::handle second_, nb::handle mask_, nb::handle out_,
                   bool checked, const std::string& which, std::uintptr_t stream) {
  const bool gather = op == "gather";
  const array first = take(first_, gather ? "map" : "values", false),
              second = take(second_, gather ? "values" : "map", false), mask = take(mask_, "where", false),
              out = take(out_, "out", true);
  const array& map = gather ? first : second;
  const array& values = gather ? second : first;
  const auto p = policy(op.c_str(), which, stream);
  const prism::bounds b = checked ? prism::bounds::checked : prism::bounds::unchecked;
  if (map.type != element::i32 && map.type != element::i64)
    throw std::invalid_argument("prism." + op + ": map is " + name(map.type) + ", expected int32 or int64");
  const auto s = condition_bytes(mask);
  visit(out.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto v = values.in<T>();
    const auto r = out.out<T>();
    device_scope device(op.c_str(), {&first, &second, &mask, &out});
    const auto run = [&](auto m) {
      without_gil([&] { gather ? prism::gather_if(p, m, s, v, r, b) : prism::scatter_if(p, v, m, s, r, b); });
    };
    map.type == element::i32 ? run(map.in<std::int32_t>()) : run(map.in<std::int64_t>());
  });
}

// out = x reversed (np.flip of a 1-D array); out may be x (in place).
void flip(nb::handle x_, nb::handle out_, const std::string& which, std::uintptr_t stream) {
  const array x = take(x_, "x", false), out = take(out_, "out", true);
  const auto p = policy("flip", which, stream);
  visit(out.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = x.in<T>();
    const auto r = out.out<T>();
    device_scope device("flip", {&x, &out});
    without_gil([&] { prism::reverse(p, in, r); });
  });
}

}  // namespace

void bind_elementwise(nb::module_& m) {
  using namespace nb::literals;
  // The tables: _prism.elementwise.<name>, and (name, doc) of each for the Python layer's functions.
  nb::module_ e = m.def_submodule("elementwise");
  nb::list binaries, unaries;
  for_each_type(ops::binaries{}, [&](auto t) {
    using Op = typename decltype(t)::type;
    e.def(Op::name, &binary<Op>, "a"_a.none(), "b"_a.none(), "out"_a.none(), "impl"_a, "stream"_a.none());
    binaries.append(nb::make_tuple(Op::name, ops::binary<Op>::doc));
  });
  for_each_type(ops::unaries{}, [&](auto t) {
    using Op = typename decltype(t)::type;
    e.def(Op::name, &unary<Op>, "x"_a, "out"_a.none(), "impl"_a, "stream"_a.none());
    const std::string offered = offered_names([](auto u) {
      using U = typename decltype(u)::type;
      if constexpr (prism::arithmetic_element<U>) return ops::unary<Op>::template offered<U>;
      else return false;
    });
    unaries.append(nb::make_tuple(Op::name, std::string(ops::unary<Op>::doc) + " (" + offered + ")."));
  });
  e.attr("binaries") = binaries;
  e.attr("unaries") = unaries;
  m.def("scale_or_clamp", &scale_or_clamp, "op"_a, "x"_a, "out"_a, "p"_a, "q"_a.none(), "impl"_a, "stream"_a);
  m.def("axpby", &axpby, "algorithm"_a, "alpha"_a, "x"_a, "beta"_a, "y"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("fma", &fma, "a"_a, "b"_a, "c"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("where", &where, "condition"_a.none(), "a"_a.none(), "b"_a.none(), "out"_a.none(), "impl"_a, "stream"_a.none());
  m.def("generate", &generate, "op"_a, "out"_a, "start"_a, "step"_a.none(), "impl"_a, "stream"_a);
  m.def("cast", &cast, "x"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("adjacent_difference", &adjacent_difference, "x"_a, "out"_a, "impl"_a, "stream"_a);
  m.def("permute", &permute, "op"_a, "first"_a, "second"_a, "out"_a, "checked"_a, "impl"_a, "stream"_a);
  m.def("permute_where", &permute_where, "op"_a, "first"_a, "second"_a, "where"_a, "out"_a, "checked"_a, "impl"_a,
        "stream"_a);
  m.def("flip", &flip, "x"_a, "out"_a, "impl"_a, "stream"_a);
}

}  // namespace prism::python
