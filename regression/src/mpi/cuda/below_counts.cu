// Counts and sums below a threshold per column (below_counts.hpp): two deterministic stages,
// as the CUDA engine's trimmed sums (cuda/residual_ops.cu), with the ties counted too.
#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "../../../../selection/src/cuda/cuda_check.cuh"
#include "../../cuda/device_ops.hpp"
#include "below_counts.hpp"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;
constexpr std::size_t kChunk = 16384;

struct Partial {
  double sum;
  long long below, ties;
};

struct AddPartial {
  __device__ Partial operator()(const Partial& a, const Partial& b) const {
    return {a.sum + b.sum, a.below + b.below, a.ties + b.ties};
  }
};

__global__ void chunk_kernel(const double* R2, std::size_t n, std::size_t chunks, std::size_t first_column, const double* t,
                             Partial* partial) {
  using Reduce = cub::BlockReduce<Partial, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const std::size_t c = blockIdx.x, j = first_column + blockIdx.y;
  const double threshold = t[j];
  const double* column = R2 + j * n;
  const std::size_t end = min(n, (c + 1) * kChunk);
  Partial mine{0, 0, 0};
  for (std::size_t i = c * kChunk + threadIdx.x; i < end; i += blockDim.x) {
    const double v = column[i];
    if (v < threshold) mine.sum += v, ++mine.below;
    mine.ties += v == threshold;
  }
  const Partial total = Reduce(storage).Reduce(mine, AddPartial{});
  if (threadIdx.x == 0) partial[j * chunks + c] = total;
}

__global__ void column_kernel(std::size_t m, std::size_t chunks, const Partial* partial, double* out) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= m) return;
  Partial total{0, 0, 0};
  for (std::size_t c = 0; c < chunks; ++c) total = AddPartial{}(total, partial[j * chunks + c]);
  out[3 * j] = static_cast<double>(total.below);
  out[3 * j + 1] = static_cast<double>(total.ties);
  out[3 * j + 2] = total.sum;
}

}  // namespace

std::size_t below_counts_scratch(std::size_t n, std::size_t m) {
  static_assert(sizeof(Partial) == 3 * sizeof(double));
  return 3 * m * ((n + kChunk - 1) / kChunk);
}

void below_counts(const double* d_R2, std::size_t n, std::size_t m, const double* d_t, double* d_scratch, double* d_out,
                  cudaStream_t stream) {
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  auto* partial = reinterpret_cast<Partial*>(d_scratch);
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    chunk_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t, partial);
    CUDA_CHECK_LAUNCH();
  });
  column_kernel<<<static_cast<unsigned>((m + kThreads - 1) / kThreads), kThreads, 0, stream>>>(m, chunks, partial, d_out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace robustfit::regression::cuda
