#include "lms_refine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "least_squares.hpp"
#include "univariate.hpp"
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

Eigen::VectorXd magnitudes(const Eigen::VectorXd& residuals) { return residuals.cwiseAbs(); }

// Rows (this part's) whose value lies in [low, high], the first `cap` of them over all parts
// in row order.
std::vector<std::size_t> first_rows_within(const RowReductions& all, const Eigen::VectorXd& values, double low,
                                           double high, std::size_t cap) {
  std::vector<std::size_t> rows;
  for (Eigen::Index i = 0; i < values.size(); ++i)
    if (values(i) >= low && values(i) <= high) rows.push_back(static_cast<std::size_t>(i));
  const std::size_t earlier = all.before(rows.size());
  rows.resize(std::min(rows.size(), cap - std::min(cap, earlier)));
  return rows;
}

// The rows of H (the h smallest |r|) with the largest |r|: ranks h-k .. h-1 of |r|.
std::vector<std::size_t> working_set(const RowReductions& all, const Eigen::VectorXd& residuals, std::size_t h,
                                     std::size_t k) {
  const Eigen::VectorXd magnitude = magnitudes(residuals);
  const std::size_t ranks[] = {h - k, h - 1};
  const std::vector<double> bounds = all.kth_smallest_many(magnitude, ranks);
  return first_rows_within(all, magnitude, bounds[0], bounds[1], k);
}

// One Chebyshev step from beta, whose residuals on all the data are `residuals`: the working
// set's rows from every part, the same fit on each.
Eigen::VectorXd chebyshev_step(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& beta,
                               const Eigen::VectorXd& residuals, std::size_t h) {
  const std::vector<std::size_t> rows = working_set(all, residuals, h, working_set_size(h, data.p()));
  Eigen::MatrixXd local(static_cast<Eigen::Index>(rows.size()), data.X.cols() + 1);
  for (std::size_t i = 0; i < rows.size(); ++i)
    local.row(static_cast<Eigen::Index>(i)) << data.X.row(static_cast<Eigen::Index>(rows[i])), data.y(static_cast<Eigen::Index>(rows[i]));
  const Eigen::MatrixXd rows_all = all.gathered(local);
  return chebyshev_fit(rows_all.leftCols(data.X.cols()), rows_all.col(data.X.cols()), beta);
}

// The LS fit on H, the h rows of smallest |r| (ties: the first rows); nullopt if H is rank
// deficient.
std::optional<Eigen::VectorXd> ls_on_h_subset(const ModelData& data, const RowReductions& all,
                                              const Eigen::VectorXd& residuals, std::size_t h) {
  const Eigen::VectorXd magnitude = magnitudes(residuals);
  const std::size_t rank[] = {h - 1};
  const double bound = all.kth_smallest_many(magnitude, rank)[0];
  const std::vector<std::size_t> rows =
      first_rows_within(all, magnitude, -std::numeric_limits<double>::infinity(), bound, h);
  return ls_on_rows(all, data.X, data.y, rows);
}

// The LMS objective of beta (the h-th smallest squared residual; with an intercept, the
// intercept first set to its exact best value, as the engines do) when it is below `bound`,
// else nullopt. On success beta's intercept is updated and `residuals` holds its residuals.
std::optional<double> objective_below(const ModelData& data, const RowReductions& all, Eigen::VectorXd& beta,
                                      std::size_t h, double bound, Eigen::VectorXd& residuals) {
  const Eigen::Index p = data.X.cols();
  if (data.intercept) {
    residuals.noalias() = data.y - data.X.rightCols(p - 1) * beta.tail(p - 1);
    const auto window = all.shortest_window_below(residuals, h, std::sqrt(bound));
    if (!window || !(window->half_width * window->half_width < bound)) return std::nullopt;
    beta(0) = window->center;
    residuals.array() -= window->center;
    return window->half_width * window->half_width;
  }
  residuals.noalias() = data.y - data.X * beta;
  const Eigen::VectorXd squares = residuals.array().square();
  const std::size_t rank[] = {h - 1};
  const double objective = all.kth_smallest_many(squares, rank)[0];
  return objective < bound ? std::optional(objective) : std::nullopt;
}

// The objective of a candidate as the engine found it, recomputed on the host (the engine's
// residuals differ from these by rounding; the steps below must not depend on the engine).
double host_objective(const ModelData& data, const RowReductions& all, Eigen::VectorXd& beta, std::size_t h, double engine_objective,
                      Eigen::VectorXd& residuals) {
  // The engine's value, a little widened, usually bounds the window: then only the values
  // near the optimum are sorted. The result is the same either way.
  if (auto objective = objective_below(data, all, beta, h, engine_objective * (1 + 1e-6) + 1e-300, residuals))
    return *objective;
  return *objective_below(data, all, beta, h, std::numeric_limits<double>::infinity(), residuals);
}

}  // namespace

void refine_lms(const ModelData& data, const RowReductions& all, std::size_t h, int max_steps, bool concentrate,
                Eigen::MatrixXd& betas, std::vector<double>& objectives) {
  const auto refine = [&](std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    Eigen::VectorXd beta = betas.col(col), residuals(data.y.size());
    double objective = host_objective(data, all, beta, h, objectives[j], residuals);
    Eigen::VectorXd proposal, proposed_residuals(data.y.size());
    for (int step = 0; step < max_steps && objective > 0; ++step) {
      const double bound = objective * (1 - 1e-12);
      std::optional<double> proposed;
      if (concentrate) {
        if (auto ls = ls_on_h_subset(data, all, residuals, h)) {
          proposal = std::move(*ls);
          proposed = objective_below(data, all, proposal, h, bound, proposed_residuals);
        }
      }
      if (!proposed) {
        proposal = chebyshev_step(data, all, beta, residuals, h);
        proposed = objective_below(data, all, proposal, h, bound, proposed_residuals);
      }
      if (!proposed) break;  // no decrease: this candidate is done
      beta = proposal;
      objective = *proposed;
      std::swap(residuals, proposed_residuals);
    }
    betas.col(col) = beta;
    objectives[j] = objective;
  };
  // Across processes every step is a collective: the candidates one after another.
  if (all.spans_processes())
    for (std::size_t j = 0; j < objectives.size(); ++j) refine(j);
  else
    common::parallel_for(objectives.size(), [&](unsigned, std::size_t j) { refine(j); });
}

}  // namespace robustfit::regression::detail
