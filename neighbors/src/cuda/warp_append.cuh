#pragma once
// Appending to one query's candidate list from a whole warp: one atomicAdd per warp instead of
// one per candidate (the lists' counters are few and hot: every block of a query adds to the
// same one). All 32 lanes call these; the counter grows by the warp's total, so counts above
// the capacity still report an overflow.
namespace robustfit::neighbors::cuda {

// `count` slots for this lane: returns the first (any value where count == 0).
__device__ __forceinline__ unsigned warp_reserve(unsigned* counter, unsigned count) {
  const unsigned lane = threadIdx.x % 32;
  unsigned inclusive = count;
  for (unsigned step = 1; step < 32; step *= 2) {
    const unsigned other = __shfl_up_sync(0xffffffffu, inclusive, step);
    if (lane >= step) inclusive += other;
  }
  const unsigned total = __shfl_sync(0xffffffffu, inclusive, 31);
  if (total == 0) return 0;
  unsigned base = 0;
  if (lane == 31) base = atomicAdd(counter, total);
  return __shfl_sync(0xffffffffu, base, 31) + inclusive - count;
}

// One slot where `take` (valid only there).
__device__ __forceinline__ unsigned warp_append_slot(unsigned* counter, bool take) {
  const unsigned mask = __ballot_sync(0xffffffffu, take);
  if (mask == 0) return 0;
  const unsigned lane = threadIdx.x % 32;
  const int leader = __ffs(mask) - 1;
  unsigned base = 0;
  if (lane == unsigned(leader)) base = atomicAdd(counter, unsigned(__popc(mask)));
  base = __shfl_sync(0xffffffffu, base, leader);
  return base + unsigned(__popc(mask & ((1u << lane) - 1u)));
}

}  // namespace robustfit::neighbors::cuda
