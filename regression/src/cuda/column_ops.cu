// Elementwise passes over the columns of the data on the device: FAST-MCD's column deviations
// (centered rows, absolute deviations) and standardization (the search's z = (x - median) / MAD made where the engine keeps it), a
// constant column, and a few rows gathered for the host.
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

#define RF_INSTANTIATE(Scalar)                                                                                    \
  template void column_deviations<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, bool, Scalar*,  \
                                          cudaStream_t);                                                          \
  template void standardize_columns<Scalar>(Scalar*, std::size_t, std::size_t, const Scalar*, const Scalar*,     \
                                            cudaStream_t);                                                        \
  template void fill<Scalar>(Scalar*, std::size_t, Scalar, cudaStream_t);                                        \
  template void gather_rows<Scalar>(const Scalar*, const Scalar*, std::size_t, std::size_t, const std::int64_t*, \
                                    std::size_t, Scalar*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
