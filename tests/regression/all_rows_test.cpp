// The parallel passes over all rows of the finish phase (all_rows.hpp) against their serial
// references: std::nth_element, smallest_h (ties by row order), trimmed_sum_inplace and
// Eigen's X * beta. Sizes are above the parallel threshold (2 row chunks from 65536 rows), on
// data that is random, sorted, tie-heavy and periodic (a regular sample sees one phase only).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "regression/src/all_rows.hpp"
#include "regression/src/least_squares.hpp"

namespace {

using robustfit::regression::detail::fit_of;
using robustfit::regression::detail::kth_smallest_parallel;
using robustfit::regression::detail::smallest_h;
using robustfit::regression::detail::smallest_h_rows;
using robustfit::regression::detail::trimmed_sum_inplace;
using robustfit::regression::detail::trimmed_sum_parallel;

Eigen::VectorXd pattern(const std::string& name, std::size_t n) {
  std::mt19937_64 rng(n);
  std::normal_distribution<double> normal;
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double r = normal(rng);
    if (name == "normal") v(i) = r;
    else if (name == "sorted") v(i) = static_cast<double>(i);
    else if (name == "reversed") v(i) = -static_cast<double>(i);
    else if (name == "ties") v(i) = std::floor(std::abs(r) * 3);             // 0, 1, 2, ... heavy ties
    else if (name == "periodic") v(i) = (i % 65536 < 32768 ? 1e6 : 0) + r;  // what a regular sample misses
    else v(i) = (i % 97 == 0 ? 1e12 : 0) + r * r;                            // squares with gross outliers
  }
  return v;
}

const char* const kPatterns[] = {"normal", "sorted", "reversed", "ties", "periodic", "outliers"};

TEST(AllRows, KthSmallestParallelIsExact) {
  for (const std::size_t n : {std::size_t{70001}, std::size_t{300000}}) {
    for (const char* name : kPatterns) {
      const Eigen::VectorXd v = pattern(name, n);
      for (const std::size_t k : {std::size_t{0}, n / 100, n / 2, n / 2 + 1, n - 1 - n / 100, n - 1}) {
        std::vector<double> copy(v.data(), v.data() + v.size());
        std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(k), copy.end());
        EXPECT_EQ(kth_smallest_parallel({v.data(), n}, k), copy[k]) << name << " n=" << n << " k=" << k;
      }
    }
  }
}

TEST(AllRows, KthSmallestParallelRejectsNaN) {
  Eigen::VectorXd v = pattern("normal", 100000);
  v(54321) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(kth_smallest_parallel({v.data(), 100000}, 50000), std::invalid_argument);
}

TEST(AllRows, SmallestRowsMatchSerialWithTiesInRowOrder) {
  for (const char* name : kPatterns) {
    const std::size_t n = 200003;
    const Eigen::VectorXd r = pattern(name, n);
    const Eigen::VectorXd squares = r.array().square();
    for (const std::size_t h : {std::size_t{1}, n / 2, (n + 11) / 2, n - 1, n}) {
      const auto serial = smallest_h(r, h);
      const auto parallel = smallest_h_rows(squares, h);
      EXPECT_EQ(parallel.rows, serial.rows) << name << " h=" << h;
      std::vector<double> copy(squares.data(), squares.data() + n);
      std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(h - 1), copy.end());
      EXPECT_EQ(parallel.threshold, copy[h - 1]) << name << " h=" << h;
      std::vector<double> work(squares.data(), squares.data() + n);
      const double expected = trimmed_sum_inplace(work, h);
      EXPECT_NEAR(trimmed_sum_parallel(squares, h), expected, 1e-12 * std::abs(expected) + 1e-300) << name << " h=" << h;
    }
  }
}

TEST(AllRows, FitOfIsEigensProductRowForRow) {
  const Eigen::Index n = 150001, p = 7;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n), beta(p);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < n; ++i) y(i) = normal(rng);
  for (Eigen::Index j = 0; j < p; ++j) beta(j) = normal(rng);
  const auto fit = fit_of(X, y, beta);
  const Eigen::VectorXd fitted = X * beta;
  EXPECT_EQ(fit.fitted, fitted);
  EXPECT_EQ(fit.residuals, Eigen::VectorXd(y - fitted));
}

}  // namespace
