#pragma once
// Opting a kernel in to more than 48 KB of dynamic shared memory. The attribute belongs to the
// kernel (per device), not to a launch: host threads that launch the same kernel with different
// sizes at once (FAST-MCD's engine beside the LTS search's, with another q) would undo each
// other's opt-in between its setting and the launch, and a launch asking for more than the
// kernel allows fails (cudaErrorInvalidValue). So the allowance only grows, under a lock; a
// larger allowance leaves smaller launches valid. Host code (.cu files).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "cuda_check.cuh"

namespace robustfit::selection::cuda::detail {

template <class Kernel>
void allow_dynamic_shared_memory(Kernel kernel, std::size_t bytes) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, std::size_t> allowed;  // (device, kernel) -> bytes
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  std::size_t& current = allowed[{device, reinterpret_cast<const void*>(kernel)}];
  if (bytes <= current) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  current = bytes;
}

}  // namespace robustfit::selection::cuda::detail
