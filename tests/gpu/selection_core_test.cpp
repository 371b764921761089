// The CUDA selection algorithms of the core (sort, cutting plane, Floyd–Rivest, radix, sampled
// multiselection, bracket, automatic) return exactly what the CPU reference returns, on every
// distribution of docs/BENCHMARKS.md, for tiny to large n and for extreme and random ranks; NaN
// inputs are rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace {

using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
using robustfit::testing::DeviceVector;
namespace gpu = robustfit::selection::cuda;

constexpr Algorithm kCoreAlgorithms[] = {Algorithm::sort,          Algorithm::cutting_plane, Algorithm::floyd_rivest,
                                         Algorithm::radix,         Algorithm::sampled_multi, Algorithm::bracket,
                                         Algorithm::automatic};

std::vector<std::size_t> ranks_for(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::size_t> ks{0, n / 2, n - 1, std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)};
  if (n > 1) ks.push_back(1);
  if (n > 2) ks.push_back(n - 2);
  return ks;
}

// Every core algorithm, on the device copy of `values`, at each rank of ranks_for(n).
template <class T>
void expect_matches_reference(const std::vector<T>& values, const std::string& label,
                              std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<std::size_t> ks = ranks_for(values.size(), rng);
  const std::vector<T> expected = robustfit::selection::kth_smallest_many<T>(values, ks);
  DeviceVector<T> device(values);
  gpu::Workspace workspace;
  for (const Algorithm algorithm : kCoreAlgorithms) {
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const T got = gpu::kth_smallest(device.get(), values.size(), ks[i], algorithm, workspace);
      ASSERT_EQ(got, expected[i]) << label << " n=" << values.size() << " k=" << ks[i]
                                  << " algorithm=" << robustfit::selection::to_string(algorithm);
    }
  }
  ASSERT_EQ(device.download(), values) << label << ": the input was modified";
}

constexpr Distribution kDistributions[] = {
    Distribution::uniform,       Distribution::normal,         Distribution::half_normal,
    Distribution::beta_2_5,      Distribution::cauchy,         Distribution::mixture_normal_66_33,
    Distribution::half_normal_10pct_ten, Distribution::half_normal_wide_50_50,
    Distribution::few_huge,      Distribution::distinct_d,     Distribution::all_equal,
    Distribution::two_values_95, Distribution::sorted,         Distribution::reverse_sorted,
    Distribution::bucket_killer, Distribution::near_zero_doubles,
    Distribution::signed_zeros_and_infs};

template <class T>
void run_distribution_sweep(std::initializer_list<std::size_t> sizes) {
  std::uint64_t seed = 1;
  for (const Distribution distribution : kDistributions) {
    for (const std::size_t n : sizes) {
      if (distribution == Distribution::bucket_killer && n < 65) continue;  // needs 65 powers
      for (const std::size_t distinct : {std::size_t{3}, std::size_t{1024}}) {
        if (distinct != 3 && distribution != Distribution::distinct_d) continue;
        const auto values = robustfit::data::make_distribution<T>(distribution, n, ++seed, distinct);
        expect_matches_reference(values, std::string(robustfit::data::to_string(distribution)),
                                 seed);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(GpuSelectionCore, TinyAndOddSizesFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  run_distribution_sweep<float>({1, 2, 3, 4, 5, 6, 7, 8, 31, 64, 100, 101, 1000});
}

TEST(GpuSelectionCore, TinyAndOddSizesDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  run_distribution_sweep<double>({1, 2, 3, 4, 5, 6, 7, 8, 31, 64, 100, 101, 1000});
}

TEST(GpuSelectionCore, MediumSizesFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  run_distribution_sweep<float>({4097, 65536 + 3, (1u << 20) + 1});
}

TEST(GpuSelectionCore, MediumSizesDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  run_distribution_sweep<double>({4097, 65536 + 3, (1u << 20) + 1});
}

// Past the radix copy threshold and the cutting plane's bracket limit, on a few distributions.
TEST(GpuSelectionCore, LargeSizes) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto big = {Distribution::normal, Distribution::two_values_95, Distribution::bucket_killer,
                    Distribution::few_huge, Distribution::signed_zeros_and_infs};
  std::uint64_t seed = 100;
  for (const Distribution distribution : big) {
    const auto floats = robustfit::data::make_distribution<float>(distribution, (1u << 22) + 5, ++seed);
    expect_matches_reference(floats, std::string(robustfit::data::to_string(distribution)), seed);
    const auto doubles = robustfit::data::make_distribution<double>(distribution, (1u << 22) - 7, ++seed);
    expect_matches_reference(doubles, std::string(robustfit::data::to_string(distribution)), seed);
  }
  const auto huge = robustfit::data::make_distribution<float>(Distribution::uniform, 1u << 26, 7);
  expect_matches_reference(huge, "uniform", 7);
}

// Values up to the largest finite ones and beyond: the cutting plane must stay exact.
TEST(GpuSelectionCore, ExtremeMagnitudes) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  std::vector<double> values(300000);
  for (double& v : values) v = normal(rng) * 1e-300;
  values[0] = std::numeric_limits<double>::max();
  values[1] = -std::numeric_limits<double>::max();
  values[2] = 1e300;
  values[3] = std::numeric_limits<double>::infinity();
  values[4] = std::numeric_limits<double>::denorm_min();
  expect_matches_reference(values, "1e-300 scale with extremes", 5);
  std::vector<float> floats(300000);
  for (float& v : floats) v = float(normal(rng)) * 1e30f;
  floats[0] = -std::numeric_limits<float>::infinity();
  expect_matches_reference(floats, "1e30 scale", 6);
}

TEST(GpuSelectionCore, InplaceVariantsAgree) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto values = robustfit::data::make_distribution<double>(Distribution::normal, 100003, 9);
  const std::size_t k = 4242;
  const double expected = robustfit::selection::kth_smallest<double>(values, k);
  gpu::Workspace workspace;
  for (const Algorithm algorithm : kCoreAlgorithms) {
    DeviceVector<double> device(values);
    EXPECT_EQ(gpu::kth_smallest_inplace(device.get(), values.size(), k, algorithm, workspace),
              expected)
        << robustfit::selection::to_string(algorithm);
  }
}

TEST(GpuSelectionCore, ManyRanksMatchReference) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto values = robustfit::data::make_distribution<float>(Distribution::cauchy, 500001, 11);
  std::vector<std::size_t> ks;
  for (std::size_t p = 0; p <= 100; ++p) ks.push_back(p * (values.size() - 1) / 100);
  ks.push_back(17);  // repeats and any order are allowed
  ks.push_back(17);
  const auto expected = robustfit::selection::kth_smallest_many<float>(values, ks);
  DeviceVector<float> device(values);
  gpu::Workspace workspace;
  for (const Algorithm algorithm : kCoreAlgorithms) {
    std::vector<float> out(ks.size());
    gpu::kth_smallest_many(device.get(), values.size(), ks.data(), ks.size(), out.data(),
                           algorithm, workspace);
    EXPECT_EQ(out, expected) << robustfit::selection::to_string(algorithm);
  }
}

TEST(GpuSelectionCore, RejectsBadArgumentsAndNaN) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  std::vector<double> values = robustfit::data::make_distribution<double>(Distribution::normal, 200001, 3);
  gpu::Workspace workspace;
  DeviceVector<double> device(values);
  for (const Algorithm algorithm : kCoreAlgorithms) {
    EXPECT_THROW(gpu::kth_smallest(device.get(), 0, 0, algorithm, workspace), std::invalid_argument);
    EXPECT_THROW(gpu::kth_smallest(device.get(), values.size(), values.size(), algorithm, workspace),
                 std::invalid_argument);
  }
  for (const std::size_t position : {std::size_t{0}, std::size_t{123456}, values.size() - 1}) {
    for (const double nan : {std::numeric_limits<double>::quiet_NaN(),
                             -std::numeric_limits<double>::quiet_NaN()}) {
      std::vector<double> poisoned = values;
      poisoned[position] = nan;
      device.upload(poisoned);
      for (const Algorithm algorithm : kCoreAlgorithms) {
        EXPECT_THROW(gpu::kth_smallest(device.get(), values.size(), values.size() / 2, algorithm,
                                       workspace),
                     std::invalid_argument)
            << robustfit::selection::to_string(algorithm) << " NaN at " << position;
        const std::size_t k = 0;
        double out = 0;
        EXPECT_THROW(gpu::kth_smallest_many(device.get(), values.size(), &k, 1, &out, algorithm,
                                            workspace),
                     std::invalid_argument);
      }
    }
  }
}

TEST(GpuSelectionCore, HostWrapperAndDescription) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  EXPECT_FALSE(robustfit::selection::cuda_device_description().empty());
  const std::vector<double> values{5, -1, 3, 3, 9, -7};
  const std::vector<std::size_t> ks{0, 2, 5};
  EXPECT_EQ(robustfit::selection::cuda_kth_smallest_many<double>(values, ks, Algorithm::automatic),
            robustfit::selection::kth_smallest_many<double>(values, ks));
}

}  // namespace
