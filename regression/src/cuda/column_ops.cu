// Elementwise passes over the columns of the data on the device: FAST-MCD's column deviations
// (centered rows, absolute deviations) and standardization (the search's z = (x - median) / MAD made where the engine keeps it), a
// constant column, and a few rows gathered for the host.
#include <stdexcept>

#include "device_ops.hpp"
#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t elements) {
  return static_cast<unsigned>(std::clamp<std::size_t>((elements + kThreads - 1) / kThreads, 1, 132 * 32));
}

template <class Scalar>
__global__ void column_deviations_kernel(const Scalar* X, std::size_t n, std::size_t p, const Scalar* centers, bool absolute,
                                         Scalar* D) {
  for (std::size_t e = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < n * p; e += std::size_t{gridDim.x} * blockDim.x) {
    const Scalar d = X[e] - centers[e / n];
    D[e] = absolute ? fabs(d) : d;
  }
}

// A subtraction and a division, each rounded (no contraction is possible): the host's numbers.
template <class Scalar>
__global__ void standardize_kernel(Scalar* X, std::size_t n, std::size_t p, const Scalar* centers, const Scalar* scales) {
  for (std::size_t e = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < n * p; e += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t j = e / n;
    X[e] = (X[e] - centers[j]) / scales[j];
  }
}

template <class Scalar>
__global__ void fill_kernel(Scalar* v, std::size_t n, Scalar value) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    v[i] = value;
}

template <class Scalar>
__global__ void gather_rows_kernel(const Scalar* X, const Scalar* y, std::size_t n, std::size_t p,
                                   const std::int64_t* rows, std::size_t m, Scalar* A) {
  for (std::size_t e = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < m * (p + 1); e += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t r = e % m, j = e / m;
    const auto row = static_cast<std::size_t>(rows[r]);
    A[e] = j < p ? X[j * n + row] : y[row];
  }
}

// Column sums (pairs = false: entry e is sum_i (X(i, e) - c_e)) or the lower triangle of the
// centered Gram matrix (entry e = j (j + 1) / 2 + k, k <= j: sum_i (X(i, j) - c_j)(X(i, k) - c_k)),
// one partial sum per block and entry in `partial` (gridDim.x x entries). The rows go through
// shared memory a tile at a time; a block's tiles and the order of its sums are fixed by the
// grid, so the result is deterministic.
constexpr int kMomentTile = 32;

template <class Scalar>
__global__ void __launch_bounds__(kThreads) column_moments_kernel(const Scalar* X, std::size_t n, int p,
                                                                  const Scalar* centers, bool pairs,
                                                                  double* partial) {
  extern __shared__ double tile[];  // kMomentTile x p, row-major
  const int entries = pairs ? p * (p + 1) / 2 : p;
  constexpr int kPerThread = 9;  // entries <= kPerThread * kThreads: p <= 63
  double sums[kPerThread];
  int first[kPerThread], second[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    sums[u] = 0;
    const int e = static_cast<int>(threadIdx.x) + u * kThreads;
    int j = 0;
    if (pairs)
      while ((j + 1) * (j + 2) / 2 <= e) ++j;
    first[u] = pairs ? j : e;
    second[u] = pairs ? e - j * (j + 1) / 2 : -1;
  }
  for (std::size_t row0 = std::size_t{blockIdx.x} * kMomentTile; row0 < n; row0 += std::size_t{gridDim.x} * kMomentTile) {
    const int rows = static_cast<int>(min(std::size_t{kMomentTile}, n - row0));
    __syncthreads();
    for (int e = static_cast<int>(threadIdx.x); e < rows * p; e += kThreads) {
      const int r = e % rows, j = e / rows;
      tile[r * p + j] = static_cast<double>(X[static_cast<std::size_t>(j) * n + row0 + static_cast<std::size_t>(r)]) -
                        static_cast<double>(centers[j]);
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
      if (static_cast<int>(threadIdx.x) + u * kThreads >= entries) break;
      double sum = sums[u];
      if (pairs) {
        for (int r = 0; r < rows; ++r) sum = fma(tile[r * p + first[u]], tile[r * p + second[u]], sum);
      } else {
        for (int r = 0; r < rows; ++r) sum += tile[r * p + first[u]];
      }
      sums[u] = sum;
    }
  }
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int e = static_cast<int>(threadIdx.x) + u * kThreads;
    if (e < entries) partial[std::size_t{blockIdx.x} * static_cast<std::size_t>(entries) + static_cast<std::size_t>(e)] = sums[u];
  }
}

// out[e] = the blocks' partial sums of entry e, added in block order.
__global__ void add_partials_kernel(const double* partial, int blocks, int entries, double* out) {
  for (int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); e < entries; e += static_cast<int>(gridDim.x * blockDim.x)) {
    double sum = 0;
    for (int b = 0; b < blocks; ++b) sum += partial[static_cast<std::size_t>(b) * static_cast<std::size_t>(entries) + static_cast<std::size_t>(e)];
    out[e] = sum;
  }
}

}  // namespace

template <class Scalar>
void column_deviations(const Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_centers, bool absolute, Scalar* d_D,
                       cudaStream_t stream) {
  if (n * p == 0) return;
  column_deviations_kernel<<<blocks_for(n * p), kThreads, 0, stream>>>(d_X, n, p, d_centers, absolute, d_D);
  CUDA_CHECK_LAUNCH();
}

template <class Scalar>
void standardize_columns(Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_centers, const Scalar* d_scales,
                         cudaStream_t stream) {
  if (n * p == 0) return;
  standardize_kernel<<<blocks_for(n * p), kThreads, 0, stream>>>(d_X, n, p, d_centers, d_scales);
  CUDA_CHECK_LAUNCH();
}

template <class Scalar>
void fill(Scalar* d_v, std::size_t n, Scalar value, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_v, n, value);
  CUDA_CHECK_LAUNCH();
}

template <class Scalar>
void gather_rows(const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p, const std::int64_t* d_rows,
                 std::size_t m, Scalar* d_A, cudaStream_t stream) {
  if (m == 0) return;
  gather_rows_kernel<<<blocks_for(m * (p + 1)), kThreads, 0, stream>>>(d_X, d_y, n, p, d_rows, m, d_A);
  CUDA_CHECK_LAUNCH();
}

std::size_t column_moments_scratch(std::size_t p) { return kMomentBlocks * p * (p + 1) / 2; }

template <class Scalar>
void column_moments(const Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_centers, bool pairs, double* d_scratch,
                    double* d_out, cudaStream_t stream) {
  if (p > kMaxMomentColumns) throw std::invalid_argument("column_moments: at most 63 columns");
  const int entries = static_cast<int>(pairs ? p * (p + 1) / 2 : p);
  const std::size_t shared = sizeof(double) * kMomentTile * p;
  column_moments_kernel<<<kMomentBlocks, kThreads, shared, stream>>>(d_X, n, static_cast<int>(p), d_centers, pairs, d_scratch);
  CUDA_CHECK_LAUNCH();
  add_partials_kernel<<<static_cast<unsigned>((entries + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      d_scratch, static_cast<int>(kMomentBlocks), entries, d_out);
  CUDA_CHECK_LAUNCH();
}

#define RF_INSTANTIATE(Scalar)                                                                                    \
  template void column_deviations<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, bool, Scalar*,  \
                                          cudaStream_t);                                                          \
  template void standardize_columns<Scalar>(Scalar*, std::size_t, std::size_t, const Scalar*, const Scalar*,     \
                                            cudaStream_t);                                                        \
  template void fill<Scalar>(Scalar*, std::size_t, Scalar, cudaStream_t);                                        \
  template void gather_rows<Scalar>(const Scalar*, const Scalar*, std::size_t, std::size_t, const std::int64_t*, \
                                    std::size_t, Scalar*, cudaStream_t);                                          \
  template void column_moments<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, bool, double*,     \
                                       double*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
