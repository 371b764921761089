#pragma once
// The CUDA engine: X and y live on the device; residuals of many candidates come from one
// cuBLAS GEMM per batch, order statistics from the selection module's batched selection,
// C-step h-subsets and their normal equations from device kernels, elemental systems from
// cuBLAS batched LU. Host C++ (Eigen) outside, raw-pointer device operations inside.
//
// Scalar is the working precision (double, or float for Precision::single_precision): the
// device copies of X and y, the coefficients of a batch, residuals, squared residuals,
// thresholds and h-subsets are Scalar; trimmed sums and Gram matrices are accumulated in
// double, and every solve (elemental LU, normal equations, QR fallback) is in double.
// Objectives handed to the driver are double.
#include <cublas_v2.h>

#include <Eigen/Core>
#include <memory>

#include "design_matrix.hpp"
#include "device_array.hpp"
#include "kernel_clock.hpp"
#include "engine.hpp"
#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::regression::cuda {

template <class Scalar>
class CudaEngine final : public detail::Engine {
 public:
  // Uploads data.X and data.y and refers to `data` from then on without a host copy (for
  // restrict_to and the rare QR fallback of a C-step): `data` must outlive the engine.
  CudaEngine(const detail::ModelData& data, selection::Algorithm selection);
  CudaEngine(const detail::ModelData&& data, selection::Algorithm selection) = delete;  // would dangle
  // The same, owning its data (an engine over a subset of the rows).
  CudaEngine(std::unique_ptr<const detail::ModelData> data, selection::Algorithm selection);
  // Takes over d_X (n x p, column-major: the rows as the search sees them, FAST-MCD's
  // standardized rows made on the device), y a column of ones; no host copy of the rows: the few
  // that the host needs (starts, subsamples) are fetched from the device. Such an engine has no
  // LTS search (solve_elemental and c_step's QR fallback need the host's rows).
  CudaEngine(DeviceArray<Scalar>&& d_X, std::size_t n, std::size_t p, selection::Algorithm selection);
  ~CudaEngine() override;
  CudaEngine(const CudaEngine&) = delete;
  CudaEngine& operator=(const CudaEngine&) = delete;

  std::string backend_name() const override { return "cuda"; }
  std::string selection_name() const override;
  std::size_t rows() const override { return n_; }
  std::size_t cols() const override { return p_; }

  void solve_elemental(const detail::SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                       std::vector<std::uint8_t>& ok) override;
  void lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) override;
  void c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) override;
  void lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                      std::span<double> out, std::size_t needed) override;
  std::unique_ptr<detail::Engine> restrict_to(std::span<const std::size_t> rows) const override;
  std::unique_ptr<detail::StandardizedRows> standardized_columns(std::size_t first, std::size_t count) const override;
  void subset_grams(const detail::SubsetMatrix& rows, Eigen::MatrixXd& grams) override;
  void mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                  Eigen::MatrixXd& grams) override;
  bool offers_mcd_rows() const override { return true; }
  void mcd_rows(const Eigen::VectorXd& center, const Eigen::MatrixXd& whitener, std::size_t h, double threshold,
                Eigen::VectorXd* distances, std::vector<std::size_t>* rows, Eigen::MatrixXd* gram) override;
  std::optional<detail::DeviceDesign> device_design() const override;
  std::optional<detail::KernelTimes> kernel_times() const override {
    return detail::KernelTimes{clock_.residuals_s(), clock_.selection_s()};
  }

  // The device memory a batch of candidates may take; it shrinks when a batch meets a device
  // out-of-memory (tests watch it).
  std::size_t budget_bytes() const { return budget_bytes_; }

 private:
  // Device bytes of one candidate's n-vectors when a batch needs `copies` of them.
  std::size_t column_bytes(std::size_t copies) const;
  // Candidates per batch so that the n x batch residual matrices fit the memory budget.
  std::size_t batch_columns(std::size_t m, std::size_t copies) const;
  // Calls work(begin, count) for consecutive batches of the m candidates. When a batch meets
  // a device out-of-memory, the per-batch buffers are freed, the batch (and the budget) halved
  // and the batch retried, down to one candidate; only then does the OutOfMemory go out.
  // `work` must leave no result behind for a batch that throws.
  template <class Work>
  void for_each_batch(std::size_t m, std::size_t copies, Work&& work);
  void release_batch_buffers();
  // Squared residuals of betas(:, begin .. begin+count) into R_, thresholds t_j (the h-th
  // smallest) into t_, trimmed sums into objective_, below_ and equal_ (all on the device).
  void objectives_of_batch(const Eigen::MatrixXd& betas, std::size_t begin, std::size_t count, std::size_t h);
  void select_thresholds(std::size_t count, std::size_t k);
  // R_ = squared residuals of the uploaded batch (B_), t_ = the k-th smallest of each column.
  void squares_and_thresholds(std::size_t count, std::size_t k);
  void upload_batch(const Eigen::MatrixXd& betas, std::size_t begin, std::size_t count);

  // Stream, cuBLAS handle and memory budget around load(), which puts X and y on the device.
  template <class Load>
  void set_up(Load&& load);
  // The host's X and y (throws std::logic_error for an engine built from device rows).
  const detail::ModelData& host_data() const;
  // The rows `rows` of [X y] (m x (p + 1)), from the host's data or from the device.
  Eigen::MatrixXd rows_of(std::span<const std::int64_t> rows) const;

  std::unique_ptr<const detail::ModelData> owned_;  // set when the engine owns its data
  const detail::ModelData& data_;                   // host X and y (not copied; empty without host_data_)
  bool host_data_ = true;                           // false: the rows live on the device only
  std::size_t n_, p_;
  selection::Algorithm selection_;
  KernelClock clock_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  std::size_t budget_bytes_ = 0;
  selection::cuda::Workspace workspace_;
  DeviceArray<Scalar> X_d_, y_d_, B_, R_, sorted_, t_, whitened_, shifts_;
  DeviceArray<double> objective_, center_, half_, G_, gram_scratch_, sum_scratch_;
  DeviceArray<std::int64_t> below_, equal_;
  DeviceArray<std::int32_t> rows_, subset_scratch_;
  DeviceArray<char> sort_temp_;
  // LMS window bounds (window_bounds): per column range, histogram, count in the sample window.
  DeviceArray<double> range_, lower_, upper_;
  DeviceArray<unsigned> hist_;
  DeviceArray<unsigned long long> inside_;
};

extern template class CudaEngine<float>;
extern template class CudaEngine<double>;

}  // namespace robustfit::regression::cuda
