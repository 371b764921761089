#pragma once
// Internal: the host waiting for a one-launch kernel's answer in pinned memory by spinning on a
// flag the kernel sets last, instead of cudaStreamSynchronize: the synchronisation's wake-up
// cost ~1.2 us of a ~9 us small call on the H200 (bench/call_latency_probe.cu: an empty kernel
// + sync 8.9 us, + spin on a pinned flag 7.7). The kernel must have finished with every buffer
// a later call could touch before it sets the flag (what is left is the kernel's exit).
// cudaStreamQuery now and then keeps a failed or answerless kernel from hanging the host.
#include <cuda_runtime.h>

#include <atomic>
#include <stdexcept>

#include "cuda_check.cuh"

namespace robustfit::selection::cuda::detail {

#ifdef __CUDACC__
// Device side: publishes the answer written before it (every field the host reads) and then
// the flag. One thread calls it.
__device__ __forceinline__ void publish_answer(volatile int* ready) {
  __threadfence_system();
  *ready = 1;
}
#endif

inline void wait_for_answer(const volatile int* ready, cudaStream_t stream) {
  for (unsigned spins = 1;; ++spins) {
    if (*ready != 0) break;
    if (spins % 4096 == 0) {
      const cudaError_t state = cudaStreamQuery(stream);
      if (state == cudaErrorNotReady) continue;
      CUDA_CHECK(state);
      if (*ready != 0) break;  // the kernel ended after its answer
      throw std::logic_error("robust-fit selection: a kernel ended without writing its answer");
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // the answer's fields after the flag
}

}  // namespace robustfit::selection::cuda::detail
