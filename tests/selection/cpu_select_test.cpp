// The CPU selection reference against sorting: every k at small n, random and adversarial inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::testing {
namespace {

template <class T>
class CpuSelect : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuSelect, Types);

template <class T>
void expect_every_rank_matches_sorting(const std::vector<T>& values) {
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> ks(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    ks[k] = values.size() - 1 - k;  // descending, to exercise the multi-rank bookkeeping
    ASSERT_EQ(selection::kth_smallest<T>(values, k), sorted[k]) << "k " << k << " n " << values.size();
  }
  const std::vector<T> many = selection::kth_smallest_many<T>(values, ks);
  for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(many[i], sorted[ks[i]]) << "rank " << ks[i];
}

TYPED_TEST(CpuSelect, EveryRankOfSmallRandomInputs) {
  std::mt19937_64 gen(1);
  for (std::size_t n = 1; n <= 64; ++n) {
    std::vector<TypeParam> v(n);
    std::normal_distribution<double> normal;
    for (auto& x : v) x = static_cast<TypeParam>(normal(gen));
    expect_every_rank_matches_sorting(v);
  }
}

TYPED_TEST(CpuSelect, EveryRankOfAdversarialInputs) {
  using T = TypeParam;
  const T inf = std::numeric_limits<T>::infinity();
  const std::vector<std::vector<T>> cases = {
      {5, 5, 5, 5, 5, 5, 5},                                  // all equal
      {1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2},  // two values
      {-inf, 3, inf, 0, -0.0f, inf, -inf, 1},                 // +-inf, +-0
      {std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), 1, -1, std::numeric_limits<T>::denorm_min()},
      {1e30f, -1e30f, 1e30f, 2, 3, 1e-30f, 0},                 // huge and tiny
  };
  for (const auto& c : cases) expect_every_rank_matches_sorting(c);
}

TYPED_TEST(CpuSelect, EveryBenchmarkDistribution) {
  for (const auto distribution : data::all_distributions()) {
    const auto values = data::make_distribution<TypeParam>(distribution, 1000, 9);
    std::vector<TypeParam> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{499}, std::size_t{500}, std::size_t{998}, std::size_t{999}})
      EXPECT_EQ(selection::kth_smallest<TypeParam>(values, k), sorted[k]) << data::to_string(distribution) << " k " << k;
  }
}

TYPED_TEST(CpuSelect, InputIsPreservedUnlessInPlace) {
  std::vector<TypeParam> v{3, 1, 2, 5, 4};
  const auto copy = v;
  EXPECT_EQ(selection::kth_smallest<TypeParam>(v, 2), 3);
  EXPECT_EQ(v, copy);
  EXPECT_EQ(selection::kth_smallest_inplace<TypeParam>(std::span<TypeParam>(v), 0), 1);
  EXPECT_EQ(v[0], 1);
}

TYPED_TEST(CpuSelect, ErrorsForEmptyInputRankOutOfRangeAndNaN) {
  const std::vector<TypeParam> empty;
  EXPECT_THROW(selection::kth_smallest<TypeParam>(empty, 0), std::invalid_argument);
  const std::vector<TypeParam> three{1, 2, 3};
  try {
    selection::kth_smallest<TypeParam>(three, 3);
    ADD_FAILURE() << "no error for k = n";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("k = 3 is out of range for n = 3"), std::string::npos) << e.what();
  }
  const std::vector<std::size_t> ks{0, 7};
  EXPECT_THROW(selection::kth_smallest_many<TypeParam>(three, ks), std::invalid_argument);
  const std::vector<TypeParam> nan{1, std::numeric_limits<TypeParam>::quiet_NaN(), 3};
  try {
    selection::kth_smallest<TypeParam>(nan, 0);
    ADD_FAILURE() << "no error for NaN";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("NaN (at 0-based position 1)"), std::string::npos) << e.what();
  }
}

TEST(Algorithm, NamesRoundTripAndUnknownNamesAreErrors) {
  for (auto name : selection::algorithm_names()) EXPECT_EQ(selection::to_string(selection::parse_algorithm(name)), name);
  EXPECT_THROW(selection::parse_algorithm("quickselect"), std::invalid_argument);
}

}  // namespace
}  // namespace robustfit::testing
