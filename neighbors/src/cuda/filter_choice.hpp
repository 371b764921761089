#pragma once
// The one place that chooses between the fused direct-distance filter and the GEMM-form filter
// (gemm_filter.hpp). Measured on the H200 (bench/results/KNN.md, "Filter choice"): the fused
// kernel costs ~0.17 ps per pair and feature in float; the GEMM path ~0.06 ps per pair and
// feature (cuBLAS) plus ~2 ps per pair of memory traffic for the dot-product block (4 bytes
// written and read; 8 in double) plus the direct re-check of the candidates (d per candidate,
// gathered). Hence the GEMM path wins from a few tens of features on, never for manhattan (no
// GEMM form), and not when the candidates are a large part of the rows (large k against n:
// the re-check would be a gathered direct pass over most rows).
#include <cstddef>

#include "kernels.hpp"

namespace robustfit::neighbors::cuda {

constexpr std::size_t kGemmFilterMinFeatures = 48;

// need: neighbours searched per query (k, or k + 1 under leave-one-out); n training rows.
inline bool prefer_gemm_filter(Distance metric, std::size_t d, std::size_t need, std::size_t n) {
  return metric == Distance::euclidean && d >= kGemmFilterMinFeatures && 8 * need <= n;
}

}  // namespace robustfit::neighbors::cuda
