#include "chunked_products.hpp"

#include "cublas_check.hpp"

namespace robustfit::regression::cuda {

void chunked_cross_product(cublasHandle_t blas, const double* X, std::size_t ldx, const double* Y, std::size_t ldy,
                           std::size_t n, std::size_t a, std::size_t b, const double* ones, DeviceArray<double>& products,
                           double* out) {
  const std::size_t full = n / kProductChunkRows, rest = n - full * kProductChunkRows, chunks = full + (rest > 0 ? 1 : 0);
  const double one = 1, zero = 0;
  const auto ia = static_cast<int>(a), ib = static_cast<int>(b), lx = static_cast<int>(ldx), ly = static_cast<int>(ldy);
  if (chunks == 0) {  // no rows: a zero product
    cudaStream_t stream = nullptr;
    CUBLAS_CHECK(cublasGetStream(blas, &stream));
    CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(double) * a * b, stream));
    return;
  }
  double* P = products.reserve(a * b * chunks);
  const auto chunk = static_cast<long long>(kProductChunkRows);
  if (full > 0)
    CUBLAS_CHECK(cublasDgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, ia, ib, static_cast<int>(kProductChunkRows), &one, X,
                                           lx, chunk, Y, ly, chunk, &zero, P, ia, static_cast<long long>(a * b),
                                           static_cast<int>(full)));
  if (rest > 0)
    CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, ia, ib, static_cast<int>(rest), &one, X + full * kProductChunkRows,
                             lx, Y + full * kProductChunkRows, ly, &zero, P + full * a * b, ia));
  CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_N, static_cast<int>(a * b), static_cast<int>(chunks), &one, P, static_cast<int>(a * b),
                           ones, 1, &zero, out, 1));
}

}  // namespace robustfit::regression::cuda
