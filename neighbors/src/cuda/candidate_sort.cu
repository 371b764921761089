// Orders each query's kept neighbours by (distance, row), whatever order the atomics appended
// them in. float: ONE segmented sort of 64-bit keys (order-preserving distance bits << 32 | row);
// double (64 distance bits leave no room for the row): a segmented sort by row, then a stable
// one by distance (rows are unique, so the result is exactly the (distance, row) order).
// Only the kept lists are sorted (k entries plus ties at the k-th distance), never the data.
#include <cub/device/device_segmented_sort.cuh>

#include <cstdint>
#include <type_traits>

#include "check.hpp"
#include "kernels.hpp"

namespace robustfit::neighbors::cuda {
namespace {

__global__ void segment_bounds(const unsigned* kept, std::size_t m, std::size_t capacity,
                               std::size_t only_longer_than, long long* begins, long long* ends) {
  const std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= m) return;
  const std::size_t length = kept[q] > only_longer_than ? kept[q] : 0;
  begins[q] = static_cast<long long>(q * capacity);
  ends[q] = static_cast<long long>(q * capacity + length);
}

// float bits -> unsigned with the same order (negatives flipped, positives with the sign bit set).
__device__ __forceinline__ std::uint32_t order_bits(float v) {
  const std::uint32_t b = __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ float from_order_bits(std::uint32_t b) {
  return __uint_as_float((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b);
}

__global__ void pack_keys(const Row* rows, const float* distances, const unsigned* kept,
                          std::size_t capacity, std::size_t only_longer_than,
                          std::uint64_t* keys) {
  const std::size_t q = blockIdx.y;
  const std::size_t length = kept[q] > only_longer_than ? kept[q] : 0;
  for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < length;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t at = q * capacity + j;
    keys[at] = (std::uint64_t(order_bits(distances[at])) << 32) | rows[at];
  }
}

__global__ void unpack_keys(const std::uint64_t* keys, const unsigned* kept,
                            std::size_t capacity, std::size_t only_longer_than, Row* rows,
                            float* distances) {
  const std::size_t q = blockIdx.y;
  const std::size_t length = kept[q] > only_longer_than ? kept[q] : 0;
  for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < length;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t at = q * capacity + j;
    rows[at] = Row(keys[at] & 0xffffffffu);
    distances[at] = from_order_bits(std::uint32_t(keys[at] >> 32));
  }
}

void sort_combined_keys(Row* rows, float* distances, const unsigned* kept, std::size_t m,
                        std::size_t capacity, std::size_t only_longer_than,
                        const long long* bounds, selection::cuda::Workspace& workspace,
                        std::size_t first_slot, cudaStream_t stream) {
  const std::size_t items = m * capacity;
  auto* keys = workspace.device_as<std::uint64_t>(first_slot + 1, items);
  auto* sorted = workspace.device_as<std::uint64_t>(first_slot + 2, items);
  std::size_t blocks = (capacity + 255) / 256;
  const dim3 grid{unsigned(blocks < 64 ? (blocks < 1 ? 1 : blocks) : 64), unsigned(m)};
  pack_keys<<<grid, 256, 0, stream>>>(rows, distances, kept, capacity, only_longer_than, keys);
  RF_KNN_CUDA(cudaGetLastError());
  std::size_t bytes = 0;
  RF_KNN_CUDA(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, keys, sorted,
                                                 static_cast<long long>(items),
                                                 static_cast<long long>(m), bounds, bounds + m,
                                                 stream));
  void* temp = workspace.device(first_slot + 3, bytes);
  RF_KNN_CUDA(cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys, sorted,
                                                 static_cast<long long>(items),
                                                 static_cast<long long>(m), bounds, bounds + m,
                                                 stream));
  unpack_keys<<<grid, 256, 0, stream>>>(sorted, kept, capacity, only_longer_than, rows,
                                        distances);
  RF_KNN_CUDA(cudaGetLastError());
}

}  // namespace

template <class T>
void sort_by_distance_then_row(Row* rows, T* distances, const unsigned* kept, std::size_t m,
                               std::size_t capacity, std::size_t only_longer_than,
                               selection::cuda::Workspace& workspace, std::size_t first_slot,
                               cudaStream_t stream) {
  if (m == 0) return;
  const std::size_t items = m * capacity;
  auto* bounds = workspace.device_as<long long>(first_slot, 2 * m);
  segment_bounds<<<unsigned((m + 255) / 256), 256, 0, stream>>>(kept, m, capacity,
                                                                only_longer_than, bounds,
                                                                bounds + m);
  RF_KNN_CUDA(cudaGetLastError());
  if constexpr (std::is_same_v<T, float>) {
    sort_combined_keys(rows, distances, kept, m, capacity, only_longer_than, bounds, workspace,
                       first_slot, stream);
  } else {
  Row* rows_tmp = workspace.device_as<Row>(first_slot + 1, items);
  T* distances_tmp = workspace.device_as<T>(first_slot + 2, items);
  const auto n_items = static_cast<long long>(items);
  const auto n_segments = static_cast<long long>(m);
  std::size_t bytes_by_row = 0, bytes_by_distance = 0;
  RF_KNN_CUDA(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes_by_row, rows, rows_tmp,
                                                  distances, distances_tmp, n_items, n_segments,
                                                  bounds, bounds + m, stream));
  RF_KNN_CUDA(cub::DeviceSegmentedSort::StableSortPairs(
      nullptr, bytes_by_distance, distances_tmp, distances, rows_tmp, rows, n_items, n_segments,
      bounds, bounds + m, stream));
  void* temp = workspace.device(first_slot + 3, std::max(bytes_by_row, bytes_by_distance));
  RF_KNN_CUDA(cub::DeviceSegmentedSort::SortPairs(temp, bytes_by_row, rows, rows_tmp, distances,
                                                  distances_tmp, n_items, n_segments, bounds,
                                                  bounds + m, stream));
  RF_KNN_CUDA(cub::DeviceSegmentedSort::StableSortPairs(
      temp, bytes_by_distance, distances_tmp, distances, rows_tmp, rows, n_items, n_segments,
      bounds, bounds + m, stream));
  }
}

template void sort_by_distance_then_row<float>(Row*, float*, const unsigned*, std::size_t,
                                               std::size_t, std::size_t,
                                               selection::cuda::Workspace&, std::size_t,
                                               cudaStream_t);
template void sort_by_distance_then_row<double>(Row*, double*, const unsigned*, std::size_t,
                                                std::size_t, std::size_t,
                                                selection::cuda::Workspace&, std::size_t,
                                                cudaStream_t);

}  // namespace robustfit::neighbors::cuda
