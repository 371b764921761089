#pragma once
// Warp-level exclusive sum by shuffles, for the compacting passes that place each warp's kept
// values with one scan (Floyd-Rivest's bracket pass, sampled multiselection's compaction), and
// for the scans of counts a lane at a time (the band plans, the one launch's placing); a warp's
// total added with one atomic (the counting passes' NaNs and tallies).
#include <type_traits>

namespace robustfit::selection::cuda::detail {

// Lane's exclusive offset among the warp's `count`s, and the warp's total. All 32 lanes call it.
template <class Sum>
__device__ __forceinline__ Sum warp_exclusive_sum(std::type_identity_t<Sum> count, Sum& total) {  // Sum from `total`
  const unsigned lane = threadIdx.x % 32;
  Sum inclusive = count;
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    const Sum other = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  total = __shfl_sync(0xffffffffu, inclusive, 31);
  return inclusive - count;
}

// Adds the warp's sum of `value` (widened to 64 bits first) to *total, one atomic from lane 0
// and none where the sum is 0: 32 lanes adding to one address in turn serialise. All 32 lanes
// call it.
__device__ __forceinline__ void add_warp_sum(unsigned long long value, unsigned long long* total) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0 && value != 0) atomicAdd(total, value);
}

}  // namespace robustfit::selection::cuda::detail
