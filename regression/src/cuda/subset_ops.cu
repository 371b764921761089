// h-subsets of many candidates, their normal equations, and elemental systems.
#include <algorithm>
#include <stdexcept>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "tiled_gram.cuh"
#include "device_ops.hpp"
#include "../../../selection/src/cuda/cuda_check.cuh"
#include "../../../selection/src/cuda/dynamic_shared_memory.cuh"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxPairsPerThread = 8;  // (p+1)(p+2)/2 <= 8 * 256: p up to 62

// h-subsets in three steps over chunks of rows, so that all chunks of all columns run at once:
// count the values below and equal to t per chunk, turn the counts into per-chunk offsets
// (ties are taken first-come in row order, up to h - below), then write each chunk's rows.
constexpr std::size_t kSubsetChunk = 2048;  // 489 blocks per column at n = 10^6

// Whether column j takes every tied row (then their order does not matter): known where
// trimmed_sums counted the ties (equal), else assumed not.
__device__ bool takes_every_tie(const std::int64_t* below, const std::int64_t* equal, std::size_t h, std::size_t j) {
  return equal != nullptr && equal[j] <= static_cast<long long>(h) - below[j];
}

template <class Scalar>
__global__ void chunk_counts_kernel(const Scalar* R2, std::size_t n, std::size_t chunks, std::size_t first_column,
                                    const Scalar* t, const std::int64_t* column_below,
                                    const std::int64_t* column_equal, std::size_t h, int* less, int* ties) {
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const std::size_t c = blockIdx.x, j = first_column + blockIdx.y;
  if (takes_every_tie(column_below, column_equal, h, j)) return;  // no offsets needed (subset_masks_kernel)
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
__global__ void chunk_offsets_kernel(std::size_t chunks, const std::int64_t* below, const std::int64_t* equal, std::size_t h,
                                     int* less, int* ties) {
  using Scan = cub::BlockScan<long long, kThreads>;
  __shared__ typename Scan::TempStorage storage;
  __shared__ long long carry_taken, carry_ties;
  const std::size_t j = blockIdx.x;
  if (takes_every_tie(below, equal, h, j)) return;
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
// added by a fixed shuffle tree (deterministic, like the blocks' own order). base (may be null):
// a q x q lower triangle added to every candidate's sum (the common rows' Gram matrix).
__global__ void gram_reduce_kernel(const double* partial, std::size_t q, std::size_t blocks, std::size_t m,
                                   const double* base, double* G) {
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
      G[j * q * q + b * q + a] = base != nullptr ? sum + base[b * q + a] : sum;  // column-major: row a, column b
    }
  }
}

// Which rows each candidate's h-subset holds, one bit per candidate in a word per row and
// group of 32 candidates (masks: groups x n), by write_rows_kernel's rule (v < t, ties
// first-come up to h - below): grid (chunks, groups). Ties are rare (the row at t itself): the
// scan for their order runs only in the passes where some column has one.
constexpr int kMaskBits = 32;

__device__ unsigned block_or(unsigned value, unsigned& shared_word) {
  value = __reduce_or_sync(0xffffffffu, value);
  if (threadIdx.x % 32 == 0 && value != 0) atomicOr(&shared_word, value);
  __syncthreads();
  return shared_word;
}

template <class Scalar>
__global__ void __launch_bounds__(kThreads) subset_masks_kernel(const Scalar* R2, std::size_t n, std::size_t chunks,
                                                                std::size_t m, const Scalar* t,
                                                                const std::int64_t* below, const std::int64_t* equal,
                                                                std::size_t h, const int* ties_before, unsigned* masks) {
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ unsigned tie_columns;
  __shared__ int carry_ties[kMaskBits];
  __shared__ long long ties_wanted[kMaskBits];
  __shared__ Scalar thresholds[kMaskBits];
  __shared__ unsigned every_tie;  // columns that take all their ties (takes_every_tie)
  const std::size_t c = blockIdx.x, first = std::size_t{blockIdx.y} * kMaskBits;
  const int columns = static_cast<int>(min(std::size_t{kMaskBits}, m - first));
  if (threadIdx.x == 0) every_tie = 0;
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < columns) {
    const std::size_t j = first + threadIdx.x;
    thresholds[threadIdx.x] = t[j];
    ties_wanted[threadIdx.x] = static_cast<long long>(h) - below[j];
    if (takes_every_tie(below, equal, h, j))
      atomicOr(&every_tie, 1u << threadIdx.x);
    else
      carry_ties[threadIdx.x] = ties_before[j * chunks + c];
  }
  const std::size_t end = min(n, (c + 1) * kSubsetChunk);
  for (std::size_t base = c * kSubsetChunk; base < end; base += kThreads) {
    const std::size_t i = base + threadIdx.x;
    if (threadIdx.x == 0) tie_columns = 0;
    __syncthreads();  // thresholds, carries, tie_columns
    unsigned take = 0, tie = 0;
    if (i < end)
      for (int k = 0; k < columns; ++k) {
        const Scalar v = R2[(first + k) * n + i];
        take |= static_cast<unsigned>(v < thresholds[k]) << k;
        tie |= static_cast<unsigned>(v == thresholds[k]) << k;
      }
    take |= tie & every_tie;
    for (unsigned pending = block_or(tie & ~every_tie, tie_columns); pending != 0; pending &= pending - 1) {
      const int k = __ffs(pending) - 1;
      const int is_tie = (tie >> k) & 1u;
      int rank = 0, total = 0;
      BlockScan(scan_storage).ExclusiveSum(is_tie, rank, total);
      if (is_tie && carry_ties[k] + rank < ties_wanted[k]) take |= 1u << k;
      __syncthreads();
      if (threadIdx.x == 0) carry_ties[k] += total;
      __syncthreads();
    }
    if (i < end) masks[std::size_t{blockIdx.y} * n + i] = take;
  }
}

// The augmented Gram matrices of many candidates' h-subsets from their mask bits in one read
// of [X y]: grid (kGramBlocks at most, groups of kCands candidates); a block copies kThreads
// rows' [x y] into shared memory, then adds each row's products to the candidates that take
// it. The finalists' h-subsets mostly agree, so a row taken by every candidate of the group
// goes to one common sum and only the rows they disagree on to per-candidate sums; the bits of
// a row are the same for a whole warp (warps own pairs, not rows), so nothing diverges.
// Thread layout: a row group of `span` threads (a multiple of 32) owns pair lane, lane + span,
// ... (kPairs per thread); `groups` row groups split each pass's rows. Per-block partials,
// summed in a fixed order later: the grid is fixed, so the bits do not depend on the device.
// Wide designs with at most 32 candidates use tiled_gram_kernel instead (tiled_gram.cuh).
constexpr unsigned kGramBlocks = 528;
unsigned gram_blocks(std::size_t n) { return static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, kGramBlocks)); }

template <class Scalar, int kPairs, int kCands>
__global__ void __launch_bounds__(kThreads) masked_gram_kernel(const Scalar* X, const Scalar* y, const unsigned* masks,
                                                               std::size_t n, std::size_t p, std::size_t m,
                                                               double* partial) {
  static_assert(kMaskBits % kCands == 0, "a group's bits lie in one mask word");
  __shared__ unsigned row_masks[kThreads];
  extern __shared__ double rows_tile[];  // kThreads x q: this pass's rows
  const int q = static_cast<int>(p) + 1, pairs = q * (q + 1) / 2;
  const std::size_t first = std::size_t{blockIdx.y} * kCands;
  const int cands = static_cast<int>(min(std::size_t{kCands}, m - first));
  const unsigned every = cands == 32 ? ~0u : (1u << cands) - 1;
  const unsigned* word = masks + first / kMaskBits * n;
  const int shift = static_cast<int>(first % kMaskBits);
  const int span = ((pairs + kPairs - 1) / kPairs + 31) / 32 * 32, groups = max(1, kThreads / span);
  const int group = static_cast<int>(threadIdx.x) / span, lane = static_cast<int>(threadIdx.x) % span;
  int a[kPairs], b[kPairs];
  double common[kPairs], own[kPairs][kCands];
#pragma unroll
  for (int s = 0; s < kPairs; ++s) {
    common[s] = 0;
#pragma unroll
    for (int k = 0; k < kCands; ++k) own[s][k] = 0;
    a[s] = b[s] = 0;
    const int pair = lane + s * span;
    if (pair < pairs) {
      std::size_t row, col;
      pair_to_entry(static_cast<std::size_t>(pair), row, col);
      a[s] = static_cast<int>(row);
      b[s] = static_cast<int>(col);
    }
  }
  for (std::size_t base = std::size_t{blockIdx.x} * kThreads; base < n; base += std::size_t{gridDim.x} * kThreads) {
    const std::size_t i = base + threadIdx.x;
    unsigned take = 0;
    if (i < n) {
      take = (word[i] >> shift) & every;
      if (take != 0) {
        double* row = rows_tile + threadIdx.x * q;
        for (int col = 0; col + 1 < q; ++col) row[col] = static_cast<double>(X[static_cast<std::size_t>(col) * n + i]);
        row[q - 1] = static_cast<double>(y[i]);
      }
    }
    row_masks[threadIdx.x] = take;
    __syncthreads();
    if (group < groups) {
      // Four rows at a time (groups divides kThreads / 4): where all four go to the common sum,
      // their products are independent (latency, not bandwidth, bounds this loop).
      for (int r = group; r < kThreads; r += 4 * groups) {
        unsigned w[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) w[u] = row_masks[r + u * groups];
        if (w[0] == every && w[1] == every && w[2] == every && w[3] == every) {
#pragma unroll
          for (int s = 0; s < kPairs; ++s) {
            double z[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
              const double* row = rows_tile + (r + u * groups) * q;
              z[u] = row[a[s]] * row[b[s]];
            }
            common[s] += (z[0] + z[1]) + (z[2] + z[3]);
          }
          continue;
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          if (w[u] == 0) continue;
          const double* row = rows_tile + (r + u * groups) * q;
#pragma unroll
          for (int s = 0; s < kPairs; ++s) {
            const double z = row[a[s]] * row[b[s]];
            if (w[u] == every) {
              common[s] += z;
            } else {
#pragma unroll
              for (int k = 0; k < kCands; ++k)
                if ((w[u] >> k) & 1u) own[s][k] += z;
            }
          }
        }
      }
    }
    __syncthreads();  // before the next pass overwrites the tile and the masks
  }
  // Per candidate: common + own, the row groups' sums added in group order.
  double* sums = rows_tile;  // groups x span, free now
  for (int k = 0; k < cands; ++k) {
    double* out = partial + ((first + k) * gridDim.x + blockIdx.x) * static_cast<std::size_t>(pairs);
    if (groups == 1) {
#pragma unroll
      for (int s = 0; s < kPairs; ++s) {
        const int pair = lane + s * span;
        if (group == 0 && pair < pairs) {
#pragma unroll
          for (int kk = 0; kk < kCands; ++kk)
            if (kk == k) out[pair] = common[s] + own[s][kk];
        }
      }
      continue;
    }
    // kPairs == 1 here (2 span <= kThreads).
    __syncthreads();
    if (group < groups) {
#pragma unroll
      for (int kk = 0; kk < kCands; ++kk)
        if (kk == k) sums[group * span + lane] = common[0] + own[0][kk];
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < pairs) {
      double sum = 0;
      for (int g = 0; g < groups; ++g) sum += sums[g * span + static_cast<int>(threadIdx.x)];
      out[threadIdx.x] = sum;
    }
  }
}

}  // namespace

std::size_t h_subset_scratch(std::size_t n, std::size_t m) {
  return 2 * m * ((n + kSubsetChunk - 1) / kSubsetChunk) + (m + kMaskBits - 1) / kMaskBits * n;
}

namespace {

// Per chunk of each column: the rows taken and the tied rows seen before it (d_scratch's two
// halves, see h_subset_scratch).
// d_equal (may be null): columns that take every tie get no offsets (takes_every_tie).
template <class Scalar>
void chunk_offsets(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t, const std::int64_t* d_below,
                   const std::int64_t* d_equal, std::size_t h, int* less, int* ties, cudaStream_t stream) {
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    chunk_counts_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(
        d_R2, n, chunks, first, d_t, d_below, d_equal, h, less, ties);
    CUDA_CHECK_LAUNCH();
  });
  chunk_offsets_kernel<<<static_cast<unsigned>(m), kThreads, 0, stream>>>(chunks, d_below, d_equal, h, less, ties);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class Scalar>
void h_subset_rows(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t,
                   const std::int64_t* d_below, std::size_t h, int* d_scratch, std::int32_t* d_rows, cudaStream_t stream) {
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  int* less = d_scratch;
  int* ties = d_scratch + m * chunks;
  chunk_offsets(d_R2, n, m, d_t, d_below, static_cast<const std::int64_t*>(nullptr), h, less, ties, stream);
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    write_rows_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(d_R2, n, chunks, first, d_t,
                                                                                        d_below, h, less, ties, d_rows);
    CUDA_CHECK_LAUNCH();
  });
}

// Wide designs (more products than threads: masked_gram_kernel would keep several pairs per
// thread and read [X y] once per few candidates, summing their shared rows each time) with at
// most 32 candidates (one mask word per row): the rows that all candidates take summed once and
// everything in 4 x 4 register tiles (tiled_gram_kernel).
bool sums_common_rows(std::size_t q, std::size_t m) { return q * (q + 1) / 2 > kThreads && m <= kMaskBits; }

std::size_t subset_gram_scratch(std::size_t n, std::size_t p, std::size_t m) {
  const std::size_t q = p + 1;
  // Per candidate and block the partial sums; then the common rows' partials and their sum.
  // (q pairs-sized rows for the common sum's q x q: a little more than it needs.)
  return m * gram_blocks(n) * (q * (q + 1) / 2) + (sums_common_rows(q, m) ? (gram_blocks(n) + q) * (q * (q + 1) / 2) : 0);
}

template <class Scalar>
void subset_gram(const Scalar* d_X, const Scalar* d_y, const Scalar* d_R2, std::size_t n, std::size_t p, std::size_t m,
                 const Scalar* d_t, const std::int64_t* d_below, const std::int64_t* d_equal, std::size_t h,
                 int* d_subset_scratch, double* d_gram_scratch, double* d_G, cudaStream_t stream) {
  const std::size_t q = p + 1;
  if (q * (q + 1) / 2 > static_cast<std::size_t>(kMaxPairsPerThread) * kThreads)
    throw std::invalid_argument("the CUDA engine supports at most 62 coefficients");
  const std::size_t chunks = (n + kSubsetChunk - 1) / kSubsetChunk;
  int* less = d_subset_scratch;
  int* ties = d_subset_scratch + m * chunks;
  chunk_offsets(d_R2, n, m, d_t, d_below, d_equal, h, less, ties, stream);
  const std::size_t mask_groups = (m + kMaskBits - 1) / kMaskBits;
  auto* masks = reinterpret_cast<unsigned*>(d_subset_scratch + 2 * m * chunks);
  for (std::size_t first_group = 0; first_group < mask_groups; first_group += kMaxGridY) {
    const auto count = static_cast<unsigned>(std::min(kMaxGridY, mask_groups - first_group));
    const std::size_t first = first_group * kMaskBits;
    // A slice's kernel numbers its columns from 0: the column-indexed arguments are offset.
    subset_masks_kernel<<<dim3(static_cast<unsigned>(chunks), count), kThreads, 0, stream>>>(
        d_R2 + first * n, n, chunks, std::min(m - first, std::size_t{count} * kMaskBits), d_t + first, d_below + first,
        d_equal ? d_equal + first : nullptr, h, ties + first * chunks, masks + first_group * n);
    CUDA_CHECK_LAUNCH();
  }
  const std::size_t tile_bytes = sizeof(double) * kThreads * q;  // above 48 KB (q > 24) by opt-in
  CUDA_CHECK(cudaMemsetAsync(d_G, 0, sizeof(double) * q * q * m, stream));
  const unsigned blocks = gram_blocks(n);
  const std::size_t pairs = q * (q + 1) / 2;
  // count candidates' per-block partials summed into G (plus base, where given).
  const auto reduce = [&](const double* partial, std::size_t count, const double* base, double* G) {
    const std::size_t entries = count * pairs, warps_per_block = kThreads / 32;
    gram_reduce_kernel<<<static_cast<unsigned>(std::min<std::size_t>((entries + warps_per_block - 1) / warps_per_block, 65535)),
                         kThreads, 0, stream>>>(partial, q, blocks, count, base, G);
    CUDA_CHECK_LAUNCH();
  };
  if (sums_common_rows(q, m)) {
    // The rows every candidate takes, summed once; each candidate's other rows four candidates
    // a block; then each candidate's sum plus the common one.
    const unsigned every = m == kMaskBits ? ~0u : (1u << m) - 1u;
    double* common_partial = d_gram_scratch + m * blocks * pairs;
    double* common_G = common_partial + blocks * pairs;
    const std::size_t shared_bytes = sizeof(double) * detail::tiled_gram_shared_doubles(kThreads, static_cast<int>(q));
    const auto common_kernel = detail::tiled_gram_kernel<kThreads, 1, true, Scalar>;
    selection::cuda::detail::allow_dynamic_shared_memory(common_kernel, shared_bytes);
    common_kernel<<<blocks, kThreads, shared_bytes, stream>>>(d_X, d_y, masks, n, static_cast<int>(q), m, every,
                                                             common_partial);
    CUDA_CHECK_LAUNCH();
    constexpr int kTiledCands = 4;
    const auto own_kernel = detail::tiled_gram_kernel<kThreads, kTiledCands, false, Scalar>;
    selection::cuda::detail::allow_dynamic_shared_memory(own_kernel, shared_bytes);
    own_kernel<<<dim3(blocks, static_cast<unsigned>((m + kTiledCands - 1) / kTiledCands)), kThreads, shared_bytes, stream>>>(
        d_X, d_y, masks, n, static_cast<int>(q), m, every, d_gram_scratch);
    CUDA_CHECK_LAUNCH();
    reduce(common_partial, 1, nullptr, common_G);
    reduce(d_gram_scratch, m, common_G, d_G);
    return;
  }
  const auto launch = [&](auto kernel, std::size_t candidates_per_block) {
    selection::cuda::detail::allow_dynamic_shared_memory(kernel, tile_bytes);
    const std::size_t groups = (m + candidates_per_block - 1) / candidates_per_block;
    // Slices start at a mask word: a multiple of kMaskBits candidates.
    const std::size_t per_slice = kMaxGridY - kMaxGridY % (kMaskBits / candidates_per_block);
    for (std::size_t first_group = 0; first_group < groups; first_group += per_slice) {
      const std::size_t first = first_group * candidates_per_block;
      const auto count = static_cast<unsigned>(std::min(per_slice, groups - first_group));
      kernel<<<dim3(blocks, count), kThreads, tile_bytes, stream>>>(
          d_X, d_y, masks + first / kMaskBits * n, n, p, std::min(m - first, count * candidates_per_block),
          d_gram_scratch + first * blocks * (q * (q + 1) / 2));
      CUDA_CHECK_LAUNCH();
    }
  };
  // Registers: kPairs * (kCands + 1) doubles of sums per thread.
  if (pairs <= kThreads && m <= 8)  // the last finalists: fewer registers, more blocks per SM
    launch(masked_gram_kernel<Scalar, 1, 8>, 8);
  else if (pairs <= kThreads)
    launch(masked_gram_kernel<Scalar, 1, 32>, 32);
  else if (pairs <= 2 * kThreads)
    launch(masked_gram_kernel<Scalar, 2, 16>, 16);
  else if (pairs <= 4 * kThreads)
    launch(masked_gram_kernel<Scalar, 4, 8>, 8);
  else
    launch(masked_gram_kernel<Scalar, 8, 4>, 4);
  reduce(d_gram_scratch, m, nullptr, d_G);
}

#define RF_INSTANTIATE(Scalar)                                                                                    \
  template void h_subset_rows<Scalar>(const Scalar*, std::size_t, std::size_t, const Scalar*, const std::int64_t*, \
                                      std::size_t, int*, std::int32_t*, cudaStream_t);                              \
  template void subset_gram<Scalar>(const Scalar*, const Scalar*, const Scalar*, std::size_t, std::size_t,          \
                                    std::size_t, const Scalar*, const std::int64_t*, const std::int64_t*,            \
                                    std::size_t, int*, double*, double*, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
