#pragma once
// Internal: the two batched selection variants behind kth_smallest_batched (one rank per
// column of a column-major rows x cols matrix; results stay on the device; no host sync).
// A column holding a NaN gets NaN as its result.
#include <cstddef>
#include <cuda_runtime.h>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

// Batched MSD radix select: every column in the same kernels (per-column histograms).
template <class T>
void batched_radix_select(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                          std::size_t k, T* d_out, Workspace&, cudaStream_t);

// Reference: cub::DeviceSegmentedSort of every column, then a gather of row k.
template <class T>
void batched_sort_select(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                         std::size_t k, T* d_out, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
