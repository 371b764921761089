// Sort & choose: the baseline. cub::DeviceRadixSort sorts a copy of the input (or the input
// itself for the in-place entry) and the k-th element is read back. NaN detection is free:
// radix order puts positive NaNs last and negative NaNs first, so the ends tell.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>

#include "algorithms.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "sort_values.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

// Gathers sorted[0], sorted[k], sorted[n-1] so one copy brings all three to the host.
template <class T>
__global__ void pick_ends_and_kth(const T* sorted, std::size_t n, std::size_t k, T* out) {
  out[0] = sorted[0];
  out[1] = sorted[k];
  out[2] = sorted[n - 1];
}

// out = {sorted[0], sorted[n-1], sorted[ks[0]], sorted[ks[1]], ...}.
template <class T>
__global__ void pick_ends_and_ranks(const T* sorted, std::size_t n, const std::size_t* ks,
                                    std::size_t count, T* out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0) {
    out[0] = sorted[0];
    out[1] = sorted[n - 1];
  }
  if (i < count) out[2 + i] = sorted[ks[i]];
}

template <class T>
const T* sort_copy(const T* d_values, std::size_t n, Workspace& workspace, cudaStream_t stream) {
  T* d_sorted = workspace.device_as<T>(kSortSorted, n);
  sort_values(d_values, d_sorted, n, workspace, kSortTemp, stream);
  return d_sorted;
}

template <class T>
Checked<T> read_back(const T* sorted, std::size_t n, std::size_t k, Workspace& workspace,
                     cudaStream_t stream) {
  T* d_picked = workspace.device_as<T>(kSortPicked, 3);
  T* h_picked = workspace.host_as<T>(kSortPicked, 3);
  pick_ends_and_kth<<<1, 1, 0, stream>>>(sorted, n, k, d_picked);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_picked, d_picked, 3 * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return {h_picked[1], std::isnan(h_picked[0]) || std::isnan(h_picked[2])};
}

}  // namespace

template <class T>
Checked<T> sort_select_checked(const T* d_values, std::size_t n, std::size_t k,
                               Workspace& workspace, cudaStream_t stream) {
  return read_back(sort_copy(d_values, n, workspace, stream), n, k, workspace, stream);
}

template <class T>
bool sort_select_many_checked(const T* d_values, std::size_t n, const std::size_t* ks,
                              std::size_t count, T* out, Workspace& workspace,
                              cudaStream_t stream) {
  const T* d_sorted = sort_copy(d_values, n, workspace, stream);
  auto* h_ranks = workspace.host_as<std::size_t>(kSortRanks, count);
  auto* d_ranks = workspace.device_as<std::size_t>(kSortRanks, count);
  std::copy(ks, ks + count, h_ranks);
  CUDA_CHECK(cudaMemcpyAsync(d_ranks, h_ranks, count * sizeof(std::size_t),
                             cudaMemcpyHostToDevice, stream));
  T* d_picked = workspace.device_as<T>(kSortPicked, count + 2);
  T* h_picked = workspace.host_as<T>(kSortPicked, count + 2);
  pick_ends_and_ranks<<<unsigned((count + 255) / 256), 256, 0, stream>>>(d_sorted, n, d_ranks,
                                                                          count, d_picked);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_picked, d_picked, (count + 2) * sizeof(T), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::copy(h_picked + 2, h_picked + 2 + count, out);
  return std::isnan(h_picked[0]) || std::isnan(h_picked[1]);
}

template <class T>
Checked<T> sort_select_inplace_checked(T* d_values, std::size_t n, std::size_t k,
                                       Workspace& workspace, cudaStream_t stream) {
  cub::DoubleBuffer<T> keys(d_values, workspace.device_as<T>(kSortSorted, n));
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, n, 0, int(sizeof(T) * 8),
                                            stream));
  void* d_temp = workspace.device(kSortTemp, temp_bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys, n, 0, int(sizeof(T) * 8),
                                            stream));
  return read_back(keys.Current(), n, k, workspace, stream);
}

template <class T>
T sort_select(const T* d_values, std::size_t n, std::size_t k, Workspace& workspace,
              cudaStream_t stream) {
  return sort_select_checked(d_values, n, k, workspace, stream).value;
}

#define ROBUSTFIT_INSTANTIATE(T)                                                             \
  template Checked<T> sort_select_checked<T>(const T*, std::size_t, std::size_t, Workspace&, \
                                             cudaStream_t);                                  \
  template Checked<T> sort_select_inplace_checked<T>(T*, std::size_t, std::size_t,           \
                                                     Workspace&, cudaStream_t);              \
  template bool sort_select_many_checked<T>(const T*, std::size_t, const std::size_t*,        \
                                            std::size_t, T*, Workspace&, cudaStream_t);      \
  template T sort_select<T>(const T*, std::size_t, std::size_t, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
