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

// (y - X b_j)^2 for a slice of kResidualSlice candidates (grid y) in one read of X: a thread
// keeps its row of X in registers (kMaxP >= p) and the slice's coefficients sit in shared
// memory. X b_j is summed in column order, then subtracted from y (as the CPU engine does).
constexpr int kResidualSlice = 32;

template <class Scalar, int kMaxP>
__global__ void __launch_bounds__(kThreads) squared_residuals_kernel(const Scalar* X, const Scalar* y, std::size_t n,
                                                                     int p, const Scalar* B, std::size_t m,
                                                                     Scalar* R2) {
  __shared__ Scalar coefficients[kMaxP * kResidualSlice];
  const std::size_t first = std::size_t{blockIdx.y} * kResidualSlice;
  const int columns = static_cast<int>(min(std::size_t{kResidualSlice}, m - first));
  for (int e = static_cast<int>(threadIdx.x); e < p * columns; e += blockDim.x) coefficients[e] = B[first * p + e];
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    Scalar x[kMaxP];
#pragma unroll
    for (int c = 0; c < kMaxP; ++c) x[c] = c < p ? X[static_cast<std::size_t>(c) * n + i] : Scalar(0);
    const Scalar observed = y[i];
    for (int j = 0; j < columns; ++j) {
      const Scalar* b = coefficients + j * p;
      Scalar fitted = 0;
#pragma unroll
      for (int c = 0; c < kMaxP; ++c)
        if (c < p) fitted = fma(x[c], b[c], fitted);
      const Scalar r = observed - fitted;
      R2[(first + j) * n + i] = r * r;
    }
  }
}

// Trimmed sums in two deterministic stages: per chunk of rows (all chunks of all columns at
// once), then per column over its chunks in a fixed order. Values and thresholds are Scalar
// (compared as such); the sums are accumulated in double.
constexpr std::size_t kSumChunk = 16384;

// Counts below and equal to t, packed in one 64-bit word (a chunk's counts are at most
// kSumChunk < 2^32 each) so that one block reduction adds both.
constexpr int kEqualShift = 32;

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
  long long counts = 0;
  for (std::size_t i = c * kSumChunk + threadIdx.x; i < end; i += blockDim.x) {
    const Scalar v = column[i];
    if (v < threshold) {
      sum += static_cast<double>(v);
      ++counts;
    }
    if (v == threshold) counts += 1LL << kEqualShift;
  }
  const double total = Reduce(reduce_storage).Sum(sum);
  const long long total_counts = Count(count_storage).Sum(counts);
  if (threadIdx.x == 0) {
    partial_sum[j * chunks + c] = total;
    partial_count[j * chunks + c] = total_counts;
  }
}

template <class Scalar>
__global__ void column_sums_kernel(std::size_t m, std::size_t chunks, const Scalar* t, std::size_t h,
                                   const double* partial_sum, const long long* partial_count, double* objective,
                                   std::int64_t* below, std::int64_t* equal) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= m) return;
  constexpr long long kLow = (1LL << kEqualShift) - 1;
  double sum = 0;
  long long count = 0, equal_count = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    sum += partial_sum[j * chunks + c];
    count += partial_count[j * chunks + c] & kLow;
    equal_count += partial_count[j * chunks + c] >> kEqualShift;
  }
  objective[j] = sum + static_cast<double>(static_cast<long long>(h) - count) * static_cast<double>(t[j]);
  below[j] = count;
  if (equal != nullptr) equal[j] = equal_count;
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
void squared_residuals(const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p, const Scalar* d_B,
                       std::size_t m, Scalar* d_R2, cudaStream_t stream) {
  if (n == 0 || m == 0) return;
  const auto launch = [&](auto kernel) {
    const std::size_t slices = (m + kResidualSlice - 1) / kResidualSlice;
    const auto row_blocks = static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 132 * 8));
    for (std::size_t first = 0; first < slices; first += kMaxGridY) {
      const auto count = static_cast<unsigned>(std::min(kMaxGridY, slices - first));
      const std::size_t column = first * kResidualSlice;
      kernel<<<dim3(row_blocks, count), kThreads, 0, stream>>>(d_X, d_y, n, static_cast<int>(p), d_B + column * p,
                                                               m - column, d_R2 + column * n);
      CUDA_CHECK_LAUNCH();
    }
  };
  if (p <= 8)
    launch(squared_residuals_kernel<Scalar, 8>);
  else if (p <= 16)
    launch(squared_residuals_kernel<Scalar, 16>);
  else if (p <= 32)
    launch(squared_residuals_kernel<Scalar, 32>);
  else
    launch(squared_residuals_kernel<Scalar, 64>);
}

std::size_t trimmed_sums_scratch(std::size_t n, std::size_t m) {
  return 2 * m * ((n + kSumChunk - 1) / kSumChunk);
}

template <class Scalar>
void trimmed_sums(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t, std::size_t h,
                  double* d_scratch, double* d_objective, std::int64_t* d_below, std::int64_t* d_equal,
                  cudaStream_t stream) {
  const std::size_t chunks = (n + kSumChunk - 1) / kSumChunk;
  double* partial_sum = d_scratch;
  auto* partial_count = reinterpret_cast<long long*>(d_scratch + m * chunks);
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    chunk_sums_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                         partial_sum, partial_count);
    CUDA_CHECK_LAUNCH();
  });
  column_sums_kernel<<<static_cast<unsigned>((m + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      m, chunks, d_t, h, partial_sum, partial_count, d_objective, d_below, d_equal);
  CUDA_CHECK_LAUNCH();
}

#define RF_INSTANTIATE(Scalar)                                                                                        \
  template void residuals<Scalar>(cublasHandle_t, const Scalar*, const Scalar*, std::size_t, std::size_t, std::size_t, \
                                  const Scalar*, std::size_t, Scalar*, cudaStream_t);                                  \
  template void squared_residuals<Scalar>(const Scalar*, const Scalar*, std::size_t, std::size_t, const Scalar*,       \
                                          std::size_t, Scalar*, cudaStream_t);                                         \
  template void trimmed_sums<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, std::size_t, double*,    \
                                     double*, std::int64_t*, std::int64_t*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
