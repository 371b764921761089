#pragma once
// Internal: the streaming pass shared by the bracketing selections (Floyd–Rivest, bracket):
// given a bracket [lo, hi] in a BracketState, one read of the input counts the values < lo,
// == lo, == hi, inside (lo, hi) and NaN, and appends the inside values to a buffer in per-warp
// chunks. Where rank k then lies is locate_rank's answer (bracket_bookkeeping.hpp). Device
// code: include from .cu only.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "bracket_bookkeeping.hpp"
#include "launch_shape.cuh"
#include "vector16.cuh"
#include "warp_scan.cuh"

namespace robustfit::selection::cuda::detail::bracketing {

constexpr int kPassThreads = 512;
constexpr int kVectorsPerThread = 4;  // 16-byte loads in flight per thread per step

// Per-thread tallies of the streaming pass: 32-bit (a thread sees at most n / threads values),
// widened once at the end. equal_hi also counts lo's ties when lo == hi; the host ignores it then.
struct Tally {
  unsigned below = 0, equal_lo = 0, equal_hi = 0, inside = 0, nans = 0;
};

template <class T>
__device__ __forceinline__ bool classify(T v, T lo, T hi, Tally& tally) {
  const bool inside = lo < v && v < hi;
  tally.below += v < lo;
  tally.equal_lo += v == lo;
  tally.equal_hi += v == hi;
  tally.inside += inside;
  tally.nans += v != v;
  return inside;
}

__device__ __forceinline__ void add_warp_total(unsigned value, unsigned long long* total) {
  unsigned long long wide = value;
  for (int offset = 16; offset > 0; offset /= 2) wide += __shfl_down_sync(0xffffffffu, wide, offset);
  if (threadIdx.x % 32 == 0 && wide != 0) atomicAdd(total, wide);
}

// A warp's place in the buffer: it owns a chunk of slots, reserved with one atomic when the
// step's inside values do not fit (at least kChunk slots), and fills it in lane order — no
// barriers, and one atomic per chunk rather than per step. Unused slots of a chunk hold hi,
// which lies above every inside value, so the padded buffer has the same order statistics
// below its count of inside values, and all its values lie in [lo, hi]: the radix select that
// finishes only needs the digits of key - key(lo). Positions at or past `capacity` are not
// written (the host then sees cursor > capacity: overflow).
constexpr unsigned kChunk = 256;

template <class T>
struct WarpChunk {
  unsigned long long base = 0;
  unsigned size = 0, used = 0;

  __device__ void pad(T* buffer, std::size_t capacity, T hi) const {
    for (unsigned i = used + threadIdx.x % 32; i < size; i += 32)
      if (base + i < capacity) buffer[base + i] = hi;
  }

  // Room for `total` more values (warp-uniform); returns the first of them.
  __device__ unsigned long long claim(unsigned total, unsigned long long* cursor, T* buffer, std::size_t capacity,
                                     T hi) {
    if (used + total > size) {
      pad(buffer, capacity, hi);
      const unsigned fresh_size = max(kChunk, total);
      unsigned long long fresh = 0;
      if (threadIdx.x % 32 == 0) fresh = atomicAdd(cursor, static_cast<unsigned long long>(fresh_size));
      base = __shfl_sync(0xffffffffu, fresh, 0);
      size = fresh_size;
      used = 0;
    }
    const unsigned long long first = base + used;
    used += total;
    return first;
  }
};

// Step 2. The aligned middle of the input is read as 16-byte vectors in block-uniform steps of
// kVectorsPerThread vectors per thread; each thread classifies its values into registers and
// the warp places the step's inside values with one scan. The unaligned head and the tail
// (fewer than one vector each) are done by the first warp of block 0.
template <class T>
__global__ __launch_bounds__(kPassThreads) void bracket_pass(const T* __restrict__ x, std::size_t head,
                                                             std::size_t vectors, std::size_t n,
                                                             BracketState<T>* state, T* __restrict__ buffer,
                                                             std::size_t capacity) {
  using V = Vector16<T>;
  const T lo = state->lo, hi = state->hi;
  Tally tally;
  WarpChunk<T> chunk;
  const auto* body = reinterpret_cast<const typename V::type*>(x + head);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x; base < vectors; base += stride * kVectorsPerThread) {
    typename V::type loaded[kVectorsPerThread] = {};
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      const std::size_t i = base + u * stride + threadIdx.x;
      if (i < vectors) loaded[u] = body[i];
    }
    unsigned inside = 0;  // bit u * V::size + e: element e of vector u lies inside (lo, hi)
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      if (base + u * stride + threadIdx.x >= vectors) continue;
#pragma unroll
      for (int e = 0; e < V::size; ++e)
        if (classify(element(loaded[u], e), lo, hi, tally)) inside |= 1u << (u * V::size + e);
    }
    unsigned total = 0;
    const unsigned offset = warp_exclusive_sum(__popc(inside), total);
    if (total == 0) continue;
    unsigned long long position = chunk.claim(total, &state->cursor, buffer, capacity, hi) + offset;
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u)
#pragma unroll
      for (int e = 0; e < V::size; ++e)
        if (inside & (1u << (u * V::size + e))) {
          if (position < capacity) buffer[position] = element(loaded[u], e);
          ++position;
        }
  }
  if (blockIdx.x == 0 && threadIdx.x < 32) {
    const std::size_t tail = head + vectors * V::size;
    const std::size_t extra = head + (n - tail);  // < 2 * V::size <= 8
    const std::size_t i = threadIdx.x < head ? threadIdx.x : tail + (threadIdx.x - head);
    const T v = threadIdx.x < extra ? x[i] : T(0);
    const bool keep = threadIdx.x < extra && classify(v, lo, hi, tally);
    unsigned total = 0;
    const unsigned offset = warp_exclusive_sum(keep ? 1u : 0u, total);
    if (total != 0) {
      const unsigned long long position = chunk.claim(total, &state->cursor, buffer, capacity, hi) + offset;
      if (keep && position < capacity) buffer[position] = v;
    }
  }
  chunk.pad(buffer, capacity, hi);
  add_warp_total(tally.below, &state->below);
  add_warp_total(tally.equal_lo, &state->equal_lo);
  add_warp_total(tally.equal_hi, &state->equal_hi);
  add_warp_total(tally.inside, &state->inside);
  add_warp_total(tally.nans, &state->nans);
}

// Launch shape of bracket_pass for an input at `values`: the scalar head before the first
// 16-byte boundary, the vectors after it, the grid, and the buffer capacity (capacity_fraction
// of n plus one partly filled chunk per warp, at most max_capacity).
struct PassShape {
  std::size_t head, vectors, capacity;
  unsigned grid;
};

template <class T>
PassShape pass_shape(const T* values, std::size_t n, double capacity_fraction, std::size_t max_capacity) {
  using V = Vector16<T>;
  const auto address = reinterpret_cast<std::uintptr_t>(values);
  PassShape shape{};
  shape.head = std::min(n, (16 - address % 16) % 16 / sizeof(T));
  shape.vectors = (n - shape.head) / V::size;
  shape.grid = streaming_grid(shape.vectors, kPassThreads, kVectorsPerThread, 2048 / kPassThreads);
  const std::size_t warps = std::size_t{shape.grid} * (kPassThreads / 32);
  shape.capacity = std::min(max_capacity, static_cast<std::size_t>(static_cast<double>(n) * capacity_fraction) +
                                              warps * kChunk);
  return shape;
}

}  // namespace robustfit::selection::cuda::detail::bracketing
