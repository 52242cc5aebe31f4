#include <prism/memory.hpp>

#include <cuda_runtime_api.h>

namespace prism {

residence residence_of(const void* address) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, address) != cudaSuccess) {
    // No driver or no device: nothing can be device memory. Clear the error we caused.
    (void)cudaGetLastError();
    return residence::host;
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return residence::device;
    case cudaMemoryTypeManaged: return residence::managed;
    case cudaMemoryTypeHost: return residence::pinned_host;
    default: return residence::host;
  }
}

void require_memory(const void* address, std::size_t bytes, memory needed, const char* algorithm,
                    const char* argument) {
  if (bytes == 0) return;  // an empty span touches no memory
  const residence found = residence_of(address);
  if (found == residence::managed) return;
  const bool on_device = found == residence::device;
  if (needed == memory::device && !on_device) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": " + argument +
                                " is host memory, but this implementation runs on the GPU and "
                                "needs device memory");
  }
  if (needed == memory::host && on_device) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": " + argument +
                                " is device memory, but the cpu implementation needs host memory");
  }
}

}  // namespace prism
