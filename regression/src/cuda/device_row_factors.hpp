#pragma once
// The R factor of a subset of the rows of [X y] whose copy is on the device (the CUDA engine's,
// DeviceDesign): the rows gathered there and factored by CholeskyQR2 (Fukaya, Nakatsukasa,
// Yanagisawa and Yamamoto 2014: R1 = chol(A'A), Q1 = A R1^-1, R = chol(Q1'Q1) R1; two cuBLAS
// Gram matrices and a triangular solve, a few reads of A), or by cuSOLVER's Householder QR
// (geqrf) where CholeskyQR2 could lose accuracy: fewer rows than columns, or a Cholesky factor
// of the column-scaled Gram matrix with a diagonal entry below 1e-4 (condition about 1e4 and up;
// CholeskyQR2 is as accurate as Householder QR up to about 1e8). geqrf factors a tall A column
// by column: 10^7 x 11 took 100-170 ms on an H200, CholeskyQR2 a few ms. The finish's three
// least-squares fits of a wide design at 10^7 rows took 0.9-1.4 s each by the host's TSQR
// (memory-bound on the host); R is the same up to rounding and row signs, which ls_of_factors and
// the inference do not depend on.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "device_array.hpp"

namespace robustfit::regression::cuda {

class DeviceRowFactors {
 public:
  DeviceRowFactors() = default;
  ~DeviceRowFactors();
  DeviceRowFactors(const DeviceRowFactors&) = delete;
  DeviceRowFactors& operator=(const DeviceRowFactors&) = delete;

  // R (min(m, p + 1) x (p + 1), upper triangular) of the rows `rows` (m of them, in any order)
  // of [X y], d_X n x p column-major. Throws on any CUDA or cuSOLVER failure (out of memory
  // included: selection::cuda::OutOfMemory), leaving the stream's work finished.
  Eigen::MatrixXd factor(const double* d_X, const double* d_y, std::size_t n, std::size_t p,
                         std::span<const std::size_t> rows, cudaStream_t stream);
  // Frees the device buffers (the cuSOLVER handle stays: its creation loads the library).
  void release();
  // Factorisations by each method so far (tests).
  std::size_t cholesky_qr2_calls() const { return cholesky_qr2_calls_; }
  std::size_t householder_calls() const { return householder_calls_; }

 private:
  // A (m x q, column-major, overwritten) by CholeskyQR2; nothing where it declines.
  std::optional<Eigen::MatrixXd> cholesky_qr2(double* A, std::size_t m, std::size_t q, cudaStream_t stream);
  // A'A (q x q, both triangles) on the host.
  Eigen::MatrixXd gram(const double* A, std::size_t m, std::size_t q, cudaStream_t stream);

  cusolverDnHandle_t solver_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  std::size_t cholesky_qr2_calls_ = 0, householder_calls_ = 0;
  DeviceArray<std::int64_t> rows_;
  DeviceArray<double> A_, tau_, work_, gram_, triangle_, partial_, ones_;
  std::vector<double> ones_host_;  // what ones_ holds
  DeviceArray<int> info_;
};

}  // namespace robustfit::regression::cuda
