// Selection benchmark on the GPU (docs/BENCHMARKS.md, "Selection" and "Batched selection").
// For each case: median / min / max of >= 10 timed calls (CUDA events, after warm-up), GB/s,
// the one-pass floor (cub::DeviceReduce::Max over the same array, same run), time / floor,
// and speed-up over sort&choose. Every answer is checked against sort&choose from the same run;
// the `mismatches` column must be 0. Inputs smaller than ~3x the L2 are rotated among copies.
// Timed rows also say what one warm call asked of CUDA (cuda_check.cuh's call_counts: kernels
// the library launched, CUB device-wide calls, memsets, copies, host synchronisations).
//
//   bench_selection_bench --out sel.csv [--json sel.json] [--quick]
//                         [--sections single,multi,multi-phases,batched,tune,tune-multi,tune-batched,tune-bracket,tune-radix]
//                         [--runs 10] [--types float,double] [--algorithms sort,radix,...]
//                         [--sizes 20,28]
// (--algorithms limits the single and multi sections; sort always runs: it is the reference.
// --sizes keeps only those log2 sizes in the single, multi, multi-phases and tune-multi sections;
// the single and tune-bracket sections run any size it names, 2^20-2^28 by default.)
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "list_options.hpp"
#include "../selection/src/cuda/cuda_check.cuh"         // call_counts(): launches and host synchronisations
#include "../selection/src/cuda/checked_select.cuh"  // tuning knobs: cutting plane, Floyd–Rivest, bracket
#include "../selection/src/cuda/sampled_multi_select.cuh"  // tuning knobs: sampled multiselection
#include "../selection/src/cuda/batched_bracket.cuh"       // tuning knobs: batched bracket
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "robustfit/selection/cuda_automatic.hpp"
#include "robustfit/selection/gpu.hpp"

namespace {

using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
namespace gpu = robustfit::selection::cuda;
namespace detail = robustfit::selection::cuda::detail;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

struct Options {
  std::string out = "selection_bench.csv";
  std::string json;
  bool quick = false;
  int runs = 10;
  std::vector<std::string> sections{"single", "multi", "multi-phases", "batched", "tune", "tune-multi", "tune-batched",
                                    "tune-bracket", "tune-radix"};
  std::vector<std::string> types{"float", "double"};
  std::vector<std::string> algorithms;  // single and multi sections; empty: all
  std::vector<std::string> log_sizes;   // single, multi, multi-phases, tune-multi: log2 sizes kept; empty: all
  std::string command;
};

// The log2 sizes some section ran: a --sizes entry none of the chosen sections has is reported
// at the end (it ran nothing, silently, before).
std::set<int> g_sizes_run;

bool size_wanted(const Options& options, int log_n) {
  const bool wanted = options.log_sizes.empty() || robustfit::bench::has(options.log_sizes, std::to_string(log_n));
  if (wanted) g_sizes_run.insert(log_n);
  return wanted;
}

using robustfit::bench::has;
using robustfit::bench::split;

// A section's log2 sizes: every --sizes entry (the odd powers included: `auto` changes algorithm
// between them), else its defaults (the --quick ones with --quick).
std::vector<int> sizes_or(const Options& options, std::vector<int> defaults, std::vector<int> quick) {
  std::vector<int> log_sizes = options.quick ? std::move(quick) : std::move(defaults);
  if (!options.log_sizes.empty()) {
    log_sizes.clear();
    for (const std::string& entry : options.log_sizes) log_sizes.push_back(std::stoi(entry));
  }
  for (const int log_n : log_sizes) size_wanted(options, log_n);  // recorded as run
  return log_sizes;
}

struct Row {
  std::string section, algorithm, type, distribution, shape;
  std::size_t n = 0, k = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0, gbps = 0, floor_ms = 0, sort_ms = 0;
  int mismatches = 0;
  std::string error;
  std::string auto_choice;  // auto's rows: what it ran (cuda_automatic.hpp)
  bool counted = false;     // `counts` hold one call's (time_calls): written, else left empty
  detail::CallCounts counts;
};

std::vector<Row> g_rows;

struct Timing {
  double median, min, max;
  detail::CallCounts counts;  // what the second warm-up call (a warm workspace) asked of CUDA
};

// Runs `call(i)` (i = rotation index) warm-up times, then `runs` times between events.
Timing time_calls(int runs, std::size_t rotation, const std::function<void(std::size_t)>& call) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  detail::CallCounts counts;
  for (int i = 0; i < 2; ++i) {
    const detail::CallCounts before = detail::call_counts();
    call(i % rotation);
    counts = detail::call_counts() - before;
  }
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    call((i + 2) % rotation);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float elapsed = 0;
    check(cudaEventElapsedTime(&elapsed, start, stop), "cudaEventElapsedTime");
    ms.push_back(elapsed);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), counts};
}

// Times `call` into `row` and appends it; an exception becomes the row's error and does not
// stop the run. The sort row sets `sort_ms`, the speed-up baseline of the rows after it.
void time_into_row(Row row, int runs, std::size_t rotation, std::size_t bytes, double& sort_ms,
                   const std::function<void(std::size_t)>& call) {
  try {
    const Timing t = time_calls(runs, rotation, call);
    row.median_ms = t.median, row.min_ms = t.min, row.max_ms = t.max;
    row.counted = true, row.counts = t.counts;
    row.gbps = bytes / (t.median * 1e6);
    if (row.algorithm == "sort") sort_ms = t.median;
  } catch (const std::exception& error) {
    row.error = error.what();
  }
  row.sort_ms = sort_ms;
  g_rows.push_back(row);
}

// Device copies of one input, enough of them to exceed ~3x the 60 MB L2.
template <class T>
struct RotatedInput {
  std::vector<T*> copies;
  std::size_t n = 0;
  RotatedInput(const std::vector<T>& host) : n(host.size()) {
    const std::size_t bytes = n * sizeof(T);
    const std::size_t count = std::clamp<std::size_t>((180u << 20) / bytes + 1, 1, 64);
    copies.resize(count);
    for (T*& copy : copies) {
      check(cudaMalloc(&copy, bytes), "cudaMalloc input");
      check(cudaMemcpy(copy, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy input");
    }
  }
  ~RotatedInput() {
    for (T* copy : copies) cudaFree(copy);
  }
};

template <class T>
double floor_ms(const RotatedInput<T>& input, int runs) {
  T* d_max = nullptr;
  check(cudaMalloc(&d_max, sizeof(T)), "cudaMalloc");
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Max(nullptr, temp_bytes, input.copies[0], d_max, input.n);
  void* d_temp = nullptr;
  check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
  const Timing t = time_calls(runs, input.copies.size(), [&](std::size_t i) {
    check(cub::DeviceReduce::Max(d_temp, temp_bytes, input.copies[i], d_max, input.n), "reduce");
  });
  cudaFree(d_temp);
  cudaFree(d_max);
  return t.median;
}

template <class T>
constexpr bool kIsDouble = sizeof(T) == sizeof(double);

const char* type_name(float) { return "float"; }
const char* type_name(double) { return "double"; }

std::string algorithm_name(Algorithm a) { return std::string(robustfit::selection::to_string(a)); }

// One single-rank case: sort first (the reference answer and the speed-up baseline), then the
// others. An algorithm that throws gets a row with the error and does not stop the run.
template <class T>
void bench_single_case(const Options& options, gpu::Workspace& workspace,
                       const RotatedInput<T>& input, double floor, const std::string& dist,
                       std::size_t k, const std::vector<Algorithm>& algorithms) {
  const std::size_t n = input.n;
  const T expected = gpu::kth_smallest(input.copies[0], n, k, Algorithm::sort, workspace);
  double sort_ms = 0;
  for (const Algorithm algorithm : algorithms) {
    Row row{"single", algorithm_name(algorithm), type_name(T{}), dist, "", n, k};
    row.floor_ms = floor;
    int mismatches = 0;
    time_into_row(row, options.runs, input.copies.size(), n * sizeof(T), sort_ms, [&](std::size_t i) {
      if (gpu::kth_smallest(input.copies[i], n, k, algorithm, workspace) != expected) ++mismatches;
    });
    g_rows.back().mismatches = mismatches;
    if (algorithm == Algorithm::automatic)
      g_rows.back().auto_choice = robustfit::selection::cuda_automatic_description(n, std::span(&k, 1), kIsDouble<T>);
  }
}

template <class T>
void bench_single(const Options& options, gpu::Workspace& workspace) {
  std::vector<Algorithm> algorithms;
  for (const Algorithm a : {Algorithm::sort, Algorithm::cutting_plane, Algorithm::bucket, Algorithm::radix,
                            Algorithm::sample, Algorithm::floyd_rivest, Algorithm::bracket, Algorithm::automatic})
    if (a == Algorithm::sort || options.algorithms.empty() || has(options.algorithms, algorithm_name(a)))
      algorithms.push_back(a);
  for (const int log_n : sizes_or(options, {20, 22, 24, 26, 28}, {20, 24})) {
    const std::size_t n = std::size_t{1} << log_n;
    std::vector<Distribution> dists;
    if (log_n <= 24 && !options.quick) {
      for (const Distribution d : robustfit::data::all_distributions()) dists.push_back(d);
    } else if (log_n == 26) {
      dists = {Distribution::uniform, Distribution::normal, Distribution::two_values_95,
               Distribution::bucket_killer, Distribution::few_huge};
    } else {
      dists = {Distribution::uniform, Distribution::normal};
    }
    for (const Distribution dist : dists) {
      std::vector<std::size_t> distincts{16};
      if (dist == Distribution::distinct_d && !options.quick) distincts = {16, 1024};
      for (const std::size_t distinct : distincts) {
        const auto host = robustfit::data::make_distribution<T>(dist, n, 42 + log_n, distinct);
        RotatedInput<T> input(host);
        const double floor = floor_ms(input, options.runs);
        std::string name(robustfit::data::to_string(dist));
        if (dist == Distribution::distinct_d) name += "_" + std::to_string(distinct);
        std::vector<std::size_t> ks{n / 2};
        if (dist == Distribution::uniform || dist == Distribution::normal)
          ks = {n / 2, 0, n / 100, n - 1};
        for (const std::size_t k : ks)
          bench_single_case(options, workspace, input, floor, name, k, algorithms);
        std::fprintf(stderr, "single %s n=2^%d %s done\n", type_name(T{}), log_n, name.c_str());
      }
    }
  }
}

// Sampled multiselection's variants beside its defaults (bench multi and multi-phases): the
// band form's separate kernels and its one launch at every size, the first version (CUB sort of all candidates, two host synchronisations, its edges and 2 blocks
// per SM; rows sampled-multi-sortfinish), the interleaved counting read, the one-block sample
// of 16384 keys, and both.
std::vector<std::pair<std::string, detail::SampledMultiParams>> sampled_multi_variants(bool with_default,
                                                                                       std::size_t ranks) {
  std::vector<std::pair<std::string, detail::SampledMultiParams>> variants;
  if (with_default) variants.emplace_back("sampled-multi", detail::SampledMultiParams{});
  // The band form's separate kernels alone (the edges where their sample shows ties: the
  // default hands those to the one launch), and its one cooperative launch at every size (the
  // default: the one launch below 2^27 values, more than 128 ranks below 2^26).
  detail::SampledMultiParams p;
  p.band_one_launch_below = 0;
  p.band_one_launch_on_ties = false;
  variants.emplace_back("sampled-multi-separate", p);
  p = {};
  p.band_one_launch_below = std::numeric_limits<std::size_t>::max();
  variants.emplace_back("sampled-multi-one-launch", p);
  p = {};
  // The band form's compaction testing active ranges by bit words (the default: a byte a range).
  p.band_byte_flags = false;
  variants.emplace_back("sampled-multi-bitwords", p);
  p = {};
  // The edges alone (the band table declines to them on ties), then the edges' own knobs.
  p.band_ranges = 0;
  variants.emplace_back("sampled-multi-edges", p);
  p.segmented = false;
  p.interleaved_count = false;
  p.block_sample = false;
  p.sample_size = 1 << 15;
  p.edges = ranks <= 256 ? 4096 : 8192;  // the first version's parameters
  p.pass_blocks_per_sm = 2;
  variants.emplace_back("sampled-multi-sortfinish", p);
  p = {};
  p.band_ranges = 0;
  p.interleaved_count = true;
  p.block_sample = false;
  p.sample_size = 1 << 15;
  variants.emplace_back("sampled-multi-ilv", p);
  p = {};
  p.band_ranges = 0;
  p.interleaved_count = false;
  p.block_sample = true;
  p.sample_size = 1 << 14;
  variants.emplace_back("sampled-multi-bs", p);
  p.interleaved_count = true;
  variants.emplace_back("sampled-multi-ilv-bs", p);
  return variants;
}

// `count` evenly spaced ranks of n (101: the percentiles), first and last included; up to 3
// ranks, interior ones (2: the terciles, 3: the quartiles), where auto's per-rank choice would
// otherwise answer min and max by one reduction each.
std::vector<std::size_t> spaced_ranks(std::size_t n, std::size_t count) {
  std::vector<std::size_t> ks(count);
  for (std::size_t i = 0; i < count; ++i)
    ks[i] = count <= 3 ? (i + 1) * n / (count + 1) : i * (n - 1) / (count - 1);
  return ks;
}

// Many ranks: evenly spaced order statistics (101 = the percentiles headline), on uniform and
// normal data (2 to 10001 ranks from 2^20 to 2^26, 101 at 2^28), and on the adversarial
// distributions at 2^26 and 2^28 with 101 ranks and at 2^22 with 101 and 1001. The old path
// (multi = bucketMultiSelect) and sampled multiselection side by side.
template <class T>
void bench_multi(const Options& options, gpu::Workspace& workspace) {
  std::vector<Algorithm> algorithms;
  for (const Algorithm a : {Algorithm::sort, Algorithm::multi, Algorithm::sampled_multi, Algorithm::automatic,
                            Algorithm::radix})
    if (a == Algorithm::sort || options.algorithms.empty() || has(options.algorithms, algorithm_name(a)))
      algorithms.push_back(a);
  const std::vector<int> log_sizes = options.quick ? std::vector<int>{24} : std::vector<int>{20, 22, 24, 26, 28};
  for (const int log_n : log_sizes) {
    if (!size_wanted(options, log_n)) continue;
    const std::size_t n = std::size_t{1} << log_n;
    std::vector<Distribution> dists{Distribution::uniform, Distribution::normal};
    // At 2^22, 1001 ranks: where `auto` takes sampled multiselection's one launch, not one sort.
    if (log_n == 22 || log_n == 26 || log_n == 28)
      dists.insert(dists.end(), {Distribution::distinct_d, Distribution::two_values_95, Distribution::bucket_killer,
                                 Distribution::few_huge, Distribution::all_equal});
    for (const Distribution dist : dists) {
      if (log_n == 28 && dist == Distribution::normal) continue;
      const bool adversarial = dist != Distribution::uniform && dist != Distribution::normal;
      const auto host = robustfit::data::make_distribution<T>(dist, n, 7 + log_n, 16);
      RotatedInput<T> input(host);
      const double floor = floor_ms(input, options.runs);
      for (const std::size_t count : {2, 3, 5, 11, 101, 1001, 10001}) {
        const bool runs_here =
            count == 101 || (!adversarial && log_n != 28) || (adversarial && log_n == 22 && count == 1001);
        if (!runs_here) continue;
        const std::vector<std::size_t> ks = spaced_ranks(n, count);
        std::vector<T> expected(count), got(count);
        gpu::kth_smallest_many(input.copies[0], n, ks.data(), count, expected.data(),
                               Algorithm::sort, workspace);
        double sort_ms = 0;
        for (const Algorithm algorithm : algorithms) {
          if (algorithm == Algorithm::radix && count > 11) continue;  // one pass set per rank
          Row row{"multi", algorithm_name(algorithm), type_name(T{}),
                  std::string(robustfit::data::to_string(dist)), std::to_string(count) + " ranks",
                  n, count};
          row.floor_ms = floor;
          int mismatches = 0;
          time_into_row(row, options.runs, input.copies.size(), n * sizeof(T), sort_ms, [&](std::size_t i) {
            gpu::kth_smallest_many(input.copies[i], n, ks.data(), count, got.data(), algorithm, workspace);
            if (got != expected) ++mismatches;
          });
          g_rows.back().mismatches = mismatches;
          if (algorithm == Algorithm::automatic)
            g_rows.back().auto_choice = robustfit::selection::cuda_automatic_description(n, ks, kIsDouble<T>);
        }
        for (const auto& [name, params] : sampled_multi_variants(false, count)) {
          if (!options.algorithms.empty() && !has(options.algorithms, "sampled-multi")) break;
          Row row{"multi", name, type_name(T{}), std::string(robustfit::data::to_string(dist)),
                  std::to_string(count) + " ranks", n, count};
          row.floor_ms = floor;
          int mismatches = 0;
          time_into_row(row, options.runs, input.copies.size(), n * sizeof(T), sort_ms, [&](std::size_t i) {
            if (detail::sampled_multi_select_checked(input.copies[i], n, ks.data(), count, got.data(), params,
                                                     workspace, nullptr) ||
                got != expected)
              ++mismatches;
          });
          g_rows.back().mismatches = mismatches;
        }
      }
      std::fprintf(stderr, "multi %s n=2^%d %s done\n", type_name(T{}), log_n,
                   std::string(robustfit::data::to_string(dist)).c_str());
    }
  }
}

// Sampled multiselection against its parameters: edges (bucket width), lookup-table ranges,
// resident blocks per multiprocessor of the two passes (the grid; how many fit depends on the
// shared memory of edges and table) and the counting read, for 101 and 1001 ranks, at 2^24,
// 2^26 and 2^28 values (1001 ranks at 2^24 and 2^26). Rows named
// sampled-multi-e<edges>-t<bins>-b<blocks per SM>-<seq|ilv>.
// One tune-multi row: sampled multiselection with `params`, checked against `expected`.
template <class T>
void tune_multi_row(const Options& options, const RotatedInput<T>& input, double floor, Distribution dist,
                    const std::vector<std::size_t>& ks, const std::vector<T>& expected,
                    const detail::SampledMultiParams& params, gpu::Workspace& workspace, const std::string& name) {
  const std::size_t n = input.n, count = ks.size();
  std::vector<T> got(count);
  Row row{"tune", name, type_name(T{}), std::string(robustfit::data::to_string(dist)), std::to_string(count) + " ranks",
          n, count};
  row.floor_ms = floor;
  int mismatches = 0;
  double no_baseline = 0;
  time_into_row(row, options.runs, input.copies.size(), n * sizeof(T), no_baseline, [&](std::size_t i) {
    if (detail::sampled_multi_select_checked(input.copies[i], n, ks.data(), count, got.data(), params, workspace,
                                             nullptr) ||
        got != expected)
      ++mismatches;
  });
  g_rows.back().mismatches = mismatches;
}

template <class T>
void bench_tune_multi(const Options& options, gpu::Workspace& workspace) {
  for (const int log_n : {24, 26, 28}) {
    if ((options.quick && log_n > 24) || !size_wanted(options, log_n)) continue;
    const std::size_t n = std::size_t{1} << log_n;
    for (const Distribution dist : {Distribution::uniform, Distribution::normal}) {
      const auto host = robustfit::data::make_distribution<T>(dist, n, 17 + log_n);
      RotatedInput<T> input(host);
      const double floor = floor_ms(input, options.runs);
      for (const std::size_t count : {101, 1001}) {
        if (count == 1001 && log_n > 26) continue;
        const std::vector<std::size_t> ks = spaced_ranks(n, count);
        std::vector<T> expected(count);
        gpu::kth_smallest_many(input.copies[0], n, ks.data(), count, expected.data(), Algorithm::sort, workspace);
        for (const int edges : {1024, 2048, 4096})
          for (const int bins : {4096, 8192, 16384})
            for (const int blocks : {2, 3, 4})
              for (const bool interleaved : {false, true}) {
                detail::SampledMultiParams params;
                params.band_ranges = 0;  // the edges alone
                params.edges = edges, params.table_bins = bins, params.pass_blocks_per_sm = blocks;
                params.interleaved_count = interleaved;
                tune_multi_row(options, input, floor, dist, ks, expected, params, workspace,
                               "sampled-multi-e" + std::to_string(edges) + "-t" + std::to_string(bins) + "-b" +
                                   std::to_string(blocks) + (interleaved ? "-ilv" : "-seq"));
              }
        // The band table: ranges wanted and the sample that shares them out.
        for (const int ranges : {2048, 4096, 8192, 16384, detail::kBandMaxRanges})
          for (const int sample : {1 << 14, 1 << 15, 1 << 16})
            for (const int blocks : {1, 2}) {
              detail::SampledMultiParams params;
              params.band_ranges = ranges;
              params.band_sample_size = sample;
              params.band_blocks_per_sm = blocks;
              tune_multi_row(options, input, floor, dist, ks, expected, params, workspace,
                             "sampled-multi-bands-r" + std::to_string(ranges) + "-s" + std::to_string(sample) + "-b" +
                                 std::to_string(blocks));
            }
      }
      std::fprintf(stderr, "tune-multi %s n=2^%d done\n", type_name(T{}), log_n);
    }
  }
}

// Sampled multiselection phase by phase (CUDA events between its phases, SampledMultiParams::
// phases), the defaults and each variant: rows named <variant>/<phase>, median over the runs of
// each phase; `<variant>/total` is the sum of the medians (events add a little to each call).
template <class T>
void bench_multi_phases(const Options& options, gpu::Workspace& workspace) {
  struct Shape {
    int log_n;
    Distribution dist;
    std::size_t count;
  };
  std::vector<Shape> shapes{{24, Distribution::uniform, 101}, {26, Distribution::uniform, 101},
                            {26, Distribution::uniform, 1001}, {26, Distribution::normal, 101},
                            {26, Distribution::few_huge, 101}, {26, Distribution::bucket_killer, 101},
                            {28, Distribution::uniform, 101}};
  if (options.quick) shapes.resize(1);
  for (const Shape& shape : shapes) {
    if (!size_wanted(options, shape.log_n)) continue;
    const std::size_t n = std::size_t{1} << shape.log_n;
    const auto host = robustfit::data::make_distribution<T>(shape.dist, n, 7 + shape.log_n, 16);
    RotatedInput<T> input(host);
    const double floor = floor_ms(input, options.runs);
    const std::vector<std::size_t> ks = spaced_ranks(n, shape.count);
    std::vector<T> expected(shape.count), got(shape.count);
    gpu::kth_smallest_many(input.copies[0], n, ks.data(), shape.count, expected.data(), Algorithm::sort, workspace);
    for (auto [finish, params] : sampled_multi_variants(true, shape.count)) {
      detail::SampledMultiPhases phases;
      params.phases = &phases;
      std::vector<std::string> names;
      std::vector<std::vector<double>> times;
      int mismatches = 0;
      for (int r = 0; r < options.runs + 2; ++r) {
        const bool nan = detail::sampled_multi_select_checked(input.copies[r % input.copies.size()], n, ks.data(),
                                                              shape.count, got.data(), params, workspace, nullptr);
        if (nan || got != expected) ++mismatches;
        if (r < 2) continue;  // warm-up
        if (names.empty()) {
          names = phases.names;
          times.resize(names.size());
        }
        for (std::size_t p = 0; p < names.size() && p < phases.ms.size(); ++p) times[p].push_back(phases.ms[p]);
      }
      double total = 0;
      for (std::size_t p = 0; p <= names.size(); ++p) {
        double median = total;
        if (p < names.size()) {
          std::sort(times[p].begin(), times[p].end());
          median = times[p].empty() ? 0 : times[p][times[p].size() / 2];
          total += median;
        }
        Row row{"phases", finish + "/" + (p < names.size() ? names[p] : std::string("total")), type_name(T{}),
                std::string(robustfit::data::to_string(shape.dist)), std::to_string(shape.count) + " ranks", n,
                shape.count};
        row.median_ms = row.min_ms = row.max_ms = median;
        row.floor_ms = floor;
        row.mismatches = p == names.size() ? mismatches : 0;
        g_rows.push_back(row);
        std::fprintf(stderr, "phases %s 2^%d %s %zu ranks %s: %.4f ms\n", type_name(T{}), shape.log_n,
                     std::string(robustfit::data::to_string(shape.dist)).c_str(), shape.count, row.algorithm.c_str(),
                     median);
      }
    }
  }
}

// splitmix64-based N(0,1)-like values (sum of uniforms) generated on the device: batched
// inputs are too large to generate on the host in the time budget.
template <class T>
__global__ void fill_matrix(T* matrix, std::size_t count, unsigned long long seed) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = seed + i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u1 = double(z >> 11) * 0x1.0p-53, u2 = double(z & 0x7ff) / 2048.0;
    matrix[i] = T((u1 - 0.5) * 3.4641 + (u2 - 0.5) * 0.01);
  }
}

// A rows x cols matrix of fill_matrix values, in enough rotated device copies to exceed ~3x
// the L2, and the one-pass floor: one reduction over the whole matrix.
template <class T>
struct BatchedInput {
  std::size_t rows, cols, count;
  std::vector<T*> copies;
  double floor = 0;
  BatchedInput(std::size_t rows_, std::size_t cols_, int runs) : rows(rows_), cols(cols_), count(rows_ * cols_) {
    const std::size_t rotation = std::clamp<std::size_t>((180u << 20) / (count * sizeof(T)) + 1, 1, 16);
    copies.resize(rotation);
    for (std::size_t r = 0; r < rotation; ++r) {
      check(cudaMalloc(&copies[r], count * sizeof(T)), "cudaMalloc matrix");
      fill_matrix<T><<<1024, 256>>>(copies[r], count, 1234 + cols + rows);
      check(cudaGetLastError(), "fill_matrix");
    }
    T* d_max = nullptr;
    check(cudaMalloc(&d_max, sizeof(T)), "cudaMalloc");
    std::size_t temp_bytes = 0;
    cub::DeviceReduce::Max(nullptr, temp_bytes, copies[0], d_max, count);
    void* d_temp = nullptr;
    check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc");
    floor = time_calls(runs, rotation, [&](std::size_t i) {
              check(cub::DeviceReduce::Max(d_temp, temp_bytes, copies[i], d_max, count), "reduce");
            }).median;
    cudaFree(d_temp);
    cudaFree(d_max);
  }
  ~BatchedInput() {
    for (T* copy : copies) cudaFree(copy);
  }
  BatchedInput(const BatchedInput&) = delete;
  BatchedInput& operator=(const BatchedInput&) = delete;
};

struct BatchedShape {
  std::size_t cols, rows;
};

std::string batched_shape_name(std::size_t cols, std::size_t rows) {
  const bool power = (rows & (rows - 1)) == 0;
  int log_rows = 0;
  while ((std::size_t{1} << log_rows) < rows) ++log_rows;
  return std::to_string(cols) + "x" + (power ? "2^" + std::to_string(log_rows) : std::to_string(rows));
}

// Times `select(copy, d_out)` into a row of `section` and counts the columns that differ from
// `expected` (the timed calls read rotated copies of the same data: the last result must match).
template <class T, class Select>
void batched_row(const Options& options, const BatchedInput<T>& input, const std::string& section,
                 const std::string& name, std::size_t k, const std::vector<T>& expected, T* d_out, double& sort_ms,
                 Select select) {
  Row row{section, name, type_name(T{}), "normal-like", batched_shape_name(input.cols, input.rows), input.rows, k};
  row.floor_ms = input.floor;
  time_into_row(row, options.runs, input.copies.size(), input.count * sizeof(T), sort_ms,
                [&](std::size_t i) { select(input.copies[i], d_out); });
  std::vector<T> got(input.cols);
  check(cudaMemcpy(got.data(), d_out, input.cols * sizeof(T), cudaMemcpyDeviceToHost), "copy");
  g_rows.back().mismatches = int(std::count_if(got.begin(), got.end(), [&, j = 0](T v) mutable {
    return v != expected[j++];
  }));
}

template <class T>
std::vector<T> batched_reference(const BatchedInput<T>& input, std::size_t k, T* d_out, gpu::Workspace& workspace) {
  gpu::kth_smallest_batched(input.copies[0], input.rows, input.cols, input.rows, k, d_out, Algorithm::sort, workspace);
  std::vector<T> expected(input.cols);
  check(cudaMemcpy(expected.data(), d_out, input.cols * sizeof(T), cudaMemcpyDeviceToHost), "copy");
  return expected;
}

// Batched: 64 / 512 / 4096 columns of 2^12 / 2^16 / 2^20 rows (kNN's short columns to issue
// 11's 512 x 2^20), and LTS's objectives (20 candidates x 10^6 squared residuals). Each
// algorithm at k = rows/2 and rows/2 + 5.
template <class T>
void bench_batched(const Options& options, gpu::Workspace& workspace) {
  std::vector<BatchedShape> shapes;
  for (const std::size_t cols : {64, 512, 4096})
    for (const int log_rows : {12, 16, 20}) {
      const std::size_t rows = std::size_t{1} << log_rows;
      if (cols * rows > (std::size_t{1} << 29)) continue;  // 4096 x 2^20: beyond the time budget
      if (options.quick && cols * rows > (std::size_t{1} << 26)) continue;
      shapes.push_back({cols, rows});
    }
  shapes.push_back({20, 1000000});
  for (const BatchedShape& shape : shapes) {
    BatchedInput<T> input(shape.rows, shape.cols, options.runs);
    T *d_expected, *d_out;
    check(cudaMalloc(&d_expected, shape.cols * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&d_out, shape.cols * sizeof(T)), "cudaMalloc");
    for (const std::size_t k : {shape.rows / 2, shape.rows / 2 + 5}) {
      const std::vector<T> expected = batched_reference(input, k, d_expected, workspace);
      double sort_ms = 0;
      for (const Algorithm algorithm : {Algorithm::sort, Algorithm::radix, Algorithm::bracket, Algorithm::automatic}) {
        batched_row(options, input, "batched", algorithm_name(algorithm), k, expected, d_out, sort_ms,
                    [&](const T* matrix, T* out) {
                      gpu::kth_smallest_batched(matrix, shape.rows, shape.cols, shape.rows, k, out, algorithm,
                                                workspace);
                    });
        if (algorithm == Algorithm::automatic)
          g_rows.back().auto_choice =
              algorithm_name(robustfit::selection::cuda_automatic_batched(shape.rows, shape.cols));
      }
    }
    cudaFree(d_expected);
    cudaFree(d_out);
    std::fprintf(stderr, "batched %s %s done\n", type_name(T{}), batched_shape_name(shape.cols, shape.rows).c_str());
  }
}

// Batched bracket against its parameters (sample bracket width in sigmas, candidate region
// margin) on issue 11's shape and LTS's; rows named bracket-s<sigmas>-c<capacity factor>.
template <class T>
void bench_tune_batched(const Options& options, gpu::Workspace& workspace) {
  for (const BatchedShape& shape : {BatchedShape{512, std::size_t{1} << 20}, BatchedShape{20, 1000000}}) {
    BatchedInput<T> input(shape.rows, shape.cols, options.runs);
    T *d_expected, *d_out;
    check(cudaMalloc(&d_expected, shape.cols * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&d_out, shape.cols * sizeof(T)), "cudaMalloc");
    for (const std::size_t k : {shape.rows / 2, shape.rows / 100}) {
      const std::vector<T> expected = batched_reference(input, k, d_expected, workspace);
      for (const float sigmas : {2.0f, 2.5f, 3.0f, 4.0f, 5.0f})
        for (const double capacity : {1.25, 1.5, 2.0}) {
          detail::BatchedBracketParams params;
          params.sigmas = sigmas;
          params.capacity_factor = capacity;
          double no_baseline = 0;
          batched_row(options, input, "tune-batched",
                      "bracket-s" + std::to_string(sigmas).substr(0, 3) + "-c" + std::to_string(capacity).substr(0, 4),
                      k, expected, d_out, no_baseline, [&](const T* matrix, T* out) {
                        detail::batched_bracket_select(matrix, shape.rows, shape.cols, shape.rows, k, out, params,
                                                       workspace, nullptr);
                      });
        }
    }
    cudaFree(d_expected);
    cudaFree(d_out);
    std::fprintf(stderr, "tune-batched %s %s done\n", type_name(T{}), batched_shape_name(shape.cols, shape.rows).c_str());
  }
}

// One row of the tune section: `select(values)` returns a detail::Checked<T> for rank k.
template <class T, class Select>
void tune_row(const Options& options, const RotatedInput<T>& input, double floor, const std::string& dist,
              std::size_t k, T expected, const std::string& name, Select select) {
  Row row{"tune", name, type_name(T{}), dist, "", input.n, k};
  row.floor_ms = floor;
  int mismatches = 0;
  double no_baseline = 0;
  time_into_row(row, options.runs, input.copies.size(), input.n * sizeof(T), no_baseline, [&](std::size_t i) {
    const auto r = select(input.copies[i]);
    if (r.value != expected || r.has_nan) ++mismatches;
  });
  g_rows.back().mismatches = mismatches;
}

// Cutting plane: time against the number of Kelley iterations (the paper tunes it per GPU);
// Floyd–Rivest: against the width of its bracket.
template <class T>
void bench_tune(const Options& options, gpu::Workspace& workspace) {
  for (const int log_n : {24, 26, 28}) {
    if (options.quick && log_n > 24) continue;
    const std::size_t n = std::size_t{1} << log_n;
    for (const Distribution dist : {Distribution::uniform, Distribution::normal,
                                    Distribution::half_normal_wide_50_50}) {
      if (log_n == 28 && dist != Distribution::normal) continue;
      const auto host = robustfit::data::make_distribution<T>(dist, n, 99 + log_n);
      RotatedInput<T> input(host);
      const double floor = floor_ms(input, options.runs);
      const std::size_t k = n / 2;
      const T expected = gpu::kth_smallest(input.copies[0], n, k, Algorithm::sort, workspace);
      const std::string name(robustfit::data::to_string(dist));
      for (const int iterations : {2, 3, 4, 5, 6, 7, 8, 10, 12, 16}) {
        for (const int shift : {8, 10, 12}) {
          detail::CuttingPlaneParams params;
          params.max_iterations = iterations;
          params.bracket_shift = shift;
          tune_row(options, input, floor, name, k, expected,
                   "cutting-plane-it" + std::to_string(iterations) + "-shift" + std::to_string(shift),
                   [&](const T* values) { return detail::cutting_plane_select_checked(values, n, k, params, workspace, nullptr); });
        }
      }
      for (const float sigmas : {2.5f, 3.0f, 4.0f, 5.0f, 6.0f}) {
        detail::FloydRivestParams params;
        params.sigmas = sigmas;
        tune_row(options, input, floor, name, k, expected, "floyd-rivest-sigmas" + std::to_string(sigmas).substr(0, 3),
                 [&](const T* values) { return detail::floyd_rivest_select_checked(values, n, k, params, workspace, nullptr); });
      }
      std::fprintf(stderr, "tune %s n=2^%d done\n", type_name(T{}), log_n);
    }
  }
}

// Bracket selection against its sample (one block's 2048 or 8192 keys, or 2^14-2^18 sorted by CUB) and
// the bracket's width in sigmas, at 2^20-2^28 (default_bracket_sample switches at 2^22 and
// 2^26), on uniform and normal data (median and a 1 % rank) and at 2^24 on the adversarial
// ones. Rows bracket-s<sample>-sig<sigmas>.
template <class T>
void bench_tune_bracket(const Options& options, gpu::Workspace& workspace) {
  for (const int log_n : sizes_or(options, {20, 22, 24, 26, 28}, {20, 22, 24})) {
    const std::size_t n = std::size_t{1} << log_n;
    std::vector<Distribution> dists{Distribution::uniform, Distribution::normal};
    if (log_n == 24)
      dists.insert(dists.end(), {Distribution::distinct_d, Distribution::two_values_95, Distribution::bucket_killer,
                                 Distribution::few_huge, Distribution::sorted});
    for (const Distribution dist : dists) {
      const auto host = robustfit::data::make_distribution<T>(dist, n, 23 + log_n, 16);
      RotatedInput<T> input(host);
      const double floor = floor_ms(input, options.runs);
      const std::string name(robustfit::data::to_string(dist));
      for (const std::size_t k : {n / 2, n / 100}) {
        if (k != n / 2 && dist != Distribution::uniform) continue;
        const T expected = gpu::kth_smallest(input.copies[0], n, k, Algorithm::sort, workspace);
        for (const int sample : {detail::kBracketSmallBlockSample, detail::kBracketBlockSample, 1 << 14, 1 << 15,
                                 1 << 16, 1 << 17, 1 << 18})
          for (const float sigmas : {2.5f, 3.0f, 4.0f})
            for (const bool one_launch : {true, false}) {
              // A one-block sample runs in one cooperative launch or as separate kernels; a
              // larger one always as separate kernels (one row).
              if (!one_launch && sample > detail::kBracketBlockSample) continue;
              detail::BracketParams params;
              params.sample_size = sample;
              params.sigmas = sigmas;
              params.one_launch = one_launch;
              const bool block_sample = sample <= detail::kBracketBlockSample;
              tune_row(options, input, floor, name, k, expected,
                       "bracket-s" + std::to_string(sample) + "-sig" + std::to_string(sigmas).substr(0, 3) +
                           (block_sample ? (one_launch ? "-one" : "-sep") : ""),
                       [&](const T* values) { return detail::bracket_select_checked(values, n, k, params, workspace, nullptr); });
            }
      }
      std::fprintf(stderr, "tune-bracket %s n=2^%d %s done\n", type_name(T{}), log_n, name.c_str());
    }
  }
}

// Radix select's one-launch forms against their grids, at 2^16-2^22 (where they run), median of
// uniform, normal and {1, 2} data: radix_one_launch with every resident block (b0) or at most
// 66 or 264 (rows radix-one-launch-b<blocks>), the shared-memory form (radix_resident.cu) with
// its default grid (b0: one block an SM, at least 4096 values each) or at most 16-66 blocks
// (rows radix-resident-b<blocks>).
template <class T>
void bench_tune_radix(const Options& options, gpu::Workspace& workspace) {
  for (const int log_n : sizes_or(options, {16, 18, 20, 22}, {16, 20})) {
    const std::size_t n = std::size_t{1} << log_n;
    for (const Distribution dist : {Distribution::uniform, Distribution::normal, Distribution::two_values_95}) {
      const auto host = robustfit::data::make_distribution<T>(dist, n, 31 + log_n, 16);
      RotatedInput<T> input(host);
      const double floor = floor_ms(input, options.runs);
      const std::string name(robustfit::data::to_string(dist));
      const std::size_t k = n / 2;
      const T expected = gpu::kth_smallest(input.copies[0], n, k, Algorithm::sort, workspace);
      for (const int blocks : {0, 66, 264}) {
        detail::RadixParams params;
        params.one_launch_blocks = blocks;
        params.resident = false;
        tune_row(options, input, floor, name, k, expected, "radix-one-launch-b" + std::to_string(blocks),
                 [&](const T* values) { return detail::radix_select_checked(values, n, k, params, workspace, nullptr); });
      }
      for (const int blocks : {0, 16, 33, 66}) {
        detail::RadixParams params;
        params.one_launch_blocks = blocks;
        tune_row(options, input, floor, name, k, expected, "radix-resident-b" + std::to_string(blocks),
                 [&](const T* values) { return detail::radix_select_checked(values, n, k, params, workspace, nullptr); });
      }
      std::fprintf(stderr, "tune-radix %s n=2^%d %s done\n", type_name(T{}), log_n, name.c_str());
    }
  }
}

void write_csv(const std::string& path) {
  std::ofstream out(path);
  out << "section,algorithm,type,distribution,shape,n,k,median_ms,min_ms,max_ms,gbps,floor_ms,"
         "time_over_floor,sort_ms,speedup_vs_sort,mismatches,error,auto_choice,launches,cub_calls,memsets,copies,"
         "host_syncs\n";
  for (const Row& r : g_rows) {
    const bool ok = r.error.empty();
    out << r.section << ',' << r.algorithm << ',' << r.type << ',' << r.distribution << ','
        << r.shape << ',' << r.n << ',' << r.k << ',' << r.median_ms << ',' << r.min_ms << ','
        << r.max_ms << ',' << r.gbps << ',' << r.floor_ms << ','
        << (ok && r.floor_ms > 0 ? r.median_ms / r.floor_ms : 0) << ',' << r.sort_ms << ','
        << (ok && r.median_ms > 0 && r.sort_ms > 0 ? r.sort_ms / r.median_ms : 0) << ','
        << r.mismatches << ",\"" << r.error << "\",\"" << r.auto_choice << '"';
    if (r.counted)
      out << ',' << r.counts.launches << ',' << r.counts.cub_calls << ',' << r.counts.memsets << ','
          << r.counts.copies << ',' << r.counts.host_syncs << '\n';
    else
      out << ",,,,,\n";
  }
}

std::string json_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void write_json(const std::string& path, const Options& options) {
  std::ofstream out(path);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out << "{\"device\":\"" << json_escape(robustfit::selection::cuda_device_description())
      << "\",\"date\":\"" << date << "\",\"command\":\"" << json_escape(options.command)
      << "\",\"runs_per_case\":" << options.runs << ",\"rows\":[\n";
  for (std::size_t i = 0; i < g_rows.size(); ++i) {
    const Row& r = g_rows[i];
    out << "{\"section\":\"" << r.section << "\",\"algorithm\":\"" << r.algorithm
        << "\",\"type\":\"" << r.type << "\",\"distribution\":\"" << r.distribution
        << "\",\"shape\":\"" << r.shape << "\",\"n\":" << r.n << ",\"k\":" << r.k
        << ",\"median_ms\":" << r.median_ms << ",\"min_ms\":" << r.min_ms
        << ",\"max_ms\":" << r.max_ms << ",\"floor_ms\":" << r.floor_ms
        << ",\"sort_ms\":" << r.sort_ms << ",\"mismatches\":" << r.mismatches
        << ",\"error\":\"" << json_escape(r.error) << "\",\"auto_choice\":\"" << r.auto_choice << '"';
    if (r.counted)
      out << ",\"launches\":" << r.counts.launches << ",\"cub_calls\":" << r.counts.cub_calls
          << ",\"memsets\":" << r.counts.memsets << ",\"copies\":" << r.counts.copies
          << ",\"host_syncs\":" << r.counts.host_syncs;
    out << '}' << (i + 1 < g_rows.size() ? ",\n" : "\n");
  }
  out << "]}\n";
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 0; i < argc; ++i) options.command += std::string(i ? " " : "") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--out") options.out = value();
    else if (arg == "--json") options.json = value();
    else if (arg == "--quick") options.quick = true;
    else if (arg == "--runs") options.runs = std::max(1, std::stoi(value()));
    else if (arg == "--sections") options.sections = split(value());
    else if (arg == "--types") options.types = split(value());
    else if (arg == "--algorithms") options.algorithms = split(value());
    else if (arg == "--sizes") {
      options.log_sizes = split(value());
      for (const std::string& size : options.log_sizes) {  // the single section makes inputs of 2^size values
        const bool digits = !size.empty() && size.size() <= 2 && size.find_first_not_of("0123456789") == std::string::npos;
        const int log_n = digits ? std::stoi(size) : 0;
        if (log_n < 1 || log_n > 30) throw std::invalid_argument("--sizes: '" + size + "' is not a log2 size from 1 to 30");
      }
    }
    else throw std::invalid_argument("unknown option " + arg +
                                     " (--out, --json, --quick, --runs, --sections, --types, --algorithms, --sizes)");
  }
  return options;
}

template <class T>
void run_sections(const Options& options, gpu::Workspace& workspace) {
  if (has(options.sections, "single")) bench_single<T>(options, workspace);
  if (has(options.sections, "multi")) bench_multi<T>(options, workspace);
  if (has(options.sections, "multi-phases")) bench_multi_phases<T>(options, workspace);
  if (has(options.sections, "batched")) bench_batched<T>(options, workspace);
  if (has(options.sections, "tune")) bench_tune<T>(options, workspace);
  if (has(options.sections, "tune-multi")) bench_tune_multi<T>(options, workspace);
  if (has(options.sections, "tune-batched")) bench_tune_batched<T>(options, workspace);
  if (has(options.sections, "tune-bracket")) bench_tune_bracket<T>(options, workspace);
  if (has(options.sections, "tune-radix")) bench_tune_radix<T>(options, workspace);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);
  if (!robustfit::selection::cuda_available()) {
    std::fprintf(stderr, "bench_selection_bench: %s\n",
                 robustfit::selection::cuda_device_description().c_str());
    return 2;
  }
  std::fprintf(stderr, "device: %s\n", robustfit::selection::cuda_device_description().c_str());
  gpu::Workspace workspace;
  const auto start = std::chrono::steady_clock::now();
  if (has(options.types, "float")) run_sections<float>(options, workspace);
  if (has(options.types, "double")) run_sections<double>(options, workspace);
  write_csv(options.out);
  if (!options.json.empty()) write_json(options.json, options);
  for (const std::string& size : options.log_sizes)
    if (g_sizes_run.count(std::atoi(size.c_str())) == 0)
      std::fprintf(stderr, "bench_selection_bench: warning: --sizes %s: none of the chosen sections runs 2^%s\n",
                   size.c_str(), size.c_str());
  int mismatches = 0;
  for (const Row& r : g_rows) mismatches += r.mismatches;
  std::fprintf(stderr, "%zu rows, %d mismatches, %.1f s\n", g_rows.size(), mismatches,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return mismatches == 0 ? 0 : 1;
} catch (const std::exception& error) {
  std::fprintf(stderr, "bench_selection_bench: %s\n", error.what());
  return 1;
}
