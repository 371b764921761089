// The finish's shortcuts give the numbers of the long way, bit for bit: inference from the
// reweighted fit's QR factors (FactoredRows) against factoring its rows again, and the LTS
// objective from the best subset (still_smallest) against a fresh selection. Above 65536 rows,
// so that the passes run over several row chunks and the TSQR over several blocks.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <random>
#include <vector>

#include "regression/src/all_rows.hpp"
#include "regression/src/design_matrix.hpp"
#include "regression/src/finish.hpp"
#include "regression/src/inference.hpp"
#include "regression/src/least_squares.hpp"
#include "regression/src/row_reductions.hpp"

namespace {

namespace rd = robustfit::regression::detail;
using robustfit::regression::FitResult;

// y = X b + noise with 20% of the responses shifted far away.
rd::ModelData contaminated(Eigen::Index n, Eigen::Index p, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(n, p);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
  Eigen::VectorXd y = X * Eigen::VectorXd::LinSpaced(p, 1, 2);
  for (Eigen::Index i = 0; i < n; ++i) y(i) += normal(rng) + (i % 5 == 0 ? 50 : 0);
  return rd::make_model_data(X, y, true);
}

void expect_same_inference(const FitResult& got, const FitResult& want) {
  ASSERT_EQ(got.inference.coefficients.size(), want.inference.coefficients.size());
  for (std::size_t j = 0; j < got.inference.coefficients.size(); ++j) {
    EXPECT_EQ(got.inference.coefficients[j].std_error, want.inference.coefficients[j].std_error) << j;
    EXPECT_EQ(got.inference.coefficients[j].p_value, want.inference.coefficients[j].p_value) << j;
  }
  EXPECT_EQ(got.inference.sigma, want.inference.sigma);
  EXPECT_EQ(got.inference.f_statistic, want.inference.f_statistic);
}

// Coefficients whose h-subset is their own LS fit's (C-steps by QR to convergence).
Eigen::VectorXd converged(const rd::ModelData& data, std::size_t h) {
  const rd::RowReductions all;
  Eigen::VectorXd beta = *rd::ls_on_rows(data.X, data.y, {});
  std::vector<std::size_t> last;
  for (int step = 0; step < 100; ++step) {
    std::vector<std::size_t> rows = all.smallest_h(rd::squared_residuals_of(data.X, data.y, beta), h);
    if (rows == last) break;
    beta = *rd::ls_on_rows(data.X, data.y, rows);
    last = std::move(rows);
  }
  return beta;
}

TEST(FinishReuse, LsInferenceFromTheFitsFactorsIsFactoringAgain) {
  const rd::ModelData data = contaminated(70001, 4, 1);
  FitResult result;
  rd::finish_ls(data, result);
  FitResult again = result;
  rd::add_inference(data, again);  // no factors given: factors the kept rows itself
  expect_same_inference(result, again);
}

TEST(FinishReuse, LtsInferenceAndObjectiveAreTheLongWays) {
  const rd::ModelData data = contaminated(70001, 5, 2);
  const std::size_t h = (data.n() + data.p() + 1) / 2;
  FitResult result;
  rd::finish_lts(data, converged(data, h), h, 0.5, true, result);
  FitResult again = result;
  rd::add_inference(data, again);
  expect_same_inference(result, again);

  Eigen::VectorXd squares;
  rd::fit_of(data.X, data.y, result.raw_coefficients, &squares);
  const rd::RowReductions all;
  EXPECT_EQ(result.objective, rd::sum_at(squares, all.smallest_h(squares, h)));
}

// Coefficients off the optimum: the best subset moves, and the objective is selected afresh.
TEST(FinishReuse, LtsObjectiveWhenTheSubsetMoves) {
  const rd::ModelData data = contaminated(70001, 3, 3);
  const std::size_t h = (data.n() + data.p() + 1) / 2;
  const Eigen::VectorXd start = *rd::ls_on_rows(data.X, data.y, {});
  FitResult result;
  rd::finish_lts(data, start, h, 0.5, true, result);
  Eigen::VectorXd squares;
  rd::fit_of(data.X, data.y, result.raw_coefficients, &squares);
  const rd::RowReductions all;
  EXPECT_NE(all.smallest_h(squares, h), result.best_subset);
  EXPECT_EQ(result.objective, rd::sum_at(squares, all.smallest_h(squares, h)));
}

}  // namespace
