#pragma once
// Device time of the engine's residual GEMMs and order-statistic selections, from CUDA events
// recorded around them on the engine's stream. Reading them costs no extra synchronisation:
// collect() runs after the stream has been synchronised for a batch's results anyway.
#include <cuda_runtime.h>

#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::regression::cuda {

class KernelClock {
 public:
  KernelClock() {
    for (auto& event : events_) CUDA_CHECK(cudaEventCreate(&event));
  }
  ~KernelClock() {
    for (auto event : events_) cudaEventDestroy(event);
  }
  KernelClock(const KernelClock&) = delete;
  KernelClock& operator=(const KernelClock&) = delete;

  void start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(events_[0], stream)); }          // before the GEMM
  void residuals_done(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(events_[1], stream)); }  // GEMM (and squares)
  void selection_done(cudaStream_t stream) {                                                // thresholds chosen
    CUDA_CHECK(cudaEventRecord(events_[2], stream));
    pending_ = true;
  }

  // After the stream has been synchronised: adds the last batch's two intervals to the totals.
  void collect() {
    if (!pending_) return;
    float residuals = 0, selection = 0;
    CUDA_CHECK(cudaEventElapsedTime(&residuals, events_[0], events_[1]));
    CUDA_CHECK(cudaEventElapsedTime(&selection, events_[1], events_[2]));
    residuals_s_ += residuals / 1e3;
    selection_s_ += selection / 1e3;
    pending_ = false;
  }

  double residuals_s() const { return residuals_s_; }
  double selection_s() const { return selection_s_; }

 private:
  cudaEvent_t events_[3]{};
  bool pending_ = false;
  double residuals_s_ = 0, selection_s_ = 0;
};

}  // namespace robustfit::regression::cuda
