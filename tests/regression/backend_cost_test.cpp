// The cost model of --backend auto (regression/src/backend_cost.cpp) against the measurements
// it was built from (H200 machine, 16 CPU threads; issue 10, bench/results/LTS.md).
#include <gtest/gtest.h>

#include "regression/src/backend_cost.hpp"

namespace robustfit::regression::detail {
namespace {

TEST(BackendCost, MeasuredCasesGoToTheFasterBackend) {
  // hbk, 65535 LTS subsets: CUDA 0.41 s, CPU backend 0.10 s.
  EXPECT_FALSE(cuda_pays_off({75, 4, 65535}, 16));
  // n = 10^6, p = 10 (+ intercept), 500 subsets: CUDA 0.28 s, CPU backend 13.3 s.
  EXPECT_TRUE(cuda_pays_off({1000000, 11, 500}, 16));
  EXPECT_TRUE(cuda_pays_off({1000000, 11, 500}, 2));
}

TEST(BackendCost, GridCasesGoToTheFasterBackend) {
  // bench/auto_backend_grid.sh on the 16-core H100 machine (2026-11-26; medians, CPU / CUDA):
  // near the crossover, where the nested subsamples (n >= 600) keep the CPU's work small.
  EXPECT_FALSE(cuda_pays_off({100, 6, 5000}, 16));   // 0.012 / 0.018 s
  EXPECT_FALSE(cuda_pays_off({100, 11, 5000}, 16));  // 0.019 / 0.033 s
  EXPECT_FALSE(cuda_pays_off({100, 6, 500}, 16));    // 0.004 / 0.007 s
  EXPECT_TRUE(cuda_pays_off({1000, 6, 500}, 16));    // 0.010-0.015 / 0.0096 s
  EXPECT_TRUE(cuda_pays_off({1000, 6, 5000}, 16));   // 0.028 / 0.025 s
  EXPECT_TRUE(cuda_pays_off({10000, 11, 500}, 16));  // 0.072 / 0.028 s
  EXPECT_TRUE(cuda_pays_off({100000, 6, 5000}, 16)); // 1.87 / 0.066 s
}

TEST(BackendCost, SmallFitsStayOnTheCpu) {
  EXPECT_FALSE(cuda_pays_off({21, 4, 500}, 2));    // stackloss
  EXPECT_FALSE(cuda_pays_off({75, 4, 500}, 16));   // hbk with the default subsets
  EXPECT_FALSE(cuda_pays_off({100, 11, 500}, 2));
}

TEST(BackendCost, MonotoneInRowsAndInCpuThreads) {
  // Once CUDA pays off it keeps paying off for more rows; more CPU threads never favour CUDA.
  for (const std::size_t subsets : {500, 3000, 65535}) {
    bool paid = false;
    for (std::size_t n = 10; n <= 10000000; n *= 2) {
      const bool now = cuda_pays_off({n, 6, subsets}, 16);
      EXPECT_TRUE(now || !paid) << "n " << n << " subsets " << subsets;
      paid = paid || now;
      EXPECT_TRUE(!cuda_pays_off({n, 6, subsets}, 64) || cuda_pays_off({n, 6, subsets}, 16)) << n;
    }
    EXPECT_TRUE(paid) << subsets;  // a crossover exists
  }
}

}  // namespace
}  // namespace robustfit::regression::detail
