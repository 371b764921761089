// The cost model of --backend auto (regression/src/backend_cost.cpp) against the measurements
// it was built from (16 CPU threads; issue 10, bench/results/LTS.md "--backend auto").
#include <gtest/gtest.h>

#include "regression/src/backend_cost.hpp"

namespace robustfit::regression::detail {
namespace {

TEST(BackendCost, MeasuredCasesGoToTheFasterBackend) {
  // hbk, 65535 LTS subsets: CUDA 0.41 s, CPU backend 0.10 s (H200 machine); 0.16 / 0.08 s on
  // the H100 machine's grid.
  EXPECT_FALSE(cuda_pays_off({75, 4, 65535}, 16));
  // n = 10^6, p = 10 (+ intercept), 500 subsets: CUDA 0.28 s, CPU backend 13.3 s.
  EXPECT_TRUE(cuda_pays_off({1000000, 11, 500}, 16));
  EXPECT_TRUE(cuda_pays_off({1000000, 11, 500}, 2));
}

TEST(BackendCost, GridCasesGoToTheFasterBackend) {
  // bench/auto_backend_grid.sh on the 16-core H100 machine, engines of 1ab4375 (2026-11-26;
  // medians of 3, CPU / CUDA): near the crossover, where the nested subsamples (n >= 600) keep
  // the CPU's work small.
  EXPECT_FALSE(cuda_pays_off({100, 6, 5000}, 16));   // 0.014 / 0.015 s
  EXPECT_FALSE(cuda_pays_off({100, 11, 5000}, 16));  // 0.017 / 0.079 s
  EXPECT_FALSE(cuda_pays_off({100, 6, 500}, 16));    // 0.004 / 0.008 s
  EXPECT_FALSE(cuda_pays_off({1000, 6, 500}, 16));   // 0.0075 / 0.011 s
  EXPECT_FALSE(cuda_pays_off({1000, 6, 5000}, 16));  // 0.021 / 0.036 s
  EXPECT_TRUE(cuda_pays_off({10000, 6, 500}, 16));   // 0.037 / 0.020 s
  EXPECT_TRUE(cuda_pays_off({10000, 11, 5000}, 16)); // 0.115 / 0.062 s
  EXPECT_TRUE(cuda_pays_off({100000, 6, 5000}, 16)); // 0.29 / 0.12 s
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
