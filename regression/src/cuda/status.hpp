#pragma once
// Checks of CUDA runtime and cuBLAS return codes: throw std::runtime_error naming the call and
// where, or robustfit::selection::cuda::OutOfMemory for allocation failures.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "robustfit/selection/cuda/errors.hpp"

namespace robustfit::regression::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t status, const char* call, const char* file, int line) {
  const std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it so that the next launch check does not see it
    throw selection::cuda::OutOfMemory("GPU out of memory: " + what);
  }
  throw std::runtime_error(what);
}

[[noreturn]] inline void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  const std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": cuBLAS status " + std::to_string(static_cast<int>(status));
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw selection::cuda::OutOfMemory("GPU out of memory: " + what);
  throw std::runtime_error(what);
}

}  // namespace robustfit::regression::cuda

#define RF_CUDA(call)                                                                              \
  do {                                                                                             \
    const cudaError_t rf_status_ = (call);                                                         \
    if (rf_status_ != cudaSuccess) ::robustfit::regression::cuda::throw_cuda(rf_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define RF_CUBLAS(call)                                                                            \
  do {                                                                                             \
    const cublasStatus_t rf_status_ = (call);                                                      \
    if (rf_status_ != CUBLAS_STATUS_SUCCESS)                                                       \
      ::robustfit::regression::cuda::throw_cublas(rf_status_, #call, __FILE__, __LINE__);          \
  } while (0)
