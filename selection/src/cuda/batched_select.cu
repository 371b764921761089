// Batched selection: one rank per column, all columns in the same kernels, no host sync.
//
// Radix variant: MSD radix select on order-preserving keys, rescanning each column once per
// digit (no candidate buffers, so memory is O(cols * bins)). Grid = cols x (blocks per
// column); each block histograms its slice of one column in shared memory and adds it to that
// column's global histogram; a find kernel (one block per column) picks the digit holding the
// column's rank. 8-bit digits for short columns (small histograms to clear and scan), 11-bit
// for long ones (fewer passes over the data). The first pass flags columns holding a NaN.
//
// Sort variant (the reference for Algorithm::sort): cub::DeviceSegmentedSort, then a gather.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <cmath>
#include <limits>

#include "algorithms.cuh"
#include "batched_digit.cuh"
#include "batched_select.cuh"
#include "cuda_check.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kPassThreads = 256;
constexpr int kItemsPerThread = 4;
constexpr int kFindThreads = 256;
constexpr std::size_t kLongColumn = std::size_t{1} << 17;  // 11-bit digits from here on


template <class Key>
__global__ void init_columns(Key* prefix, unsigned long long* rank, int* has_nan,
                             std::size_t cols, unsigned long long k) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  prefix[j] = 0;
  rank[j] = k;
  has_nan[j] = 0;
}

template <class T, int kBits, bool kFirst>
__global__ __launch_bounds__(kPassThreads) void batched_pass(
    const T* matrix, std::size_t rows, std::size_t ld, std::size_t rows_per_block,
    const typename KeyTraits<T>::Key* prefix, int prev_shift, int shift, unsigned int* hist,
    int* has_nan) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kBins = 1 << kBits;
  __shared__ unsigned int counts[kBins];
  __shared__ int block_nan;
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) counts[b] = 0;
  if (threadIdx.x == 0) block_nan = 0;
  __syncthreads();

  const std::size_t column = blockIdx.x;  // x: up to 2^31 - 1 columns; y: slices (< 65536)
  const T* values = matrix + column * ld;
  const std::size_t begin = std::size_t(blockIdx.y) * rows_per_block;
  const std::size_t end = begin + rows_per_block < rows ? begin + rows_per_block : rows;
  const Key column_prefix = kFirst ? Key(0) : prefix[column];
  bool nan_seen = false;
  for (std::size_t base = begin + threadIdx.x; base < end;
       base += std::size_t(kPassThreads) * kItemsPerThread) {
    T x[kItemsPerThread];
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      const std::size_t i = base + std::size_t(j) * kPassThreads;
      x[j] = i < end ? values[i] : T(0);
    }
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      if (base + std::size_t(j) * kPassThreads >= end) continue;
      const Key key = KeyTraits<T>::to_key(x[j]);
      if constexpr (kFirst) nan_seen |= (x[j] != x[j]);
      if (kFirst || (key >> prev_shift) == column_prefix)
        atomicAdd(&counts[(key >> shift) & Key(kBins - 1)], 1u);
    }
  }
  if (kFirst && nan_seen) block_nan = 1;
  __syncthreads();
  unsigned int* column_hist = hist + column * kBins;
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (counts[b] != 0) atomicAdd(&column_hist[b], counts[b]);
  if (kFirst && threadIdx.x == 0 && block_nan) has_nan[column] = 1;
}

// One block per column: the bin holding the column's rank extends its prefix; clears the
// column's histogram for the next pass.
template <class Key, int kBits>
__global__ __launch_bounds__(kFindThreads) void batched_find(unsigned int* hist, Key* prefix,
                                                             unsigned long long* rank,
                                                             int width) {
  __shared__ typename DigitScan<kFindThreads>::TempStorage storage;
  const std::size_t column = blockIdx.x;
  Key found;
  find_digit<Key, kBits, kFindThreads>(hist + column * (std::size_t(1) << kBits), prefix + column, rank + column,
                                       width, storage, found);
}

// Many columns, one block each (the multi-pass path above would launch one block per column
// for every pass and every find): the block keeps the column's histogram, prefix and rank in
// shared memory and makes all digit passes in one launch, rescanning its column (which stays in
// L1/L2 between passes). Same digits, same exact answer as the multi-pass path.
template <class T, int kBits>
__global__ __launch_bounds__(kPassThreads) void batched_column_select(
    const T* matrix, std::size_t rows, std::size_t ld, unsigned long long k, T* out) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kKeyBits = KeyTraits<T>::kBits;
  constexpr int kBins = 1 << kBits;
  constexpr int kPerThread = kBins / kPassThreads;
  constexpr int kPasses = (kKeyBits + kBits - 1) / kBits;
  static_assert(kBins % kPassThreads == 0);
  __shared__ unsigned int counts[kBins];
  __shared__ Key shared_prefix;
  __shared__ unsigned long long shared_rank;
  __shared__ int block_nan;
  __shared__ typename DigitScan<kPassThreads>::TempStorage scan_storage;
  const T* values = matrix + std::size_t(blockIdx.x) * ld;
  if (threadIdx.x == 0) {
    shared_prefix = 0;
    shared_rank = k;
    block_nan = 0;
  }
  bool nan_seen = false;
  int prev_shift = kKeyBits;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = kKeyBits - kBits * (pass + 1) > 0 ? kKeyBits - kBits * (pass + 1) : 0;
    for (int b = threadIdx.x; b < kBins; b += kPassThreads) counts[b] = 0;
    __syncthreads();
    const Key prefix = shared_prefix;
    // kItemsPerThread loads in flight per thread (as batched_pass): long columns need them.
    for (std::size_t base = threadIdx.x; base < rows; base += std::size_t(kPassThreads) * kItemsPerThread) {
      T x[kItemsPerThread];
#pragma unroll
      for (int j = 0; j < kItemsPerThread; ++j) {
        const std::size_t i = base + std::size_t(j) * kPassThreads;
        x[j] = i < rows ? values[i] : T(0);
      }
#pragma unroll
      for (int j = 0; j < kItemsPerThread; ++j) {
        if (base + std::size_t(j) * kPassThreads >= rows) continue;
        const Key key = KeyTraits<T>::to_key(x[j]);
        if (pass == 0) nan_seen |= (x[j] != x[j]);
        if (pass == 0 || (key >> prev_shift) == prefix) atomicAdd(&counts[(key >> shift) & Key(kBins - 1)], 1u);
      }
    }
    __syncthreads();
    unsigned int mine[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) mine[j] = counts[threadIdx.x * kPerThread + j];
    unsigned long long rank_in_bin = 0;
    const int bin = bin_of_rank<kBins, kPassThreads>(mine, shared_rank, scan_storage, rank_in_bin);
    __syncthreads();  // every thread has read shared_rank and the counts
    if (bin >= 0) {
      shared_prefix = (prefix << (prev_shift - shift)) | Key(bin);
      shared_rank = rank_in_bin;
    }
    prev_shift = shift;
  }
  if (nan_seen) block_nan = 1;
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = block_nan ? std::numeric_limits<T>::quiet_NaN() : KeyTraits<T>::from_key(shared_prefix);
}

template <class T>
__global__ void write_results(const typename KeyTraits<T>::Key* prefix, const int* has_nan,
                              std::size_t cols, T* out) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  out[j] = has_nan[j] ? std::numeric_limits<T>::quiet_NaN() : KeyTraits<T>::from_key(prefix[j]);
}

template <class T, int kBits>
void batched_radix(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                   std::size_t k, T* d_out, Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kKeyBits = KeyTraits<T>::kBits;
  constexpr int kBins = 1 << kBits;
  constexpr int kPasses = (kKeyBits + kBits - 1) / kBits;
  auto shift_of = [](int pass) { return std::max(kKeyBits - kBits * (pass + 1), 0); };

  // Enough blocks in all to fill the GPU a few times over, each with a whole number of steps.
  const std::size_t step = std::size_t(kPassThreads) * kItemsPerThread;
  const std::size_t wanted_blocks = std::size_t(multiprocessor_count()) * 8;
  std::size_t blocks_per_column = std::max<std::size_t>(1, wanted_blocks / cols);
  blocks_per_column = std::min(blocks_per_column, (rows + step - 1) / step);
  const std::size_t rows_per_block =
      ((rows + blocks_per_column - 1) / blocks_per_column + step - 1) / step * step;
  blocks_per_column = (rows + rows_per_block - 1) / rows_per_block;
  if (blocks_per_column == 1) {  // as many columns as resident blocks, or short ones
    batched_column_select<T, kBits><<<unsigned(cols), kPassThreads, 0, stream>>>(d_matrix, rows, ld, k, d_out);
    CUDA_CHECK_LAUNCH();
    return;
  }
  Key* d_prefix = workspace.device_as<Key>(kBatchedPrefix, cols);
  auto* d_rank = workspace.device_as<unsigned long long>(kBatchedRank, cols);
  int* d_nan = workspace.device_as<int>(kBatchedNanFlags, cols);
  auto* d_hist = workspace.device_as<unsigned int>(kBatchedHistogram, cols * kBins);
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, cols * kBins * sizeof(unsigned int), stream));
  const unsigned small_grid = unsigned((cols + 255) / 256);
  init_columns<Key><<<small_grid, 256, 0, stream>>>(d_prefix, d_rank, d_nan, cols, k);
  CUDA_CHECK_LAUNCH();

  const dim3 grid{unsigned(cols), unsigned(blocks_per_column)};

  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = shift_of(pass);
    const int prev_shift = pass == 0 ? 0 : shift_of(pass - 1);
    if (pass == 0)
      batched_pass<T, kBits, true><<<grid, kPassThreads, 0, stream>>>(
          d_matrix, rows, ld, rows_per_block, d_prefix, prev_shift, shift, d_hist, d_nan);
    else
      batched_pass<T, kBits, false><<<grid, kPassThreads, 0, stream>>>(
          d_matrix, rows, ld, rows_per_block, d_prefix, prev_shift, shift, d_hist, d_nan);
    CUDA_CHECK_LAUNCH();
    const int width = (pass == 0 ? kKeyBits : shift_of(pass - 1)) - shift;
    batched_find<Key, kBits><<<unsigned(cols), kFindThreads, 0, stream>>>(d_hist, d_prefix,
                                                                          d_rank, width);
    CUDA_CHECK_LAUNCH();
  }
  write_results<T><<<small_grid, 256, 0, stream>>>(d_prefix, d_nan, cols, d_out);
  CUDA_CHECK_LAUNCH();
}

__global__ void column_offsets(long long* begins, long long* ends, std::size_t cols,
                               std::size_t rows, std::size_t ld) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  begins[j] = static_cast<long long>(j * ld);
  ends[j] = static_cast<long long>(j * ld + rows);
}

// Radix order puts negative NaNs first and positive NaNs last in each sorted column.
template <class T>
__global__ void gather_row(const T* sorted, std::size_t rows, std::size_t cols, std::size_t ld,
                           std::size_t k, T* out) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  const T* column = sorted + j * ld;
  const bool nan = isnan(column[0]) || isnan(column[rows - 1]);
  out[j] = nan ? std::numeric_limits<T>::quiet_NaN() : column[k];
}

}  // namespace

template <class T>
void batched_radix_select(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                          std::size_t k, T* d_out, Workspace& workspace, cudaStream_t stream) {
  if (rows >= kLongColumn)
    batched_radix<T, 11>(d_matrix, rows, cols, ld, k, d_out, workspace, stream);
  else
    batched_radix<T, 8>(d_matrix, rows, cols, ld, k, d_out, workspace, stream);
}

template <class T>
void batched_sort_select(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                         std::size_t k, T* d_out, Workspace& workspace, cudaStream_t stream) {
  const std::size_t items = (cols - 1) * ld + rows;
  auto* d_offsets = workspace.device_as<long long>(kBatchedOffsets, 2 * cols);
  T* d_sorted = workspace.device_as<T>(kBatchedSorted, items);
  const unsigned small_grid = unsigned((cols + 255) / 256);
  column_offsets<<<small_grid, 256, 0, stream>>>(d_offsets, d_offsets + cols, cols, rows, ld);
  CUDA_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, d_matrix, d_sorted,
                                                (long long)items, (long long)cols, d_offsets,
                                                d_offsets + cols, stream));
  void* d_temp = workspace.device(kBatchedSortTemp, temp_bytes);
  CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(d_temp, temp_bytes, d_matrix, d_sorted,
                                                (long long)items, (long long)cols, d_offsets,
                                                d_offsets + cols, stream));
  gather_row<T><<<small_grid, 256, 0, stream>>>(d_sorted, rows, cols, ld, k, d_out);
  CUDA_CHECK_LAUNCH();
}

#define ROBUSTFIT_INSTANTIATE(T)                                                              \
  template void batched_radix_select<T>(const T*, std::size_t, std::size_t, std::size_t,      \
                                        std::size_t, T*, Workspace&, cudaStream_t);           \
  template void batched_sort_select<T>(const T*, std::size_t, std::size_t, std::size_t,       \
                                       std::size_t, T*, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
