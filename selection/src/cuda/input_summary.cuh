#pragma once
// Internal: one reduction pass giving min, max and whether a NaN is present. The dispatch
// layer runs it before the algorithms that do not detect NaNs themselves; it also gives the
// k = 0, k = n-1 and min == max shortcuts.
#include <cstddef>
#include <cuda_runtime.h>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

template <class T>
struct InputSummary {
  T min, max;
  bool has_nan;
};

template <class T>
InputSummary<T> summarize_input(const T* d_values, std::size_t n, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
