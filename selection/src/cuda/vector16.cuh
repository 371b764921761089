#pragma once
// 16-byte vectors of float / double for the streaming passes that read their input with vector
// loads, element access by a compile-time-unrollable index, and a register array's item at a
// run-time index. Device code: include from .cu only.
#include <cuda_runtime.h>

namespace robustfit::selection::cuda::detail {

template <class T> struct Vector16;
template <> struct Vector16<float> { using type = float4; static constexpr int size = 4; };
template <> struct Vector16<double> { using type = double2; static constexpr int size = 2; };

__device__ __forceinline__ float4 splat(float x) { return make_float4(x, x, x, x); }
__device__ __forceinline__ double2 splat(double x) { return make_double2(x, x); }

__device__ __forceinline__ float element(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
__device__ __forceinline__ double element(const double2& v, int i) { return i == 0 ? v.x : v.y; }

// items[u] of a register array of kItems for a u known only at run time: a dynamic index would
// move the whole array to local memory.
template <int kItems, class T>
__device__ __forceinline__ T item(const T* items, int u) {
  T chosen = items[0];
#pragma unroll
  for (int j = 1; j < kItems; ++j)
    if (j == u) chosen = items[j];
  return chosen;
}

}  // namespace robustfit::selection::cuda::detail
