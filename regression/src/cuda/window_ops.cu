// LMS intercept adjustment on the GPU: sort each candidate's residuals, then the shortest
// window of h consecutive values per column.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "device_ops.hpp"
#include "status.hpp"

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

// One block per column of sorted values.
__global__ void shortest_window_kernel(const double* sorted, std::size_t n, std::size_t h, double* center, double* half) {
  using Reduce = cub::BlockReduce<Window, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const double* column = sorted + blockIdx.x * n;
  Window best{INFINITY, -1};
  for (std::size_t s = threadIdx.x; s + h <= n; s += blockDim.x) {
    const double width = (column[s + h - 1] - column[s]) / 2;  // the half width, as the CPU engine
    if (width < best.width) best = {width, static_cast<long long>(s)};
  }
  const Window found = Reduce(storage).Reduce(best, NarrowestFirst{});
  if (threadIdx.x == 0) {
    center[blockIdx.x] = column[found.start] + found.width;
    half[blockIdx.x] = found.width;
  }
}

struct ColumnOffset {
  std::size_t n;
  __host__ __device__ std::size_t operator()(std::size_t j) const { return j * n; }
};

auto offsets(std::size_t n) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), ColumnOffset{n});
}

}  // namespace

void shortest_windows(const double* d_sorted, std::size_t n, std::size_t m, std::size_t h, double* d_center,
                      double* d_half, cudaStream_t stream) {
  shortest_window_kernel<<<static_cast<unsigned>(m), kThreads, 0, stream>>>(d_sorted, n, h, d_center, d_half);
  RF_CUDA(cudaGetLastError());
}

std::size_t sort_columns_temp_bytes(std::size_t n, std::size_t m) {
  std::size_t bytes = 0;
  RF_CUDA(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, static_cast<const double*>(nullptr),
                                             static_cast<double*>(nullptr), static_cast<long long>(n * m),
                                             static_cast<long long>(m), offsets(n), offsets(n) + 1));
  return bytes;
}

void sort_columns(const double* d_in, double* d_out, std::size_t n, std::size_t m, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
  RF_CUDA(cub::DeviceSegmentedSort::SortKeys(d_temp, temp_bytes, d_in, d_out, static_cast<long long>(n * m),
                                             static_cast<long long>(m), offsets(n), offsets(n) + 1, stream));
}

}  // namespace robustfit::regression::cuda
