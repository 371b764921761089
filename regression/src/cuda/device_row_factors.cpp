#include "device_row_factors.hpp"

#include <Eigen/Cholesky>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cublas_check.hpp"
#include "device_ops.hpp"
#include "robustfit/common/stopwatch.hpp"

namespace robustfit::regression::cuda {

namespace {

void check(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  selection::cuda::detail::throw_failure(call, __FILE__, __LINE__, "cuSOLVER status " + std::to_string(static_cast<int>(status)),
                                         status == CUSOLVER_STATUS_ALLOC_FAILED);
}

}  // namespace

// CholeskyQR2 only where every diagonal entry of chol(A'A) scaled by its column's norm stays
// above this (its smallest is about 1 / cond(A) of the column-scaled A).
constexpr double kCholeskyQr2SmallestPivot = 1e-4;

DeviceRowFactors::~DeviceRowFactors() {
  if (solver_) cusolverDnDestroy(solver_);
  if (blas_) cublasDestroy(blas_);
}

// A'A as chunks of rows' products (one strided-batched GEMM) added in chunk order (one GEMV):
// cuBLAS's syrk gives an 11 x 11 product of 10^7 rows to a handful of blocks. Deterministic.
Eigen::MatrixXd DeviceRowFactors::gram(const double* A, std::size_t m, std::size_t q, cudaStream_t stream) {
  constexpr std::size_t kChunk = 8192;
  const std::size_t full = m / kChunk, rest = m % kChunk, parts = full + (rest > 0 ? 1 : 0);
  const int qi = static_cast<int>(q), mi = static_cast<int>(m), qq = static_cast<int>(q * q);
  const double one = 1, zero = 0;
  double* partial = partial_.reserve(parts * q * q);
  if (full > 0)
    CUBLAS_CHECK(cublasDgemmStridedBatched(blas_, CUBLAS_OP_T, CUBLAS_OP_N, qi, qi, static_cast<int>(kChunk), &one, A, mi,
                                           static_cast<long long>(kChunk), A, mi, static_cast<long long>(kChunk), &zero,
                                           partial, qi, qq, static_cast<int>(full)));
  if (rest > 0) {
    const double* last = A + full * kChunk;
    CUBLAS_CHECK(cublasDgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, qi, qi, static_cast<int>(rest), &one, last, mi, last, mi, &zero,
                             partial + full * q * q, qi));
  }
  if (ones_host_.size() < parts) {
    ones_host_.assign(parts, 1.0);
    CUDA_CHECK(cudaMemcpyAsync(ones_.reserve(parts), ones_host_.data(), sizeof(double) * parts, cudaMemcpyHostToDevice, stream));
  }
  double* G = gram_.reserve(q * q);
  CUBLAS_CHECK(cublasDgemv(blas_, CUBLAS_OP_N, qq, static_cast<int>(parts), &one, partial, qq, ones_.data(), 1, &zero, G, 1));
  const auto k = static_cast<Eigen::Index>(q);
  Eigen::MatrixXd host(k, k);
  CUDA_CHECK(cudaMemcpyAsync(host.data(), G, sizeof(double) * q * q, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return (host + host.transpose()) / 2;  // symmetric to rounding already
}

std::optional<Eigen::MatrixXd> DeviceRowFactors::cholesky_qr2(double* A, std::size_t m, std::size_t q, cudaStream_t stream) {
  common::Stopwatch watch;
  const Eigen::MatrixXd G = gram(A, m, q, stream);
  common::trace("factors: A'A", watch.lap(), static_cast<long long>(m));
  const Eigen::LLT<Eigen::MatrixXd> first(G);
  if (first.info() != Eigen::Success) return std::nullopt;
  const Eigen::MatrixXd R1 = first.matrixU();
  for (Eigen::Index j = 0; j < R1.rows(); ++j)
    if (!(R1(j, j) >= kCholeskyQr2SmallestPivot * std::sqrt(G(j, j)))) return std::nullopt;  // NaN too
  double* d_R1 = triangle_.reserve(q * q);
  CUDA_CHECK(cudaMemcpyAsync(d_R1, R1.data(), sizeof(double) * q * q, cudaMemcpyHostToDevice, stream));
  const double one = 1;
  CUBLAS_CHECK(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                           static_cast<int>(m), static_cast<int>(q), &one, d_R1, static_cast<int>(q), A, static_cast<int>(m)));
  const Eigen::LLT<Eigen::MatrixXd> second(gram(A, m, q, stream));  // Q1 = A R1^-1, nearly orthonormal
  common::trace("factors: Q1 = A R1^-1, Q1'Q1", watch.lap(), static_cast<long long>(m));
  if (second.info() != Eigen::Success) return std::nullopt;
  const Eigen::MatrixXd R2 = second.matrixU();
  return Eigen::MatrixXd((R2 * R1).triangularView<Eigen::Upper>());
}

void DeviceRowFactors::release() {
  rows_.release();
  A_.release();
  tau_.release();
  work_.release();
  gram_.release();
  triangle_.release();
  partial_.release();
  ones_.release();
  ones_host_.clear();
  info_.release();
}

Eigen::MatrixXd DeviceRowFactors::factor(const double* d_X, const double* d_y, std::size_t n, std::size_t p,
                                         std::span<const std::size_t> rows, cudaStream_t stream) {
  static_assert(sizeof(std::size_t) == sizeof(std::int64_t));
  const std::size_t m = rows.size(), q = p + 1;
  if (m == 0) return Eigen::MatrixXd(0, static_cast<Eigen::Index>(q));
  if (m > static_cast<std::size_t>(INT_MAX) / q) throw std::length_error("too many rows for cuSOLVER's 32-bit QR");
  if (!solver_) {
    common::Stopwatch watch;
    check(cusolverDnCreate(&solver_), "cusolverDnCreate");
    common::trace("cusolverDnCreate", watch.lap());
  }
  check(cusolverDnSetStream(solver_, stream), "cusolverDnSetStream");
  // Row numbers are below n <= 2^63: the host's size_t bits are the device's int64.
  std::int64_t* d_rows = rows_.reserve(m);
  CUDA_CHECK(cudaMemcpyAsync(d_rows, rows.data(), sizeof(std::int64_t) * m, cudaMemcpyHostToDevice, stream));
  double* A = A_.reserve(m * q);
  gather_rows(d_X, d_y, n, p, d_rows, m, A, stream);
  if (m >= q) {
    if (!blas_) CUBLAS_CHECK(cublasCreate(&blas_));
    CUBLAS_CHECK(cublasSetStream(blas_, stream));
    if (std::optional<Eigen::MatrixXd> R = cholesky_qr2(A, m, q, stream)) {
      ++cholesky_qr2_calls_;
      return *R;
    }
    gather_rows(d_X, d_y, n, p, d_rows, m, A, stream);  // CholeskyQR2 may have overwritten A
  }
  ++householder_calls_;
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
