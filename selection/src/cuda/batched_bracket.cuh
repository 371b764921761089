#pragma once
// Internal: batched sampled-bracket selection (Algorithm::bracket for kth_smallest_batched): one
// rank per column of a column-major rows x cols matrix in about one read of the matrix; results
// stay on the device, no host synchronisation. A column holding a NaN gets NaN. Design and
// measurements: docs/SELECTION.md, "batched bracket".
#include <cstddef>
#include <cuda_runtime.h>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

// Columns shorter than this go to batched radix (kNN's short columns: there the sample, the
// bookkeeping and the finishing passes cost more than radix's rescans of data that sits in L2).
constexpr std::size_t kBatchedBracketMinRows = 4096;

// Tunables. Tests lower them to force the rare paths: sigmas = 0 (frequent misses: rank k
// outside the bracket), max_capacity = 0 or 1 (the candidate region overflows), min_rows = 1
// (the bracket kernels on tiny columns). Every setting is exact.
struct BatchedBracketParams {
  float sigmas = 3.0f;             // bracket half-width in binomial standard deviations of the sample
  double capacity_factor = 1.5;    // candidate region per column: expected bracket x this + slack
  std::size_t max_capacity = ~std::size_t{0};  // per column, at most this many candidates
  std::size_t min_rows = kBatchedBracketMinRows;  // below: batched radix
};

// d_out[j] = the k-th smallest (0-based) of column j; 0 <= k < rows, ld >= rows, cols >= 1.
template <class T>
void batched_bracket_select(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                            std::size_t k, T* d_out, const BatchedBracketParams&, Workspace&,
                            cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
