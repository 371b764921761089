#pragma once
// Separately rounded device arithmetic for THE direct distance of the spec (no FMA contraction),
// shared by the fused kernels and the GEMM path's re-check, so both give bit-identical values.
#include <cuda_runtime.h>

namespace robustfit::neighbors::cuda {

template <class T> __device__ __forceinline__ T add_rn(T a, T b);
template <class T> __device__ __forceinline__ T sub_rn(T a, T b);
template <class T> __device__ __forceinline__ T mul_rn(T a, T b);
template <class T> __device__ __forceinline__ T sqrt_rn(T a);
template <> __device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
template <> __device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
template <> __device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
template <> __device__ __forceinline__ float sqrt_rn(float a) { return __fsqrt_rn(a); }
template <> __device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
template <> __device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
template <> __device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
template <> __device__ __forceinline__ double sqrt_rn(double a) { return __dsqrt_rn(a); }

// Rounded towards +inf (upper bounds of the GEMM filter).
template <class T> __device__ __forceinline__ T add_ru(T a, T b);
template <class T> __device__ __forceinline__ T mul_ru(T a, T b);
template <class T> __device__ __forceinline__ T sqrt_ru(T a);
template <> __device__ __forceinline__ float add_ru(float a, float b) { return __fadd_ru(a, b); }
template <> __device__ __forceinline__ float mul_ru(float a, float b) { return __fmul_ru(a, b); }
template <> __device__ __forceinline__ float sqrt_ru(float a) { return __fsqrt_ru(a); }
template <> __device__ __forceinline__ double add_ru(double a, double b) { return __dadd_ru(a, b); }
template <> __device__ __forceinline__ double mul_ru(double a, double b) { return __dmul_ru(a, b); }
template <> __device__ __forceinline__ double sqrt_ru(double a) { return __dsqrt_ru(a); }

}  // namespace robustfit::neighbors::cuda
