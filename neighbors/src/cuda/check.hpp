#pragma once
// CUDA runtime checks for the kNN engine: allocation failures become
// robustfit::selection::cuda::OutOfMemory (a std::bad_alloc), anything else std::runtime_error
// naming the call and where.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "robustfit/selection/cuda/errors.hpp"

namespace robustfit::neighbors::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t status, const char* call, const char* file, int line) {
  const std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it so that later checks do not see it
    throw selection::cuda::OutOfMemory("GPU out of memory in the kNN engine: " + what);
  }
  throw std::runtime_error(what);
}

}  // namespace robustfit::neighbors::cuda

#define RF_KNN_CUDA(call)                                                                    \
  do {                                                                                       \
    const cudaError_t rf_knn_status_ = (call);                                               \
    if (rf_knn_status_ != cudaSuccess)                                                       \
      ::robustfit::neighbors::cuda::throw_cuda(rf_knn_status_, #call, __FILE__, __LINE__);   \
  } while (0)
