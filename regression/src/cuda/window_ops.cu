// LMS intercept adjustment on the GPU: sort each candidate's residuals, then the shortest
// window of h consecutive values per column.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>
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

#define RF_INSTANTIATE(Scalar)                                                                                   \
  template void shortest_windows<Scalar>(const Scalar*, std::size_t, std::size_t, std::size_t, double*, double*,  \
                                         cudaStream_t);                                                            \
  template std::size_t sort_columns_temp_bytes<Scalar>(std::size_t, std::size_t);                                 \
  template void sort_columns<Scalar>(const Scalar*, Scalar*, std::size_t, std::size_t, void*, std::size_t, cudaStream_t);
RF_INSTANTIATE(float)
RF_INSTANTIATE(double)
#undef RF_INSTANTIATE

}  // namespace robustfit::regression::cuda
