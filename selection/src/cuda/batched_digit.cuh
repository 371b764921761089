#pragma once
// The find step of the batched bracket's finishing radix: one block scans one column's digit
// histogram, clears it for the next pass, and moves the column to the bin holding its rank.
// (batched_select.cu's batched_find is the same step for one column per block; merging the two
// is left to the merge with main's staged bin_of_rank refactor of that file.)
// Device code: include from .cu only.
#include <cub/block/block_scan.cuh>

namespace robustfit::selection::cuda::detail {

template <int kThreads>
using DigitScan = cub::BlockScan<unsigned long long, kThreads>;

// All kThreads threads call it. `hist`: the column's 2^kBits counters (zero on return).
// `*prefix` gains the `width`-bit digit of the bin holding rank `*rank`, and `*rank` becomes the
// rank within that bin. Returns, in the one thread that found the bin, true (and the new prefix
// in `found`); false elsewhere. Ends with a barrier, so `storage` may be reused at once.
template <class Key, int kBits, int kThreads>
__device__ bool find_digit(unsigned int* hist, Key* prefix, unsigned long long* rank, int width,
                           typename DigitScan<kThreads>::TempStorage& storage, Key& found) {
  constexpr int kBins = 1 << kBits;
  constexpr int kPerThread = kBins / kThreads;
  static_assert(kBins % kThreads == 0);
  unsigned int counts[kPerThread];
  unsigned long long total = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    counts[j] = hist[threadIdx.x * kPerThread + j];
    hist[threadIdx.x * kPerThread + j] = 0;
    total += counts[j];
  }
  unsigned long long below = 0;
  DigitScan<kThreads>(storage).ExclusiveSum(total, below);
  const unsigned long long k = *rank;
  const Key column_prefix = *prefix;
  __syncthreads();  // every thread has read rank and prefix before one of them writes them
  bool mine = false;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    if (k >= below && k < below + counts[j]) {
      found = (column_prefix << width) | Key(threadIdx.x * kPerThread + j);
      *prefix = found;
      *rank = k - below;
      mine = true;
    }
    below += counts[j];
  }
  __syncthreads();
  return mine;
}

}  // namespace robustfit::selection::cuda::detail
