// h-subsets of many candidates, their normal equations, and elemental systems.
#include <algorithm>
#include <stdexcept>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "device_ops.hpp"
#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxPairsPerThread = 8;  // (p+1)(p+2)/2 <= 8 * 256: p up to 62

// h-subsets in three steps over chunks of rows, so that all chunks of all columns run at once:
// count the values below and equal to t per chunk, turn the counts into per-chunk offsets
// (ties are taken first-come in row order, up to h - below), then write each chunk's rows.
constexpr std::size_t kSubsetChunk = 2048;  // 489 blocks per column at n = 10^6

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

// One block per column: exclusive prefix sums over its chunks, kThreads chunks at a time (in
// place: counts -> offsets). A chunk takes its rows below t and as many of its tied rows as are
// still wanted after the ties of the chunks before it.
__global__ void chunk_offsets_kernel(std::size_t chunks, const std::int64_t* below, std::size_t h, int* less, int* ties) {
  using Scan = cub::BlockScan<long long, kThreads>;
  __shared__ typename Scan::TempStorage storage;
  __shared__ long long carry_taken, carry_ties;
  const std::size_t j = blockIdx.x;
  const long long ties_wanted = static_cast<long long>(h) - below[j];
  if (threadIdx.x == 0) carry_taken = carry_ties = 0;
  __syncthreads();
  for (std::size_t base = 0; base < chunks; base += kThreads) {
    const std::size_t c = base + threadIdx.x;
    const bool in_range = c < chunks;
    const long long chunk_less = in_range ? less[j * chunks + c] : 0, chunk_ties = in_range ? ties[j * chunks + c] : 0;
    long long ties_before = 0, ties_total = 0, taken_before = 0, taken_total = 0;
    Scan(storage).ExclusiveSum(chunk_ties, ties_before, ties_total);
    __syncthreads();
    ties_before += carry_ties;
    const long long tie_take = max(0LL, min(chunk_ties, ties_wanted - ties_before));
    Scan(storage).ExclusiveSum(chunk_less + tie_take, taken_before, taken_total);
    if (in_range) {
      less[j * chunks + c] = static_cast<int>(carry_taken + taken_before);  // rows taken before this chunk
      ties[j * chunks + c] = static_cast<int>(ties_before);                 // tied rows seen before this chunk
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      carry_taken += taken_total;
      carry_ties += ties_total;
    }
    __syncthreads();
  }
}

using BlockScan = cub::BlockScan<int, kThreads>;

// One pass of kThreads rows (this thread's row is in range with value v) under the h-subset
// rule: v < t, or v == t while fewer than ties_wanted tied rows came before (carry_ties: tied
// rows of the earlier passes). The caller synchronises after using the result, then advances
// carry_ties by tie_total.
struct PassTake {
  int take = 0, position = 0, taken = 0, tie_total = 0;
};

template <class Scalar>
__device__ PassTake take_in_pass(bool in_range, Scalar v, Scalar threshold, long long ties_wanted, const int& carry_ties,
                                 typename BlockScan::TempStorage& storage) {
  PassTake pass;
  const int tie = (in_range && v == threshold) ? 1 : 0;
  int tie_rank = 0;
  BlockScan(storage).ExclusiveSum(tie, tie_rank, pass.tie_total);
  __syncthreads();
  pass.take = (in_range && (v < threshold || (tie && carry_ties + tie_rank < ties_wanted))) ? 1 : 0;
  BlockScan(storage).ExclusiveSum(pass.take, pass.position, pass.taken);
  return pass;
}

template <class Scalar>
__global__ void write_rows_kernel(const Scalar* R2, std::size_t n, std::size_t chunks, std::size_t first_column, const Scalar* t,
                                  const std::int64_t* below, std::size_t h, const int* taken_before,
                                  const int* ties_before, std::int32_t* rows) {
  __shared__ typename BlockScan::TempStorage scan_storage;
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
    const PassTake pass = take_in_pass(i < end, i < end ? column[i] : threshold, threshold, ties_wanted, carry_ties, scan_storage);
    if (pass.take) out[carry_taken + pass.position] = static_cast<std::int32_t>(i);
    __syncthreads();
    if (threadIdx.x == 0) {
      carry_taken += pass.taken;
      carry_ties += pass.tie_total;
    }
    __syncthreads();
  }
}

// Entry (a, b), a >= b, of the lower triangle for a pair number (row-major over the triangle).
__device__ void pair_to_entry(std::size_t pair, std::size_t& a, std::size_t& b) {
  a = static_cast<std::size_t>((sqrt(8.0 * static_cast<double>(pair) + 1) - 1) / 2);
  while (a * (a + 1) / 2 > pair) --a;
  while ((a + 1) * (a + 2) / 2 <= pair) ++a;
  b = pair - a * (a + 1) / 2;
}

// One warp per Gram entry: each lane sums every 32nd block's partial, then the lanes' sums are
// added by a fixed shuffle tree (deterministic, like the blocks' own order).
__global__ void gram_reduce_kernel(const double* partial, std::size_t q, std::size_t blocks, std::size_t m, double* G) {
  constexpr unsigned kWarp = 32;
  const std::size_t pairs = q * (q + 1) / 2, warps = std::size_t{gridDim.x} * blockDim.x / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  for (std::size_t e = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / kWarp; e < pairs * m; e += warps) {
    const std::size_t j = e / pairs, pair = e % pairs;
    double sum = 0;
    for (std::size_t blk = lane; blk < blocks; blk += kWarp) sum += partial[(j * blocks + blk) * pairs + pair];
    for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) {
      std::size_t a, b;
      pair_to_entry(pair, a, b);
      G[j * q * q + b * q + a] = sum;  // column-major: row a, column b (lower triangle)
    }
  }
}

// The augmented Gram matrix of each column's h-subset straight from its values, without a row
// list: grid (chunks, columns), each block walks its chunk kThreads rows at a time with
// write_rows_kernel's rule (v < t, ties first-come up to h - below), compacts the taken rows'
// [x y] into shared memory (contiguous reads of X: no gather) and accumulates their products.
// Thread layout: `lanes` threads per row group own the pairs lane, lane + lanes, ... (at most
// kPairs each: 1 while the pairs fit in a block, so that the sums stay in registers); `groups`
// row groups split each pass's rows. Per-block partials, summed in a fixed order later.
template <class Scalar, int kPairs>
__global__ void __launch_bounds__(kThreads) subset_gram_kernel(const Scalar* X, const Scalar* y, const Scalar* R2,
                                                               std::size_t n, std::size_t p, std::size_t chunks,
                                                               std::size_t first_column, const Scalar* t,
                                                               const std::int64_t* below, std::size_t h,
                                                               const int* ties_before, double* partial) {
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ int carry_ties;
  extern __shared__ double rows_tile[];  // kThreads x q: this pass's taken rows, compacted
  const int q = static_cast<int>(p) + 1, pairs = q * (q + 1) / 2;
  const std::size_t c = blockIdx.x, j = first_column + blockIdx.y;
  const int lanes = min(pairs, kThreads), groups = kThreads / lanes;
  const int group = static_cast<int>(threadIdx.x) / lanes, lane = static_cast<int>(threadIdx.x) % lanes;
  int a[kPairs], b[kPairs];
  double acc[kPairs];
#pragma unroll
  for (int s = 0; s < kPairs; ++s) {
    acc[s] = 0;
    a[s] = b[s] = 0;
    const int pair = lane + s * lanes;
    if (pair < pairs) {
      std::size_t row, col;
      pair_to_entry(static_cast<std::size_t>(pair), row, col);
      a[s] = static_cast<int>(row);
      b[s] = static_cast<int>(col);
    }
  }
  const Scalar threshold = t[j];
  const long long ties_wanted = static_cast<long long>(h) - below[j];
  const Scalar* column = R2 + j * n;
  if (threadIdx.x == 0) carry_ties = ties_before[j * chunks + c];
  __syncthreads();
  const std::size_t end = min(n, (c + 1) * kSubsetChunk);
  for (std::size_t base = c * kSubsetChunk; base < end; base += kThreads) {
    const std::size_t i = base + threadIdx.x;
    const PassTake pass = take_in_pass(i < end, i < end ? column[i] : threshold, threshold, ties_wanted, carry_ties, scan_storage);
    if (pass.take) {
      double* row = rows_tile + pass.position * q;
      for (int col = 0; col + 1 < q; ++col) row[col] = static_cast<double>(X[static_cast<std::size_t>(col) * n + i]);
      row[q - 1] = static_cast<double>(y[i]);
    }
    __syncthreads();
    if (group < groups) {
#pragma unroll
      for (int s = 0; s < kPairs; ++s) {
        if (lane + s * lanes < pairs) {
          // Two independent sums (latency), added in a fixed order.
          double even = 0, odd = 0;
          int r = group;
          for (; r + groups < pass.taken; r += 2 * groups) {
            even += rows_tile[r * q + a[s]] * rows_tile[r * q + b[s]];
            odd += rows_tile[(r + groups) * q + a[s]] * rows_tile[(r + groups) * q + b[s]];
          }
          if (r < pass.taken) even += rows_tile[r * q + a[s]] * rows_tile[r * q + b[s]];
          acc[s] += even + odd;
        }
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) carry_ties += pass.tie_total;
  }
  double* out = partial + (j * gridDim.x + blockIdx.x) * static_cast<std::size_t>(pairs);
  if (groups == 1) {  // every pair has one owner
    if (group != 0) return;
#pragma unroll
    for (int s = 0; s < kPairs; ++s)
      if (lane + s * lanes < pairs) out[lane + s * lanes] = acc[s];
    return;
  }
  // One pair per thread (lanes = pairs < kThreads): the groups' sums added in group order.
  __syncthreads();
  if (group < groups) rows_tile[group * pairs + lane] = acc[0];
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < pairs) {
    double sum = 0;
    for (int g = 0; g < groups; ++g) sum += rows_tile[g * pairs + static_cast<int>(threadIdx.x)];
    out[threadIdx.x] = sum;
  }
}

}  // namespace

std::size_t h_subset_scratch(std::size_t n, std::size_t m) {
  return 2 * m * ((n + kSubsetChunk - 1) / kSubsetChunk);
}

namespace {

// Per chunk of each column: the rows taken and the tied rows seen before it (d_scratch's two
// halves, see h_subset_scratch).
template <class Scalar>
void chunk_offsets(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t, const std::int64_t* d_below,
                   std::size_t h, int* less, int* ties, cudaStream_t stream) {
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    chunk_counts_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                          less, ties);
    CUDA_CHECK_LAUNCH();
  });
  chunk_offsets_kernel<<<static_cast<unsigned>(m), kThreads, 0, stream>>>(chunks, d_below, h, less, ties);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class Scalar>
void h_subset_rows(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t,
                   const std::int64_t* d_below, std::size_t h, int* d_scratch, std::int32_t* d_rows, cudaStream_t stream) {
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  int* less = d_scratch;
  int* ties = d_scratch + m * chunks;
  chunk_offsets(d_R2, n, m, d_t, d_below, h, less, ties, stream);
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    write_rows_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                        d_below, h, less, ties, d_rows);
    CUDA_CHECK_LAUNCH();
  });
}

std::size_t subset_gram_scratch(std::size_t n, std::size_t p, std::size_t m) {
  const std::size_t q = p + 1;
  return m * ((n + kSubsetChunk - 1) / kSubsetChunk) * (q * (q + 1) / 2);
}

template <class Scalar>
void subset_gram(const Scalar* d_X, const Scalar* d_y, const Scalar* d_R2, std::size_t n, std::size_t p, std::size_t m,
                 const Scalar* d_t, const std::int64_t* d_below, std::size_t h, int* d_subset_scratch,
                 double* d_gram_scratch, double* d_G, cudaStream_t stream) {
  const std::size_t q = p + 1;
  if (q * (q + 1) / 2 > static_cast<std::size_t>(kMaxPairsPerThread) * kThreads)
    throw std::invalid_argument("the CUDA engine supports at most 62 coefficients");
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  int* less = d_subset_scratch;
  int* ties = d_subset_scratch + m * chunks;
  chunk_offsets(d_R2, n, m, d_t, d_below, h, less, ties, stream);
  const std::size_t tile_bytes = sizeof(double) * kThreads * q;  // above 48 KB (q > 24) by opt-in
  CUDA_CHECK(cudaMemsetAsync(d_G, 0, sizeof(double) * q * q * m, stream));
  const auto launch = [&](auto kernel) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(tile_bytes)));
    for_column_slices(m, [&](std::size_t first, unsigned count) {
      kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, tile_bytes, stream>>>(d_X, d_y, d_R2, n, p, chunks, first, d_t,
                                                                                         d_below, h, ties, d_gram_scratch);
      CUDA_CHECK_LAUNCH();
    });
  };
  if (q * (q + 1) / 2 <= static_cast<std::size_t>(kThreads))
    launch(subset_gram_kernel<Scalar, 1>);
  else
    launch(subset_gram_kernel<Scalar, kMaxPairsPerThread>);
  const std::size_t entries = m * q * (q + 1) / 2, warps_per_block = kThreads / 32;
  gram_reduce_kernel<<<static_cast<unsigned>(std::min<std::size_t>((entries + warps_per_block - 1) / warps_per_block, 65535)),
                       kThreads, 0, stream>>>(d_gram_scratch, q, chunks, m, d_G);
  CUDA_CHECK_LAUNCH();
}

#define RF_INSTANTIATE(Scalar)                                                                                    \
  template void h_subset_rows<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, const std::int64_t*, \
                                      std::size_t, int*, std::int32_t*, cudaStream_t);                              \
  template void subset_gram<Scalar>(const Scalar*, const Scalar*, const Scalar*, std::size_t, std::size_t,          \
                                    std::size_t, const Scalar*, const std::int64_t*, std::size_t, int*, double*,     \
                                    double*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
