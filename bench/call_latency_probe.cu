// Issue 11, an experiment before changing anything: what a small selection call's fixed cost is
// made of. Radix's one cooperative launch takes 24 us for the median of 2^16 floats and 31 us
// of 2^20 on the H200 (bench/results/selection_sample_draw_h200_2026-12-02, tune-radix), the
// one-pass floor 11 us: the target at 2^20 is 25 us. Each row is a call's pieces alone, timed
// as bench_selection_bench times a call (CUDA events around it, the call's host
// synchronisation inside), median of --runs:
//   events              nothing between the events
//   kernel              an empty kernel
//   kernel+sync         an empty kernel and cudaStreamSynchronize
//   kernel+spin         an empty kernel that sets a flag in pinned memory, the host spinning on it
//   memset+kernel+sync  a 49 KB memset before (radix's counters)
//   coop-G-S            an empty cooperative kernel of G blocks of 512 with S grid.sync()s, + sync
//   read-coop-G-S       the same reading 2^20 floats once first
//   radix-2^L           the library's radix select (median), the call itself (its shared-memory
//                       form since radix_resident.cu; radix_one_launch before)
// Every row on the legacy stream (as the bench) and on a non-blocking stream (-stream).
//
//   bench_call_latency_probe [--runs 300]
#include <cooperative_groups.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "robustfit/selection/cuda/select.hpp"

namespace {

namespace gpu = robustfit::selection::cuda;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

__global__ void empty_kernel() {}

__global__ void flag_kernel(volatile int* flag, int value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *flag = value;
    __threadfence_system();
  }
}

__global__ void coop_kernel(const float* x, std::size_t n, int syncs, float* sink) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  float sum = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    sum += x[i];
  for (int s = 0; s < syncs; ++s) grid.sync();
  if (sum == 12345.f) *sink = sum;  // keeps the read
}

struct Row {
  std::string name;
  double median_us, min_us, host_us;
};

Row time_it(const std::string& name, int runs, cudaStream_t stream, const std::function<void()>& call) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < 5; ++i) call();
  check(cudaDeviceSynchronize(), "sync");
  std::vector<double> us, host;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventRecord(start, stream), "record");
    call();
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "event sync");
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    us.push_back(ms * 1e3);
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  std::sort(host.begin(), host.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {name, us[us.size() / 2], us.front(), host[host.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 300;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--runs") runs = std::atoi(argv[i + 1]);
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  const std::size_t big = std::size_t{1} << 20;
  float* x = nullptr;
  float* sink = nullptr;
  void* counters = nullptr;
  volatile int* flag = nullptr;
  check(cudaMalloc(&x, big * sizeof(float)), "malloc");
  check(cudaMalloc(&sink, sizeof(float)), "malloc");
  check(cudaMalloc(&counters, 49160), "malloc");
  check(cudaMallocHost(const_cast<int**>(&flag), sizeof(int)), "host alloc");
  std::vector<float> host(big);
  for (std::size_t i = 0; i < big; ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000003u);
  check(cudaMemcpy(x, host.data(), big * sizeof(float), cudaMemcpyHostToDevice), "copy");
  gpu::Workspace workspace;

  std::vector<Row> rows;
  cudaStream_t own = nullptr;
  check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), "stream");
  for (cudaStream_t stream : {cudaStream_t(nullptr), own}) {
    const std::string tag = stream == nullptr ? "" : "-stream";
    int value = 0;
    rows.push_back(time_it("events" + tag, runs, stream, [] {}));
    rows.push_back(time_it("kernel" + tag, runs, stream, [&] { empty_kernel<<<1, 32, 0, stream>>>(); }));
    rows.push_back(time_it("kernel+sync" + tag, runs, stream, [&] {
      empty_kernel<<<1, 32, 0, stream>>>();
      check(cudaStreamSynchronize(stream), "sync");
    }));
    rows.push_back(time_it("kernel+spin" + tag, runs, stream, [&] {
      ++value;
      flag_kernel<<<1, 32, 0, stream>>>(flag, value);
      while (*flag != value) {
      }
    }));
    rows.push_back(time_it("memset+kernel+sync" + tag, runs, stream, [&] {
      check(cudaMemsetAsync(counters, 0, 49160, stream), "memset");
      empty_kernel<<<1, 32, 0, stream>>>();
      check(cudaStreamSynchronize(stream), "sync");
    }));
    for (const int blocks : {sms, 4 * sms}) {
      for (const int syncs : {0, 1, 3}) {
        for (const bool read : {false, true}) {
          std::size_t n = read ? big : 0;
          int s = syncs;
          void* args[] = {&x, &n, &s, &sink};
          const std::string name = std::string(read ? "read-" : "") + "coop-" + std::to_string(blocks) + "-" +
                                   std::to_string(syncs) + tag;
          rows.push_back(time_it(name, runs, stream, [&] {
            check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(coop_kernel), dim3(blocks), dim3(512), args,
                                              0, stream),
                  "coop launch");
            check(cudaStreamSynchronize(stream), "sync");
          }));
        }
      }
    }
    for (const int log_n : {16, 20}) {
      const std::size_t n = std::size_t{1} << log_n;
      rows.push_back(time_it("radix-2^" + std::to_string(log_n) + tag, runs, stream, [&] {
        gpu::kth_smallest(x, n, n / 2, robustfit::selection::Algorithm::radix, workspace, stream);
      }));
    }
  }
  std::printf("row,median_us,min_us,host_median_us\n");
  for (const Row& row : rows) std::printf("%s,%.2f,%.2f,%.2f\n", row.name.c_str(), row.median_us, row.min_us, row.host_us);
  return 0;
}
