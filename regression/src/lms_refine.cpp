#include "lms_refine.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "least_squares.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::regression::detail {

namespace {

constexpr int kLawsonIterations = 60;

// The minimax fit of H is decided by its largest residuals: fit the working set of the
// largest ones only, so a step costs O(working set * p^2), not O(h p^2); the acceptance test
// on all the data keeps it safe.
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
    const auto beta = ls_on_rows(Eigen::MatrixXd(root.asDiagonal() * A), root.asDiagonal() * b, {});
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

// The rows of H (the h smallest |r|) with the largest |r|: ranks h-k .. h-1 of |r|.
std::vector<std::size_t> working_set(const Eigen::VectorXd& residuals, std::size_t h, std::size_t k) {
  std::vector<double> magnitude(static_cast<std::size_t>(residuals.size()));
  for (std::size_t i = 0; i < magnitude.size(); ++i) magnitude[i] = std::abs(residuals(static_cast<Eigen::Index>(i)));
  const std::size_t ranks[] = {h - k, h - 1};
  const std::vector<double> bounds = selection::kth_smallest_many<double>(magnitude, ranks);
  std::vector<std::size_t> rows;
  rows.reserve(k);
  for (std::size_t i = 0; i < magnitude.size() && rows.size() < k; ++i)
    if (magnitude[i] >= bounds[0] && magnitude[i] <= bounds[1]) rows.push_back(i);
  return rows;
}

Eigen::VectorXd chebyshev_step(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h) {
  const std::vector<std::size_t> rows = working_set(data.y - data.X * beta, h, working_set_size(h, data.p()));
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), data.X.cols());
  Eigen::VectorXd b(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    A.row(static_cast<Eigen::Index>(i)) = data.X.row(static_cast<Eigen::Index>(rows[i]));
    b(static_cast<Eigen::Index>(i)) = data.y(static_cast<Eigen::Index>(rows[i]));
  }
  return chebyshev_fit(A, b, beta);
}

}  // namespace

void refine_lms(Engine& engine, const ModelData& data, std::size_t h, int max_steps, Eigen::MatrixXd& betas,
                std::vector<double>& objectives) {
  std::vector<std::size_t> active;
  for (std::size_t j = 0; j < objectives.size(); ++j)
    if (objectives[j] > 0) active.push_back(j);
  for (int step = 0; step < max_steps && !active.empty(); ++step) {
    Eigen::MatrixXd proposals(betas.rows(), static_cast<Eigen::Index>(active.size()));
    common::parallel_for(active.size(), [&](unsigned, std::size_t a) {
      proposals.col(static_cast<Eigen::Index>(a)) = chebyshev_step(data, betas.col(static_cast<Eigen::Index>(active[a])), h);
    });
    std::vector<double> proposed(active.size());
    engine.lms_objectives(proposals, h, data.intercept, proposed);  // adjusts the intercepts too
    std::vector<std::size_t> improved;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::size_t j = active[a];
      if (!(proposed[a] < objectives[j] * (1 - 1e-12))) continue;
      betas.col(static_cast<Eigen::Index>(j)) = proposals.col(static_cast<Eigen::Index>(a));
      objectives[j] = proposed[a];
      if (proposed[a] > 0) improved.push_back(j);
    }
    active = std::move(improved);
  }
}

}  // namespace robustfit::regression::detail
