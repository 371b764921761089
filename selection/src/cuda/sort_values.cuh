#pragma once
// CUB radix sort of n values from `in` into `out`, its scratch taken from a workspace slot: the
// finishing sort of several algorithms (sort&choose, and the fallbacks of bucketSelect,
// SampleSelect and bucketMultiSelect). Device code: include from .cu only.
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>

#include "cuda_check.cuh"
#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

template <class T>
void sort_values(const T* in, T* out, std::size_t n, Workspace& workspace, std::size_t temp_slot, cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, n, 0, static_cast<int>(sizeof(T) * 8), stream));
  void* temp = workspace.device(temp_slot, temp_bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, n, 0, static_cast<int>(sizeof(T) * 8), stream));
}

}  // namespace robustfit::selection::cuda::detail
