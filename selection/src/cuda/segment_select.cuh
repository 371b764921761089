#pragma once
// Internal: the finish of many-rank selection (sampled_multi_select.cu's edges, band_multi_select.cu's
// bands): a block per rank selects the rank within its segment of candidates (the keys of the
// bucket or range holding it, compacted) by 11-bit MSD digits of key - the segment's lowest
// key, rescanning the segment (just written: it sits in L2) once per digit; only the digits
// within the segment's key span are looked at. Device code: include from .cu only.
#include <cstddef>

#include "batched_digit.cuh"

namespace robustfit::selection::cuda::detail::segments {

constexpr int kSelectThreads = 1024;
constexpr int kDigitBits = 11;
constexpr int kDigitBins = 1 << kDigitBits;

template <class Key>
__device__ __forceinline__ int bit_width(Key v) {
  if constexpr (sizeof(Key) == 8) return v == 0 ? 0 : 64 - __clzll(static_cast<long long>(v));
  else return v == 0 ? 0 : 32 - __clz(static_cast<int>(v));
}

// v >> s, 0 for shifts of the whole key or more.
template <class Key>
__device__ __forceinline__ Key shift_right(Key v, int s) {
  return s >= static_cast<int>(sizeof(Key) * 8) ? Key{0} : v >> s;
}

// Where a rank's segment starts and what its keys span: its first candidate, count and lowest
// key, and the bit width of key - lowest key over the bucket or range (0: one key, no digit).
template <class Key>
struct Segment {
  const Key* keys;
  unsigned long long length;
  Key low;
  int top;
};

// Calls visit(key) for keys[first], keys[first + stride], ... below length, kBatch loads in flight
// per thread: the segments are read from L2, and one load at a time left the finish waiting on
// its latency (ncu: 0.2 instructions issued per cycle).
template <int kBatch, class Key, class Visit>
__device__ __forceinline__ void for_each_key(const Key* keys, unsigned long long length, unsigned long long first,
                                             unsigned long long stride, Visit visit) {
  for (unsigned long long base = first; base < length; base += kBatch * stride) {
    Key batch[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const unsigned long long j = base + u * stride;
      batch[u] = j < length ? keys[j] : Key{0};
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (base + u * stride < length) visit(batch[u]);
  }
}

// The select kernels' shared memory.
struct SelectShared {
  unsigned hist[kDigitBins];
  typename DigitScan<kSelectThreads>::TempStorage scan;
  unsigned digit_found;
  unsigned long long rank_found;
};

// Rank `rank` of the segment's keys, relative to segment.low (all kSelectThreads threads call
// it and get it). `given`: the first digit's counts made before (`split` rows of kDigitBins
// summed), or null.
template <class Key>
__device__ Key select_in_segment(const Segment<Key>& segment, unsigned long long rank, const unsigned* given,
                                 int split, SelectShared& shared) {
  const Key low = segment.low;
  Key known = 0;  // the digits found: rel >> top == known for the keys still in the running
  for (int top = segment.top; top > 0;) {
    const int width = min(kDigitBits, top), shift = top - width;
    const Key mask = (Key{1} << width) - 1;
    if (given) {
      for (int j = threadIdx.x; j < kDigitBins; j += blockDim.x) {
        unsigned sum = 0;
        for (int p = 0; p < split; ++p) sum += given[p * kDigitBins + j];
        shared.hist[j] = sum;
      }
      given = nullptr;
    } else {
      for (int j = threadIdx.x; j < kDigitBins; j += blockDim.x) shared.hist[j] = 0;
      __syncthreads();
      for_each_key<4>(segment.keys, segment.length, threadIdx.x, kSelectThreads, [&](Key key) {
        const Key rel = key - low;
        if (shift_right(rel, top) == known) atomicAdd(&shared.hist[static_cast<unsigned>((rel >> shift) & mask)], 1u);
      });
    }
    __syncthreads();
    unsigned counts[kDigitBins / kSelectThreads];
#pragma unroll
    for (int j = 0; j < kDigitBins / kSelectThreads; ++j)
      counts[j] = shared.hist[threadIdx.x * (kDigitBins / kSelectThreads) + j];
    unsigned long long in_bin = 0;
    const int bin = bin_of_rank<kDigitBins, kSelectThreads>(counts, rank, shared.scan, in_bin);
    if (bin >= 0) {
      shared.digit_found = static_cast<unsigned>(bin);
      shared.rank_found = in_bin;
    }
    __syncthreads();
    known = (known << width) | Key(shared.digit_found);
    rank = shared.rank_found;
    top = shift;
    __syncthreads();  // digit_found and hist are rewritten by the next digit
  }
  return known;
}

}  // namespace robustfit::selection::cuda::detail::segments
