#pragma once
// Grid sizing shared by the streaming kernels: enough resident blocks to saturate memory
// bandwidth, never more blocks than there is work.
#include <algorithm>
#include <cstddef>

#include "cuda_check.cuh"

namespace robustfit::selection::cuda::detail {

inline int multiprocessor_count() {
  int device = 0;
  int count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// Blocks of `kernel` (launched with `threads` and `dynamic_shared` bytes) that fit on one SM at
// once, at most `wanted`: a grid-stride grid larger than what is resident runs its last blocks
// as a second, thin wave (bracket_pass asked for 4 blocks of 512 threads where its registers let
// 3 stay: a quarter of the read ran at 16 warps an SM).
template <class Kernel>
int resident_blocks_per_sm(Kernel kernel, int threads, std::size_t dynamic_shared, int wanted) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared));
  return std::max(1, std::min(blocks, wanted));
}

// Blocks of `kernel` that one SM holds at once for a cooperative launch (grid.sync() needs the
// whole grid resident); 0 where the device cannot launch cooperatively.
template <class Kernel>
int cooperative_blocks_per_sm(Kernel kernel, int threads, std::size_t dynamic_shared) {
  int device = 0, cooperative = 0, blocks = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) != cudaSuccess || !cooperative ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared) != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it
    return 0;
  }
  return blocks;
}

// Launches `kernel` cooperatively; false, with the error cleared, where the grid cannot be
// resident at once after all (the occupancy query counts every SM, but MPS or another context may
// hold some): the caller then runs its separate kernels instead of failing the call.
inline bool launch_cooperative(const void* kernel, unsigned grid, int threads, void** args, std::size_t shared,
                               cudaStream_t stream) {
  const cudaError_t launched = cudaLaunchCooperativeKernel(kernel, dim3(grid), dim3(threads), args, shared, stream);
  if (launched == cudaErrorCooperativeLaunchTooLarge) {
    cudaGetLastError();
    return false;
  }
  CUDA_CHECK(launched);
  count_call(CallKind::launch);
  return true;
}

// Blocks for a grid-stride loop over n items, `per_thread` items per thread per step.
inline unsigned streaming_grid(std::size_t n, int threads, int per_thread, int blocks_per_sm) {
  const std::size_t per_block = std::size_t(threads) * per_thread;
  const std::size_t wanted = (n + per_block - 1) / per_block;
  const std::size_t resident = std::size_t(multiprocessor_count()) * blocks_per_sm;
  return unsigned(std::max<std::size_t>(1, std::min(wanted, resident)));
}

}  // namespace robustfit::selection::cuda::detail
