// Orders each query's kept neighbours by (distance, row): a segmented sort by row, then a
// stable segmented sort by distance (rows are unique, so the result is exactly the
// (distance, row) order of the spec, whatever order the atomics appended them in).
// Only the kept lists are sorted (k entries plus ties at the k-th distance), never the data.
#include <cub/device/device_segmented_sort.cuh>

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

}  // namespace

template <class T>
void sort_by_distance_then_row(Row* rows, T* distances, const unsigned* kept, std::size_t m,
                               std::size_t capacity, std::size_t only_longer_than,
                               selection::cuda::Workspace& workspace, std::size_t first_slot,
                               cudaStream_t stream) {
  if (m == 0) return;
  const std::size_t items = m * capacity;
  auto* bounds = workspace.device_as<long long>(first_slot, 2 * m);
  Row* rows_tmp = workspace.device_as<Row>(first_slot + 1, items);
  T* distances_tmp = workspace.device_as<T>(first_slot + 2, items);
  segment_bounds<<<unsigned((m + 255) / 256), 256, 0, stream>>>(kept, m, capacity,
                                                                only_longer_than, bounds,
                                                                bounds + m);
  RF_KNN_CUDA(cudaGetLastError());
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

template void sort_by_distance_then_row<float>(Row*, float*, const unsigned*, std::size_t,
                                               std::size_t, std::size_t,
                                               selection::cuda::Workspace&, std::size_t,
                                               cudaStream_t);
template void sort_by_distance_then_row<double>(Row*, double*, const unsigned*, std::size_t,
                                                std::size_t, std::size_t,
                                                selection::cuda::Workspace&, std::size_t,
                                                cudaStream_t);

}  // namespace robustfit::neighbors::cuda
