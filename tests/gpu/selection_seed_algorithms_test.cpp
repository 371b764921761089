// bucketSelect, SampleSelect and bucketMultiSelect (seeds 001, 002, 000) called directly:
// every answer must equal the CPU reference exactly, on every distribution of the generator,
// for tiny to large sizes, for float and double.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "selection/src/cuda/algorithms.cuh"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using robustfit::data::Distribution;
using robustfit::selection::cuda::Workspace;

template <class T>
class DeviceCopy {  // the input on the device, freed at scope exit
 public:
  explicit DeviceCopy(const std::vector<T>& values) : n_(values.size()) {
    EXPECT_EQ(cudaMalloc(&data_, n_ * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, values.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceCopy() { cudaFree(data_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  const T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t n_;
};

std::vector<std::size_t> interesting_ranks(std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> ks = {0, 1, n / 2, n - 2, n - 1, (n - 1) / 2};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3; ++i) ks.push_back(rng() % n);
  for (auto& k : ks) k = std::min(k, n - 1);  // n - 2 wraps when n < 2
  return ks;
}

// Checks the three algorithms against the CPU reference on one input.
template <class T>
void expect_exact(const std::vector<T>& values, const std::vector<std::size_t>& ks, Workspace& workspace,
                  const std::string& what) {
  const std::vector<T> expected =
      robustfit::selection::kth_smallest_many<T>(std::span<const T>(values), std::span<const std::size_t>(ks));
  const DeviceCopy<T> input(values);
  const std::size_t n = values.size();
  for (std::size_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(detail::bucket_select<T>(input.get(), n, ks[i], workspace, nullptr), expected[i])
        << "bucket_select " << what << " n=" << n << " k=" << ks[i];
    EXPECT_EQ(detail::sample_select<T>(input.get(), n, ks[i], workspace, nullptr), expected[i])
        << "sample_select " << what << " n=" << n << " k=" << ks[i];
  }
  std::vector<T> many(ks.size());
  detail::bucket_multi_select<T>(input.get(), n, ks.data(), ks.size(), many.data(), workspace, nullptr);
  for (std::size_t i = 0; i < ks.size(); ++i)
    EXPECT_EQ(many[i], expected[i]) << "bucket_multi_select " << what << " n=" << n << " k=" << ks[i];
}

template <class T>
void check_every_distribution(const std::vector<std::size_t>& sizes) {
  Workspace workspace;
  std::uint64_t seed = 1;
  for (const Distribution d : robustfit::data::all_distributions()) {
    const std::vector<std::size_t> distincts =
        d == Distribution::distinct_d ? std::vector<std::size_t>{1, 16, 128, 1024} : std::vector<std::size_t>{16};
    for (const std::size_t distinct : distincts) {
      for (const std::size_t n : sizes) {
        const auto values = robustfit::data::make_distribution<T>(d, n, ++seed, distinct);
        expect_exact(values, interesting_ranks(n, seed), workspace,
                     std::string(to_string(d)) + (d == Distribution::distinct_d ? "(" + std::to_string(distinct) + ")" : ""));
      }
    }
  }
}

const std::vector<std::size_t> kSmallSizes = {1, 2, 3, 4, 5, 7, 8, 31, 64, 65, 100, 1023, 1025, 4095, 4096, 4097, 10001};
const std::vector<std::size_t> kMediumSizes = {65536, 100003, (std::size_t{1} << 21) + 7};

TEST(SeedAlgorithms, FloatSmallSizesEveryDistribution) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_every_distribution<float>(kSmallSizes);
}

TEST(SeedAlgorithms, DoubleSmallSizesEveryDistribution) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_every_distribution<double>(kSmallSizes);
}

TEST(SeedAlgorithms, FloatMediumSizesEveryDistribution) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_every_distribution<float>(kMediumSizes);
}

TEST(SeedAlgorithms, DoubleMediumSizesEveryDistribution) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_every_distribution<double>(kMediumSizes);
}

// Past the Phase I threshold (2^21) twice over, on the seeds' hard cases.
TEST(SeedAlgorithms, LargeInputsOnHardDistributions) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  for (const Distribution d : {Distribution::uniform, Distribution::normal, Distribution::bucket_killer,
                               Distribution::two_values_95, Distribution::half_normal_10pct_ten}) {
    const std::size_t n = (std::size_t{1} << 24) + 3;
    expect_exact(robustfit::data::make_distribution<float>(d, n, 5), interesting_ranks(n, 5), workspace,
                 std::string(to_string(d)) + " float");
    expect_exact(robustfit::data::make_distribution<double>(d, n, 6), interesting_ranks(n, 6), workspace,
                 std::string(to_string(d)) + " double");
  }
  const std::size_t n = std::size_t{1} << 26;
  expect_exact(robustfit::data::make_distribution<float>(Distribution::uniform, n, 8), interesting_ranks(n, 8),
               workspace, "uniform float 2^26");
}

// Many ranks at once: evenly spaced (the percentiles headline) and random with repeats.
// Reference: a sorted copy (the CPU kth_smallest_many costs O(n * ranks), too slow for 8191
// ranks of large inputs); it is cross-checked against kth_smallest_many for few ranks.
template <class T>
void check_many_ranks(Distribution d, std::size_t n) {
  Workspace workspace;
  const auto values = robustfit::data::make_distribution<T>(d, n, 21);
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const DeviceCopy<T> input(values);
  std::mt19937_64 rng(3);
  for (const std::size_t count : {5u, 11u, 101u, 1001u, 8191u}) {
    std::vector<std::size_t> evenly(count), random(count);
    for (std::size_t i = 0; i < count; ++i) {
      evenly[i] = (n - 1) * i / (count - 1);
      random[i] = rng() % n;
    }
    random[count / 2] = random[0];  // a repeat
    for (const auto* ks : {&evenly, &random}) {
      if (count <= 11) {
        const std::vector<T> reference = robustfit::selection::kth_smallest_many<T>(
            std::span<const T>(values), std::span<const std::size_t>(*ks));
        for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(reference[i], sorted[(*ks)[i]]);
      }
      std::vector<T> got(ks->size());
      detail::bucket_multi_select<T>(input.get(), n, ks->data(), ks->size(), got.data(), workspace, nullptr);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != sorted[(*ks)[i]];
      EXPECT_EQ(wrong, 0u) << to_string(d) << " n=" << n << " ranks=" << count;
    }
  }
}

TEST(SeedAlgorithms, MultiSelectEvenlySpacedAndRandomRanks) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (const Distribution d : robustfit::data::all_distributions()) {
    check_many_ranks<float>(d, 300007);
    check_many_ranks<double>(d, 300007);
  }
  check_many_ranks<float>(Distribution::uniform, std::size_t{1} << 24);
  check_many_ranks<double>(Distribution::half_normal_wide_66_33, std::size_t{1} << 24);
  check_many_ranks<double>(Distribution::two_values_95, std::size_t{1} << 22);
}

}  // namespace
