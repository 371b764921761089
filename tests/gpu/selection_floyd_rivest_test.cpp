// Floyd–Rivest's rare paths, forced: a bracket too narrow to hold rank k (the fallback to
// radixSelect), a buffer too small for the bracket (overflow), ranks on the bracket's ends
// (duplicates), and inputs that start off a 16-byte boundary (the scalar head of the vector
// pass). Every answer must equal the CPU reference exactly.
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
#include "robustfit/selection/cpu_select.hpp"
#include "selection/src/cuda/bracket_bookkeeping.hpp"
#include "selection/src/cuda/checked_select.cuh"
#include "selection/src/cuda/key_traits.cuh"
#include "selection/src/cuda/workspace_slots.cuh"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using robustfit::data::Distribution;
using robustfit::selection::cuda::Workspace;
using robustfit::testing::DeviceVector;

struct Case {
  const char* name;
  detail::FloydRivestParams params;
};

// Defaults; no margin (misses about half the time); a buffer of one value (overflows).
const Case kCases[] = {{"default", {}}, {"no margin", {0.0f, 0.125, ~std::size_t{0}}}, {"tiny buffer", {4.0f, 0.0, 1}}};

template <class T>
void expect_exact(const std::vector<T>& values, std::size_t offset, const std::string& what, Workspace& workspace) {
  const std::span<const T> view(values.data() + offset, values.size() - offset);
  const std::size_t n = view.size();
  std::mt19937_64 rng(n + offset);
  std::vector<std::size_t> ks{0, 1, n / 2, n / 3, n - 2, n - 1, rng() % n, rng() % n};
  for (auto& k : ks) k = std::min(k, n - 1);  // 1 and n - 2 fall outside when n < 2
  const std::vector<T> expected = robustfit::selection::kth_smallest_many<T>(view, std::span<const std::size_t>(ks));
  DeviceVector<T> device(values);
  for (const Case& c : kCases) {
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const auto got = detail::floyd_rivest_select_checked<T>(device.get() + offset, n, ks[i], c.params, workspace, nullptr);
      ASSERT_FALSE(got.has_nan) << what;
      ASSERT_EQ(got.value, expected[i]) << what << " (" << c.name << ") n=" << n << " offset=" << offset
                                        << " k=" << ks[i];
    }
  }
}

template <class T>
void sweep(std::initializer_list<std::size_t> sizes) {
  Workspace workspace;
  std::uint64_t seed = 40;
  for (const Distribution d : robustfit::data::all_distributions()) {
    for (const std::size_t n : sizes) {
      if (d == Distribution::bucket_killer && n < 65) continue;  // needs 65 powers
      const auto values = robustfit::data::make_distribution<T>(d, n + 3, ++seed, 16);
      for (const std::size_t offset : {0, 1, 3}) {
        expect_exact(values, offset, std::string(robustfit::data::to_string(d)), workspace);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(GpuFloydRivest, ForcedMissesOverflowsAndOffsetsFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({1, 2, 5, 9, 100, 4099, 300001});
}

TEST(GpuFloydRivest, ForcedMissesOverflowsAndOffsetsDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>({1, 2, 5, 9, 100, 4099, 300001});
}

TEST(GpuFloydRivest, ReportsNaNFoundInItsOnePass) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  auto values = robustfit::data::make_distribution<float>(Distribution::uniform, 100000, 3);
  values[77777] = std::numeric_limits<float>::quiet_NaN();
  DeviceVector<float> device(values);
  Workspace workspace;
  EXPECT_TRUE(detail::floyd_rivest_select_checked<float>(device.get(), values.size(), 50000, {}, workspace, nullptr).has_nan);
}

// The pass follows the sample: the closed one (keeps [lo, hi]) where neither end repeats in it,
// the open one (counts the ends' ties) where they do; both exact, both report a NaN.
TEST(GpuFloydRivest, ClosedPassUnlessTheSampleShowsTiesAndBothSeeNaN) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  const std::size_t n = 1 << 20;
  struct Expect {
    Distribution d;
    bool closed;
  };
  for (const Expect e : {Expect{Distribution::uniform, true}, Expect{Distribution::normal, true},
                         Expect{Distribution::all_equal, false}, Expect{Distribution::two_values_95, false},
                         Expect{Distribution::distinct_d, false}}) {
    auto values = robustfit::data::make_distribution<float>(e.d, n, 11, 16);
    const std::string what(robustfit::data::to_string(e.d));
    for (const bool nan : {false, true}) {
      if (nan) values[n / 3] = std::numeric_limits<float>::quiet_NaN();
      const float expected = nan ? 0.0f : robustfit::selection::kth_smallest<float>(values, n / 2);
      DeviceVector<float> device(values);
      const auto got = detail::floyd_rivest_select_checked<float>(device.get(), n, n / 2, {}, workspace, nullptr);
      const auto* state =
          workspace.host_as<detail::bracketing::BracketState<float>>(detail::kFloydRivestState, 1);
      EXPECT_EQ(state->closed != 0, e.closed) << what;
      ASSERT_EQ(got.has_nan, nan) << what;
      if (!nan) {
        EXPECT_EQ(got.value, expected) << what;
      }
    }
  }
}

// The bracket comes from the sample's order statistics, selected on the device without a sort
// (block_sample_select.cuh): lo, hi and the pass chosen must be those of the sorted sample. The
// reference draws the same 8192 positions (splitmix64's finaliser, as seed::mix, scaled to
// [0, n) by the high word of its 128-bit product with n, as seed::sample_index) and sorts their
// keys on the host. Ranks at the ends put lo or hi off the sample (-inf / +inf).
__extension__ typedef unsigned __int128 Product;  // GCC/Clang extension: the full 64 x 64-bit product

std::uint64_t splitmix_finaliser(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <class T>
void expect_sample_bracket(Distribution d, Workspace& workspace) {
  using Key = typename detail::KeyTraits<T>::Key;
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const auto values = robustfit::data::make_distribution<T>(d, n, 5, 16);
  std::vector<Key> sample(8192);
  for (std::size_t i = 0; i < sample.size(); ++i)
    sample[i] = detail::KeyTraits<T>::to_key(
        values[static_cast<std::size_t>(static_cast<Product>(splitmix_finaliser(i + 1)) * n >> 64)]);
  std::sort(sample.begin(), sample.end());
  const auto at = [&](long long i) { return detail::KeyTraits<T>::from_key(sample[static_cast<std::size_t>(i)]); };
  const DeviceVector<T> device(values);
  for (const std::size_t k : {std::size_t{0}, std::size_t{3}, n / 3, n / 2, n - 4, n - 1}) {
    const auto expected = detail::bracketing::bracket_from_sample<T>(at, 8192, k, n, 3.0f);
    (void)detail::floyd_rivest_select_checked<T>(device.get(), n, k, {}, workspace, nullptr);
    const auto* state = workspace.host_as<detail::bracketing::BracketState<T>>(detail::kFloydRivestState, 1);
    const std::string what = std::string(robustfit::data::to_string(d)) + " k=" + std::to_string(k);
    EXPECT_EQ(detail::KeyTraits<T>::to_key(state->lo), detail::KeyTraits<T>::to_key(expected.lo)) << what;
    EXPECT_EQ(detail::KeyTraits<T>::to_key(state->hi), detail::KeyTraits<T>::to_key(expected.hi)) << what;
    // Ties count by value in the reference, by key on the device: they differ only for -0 / +0.
    if (d != Distribution::signed_zeros_and_infs) {
      EXPECT_EQ(state->closed, expected.closed) << what;
    }
  }
}

TEST(GpuFloydRivest, BracketIsTheSortedSamplesOrderStatistics) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  for (const Distribution d : {Distribution::uniform, Distribution::normal, Distribution::two_values_95,
                               Distribution::distinct_d, Distribution::bucket_killer, Distribution::few_huge,
                               Distribution::signed_zeros_and_infs, Distribution::all_equal}) {
    expect_sample_bracket<float>(d, workspace);
    expect_sample_bracket<double>(d, workspace);
  }
}

}  // namespace
