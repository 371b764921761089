#pragma once
// Helpers shared by the published GPU algorithms (bucketSelect, SampleSelect, bucketMultiSelect) and
// Floyd–Rivest: atomic-friendly order-preserving keys, sample positions, alignment.
// Device code: include from .cu only.
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

// Counts `bucket` in a block's shared-memory counters (a negative bucket is not counted: the
// dummy bucket of eliminated elements): one atomic per warp when the whole warp agrees (runs
// of equal elements, the adversarial case), else one atomic per thread.
__device__ __forceinline__ void count_in_shared(unsigned int* local, int bucket) {
  const unsigned mask = __activemask();
  const int leader = __ffs(mask) - 1;
  const int first = __shfl_sync(mask, bucket, leader);
  if (__all_sync(mask, bucket == first)) {
    if (static_cast<int>(threadIdx.x % 32) == leader && first >= 0) atomicAdd(&local[first], __popc(mask));
  } else if (bucket >= 0) {
    atomicAdd(&local[bucket], 1u);
  }
}

// Where a keeping lane writes when the warp's keepers (`keepers` = __ballot_sync(mask, keep),
// non-zero) are appended at *cursor in lane order: one global atomic per warp, by the first
// keeper. Every lane of `mask` calls it.
template <class Count>  // unsigned or unsigned long long
__device__ __forceinline__ Count warp_append(unsigned mask, unsigned keepers, Count* cursor) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int leader = __ffs(keepers) - 1;
  Count base = 0;
  if (lane == leader) base = atomicAdd(cursor, static_cast<Count>(__popc(keepers)));
  base = __shfl_sync(mask, base, leader);
  return base + static_cast<Count>(__popc(keepers & ((1u << lane) - 1)));
}

// Adds a block's shared counters to the global ones (only the non-zero ones).
__device__ inline void flush_counts(const unsigned int* local, int buckets, unsigned long long* counts) {
  __syncthreads();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x)
    if (local[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(local[b]));
}

// splitmix64's finaliser: pseudo-random sample positions, the same on every run.
__device__ __forceinline__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The position in [0, n) of sample draw i: the mixed index scaled by n (the high word of the
// 128-bit product) rather than reduced modulo n, which costs a 64-bit division a draw (H200: a
// block drawing 8192 keys, 13.3 us with `%`, 5.9-6.7 us with this; bench/bracket_sample_probe.cu).
// The seed algorithms (sample, bucket, bucket multiselection) keep their `%`.
__device__ __forceinline__ std::size_t sample_index(std::uint64_t i, std::size_t n) { return __umul64hi(mix(i), n); }

inline std::size_t align_up(std::size_t bytes, std::size_t alignment = 256) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace robustfit::selection::cuda::detail::seed
