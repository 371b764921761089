#pragma once
// A device pass of the distributed engine's CUDA passes (cuda_local_passes.cpp): for each column
// j of an n x m matrix of squares and its threshold t_j, #{v < t_j}, #{v == t_j} and the sum of
// the v < t_j (double, in a fixed order: per chunk of rows, then the chunks in order).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace robustfit::regression::cuda {

// The doubles of scratch below_counts needs.
std::size_t below_counts_scratch(std::size_t n, std::size_t m);

// d_out: 3 m doubles, column j's (below, ties, sum) at 3 j (counts exact below 2^53). n >= 1.
void below_counts(const double* d_R2, std::size_t n, std::size_t m, const double* d_t, double* d_scratch, double* d_out,
                  cudaStream_t stream);

}  // namespace robustfit::regression::cuda
