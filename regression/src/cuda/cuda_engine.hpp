#pragma once
// The CUDA engine: X and y live on the device; residuals of many candidates come from one
// cuBLAS GEMM per batch, order statistics from the selection module's batched selection,
// C-step h-subsets and their normal equations from device kernels, elemental systems from
// cuBLAS batched LU. Host C++ (Eigen) outside, raw-pointer device operations inside.
#include <cublas_v2.h>

#include <Eigen/Core>
#include <memory>

#include "device_array.hpp"
#include "engine.hpp"
#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::regression::cuda {

class CudaEngine final : public detail::Engine {
 public:
  CudaEngine(Eigen::MatrixXd X, Eigen::VectorXd y, selection::Algorithm selection);
  ~CudaEngine() override;

  std::string backend_name() const override { return "cuda"; }
  std::string selection_name() const override;
  std::size_t rows() const override { return n_; }
  std::size_t cols() const override { return p_; }

  void solve_elemental(const detail::SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                       std::vector<std::uint8_t>& ok) override;
  void lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) override;
  void c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) override;
  void lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                      std::span<double> out) override;
  std::unique_ptr<detail::Engine> restrict_to(std::span<const std::size_t> rows) const override;

 private:
  // Candidates per batch so that the n x batch residual matrices fit the memory budget.
  std::size_t batch_columns(std::size_t m, std::size_t copies) const;
  // Squared residuals of betas(:, begin .. begin+count) into R_, thresholds t_j (the h-th
  // smallest) into t_, trimmed sums into objective_ and below_ (all on the device).
  void objectives_of_batch(const Eigen::MatrixXd& betas, Eigen::Index begin, std::size_t count, std::size_t h);
  void select_thresholds(std::size_t count, std::size_t k);
  void upload_batch(const Eigen::MatrixXd& betas, Eigen::Index begin, std::size_t count);

  Eigen::MatrixXd X_;  // host copies: restrict_to, and the rare QR fallback of a C-step
  Eigen::VectorXd y_;
  std::size_t n_, p_;
  selection::Algorithm selection_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  std::size_t budget_bytes_ = 0;
  selection::cuda::Workspace workspace_;
  DeviceArray<double> X_d_, y_d_, B_, R_, sorted_, t_, objective_, center_, half_, G_, gram_scratch_, sum_scratch_, A_, b_;
  DeviceArray<std::int64_t> below_, subsets_;
  DeviceArray<std::int32_t> rows_, pivots_, info_, subset_scratch_;
  DeviceArray<double*> pointers_;
  DeviceArray<char> sort_temp_;
};

}  // namespace robustfit::regression::cuda
