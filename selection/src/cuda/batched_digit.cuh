#pragma once
// The find step of the batched radix passes: from one column's digit counts, the bin holding
// the column's rank. batched_select.cu (radix over all columns, one launch per pass or one
// launch per call) and batched_bracket.cu (the bracket's finishing radix) share it.
// Device code: include from .cu only.
#include <cub/block/block_scan.cuh>

namespace robustfit::selection::cuda::detail {

template <int kThreads>
using DigitScan = cub::BlockScan<unsigned long long, kThreads>;

// The bin of kBins (thread t holds the counts of bins t * kPerThread ..) holding rank k: returns
// it, with the rank within the bin, on the thread that holds it, -1 elsewhere. All kThreads
// threads call it (a block scan over `storage`).
template <int kBins, int kThreads>
__device__ __forceinline__ int bin_of_rank(const unsigned int (&counts)[kBins / kThreads], unsigned long long k,
                                           typename DigitScan<kThreads>::TempStorage& storage,
                                           unsigned long long& rank_in_bin) {
  constexpr int kPerThread = kBins / kThreads;
  static_assert(kBins % kThreads == 0);
  unsigned long long total = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) total += counts[j];
  unsigned long long below = 0;
  DigitScan<kThreads>(storage).ExclusiveSum(total, below);
  int found = -1;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    if (k >= below && k < below + counts[j]) {
      found = int(threadIdx.x) * kPerThread + j;
      rank_in_bin = k - below;
    }
    below += counts[j];
  }
  return found;
}

// All kThreads threads call it. `hist`: the column's 2^kBits counters (zero on return).
// `*prefix` gains the `width`-bit digit of the bin holding rank `*rank`, and `*rank` becomes the
// rank within that bin. Returns, in the one thread that found the bin, true (and the new prefix
// in `found`); false elsewhere. Ends with a barrier, so `storage` may be reused at once.
template <class Key, int kBits, int kThreads>
__device__ bool find_digit(unsigned int* hist, Key* prefix, unsigned long long* rank, int width,
                           typename DigitScan<kThreads>::TempStorage& storage, Key& found) {
  constexpr int kBins = 1 << kBits;
  constexpr int kPerThread = kBins / kThreads;
  unsigned int counts[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    counts[j] = hist[threadIdx.x * kPerThread + j];
    hist[threadIdx.x * kPerThread + j] = 0;
  }
  const unsigned long long k = *rank;
  const Key column_prefix = *prefix;
  unsigned long long rank_in_bin = 0;
  const int bin = bin_of_rank<kBins, kThreads>(counts, k, storage, rank_in_bin);
  __syncthreads();  // every thread has read rank and prefix before one of them writes them
  if (bin >= 0) {
    found = (column_prefix << width) | Key(bin);
    *prefix = found;
    *rank = rank_in_bin;
  }
  __syncthreads();
  return bin >= 0;
}

}  // namespace robustfit::selection::cuda::detail
