// LMS intercept adjustment on the GPU: sort each candidate's residuals, then the shortest
// window of h consecutive values per column; and bounds on that window without a sort (a
// sample's window, then one histogram pass), so that only the candidates that can matter are
// sorted (cuda_engine.cpp).
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <climits>
#include <cmath>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "device_ops.hpp"
#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::regression::cuda {

namespace {

constexpr int kThreads = 256;

struct Window {
  double width;
  long long start;
};

struct NarrowestFirst {
  __device__ Window operator()(const Window& a, const Window& b) const {
    if (a.width < b.width) return a;
    if (b.width < a.width) return b;
    return a.start <= b.start ? a : b;
  }
};

// One block per column of sorted values; widths and the center in double.
template <class Scalar>
__global__ void shortest_window_kernel(const Scalar* sorted, std::size_t n, std::size_t h, double* center, double* half) {
  using Reduce = cub::BlockReduce<Window, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const Scalar* column = sorted + blockIdx.x * n;
  Window best{INFINITY, -1};
  for (std::size_t s = threadIdx.x; s + h <= n; s += blockDim.x) {
    // The half width, as the CPU engine (in double whatever Scalar is).
    const double width = (static_cast<double>(column[s + h - 1]) - static_cast<double>(column[s])) / 2;
    if (width < best.width) best = {width, static_cast<long long>(s)};
  }
  const Window found = Reduce(storage).Reduce(best, NarrowestFirst{});
  if (threadIdx.x == 0) {
    center[blockIdx.x] = static_cast<double>(column[found.start]) + found.width;
    half[blockIdx.x] = found.width;
  }
}

// ---- Bounds on the shortest window, without sorting (window_bounds) ----
//
// Per column: (1) a regular sample of kSample values is sorted in one block and its shortest
// window of q sample values gives [a, b], values of the column; (2) one pass over the column
// counts the values in [a, b] and bins those in [lo, hi] = [a - (b - a), b + (b - a)] (widened
// by a rounding slack) into kWindowBins bins; (3) from the bins, k = the fewest consecutive
// bins that hold h values. When [a, b] holds at least `cover` = max(h, n + 1 - h) values, a
// window of h consecutive sorted values inside it bounds the shortest from above, and the
// shortest window (h rows) shares a row with it (h + cover > n), so it lies within
// [a - (b - a), b + (b - a)] (its width is at most b - a): it spans at least k
// bins (bin indices grow with the value), so its width is at least (k - 2) bin widths; and the
// k bins' values are a run of at least h consecutive sorted values at most k bin widths wide.
// Bin edges carry rounding: a value in bin j lies within eps = 1e-12 (hi - lo) of
// [lo + j w, lo + (j + 1) w] (the error of (v - lo) * (kWindowBins / (hi - lo)) is ~3 ulp of
// kWindowBins w), so the bounds use (k - 2) w - 2 eps and k w + 2 eps, and the squares are
// scaled by 1 -+ 1e-9 for the rounding of the exact evaluation itself (a difference of two
// values halved and squared, monotone in the exact difference). Columns whose sample window
// fails (fewer than h values in [a, b], a zero or non-finite width) get lower 0, upper infinity.
constexpr int kSampleThreads = 256;
constexpr int kSampleItems = 8;
constexpr int kSample = kSampleThreads * kSampleItems;
constexpr int kHistThreads = 512;
constexpr std::size_t kHistRows = std::size_t{1} << 18;
constexpr int kBoundThreads = 256;
constexpr int kBinsPerThread = kWindowBins / kBoundThreads;
static_assert(kWindowBins % kBoundThreads == 0, "whole bins per thread");

// range: per column {a, b, lo, hi}; hi == lo marks a column without bounds.
template <class Scalar>
__global__ void sample_window_kernel(const Scalar* R, std::size_t n, std::size_t q, double* range) {
  using Sort = cub::BlockRadixSort<double, kSampleThreads, kSampleItems>;
  using Reduce = cub::BlockReduce<Window, kSampleThreads>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Reduce::TempStorage reduce;
  } storage;
  __shared__ double sample[kSample];
  const Scalar* column = R + static_cast<std::size_t>(blockIdx.x) * n;
  double keys[kSampleItems];
  for (int i = 0; i < kSampleItems; ++i) {
    const std::size_t k = static_cast<std::size_t>(threadIdx.x) * kSampleItems + i;
    keys[i] = static_cast<double>(column[k * n / kSample]);
  }
  Sort(storage.sort).Sort(keys);
  for (int i = 0; i < kSampleItems; ++i) sample[threadIdx.x * kSampleItems + i] = keys[i];
  __syncthreads();
  Window best{INFINITY, -1};
  for (std::size_t s = threadIdx.x; s + q <= kSample; s += blockDim.x) {
    const double width = sample[s + q - 1] - sample[s];
    if (width < best.width) best = {width, static_cast<long long>(s)};
  }
  const Window found = Reduce(storage.reduce).Reduce(best, NarrowestFirst{});
  if (threadIdx.x != 0) return;
  double* out = range + 4 * static_cast<std::size_t>(blockIdx.x);
  out[0] = out[1] = out[2] = out[3] = 0;
  if (found.start < 0) return;
  const double a = sample[found.start], b = sample[found.start + q - 1], w0 = b - a;
  if (!(w0 > 0) || !isfinite(w0)) return;
  const double slack = 1e-12 * (fabs(a) + fabs(b) + w0);  // far above the rounding of a - w0
  const double lo = a - w0 - slack, hi = b + w0 + slack;
  if (!(hi > lo) || !isfinite(hi - lo)) return;
  out[0] = a;
  out[1] = b;
  out[2] = lo;
  out[3] = hi;
}

template <class Scalar>
__global__ void window_histogram_kernel(const Scalar* R, std::size_t n, std::size_t first, const double* range,
                                        unsigned* hist, unsigned long long* inside) {
  __shared__ unsigned bins[kWindowBins];
  __shared__ unsigned long long total;
  const std::size_t col = first + blockIdx.y;
  const double* bounds = range + 4 * col;
  const double a = bounds[0], b = bounds[1], lo = bounds[2], hi = bounds[3];
  if (!(hi > lo)) return;  // the whole block
  const double scale = kWindowBins / (hi - lo);
  for (int i = threadIdx.x; i < kWindowBins; i += blockDim.x) bins[i] = 0;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const Scalar* column = R + col * n;
  const std::size_t begin = blockIdx.x * kHistRows, end = min(n, begin + kHistRows);
  unsigned count = 0;
  for (std::size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const double v = static_cast<double>(column[i]);
    count += (v >= a && v <= b) ? 1u : 0u;
    if (v >= lo && v <= hi) {
      const double t = (v - lo) * scale;
      atomicAdd(&bins[t < kWindowBins ? static_cast<int>(t) : kWindowBins - 1], 1u);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) count += __shfl_down_sync(0xffffffffu, count, offset);
  if ((threadIdx.x & 31) == 0 && count) atomicAdd(&total, static_cast<unsigned long long>(count));
  __syncthreads();
  unsigned* out = hist + col * kWindowBins;
  for (int i = threadIdx.x; i < kWindowBins; i += blockDim.x)
    if (bins[i]) atomicAdd(&out[i], bins[i]);
  if (threadIdx.x == 0 && total) atomicAdd(&inside[col], total);
}

struct Fewer {
  __device__ int operator()(int a, int b) const { return a < b ? a : b; }
};

__global__ void window_bounds_kernel(const unsigned* hist, const unsigned long long* inside, const double* range,
                                     std::size_t h, std::size_t cover, double* lower, double* upper) {
  using Scan = cub::BlockScan<unsigned long long, kBoundThreads>;
  using Reduce = cub::BlockReduce<int, kBoundThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } storage;
  __shared__ unsigned long long prefix[kWindowBins + 1];  // prefix[j]: values in bins below j
  const std::size_t col = blockIdx.x;
  const double* bounds = range + 4 * col;
  const double a = bounds[0], b = bounds[1], lo = bounds[2], hi = bounds[3];
  if (!(hi > lo) || inside[col] < cover) {  // the whole block
    if (threadIdx.x == 0) {
      lower[col] = 0;
      upper[col] = INFINITY;
    }
    return;
  }
  unsigned long long counts[kBinsPerThread];
  const unsigned* column = hist + col * kWindowBins;
  for (int i = 0; i < kBinsPerThread; ++i) counts[i] = column[threadIdx.x * kBinsPerThread + i];
  unsigned long long all = 0;
  Scan(storage.scan).ExclusiveSum(counts, counts, all);
  for (int i = 0; i < kBinsPerThread; ++i) prefix[threadIdx.x * kBinsPerThread + i] = counts[i];
  if (threadIdx.x == 0) prefix[kWindowBins] = all;
  __syncthreads();
  int fewest = INT_MAX;  // bins s .. e - 1 hold h values: e - s bins
  for (int s = threadIdx.x; s < kWindowBins; s += blockDim.x) {
    const unsigned long long target = prefix[s] + h;
    if (prefix[kWindowBins] < target) break;  // prefix grows with s
    int low = s + 1, high = kWindowBins;       // the first e with prefix[e] >= target
    while (low < high) {
      const int mid = (low + high) / 2;
      if (prefix[mid] >= target) high = mid; else low = mid + 1;
    }
    fewest = min(fewest, low - s);
  }
  __syncthreads();  // prefix's readers are done with the union's scan storage too
  const int k = Reduce(storage.reduce).Reduce(fewest, Fewer{});
  if (threadIdx.x != 0) return;
  double low_bound = 0, high_bound = INFINITY;
  if (k != INT_MAX) {
    const double span = hi - lo, width = 1 / (kWindowBins / span), eps = 1e-12 * span;
    const double half = (b - a) / 2;  // [a, b] holds h values: the exact evaluation's own arithmetic
    const double bins_half = (k * width + 2 * eps) / 2;
    high_bound = fmin(half * half, bins_half * bins_half * (1 + 1e-9));
    const double least = (k - 2) * width - 2 * eps;
    if (least > 0) low_bound = (least / 2) * (least / 2) * (1 - 1e-9);
  }
  if (!isfinite(high_bound) || !(low_bound <= high_bound)) {
    low_bound = 0;
    high_bound = INFINITY;
  }
  lower[col] = low_bound;
  upper[col] = high_bound;
}

struct ColumnOffset {
  std::size_t n;
  __host__ __device__ std::size_t operator()(std::size_t j) const { return j * n; }
};

auto offsets(std::size_t n) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), ColumnOffset{n});
}

}  // namespace

template <class Scalar>
void shortest_windows(const Scalar* d_sorted, std::size_t n, std::size_t m, std::size_t h, double* d_center,
                      double* d_half, cudaStream_t stream) {
  shortest_window_kernel<<<static_cast<unsigned>(m), kThreads, 0, stream>>>(d_sorted, n, h, d_center, d_half);
  CUDA_CHECK_LAUNCH();
}

template <class Scalar>
std::size_t sort_columns_temp_bytes(std::size_t n, std::size_t m) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, static_cast<const Scalar*>(nullptr),
                                             static_cast<Scalar*>(nullptr), static_cast<long long>(n * m),
                                             static_cast<long long>(m), offsets(n), offsets(n) + 1));
  return bytes;
}

template <class Scalar>
void sort_columns(const Scalar* d_in, Scalar* d_out, std::size_t n, std::size_t m, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
  CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(d_temp, temp_bytes, d_in, d_out, static_cast<long long>(n * m),
                                             static_cast<long long>(m), offsets(n), offsets(n) + 1, stream));
}

std::size_t window_sample_size() { return kSample; }

std::size_t window_cover(std::size_t n, std::size_t h) { return std::max(h, n + 1 - h); }

std::size_t window_sample_span(std::size_t n, std::size_t h) {
  // The sample's share cover / n of the sample and five standard deviations of that share's
  // count more, so that the window nearly always holds `cover` rows (when it does not, the
  // column gets no bounds and is evaluated exactly: correct, only slower).
  const double s = kSample, f = static_cast<double>(window_cover(n, h)) / static_cast<double>(n);
  const double q = std::ceil(s * f + 5 * std::sqrt(s * f * (1 - f))) + 1;
  return static_cast<std::size_t>(std::min(std::max(q, 2.0), s));
}

template <class Scalar>
void window_bounds(const Scalar* d_R, std::size_t n, std::size_t m, std::size_t h, std::size_t q, double* d_range,
                   unsigned* d_hist, unsigned long long* d_inside, double* d_lower, double* d_upper,
                   cudaStream_t stream) {
  if (m == 0) return;
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, sizeof(unsigned) * kWindowBins * m, stream));
  CUDA_CHECK(cudaMemsetAsync(d_inside, 0, sizeof(unsigned long long) * m, stream));
  sample_window_kernel<<<static_cast<unsigned>(m), kSampleThreads, 0, stream>>>(d_R, n, q, d_range);
  CUDA_CHECK_LAUNCH();
  const auto chunks = static_cast<unsigned>((n + kHistRows - 1) / kHistRows);
  for_column_slices(m, [&](std::size_t first, unsigned count) {
    window_histogram_kernel<<<dim3(chunks, count), kHistThreads, 0, stream>>>(d_R, n, first, d_range, d_hist,
                                                                             d_inside);
    CUDA_CHECK_LAUNCH();
  });
  window_bounds_kernel<<<static_cast<unsigned>(m), kBoundThreads, 0, stream>>>(d_hist, d_inside, d_range, h,
                                                                               window_cover(n, h), d_lower, d_upper);
  CUDA_CHECK_LAUNCH();
}

template <class Scalar>
std::size_t sort_column_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const Scalar*>(nullptr),
                                            static_cast<Scalar*>(nullptr), static_cast<std::int64_t>(n)));
  return bytes;
}

template <class Scalar>
void sort_column(const Scalar* d_in, Scalar* d_out, std::size_t n, void* d_temp, std::size_t temp_bytes,
                 cudaStream_t stream) {
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_out, static_cast<std::int64_t>(n), 0,
                                            static_cast<int>(sizeof(Scalar) * 8), stream));
}

#define RF_INSTANTIATE(Scalar)                                                                                   \
  template void shortest_windows<Scalar>(const Scalar*, std::size_t, std::size_t, std::size_t, double*, double*,  \
                                         cudaStream_t);                                                            \
  template std::size_t sort_columns_temp_bytes<Scalar>(std::size_t, std::size_t);                                 \
  template void sort_columns<Scalar>(const Scalar*, Scalar*, std::size_t, std::size_t, void*, std::size_t, cudaStream_t); \
  template void window_bounds<Scalar>(const Scalar*, std::size_t, std::size_t, std::size_t, std::size_t, double*,    \
                                      unsigned*, unsigned long long*, double*, double*, cudaStream_t);              \
  template std::size_t sort_column_temp_bytes<Scalar>(std::size_t);                                               \
  template void sort_column<Scalar>(const Scalar*, Scalar*, std::size_t, void*, std::size_t, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
