#pragma once
// Internal: the streaming pass shared by the bracketing selections (Floyd–Rivest, bracket):
// given a bracket [lo, hi] in a BracketState, one read of the input counts the values < lo and
// appends the values of [lo, hi] and NaNs to a buffer in per-warp chunks (the closed pass), or,
// where the sample shows lo or hi tied, counts the values < lo, == lo, == hi, inside (lo, hi)
// and NaN and appends the inside ones (the open pass). The counts go to a BracketState; where
// rank k then lies is locate_rank's answer (both in bracket_bookkeeping.hpp). Device code:
// include from .cu only.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "bracket_bookkeeping.hpp"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "seed_common.cuh"
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

// The finishing radix's first digit of the buffer's values (kept ones and padding), counted where
// they are placed (the finish then starts at its second digit: one read of the buffer fewer).
// The digit is radix_select_in_range's over key - key(lo): the top kDigitBits of the span's bit
// width (Floyd-Rivest's pass counts it; the one-launch bracket, measured, is faster without). counts: kDigitBins shared counters, or null: not counted.
template <class T>
struct FirstDigit {
  using Key = typename KeyTraits<T>::Key;
  unsigned* counts = nullptr;
  Key base = 0;
  int shift = 0;
  FirstDigit() = default;
  __device__ FirstDigit(unsigned* shared_counts, T lo, T hi)
      : counts(shared_counts), base(KeyTraits<T>::to_key(lo)), shift(first_digit_shift(Key(KeyTraits<T>::to_key(hi) - base))) {}
  // `times` values v (NaN: not counted; the caller answers NaN).
  __device__ void count(T v, unsigned times = 1) const {
    if (counts != nullptr && v == v) atomicAdd(&counts[(KeyTraits<T>::to_key(v) - base) >> shift], times);
  }
};

// A warp's place in the buffer: it owns a chunk of slots, reserved with one atomic when the
// step's kept values do not fit (at least kChunk slots), and fills it in lane order — no
// barriers, and one atomic per chunk rather than per step. Unused slots of a chunk hold hi,
// which lies at or above every kept value, so the padded buffer has the same order statistics
// below its count of kept values, and all its values lie in [lo, hi]: the radix select that
// finishes only needs the digits of key - key(lo). Positions at or past `capacity` are not
// written (the host then sees cursor > capacity: overflow).
constexpr unsigned kChunk = 256;

template <class T>
struct WarpChunk {
  unsigned long long base = 0;
  unsigned size = 0, used = 0;

  __device__ void pad(T* buffer, std::size_t capacity, T hi, const FirstDigit<T>& digit) const {
    for (unsigned i = used + threadIdx.x % 32; i < size; i += 32)
      if (base + i < capacity) buffer[base + i] = hi;
    if (threadIdx.x % 32 == 0 && size > used) digit.count(hi, size - used);
  }

  // Room for `total` more values (warp-uniform); returns the first of them.
  __device__ unsigned long long claim(unsigned total, unsigned long long* cursor, T* buffer, std::size_t capacity,
                                     T hi, const FirstDigit<T>& digit) {
    if (used + total > size) {
      pad(buffer, capacity, hi, digit);
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

// 0xffffffff where a < b, else 0 (NaN: 0): one instruction for floats, so that the closed
// pass's count of values below lo is one add for two values (IADD3).
__device__ __forceinline__ unsigned less_mask(float a, float b) {
  unsigned mask;
  asm("set.lt.u32.f32 %0, %1, %2;" : "=r"(mask) : "f"(a), "f"(b));
  return mask;
}
__device__ __forceinline__ unsigned less_mask(double a, double b) {
  unsigned mask;
  asm("set.lt.u32.f64 %0, %1, %2;" : "=r"(mask) : "d"(a), "d"(b));
  return mask;
}

// One step of the pass over a thread's kItems values (bit u of `valid`: values[u] is one of
// them; the others hold NaN in the closed pass). Returns the values to keep, bit u for values[u].
//  - closed: below_mask_sum gathers the less_mask of each value (minus the count of values
//    below lo); a value neither below lo nor above hi is kept, NaN included.
//  - open: the five tallies (classify).
template <bool kClosed, int kItems, class T>
__device__ __forceinline__ unsigned classify_step(const T* values, unsigned valid, T lo, T hi, Tally& tally,
                                                 unsigned& below_mask_sum) {
  unsigned keep = 0;
  if constexpr (kClosed) {
    unsigned outside = 0;
#pragma unroll
    for (int u = 0; u < kItems; ++u) {
      const unsigned below = less_mask(values[u], lo);
      below_mask_sum += below;
      outside |= (below | less_mask(hi, values[u])) & (1u << u);
    }
    keep = ~outside & valid;
    tally.inside += __popc(keep);
  } else {
#pragma unroll
    for (int u = 0; u < kItems; ++u)
      if ((valid >> u & 1u) && classify(values[u], lo, hi, tally)) keep |= 1u << u;
  }
  return keep;
}

// Step 2. The aligned middle of the input is read as 16-byte vectors in block-uniform steps of
// kVectorsPerThread vectors per thread; each thread classifies its values into registers and
// the warp places the step's kept values with one scan. A thread stores its step's values to
// its row of shared memory and reads back the kept ones by index (a register array indexed at
// run time would live in local memory): most steps keep none or one of a thread's values. The unaligned head
// and the tail (fewer than one vector each) are done by the first warp of block 0.
template <class T, bool kClosed>
__device__ __forceinline__ void bracket_pass_body(const T* __restrict__ x, std::size_t head, std::size_t vectors,
                                                  std::size_t n, T lo, T hi, BracketState<T>* state,
                                                  T* __restrict__ buffer, std::size_t capacity, T* row,
                                                  const FirstDigit<T>& digit = FirstDigit<T>()) {
  using V = Vector16<T>;
  constexpr int kItems = kVectorsPerThread * V::size;
  // Values that are not the input's in the closed pass: NaN is neither below lo nor above hi,
  // and `valid` drops it from the kept ones.
  const T absent = kClosed ? T(NAN) : T(0);
  Tally tally;
  unsigned below_mask_sum = 0;
  WarpChunk<T> chunk;
  auto place = [&](const T* values, unsigned keep) {
    unsigned total = 0;
    const unsigned offset = warp_exclusive_sum(__popc(keep), total);
    if (total == 0) return;
    unsigned long long position = chunk.claim(total, &state->cursor, buffer, capacity, hi, digit) + offset;
    if (keep == 0) return;
#pragma unroll
    for (int u = 0; u < kItems; ++u) row[u] = values[u];
    for (unsigned rest = keep; rest != 0; rest &= rest - 1) {
      const T v = row[__ffs(rest) - 1];
      if (kClosed) tally.nans += v != v;
      digit.count(v);
      if (position < capacity) buffer[position] = v;
      ++position;
    }
  };
  const auto* body = reinterpret_cast<const typename V::type*>(x + head);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t step = stride * kVectorsPerThread;
  T values[kItems];
  auto classify_and_place = [&](const typename V::type* loaded, unsigned valid) {
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u)
#pragma unroll
      for (int e = 0; e < V::size; ++e) values[u * V::size + e] = element(loaded[u], e);
    place(values, classify_step<kClosed, kItems>(values, valid, lo, hi, tally, below_mask_sum));
  };
  // Steps whose vectors are all in range for every thread of the block (all but the last one
  // or two): no bounds checks, and the next step's loads are issued before this step's values
  // are classified, so that each warp keeps its loads in flight while it computes (H200, 2^28
  // floats: the pass 283-288 -> 278-279 us under ncu at real clocks).
  static_assert(kItems < 32, "bit u of a step mask stands for values[u]");
  constexpr unsigned kAll = (1u << kItems) - 1;
  auto full = [&](std::size_t b) { return b + (kVectorsPerThread - 1) * stride + blockDim.x <= vectors; };
  std::size_t base = std::size_t(blockIdx.x) * blockDim.x;
  if (full(base)) {
    typename V::type current[kVectorsPerThread], upcoming[kVectorsPerThread];
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) current[u] = body[base + u * stride + threadIdx.x];
    for (;;) {
      const std::size_t next = base + step;
      const bool more = full(next);
      if (more) {
#pragma unroll
        for (int u = 0; u < kVectorsPerThread; ++u) upcoming[u] = body[next + u * stride + threadIdx.x];
      }
      classify_and_place(current, kAll);
      base = next;
      if (!more) break;
#pragma unroll
      for (int u = 0; u < kVectorsPerThread; ++u) current[u] = upcoming[u];
    }
  }
  for (; base < vectors; base += step) {  // the last, partial step
    typename V::type loaded[kVectorsPerThread];
    unsigned valid = 0;
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      const std::size_t i = base + u * stride + threadIdx.x;
      if (i < vectors) {
        loaded[u] = body[i];
        valid |= ((1u << V::size) - 1) << (u * V::size);
      } else {
        loaded[u] = splat(absent);
      }
    }
    classify_and_place(loaded, valid);
  }
  if (blockIdx.x == 0 && threadIdx.x < 32) {
    const std::size_t tail = head + vectors * V::size;
    const std::size_t extra = head + (n - tail);  // < 2 * V::size <= 8
#pragma unroll
    for (int u = 0; u < kItems; ++u) values[u] = absent;
    unsigned valid = 0;
    if (threadIdx.x < extra) {
      values[0] = x[threadIdx.x < head ? threadIdx.x : tail + (threadIdx.x - head)];
      valid = 1;
    }
    place(values, classify_step<kClosed, kItems>(values, valid, lo, hi, tally, below_mask_sum));
  }
  chunk.pad(buffer, capacity, hi, digit);
  if (kClosed) tally.below = 0u - below_mask_sum;
  add_warp_sum(tally.below, &state->below);
  add_warp_sum(tally.equal_lo, &state->equal_lo);
  add_warp_sum(tally.equal_hi, &state->equal_hi);
  add_warp_sum(tally.inside, &state->inside);
  add_warp_sum(tally.nans, &state->nans);
}

// A thread's row of shared memory in the pass: a step's values (odd float rows: no bank conflicts).
template <class T>
constexpr int kStagedRow = kVectorsPerThread * Vector16<T>::size + (sizeof(T) == 4 ? 1 : 0);

// The pass the sample chose (state->closed: the same for every block). first_digit not null:
// the kept values' first finishing digit (FirstDigit) added to those kDigitBins counters.
template <class T>
__global__ __launch_bounds__(kPassThreads) void bracket_pass(const T* __restrict__ x, std::size_t head,
                                                             std::size_t vectors, std::size_t n,
                                                             BracketState<T>* state, T* __restrict__ buffer,
                                                             std::size_t capacity,
                                                             unsigned long long* first_digit = nullptr) {
  __shared__ T staged[kPassThreads][kStagedRow<T>];
  __shared__ unsigned digit_counts[kDigitBins];
  const T lo = state->lo, hi = state->hi;
  FirstDigit<T> digit;
  if (first_digit != nullptr) {
    for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) digit_counts[b] = 0;
    __syncthreads();
    digit = FirstDigit<T>(digit_counts, lo, hi);
  }
  if (state->closed)
    bracket_pass_body<T, true>(x, head, vectors, n, lo, hi, state, buffer, capacity, staged[threadIdx.x], digit);
  else
    bracket_pass_body<T, false>(x, head, vectors, n, lo, hi, state, buffer, capacity, staged[threadIdx.x], digit);
  if (first_digit != nullptr) seed::flush_counts(digit_counts, kDigitBins, first_digit);
}

// Launch shape of bracket_pass for an input at `values`: the scalar head before the first
// 16-byte boundary, the vectors after it, the grid, and the buffer capacity (capacity_fraction
// of n plus one partly filled chunk per warp, at most max_capacity).
struct PassShape {
  std::size_t head, vectors, capacity;
  unsigned grid;
};

// The shape of a pass over an input at `values` by a grid of resident blocks (blocks_per_sm).
template <class T>
PassShape pass_shape_for(const T* values, std::size_t n, double capacity_fraction, std::size_t max_capacity,
                         int blocks_per_sm) {
  using V = Vector16<T>;
  const auto address = reinterpret_cast<std::uintptr_t>(values);
  PassShape shape{};
  shape.head = std::min(n, (16 - address % 16) % 16 / sizeof(T));
  shape.vectors = (n - shape.head) / V::size;
  shape.grid = streaming_grid(shape.vectors, kPassThreads, kVectorsPerThread, blocks_per_sm);
  const std::size_t warps = std::size_t{shape.grid} * (kPassThreads / 32);
  shape.capacity = std::min(max_capacity, static_cast<std::size_t>(static_cast<double>(n) * capacity_fraction) +
                                              warps * kChunk);
  return shape;
}

template <class T>
PassShape pass_shape(const T* values, std::size_t n, double capacity_fraction, std::size_t max_capacity) {
  static const int blocks_per_sm = resident_blocks_per_sm(bracket_pass<T>, kPassThreads, 0, 2048 / kPassThreads);
  return pass_shape_for(values, n, capacity_fraction, max_capacity, blocks_per_sm);
}

}  // namespace robustfit::selection::cuda::detail::bracketing
