#pragma once
// Internal: the finishing radix digits of bracket selection (bracket_select.cu's separate
// kernels, bracket_one_launch.cu's cooperative one), done alike: each block counts its share of
// the buffer's digits in shared memory, and one block (each, in the cooperative kernel) finds the
// bin of the summed counters that holds the wanted rank. Device code: include from .cu only.
#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <type_traits>

#include "bracket_bookkeeping.hpp"
#include "key_traits.cuh"
#include "seed_common.cuh"

namespace robustfit::selection::cuda::detail::bracketing {

// Keys in flight per thread while counting: one at a time, each waited out L2's latency (the
// buffer was written by the pass and sits in L2).
constexpr int kDigitLoads = 4;

// Adds to `counts` (kDigitBins, shared) the digit of every buffer value whose key - base shares
// the prefix: a grid-stride loop from `first` by `stride`.
template <class T>
__device__ __forceinline__ void count_digit(const T* buffer, std::size_t size, std::size_t first, std::size_t stride,
                                            typename KeyTraits<T>::Key base, typename KeyTraits<T>::Key prefix,
                                            int remaining, Digit digit, unsigned* counts) {
  using Key = typename KeyTraits<T>::Key;
  for (std::size_t i = first; i < size; i += stride * kDigitLoads) {
    Key keys[kDigitLoads];
#pragma unroll
    for (int j = 0; j < kDigitLoads; ++j) {
      const std::size_t at = i + j * stride;
      keys[j] = at < size ? Key(KeyTraits<T>::to_key(__ldcg(&buffer[at])) - base) : Key(0);
    }
#pragma unroll
    for (int j = 0; j < kDigitLoads; ++j)  // every lane takes part (count_in_shared is warp-aggregated)
      seed::count_in_shared(counts, i + j * stride < size ? digit_bin(keys[j], prefix, remaining, digit) : -1);
  }
}

template <int kThreads>
using DigitScan = cub::BlockScan<unsigned long long, kThreads>;

// Scans `hist` (complete: every block's counts added) with the block's kThreads threads; the
// thread whose bins hold `rank` calls found(bin, rank within the bin), or found(bin, rank within
// the bin, the bin's count) where `found` takes three. `clear`: zeroes the counters as they are
// read (for the next digit). kPastL1: reads past L1 (other blocks wrote the counters in this
// kernel, and this block may have read them before); plain loads where the block reads them
// once, after the writers are done (radix select: a read past L1 cost ~1 us a digit at 2^20
// values on the H200), and for counters in shared memory (Count: unsigned there).
template <int kThreads, bool kPastL1 = true, class Count, class Found>
__device__ __forceinline__ void find_digit_bin(Count* hist, unsigned long long rank, bool clear,
                                               typename DigitScan<kThreads>::TempStorage& storage, Found found) {
  static_assert(kDigitBins % kThreads == 0);
  constexpr int kPerThread = kDigitBins / kThreads;
  unsigned long long mine[kPerThread];
  unsigned long long total = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int b = threadIdx.x * kPerThread + j;
    if constexpr (kPastL1) mine[j] = __ldcg(&hist[b]);
    else mine[j] = hist[b];
    if (clear) hist[b] = 0;
    total += mine[j];
  }
  unsigned long long below = 0;
  DigitScan<kThreads>(storage).ExclusiveSum(total, below);
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    if (rank >= below && rank < below + mine[j]) {
      const int bin = static_cast<int>(threadIdx.x) * kPerThread + j;
      if constexpr (std::is_invocable_v<Found, int, unsigned long long, unsigned long long>)
        found(bin, rank - below, mine[j]);
      else
        found(bin, rank - below);
    }
    below += mine[j];
  }
}

}  // namespace robustfit::selection::cuda::detail::bracketing
