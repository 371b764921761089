// The selection inputs: sizes, determinism, and the properties each distribution promises.
#include "robustfit/data/distributions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

namespace {

using robustfit::data::Distribution;
using robustfit::data::all_distributions;
using robustfit::data::make_distribution;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  // memcmp's pointers must not be null even for 0 bytes (UBSan): an empty vector's data() may be.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

TEST(Distributions, EveryDistributionHasTheRequestedSizeAndIsDeterministic) {
  for (const Distribution d : all_distributions()) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{64},
                                std::size_t{65}, std::size_t{1000}}) {
      const auto a = make_distribution<double>(d, n, 7);
      const auto b = make_distribution<double>(d, n, 7);
      EXPECT_EQ(a.size(), n) << to_string(d);
      EXPECT_TRUE(same_bits(a, b)) << to_string(d) << " n=" << n;
      EXPECT_EQ(make_distribution<float>(d, n, 7).size(), n);
      for (double x : a) EXPECT_FALSE(std::isnan(x)) << to_string(d);
    }
  }
}

TEST(Distributions, DifferentSeedsGiveDifferentRandomValues) {
  EXPECT_FALSE(same_bits(make_distribution<double>(Distribution::normal, 100, 1),
                         make_distribution<double>(Distribution::normal, 100, 2)));
}

TEST(Distributions, NamesRoundTripAndUnknownNamesAreRejected) {
  for (const Distribution d : all_distributions())
    EXPECT_EQ(robustfit::data::parse_distribution(to_string(d)), d);
  EXPECT_THROW(robustfit::data::parse_distribution("gaussian"), std::invalid_argument);
}

TEST(Distributions, UniformAndBetaStayInTheUnitInterval) {
  for (const Distribution d : {Distribution::uniform, Distribution::beta_2_5}) {
    const auto v = make_distribution<double>(d, 10000, 3);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
  }
  const auto beta = make_distribution<double>(Distribution::beta_2_5, 100000, 3);
  double mean = 0;
  for (double x : beta) mean += x / static_cast<double>(beta.size());
  EXPECT_NEAR(mean, 2.0 / 7.0, 0.01);  // E[Beta(2,5)] = 2/7
}

TEST(Distributions, BucketKillerHoldsThe65PowersOfTwoAndTheRestNearTwoToMinus32) {
  const std::size_t n = 5000;
  const auto v = make_distribution<double>(Distribution::bucket_killer, n, 11);
  for (int p = -32; p <= 32; ++p)
    EXPECT_EQ(std::count(v.begin(), v.end(), std::ldexp(1.0, p)), 1) << p;
  std::size_t near = 0;
  for (double x : v)
    if (x >= std::ldexp(1.0, -32) && x < std::ldexp(1.0, -32) * 1.01) ++near;
  EXPECT_EQ(near, n - 64);  // the n-65 jittered values plus 2^-32 itself
}

TEST(Distributions, TwoValues95HasExactly95PercentOnes) {
  const auto v = make_distribution<float>(Distribution::two_values_95, 2000, 5);
  EXPECT_EQ(std::count(v.begin(), v.end(), 1.0f), 1900);
  EXPECT_EQ(std::count(v.begin(), v.end(), 2.0f), 100);
}

TEST(Distributions, DistinctDHasAtMostDValues) {
  for (const std::size_t d : {1u, 16u, 128u, 1024u}) {
    const auto v = make_distribution<double>(Distribution::distinct_d, 100000, 9, d);
    const std::set<double> values(v.begin(), v.end());
    EXPECT_EQ(values.size(), d);
    EXPECT_EQ(*values.rbegin(), static_cast<double>(d - 1));
  }
  EXPECT_THROW(make_distribution<double>(Distribution::distinct_d, 10, 1, 0), std::invalid_argument);
}

TEST(Distributions, OrderedAndConstantInputs) {
  const auto up = make_distribution<double>(Distribution::sorted, 1000, 1);
  const auto down = make_distribution<double>(Distribution::reverse_sorted, 1000, 1);
  EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
  EXPECT_TRUE(std::is_sorted(down.rbegin(), down.rend()));
  const auto same = make_distribution<float>(Distribution::all_equal, 100, 1);
  EXPECT_EQ(std::count(same.begin(), same.end(), 1.0f), 100);
}

TEST(Distributions, FewHugeHasOneToThreeHugeValues) {
  const auto v = make_distribution<float>(Distribution::few_huge, 10000, 4);
  const auto huge = std::count_if(v.begin(), v.end(), [](float x) { return x >= 1e30f; });
  EXPECT_GE(huge, 1);
  EXPECT_LE(huge, 3);
}

TEST(Distributions, NearZeroValuesAreTinyAndSpecialValuesAppear) {
  const auto tiny = make_distribution<double>(Distribution::near_zero_doubles, 1000, 2);
  for (double x : tiny) EXPECT_LT(std::fabs(x), 1e-300);
  const auto special = make_distribution<double>(Distribution::signed_zeros_and_infs, 1000, 2);
  EXPECT_GT(std::count_if(special.begin(), special.end(), [](double x) { return x == 0 && std::signbit(x); }), 0);
  EXPECT_GT(std::count_if(special.begin(), special.end(), [](double x) { return x == 0 && !std::signbit(x); }), 0);
  EXPECT_GT(std::count(special.begin(), special.end(), HUGE_VAL), 0);
  EXPECT_GT(std::count(special.begin(), special.end(), -HUGE_VAL), 0);
}

}  // namespace
