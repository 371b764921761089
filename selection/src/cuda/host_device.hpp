#pragma once
// ROBUSTFIT_HOST_DEVICE: __host__ __device__ under nvcc, nothing in plain C++, for the small
// headers that the CUDA kernels and the CPU tests share (order-preserving keys, bucket and
// bracket bookkeeping).
#if defined(__CUDACC__)
#define ROBUSTFIT_HOST_DEVICE __host__ __device__
#else
#define ROBUSTFIT_HOST_DEVICE
#endif
