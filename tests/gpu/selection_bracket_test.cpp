// Bracket selection (bracket_select.cu, bracket_one_launch.cu) against std::nth_element on the
// host copy: every distribution of the data module, float and double, n from 1 to 2^22 (the
// one-block samples, in one launch and in separate kernels, and the CUB-sorted sample; sizes
// below, at and above one sample and one chunk per warp), extreme and random ranks, inputs starting off a 16-byte boundary, one warm Workspace reused
// across everything, and the rare paths forced: no margin (rank k outside the bracket: the
// radix fallback) and a one-value buffer (overflow: the same fallback). Through the public
// entry points: kth_smallest, kth_smallest_inplace, kth_smallest_many and NaN rejection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "selection/src/cuda/checked_select.cuh"

namespace {

namespace detail = robustfit::selection::cuda::detail;
namespace gpu = robustfit::selection::cuda;
using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
using robustfit::testing::DeviceVector;
using robustfit::selection::cuda::Workspace;

detail::BracketParams params(int sample_size, float sigmas, double capacity_fraction, std::size_t max_capacity,
                             bool one_launch = true, std::size_t one_block_finish = 4096) {
  detail::BracketParams p;
  p.one_block_finish = one_block_finish;
  p.sample_size = sample_size;
  p.sigmas = sigmas;
  p.capacity_fraction = capacity_fraction;
  p.max_capacity = max_capacity;
  p.one_launch = one_launch;
  return p;
}

struct Case {
  const char* name;
  detail::BracketParams params;
};

// Defaults (by n); the two one-block samples (2048 keys: one cooperative launch, and the
// separate kernels; 8192: separate kernels) and the CUB-sorted sample at every n; no margin
// (misses about half the time); a buffer of one value (overflows whenever rank k is inside).
const Case kCases[] = {
    {"default", {}},
    {"block sample 2048", params(0, 3.0f, 0.125, ~std::size_t{0})},
    {"block sample 8192", params(8192, 3.0f, 0.125, ~std::size_t{0})},
    {"block sample 2048, separate kernels", params(0, 3.0f, 0.125, ~std::size_t{0}, false)},
    {"block sample 2048, one launch, digits to the end", params(0, 3.0f, 0.125, ~std::size_t{0}, true, 0)},
    {"block sample 8192, one launch, digits to the end", params(8192, 3.0f, 0.125, ~std::size_t{0}, true, 0)},
    {"no margin, separate kernels", params(-1, 0.0f, 0.125, ~std::size_t{0}, false)},
    {"tiny buffer, separate kernels", params(-1, 4.0f, 0.0, 1, false)},
    {"cub sample 2^16", params(1 << 16, 3.0f, 0.125, ~std::size_t{0})},
    {"cub sample 2^14 + 3", params((1 << 14) + 3, 3.0f, 0.125, ~std::size_t{0})},
    {"no margin", params(-1, 0.0f, 0.125, ~std::size_t{0})},
    {"no margin, cub sample", params(1 << 16, 0.0f, 0.125, ~std::size_t{0})},
    {"tiny buffer", params(-1, 4.0f, 0.0, 1)},
    {"tiny buffer, cub sample", params(1 << 16, 4.0f, 0.0, 1)},
};

template <class T>
T nth_element_reference(const T* values, std::size_t n, std::size_t k) {
  std::vector<T> copy(values, values + n);
  std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(k), copy.end());
  return copy[k];
}

std::vector<std::size_t> ranks_for(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> ks{0, 1, n / 2, n / 3, n - 2, n - 1, rng() % n, rng() % n};
  for (auto& k : ks) k = std::min(k, n - 1);  // 1 and n - 2 fall outside when n < 2
  return ks;
}

template <class T>
void expect_exact(const std::vector<T>& values, const DeviceVector<T>& device, std::size_t offset,
                  const std::string& what, Workspace& workspace) {
  const std::size_t n = values.size() - offset;
  const std::vector<std::size_t> ks = ranks_for(n, n + offset);
  for (const std::size_t k : ks) {
    const T expected = nth_element_reference(values.data() + offset, n, k);
    for (const Case& c : kCases) {
      const auto got = detail::bracket_select_checked<T>(device.get() + offset, n, k, c.params, workspace, nullptr);
      ASSERT_FALSE(got.has_nan) << what;
      ASSERT_EQ(got.value, expected) << what << " (" << c.name << ") n=" << n << " offset=" << offset << " k=" << k;
    }
  }
}

template <class T>
void sweep(std::initializer_list<std::size_t> sizes, std::span<const Distribution> distributions) {
  Workspace workspace;  // one for everything: a warm workspace must give the same answers
  std::uint64_t seed = 110;
  for (const Distribution d : distributions) {
    for (const std::size_t n : sizes) {
      if (d == Distribution::bucket_killer && n < 65) continue;  // needs 65 powers
      const auto values = robustfit::data::make_distribution<T>(d, n + 3, ++seed, 16);
      const DeviceVector<T> device(values);
      for (const std::size_t offset : {0, 1, 3}) {
        if (n > (1u << 20) && offset == 1) continue;  // the host reference dominates the run time
        expect_exact(values, device, offset, std::string(robustfit::data::to_string(d)), workspace);
        if (::testing::Test::HasFatalFailure()) return;
      }
      ASSERT_EQ(device.download(), values) << "the input was modified";
    }
  }
}

// A few of the distributions (ties, ±0 and ±inf, sorted) for the sanitizer runs.
constexpr Distribution kFewDistributions[] = {Distribution::uniform, Distribution::two_values_95,
                                              Distribution::signed_zeros_and_infs, Distribution::sorted};

// Around the one-block samples (2048, 8192), the pass's 16-byte vectors and chunks (medium),
// 2^20 and the default sample's switch at 2^22 (large; 2^26: LargeSizesDefaultSample*). Medium
// and large sizes stay out of the sanitizer runs (docs/RELIABILITY.md: BIG); tiny sizes are in.
TEST(GpuBracket, TinySizesFewDistributionsAndRarePaths) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({1, 9, 4099}, kFewDistributions);
  sweep<double>({1, 9, 4099}, kFewDistributions);
}

TEST(GpuBracket, MediumSizesEveryDistributionAndRarePathFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({1, 2, 3, 5, 9, 100, 4099, 8191, 8193, 65537}, robustfit::data::all_distributions());
}

TEST(GpuBracket, MediumSizesEveryDistributionAndRarePathDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>({1, 2, 3, 5, 9, 100, 4099, 8191, 8193, 65537}, robustfit::data::all_distributions());
}

TEST(GpuBracket, LargeSizesEveryDistributionAndRarePathFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({300001, (1u << 20) - 1, 1u << 20, (1u << 22) - 1, (1u << 22) + 1}, robustfit::data::all_distributions());
}

TEST(GpuBracket, LargeSizesEveryDistributionAndRarePathDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>({300001, (1u << 20) - 1, 1u << 20, (1u << 22) - 1, (1u << 22) + 1}, robustfit::data::all_distributions());
}

// The default's switch to a CUB-sorted sample at 2^26, on the public entry point; NaN there too.
template <class T>
void default_sample_switch() {
  Workspace workspace;
  const std::size_t n = (std::size_t{1} << 26) + 5;
  for (const Distribution d : {Distribution::uniform, Distribution::two_values_95, Distribution::sorted}) {
    const auto values = robustfit::data::make_distribution<T>(d, n, 7, 16);
    const DeviceVector<T> device(values);
    std::mt19937_64 rng(9);
    for (const std::size_t k : {std::size_t{0}, n / 2, n - 1, std::size_t(rng() % n)}) {
      ASSERT_EQ(gpu::kth_smallest(device.get(), n, k, Algorithm::bracket, workspace),
                nth_element_reference(values.data(), n, k))
          << robustfit::data::to_string(d) << " k=" << k;
    }
  }
  auto values = robustfit::data::make_distribution<T>(Distribution::normal, n, 3);
  values[n / 3] = -std::numeric_limits<T>::quiet_NaN();
  const DeviceVector<T> device(values);
  EXPECT_THROW(gpu::kth_smallest(device.get(), n, n / 2, Algorithm::bracket, workspace), std::invalid_argument);
}

TEST(GpuBracket, LargeSizesDefaultSampleAbove2To26Float) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  default_sample_switch<float>();
}

TEST(GpuBracket, LargeSizesDefaultSampleAbove2To26Double) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  default_sample_switch<double>();
}

// kth_smallest, kth_smallest_inplace and kth_smallest_many (a loop of single ranks) with the
// algorithm named explicitly.
TEST(GpuBracket, PublicEntryPoints) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  const std::size_t n = 200003;
  const auto values = robustfit::data::make_distribution<double>(Distribution::cauchy, n, 5);
  const std::vector<std::size_t> ks = ranks_for(n, 11);
  DeviceVector<double> device(values);
  std::vector<double> many(ks.size());
  gpu::kth_smallest_many(device.get(), n, ks.data(), ks.size(), many.data(), Algorithm::bracket, workspace);
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const double expected = nth_element_reference(values.data(), n, ks[i]);
    EXPECT_EQ(gpu::kth_smallest(device.get(), n, ks[i], Algorithm::bracket, workspace), expected) << ks[i];
    EXPECT_EQ(many[i], expected) << ks[i];
    DeviceVector<double> scratch(values);
    EXPECT_EQ(gpu::kth_smallest_inplace(scratch.get(), n, ks[i], Algorithm::bracket, workspace), expected) << ks[i];
  }
  // Batched columns: the batched bracket (selection_batched_bracket_test.cpp has its own cases).
  DeviceVector<double> out(2);
  gpu::kth_smallest_batched(device.get(), 1000, 2, 1000, 5, out.get(), Algorithm::bracket, workspace);
  const std::vector<double> got = out.download();
  for (std::size_t j = 0; j < 2; ++j)
    EXPECT_EQ(got[j], nth_element_reference(values.data() + j * 1000, 1000, 5)) << "column " << j;
}

// NaN anywhere (either sign, either sample path) is found by the one pass and rejected.
template <class T>
void rejects_nan() {
  Workspace workspace;
  for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{100000}}) {
    for (const T nan : {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN()}) {
      auto values = robustfit::data::make_distribution<T>(Distribution::uniform, n, 3);
      values[n * 7 / 9] = nan;
      DeviceVector<T> device(values);
      for (const std::size_t k : {std::size_t{0}, n / 2, n - 1}) {
        EXPECT_THROW(gpu::kth_smallest(device.get(), n, k, Algorithm::bracket, workspace), std::invalid_argument)
            << "n=" << n << " k=" << k;
        for (const Case& c : kCases)
          EXPECT_TRUE(detail::bracket_select_checked<T>(device.get(), n, k, c.params, workspace, nullptr).has_nan)
              << c.name << " n=" << n << " k=" << k;
      }
    }
  }
}

TEST(GpuBracket, RejectsNaNFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  rejects_nan<float>();
}

TEST(GpuBracket, RejectsNaNDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  rejects_nan<double>();
}

}  // namespace
