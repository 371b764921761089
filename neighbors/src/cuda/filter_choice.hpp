#pragma once
// The one place that chooses between the fused direct-distance filter and the GEMM-form filter
// (gemm_filter.hpp). A pure function of the call's shape (no CUDA here: the CPU tests check it).
// Measured on the H200 (bench/results/KNN.md, filter_* and k16384 shapes; ms, fused / GEMM):
//   m = 2^14, k = 10, commit 10a1951:
//     n = 2^18 float:  d = 16: 27.6 / 20.9, 32: 29.8 / 23.8, 64: 50.7 / 31.8, 128: 94.3 / 47.6
//     n = 2^18 double: d = 16: 36.7 / 31.4, 32: 57.4 / 35.8, 64: 98.2 / 42.7, 128: 185.6 / 52.8
//     n = 2^14 float:  d = 16: 8.5 / 5.1, 128: 13.1 / 9.7; double: 12.9 / 7.3, 20.6 / 12.3
//   so the GEMM path from d = 16 on, in both precisions and at both sizes.
//   m = 2^14, k = 10, round 6 (commit 8c734b6, TF32 GEMM), below d = 16:
//     n = 2^14 float:  d = 2: 7.8 / 5.6, 4: 7.6 / 5.3, 8: 7.6 / 5.3
//     n = 2^14 double: d = 2: 11.7 / 7.0, 4: 11.8 / 7.1, 8: 11.4 / 7.2
//     n = 2^18 float:  d = 2: 25.5 / 83.7 (the TF32 widening overflows the candidates), 4: 25.5 /
//                      23.7, 8: 26.0 / 21.3; double (round 5): d = 4: 29.4 / 30.5, 8: 31.1 / 30.8
//     n = 2^20 float:  d = 4: 33.9 / 106.5, 8: 41.2 / 71.0 (the m x n dot block is memory-bound
//                      at small d); double d = 2..8: 58-80 / 106
//   so below d = 16: at n <= 2^14 in both precisions (d >= 2), and in float from d = 4 up to
//   n = 2^18, for k up to 128 (k = 1000, m = 2^16, n = 2^18, d = 8: 88.5 / 127.0 device-only).
//   Large k against n, round 6: k = 16384, m = 2^12, n = 2^18, d = 8, float: 52.1 / 34.3
//   device-only (need = n / 16), while k = 1000 (need = n / 262) at m = 2^16 loses (above):
//   float takes it from need >= n / 64, at m <= 2^12 and d >= 4 (the measured m and d, as the
//   TF32 widening at d = 2 above; double not measured yet).
// Never for manhattan (no GEMM form), nor when the candidates would be a large part of the rows
// (8 need > n: the re-check would be a gathered direct pass over most of them).
#include <cstddef>

namespace robustfit::neighbors::cuda {

constexpr std::size_t kGemmMinFeatures = 16;       // both precisions, any n
constexpr std::size_t kSmallRows = std::size_t{1} << 14;
constexpr std::size_t kSmallRowsMinFeatures = 2;   // n <= kSmallRows, both precisions
constexpr std::size_t kGemmMinFeaturesFloat = 4;   // float, n <= kFloatSmallDMaxRows
constexpr std::size_t kFloatSmallDMaxRows = std::size_t{1} << 18;
constexpr std::size_t kSmallDGemmMaxNeed = 128;    // both small-d rules
constexpr std::size_t kLargeNeedRowsPerNeed = 64;  // float: need >= n / 64 ...
constexpr std::size_t kLargeNeedMaxQueries = std::size_t{1} << 12;  // ... at m <= 2^12

struct FilterShape {
  bool euclidean = true;
  bool single = false;    // float precision
  std::size_t queries = 0;  // m of the call
  std::size_t rows = 0;     // n training rows
  std::size_t features = 0;  // d
  std::size_t need = 0;     // neighbours searched per query (k, or k + 1 under leave-one-out)
};

constexpr bool prefer_gemm_filter(const FilterShape& s) {
  if (!s.euclidean || 8 * s.need > s.rows) return false;
  if (s.features >= kGemmMinFeatures) return true;
  if (s.need <= kSmallDGemmMaxNeed) {
    if (s.rows <= kSmallRows && s.features >= kSmallRowsMinFeatures) return true;
    if (s.single && s.features >= kGemmMinFeaturesFloat && s.rows <= kFloatSmallDMaxRows) return true;
  }
  return s.single && s.features >= kGemmMinFeaturesFloat && s.need * kLargeNeedRowsPerNeed >= s.rows &&
         s.queries <= kLargeNeedMaxQueries;
}

}  // namespace robustfit::neighbors::cuda
