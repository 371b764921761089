// Squared Mahalanobis distances of all rows for many MCD candidates: one GEMM with the
// candidates' whitening matrices, then a per-row sum of squares.
#include "cublas_check.hpp"
#include "device_ops.hpp"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;

// D(i, j) = sum_k (Y(i, j p + k) - s(k, j))^2 for the n x (p m) whitened rows Y.
template <class Scalar>
__global__ void distances_kernel(const Scalar* Y, std::size_t n, std::size_t p, std::size_t m, const Scalar* shifts,
                                 Scalar* D) {
  const std::size_t total = n * m;
  for (std::size_t e = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < total; e += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t i = e % n, j = e / n;
    Scalar sum = 0;
    for (std::size_t k = 0; k < p; ++k) {
      const Scalar v = Y[(j * p + k) * n + i] - shifts[j * p + k];
      sum += v * v;
    }
    D[e] = sum;
  }
}

cublasStatus_t gemm(cublasHandle_t blas, int n, int m, int k, const double* A, int lda, const double* B, int ldb,
                    double* C, int ldc) {
  const double one = 1, zero = 0;
  return cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, A, lda, B, ldb, &zero, C, ldc);
}

cublasStatus_t gemm(cublasHandle_t blas, int n, int m, int k, const float* A, int lda, const float* B, int ldb,
                    float* C, int ldc) {
  const float one = 1, zero = 0;
  return cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, A, lda, B, ldb, &zero, C, ldc);
}

}  // namespace

template <class Scalar>
void mahalanobis_squared(cublasHandle_t blas, const Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_Wt,
                         const Scalar* d_shifts, std::size_t m, Scalar* d_Y, Scalar* d_D, cudaStream_t stream) {
  CUBLAS_CHECK(cublasSetStream(blas, stream));
  CUBLAS_CHECK(gemm(blas, static_cast<int>(n), static_cast<int>(p * m), static_cast<int>(p), d_X, static_cast<int>(n), d_Wt,
                    static_cast<int>(p), d_Y, static_cast<int>(n)));
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n * m + kThreads - 1) / kThreads, 132 * 32));
  distances_kernel<<<blocks, kThreads, 0, stream>>>(d_Y, n, p, m, d_shifts, d_D);
  CUDA_CHECK_LAUNCH();
}

#define RF_INSTANTIATE(Scalar)                                                                                  \
  template void mahalanobis_squared<Scalar>(cublasHandle_t, const Scalar*, std::size_t, std::size_t, const Scalar*, \
                                            const Scalar*, std::size_t, Scalar*, Scalar*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
