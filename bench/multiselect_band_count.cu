// Issue 11's many-rank counting read, an experiment before building anything: how fast one read
// of the input counts every value into the ranges of an exponent-band table (band_table.hpp: a
// key's range is offset[band] + (mantissa >> shift[band]), no search), against the one-pass floor
// of the same run, and whether the counts are exact (the host counts the same keys with the same
// table). Sampled multiselection's own counting read, as built, is timed by selection_bench's
// multi-phases section; ncu counted ~74 instructions a value there, most of them its search.
// Two ways to count in shared memory: one atomic a value ("atomic"), and warp-aggregated where a
// warp's values share a range ("aggregated", seed::count_in_shared: ties and sorted inputs).
//
//   bench_multiselect_band_count [--sizes 24,28] [--types float,double] [--ranges 4096,8192,16384]
//                                [--runs 10] [--out band.csv]
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../selection/src/cuda/dynamic_shared_memory.cuh"
#include "../selection/src/cuda/key_traits.cuh"
#include "../selection/src/cuda/seed_common.cuh"
#include "../selection/src/cuda/visit_vectors.cuh"
#include "band_table.hpp"
#include "list_options.hpp"
#include "robustfit/data/distributions.hpp"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using robustfit::bench::BandTable;
using robustfit::data::Distribution;

constexpr int kThreads = 1024;
constexpr int kSample = 32768;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

template <class T, bool kAggregated>
__global__ __launch_bounds__(kThreads) void band_count(const T* __restrict__ x, std::size_t n,
                                                       const unsigned* __restrict__ table, int ranges,
                                                       unsigned long long* counts, unsigned long long* nans) {
  constexpr int kBands = BandTable<T>::kBands;
  extern __shared__ unsigned shared[];
  unsigned* entries = shared;
  unsigned* counters = shared + kBands;
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) entries[b] = table[b];
  for (int r = threadIdx.x; r < ranges; r += blockDim.x) counters[r] = 0;
  __syncthreads();
  unsigned block_nans = 0;
  detail::visit_vectors(x, n, [&](const T* values, unsigned valid) {
#pragma unroll
    for (int u = 0; u < detail::kVisitItems<T>; ++u) {
      const int range = static_cast<int>(robustfit::bench::bands::range_of(detail::KeyTraits<T>::to_key(values[u]), entries));
      const bool in = valid >> u & 1u;
      block_nans += in && values[u] != values[u];
      if constexpr (kAggregated) detail::seed::count_in_shared(counters, in ? range : -1);
      else if (in) atomicAdd(&counters[range], 1u);
    }
  });
  __syncthreads();
  detail::seed::flush_counts(counters, ranges, counts);
  if (block_nans != 0) atomicAdd(nans, static_cast<unsigned long long>(block_nans));
}

struct Options {
  std::vector<std::string> sizes{"24", "28"}, types{"float", "double"}, ranges{"4096", "8192", "16384"};
  int runs = 10;
  std::string out = "band.csv";
};

struct Timer {
  cudaEvent_t start, stop;
  Timer() {
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  // The median of `runs` timed calls after two untimed ones.
  template <class Call>
  double median_ms(int runs, Call call) {
    for (int i = 0; i < 2; ++i) call();
    std::vector<float> times;
    for (int i = 0; i < runs; ++i) {
      check(cudaEventRecord(start), "record");
      call();
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }
};

template <class T>
void run(const Options& options, std::ofstream& csv) {
  using Key = typename BandTable<T>::Key;
  const char* type = sizeof(T) == 4 ? "float" : "double";
  for (const auto& size : options.sizes) {
    const int log_n = std::stoi(size);
    const std::size_t n = std::size_t{1} << log_n;
    for (const Distribution dist : {Distribution::uniform, Distribution::normal}) {
      const std::vector<T> host = robustfit::data::make_distribution<T>(dist, n, 23 + log_n, 16);
      T* d_x = nullptr;
      check(cudaMalloc(&d_x, n * sizeof(T)), "cudaMalloc");
      check(cudaMemcpy(d_x, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "copy");
      Timer timer;
      // The floor: one cub::DeviceReduce read of the same input.
      T* d_max = nullptr;
      check(cudaMalloc(&d_max, sizeof(T)), "cudaMalloc");
      std::size_t temp_bytes = 0;
      check(cub::DeviceReduce::Max(nullptr, temp_bytes, d_x, d_max, n), "reduce");
      void* d_temp = nullptr;
      check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
      const double floor = timer.median_ms(options.runs, [&] { check(cub::DeviceReduce::Max(d_temp, temp_bytes, d_x, d_max, n), "reduce"); });
      std::mt19937_64 rng(11);
      std::vector<Key> sample(kSample);
      for (Key& k : sample) k = robustfit::bench::band_key(host[rng() % n]);
      for (const auto& asked : options.ranges) {
        const auto table = robustfit::bench::make_band_table<T>(sample, std::stoi(asked));
        const int ranges = static_cast<int>(table.ranges());
        std::vector<unsigned long long> expected(ranges, 0);
        for (const T v : host) ++expected[table.range(robustfit::bench::band_key(v))];
        const std::vector<unsigned>& entries = table.entries;
        unsigned* d_table = nullptr;
        unsigned long long* d_counts = nullptr;  // the ranges' counts, then the NaN count
        check(cudaMalloc(&d_table, entries.size() * sizeof(unsigned)), "cudaMalloc");
        check(cudaMemcpy(d_table, entries.data(), entries.size() * sizeof(unsigned), cudaMemcpyHostToDevice), "copy");
        check(cudaMalloc(&d_counts, (ranges + 1) * sizeof(unsigned long long)), "cudaMalloc");
        const std::size_t bytes = (BandTable<T>::kBands + static_cast<std::size_t>(ranges)) * sizeof(unsigned);
        for (const bool aggregated : {false, true}) {
          const auto kernel = aggregated ? band_count<T, true> : band_count<T, false>;
          detail::allow_dynamic_shared_memory(kernel, bytes);
          int per_sm = 0, sms = 0;
          check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, bytes), "occupancy");
          check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
          const std::string variant = aggregated ? "aggregated" : "atomic";
          if (per_sm == 0) {
            csv << type << ',' << log_n << ',' << robustfit::data::to_string(dist) << ',' << asked << ',' << ranges << ','
                << variant << ",0,0," << floor << ",0,-1,\"no block fits: " << bytes << " bytes of shared memory\"\n";
            continue;
          }
          const unsigned grid = static_cast<unsigned>(per_sm * sms);
          auto call = [&] {
            check(cudaMemsetAsync(d_counts, 0, (ranges + 1) * sizeof(unsigned long long)), "memset");
            kernel<<<grid, kThreads, bytes>>>(d_x, n, d_table, ranges, d_counts, d_counts + ranges);
            check(cudaGetLastError(), "band_count");
          };
          const double ms = timer.median_ms(options.runs, call);
          std::vector<unsigned long long> got(ranges + 1);
          check(cudaMemcpy(got.data(), d_counts, got.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "copy");
          int wrong = got[ranges] != 0 ? 1 : 0;  // no NaN in these inputs
          for (int r = 0; r < ranges; ++r) wrong += got[r] != expected[r];
          csv << type << ',' << log_n << ',' << robustfit::data::to_string(dist) << ',' << asked << ',' << ranges << ','
              << variant << ',' << per_sm << ',' << ms << ',' << floor << ',' << ms / floor << ',' << wrong << ",\"\"\n";
          std::fprintf(stderr, "%s 2^%d %s ranges %d %s: %.3f ms (%.2f x floor), %d wrong counts\n", type, log_n,
                       std::string(robustfit::data::to_string(dist)).c_str(), ranges, variant.c_str(), ms, ms / floor, wrong);
        }
        cudaFree(d_table);
        cudaFree(d_counts);
      }
      cudaFree(d_temp);
      cudaFree(d_max);
      cudaFree(d_x);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_multiselect_band_count: error: %s needs a value\n", arg.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (arg == "--sizes") options.sizes = robustfit::bench::split(value);
    else if (arg == "--types") options.types = robustfit::bench::split(value);
    else if (arg == "--ranges") options.ranges = robustfit::bench::split(value);
    else if (arg == "--runs") options.runs = std::max(1, std::atoi(value.c_str()));
    else if (arg == "--out") options.out = value;
    else {
      std::fprintf(stderr, "bench_multiselect_band_count: error: unknown option %s (--sizes, --types, --ranges, --runs, --out)\n",
                   arg.c_str());
      return 2;
    }
  }
  try {
    for (const auto& size : options.sizes)
      if (std::stoi(size) < 10 || std::stoi(size) > 29) throw std::invalid_argument("--sizes: " + size + " is not a log2 size from 10 to 29");
    for (const auto& r : options.ranges)
      if (std::stoi(r) < 1 || std::stoi(r) > (1 << 20)) throw std::invalid_argument("--ranges: " + r + " is not from 1 to 2^20");
    std::ofstream csv(options.out);
    csv << "type,log_n,distribution,ranges_asked,ranges,variant,blocks_per_sm,ms,floor_ms,x_floor,wrong_counts,error\n";
    for (const auto& type : options.types) {
      if (type == "float") run<float>(options, csv);
      else if (type == "double") run<double>(options, csv);
      else throw std::invalid_argument("--types takes float and double, not " + type);
    }
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "bench_multiselect_band_count: error: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_multiselect_band_count: error: %s\n", error.what());
    return 1;
  }
}
