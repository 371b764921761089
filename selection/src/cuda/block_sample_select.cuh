#pragma once
// Internal: the bracketing selections' one-block sample (Floyd–Rivest, bracket: separate kernels
// and one launch). A block of 512 threads draws 512 * kItems keys at fixed pseudo-random
// positions, so that every block (or call) that draws it picks the same bracket, and selects the
// two order statistics the bracket needs without sorting: CUB's block radix sort makes 8 (float)
// or 16 (double) passes of 4 bits with several barriers each (H200: 55 us for 16384 floats),
// where the bracket needs only the keys at two ranks and whether each repeats. An MSD radix select
// in shared memory, 8 bits a digit, both ranks in the same passes: 4 passes for float keys, 8 for
// double. Device code: include from .cu only.
#include <cstddef>
#include <cstdint>

#include "bracket_bookkeeping.hpp"
#include "key_traits.cuh"
#include "seed_common.cuh"
#include "warp_scan.cuh"

namespace robustfit::selection::cuda::detail::bracketing {

constexpr int kBlockSampleThreads = 512;

// The thread's kItems keys of the sample.
template <class T, int kItems>
__device__ __forceinline__ void draw_block_sample(const T* __restrict__ x, std::size_t n,
                                                  typename KeyTraits<T>::Key (&keys)[kItems]) {
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    keys[j] = KeyTraits<T>::to_key(x[seed::sample_index(threadIdx.x * std::uint64_t{kItems} + j + 1, n)]);
}

constexpr int kSelectDigitBits = 8;
constexpr int kSelectBins = 1 << kSelectDigitBits;

template <class Key>
struct SampleSelectStorage {
  unsigned counts[2][kSelectBins];
  Key prefix[2];
  unsigned rank[2];
  unsigned repeats[2];
};

// The keys at ranks wanted[0] and wanted[1] (each in [0, size): every thread's kItems keys
// together, size = blockDim.x * kItems) and how many keys equal each. Every thread of the block
// calls it and gets the answers. With `bits` < the key's width only keys below 2^bits take part
// (the ranks count among them): the passes start at the digit that holds bit bits - 1.
template <class Key, int kItems>
__device__ void select_two_ranks(const Key (&keys)[kItems], const unsigned (&wanted)[2],
                                 SampleSelectStorage<Key>& storage, Key (&found)[2], unsigned (&repeats)[2],
                                 int bits = static_cast<int>(sizeof(Key) * 8)) {
  if (threadIdx.x < 2) {
    storage.prefix[threadIdx.x] = 0;
    storage.rank[threadIdx.x] = wanted[threadIdx.x];
  }
  const int top = (bits + kSelectDigitBits - 1) / kSelectDigitBits * kSelectDigitBits;
  for (int shift = top - kSelectDigitBits; shift >= 0; shift -= kSelectDigitBits) {
    for (int b = threadIdx.x; b < 2 * kSelectBins; b += blockDim.x) (&storage.counts[0][0])[b] = 0;
    __syncthreads();
    const Key prefix[2] = {storage.prefix[0], storage.prefix[1]};
    // While both ranks share the prefix (the first digit always) one histogram serves both.
    const int histograms = prefix[0] == prefix[1] ? 1 : 2;
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      if (q == histograms) break;  // block-uniform
      // A thread adds up runs of its keys in one bin and counts each run with one shared
      // atomic, issued without waiting: ties (a sample of one value) cost one atomic a thread,
      // not one a key. (A warp-aggregated count a key, with its vote and shuffle, took 12.2 us of
      // 8192 uniform floats' selection, this 7.8; one value: 2.2. H200, bench/bracket_sample_probe.cu.)
      int run_bin = -1;
      unsigned run = 0;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const bool match = shift_right(keys[j], shift + kSelectDigitBits) == prefix[q];
        const int bin = match ? static_cast<int>((keys[j] >> shift) & Key(kSelectBins - 1)) : -1;
        if (bin != run_bin) {
          if (run != 0) atomicAdd(&storage.counts[q][run_bin], run);
          run_bin = bin;
          run = 0;
        }
        run += match;
      }
      if (run != 0) atomicAdd(&storage.counts[q][run_bin], run);
    }
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp < 2) {  // warp q finds rank q's bin: 8 bins a lane, a scan across the lanes
      constexpr int kPerLane = kSelectBins / 32;
      const unsigned* counts = storage.counts[histograms == 1 ? 0 : warp];
      unsigned mine[kPerLane], total = 0;
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) total += mine[j] = counts[lane * kPerLane + j];
      unsigned all = 0;
      unsigned below = warp_exclusive_sum(total, all);
      const unsigned rank = storage.rank[warp];
      const Key prefix_q = storage.prefix[warp];
      __syncwarp();
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        if (rank >= below && rank < below + mine[j]) {
          storage.prefix[warp] = Key(prefix_q << kSelectDigitBits) | Key(lane * kPerLane + j);
          storage.rank[warp] = rank - below;
          storage.repeats[warp] = mine[j];
        }
        below += mine[j];
      }
    }
    __syncthreads();
  }
  found[0] = storage.prefix[0];
  found[1] = storage.prefix[1];
  repeats[0] = storage.repeats[0];
  repeats[1] = storage.repeats[1];
}

// The bracket of rank k of n from the block's sample (every thread calls it and gets it): the
// sorted sample's bracket (bracket_from_sample), ties counted by key (-0 and +0 differ: only the
// choice of pass, never the answer, could differ).
template <class T, int kItems>
__device__ BracketState<T> bracket_from_block_sample(const typename KeyTraits<T>::Key (&keys)[kItems], std::size_t k,
                                                     std::size_t n, float sigmas,
                                                     SampleSelectStorage<typename KeyTraits<T>::Key>& storage) {
  using Key = typename KeyTraits<T>::Key;
  constexpr long long kSize = static_cast<long long>(kBlockSampleThreads) * kItems;
  const SampleWindow window = sample_window(k, n, kSize, sigmas);
  const unsigned wanted[2] = {static_cast<unsigned>(clamped_rank(window.lo_rank, kSize)),
                              static_cast<unsigned>(clamped_rank(window.hi_rank, kSize))};
  Key ends[2];
  unsigned repeats[2];
  select_two_ranks<Key, kItems>(keys, wanted, storage, ends, repeats);
  return bracket_from_ends<T>(window, kSize, KeyTraits<T>::from_key(ends[0]), repeats[0],
                              KeyTraits<T>::from_key(ends[1]), repeats[1]);
}

}  // namespace robustfit::selection::cuda::detail::bracketing
