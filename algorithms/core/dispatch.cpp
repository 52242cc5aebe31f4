// SPDX-License-Identifier: Apache-2.0
// The checks of the dispatch layer (include/prism/dispatch.hpp), compiled once for every family.
#include <prism/buffer.hpp>
#include <prism/dispatch.hpp>
#include <prism/error.hpp>

#include <cuda.h>
#include <omp.h>
#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace prism {
namespace {

[[noreturn]] void refuse(const char* algorithm, const std::string& why) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": " + why);
}

std::string offered_list(const family& offered) {
  std::string list;
  for (impl i : offered.implementations) list += (list.empty() ? "" : ", ") + std::string(name(i));
  return list;
}

using detail::device_count;
bool gpu_present() { return device_count() > 0; }

// The driver's cuPointerGetAttributes, found through the runtime (prism links no driver library).
// One driver call answers what the library needs for a fraction of cudaPointerGetAttributes' host
// time, and three such queries are most of a small call's cost. Null without a driver.
using pointer_query = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
pointer_query driver_pointer_query() {
  static const pointer_query query = []() -> pointer_query {
    if (!gpu_present()) return nullptr;
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &entry, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    return reinterpret_cast<pointer_query>(entry);
  }();
  return query;
}

// Byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool overlap(const array_ref& a, const array_ref& b) {
  const auto x = reinterpret_cast<std::uintptr_t>(a.data);
  const auto y = reinterpret_cast<std::uintptr_t>(b.data);
  return a.bytes > 0 && b.bytes > 0 && x < y + b.bytes && y < x + a.bytes;
}

}  // namespace

placement placement_of(const void* address) {
  // The driver's answer is taken when it names CUDA memory; memory it does not know (plain host
  // memory) is asked again of the runtime. A thread's first query goes to the runtime, which
  // makes the device's context current there: the driver is never asked from a thread without one.
  thread_local bool runtime_asked = false;
  const pointer_query query = runtime_asked ? driver_pointer_query() : nullptr;
  runtime_asked = true;
  if (query != nullptr) {
    CUpointer_attribute asked[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned int type = 0, managed = 0;
    int device = -1;
    void* values[] = {&type, &managed, &device};
    if (query(3, asked, values, reinterpret_cast<CUdeviceptr>(address)) == CUDA_SUCCESS) {
      if (managed != 0) return {residence::managed, device};
      if (type == CU_MEMORYTYPE_DEVICE) return {residence::device, device};
      if (type == CU_MEMORYTYPE_HOST) return {residence::pinned_host, -1};
    }
  }
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, address) != cudaSuccess) {
    // No driver or no device: nothing can be device memory. Clear the error we caused.
    (void)cudaGetLastError();
    return {residence::host, -1};
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return {residence::device, attributes.device};
    case cudaMemoryTypeManaged: return {residence::managed, attributes.device};
    case cudaMemoryTypeHost: return {residence::pinned_host, -1};
    default: return {residence::host, -1};
  }
}

const char* input_name(std::size_t k) noexcept {
  static constexpr const char* names[] = {"the first input", "the second input", "the third input"};
  return k < 3 ? names[k] : "an input";
}

// " has " or " have ": an argument's name is plural where its noun is ("the values", "the keys of
// a"; "the values' output" is one output).
static const char* has_or_have(std::string_view argument) noexcept {
  const std::string_view noun = argument.substr(0, argument.find(" of "));
  return !noun.empty() && noun.back() == 's' ? " have " : " has ";
}

void require_size(std::size_t expected, std::size_t actual, const char* algorithm,
                  const char* argument) {
  if (expected != actual) {
    refuse(algorithm, std::string(argument) + has_or_have(argument) + std::to_string(actual) +
                          " elements, expected " + std::to_string(expected));
  }
}

impl prepare(const char* algorithm, const family& offered, const execution_policy& policy,
             std::span<const array_ref> listed, std::size_t bytes_moved, const array_ref* result) {
  std::array<array_ref, 12> all{};
  if (listed.size() + 1 > all.size()) throw std::logic_error("prism: a call of more arrays than prepare() holds");
  std::size_t count = 0;
  for (const array_ref& a : listed) all[count++] = a;
  if (result != nullptr) all[count++] = *result;
  const std::span<const array_ref> arrays(all.data(), count);
  for (const array_ref& a : arrays) {
    if (a.expected != array_ref::unchecked) require_size(a.expected, a.size, algorithm, a.name);
  }
  const impl asked = policy.implementation();
  if (asked != impl::automatic && !offered.has(asked)) {
    refuse(algorithm, "no implementation named " + std::string(name(asked)) + " (" + algorithm +
                          " has " + offered_list(offered) + ")");
  }
  for (const array_ref& a : arrays) {
    if (a.data == nullptr && a.size > 0) refuse(algorithm, std::string(a.name) + " is null with a nonzero size");
  }
  // An output may be an input exactly (in place), where it says so, but overlap nothing partly: a
  // parallel algorithm would read elements another thread has already overwritten.
  for (auto o = arrays.begin(); o != arrays.end(); ++o) {
    if (!o->output) continue;
    for (auto a = arrays.begin(); a != arrays.end(); ++a) {
      if (a == o || !overlap(*o, *a)) continue;
      if (a->output) refuse(algorithm, std::string(o->name) + " overlaps " + a->name);
      if (o->data != a->data || o->bytes != a->bytes) {
        refuse(algorithm, std::string(o->name) + " overlaps " + a->name + " without being the same bytes (in place)");
      }
      const int position = static_cast<int>(a - arrays.begin());
      if (o->in_place_of == array_ref::no_input) {
        refuse(algorithm, std::string(o->name) + " is " + a->name + " (prism::" + algorithm +
                              " does not run in place)");
      }
      if (o->in_place_of != array_ref::any_input && o->in_place_of != position) {
        refuse(algorithm, std::string(o->name) + " is " + a->name + " (an output may be only its own input)");
      }
    }
  }

  // Where the arrays live. Empty arrays touch no memory and say nothing.
  bool host = false, device = false, needs_wait = false;
  const char* host_array = nullptr;
  const char* device_array = nullptr;
  int current = -1;
  for (const array_ref& a : arrays) {
    if (a.bytes == 0) continue;
    const placement p = placement_of(a.data);
    switch (p.where) {
      case residence::host: host = true; break;
      case residence::pinned_host: host = true; needs_wait = true; break;
      case residence::managed: needs_wait = true; break;
      case residence::device:
        device = true;
        if (device_count() == 1) break;  // device memory of the only GPU: the current one
        if (current < 0) check(cudaGetDevice(&current), "cudaGetDevice", algorithm);
        if (p.device != current) {
          refuse(algorithm, std::string(a.name) + " is memory of GPU " + std::to_string(p.device) +
                                ", but the current device is GPU " + std::to_string(current));
        }
        break;
    }
    if (host && host_array == nullptr) host_array = a.name;
    if (device && device_array == nullptr) device_array = a.name;
  }
  // automatic decides from where the data lives: it must live in one place. A named
  // implementation says below which array is in the wrong place.
  if (asked == impl::automatic && host && device) {
    refuse(algorithm, std::string(host_array) + " is host memory and another array device memory: "
                      "automatic cannot tell where to run");
  }

  impl which = asked;
  if (which == impl::automatic) {
    if (!device && (host || !gpu_present())) {
      which = impl::cpu;
    } else {
      which = offered.automatic.empty() ? impl::raw : offered.automatic.front().choice;
      for (const automatic_row& row : offered.automatic)
        if (bytes_moved >= row.from_bytes) which = row.choice;
    }
  }
  if (which == impl::cpu) {
    if (device) {
      refuse(algorithm, "the cpu implementation needs host memory, and " + std::string(device_array) +
                            " is device memory");
    }
    if (needs_wait) check(cudaStreamSynchronize(policy.stream()), "cudaStreamSynchronize", algorithm);
  } else if (!gpu_present() && arrays.size() > 0) {
    refuse(algorithm, "no CUDA device: the " + std::string(name(which)) + " implementation runs on the GPU");
  } else if (host) {
    refuse(algorithm, std::string(host_array) + " is host memory, but the " + std::string(name(which)) +
                          " implementation runs on the GPU and needs device memory");
  }
  return which;
}

namespace detail {
// Asked once: every GPU call would otherwise pay for it.
int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

namespace {
// One attribute of the current device, asked once per device.
template <cudaDeviceAttr Attribute>
int device_attribute() {
  static std::array<std::atomic<int>, 64> cached{};
  int device = 0;
  if (device_count() != 1) check(cudaGetDevice(&device), "cudaGetDevice");
  if (device < 64) {
    if (const int known = cached[device].load(std::memory_order_relaxed)) return known;
  }
  int value = 0;
  check(cudaDeviceGetAttribute(&value, Attribute, device), "cudaDeviceGetAttribute");
  if (device < 64) cached[device].store(value, std::memory_order_relaxed);
  return value;
}
}  // namespace

int multiprocessor_count() { return device_attribute<cudaDevAttrMultiProcessorCount>(); }
std::size_t l2_cache_bytes() { return static_cast<std::size_t>(device_attribute<cudaDevAttrL2CacheSize>()); }
}  // namespace detail

namespace detail {

// Where OpenMP's team starts to beat the calling thread alone, in bytes moved: a sum of 2^14 floats
// (64 KiB) already ran faster on the team, on the 2-core development machine and on the H200
// machine's 16-core host alike; an add from 2^14 floats (192 KiB) on the first and 2^16 (768 KiB)
// on the second (docs/benchmarks/dispatch.md, "One compiled entry per call": its threads table).
// More cores wake a larger team: a machine's own crossover is what bench/python_calls.py prints,
// and PRISM_CPU_SERIAL_BELOW sets it.
constexpr std::size_t measured_cpu_serial_below_bytes = std::size_t{64} << 10;

std::size_t cpu_serial_below_bytes() noexcept {
  static const std::size_t bytes = [] {
    const char* chosen = std::getenv("PRISM_CPU_SERIAL_BELOW");
    if (chosen == nullptr || *chosen == '\0') return measured_cpu_serial_below_bytes;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(chosen, &end, 10);
    return end != chosen && *end == '\0' ? static_cast<std::size_t>(value) : measured_cpu_serial_below_bytes;
  }();
  return bytes;
}

cpu_threads::cpu_threads(std::size_t bytes_moved) noexcept {
  if (bytes_moved >= cpu_serial_below_bytes()) return;
  serial_ = true;
  previous_ = omp_get_max_threads();
  if (previous_ > 1) omp_set_num_threads(1);
  else previous_ = 0;
}

cpu_threads::~cpu_threads() {
  if (previous_ > 0) omp_set_num_threads(previous_);
}

}  // namespace detail
}  // namespace prism
