#pragma once
// Helpers shared by the seed algorithms (bucketSelect, SampleSelect, bucketMultiSelect):
// atomic-friendly order-preserving keys, alignment. Device code: include from .cu only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"

namespace robustfit::selection::cuda::detail::seed {

// KeyTraits' order-preserving keys, as the unsigned types CUDA's atomicMin/atomicMax take
// (unsigned int / unsigned long long), so min and max of floats can be kept with atomics.
template <class T> struct OrderedKey;
template <> struct OrderedKey<float> {
  using type = unsigned int;
  __host__ __device__ static type from(float x) { return KeyTraits<float>::to_key(x); }
  __host__ __device__ static float to(type key) { return KeyTraits<float>::from_key(key); }
};
template <> struct OrderedKey<double> {
  using type = unsigned long long;
  __host__ __device__ static type from(double x) { return KeyTraits<double>::to_key(x); }
  __host__ __device__ static double to(type key) { return KeyTraits<double>::from_key(key); }
};

inline std::size_t align_up(std::size_t bytes, std::size_t alignment = 256) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace robustfit::selection::cuda::detail::seed
