#pragma once
// Internal: one function per selection algorithm, each defined in its own .cu file.
// The dispatch layer (select.cu) validates arguments (n > 0, k < n) and handles NaN policy
// before calling these; each algorithm may assume 0 <= k < n. All are exact.
// Every function leaves the input untouched unless its name says inplace, takes its scratch
// from the Workspace (named slots, workspace_slots.cuh, so algorithms can be nested without
// aliasing), and returns the value on the host (synchronising `stream`). The module's own
// algorithms (cutting plane, radix, Floyd–Rivest) are called through their checked variants
// (checked_select.cuh); sort_select also finishes cutting plane.
#include <cstddef>
#include <cuda_runtime.h>

#include "robustfit/selection/cuda/workspace.hpp"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {

template <class T> T sort_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T bucket_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T sample_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);

// Many ranks of one vector (bucketMultiSelect). ks: host array of 0-based ranks; out: host array.
template <class T>
void bucket_multi_select(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count,
                         T* out, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
