#pragma once
// The R factor of a subset of the rows of [X y] whose copy is on the device (the CUDA engine's,
// DeviceDesign): the rows gathered there and factored by cuSOLVER's Householder QR (geqrf). The
// finish's three least-squares fits of a wide design at 10^7 rows took 0.9-1.4 s each by the
// host's TSQR (memory-bound on the host); R is the same up to rounding and row signs, which
// ls_of_factors and the inference do not depend on.
#include <cusolverDn.h>

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>

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

 private:
  cusolverDnHandle_t solver_ = nullptr;
  DeviceArray<std::int64_t> rows_;
  DeviceArray<double> A_, tau_, work_;
  DeviceArray<int> info_;
};

}  // namespace robustfit::regression::cuda
