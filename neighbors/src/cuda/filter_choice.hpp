#pragma once
// The one place that chooses between the fused direct-distance filter and the GEMM-form filter
// (gemm_filter.hpp). Measured on the H200, m = 2^14, k = 10, commit 10a1951 (bench/results/KNN.md,
// "Filter choice"; filter_* shapes, ms, fused / GEMM):
//   n = 2^18 float:  d = 16: 27.6 / 20.9, 32: 29.8 / 23.8, 64: 50.7 / 31.8, 128: 94.3 / 47.6
//   n = 2^18 double: d = 16: 36.7 / 31.4, 32: 57.4 / 35.8, 64: 98.2 / 42.7, 128: 185.6 / 52.8
//   n = 2^14 float:  d = 16: 8.5 / 5.1, 128: 13.1 / 9.7; double: 12.9 / 7.3, 20.6 / 12.3
// so the GEMM path from d = 16 on, in both precisions and at both sizes; below that the fused
// kernel (its cost per pair is ~d, the GEMM path's has a fixed part: the dot-product block's
// memory traffic). Never for manhattan (no GEMM form), nor when the candidates would be a large
// part of the rows (large k against n: the re-check would be a gathered direct pass over most).
#include <cstddef>

#include "kernels.hpp"

namespace robustfit::neighbors::cuda {

constexpr std::size_t kGemmMinFeatures = 16;
constexpr std::size_t kGemmMinFeaturesFloat = 4;        // float, n <= kSmallDGemmMaxRows
constexpr std::size_t kSmallDGemmMaxRows = std::size_t{1} << 18;
constexpr std::size_t kSmallDGemmMaxNeed = 128;

// need: neighbours searched per query (k, or k + 1 under leave-one-out); n training rows;
// single: float precision (measured alike: the same threshold).
inline bool prefer_gemm_filter(Distance metric, std::size_t d, std::size_t need, std::size_t n,
                               bool single) {
  if (metric != Distance::euclidean || 8 * need > n) return false;
  return d >= kGemmMinFeatures || (single && d >= kGemmMinFeaturesFloat && n <= kSmallDGemmMaxRows &&
                                  need <= kSmallDGemmMaxNeed);
}

}  // namespace robustfit::neighbors::cuda
