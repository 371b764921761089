#pragma once
// The one place that chooses between the fused direct-distance filter and the GEMM-form filter
// (gemm_filter.hpp). Measured on the H200, m = 2^14, k = 10, commit 10a1951 (bench/results/KNN.md,
// "Filter choice"; filter_* shapes, ms, fused / GEMM):
//   n = 2^18 float:  d = 16: 27.6 / 20.9, 32: 29.8 / 23.8, 64: 50.7 / 31.8, 128: 94.3 / 47.6
//   n = 2^18 double: d = 16: 36.7 / 31.4, 32: 57.4 / 35.8, 64: 98.2 / 42.7, 128: 185.6 / 52.8
//   n = 2^14 float:  d = 16: 8.5 / 5.1, 128: 13.1 / 9.7; double: 12.9 / 7.3, 20.6 / 12.3
// so the GEMM path from d = 16 on, in both precisions and at both sizes. Float below d = 16
// (round 6, commit 8c734b6, TF32 GEMM; fused / GEMM ms): n = 2^14: d = 4: 7.6 / 5.3, 8: 7.6 / 5.3;
// n = 2^18: 4: 25.5 / 23.7, 8: 26.0 / 21.3; but n = 2^20: 4: 33.9 / 106.5, 8: 41.2 / 71.0 (the
// m x n dot block is memory-bound at small d), d = 2: 25.5 / 83.7 at 2^18 (the TF32 widening
// overflows the candidates), and k = 1000 (m = 2^16, n = 2^18, d = 8): 88.5 / 127.0 device-only:
// hence float from d = 4 only for n <= 2^18 and need <= 128. Below that the fused
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
