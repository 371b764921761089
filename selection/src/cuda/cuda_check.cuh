#pragma once
// CUDA_CHECK(call): throws std::runtime_error naming the call, file, line and CUDA error.
// CUDA_CHECK_LAUNCH(): the same for the kernel launch just made.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace robustfit::selection::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                           ")");
}

}  // namespace robustfit::selection::cuda::detail

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    const cudaError_t robustfit_status_ = (call);                                          \
    if (robustfit_status_ != cudaSuccess)                                                  \
      ::robustfit::selection::cuda::detail::throw_cuda_error(robustfit_status_, #call,     \
                                                             __FILE__, __LINE__);          \
  } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
