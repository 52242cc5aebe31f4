// SPDX-License-Identifier: Apache-2.0
#include "arrays.hpp"

#include <prism/buffer.hpp>
#include <prism/error.hpp>

#include <string>

namespace prism::python {

const char* name(element e) noexcept {
  switch (e) {
    case element::f16: return "float16";
    case element::bf16: return "bfloat16";
    case element::f32: return "float32";
    case element::f64: return "float64";
    case element::i32: return "int32";
    case element::i64: return "int64";
    case element::u32: return "uint32";
    case element::u64: return "uint64";
    case element::u8: return "uint8";
    case element::boolean: return "bool";
  }
  return "unknown";
}

void array::require(element expected) const {
  if (type != expected)
    throw std::invalid_argument(std::string("prism: ") + role + " is " + name(type) + ", expected " +
                                name(expected) + " (arrays are not converted: cast first)");
}

namespace {

std::string describe_device(int type, int id) {
  switch (type) {
    case 1: return "cpu";
    case 2: return "cuda:" + std::to_string(id);
    case 3: return "cuda_host";
    case 13: return "cuda_managed:" + std::to_string(id);
    case 4: return "opencl:" + std::to_string(id);
    case 7: return "vulkan:" + std::to_string(id);
    case 8: return "metal:" + std::to_string(id);
    case 10: return "rocm:" + std::to_string(id);
    default: return "DLPack device type " + std::to_string(type) + ":" + std::to_string(id);
  }
}

// DLPack's (code, bits, lanes) as one of prism's element types.
std::optional<element> element_from(nb::dlpack::dtype t) {
  using code = nb::dlpack::dtype_code;
  if (t.lanes != 1) return std::nullopt;
  const auto is = [&](code c, int bits) { return t.code == static_cast<std::uint8_t>(c) && t.bits == bits; };
  if (is(code::Float, 16)) return element::f16;
  if (is(code::Bfloat, 16)) return element::bf16;
  if (is(code::Float, 32)) return element::f32;
  if (is(code::Float, 64)) return element::f64;
  if (is(code::Int, 32)) return element::i32;
  if (is(code::Int, 64)) return element::i64;
  if (is(code::UInt, 32)) return element::u32;
  if (is(code::UInt, 64)) return element::u64;
  if (is(code::UInt, 8)) return element::u8;
  if (is(code::Bool, 8)) return element::boolean;
  return std::nullopt;
}

template <class Array>
void describe(array& a, const Array& nd) {
  a.data = const_cast<void*>(static_cast<const void*>(nd.data()));
  a.size = nd.size();
  a.device_type = nd.device_type();
  a.device_id = nd.device_id();
  const auto type = element_from(nd.dtype());
  if (!type)
    throw std::invalid_argument(std::string("prism: ") + a.role + " has an element type prism does not "
                                "support (code " + std::to_string(nd.dtype().code) + ", " +
                                std::to_string(nd.dtype().bits) + " bits)");
  a.type = *type;
  // Elements one after another, in row-major order: what a span is. Dimensions of extent 1, and
  // arrays of 0 or 1 elements, may have any strides (as NumPy's and PyTorch's own tests allow).
  std::int64_t expected = 1;
  for (std::size_t i = nd.ndim(); a.size > 1 && i-- > 0;) {
    if (nd.shape(i) != 1 && nd.stride(i) != expected)
      throw std::invalid_argument(std::string("prism: ") + a.role +
                                  " is not contiguous (prism reads and writes arrays in place, "
                                  "without copies: pass a C-contiguous array)");
    expected *= static_cast<std::int64_t>(nd.shape(i));
  }
  const int t = a.device_type;
  if (t != 1 && t != 2 && t != 3 && t != 13)
    throw std::invalid_argument(std::string("prism: ") + a.role + " lives on " +
                                describe_device(t, a.device_id) +
                                "; prism runs on the CPU and on CUDA devices");
}

}  // namespace

array take(nb::handle object, const char* role, bool output) {
  array a;
  a.role = role;
  if (object.is_none())
    throw std::invalid_argument(std::string("prism: ") + role + " is None");
  if (output) {
    if (!nb::try_cast(object, a.writable, false))
      throw std::invalid_argument(std::string("prism: ") + role +
                                  " is not a writable array (one that speaks DLPack or the buffer "
                                  "protocol, not read-only)");
    describe(a, a.writable);
  } else {
    if (!nb::try_cast(object, a.read_only, false))
      throw std::invalid_argument(std::string("prism: ") + role +
                                  " is not an array (an object that speaks DLPack or the buffer "
                                  "protocol: NumPy, PyTorch, CuPy, ...)");
    describe(a, a.read_only);
  }
  return a;
}

prism::impl implementation(const char* algorithm, const std::string& which) {
  for (prism::impl i : prism::all_implementations())
    if (prism::name(i) == which) return i;
  throw std::invalid_argument(std::string("prism.") + algorithm + ": unknown impl '" + which +
                              "' (automatic, cpu, thrust, raw_naive, raw, cub)");
}

device_scope::device_scope(const char* algorithm, std::initializer_list<const array*> arrays) {
  const array* gpu = nullptr;
  for (const array* a : arrays)
    if (a != nullptr && a->on_gpu()) {
      gpu = a;
      break;
    }
  if (gpu == nullptr) return;  // host arrays: prism's own checks judge pinned memory
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || gpu->device_id >= count) {
    (void)cudaGetLastError();
    throw std::runtime_error(
        std::string("prism.") + algorithm + ": " + gpu->role + " is on " +
        describe_device(gpu->device_type, gpu->device_id) + ", but this process finds " +
        (status != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorName(status) +
                                     ": " + cudaGetErrorString(status) + ")"
                               : "only " + std::to_string(count) + " CUDA device(s)"));
  }
  int current = 0;
  prism::check(cudaGetDevice(&current), "cudaGetDevice", algorithm);
  if (current != gpu->device_id) {
    prism::check(cudaSetDevice(gpu->device_id), "cudaSetDevice", algorithm);
    previous_ = current;
  }
}

device_scope::~device_scope() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

}  // namespace prism::python
