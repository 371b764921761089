#include "lms_refine.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "least_squares.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "univariate.hpp"

namespace robustfit::regression::detail {

namespace {

constexpr int kLawsonIterations = 60;
// The minimax fit of H is decided by its largest residuals: fit the working set of the
// largest ones only, so a step costs O(working set * p^2), not O(h p^2); the acceptance
// test on all the data keeps it safe.
std::size_t working_set_size(std::size_t h, std::size_t p) { return std::min(h, 40 * p + 100); }

// Approximate minimax fit of (A, b) by Lawson's algorithm: weighted LS whose weights grow
// on the points with the largest residuals. Returns the iterate with the smallest max |r|.
Eigen::VectorXd chebyshev_fit(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& start) {
  const Eigen::Index m = A.rows();
  Eigen::VectorXd weights = Eigen::VectorXd::Constant(m, 1.0 / static_cast<double>(m));
  Eigen::VectorXd best = start;
  double best_max = (b - A * start).cwiseAbs().maxCoeff();
  for (int iteration = 0; iteration < kLawsonIterations; ++iteration) {
    const Eigen::VectorXd root = weights.cwiseSqrt();
    const Eigen::MatrixXd WA = root.asDiagonal() * A;
    const Eigen::VectorXd Wb = root.asDiagonal() * b;
    std::vector<std::size_t> all;  // solve through the shared rank-checked QR
    const auto beta = ls_on_rows(WA, Wb, all);
    if (!beta) break;
    const Eigen::VectorXd r = (b - A * *beta).cwiseAbs();
    const double largest = r.maxCoeff();
    if (largest < best_max) {
      best_max = largest;
      best = *beta;
    }
    const Eigen::VectorXd grown = weights.cwiseProduct(r);
    const double total = grown.sum();
    if (!(total > 0)) break;
    weights = grown / total;
  }
  return best;
}

}  // namespace

double lms_objective(const ModelData& data, Eigen::VectorXd& beta, std::size_t h) {
  std::vector<double> values(data.n());
  Eigen::Map<Eigen::VectorXd> r(values.data(), static_cast<Eigen::Index>(data.n()));
  if (data.intercept) {
    const Eigen::Index q = static_cast<Eigen::Index>(data.p()) - 1;
    r.noalias() = data.y - data.X.rightCols(q) * beta.tail(q);
    const ShortestWindow window = shortest_window_inplace(values, h);
    beta(0) = window.center;
    return window.half_width * window.half_width;
  }
  r.noalias() = data.y - data.X * beta;
  r.array() = r.array().square();
  return selection::kth_smallest_inplace(std::span<double>(values), h - 1);
}

LmsRefinement refine_lms(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, int max_steps) {
  LmsRefinement result{beta, 0, 0};
  result.objective = lms_objective(data, result.beta, h);
  for (int step = 0; step < max_steps && result.objective > 0; ++step) {
    const Eigen::VectorXd residuals = data.y - data.X * result.beta;
    std::vector<std::size_t> rows = smallest_h(residuals, h).rows;
    const std::size_t k = working_set_size(h, data.p());
    std::nth_element(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(k - 1), rows.end(),
                     [&](std::size_t a, std::size_t b) {
                       return std::abs(residuals(static_cast<Eigen::Index>(a))) > std::abs(residuals(static_cast<Eigen::Index>(b)));
                     });
    Eigen::MatrixXd A(static_cast<Eigen::Index>(k), data.X.cols());
    Eigen::VectorXd b(static_cast<Eigen::Index>(k));
    for (std::size_t i = 0; i < k; ++i) {
      A.row(static_cast<Eigen::Index>(i)) = data.X.row(static_cast<Eigen::Index>(rows[i]));
      b(static_cast<Eigen::Index>(i)) = data.y(static_cast<Eigen::Index>(rows[i]));
    }
    Eigen::VectorXd candidate = chebyshev_fit(A, b, result.beta);
    const double objective = lms_objective(data, candidate, h);
    if (!(objective < result.objective * (1 - 1e-12))) break;
    result.beta = candidate;
    result.objective = objective;
    ++result.steps;
  }
  return result;
}

}  // namespace robustfit::regression::detail
