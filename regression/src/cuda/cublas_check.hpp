#pragma once
// CUBLAS_CHECK(call): the cuBLAS member of the project's one CUDA check family (CUDA_CHECK and
// CUDA_CHECK_LAUNCH come with it): throws std::runtime_error naming the call, file, line and
// cuBLAS status, or robustfit::selection::cuda::OutOfMemory for CUBLAS_STATUS_ALLOC_FAILED.
#include <cublas_v2.h>

#include <string>

#include "../../../selection/src/cuda/cuda_check.cuh"

#define CUBLAS_CHECK(call)                                                                               \
  do {                                                                                                   \
    const cublasStatus_t robustfit_blas_status_ = (call);                                                \
    if (robustfit_blas_status_ != CUBLAS_STATUS_SUCCESS)                                                 \
      ::robustfit::selection::cuda::detail::throw_failure(                                               \
          #call, __FILE__, __LINE__, "cuBLAS status " + std::to_string(static_cast<int>(robustfit_blas_status_)), \
          robustfit_blas_status_ == CUBLAS_STATUS_ALLOC_FAILED);                                         \
  } while (0)
