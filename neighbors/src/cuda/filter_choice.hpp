#pragma once
// The one place that chooses between the fused direct-distance filter and the GEMM-form filter
// (gemm_filter.hpp). Measured on the H200 at m = 2^14, n = 2^18, k = 10 (bench/results/KNN.md,
// "Filter choice", filter_* shapes): float: fused 29.5 / 39.8 / 50.8 / 94.2 ms at d = 32 / 48 /
// 64 / 128 against GEMM 35.9 / 39.9 / 48.8 / 72.7; double: fused 57.1 / 78.1 / 98.0 / 184.3
// against GEMM 47.8 / 52.6 / 59.4 / 76.6 (d = 16: fused wins in both). The fused kernel costs
// per pair and feature; the GEMM path per pair ~(cuBLAS + 4 or 8 bytes of dot-product traffic)
// plus a direct re-check of each candidate, so it needs enough features to win, and enough
// rows per candidate (the re-check is a gathered direct pass over the candidates; candidates
// are at least 512 per query, so at n < 2^15 it is not worth it). Never for manhattan.
#include <cstddef>

#include "kernels.hpp"

namespace robustfit::neighbors::cuda {

constexpr std::size_t kGemmMinFeaturesFloat = 56;
constexpr std::size_t kGemmMinFeaturesDouble = 24;
constexpr std::size_t kGemmMinRows = std::size_t{1} << 15;

// need: neighbours searched per query (k, or k + 1 under leave-one-out); n training rows;
// single: float precision.
inline bool prefer_gemm_filter(Distance metric, std::size_t d, std::size_t need, std::size_t n,
                               bool single) {
  const std::size_t min_features = single ? kGemmMinFeaturesFloat : kGemmMinFeaturesDouble;
  return metric == Distance::euclidean && d >= min_features && n >= kGemmMinRows && 8 * need <= n;
}

}  // namespace robustfit::neighbors::cuda
