#pragma once
// 16-byte vectors of float / double for the streaming passes that read their input with vector
// loads, and element access by a compile-time-unrollable index. Device code: include from .cu only.
#include <cuda_runtime.h>

namespace robustfit::selection::cuda::detail {

template <class T> struct Vector16;
template <> struct Vector16<float> { using type = float4; static constexpr int size = 4; };
template <> struct Vector16<double> { using type = double2; static constexpr int size = 2; };

__device__ __forceinline__ float element(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
__device__ __forceinline__ double element(const double2& v, int i) { return i == 0 ? v.x : v.y; }

}  // namespace robustfit::selection::cuda::detail
