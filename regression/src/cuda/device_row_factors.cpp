#include "device_row_factors.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#include "device_ops.hpp"

namespace robustfit::regression::cuda {

namespace {

void check(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  selection::cuda::detail::throw_failure(call, __FILE__, __LINE__, "cuSOLVER status " + std::to_string(static_cast<int>(status)),
                                         status == CUSOLVER_STATUS_ALLOC_FAILED);
}

}  // namespace

DeviceRowFactors::~DeviceRowFactors() {
  if (solver_) cusolverDnDestroy(solver_);
}

void DeviceRowFactors::release() {
  rows_.release();
  A_.release();
  tau_.release();
  work_.release();
  info_.release();
}

Eigen::MatrixXd DeviceRowFactors::factor(const double* d_X, const double* d_y, std::size_t n, std::size_t p,
                                         std::span<const std::size_t> rows, cudaStream_t stream) {
  static_assert(sizeof(std::size_t) == sizeof(std::int64_t));
  const std::size_t m = rows.size(), q = p + 1;
  if (m == 0) return Eigen::MatrixXd(0, static_cast<Eigen::Index>(q));
  if (m > static_cast<std::size_t>(INT_MAX) / q) throw std::length_error("too many rows for cuSOLVER's 32-bit QR");
  if (!solver_) check(cusolverDnCreate(&solver_), "cusolverDnCreate");
  check(cusolverDnSetStream(solver_, stream), "cusolverDnSetStream");
  // Row numbers are below n <= 2^63: the host's size_t bits are the device's int64.
  std::int64_t* d_rows = rows_.reserve(m);
  CUDA_CHECK(cudaMemcpyAsync(d_rows, rows.data(), sizeof(std::int64_t) * m, cudaMemcpyHostToDevice, stream));
  double* A = A_.reserve(m * q);
  gather_rows(d_X, d_y, n, p, d_rows, m, A, stream);
  const int rows_int = static_cast<int>(m), cols_int = static_cast<int>(q);
  int work_size = 0;
  check(cusolverDnDgeqrf_bufferSize(solver_, rows_int, cols_int, A, rows_int, &work_size), "cusolverDnDgeqrf_bufferSize");
  check(cusolverDnDgeqrf(solver_, rows_int, cols_int, A, rows_int, tau_.reserve(q), work_.reserve(static_cast<std::size_t>(work_size)),
                         work_size, info_.reserve(1)),
        "cusolverDnDgeqrf");
  // The top k rows of the factored A hold R on and above the diagonal.
  const std::size_t k = std::min(m, q);
  Eigen::MatrixXd top(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(q));
  CUDA_CHECK(cudaMemcpy2DAsync(top.data(), sizeof(double) * k, A, sizeof(double) * m, sizeof(double) * k, q,
                               cudaMemcpyDeviceToHost, stream));
  int info = 0;
  CUDA_CHECK(cudaMemcpyAsync(&info, info_.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (info != 0) throw std::runtime_error("cusolverDnDgeqrf: argument " + std::to_string(-info) + " is invalid");
  return top.triangularView<Eigen::Upper>();
}

}  // namespace robustfit::regression::cuda
