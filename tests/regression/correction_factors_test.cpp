// robustbase's small-sample correction factors (LTScnp2, LTScnp2.rew) over a grid, from R.
#include <gtest/gtest.h>

#include <cmath>

#include "regression/src/consistency.hpp"
#include "robustfit/data/csv.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

TEST(CorrectionFactors, MatchRobustbaseOnTheGrid) {
  const auto table = data::read_csv(fixture_path("lts_correction_factors.csv"));
  const auto& p = table.columns[table.column_index("p")].values;
  const auto& intercept = table.columns[table.column_index("intercept")].values;
  const auto& n = table.columns[table.column_index("n")].values;
  const auto& alpha = table.columns[table.column_index("alpha")].values;
  const auto& raw = table.columns[table.column_index("raw")].values;
  const auto& rew = table.columns[table.column_index("rew")].values;
  ASSERT_GT(table.rows(), 100u);
  for (std::size_t i = 0; i < table.rows(); ++i) {
    const auto pi = static_cast<std::size_t>(p[i]), ni = static_cast<std::size_t>(n[i]);
    EXPECT_NEAR(regression::detail::lts_small_sample_raw(pi, intercept[i] != 0, ni, alpha[i]), raw[i], 1e-12 * std::abs(raw[i])) << "row " << i;
    EXPECT_NEAR(regression::detail::lts_small_sample_reweighted(pi, intercept[i] != 0, ni, alpha[i]), rew[i], 1e-12 * std::abs(rew[i])) << "row " << i;
  }
}

TEST(CorrectionFactors, NormalQuantile) {
  EXPECT_NEAR(regression::detail::qnorm(0.9875), 2.2414027276049464, 1e-14);  // R: qnorm(0.9875)
  EXPECT_NEAR(regression::detail::qnorm(0.75), 0.67448975019608171, 1e-14);
}

}  // namespace
}  // namespace robustfit::testing
