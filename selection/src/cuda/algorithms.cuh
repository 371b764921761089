#pragma once
// Internal: one function per selection algorithm, each defined in its own .cu file.
// The dispatch layer (select.cu) validates arguments (n > 0, k < n) and handles NaN policy
// before calling these; each algorithm may assume 0 <= k < n. All are exact.
// Every function leaves the input untouched unless its name says inplace, takes its scratch
// from the Workspace (slots listed below so algorithms can be nested without aliasing),
// and returns the value on the host (synchronising `stream`).
#include <cstddef>
#include <cuda_runtime.h>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

// Workspace slot ranges per algorithm, so that one algorithm may call another
// (e.g. cutting plane finishes with sort_select on its bracket) without aliasing.
enum Slot : std::size_t {
  kSlotDispatch = 0,       // 0..3   dispatch layer (NaN flag, host staging)
  kSlotSort = 4,           // 4..7   sort & choose
  kSlotCuttingPlane = 8,   // 8..11
  kSlotBucket = 12,        // 12..15
  kSlotRadix = 16,         // 16..19
  kSlotSample = 20,        // 20..23
  kSlotMulti = 24,         // 24..31
  kSlotBatched = 32,       // 32..39
  kSlotFloydRivest = 40,   // 40..43
};

template <class T> T sort_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T cutting_plane_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T bucket_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T radix_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T sample_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);
template <class T> T floyd_rivest_select(const T* d_values, std::size_t n, std::size_t k, Workspace&, cudaStream_t);

// Many ranks of one vector (bucketMultiSelect). ks: host array of 0-based ranks; out: host array.
template <class T>
void bucket_multi_select(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count,
                         T* out, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
