#include "backend_cost.hpp"

#include <algorithm>

namespace robustfit::regression::detail {

// Both engines do work proportional to W, the residuals of every candidate on the rows it is
// evaluated on: on all n rows below 600; from 600 rows on, the starts on the nested subsamples
// (at most 1500 rows) and about 300 full-data candidate-steps (the finalists' C-steps):
//   W = p * subsets * n                              (n < 600)
//   W = p * (subsets * min(n, 1500) + 300 * n)       (n >= 600)
// The GPU adds a fixed cost and a cost per candidate (launches and host work per slice of
// candidates) that dominate on small data:
//   CPU:  t = kCpuCoreSeconds * W / threads
//   CUDA: t = kCudaFixed + kCudaPerSubset * subsets + kCudaPerUnit * W
// Constants from the H200 machine (16 CPU threads), issue 10 and bench/results/LTS.md:
//   hbk (n = 75, p = 4), 65535 LTS subsets: CUDA 0.41 s, CPU backend 0.10 s
//     -> kCpuCoreSeconds = 0.10 * 16 / (75 * 4 * 65535) ~ 8e-8, and the GPU's per-subset
//        cost ~ 0.39 s / 65535 ~ 6e-6 s;
//   LTS n = 10^6, p = 11, 500 subsets: CUDA 0.28 s (setup 0.023 s), CPU backend 13.3 s
//     -> kCudaFixed ~ 0.02 s, kCudaPerUnit ~ 0.25 s / 5.5e9 ~ 4e-11 s.
// Checked over the benchmark grid (bench/auto_backend_grid.sh; n = 10^2 ... 10^7, p = 5 and 10,
// the default search and 500 subsets, hbk's shape; 16-core H100 machine, 2026-11-26,
// bench/results/LTS.md "--backend auto"): with W as above auto picks the faster backend
// everywhere but at hbk's shape, a tie within the runs' noise (CPU 0.072-0.098 s, CUDA 0.080 s);
// a search over the four constants found none better, so they stay.
bool cuda_pays_off(const SearchSize& size, unsigned cpu_threads) {
  constexpr double kCpuCoreSeconds = 8e-8;
  constexpr double kCudaFixed = 0.02, kCudaPerSubset = 6e-6, kCudaPerUnit = 4e-11;
  constexpr std::size_t kNestedFrom = 600, kNestedRows = 1500, kFullDataSteps = 300;
  const auto n = static_cast<double>(size.n), p = static_cast<double>(size.p), subsets = static_cast<double>(size.subsets);
  const double work = size.n < kNestedFrom
                          ? p * subsets * n
                          : p * (subsets * static_cast<double>(std::min(size.n, kNestedRows)) + kFullDataSteps * n);
  const double cpu = kCpuCoreSeconds * work / static_cast<double>(std::max(cpu_threads, 1u));
  const double cuda = kCudaFixed + kCudaPerSubset * subsets + kCudaPerUnit * work;
  return cuda < cpu;
}

}  // namespace robustfit::regression::detail
