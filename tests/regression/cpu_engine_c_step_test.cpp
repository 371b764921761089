// The CPU engine's LTS C-steps (cpu_lts_c_step.cpp: bracketed selection, Gram matrices of the
// h-subset updated from step to step) against an independent reference: a stable sort of the
// squared residuals (ties by row order), the h first rows, least squares on them by QR.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "cpu_engine.hpp"

namespace robustfit::testing {
namespace {

using regression::detail::CpuEngine;

struct Reference {
  double objective;
  Eigen::VectorXd beta;
};

Reference reference_c_step(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta, std::size_t h) {
  const Eigen::VectorXd squares = (y - X * beta).array().square();
  std::vector<std::size_t> order(static_cast<std::size_t>(X.rows()));
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return squares(static_cast<Eigen::Index>(a)) < squares(static_cast<Eigen::Index>(b));
  });
  Eigen::MatrixXd A(static_cast<Eigen::Index>(h), X.cols());
  Eigen::VectorXd b(static_cast<Eigen::Index>(h));
  double objective = 0;
  for (std::size_t i = 0; i < h; ++i) {
    const auto row = static_cast<Eigen::Index>(order[i]);
    A.row(static_cast<Eigen::Index>(i)) = X.row(row);
    b(static_cast<Eigen::Index>(i)) = y(row);
    objective += squares(row);
  }
  return {objective, A.colPivHouseholderQr().solve(b)};
}

// n rows (two row chunks from 65536), an intercept and three predictors; 30 % of rows off the
// model, and the first 40 % of rows exactly on it, so that the true coefficients leave
// thousands of squares tied at zero around the h-th smallest.
struct Data {
  Eigen::MatrixXd X;
  Eigen::VectorXd y, beta;
};

Data make_data(std::size_t n) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  Data d{Eigen::MatrixXd(static_cast<Eigen::Index>(n), 4), Eigen::VectorXd(static_cast<Eigen::Index>(n)), Eigen::VectorXd(4)};
  d.beta << 1, 2, -1, 0.5;
  for (Eigen::Index i = 0; i < d.X.rows(); ++i) {
    d.X(i, 0) = 1;
    // Quarters: every product and sum on the exact rows is exact, so their squares are 0.
    for (Eigen::Index j = 1; j < 4; ++j) d.X(i, j) = std::round(4 * normal(rng)) / 4;
    const double exact = d.X.row(i).dot(d.beta);
    const auto u = static_cast<double>(i) / static_cast<double>(n);
    d.y(i) = u < 0.4 ? exact : exact + (u > 0.7 ? 20 + 5 * normal(rng) : normal(rng));
  }
  return d;
}

// Starts near and far from the model, and the model itself (ties at zero).
Eigen::MatrixXd starts(const Data& d, Eigen::Index count) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd betas(4, count);
  for (Eigen::Index j = 0; j < count; ++j)
    for (Eigen::Index k = 0; k < 4; ++k) betas(k, j) = d.beta(k) + (j == 0 ? 0.0 : 0.5 * static_cast<double>(j % 4) * normal(rng));
  return betas;
}

void expect_steps_match_reference(const Data& d, Eigen::Index candidates, selection::Algorithm selection) {
  CpuEngine engine(d.X, d.y, selection);
  const std::size_t h = static_cast<std::size_t>(d.X.rows()) / 2 + 5;
  Eigen::MatrixXd betas = starts(d, candidates);
  for (int step = 0; step < 6; ++step) {  // later steps update the Gram matrices of earlier ones
    std::vector<Reference> expected;
    for (Eigen::Index j = 0; j < candidates; ++j) expected.push_back(reference_c_step(d.X, d.y, betas.col(j), h));
    std::vector<double> before(static_cast<std::size_t>(candidates));
    engine.c_step(betas, h, before);
    for (Eigen::Index j = 0; j < candidates; ++j) {
      const auto& e = expected[static_cast<std::size_t>(j)];
      EXPECT_NEAR(before[static_cast<std::size_t>(j)], e.objective, 1e-12 * e.objective + 1e-12) << "step " << step << " candidate " << j;
      EXPECT_LE((betas.col(j) - e.beta).norm(), 1e-9 * (1 + e.beta.norm())) << "step " << step << " candidate " << j;
    }
  }
}

TEST(CpuEngineCStep, ManyCandidatesMatchTheReferenceStepAfterStep) {
  expect_steps_match_reference(make_data(70001), 7, selection::Algorithm::automatic);
}

TEST(CpuEngineCStep, OneCandidateOnAllThreadsMatchesTheReference) {
  expect_steps_match_reference(make_data(70001), 1, selection::Algorithm::automatic);
}

TEST(CpuEngineCStep, SortAndChooseMatchesTheReference) {
  expect_steps_match_reference(make_data(5003), 3, selection::Algorithm::sort);
}

TEST(CpuEngineCStep, ObjectivesAreTheTrimmedSumsOfTheReference) {
  const Data d = make_data(70001);
  CpuEngine engine(d.X, d.y);
  const std::size_t h = 40000;  // beyond the 40 % of zero squares of the model's coefficients
  for (const Eigen::Index count : {Eigen::Index{1}, Eigen::Index{5}}) {
    const Eigen::MatrixXd betas = starts(d, count);
    std::vector<double> got(static_cast<std::size_t>(count));
    engine.lts_objectives(betas, h, got);
    for (Eigen::Index j = 0; j < count; ++j) {
      const double expected = reference_c_step(d.X, d.y, betas.col(j), h).objective;
      EXPECT_NEAR(got[static_cast<std::size_t>(j)], expected, 1e-12 * expected) << j;
    }
  }
}

}  // namespace
}  // namespace robustfit::testing
