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
// Constants fitted to the benchmark grid (bench/auto_backend_grid.sh: n = 10^2 ... 10^7, p = 5
// and 10, the default search and 500 subsets, hbk's shape with 65535 subsets) on the 16-core
// H100 machine with the engines of commit 1ab4375 (2026-11-26, bench/results/LTS.md "--backend
// auto"): a search over the four constants for the smallest worst ratio of the chosen backend's
// time to the faster one's; the CPU constant also fits the CPU times at 10^5 and 10^6 (0.28 /
// 0.29 s, 4.2 / 4.2 s predicted / measured). The CUDA times are warm (the bench's median of 3):
// the CUDA context's start (~0.1-0.3 s, once per process) is not in the model.
bool cuda_pays_off(const SearchSize& size, unsigned cpu_threads) {
  constexpr double kCpuCoreSeconds = 2e-8;
  constexpr double kCudaFixed = 0.005, kCudaPerSubset = 8e-6, kCudaPerUnit = 1e-11;
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
