#pragma once
// A fit across ranks against the same fit in one process on all rows: numbers to 1e-9 relative,
// this rank's rows of the per-row results (outlier flags, weights, the h-subset) exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "robustfit/regression/fit_result.hpp"

namespace robustfit::testing {

inline void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::abs(want))) << what;
}

// Coefficients, raw coefficients and their standard errors.
inline void expect_same_coefficients(const regression::FitResult& got, const regression::FitResult& want,
                                     const std::string& where) {
  ASSERT_EQ(got.coefficients.size(), want.coefficients.size()) << where;
  for (Eigen::Index j = 0; j < want.coefficients.size(); ++j) {
    expect_close(got.coefficients(j), want.coefficients(j), "coefficient " + where);
    expect_close(got.raw_coefficients(j), want.raw_coefficients(j), "raw coefficient " + where);
    expect_close(got.inference.coefficients[static_cast<std::size_t>(j)].std_error,
                 want.inference.coefficients[static_cast<std::size_t>(j)].std_error, "std error " + where);
  }
}

// `got` holds this rank's rows [begin, end) of `want`'s.
inline void expect_same_rows(const regression::FitResult& got, const regression::FitResult& want, std::size_t begin,
                             std::size_t end, const std::string& where) {
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  ASSERT_EQ(got.residuals.size(), m) << where;
  for (Eigen::Index i = 0; i < m; ++i) {
    EXPECT_EQ(got.outlier[static_cast<std::size_t>(i)], want.outlier[static_cast<std::size_t>(b + i)]) << where << " row " << b + i;
    EXPECT_EQ(got.weights(i), want.weights(b + i)) << where;
    expect_close(got.residuals(i), want.residuals(b + i), "residual " + where);
  }
  std::vector<std::size_t> mine;
  for (std::size_t row : want.best_subset)
    if (row >= begin && row < end) mine.push_back(row - begin);
  EXPECT_EQ(got.best_subset, mine) << where;
}

}  // namespace robustfit::testing
