#pragma once
// The CUDA backend's FAST-MCD against the CPU backend's on the same data and seed: the same
// subset, flags and exact-fit verdict; the estimates to 1e-9 and distances to 1e-8 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "robustfit/regression/mcd.hpp"

namespace robustfit::testing {

inline void expect_same_mcd(const regression::McdResult& cpu, const regression::McdResult& gpu) {
  EXPECT_EQ(gpu.exact_fit, cpu.exact_fit);
  EXPECT_EQ(gpu.best_subset, cpu.best_subset);
  EXPECT_EQ(gpu.flagged, cpu.flagged);
  EXPECT_NEAR(gpu.log_det, cpu.log_det, 1e-9 * std::max(1.0, std::abs(cpu.log_det)));
  EXPECT_LT((gpu.center - cpu.center).cwiseAbs().maxCoeff(), 1e-9 * (1 + cpu.center.cwiseAbs().maxCoeff()));
  EXPECT_LT((gpu.covariance - cpu.covariance).cwiseAbs().maxCoeff(), 1e-9 * (1 + cpu.covariance.cwiseAbs().maxCoeff()));
  ASSERT_EQ(gpu.distances.size(), cpu.distances.size());
  if (cpu.distances.size() > 0) {
    EXPECT_LT((gpu.distances - cpu.distances).cwiseAbs().maxCoeff(), 1e-8 * (1 + cpu.distances.maxCoeff()));
  }
}

}  // namespace robustfit::testing
