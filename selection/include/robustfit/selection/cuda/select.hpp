#pragma once
// k-th order statistics on the GPU. Device pointers in, a stream, a reusable Workspace.
// Ranks are 0-based k-th smallest. The input is never modified unless the entry point
// is called *_inplace. float and double are instantiated.
//
// NaN: single-vector and multi-rank entry points throw std::invalid_argument when the
// input holds a NaN. Batched selection writes NaN as the result of a column that holds
// a NaN (checkable by the caller with std::isnan), and never a wrong number.
#include <cstddef>
#include <cuda_runtime_api.h>

#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda {

template <class T>
T kth_smallest(const T* d_values, std::size_t n, std::size_t k, Algorithm algorithm,
               Workspace& workspace, cudaStream_t stream = nullptr);

// May reorder or overwrite d_values (saves the copy that preserving the input costs).
template <class T>
T kth_smallest_inplace(T* d_values, std::size_t n, std::size_t k, Algorithm algorithm,
                       Workspace& workspace, cudaStream_t stream = nullptr);

// Many ranks of one vector (host array `ks`, any order, repeats allowed); results to host `out`.
template <class T>
void kth_smallest_many(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count,
                       T* out, Algorithm algorithm, Workspace& workspace,
                       cudaStream_t stream = nullptr);

// One rank per column of a column-major rows x cols matrix (leading dimension ld >= rows):
// d_out[j] = the k-th smallest of column j. Results stay on the device (d_out has cols entries);
// nothing is synchronised with the host, so it can sit inside a GPU loop.
template <class T>
void kth_smallest_batched(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                          std::size_t k, T* d_out, Algorithm algorithm, Workspace& workspace,
                          cudaStream_t stream = nullptr);

}  // namespace robustfit::selection::cuda
