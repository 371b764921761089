#include "backend_cost.hpp"

#include <algorithm>

namespace robustfit::regression::detail {

// Both engines do work proportional to W = n * p * subsets (residuals of every candidate on
// every row, and their order statistics); the GPU adds a fixed cost and a cost per candidate
// (launches and host work per slice of candidates) that dominate on small data:
//   CPU:  t = kCpuCoreSeconds * W / threads
//   CUDA: t = kCudaFixed + kCudaPerSubset * subsets + kCudaPerUnit * W
// Constants from the H200 machine (16 CPU threads), issue 10 and bench/results/LTS.md:
//   hbk (n = 75, p = 4), 65535 LTS subsets: CUDA 0.41 s, CPU backend 0.10 s
//     -> kCpuCoreSeconds = 0.10 * 16 / (75 * 4 * 65535) ~ 8e-8, and the GPU's per-subset
//        cost ~ 0.39 s / 65535 ~ 6e-6 s;
//   LTS n = 10^6, p = 11, 500 subsets: CUDA 0.28 s (setup 0.023 s), CPU backend 13.3 s
//     -> kCudaFixed ~ 0.02 s, kCudaPerUnit ~ 0.25 s / 5.5e9 ~ 4e-11 s.
// The CPU constant of the small case is twice that of the large one (13.3 * 16 / 5.5e9):
// taking it errs towards the GPU near the crossover, where both take well under a second.
// To be re-measured on the H200 over the benchmark grid (n 10^2 ... 10^7) once the GPU engine's
// host overheads shrink (issue 10), and the constants updated here.
bool cuda_pays_off(const SearchSize& size, unsigned cpu_threads) {
  constexpr double kCpuCoreSeconds = 8e-8;
  constexpr double kCudaFixed = 0.02, kCudaPerSubset = 6e-6, kCudaPerUnit = 4e-11;
  const double work = static_cast<double>(size.n) * static_cast<double>(size.p) * static_cast<double>(size.subsets);
  const double cpu = kCpuCoreSeconds * work / static_cast<double>(std::max(cpu_threads, 1u));
  const double cuda = kCudaFixed + kCudaPerSubset * static_cast<double>(size.subsets) + kCudaPerUnit * work;
  return cuda < cpu;
}

}  // namespace robustfit::regression::detail
