// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DLPack structures prism reads, as the public specification lays them out (dlpack.h, v1.x:
// https://dmlc.github.io/dlpack/latest/c_api.html). Only what a consumer needs: the tensor, the
// two managed wrappers a capsule may hold, and the codes prism understands. The enums of the
// specification are plain integers here, so that a value outside them can be read and refused.
#include <cstdint>

namespace prism::python::dlpack {

// The ABI version of DLManagedTensorVersioned; a consumer accepts any minor of its major.
constexpr std::uint32_t major_version = 1;

// DLDeviceType values.
enum device_type : std::int32_t {
  cpu = 1,
  cuda = 2,
  cuda_host = 3,
  opencl = 4,
  vulkan = 7,
  metal = 8,
  rocm = 10,
  cuda_managed = 13,
};

// DLDataTypeCode values.
enum type_code : std::uint8_t {
  int_code = 0,
  uint_code = 1,
  float_code = 2,
  bfloat_code = 4,
  bool_code = 6,
};

// DLManagedTensorVersioned::flags bits.
constexpr std::uint64_t flag_read_only = 1u << 0;
constexpr std::uint64_t flag_is_copied = 1u << 1;

struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};

struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};

struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact, row-major
  std::uint64_t byte_offset;
};

// Capsule "dltensor".
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

// Capsule "dltensor_versioned" (DLPack 1.0 on).
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

// The C exchange table of DLPack 1.3 (DLPackExchangeAPI): function pointers a library puts on its
// array type (`__dlpack_c_exchange_api__`, a capsule named "dlpack_exchange_api"; earlier drafts:
// `__c_dlpack_exchange_api__`, an int), so that a consumer reads an array and the library's current
// stream without a Python call. Only the members prism calls are typed; "no_sync" functions order
// nothing: the consumer runs on the producer's current stream.
struct ExchangeAPIHeader {
  Version version;
  ExchangeAPIHeader* prev_api;
};

struct ExchangeAPI {
  ExchangeAPIHeader header;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  // Hands an owning tensor to the library: its own array type over the memory.
  int (*managed_tensor_to_py_object_no_sync)(ManagedTensorVersioned* tensor, void** out_py_object);
  // Fills `out` with a view of the array, valid while the array lives unchanged (may be null).
  int (*dltensor_from_py_object_no_sync)(void* py_object, Tensor* out);
  int (*current_work_stream)(std::int32_t device_type, std::int32_t device_id, void** out_stream);
};

constexpr const char* exchange_api_capsule_name = "dlpack_exchange_api";

// The capsule names: offered, and renamed once a consumer owns the tensor.
constexpr const char* capsule_name = "dltensor";
constexpr const char* used_capsule_name = "used_dltensor";
constexpr const char* versioned_capsule_name = "dltensor_versioned";
constexpr const char* used_versioned_capsule_name = "used_dltensor_versioned";

}  // namespace prism::python::dlpack
