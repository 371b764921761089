#pragma once
// The project's CUDA runtime checks, for the selection module's CUDA code and (included by
// path) the regression module's; cuBLAS calls: CUBLAS_CHECK, regression/src/cuda/cublas_check.hpp,
// built on the same helper. Host code only (no device code): .cu and .cpp files may include it.
// CUDA_CHECK(call): throws std::runtime_error naming the call, file, line and CUDA error, or
//   robustfit::selection::cuda::OutOfMemory (a std::bad_alloc) for an allocation failure,
//   which it clears first so that the next launch check does not see it.
// CUDA_CHECK_LAUNCH(): the same for the kernel launch just made.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "robustfit/selection/cuda/errors.hpp"

namespace robustfit::selection::cuda::detail {

// "<call> failed at <file>:<line>: <detail>": OutOfMemory (prefixed "GPU out of memory: ") when
// `out_of_memory`, else std::runtime_error.
[[noreturn]] inline void throw_failure(const char* call, const char* file, int line, const std::string& detail,
                                       bool out_of_memory) {
  const std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + detail;
  if (out_of_memory) throw OutOfMemory("GPU out of memory: " + what);
  throw std::runtime_error(what);
}

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const bool out_of_memory = status == cudaErrorMemoryAllocation;
  if (out_of_memory) cudaGetLastError();  // not sticky: clear it so that the next launch check does not see it
  throw_failure(call, file, line, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")",
                out_of_memory);
}

}  // namespace robustfit::selection::cuda::detail

#define CUDA_CHECK(call)                                                                                   \
  do {                                                                                                     \
    const cudaError_t robustfit_status_ = (call);                                                          \
    if (robustfit_status_ != cudaSuccess)                                                                  \
      ::robustfit::selection::cuda::detail::throw_cuda_error(robustfit_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
