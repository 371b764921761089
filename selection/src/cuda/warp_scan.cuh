#pragma once
// Warp-level exclusive sum by shuffles, for the compacting passes that place each warp's kept
// values with one scan (Floyd-Rivest's bracket pass, sampled multiselection's compaction), and
// for the scans of counts a lane at a time (the band plans, the one launch's placing).
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

}  // namespace robustfit::selection::cuda::detail
