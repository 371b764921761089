// lms_window_choice (the CUDA engine's choice of the LMS candidates that need the exact window,
// from bounds on their objectives): the references are the `needed` best upper bounds with
// distinct slopes, and only candidates whose lower bound exceeds the last of them are left out.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "regression/src/lms_window_choice.hpp"

namespace robustfit::testing {
namespace {

using regression::detail::lms_window_choice;
using Columns = std::vector<std::size_t>;

// p x m candidates with different slopes (row 1 = j), intercepts row 0.
Eigen::MatrixXd distinct(Eigen::Index m) {
  Eigen::MatrixXd betas = Eigen::MatrixXd::Zero(3, m);
  for (Eigen::Index j = 0; j < m; ++j) betas(1, j) = static_cast<double>(j);
  return betas;
}

TEST(LmsWindowChoice, LeavesOutOnlyLowerBoundsAboveTheCut) {
  const Eigen::MatrixXd betas = distinct(6);
  const std::vector<double> lower{1, 5, 2, 3.5, 9, 3}, upper{1.5, 6, 2.5, 4, 10, 3.2};
  // needed 2: references 0 (1.5) and 2 (2.5): cut 2.5; 3 (3.5), 1, 4 and 5 (3) are out.
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 2), (Columns{0, 2}));
  // needed 3: cut 3.2 (column 5): column 3's lower bound 3.5 is above it.
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 3), (Columns{0, 2, 5}));
  // A lower bound equal to the cut is not above it.
  const std::vector<double> touching{1, 5, 2, 2.5, 9, 3};
  EXPECT_EQ(lms_window_choice(betas, touching, upper, 2), (Columns{0, 2, 3}));
}

TEST(LmsWindowChoice, EveryColumnWhenNotEnoughCanBeCompared) {
  const Eigen::MatrixXd betas = distinct(4);
  const std::vector<double> lower{1, 5, 0, 7}, upper{1.5, 6, INFINITY, 8};
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 4), (Columns{0, 1, 2, 3}));  // needed >= m
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 0), (Columns{0, 1, 2, 3}));
  // needed 3: only columns 0, 1, 3 have finite upper bounds: cut 8, nothing out (2 has no bounds).
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 3), (Columns{0, 1, 2, 3}));
  // Column 2 without bounds (lower 0) is never left out, even when others are.
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 1), (Columns{0, 2}));
  const std::vector<double> nan_upper{1.5, NAN, 2, 8}, nan_lower{1, NAN, 0, 7};
  EXPECT_EQ(lms_window_choice(betas, nan_lower, nan_upper, 2), (Columns{0, 1, 2}));
}

TEST(LmsWindowChoice, RepeatedSlopesCountOnce) {
  // Columns 0 to 2 have the same slopes (different intercepts: replaced by the engine anyway):
  // one column once adjusted, so one reference.
  Eigen::MatrixXd betas = distinct(5);
  betas.col(1) = betas.col(0);
  betas.col(2) = betas.col(0);
  betas(0, 1) = 4;
  betas(0, 2) = -1;
  const std::vector<double> lower{1, 1, 1, 3, 6}, upper{1.1, 1.1, 1.1, 3.5, 7};
  // needed 2: references 0 and 3: cut 3.5, column 4 out.
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 2), (Columns{0, 1, 2, 3}));
  // needed 3: no third distinct reference before 4's: cut 7, nothing out.
  EXPECT_EQ(lms_window_choice(betas, lower, upper, 3), (Columns{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace robustfit::testing
