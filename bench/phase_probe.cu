// Issue 11: where the time of a one-launch selection kernel goes, phase by phase. The kernels
// write the global timer at their phase boundaries when phase_stamps() points at a device
// array (selection/src/cuda/phase_stamps.cuh); this probe does that for the median of float and
// double inputs and prints, per phase, the median over --runs calls of
//   block0_us  block 0's stamp, from the earliest block's start
//   last_us    the last block's stamp (blocks that reach the phase), from the same start
//   blocks     how many blocks wrote it
// Then the call itself, unstamped, timed as bench_selection_bench times it (CUDA events around
// the call; the call's host synchronisation inside).
// Phase sequences (the kernels count them in order; the sequence depends on the data's path):
//   resident   0 start, 1 slice loaded and first digit counted, 2 after the zeroing grid.sync;
//              per digit: flushed, after grid.sync, bin found; where the one-block finish is
//              taken: appended, after grid.sync, block 0 done
//   bracket    0 start, 1 sample drawn, 2 bracket selected, 3 pass done, 4 after grid.sync;
//              per digit: counted and flushed, after grid.sync, bin found; the one-block finish:
//              appended, after grid.sync, block 0 done
//   band       (101 percentiles, band_one_launch.cu) 0 start, 1 sample share and zeroing, 2 after
//              grid.sync; the plan (band_passes.cuh): 3 the sample's bands counted, 4 the table,
//              5 the sample's ranges counted, 6 their prefix sums, 7 the verdict; 8 counting
//              read, 9 flushed, 10 after grid.sync, 11 prefix sums and the ranks' ranges, 12 the
//              active ranges' positions placed, 13 the block's cursors (after a grid.sync), 14
//              compacting read, 15 after grid.sync, 16 the block's ranks selected
//
//   bench_phase_probe [--runs 50] [--kernels resident,bracket,band] [--sizes 16,20,24]
//                     [--types float,double] [--distributions uniform,normal,bucket_killer,...]
// (band: the one launch at every size given, past its default 2^27.)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../selection/src/cuda/checked_select.cuh"
#include "../selection/src/cuda/phase_stamps.cuh"
#include "../selection/src/cuda/sampled_multi_select.cuh"
#include "list_options.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cuda/workspace.hpp"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using Workspace = robustfit::selection::cuda::Workspace;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "phase_probe: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

constexpr int kMaxBlocks = detail::kPhaseStampBlocks;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// uniform and normal from std:: generators (as every earlier probe run); the others from
// robustfit::data::make_distribution (the selection bench's adversarial inputs, 16 distinct).
template <class T>
std::vector<T> make_input(std::size_t n, const std::string& distribution) {
  if (distribution != "uniform" && distribution != "normal")
    return robustfit::data::make_distribution<T>(robustfit::data::parse_distribution(distribution), n, 42);
  std::mt19937_64 rng(42);
  std::vector<T> host(n);
  if (distribution == "normal") {
    std::normal_distribution<double> d;
    for (auto& v : host) v = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<double> d(0, 1);
    for (auto& v : host) v = static_cast<T>(d(rng));
  }
  return host;
}

// Calls `call` --runs times with stamps on, prints the phases; then times it without.
void probe(const std::string& label, int runs, const std::function<void()>& call) {
  std::uint64_t* d_stamps = nullptr;
  const std::size_t count = std::size_t(kMaxBlocks) * detail::kPhaseStampsPerBlock;
  check(cudaMalloc(&d_stamps, count * sizeof(std::uint64_t)), "malloc stamps");
  std::vector<std::uint64_t> stamps(count);
  std::vector<std::vector<double>> block0(detail::kPhaseStampsPerBlock), last(detail::kPhaseStampsPerBlock),
      blocks(detail::kPhaseStampsPerBlock);
  for (int i = 0; i < 5; ++i) call();
  for (int r = 0; r < runs; ++r) {
    check(cudaMemset(d_stamps, 0, count * sizeof(std::uint64_t)), "memset stamps");
    detail::phase_stamps() = d_stamps;
    call();
    detail::phase_stamps() = nullptr;
    check(cudaMemcpy(stamps.data(), d_stamps, count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "copy stamps");
    std::uint64_t start = ~std::uint64_t{0};
    for (int b = 0; b < kMaxBlocks; ++b)
      if (stamps[std::size_t(b) * detail::kPhaseStampsPerBlock] != 0)
        start = std::min(start, stamps[std::size_t(b) * detail::kPhaseStampsPerBlock]);
    for (int p = 0; p < detail::kPhaseStampsPerBlock; ++p) {
      std::uint64_t latest = 0;
      int wrote = 0;
      for (int b = 0; b < kMaxBlocks; ++b) {
        const std::uint64_t t = stamps[std::size_t(b) * detail::kPhaseStampsPerBlock + p];
        if (t == 0) continue;
        ++wrote;
        latest = std::max(latest, t);
      }
      if (wrote == 0) continue;
      const std::uint64_t t0 = stamps[p];
      block0[p].push_back(t0 != 0 ? (t0 - start) * 1e-3 : -1.0);
      last[p].push_back((latest - start) * 1e-3);
      blocks[p].push_back(wrote);
    }
  }
  for (int p = 0; p < detail::kPhaseStampsPerBlock; ++p)
    if (!last[p].empty())
      std::printf("%s,phase,%d,%.2f,%.2f,%.0f\n", label.c_str(), p, median(block0[p]), median(last[p]),
                  median(blocks[p]));
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<double> us;
  for (int r = 0; r < std::max(runs, 100); ++r) {
    check(cudaEventRecord(a, nullptr), "record");
    call();
    check(cudaEventRecord(b, nullptr), "record");
    check(cudaEventSynchronize(b), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    us.push_back(ms * 1e3);
  }
  std::printf("%s,call,,%.2f,,\n", label.c_str(), median(us));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  check(cudaFree(d_stamps), "free stamps");
}

template <class T>
void run_type(const std::vector<std::string>& kernels, const std::vector<int>& sizes,
              const std::vector<std::string>& distributions, int runs, Workspace& workspace) {
  const char* type = sizeof(T) == 4 ? "float" : "double";
  for (const int log_n : sizes) {
    const std::size_t n = std::size_t{1} << log_n;
    for (const std::string& distribution : distributions) {
      const std::vector<T> host = make_input<T>(n, distribution);
      T* d = nullptr;
      check(cudaMalloc(&d, n * sizeof(T)), "malloc input");
      check(cudaMemcpy(d, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "copy input");
      std::vector<T> sorted = host;
      std::sort(sorted.begin(), sorted.end());
      const T expected = sorted[n / 2];
      std::vector<std::size_t> percentiles(101);
      for (std::size_t i = 0; i < percentiles.size(); ++i) percentiles[i] = i * (n - 1) / 100;
      std::vector<T> answers(percentiles.size());
      for (const std::string& kernel : kernels) {
        const std::string label = kernel + "," + type + "," + std::to_string(log_n) + "," + distribution;
        bool ok = true, declined = false;
        std::function<void()> call;
        if (kernel == "resident") {
          call = [&] {
            const auto got = detail::radix_select_resident<T>(d, n, n / 2, 0, workspace, nullptr);
            declined = declined || !got;
            ok = ok && got && got->value == expected;
          };
        } else if (kernel == "bracket") {
          call = [&] {
            const auto got = detail::bracket_select_one_launch<T>(d, n, n / 2, detail::BracketParams{},
                                                                 detail::kBracketSmallBlockSample, workspace, nullptr);
            declined = declined || !got;
            ok = ok && got && got->value == expected;
          };
        } else if (kernel == "band") {
          detail::SampledMultiParams any_size;  // the one launch at every size (the default stops at 2^27)
          any_size.band_one_launch_below = std::numeric_limits<std::size_t>::max();
          call = [&, any_size] {
            const auto got = detail::band_multi_select_one_launch<T>(d, n, percentiles.data(), percentiles.size(),
                                                                     answers.data(), any_size,
                                                                     workspace, nullptr);
            declined = declined || got != detail::BandOutcome::answered;
            for (std::size_t i = 0; i < percentiles.size(); ++i) ok = ok && answers[i] == sorted[percentiles[i]];
          };
        } else {
          std::fprintf(stderr, "phase_probe: unknown kernel %s\n", kernel.c_str());
          std::exit(2);
        }
        call();
        if (declined) {  // the form does not take this input here (the resident one past shared memory)
          std::printf("%s,declined,,,,\n", label.c_str());
          continue;
        }
        probe(label, runs, call);
        std::printf("%s,correct,,%d,,\n", label.c_str(), ok ? 1 : 0);
        std::fflush(stdout);
      }
      check(cudaFree(d), "free input");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 50;
  std::vector<std::string> kernels = {"resident", "bracket"};
  std::vector<int> sizes = {16, 20, 24};
  std::vector<std::string> types = {"float", "double"};
  std::vector<std::string> distributions = {"uniform", "normal"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") runs = std::atoi(argv[i + 1]);
    else if (flag == "--kernels") kernels = robustfit::bench::split(argv[i + 1]);
    else if (flag == "--types") types = robustfit::bench::split(argv[i + 1]);
    else if (flag == "--distributions") distributions = robustfit::bench::split(argv[i + 1]);
    else if (flag == "--sizes") {
      sizes.clear();
      for (const std::string& s : robustfit::bench::split(argv[i + 1])) sizes.push_back(std::atoi(s.c_str()));
    } else {
      std::fprintf(stderr, "usage: bench_phase_probe [--runs N] [--kernels resident,bracket,band] [--sizes 16,20,24] "
                           "[--types float,double] [--distributions uniform,normal,bucket_killer,...]\n");
      return 2;
    }
  }
  std::printf("kernel,type,log_n,distribution,row,phase,block0_us,last_us,blocks\n");
  Workspace workspace;
  for (const std::string& type : types) {
    if (type == "float") run_type<float>(kernels, sizes, distributions, runs, workspace);
    else run_type<double>(kernels, sizes, distributions, runs, workspace);
  }
  return 0;
}
