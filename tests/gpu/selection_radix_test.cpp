// Radix select's forms return what std::nth_element returns: the shared-memory one-launch form
// (radix_resident.cu) with its default grid and with fewer, fuller blocks; radix_one_launch; the
// separate passes (the copying variant from 2^20). Slices of every length the grid makes (sizes
// around the 4096-value block minimum), every rank kind, the adversarial distributions, NaN, and
// counters left dirty by something else: the resident form zeroes its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "selection/src/cuda/checked_select.cuh"
#include "selection/src/cuda/workspace_slots.cuh"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using robustfit::data::Distribution;
using robustfit::testing::DeviceVector;
using robustfit::selection::cuda::Workspace;

detail::RadixParams radix_params(bool resident, bool one_launch, int blocks) {
  detail::RadixParams p;
  p.resident = resident;
  p.one_launch = one_launch;
  p.one_launch_blocks = blocks;
  return p;
}

struct Case {
  const char* name;
  detail::RadixParams params;
};

const Case kCases[] = {
    {"resident", radix_params(true, true, 0)},
    {"resident, at most 5 blocks", radix_params(true, true, 5)},
    {"one launch", radix_params(false, true, 0)},
    {"separate passes", radix_params(false, false, 0)},
};

template <class T>
T nth_element_reference(const std::vector<T>& values, std::size_t k) {
  std::vector<T> copy(values);
  std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(k), copy.end());
  return copy[k];
}

std::vector<std::size_t> ranks_for(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> ks{0, 1, n / 2, n / 3, n - 2, n - 1, rng() % n};
  for (auto& k : ks) k = std::min(k, n - 1);  // 1 and n - 2 fall outside when n < 2
  return ks;
}

template <class T>
void sweep(std::initializer_list<std::size_t> sizes, std::span<const Distribution> distributions) {
  Workspace workspace;  // one for every call: each form must leave it fit for the others
  std::uint64_t seed = 500;
  for (const Distribution d : distributions) {
    for (const std::size_t n : sizes) {
      if (d == Distribution::bucket_killer && n < 65) continue;  // needs 65 powers
      const auto values = robustfit::data::make_distribution<T>(d, n, ++seed, 16);
      const DeviceVector<T> device(values);
      for (const std::size_t k : ranks_for(n, seed)) {
        const T expected = nth_element_reference(values, k);
        for (const Case& c : kCases) {
          const auto got = detail::radix_select_checked<T>(device.get(), n, k, c.params, workspace, nullptr);
          ASSERT_FALSE(got.has_nan) << robustfit::data::to_string(d);
          ASSERT_EQ(got.value, expected) << robustfit::data::to_string(d) << " (" << c.name << ") n=" << n
                                         << " k=" << k;
        }
      }
    }
  }
}

constexpr Distribution kAll[] = {
    Distribution::uniform,       Distribution::normal,       Distribution::cauchy,
    Distribution::half_normal_10pct_ten, Distribution::few_huge, Distribution::distinct_d,
    Distribution::all_equal,     Distribution::two_values_95, Distribution::sorted,
    Distribution::bucket_killer, Distribution::near_zero_doubles, Distribution::signed_zeros_and_infs};

TEST(GpuRadixForms, SmallAndBlockEdgeSizesFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({1, 2, 3, 7, 1000, 4095, 4096, 4097, 3 * 4096 + 1, 65536 + 3}, kAll);
}

TEST(GpuRadixForms, SmallAndBlockEdgeSizesDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>({1, 2, 5, 1000, 4095, 4097, 65536 + 3}, kAll);
}

// Past the copying threshold (2^20) and near the resident form's reach on the H200 (~7M floats,
// ~3.5M doubles: past it the form declines and the others answer).
TEST(GpuRadixForms, LargeSizes) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  constexpr Distribution kSome[] = {Distribution::normal, Distribution::two_values_95, Distribution::few_huge};
  sweep<float>({(1u << 20) + 1, (1u << 22) + 5, 7'500'000}, kSome);
  sweep<double>({(1u << 20) + 7, 3'700'000}, kSome);
}

// The resident form runs wherever the device launches cooperatively and a block's slice fits in
// its shared memory (any CUDA GPU at these sizes): its rows above are not silently the others'.
TEST(GpuRadixForms, ResidentFormRuns) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  int ordinal = 0, cooperative = 0;
  ASSERT_EQ(cudaGetDevice(&ordinal), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, ordinal), cudaSuccess);
  if (!cooperative) GTEST_SKIP() << "no cooperative launch on this device";
  Workspace workspace;
  for (const std::size_t n : {std::size_t{1}, std::size_t{4097}, std::size_t{1} << 20}) {
    const auto values = robustfit::data::make_distribution<float>(Distribution::normal, n, n, 16);
    const DeviceVector<float> device(values);
    const auto got = detail::radix_select_resident<float>(device.get(), n, n / 2, 0, workspace, nullptr);
    ASSERT_TRUE(got.has_value()) << "n=" << n;
    EXPECT_EQ(got->value, nth_element_reference(values, n / 2)) << "n=" << n;
  }
}

// The counters' slot filled with garbage between calls (as a failed or foreign use might leave
// it): the resident form clears it itself, no memset before the launch.
TEST(GpuRadixForms, ResidentFormZeroesItsCounters) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  const std::size_t n = 300'001;
  const auto values = robustfit::data::make_distribution<float>(Distribution::uniform, n, 3, 16);
  const DeviceVector<float> device(values);
  for (const std::size_t k : {std::size_t{0}, n / 2, n - 1}) {
    const std::size_t counters = 3 * 2048 + 2;  // floats: 3 digits' histograms, the NaN count, the finish's cursor
    void* slot = workspace.device(detail::kRadixHistogram, counters * sizeof(unsigned long long));
    ASSERT_EQ(cudaMemset(slot, 0x5a, counters * sizeof(unsigned long long)), cudaSuccess);
    const auto got = detail::radix_select_checked<float>(device.get(), n, k, {}, workspace, nullptr);
    ASSERT_FALSE(got.has_nan);
    EXPECT_EQ(got.value, nth_element_reference(values, k)) << "k=" << k;
  }
}

TEST(GpuRadixForms, NanIsReportedByEveryForm) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  for (const std::size_t n : {std::size_t{1}, std::size_t{5000}, std::size_t{200'003}}) {
    for (const std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
      auto values = robustfit::data::make_distribution<double>(Distribution::normal, n, n + at, 16);
      values[at] = std::numeric_limits<double>::quiet_NaN();
      const DeviceVector<double> device(values);
      for (const Case& c : kCases)
        EXPECT_TRUE(detail::radix_select_checked<double>(device.get(), n, n / 2, c.params, workspace, nullptr).has_nan)
            << c.name << " n=" << n << " NaN at " << at;
    }
  }
}

}  // namespace
