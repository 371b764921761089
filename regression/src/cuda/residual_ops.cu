// Residuals of many candidates (one GEMM) and their trimmed sums.
#include <cub/block/block_reduce.cuh>

#include "device_ops.hpp"
#include "cublas_check.hpp"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;

template <class Scalar>
__global__ void broadcast_columns(const Scalar* y, std::size_t n, std::size_t m, Scalar* R) {
  const std::size_t total = n * m;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total; i += std::size_t{gridDim.x} * blockDim.x)
    R[i] = y[i % n];
}

template <class Scalar>
__global__ void square_kernel(Scalar* v, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += std::size_t{gridDim.x} * blockDim.x)
    v[i] *= v[i];
}

// Trimmed sums in two deterministic stages: per chunk of rows (all chunks of all columns at
// once), then per column over its chunks in a fixed order. Values and thresholds are Scalar
// (compared as such); the sums are accumulated in double.
constexpr std::size_t kSumChunk = 16384;

template <class Scalar>
__global__ void chunk_sums_kernel(const Scalar* R2, std::size_t n, std::size_t chunks, std::size_t first_column,
                                  const Scalar* t, double* partial_sum, long long* partial_count) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  using Count = cub::BlockReduce<long long, kThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ typename Count::TempStorage count_storage;
  const std::size_t c = blockIdx.x, j = first_column + blockIdx.y;
  const Scalar threshold = t[j];
  const Scalar* column = R2 + j * n;
  const std::size_t end = min(n, (c + 1) * kSumChunk);
  double sum = 0;
  long long count = 0;
  for (std::size_t i = c * kSumChunk + threadIdx.x; i < end; i += blockDim.x) {
    const Scalar v = column[i];
    if (v < threshold) {
      sum += static_cast<double>(v);
      ++count;
    }
  }
  const double total = Reduce(reduce_storage).Sum(sum);
  const long long total_count = Count(count_storage).Sum(count);
  if (threadIdx.x == 0) {
    partial_sum[j * chunks + c] = total;
    partial_count[j * chunks + c] = total_count;
  }
}

template <class Scalar>
__global__ void column_sums_kernel(std::size_t m, std::size_t chunks, const Scalar* t, std::size_t h,
                                   const double* partial_sum, const long long* partial_count, double* objective,
                                   std::int64_t* below) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= m) return;
  double sum = 0;
  long long count = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    sum += partial_sum[j * chunks + c];
    count += partial_count[j * chunks + c];
  }
  objective[j] = sum + static_cast<double>(static_cast<long long>(h) - count) * static_cast<double>(t[j]);
  below[j] = count;
}

unsigned grid_for(std::size_t count) {
  return static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 132 * 32));
}

cublasStatus_t gemm(cublasHandle_t blas, int n, int m, int k, const double* alpha, const double* A, int lda,
                    const double* B, int ldb, const double* beta, double* C, int ldc) {
  return cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

cublasStatus_t gemm(cublasHandle_t blas, int n, int m, int k, const float* alpha, const float* A, int lda,
                    const float* B, int ldb, const float* beta, float* C, int ldc) {
  return cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace

template <class Scalar>
void residuals(cublasHandle_t blas, const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p,
               std::size_t first_col, const Scalar* d_B, std::size_t m, Scalar* d_R, cudaStream_t stream) {
  broadcast_columns<<<grid_for(n * m), kThreads, 0, stream>>>(d_y, n, m, d_R);
  CUDA_CHECK_LAUNCH();
  const Scalar minus_one = -1, one = 1;
  CUBLAS_CHECK(cublasSetStream(blas, stream));
  CUBLAS_CHECK(gemm(blas, static_cast<int>(n), static_cast<int>(m), static_cast<int>(p - first_col), &minus_one,
                 d_X + first_col * n, static_cast<int>(n), d_B + first_col, static_cast<int>(p), &one, d_R,
                 static_cast<int>(n)));
}

template <class Scalar>
void square_inplace(Scalar* d_values, std::size_t count, cudaStream_t stream) {
  square_kernel<<<grid_for(count), kThreads, 0, stream>>>(d_values, count);
  CUDA_CHECK_LAUNCH();
}

std::size_t trimmed_sums_scratch(std::size_t n, std::size_t m) {
  return 2 * m * ((n + kSumChunk - 1) / kSumChunk);
}

template <class Scalar>
void trimmed_sums(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t, std::size_t h,
                  double* d_scratch, double* d_objective, std::int64_t* d_below, cudaStream_t stream) {
  const std::size_t chunks = (n + kSumChunk - 1) / kSumChunk;
  double* partial_sum = d_scratch;
  auto* partial_count = reinterpret_cast<long long*>(d_scratch + m * chunks);
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    chunk_sums_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                         partial_sum, partial_count);
    CUDA_CHECK_LAUNCH();
  });
  column_sums_kernel<<<static_cast<unsigned>((m + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      m, chunks, d_t, h, partial_sum, partial_count, d_objective, d_below);
  CUDA_CHECK_LAUNCH();
}

#define RF_INSTANTIATE(Scalar)                                                                                        \
  template void residuals<Scalar>(cublasHandle_t, const Scalar*, const Scalar*, std::size_t, std::size_t, std::size_t, \
                                  const Scalar*, std::size_t, Scalar*, cudaStream_t);                                  \
  template void square_inplace<Scalar>(Scalar*, std::size_t, cudaStream_t);                                            \
  template void trimmed_sums<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, std::size_t, double*,    \
                                     double*, std::int64_t*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
