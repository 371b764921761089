// The CUDA engine's filter choice (neighbors/src/cuda/filter_choice.hpp) is a pure function of
// the call's shape: each case is a shape measured on the H200 (bench/results/KNN.md), and the
// expectation is the filter that was faster there.
#include <gtest/gtest.h>

#include <cstddef>

#include "cuda/filter_choice.hpp"

namespace robustfit::neighbors::cuda {
namespace {

constexpr std::size_t K = 1024;

bool gemm(bool single, std::size_t m, std::size_t n, std::size_t d, std::size_t need, bool euclidean = true) {
  FilterShape s;
  s.euclidean = euclidean;
  s.single = single;
  s.queries = m;
  s.rows = n;
  s.features = d;
  s.need = need;
  return prefer_gemm_filter(s);
}

TEST(KnnFilterChoice, LargeDimensionsTakeTheGemmFilterInBothPrecisions) {
  for (bool single : {true, false}) {
    EXPECT_TRUE(gemm(single, 16 * K, 256 * K, 128, 100)) << single;   // target_d128_k100
    EXPECT_TRUE(gemm(single, 16 * K, 1024 * K, 32, 10)) << single;   // target_d32
    EXPECT_TRUE(gemm(single, 16 * K, 16 * K, 16, 10)) << single;
  }
}

TEST(KnnFilterChoice, SmallTrainingSetsTakeTheGemmFilterFromTwoFeatures) {
  for (bool single : {true, false})
    for (std::size_t d : {2, 4, 8}) EXPECT_TRUE(gemm(single, 16 * K, 16 * K, d, 10)) << single << " d=" << d;
  // Not measured at d = 1: the fused filter.
  EXPECT_FALSE(gemm(true, 16 * K, 16 * K, 1, 10));
  EXPECT_FALSE(gemm(false, 16 * K, 16 * K, 1, 10));
}

TEST(KnnFilterChoice, SmallDimensionsAtLargerNFollowTheMeasurements) {
  // Float from d = 4 up to n = 2^18; double not there (a tie at 2^18, a loss at 2^20).
  EXPECT_TRUE(gemm(true, 16 * K, 256 * K, 8, 10));
  EXPECT_TRUE(gemm(true, 16 * K, 256 * K, 4, 10));
  EXPECT_FALSE(gemm(false, 16 * K, 256 * K, 8, 10));
  EXPECT_FALSE(gemm(true, 16 * K, 256 * K, 2, 10));  // the TF32 widening overflows at d = 2
  EXPECT_FALSE(gemm(false, 16 * K, 64 * K, 8, 10));  // double: n = 2^14 only
  for (bool single : {true, false}) {
    EXPECT_FALSE(gemm(single, 16 * K, 1024 * K, 8, 10)) << single;  // target_5x: memory-bound dots
    EXPECT_FALSE(gemm(single, K, 1024 * K, 2, 100)) << single;      // target_d2_k100
  }
}

TEST(KnnFilterChoice, LargeKFollowsTheMeasurements) {
  // k = 1000 at m = 2^16 (need = n / 262): fused 88.5 vs GEMM 127.0 ms.
  EXPECT_FALSE(gemm(true, 64 * K, 256 * K, 8, 1000));
  EXPECT_FALSE(gemm(false, 64 * K, 256 * K, 8, 1000));
  // k = 16384 at m = 2^12 (need = n / 16): GEMM 34.3 vs fused 52.1 ms, float.
  EXPECT_TRUE(gemm(true, 4 * K, 256 * K, 8, 16384));
  EXPECT_FALSE(gemm(false, 4 * K, 256 * K, 8, 16384));  // double: not measured
  EXPECT_FALSE(gemm(true, 16 * K, 256 * K, 8, 16384));  // beyond the measured m
  EXPECT_FALSE(gemm(true, 4 * K, 256 * K, 2, 16384));   // beyond the measured d
  // The boundary of the large-need rule: need >= n / 64.
  EXPECT_TRUE(gemm(true, 4 * K, 256 * K, 8, 4096));
  EXPECT_FALSE(gemm(true, 4 * K, 256 * K, 8, 4095));
}

TEST(KnnFilterChoice, NeverForManhattanNorWhenCandidatesAreMostRows) {
  for (bool single : {true, false}) {
    EXPECT_FALSE(gemm(single, 16 * K, 256 * K, 128, 100, false)) << single;
    EXPECT_FALSE(gemm(single, 16 * K, 16 * K, 8, 10, false)) << single;
    EXPECT_FALSE(gemm(single, 16 * K, 256 * K, 128, 64 * K)) << single;  // 8 need > n
    EXPECT_FALSE(gemm(single, 4 * K, 256 * K, 8, 32 * K + 1)) << single;
  }
}

}  // namespace
}  // namespace robustfit::neighbors::cuda
