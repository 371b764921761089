// h-subsets of many candidates, their normal equations, and elemental systems.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "device_ops.hpp"
#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kGramRowsPerTile = 32;
constexpr int kGramRowsPerBlock = 4096;
constexpr int kMaxPairsPerThread = 8;  // (p+1)(p+2)/2 <= 8 * 256: p up to 62

// h-subsets in three steps over chunks of rows, so that all chunks of all columns run at once:
// count the values below and equal to t per chunk, turn the counts into per-chunk offsets
// (ties are taken first-come in row order, up to h - below), then write each chunk's rows.
constexpr std::size_t kSubsetChunk = 8192;

template <class Scalar>
__global__ void chunk_counts_kernel(const Scalar* R2, std::size_t n, std::size_t chunks, std::size_t first_column,
                                    const Scalar* t, int* less, int* ties) {
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const std::size_t c = blockIdx.x, j = first_column + blockIdx.y;
  const Scalar threshold = t[j];
  const Scalar* column = R2 + j * n;
  const std::size_t end = min(n, (c + 1) * kSubsetChunk);
  int below = 0, equal = 0;
  for (std::size_t i = c * kSubsetChunk + threadIdx.x; i < end; i += blockDim.x) {
    below += column[i] < threshold;
    equal += column[i] == threshold;
  }
  const int total_below = Reduce(storage).Sum(below);
  __syncthreads();
  const int total_equal = Reduce(storage).Sum(equal);
  if (threadIdx.x == 0) {
    less[j * chunks + c] = total_below;
    ties[j * chunks + c] = total_equal;
  }
}

// One thread per column: exclusive prefix sums over its chunks (in place: counts -> offsets).
__global__ void chunk_offsets_kernel(std::size_t m, std::size_t chunks, const std::int64_t* below, std::size_t h,
                                     int* less, int* ties) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= m) return;
  const long long ties_wanted = static_cast<long long>(h) - below[j];
  long long taken = 0, ties_seen = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const long long chunk_less = less[j * chunks + c], chunk_ties = ties[j * chunks + c];
    const long long tie_take = max(0LL, min(chunk_ties, ties_wanted - ties_seen));
    less[j * chunks + c] = static_cast<int>(taken);      // rows taken before this chunk
    ties[j * chunks + c] = static_cast<int>(ties_seen);  // tied rows seen before this chunk
    taken += chunk_less + tie_take;
    ties_seen += chunk_ties;
  }
}

template <class Scalar>
__global__ void write_rows_kernel(const Scalar* R2, std::size_t n, std::size_t chunks, std::size_t first_column, const Scalar* t,
                                  const std::int64_t* below, std::size_t h, const int* taken_before,
                                  const int* ties_before, std::int32_t* rows) {
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int carry_taken, carry_ties;
  const std::size_t c = blockIdx.x, j = first_column + blockIdx.y;
  const Scalar threshold = t[j];
  const long long ties_wanted = static_cast<long long>(h) - below[j];
  const Scalar* column = R2 + j * n;
  std::int32_t* out = rows + j * h;
  if (threadIdx.x == 0) {
    carry_taken = taken_before[j * chunks + c];
    carry_ties = ties_before[j * chunks + c];
  }
  __syncthreads();
  const std::size_t end = min(n, (c + 1) * kSubsetChunk);
  for (std::size_t base = c * kSubsetChunk; base < end; base += kThreads) {
    const std::size_t i = base + threadIdx.x;
    const Scalar v = i < end ? column[i] : threshold + 1;
    const int tie = (i < end && v == threshold) ? 1 : 0;
    int tie_rank = 0, tie_total = 0;
    Scan(scan_storage).ExclusiveSum(tie, tie_rank, tie_total);
    __syncthreads();
    const int take = (i < end && (v < threshold || (tie && carry_ties + tie_rank < ties_wanted))) ? 1 : 0;
    int position = 0, taken_total = 0;
    Scan(scan_storage).ExclusiveSum(take, position, taken_total);
    if (take) out[carry_taken + position] = static_cast<std::int32_t>(i);
    __syncthreads();
    if (threadIdx.x == 0) {
      carry_taken += taken_total;
      carry_ties += tie_total;
    }
    __syncthreads();
  }
}

// Grid (row blocks, columns). Each thread owns a few (a, b) entries, a >= b, of the augmented
// (p+1) x (p+1) Gram matrix and accumulates them over tiles of rows staged in shared memory
// (as double, whatever the Scalar of the data).
__device__ void pair_to_entry(std::size_t pair, std::size_t& a, std::size_t& b) {
  a = static_cast<std::size_t>((sqrt(8.0 * static_cast<double>(pair) + 1) - 1) / 2);
  while (a * (a + 1) / 2 > pair) --a;
  while ((a + 1) * (a + 2) / 2 <= pair) ++a;
  b = pair - a * (a + 1) / 2;
}

template <class Scalar>
__global__ void gram_kernel(const Scalar* X, const Scalar* y, std::size_t n, std::size_t p, std::size_t first_column,
                            const std::int32_t* rows, std::size_t h, double* partial) {
  extern __shared__ double tile[];  // kGramRowsPerTile x (p + 1)
  const std::size_t q = p + 1, pairs = q * (q + 1) / 2, j = first_column + blockIdx.y;
  const std::int32_t* column_rows = rows + j * h;
  const std::size_t begin = std::size_t{blockIdx.x} * kGramRowsPerBlock;
  const std::size_t end = min(h, begin + kGramRowsPerBlock);
  double acc[kMaxPairsPerThread] = {};
  for (std::size_t start = begin; start < end; start += kGramRowsPerTile) {
    const std::size_t count = min(static_cast<std::size_t>(kGramRowsPerTile), end - start);
    for (std::size_t e = threadIdx.x; e < count * q; e += blockDim.x) {
      const std::size_t r = e % count, c = e / count;
      const std::size_t row = static_cast<std::size_t>(column_rows[start + r]);
      tile[r * q + c] = static_cast<double>(c < p ? X[c * n + row] : y[row]);
    }
    __syncthreads();
    for (int s = 0; s < kMaxPairsPerThread; ++s) {
      const std::size_t pair = threadIdx.x + static_cast<std::size_t>(s) * blockDim.x;
      if (pair >= pairs) break;
      std::size_t a, b;
      pair_to_entry(pair, a, b);
      double sum = 0;
      for (std::size_t r = 0; r < count; ++r) sum += tile[r * q + a] * tile[r * q + b];
      acc[s] += sum;
    }
    __syncthreads();
  }
  // Partial sums per row block, added in a fixed order by gram_reduce_kernel: no atomics, so
  // the same input gives bitwise the same Gram matrix (and the same fit) every run.
  for (int s = 0; s < kMaxPairsPerThread; ++s) {
    const std::size_t pair = threadIdx.x + static_cast<std::size_t>(s) * blockDim.x;
    if (pair >= pairs) break;
    partial[(j * gridDim.x + blockIdx.x) * pairs + pair] = acc[s];
  }
}

__global__ void gram_reduce_kernel(const double* partial, std::size_t q, std::size_t blocks, std::size_t m, double* G) {
  const std::size_t pairs = q * (q + 1) / 2;
  for (std::size_t e = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < pairs * m; e += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t j = e / pairs, pair = e % pairs;
    double sum = 0;
    for (std::size_t blk = 0; blk < blocks; ++blk) sum += partial[(j * blocks + blk) * pairs + pair];
    std::size_t a, b;
    pair_to_entry(pair, a, b);
    G[j * q * q + b * q + a] = sum;  // column-major: row a, column b (lower triangle)
  }
}

}  // namespace

std::size_t h_subset_scratch(std::size_t n, std::size_t m) {
  return 2 * m * ((n + kSubsetChunk - 1) / kSubsetChunk);
}

template <class Scalar>
void h_subset_rows(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t,
                   const std::int64_t* d_below, std::size_t h, int* d_scratch, std::int32_t* d_rows, cudaStream_t stream) {
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  int* less = d_scratch;
  int* ties = d_scratch + m * chunks;
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    chunk_counts_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                          less, ties);
    CUDA_CHECK_LAUNCH();
  });
  chunk_offsets_kernel<<<static_cast<unsigned>((m + kThreads - 1) / kThreads), kThreads, 0, stream>>>(m, chunks, d_below, h, less, ties);
  CUDA_CHECK_LAUNCH();
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    write_rows_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                        d_below, h, less, ties, d_rows);
    CUDA_CHECK_LAUNCH();
  });
}

std::size_t augmented_gram_scratch(std::size_t p, std::size_t h, std::size_t m) {
  const std::size_t q = p + 1, blocks = (h + kGramRowsPerBlock - 1) / kGramRowsPerBlock;
  return blocks * m * q * (q + 1) / 2;
}

template <class Scalar>
void augmented_gram(const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p,
                    const std::int32_t* d_rows, std::size_t h, std::size_t m, double* d_scratch, double* d_G,
                    cudaStream_t stream) {
  const std::size_t q = p + 1;
  if (q * (q + 1) / 2 > static_cast<std::size_t>(kMaxPairsPerThread) * kThreads)
    throw std::invalid_argument("the CUDA engine supports at most 62 coefficients");
  CUDA_CHECK(cudaMemsetAsync(d_G, 0, sizeof(double) * q * q * m, stream));
  const std::size_t blocks = (h + kGramRowsPerBlock - 1) / kGramRowsPerBlock;
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    gram_kernel<<<dim3(static_cast<unsigned>(blocks), count), kThreads, sizeof(double) * kGramRowsPerTile * q, stream>>>(
        d_X, d_y, n, p, first, d_rows, h, d_scratch);
    CUDA_CHECK_LAUNCH();
  });
  const std::size_t entries = m * q * (q + 1) / 2;
  gram_reduce_kernel<<<static_cast<unsigned>(std::min<std::size_t>((entries + kThreads - 1) / kThreads, 4096)), kThreads, 0, stream>>>(
      d_scratch, q, blocks, m, d_G);
  CUDA_CHECK_LAUNCH();
}

#define RF_INSTANTIATE(Scalar)                                                                                    \
  template void h_subset_rows<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, const std::int64_t*, \
                                      std::size_t, int*, std::int32_t*, cudaStream_t);                              \
  template void augmented_gram<Scalar>(const Scalar*, const Scalar*, std::size_t, std::size_t, const std::int32_t*, \
                                       std::size_t, std::size_t, double*, double*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
