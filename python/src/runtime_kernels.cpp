// SPDX-License-Identifier: Apache-2.0
// A user's kernels, compiled at run time: NVRTC turns the source prism_primitives/kernels.py
// writes for an expression (over the device primitives of <prism/rtc/kernels.cuh>, whose text the
// module carries: no toolkit headers are needed where it runs) into a CUBIN for the GPU at hand;
// the CUDA runtime loads it (cudaLibraryLoadData: every device, no context of our own) and
// launches its kernels on the call's stream. NVRTC itself is opened when the first kernel is
// compiled (libnvrtc.so.13, .12, or PRISM_NVRTC), so the module imports without it.
#include "arrays.hpp"
#include "results.hpp"

#include <prism/buffer.hpp>
#include <prism/dispatch.hpp>
#include <prism/error.hpp>
#include <prism/scratch.hpp>

#include <dlfcn.h>
#include <nvrtc.h>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace prism::python {

// The headers NVRTC compiles against, as the module was built with them (rtc_headers.cpp, made by
// python/CMakeLists.txt from include/prism).
extern const int rtc_header_count;
extern const char* const rtc_header_names[];
extern const char* const rtc_header_sources[];

namespace {

// ---- NVRTC, opened on first use -------------------------------------------------------------------

struct nvrtc_library {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&nvrtcGetPTX) ptx = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  std::string where;

  static nvrtc_library& get() {
    static std::mutex lock;
    static nvrtc_library* library = nullptr;
    std::lock_guard<std::mutex> guard(lock);
    if (library == nullptr) library = open();
    return *library;
  }

  static nvrtc_library* open() {
    std::vector<std::string> names;
    if (const char* chosen = std::getenv("PRISM_NVRTC"); chosen != nullptr && *chosen != '\0') names.emplace_back(chosen);
    names.insert(names.end(), {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", PRISM_TOOLKIT_LIBRARY_DIR "/libnvrtc.so"});
    std::string tried;
    for (const std::string& name : names) {
      void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        tried += "\n  " + name + ": " + dlerror();
        continue;
      }
      auto* l = new nvrtc_library();
      const auto symbol = [&](auto& f, const char* s) { f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(handle, s)); return f != nullptr; };
      if (symbol(l->create, "nvrtcCreateProgram") && symbol(l->compile, "nvrtcCompileProgram") &&
          symbol(l->log_size, "nvrtcGetProgramLogSize") && symbol(l->log, "nvrtcGetProgramLog") &&
          symbol(l->cubin_size, "nvrtcGetCUBINSize") && symbol(l->cubin, "nvrtcGetCUBIN") &&
          symbol(l->ptx_size, "nvrtcGetPTXSize") && symbol(l->ptx, "nvrtcGetPTX") &&
          symbol(l->destroy, "nvrtcDestroyProgram") && symbol(l->version, "nvrtcVersion") &&
          symbol(l->error_string, "nvrtcGetErrorString")) {
        l->where = name;
        return l;
      }
      delete l;
      tried += "\n  " + name + ": not NVRTC (a symbol is missing)";
    }
    throw std::runtime_error("prism: run-time kernels need NVRTC (libnvrtc.so of CUDA 12 or 13: the CUDA toolkit, or "
                             "pip install nvidia-cuda-nvrtc; PRISM_NVRTC=/path/to/libnvrtc.so names it); tried:" +
                             tried);
  }
};

// The architecture to compile for: the current device's, else sm_90 (compiling without a GPU).
std::string current_arch() {
  int device = 0, major = 0, minor = 0;
  if (prism::gpu_available() && cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess)
    return "sm_" + std::to_string(major) + std::to_string(minor);
  (void)cudaGetLastError();
  return "sm_90";
}

// Compiles `source` for `arch` (empty: the current device's): the CUBIN, or (compute_XX) PTX.
// A program that does not compile is the caller's bad input: std::invalid_argument with NVRTC's log.
nb::bytes compile(const std::string& source, const std::string& name, std::string arch,
                  const std::vector<std::string>& extra) {
  nvrtc_library& l = nvrtc_library::get();
  if (arch.empty()) arch = current_arch();
  nvrtcProgram program = nullptr;
  nvrtcResult status = l.create(&program, source.c_str(), (name + ".cu").c_str(), rtc_header_count,
                                rtc_header_sources, rtc_header_names);
  if (status != NVRTC_SUCCESS) throw std::runtime_error(std::string("prism: nvrtcCreateProgram: ") + l.error_string(status));
  std::vector<std::string> options = {"-std=c++17", "-arch=" + arch, "-default-device", "-DPRISM_RTC=1",
                                      "--device-int128"};
  options.insert(options.end(), extra.begin(), extra.end());
  std::vector<const char*> pointers;
  for (const std::string& o : options) pointers.push_back(o.c_str());
  std::string log;
  std::string result;
  {
    nb::gil_scoped_release release;  // NVRTC takes a while: other Python threads run meanwhile
    status = l.compile(program, static_cast<int>(pointers.size()), pointers.data());
    std::size_t size = 0;
    if (l.log_size(program, &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      l.log(program, log.data());
      log.resize(size - 1);
    }
    if (status == NVRTC_SUCCESS) {
      const bool cubin = arch.rfind("sm_", 0) == 0;
      size = 0;
      if (cubin ? l.cubin_size(program, &size) == NVRTC_SUCCESS : l.ptx_size(program, &size) == NVRTC_SUCCESS) {
        result.resize(size);
        if ((cubin ? l.cubin(program, result.data()) : l.ptx(program, result.data())) != NVRTC_SUCCESS) result.clear();
      }
    }
    l.destroy(&program);
  }
  if (status != NVRTC_SUCCESS)
    throw std::invalid_argument("prism: the kernel " + name + " does not compile (NVRTC: " + l.error_string(status) +
                                "):\n" + log);
  if (result.empty()) throw std::runtime_error("prism: NVRTC compiled " + name + " but gave no code");
  return nb::bytes(result.data(), result.size());
}

nb::tuple nvrtc_version() {
  nvrtc_library& l = nvrtc_library::get();
  int major = 0, minor = 0;
  l.version(&major, &minor);
  return nb::make_tuple(major, minor, l.where);
}

// ---- a loaded program and its launches ---------------------------------------------------------------

// The device of the call's arrays made current (all on one GPU), and their common size.
struct launch_arrays {
  std::unique_ptr<std::string[]> roles;  // what the arrays' roles point to (moves with the struct)
  std::vector<array> arrays;
  std::vector<std::uintptr_t> pointers;
  int device = 0;
};

// names: "name:dtype" of each argument (the kernel's signature).
launch_arrays take_all(const char* algorithm, nb::list arguments, const std::vector<bool>& outputs,
                       const std::vector<std::string>& names) {
  launch_arrays l;
  const std::size_t count = nb::len(arguments);
  if (outputs.size() != count || names.size() != count) throw std::logic_error("prism: kernel arguments mismatched");
  l.arrays.reserve(count);
  std::vector<element> types;
  l.roles = std::make_unique<std::string[]>(count + 1);
  std::string* roles = l.roles.get();
  for (std::size_t k = 0; k < count; ++k) {
    const auto colon = names[k].find(':');
    roles[k] = names[k].substr(0, colon);
    types.push_back(element_named(names[k].substr(colon + 1)));
  }
  for (std::size_t k = 0; k < count; ++k) l.arrays.push_back(take(arguments[k], roles[k].c_str(), outputs[k]));
  for (std::size_t k = 0; k < count; ++k) {
    const array& a = l.arrays[k];
    if (a.type != types[k])
      throw std::invalid_argument(std::string("prism.") + algorithm + ": " + roles[k] + " is " + name(a.type) +
                                  ", but the kernel's signature says " + name(types[k]) +
                                  " (arrays are not converted: cast first)");
    if (!a.on_gpu() && a.size > 0)
      throw std::invalid_argument(std::string("prism.") + algorithm + ": " + roles[k] +
                                  " is host memory; a run-time kernel runs on the GPU (pass a GPU array)");
    if (k > 0 && a.on_gpu() && l.arrays[0].on_gpu() && a.device_id != l.arrays[0].device_id)
      throw std::invalid_argument(std::string("prism.") + algorithm + ": " + roles[k] + " is on another GPU than " +
                                  roles[0]);
    l.pointers.push_back(reinterpret_cast<std::uintptr_t>(a.data));
  }
  if (!l.arrays.empty()) l.device = l.arrays[0].device_id;
  return l;
}

// The kernel's one parameter struct: the arrays' pointers, then `tail` (more pointers, the
// scalars' slots: 8 bytes each, laid out by kernels.py).
std::vector<unsigned char> pack(const std::vector<std::uintptr_t>& pointers, const nb::bytes& tail) {
  std::vector<unsigned char> bytes(pointers.size() * 8 + tail.size());
  for (std::size_t k = 0; k < pointers.size(); ++k) std::memcpy(bytes.data() + 8 * k, &pointers[k], 8);
  if (tail.size() > 0) std::memcpy(bytes.data() + 8 * pointers.size(), tail.c_str(), tail.size());
  if (bytes.empty()) bytes.resize(8);
  return bytes;
}

// The first index (below V and n) from which every array starts a vector-aligned run, or V.
std::size_t aligned_head(int V, std::size_t n, const std::vector<std::uintptr_t>& pointers,
                         const std::vector<int>& item_bytes) {
  std::size_t head = 0;
  const auto all = [&](std::size_t h) {
    for (std::size_t k = 0; k < pointers.size(); ++k)
      if ((pointers[k] + h * item_bytes[k]) % (static_cast<std::size_t>(V) * item_bytes[k]) != 0) return false;
    return true;
  };
  while (head < static_cast<std::size_t>(V) && head < n && !all(head)) ++head;
  return head;
}

class program {
 public:
  // The image is loaded at the first launch, after the call's arguments are checked: a bad
  // argument is a ValueError wherever the driver is missing or the image cannot load.
  program(nb::bytes image, std::vector<std::string> kernels, std::string name)
      : name_(std::move(name)), names_(std::move(kernels)) {
    image_.assign(image.c_str(), image.c_str() + image.size());
  }
  ~program() {
    if (library_ != nullptr) (void)cudaLibraryUnload(library_);
  }
  program(const program&) = delete;
  program& operator=(const program&) = delete;

  // An element-wise kernel over `arguments` (what the call handed over, each of n elements).
  void elementwise(bool raw, int V, nb::list arguments, const std::vector<bool>& outputs,
                   const std::vector<std::string>& names, const std::vector<int>& item_bytes, nb::bytes scalars,
                   std::uintptr_t stream) {
    launch_arrays l = take_all(name_.c_str(), arguments, outputs, names);
    const std::size_t n = l.arrays.empty() ? 0 : l.arrays[0].size;
    for (const array& a : l.arrays) prism::require_size(n, a.size, name_.c_str(), a.role);
    if (n == 0) return;
    std::vector<const array*> all;
    for (const array& a : l.arrays) all.push_back(&a);
    device_scope device(name_.c_str(), {all.empty() ? nullptr : all[0]});
    std::vector<unsigned char> p = pack(l.pointers, scalars);
    std::size_t head = raw ? aligned_head(V, n, l.pointers, item_bytes) : static_cast<std::size_t>(V);
    if (!raw || head == static_cast<std::size_t>(V) || loaded().count("prism_elementwise_raw") == 0) {
      void* args[] = {p.data(), const_cast<std::size_t*>(&n)};
      launch("prism_elementwise_raw_naive", blocks(n), args, stream);
      return;
    }
    head = std::min(head, n);
    const std::size_t vectors = (n - head) / V;
    const std::size_t threads = vectors + (n - vectors * V);
    void* args[] = {p.data(), const_cast<std::size_t*>(&n), &head, const_cast<std::size_t*>(&vectors)};
    launch("prism_elementwise_raw", blocks(threads), args, stream);
  }

  // A reduction of `arguments` (inputs of n elements) into result[0] (after the inputs in the
  // parameter struct); partial_bytes: one block's staged partial.
  void reduce(bool raw, int V, nb::list arguments, const std::vector<std::string>& names,
              const std::vector<int>& item_bytes, nb::handle result_, const std::string& result_type,
              nb::bytes scalars, std::size_t partial_bytes, std::uintptr_t stream) {
    std::vector<bool> outputs(nb::len(arguments), false);
    launch_arrays l = take_all(name_.c_str(), arguments, outputs, names);
    const array result = take(result_, "out", true);
    if (result.type != element_named(result_type))
      throw std::invalid_argument("prism." + name_ + ": out is " + name(result.type) + ", but the kernel's result is " +
                                  result_type + " (arrays are not converted)");
    if (result.size != 1)
      throw std::invalid_argument("prism." + name_ + ": out must have one element, it has " + std::to_string(result.size));
    if (!result.on_gpu()) throw std::invalid_argument("prism." + name_ + ": out is host memory; pass a GPU array");
    const std::size_t n = l.arrays.empty() ? 0 : l.arrays[0].size;
    for (const array& a : l.arrays) prism::require_size(n, a.size, name_.c_str(), a.role);
    device_scope device(name_.c_str(), {&result});
    std::vector<std::uintptr_t> pointers = l.pointers;
    pointers.push_back(reinterpret_cast<std::uintptr_t>(result.data));
    std::vector<unsigned char> p = pack(pointers, scalars);
    std::size_t head = raw && !l.pointers.empty() ? aligned_head(V, n, l.pointers, item_bytes) : V;
    const bool vector = raw && head < static_cast<std::size_t>(V);
    head = std::min(head, n);
    const std::size_t vectors = vector ? (n - head) / V : 0;
    const char* kernel = vector ? "prism_reduce_raw" : "prism_reduce_raw_naive";
    unsigned grid = 1;
    if (vector) {
      const std::size_t per_block = 256 * 4;
      int per_sm = 1, device_id = 0, sms = 1;
      (void)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(loaded().at(kernel)),
                                                          256, 0);
      (void)cudaGetDevice(&device_id);
      (void)cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_id);
      (void)cudaGetLastError();
      grid = static_cast<unsigned>(std::clamp<std::size_t>((vectors + per_block - 1) / per_block, 1,
                                                           std::size_t(std::max(sms, 1)) * std::max(per_sm, 1)));
    } else {
      grid = static_cast<unsigned>(std::max<std::size_t>(blocks(n), 1));
    }
    const prism::execution_policy policy = prism::par.on(reinterpret_cast<cudaStream_t>(stream));
    const prism::scratch lease = prism::acquire_scratch(grid > 1 ? grid * partial_bytes : 0, policy, name_.c_str());
    void* partials = lease.device();
    unsigned* arrivals = lease.zeroed_counter();
    if (vector) {
      void* args[] = {p.data(), const_cast<std::size_t*>(&n), &head, const_cast<std::size_t*>(&vectors), &partials,
                      &arrivals};
      launch(kernel, grid, args, stream);
    } else {
      void* args[] = {p.data(), const_cast<std::size_t*>(&n), &partials, &arrivals};
      launch(kernel, grid, args, stream);
    }
  }

  // A scan of arguments[0] into arguments[1]; items: elements per thread of the implementation's
  // tile; total_bytes: one tile's total (maybe<value>).
  void scan(bool raw, int items, nb::list arguments, const std::vector<std::string>& names, nb::bytes scalars,
            std::size_t total_bytes, std::uintptr_t stream) {
    launch_arrays l = take_all(name_.c_str(), arguments, {false, true}, names);
    const std::size_t n = l.arrays[0].size;
    prism::require_size(n, l.arrays[1].size, name_.c_str(), l.arrays[1].role);
    if (n == 0) return;
    device_scope device(name_.c_str(), {&l.arrays[0]});
    std::vector<unsigned char> p = pack(l.pointers, scalars);
    const std::size_t tile = 256 * static_cast<std::size_t>(items);
    const std::size_t tiles = (n + tile - 1) / tile;
    if (tiles > 0x7fffffffu) throw std::invalid_argument("prism." + name_ + ": too many tiles for one launch");
    const prism::execution_policy policy = prism::par.on(reinterpret_cast<cudaStream_t>(stream));
    const prism::scratch lease = prism::acquire_scratch(tiles * total_bytes, policy, name_.c_str());
    void* totals = lease.device();
    const std::string impl = raw ? "raw" : "raw_naive";
    void* first[] = {p.data(), const_cast<std::size_t*>(&n), &totals};
    launch(("prism_scan_totals_" + impl).c_str(), static_cast<unsigned>(tiles), first, stream);
    std::size_t count = tiles;
    void* second[] = {&totals, &count};
    launch("prism_scan_prefixes", 1, second, stream);
    void* third[] = {p.data(), const_cast<std::size_t*>(&n), &totals};
    launch(("prism_scan_write_" + impl).c_str(), static_cast<unsigned>(tiles), third, stream);
  }

  bool has(const std::string& kernel) { return loaded().count(kernel) != 0; }

 private:
  static unsigned blocks(std::size_t threads) {
    const std::size_t b = (threads + 255) / 256;
    if (b > 0x7fffffffu) throw std::invalid_argument("prism: too many elements for one launch of a run-time kernel");
    return static_cast<unsigned>(b);
  }

  const std::unordered_map<std::string, cudaKernel_t>& loaded() {
    if (library_ != nullptr) return kernels_;  // (the GIL is held: one thread loads)
    cudaLibrary_t library = nullptr;
    prism::check(cudaLibraryLoadData(&library, image_.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
                 "cudaLibraryLoadData", name_.c_str());
    std::unordered_map<std::string, cudaKernel_t> kernels;
    for (const std::string& k : names_) {
      cudaKernel_t kernel = nullptr;
      const cudaError_t status = cudaLibraryGetKernel(&kernel, library, k.c_str());
      if (status != cudaSuccess) (void)cudaLibraryUnload(library);
      prism::check(status, "cudaLibraryGetKernel", name_.c_str());
      kernels[k] = kernel;
    }
    library_ = library, kernels_ = std::move(kernels);
    return kernels_;
  }

  void launch(const char* kernel, unsigned grid, void** args, std::uintptr_t stream) {
    const auto found = loaded().find(kernel);
    if (found == kernels_.end()) throw std::logic_error("prism: " + name_ + " has no kernel " + kernel);
    prism::check(cudaLaunchKernel(reinterpret_cast<const void*>(found->second), dim3(grid), dim3(256), args, 0,
                                  reinterpret_cast<cudaStream_t>(stream)),
                 kernel, name_.c_str());
  }

  std::string name_;
  std::vector<std::string> names_;
  std::vector<char> image_;
  cudaLibrary_t library_ = nullptr;
  std::unordered_map<std::string, cudaKernel_t> kernels_;
};

// ---- timing, for kernel.compare() ---------------------------------------------------------------------

void device_scope_for(int device) {
  int current = 0;
  prism::check(cudaGetDevice(&current), "cudaGetDevice", "compare");
  if (current != device) prism::check(cudaSetDevice(device), "cudaSetDevice", "compare");
}

// GPU milliseconds of each of `repeats` runs of run() (which enqueues its work on `stream`), each
// between two events on the stream, after `warmup` untimed runs.
// The stream held shut while a call is enqueued: a host function on the stream that waits until
// the gate opens (or 200 ms pass, for a call that itself waits for its stream), so that the call's
// work runs back to back between the events, its host time (Python, the binding, the launches)
// left out: GPU time alone, as docs/benchmarks measures it.
struct stream_gate {
  std::atomic<bool> open{false}, timed_out{false};
};
void CUDART_CB wait_at_gate(void* p) {
  auto* gate = static_cast<stream_gate*>(p);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  while (!gate->open.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > until) {
      gate->timed_out.store(true);
      return;
    }
    std::this_thread::yield();
  }
}

// GPU milliseconds of run() on `stream`, `repeats` times after `warmup` calls: events around
// each call, queued behind the gate; a call that waited for its stream (the gate timed out) is
// timed again without it.
std::vector<float> time_on_stream(nb::callable run, std::uintptr_t stream, int repeats, int warmup) {
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  cudaEvent_t start = nullptr, stop = nullptr;
  prism::check(cudaEventCreate(&start), "cudaEventCreate", "compare");
  prism::check(cudaEventCreate(&stop), "cudaEventCreate", "compare");
  const auto timed = [&](stream_gate* gate) {
    if (gate != nullptr) prism::check(cudaLaunchHostFunc(s, wait_at_gate, gate), "cudaLaunchHostFunc", "compare");
    prism::check(cudaEventRecord(start, s), "cudaEventRecord", "compare");
    try {
      run();
    } catch (...) {
      if (gate != nullptr) gate->open.store(true, std::memory_order_release);
      (void)without_gil([&] { return cudaStreamSynchronize(s); });
      throw;
    }
    prism::check(cudaEventRecord(stop, s), "cudaEventRecord", "compare");
    if (gate != nullptr) gate->open.store(true, std::memory_order_release);
    prism::check(without_gil([&] { return cudaEventSynchronize(stop); }), "cudaEventSynchronize", "compare");
    float ms = 0;
    prism::check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime", "compare");
    return ms;
  };
  std::vector<float> times;
  try {
    for (int k = 0; k < warmup; ++k) run();
    prism::check(without_gil([&] { return cudaStreamSynchronize(s); }), "cudaStreamSynchronize", "compare");
    for (int k = 0; k < repeats; ++k) {
      stream_gate gate;
      const float ms = timed(&gate);
      times.push_back(gate.timed_out.load() ? timed(nullptr) : ms);
    }
  } catch (...) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  return times;
}

// GPU milliseconds of device-to-device copies of `bytes` (cudaMemcpyAsync between two buffers of
// prism's pool, on `stream`): the copy ceiling, for an access pattern that moves 2 * bytes.
std::vector<float> copy_ceiling(int device, std::uintptr_t stream, std::size_t bytes, int repeats) {
  device_scope_for(device);
  const auto from = allocate_on_device(device, stream, bytes, "compare");
  const auto to = allocate_on_device(device, stream, bytes, "compare");
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  prism::check(cudaMemsetAsync(from->data, 1, bytes, s), "cudaMemsetAsync", "compare");
  nb::object run = nb::cpp_function([&] {
    prism::check(cudaMemcpyAsync(to->data, from->data, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync",
                 "compare");
  });
  return time_on_stream(nb::borrow<nb::callable>(run), stream, repeats, 3);
}

}  // namespace

void bind_runtime_kernels(nb::module_& m) {
  using namespace nb::literals;
  m.def("rtc_compile", &compile, "source"_a, "name"_a, "arch"_a = "", "options"_a = std::vector<std::string>{});
  m.def("rtc_arch", &current_arch);
  m.def("rtc_nvrtc_version", &nvrtc_version);
  m.def("rtc_headers", [] {
    nb::dict d;
    for (int k = 0; k < rtc_header_count; ++k) d[rtc_header_names[k]] = rtc_header_sources[k];
    return d;
  });
  m.def("rtc_time", &time_on_stream, "run"_a, "stream"_a, "repeats"_a, "warmup"_a);
  m.def("rtc_copy_ceiling", &copy_ceiling, "device"_a, "stream"_a, "bytes"_a, "repeats"_a);
  nb::class_<program>(m, "RuntimeProgram")
      .def(nb::init<nb::bytes, std::vector<std::string>, std::string>(), "image"_a, "kernels"_a, "name"_a)
      .def("elementwise", &program::elementwise, "raw"_a, "vector"_a, "arguments"_a, "outputs"_a, "names"_a,
           "item_bytes"_a, "scalars"_a, "stream"_a)
      .def("reduce", &program::reduce, "raw"_a, "vector"_a, "arguments"_a, "names"_a, "item_bytes"_a, "result"_a,
           "result_type"_a, "scalars"_a, "partial_bytes"_a, "stream"_a)
      .def("scan", &program::scan, "raw"_a, "items"_a, "arguments"_a, "names"_a, "scalars"_a, "total_bytes"_a,
           "stream"_a)
      .def("has", &program::has, "kernel"_a);
}

}  // namespace prism::python
