#pragma once
// StandardizedRows on the GPU (standardized_rows.hpp): X uploaded once; the moments of all rows
// (column_moments: no cuBLAS, whose first call in a process costs 0.1 s), column medians and MADs (batched selection: exact order statistics, the host's
// numbers) on the device; the rows standardized in place and handed to a CudaEngine<double> as
// its data.
#include <cuda_runtime_api.h>

#include <Eigen/Core>
#include <cstddef>
#include <memory>

#include "device_array.hpp"
#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/cuda/workspace.hpp"
#include "standardized_rows.hpp"

namespace robustfit::regression::cuda {

// From this many rows on, FAST-MCD's standardized rows are made on the device (below, the host's
// passes cost less than the transfers and launches).
inline constexpr std::size_t kDeviceStandardizedMinRows = std::size_t{1} << 16;

class DeviceStandardizedRows final : public detail::StandardizedRows {
 public:
  // Uploads X (throws selection::cuda::OutOfMemory when the device lacks the room).
  DeviceStandardizedRows(Eigen::Ref<const Eigen::MatrixXd> X, selection::Algorithm selection);
  // Copies the n x p column-major d_X (ld n) already on the current device (an engine's
  // columns, which must not change during the copy).
  DeviceStandardizedRows(const double* d_X, std::size_t n, std::size_t p, selection::Algorithm selection);
  ~DeviceStandardizedRows() override;
  DeviceStandardizedRows(const DeviceStandardizedRows&) = delete;
  DeviceStandardizedRows& operator=(const DeviceStandardizedRows&) = delete;

  void moments(Eigen::VectorXd& center, Eigen::MatrixXd& covariance) override;
  void medians_and_mads(std::size_t h, Eigen::VectorXd& median, Eigen::VectorXd& mad) override;
  std::unique_ptr<detail::Engine> engine(const Eigen::VectorXd& median, const Eigen::VectorXd& mad) override;

 private:
  // The k-th smallest of every column of `d_columns` (n x p) into host `out`.
  void kth_of_columns(const double* d_columns, std::size_t k, Eigen::VectorXd& out);
  // Host vector v (p values) to the device.
  void upload_vector(const Eigen::VectorXd& v, double* d_vector);

  std::size_t n_, p_;
  selection::Algorithm selection_;
  cudaStream_t stream_ = nullptr;
  selection::cuda::Workspace workspace_;
  DeviceArray<double> X_d_, deviations_d_, scratch_d_, results_d_, centers_d_, scales_d_;
};

}  // namespace robustfit::regression::cuda
