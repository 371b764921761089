#pragma once
// A streaming pass's read of an array of float / double by 16-byte vector loads, shared by the
// passes that see every value once and may use warp-wide operations per step (sampled
// multiselection's count and compaction, the distributed shard's count and placed reduce).
// Device code: include from .cu only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "vector16.cuh"

namespace robustfit::selection::cuda::detail {

// 16-byte vectors each thread keeps in flight per step (one scalar load per thread would leave
// most of the memory bandwidth unused), and the values a thread sees per step.
constexpr int kVisitVectors = 4;
template <class T> constexpr int kVisitItems = kVisitVectors * Vector16<T>::size;

// Calls visit(values, valid) for every value of x[0, n), kVisitItems<T> values per thread per
// call (bit u of `valid`: values[u] is one of them), with no bounds check per value. Every
// thread of a block makes the same calls, so `visit` may use warp-wide operations: the aligned
// middle of x in block-uniform grid-strided steps, then, in block 0, one step for the unaligned
// head and the tail (fewer than one vector each, so at most one value per lane of the first
// warp). A block visits the same values on every launch of the same grid, which lets a second
// pass place values by the first pass's per-block counts.
template <class T, class Visit>
__device__ void visit_vectors(const T* __restrict__ x, std::size_t n, Visit&& visit) {
  using V = Vector16<T>;
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(x) % 16;
  const std::size_t head = min(n, (16 - misalignment) % 16 / sizeof(T));
  const std::size_t vectors = (n - head) / V::size;
  const auto* body = reinterpret_cast<const typename V::type*>(x + head);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  T values[kVisitItems<T>];
  for (std::size_t base = std::size_t{blockIdx.x} * blockDim.x; base < vectors; base += stride * kVisitVectors) {
    typename V::type loaded[kVisitVectors];
    unsigned valid = 0;
#pragma unroll
    for (int u = 0; u < kVisitVectors; ++u) {
      const std::size_t i = base + u * stride + threadIdx.x;
      loaded[u] = typename V::type{};
      if (i < vectors) {
        loaded[u] = body[i];
        valid |= ((1u << V::size) - 1) << (u * V::size);
      }
    }
#pragma unroll
    for (int u = 0; u < kVisitVectors; ++u)
#pragma unroll
      for (int e = 0; e < V::size; ++e) values[u * V::size + e] = element(loaded[u], e);
    visit(values, valid);
  }
  if (blockIdx.x == 0) {
    const std::size_t tail = head + vectors * V::size;
    const std::size_t extra = head + (n - tail);  // < 2 * V::size <= 8
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u) values[u] = T(0);
    unsigned valid = 0;
    if (threadIdx.x < extra) {
      values[0] = x[threadIdx.x < head ? threadIdx.x : tail + (threadIdx.x - head)];
      valid = 1;
    }
    visit(values, valid);
  }
}

// Calls f(u) for each u < kItems whose bit is set in `valid`. Every step but the last has all
// bits set: that case runs without a branch per value, so the values' work (table loads and the
// arithmetic on them) interleaves; a branch per value serialised it (the band compaction took
// 27 instructions and two shared-load latencies in turn per value: 0.52 ms of 2^28 floats
// against 0.43 without; the counting read 0.29 against 0.26).
template <int kItems, class F>
__device__ __forceinline__ void for_each_valid(unsigned valid, F&& f) {
  if (valid == (1u << kItems) - 1) {
#pragma unroll
    for (int u = 0; u < kItems; ++u) f(u);
  } else {
#pragma unroll
    for (int u = 0; u < kItems; ++u)
      if (valid >> u & 1u) f(u);
  }
}

}  // namespace robustfit::selection::cuda::detail
