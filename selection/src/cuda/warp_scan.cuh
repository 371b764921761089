#pragma once
// Warp-level exclusive sum by shuffles, for the compacting passes that place each warp's kept
// values with one scan (Floyd-Rivest's bracket pass, sampled multiselection's compaction).
namespace robustfit::selection::cuda::detail {

// Lane's exclusive offset among the warp's `count`s, and the warp's total. All 32 lanes call it.
__device__ __forceinline__ unsigned warp_exclusive_sum(unsigned count, unsigned& total) {
  const unsigned lane = threadIdx.x % 32;
  unsigned inclusive = count;
  for (unsigned d = 1; d < 32; d *= 2) {
    const unsigned other = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  total = __shfl_sync(0xffffffffu, inclusive, 31);
  return inclusive - count;
}

}  // namespace robustfit::selection::cuda::detail
