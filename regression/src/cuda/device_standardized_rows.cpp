#include "device_standardized_rows.hpp"

#include <vector>

#include "cuda_engine.hpp"
#include "device_ops.hpp"
#include "host_staging.hpp"
#include "stopwatch.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace robustfit::regression::cuda {

DeviceStandardizedRows::DeviceStandardizedRows(Eigen::Ref<const Eigen::MatrixXd> X, selection::Algorithm selection)
    : n_(static_cast<std::size_t>(X.rows())), p_(static_cast<std::size_t>(X.cols())), selection_(selection) {
  cudaGetLastError();  // as the engine: see only this object's errors
  detail::Stopwatch trace_watch;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  try {
    double* d_X = X_d_.reserve(n_ * p_);
    if (X.outerStride() == X.rows()) {
      upload_through_staging(d_X, X.data(), n_ * p_, stream_);
    } else {
      for (Eigen::Index j = 0; j < X.cols(); ++j)
        upload_through_staging(d_X + static_cast<std::size_t>(j) * n_, X.col(j).data(), n_, stream_);
    }
  } catch (...) {  // the destructor does not run when the constructor throws
    cudaStreamDestroy(stream_);
    throw;
  }
  detail::trace("mcd device rows uploaded", trace_watch.lap());
}

DeviceStandardizedRows::DeviceStandardizedRows(const double* d_X, std::size_t n, std::size_t p, selection::Algorithm selection)
    : n_(n), p_(p), selection_(selection) {
  cudaGetLastError();
  detail::Stopwatch trace_watch;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  try {
    CUDA_CHECK(cudaMemcpyAsync(X_d_.reserve(n_ * p_), d_X, sizeof(double) * n_ * p_, cudaMemcpyDeviceToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  } catch (...) {
    cudaStreamDestroy(stream_);
    throw;
  }
  detail::trace("mcd device rows copied", trace_watch.lap());
}

DeviceStandardizedRows::~DeviceStandardizedRows() { cudaStreamDestroy(stream_); }

void DeviceStandardizedRows::kth_of_columns(const double* d_columns, std::size_t k, Eigen::VectorXd& out) {
  double* d_out = results_d_.reserve(p_);
  selection::cuda::kth_smallest_batched<double>(d_columns, n_, p_, n_, k, d_out, selection_, workspace_, stream_);
  out.resize(static_cast<Eigen::Index>(p_));
  CUDA_CHECK(cudaMemcpyAsync(out.data(), d_out, sizeof(double) * p_, cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceStandardizedRows::upload_vector(const Eigen::VectorXd& v, double* d_vector) {
  CUDA_CHECK(cudaMemcpyAsync(d_vector, v.data(), sizeof(double) * p_, cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));  // v may go before the copy would have read it
}

void DeviceStandardizedRows::moments(Eigen::VectorXd& center, Eigen::MatrixXd& covariance) {
  // Two passes, as the host's moments: the column means, then the sums of products about them
  // (the same formulas; summed in another order, so the last bits may differ).
  detail::Stopwatch trace_watch;
  const auto p = static_cast<Eigen::Index>(p_);
  double* d_scratch = scratch_d_.reserve(column_moments_scratch(p_));
  double* d_out = results_d_.reserve(p_ * (p_ + 1) / 2);
  upload_vector(Eigen::VectorXd::Zero(p), centers_d_.reserve(p_));
  column_moments(X_d_.data(), n_, p_, centers_d_.data(), false, d_scratch, d_out, stream_);
  center.resize(p);
  CUDA_CHECK(cudaMemcpyAsync(center.data(), d_out, sizeof(double) * p_, cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  center /= static_cast<double>(n_);
  upload_vector(center, centers_d_.data());
  column_moments(X_d_.data(), n_, p_, centers_d_.data(), true, d_scratch, d_out, stream_);
  std::vector<double> lower(p_ * (p_ + 1) / 2);
  CUDA_CHECK(cudaMemcpyAsync(lower.data(), d_out, sizeof(double) * lower.size(), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  covariance.resize(p, p);
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index k = 0; k <= j; ++k)
      covariance(j, k) = covariance(k, j) = lower[static_cast<std::size_t>(j * (j + 1) / 2 + k)] / static_cast<double>(n_ - 1);
  scratch_d_.release();
  detail::trace("mcd device moments", trace_watch.lap());
}

void DeviceStandardizedRows::medians_and_mads(std::size_t h, Eigen::VectorXd& median, Eigen::VectorXd& mad) {
  detail::Stopwatch trace_watch;
  kth_of_columns(X_d_.data(), n_ / 2, median);
  if (n_ % 2 == 0) {
    Eigen::VectorXd lower;
    kth_of_columns(X_d_.data(), n_ / 2 - 1, lower);
    median = (median + lower) / 2;  // fast_mcd.cpp's (v[1] + v[0]) / 2, elementwise
  }
  upload_vector(median, centers_d_.reserve(p_));
  double* d_deviations = deviations_d_.reserve(n_ * p_);
  column_deviations(X_d_.data(), n_, p_, centers_d_.data(), true, d_deviations, stream_);
  kth_of_columns(d_deviations, h - 1, mad);
  deviations_d_.release();  // the search's memory
  detail::trace("mcd device medians mads", trace_watch.lap());
}

std::unique_ptr<detail::Engine> DeviceStandardizedRows::engine(const Eigen::VectorXd& median, const Eigen::VectorXd& mad) {
  upload_vector(median, centers_d_.reserve(p_));
  upload_vector(mad, scales_d_.reserve(p_));
  standardize_columns(X_d_.data(), n_, p_, centers_d_.data(), scales_d_.data(), stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));  // the engine's stream reads the rows next
  return std::make_unique<CudaEngine<double>>(std::move(X_d_), n_, p_, selection_);
}

}  // namespace robustfit::regression::cuda
