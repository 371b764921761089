#pragma once
// Internal: phase timestamps of the one-launch kernels, for bench/phase_probe.cu (issue 11: a
// small call is bound by its fixed costs, and ncu's stall samples do not say which phase of a
// cooperative kernel holds them). The probe points `phase_stamps()` at a device array; a
// kernel handed that pointer has thread 0 of each block write the global timer (ns) at each of
// its phase boundaries, block b's stamp p at [b * kPhaseStampsPerBlock + p]. Null (every normal
// call): one predictable branch a phase, nothing written.
#include <cstdint>

namespace robustfit::selection::cuda::detail {

constexpr int kPhaseStampsPerBlock = 32;
constexpr int kPhaseStampBlocks = 1024;  // blocks past these write nothing (the array's size)

// Host side: where the next launches write their stamps (null: nowhere): an array of
// kPhaseStampBlocks * kPhaseStampsPerBlock values.
inline std::uint64_t*& phase_stamps() {
  static std::uint64_t* stamps = nullptr;
  return stamps;
}

#ifdef __CUDACC__
// Block-uniform: thread 0 writes stamp `phase` of its block.
__device__ __forceinline__ void stamp_phase(std::uint64_t* stamps, int phase) {
  if (stamps == nullptr || threadIdx.x != 0 || phase >= kPhaseStampsPerBlock || blockIdx.x >= kPhaseStampBlocks) return;
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  stamps[std::size_t(blockIdx.x) * kPhaseStampsPerBlock + phase] = now;
}
#endif

}  // namespace robustfit::selection::cuda::detail
