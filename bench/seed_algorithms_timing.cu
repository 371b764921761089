// Quick timing of the papers' algorithms (bucketSelect, SampleSelect, bucketMultiSelect) against
// sort&choose and the one-read-pass floor (cub::DeviceReduce), on the H200.
// Median/min/max of 10 timed runs after one warm-up, CUDA events around each (synchronising)
// call; k = n/2; multi-select asks for the 101 percentiles. Inputs are not rotated, so the
// 2^24-float case (64 MB) sits near the 60 MB L2: read that row with care.
// Usage: bench_seed_algorithms_timing [log2 sizes...]   (default: 24 26)
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../selection/src/cuda/algorithms.cuh"
#include "../selection/src/cuda/cuda_check.cuh"
#include "robustfit/data/distributions.hpp"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using robustfit::data::Distribution;

constexpr int kRuns = 10;

struct Timing { float median, min, max; };

Timing time_it(const std::function<void()>& call) {
  call();  // warm-up (also grows the workspace)
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(kRuns);
  for (auto& t : ms) {
    CUDA_CHECK(cudaEventRecord(start));
    call();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return {ms[kRuns / 2], ms.front(), ms.back()};
}

template <class T>
void run_case(Distribution d, std::size_t n, const char* type) {
  const auto host = robustfit::data::make_distribution<T>(d, n, 42);
  T* values = nullptr;
  T* sum = nullptr;
  CUDA_CHECK(cudaMalloc(&values, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&sum, sizeof(T)));
  CUDA_CHECK(cudaMemcpy(values, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  robustfit::selection::cuda::Workspace workspace;
  std::size_t reduce_bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, reduce_bytes, values, sum, n));
  void* reduce_temp = workspace.device(0, reduce_bytes);
  const std::size_t k = n / 2;
  std::vector<std::size_t> percentiles(101);
  for (std::size_t i = 0; i <= 100; ++i) percentiles[i] = (n - 1) * i / 100;
  std::vector<T> out(101);

  const Timing floor = time_it([&] {
    CUDA_CHECK(cub::DeviceReduce::Sum(reduce_temp, reduce_bytes, values, sum, n));
    CUDA_CHECK(cudaDeviceSynchronize());
  });
  const Timing sort = time_it([&] { detail::sort_select<T>(values, n, k, workspace, nullptr); });
  const Timing bucket = time_it([&] { detail::bucket_select<T>(values, n, k, workspace, nullptr); });
  const Timing sample = time_it([&] { detail::sample_select<T>(values, n, k, workspace, nullptr); });
  const Timing multi = time_it([&] {
    detail::bucket_multi_select<T>(values, n, percentiles.data(), percentiles.size(), out.data(), workspace, nullptr);
  });
  const auto row = [&](const char* name, Timing t) {
    std::printf("%s,%s,%zu,%s,%.4f,%.4f,%.4f,%.2f,%.2f\n", to_string(d).data(), type, n, name, t.median, t.min,
                t.max, t.median / floor.median, sort.median / t.median);
  };
  row("floor_reduce", floor);
  row("sort_select", sort);
  row("bucket_select", bucket);
  row("sample_select", sample);
  row("multi_101_percentiles", multi);
  std::fflush(stdout);
  CUDA_CHECK(cudaFree(values));
  CUDA_CHECK(cudaFree(sum));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log_sizes;
  for (int i = 1; i < argc; ++i) log_sizes.push_back(std::atoi(argv[i]));
  if (log_sizes.empty()) log_sizes = {24, 26};
  std::printf("distribution,type,n,algorithm,median_ms,min_ms,max_ms,time_over_floor,speedup_over_sort\n");
  for (const int log_n : log_sizes)
    for (const Distribution d : {Distribution::uniform, Distribution::normal, Distribution::bucket_killer,
                                 Distribution::two_values_95}) {
      run_case<float>(d, std::size_t{1} << log_n, "float");
      run_case<double>(d, std::size_t{1} << log_n, "double");
    }
  return 0;
}
