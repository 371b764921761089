#include "c_steps.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace robustfit::regression::detail {

std::vector<double> run_c_steps(Engine& engine, Eigen::MatrixXd& betas, std::size_t h, int steps) {
  std::vector<double> objectives(static_cast<std::size_t>(betas.cols()));
  for (int s = 0; s < steps; ++s) engine.c_step(betas, h, objectives);
  engine.lts_objectives(betas, h, objectives);
  return objectives;
}

std::vector<double> c_steps_to_convergence(Engine& engine, Eigen::MatrixXd& betas, std::size_t h,
                                           int max_steps) {
  const auto m = static_cast<std::size_t>(betas.cols());
  std::vector<double> best(m, std::numeric_limits<double>::infinity());
  Eigen::MatrixXd best_betas = betas;
  std::vector<std::size_t> active(m);
  std::iota(active.begin(), active.end(), std::size_t{0});
  Eigen::MatrixXd work = betas;
  std::vector<double> before;
  for (int step = 0; step < max_steps && !active.empty(); ++step) {
    before.assign(active.size(), 0);
    engine.c_step(work, h, before);  // before[a]: objective of work's old column a
    std::vector<std::size_t> still;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::size_t j = active[a];
      // C-steps never increase the objective; stop once it no longer decreases (relative
      // to rounding), or at an exact fit.
      const bool improved = before[a] < best[j] * (1 - 8 * std::numeric_limits<double>::epsilon());
      if (improved) {
        best[j] = before[a];
        best_betas.col(static_cast<Eigen::Index>(j)) = betas.col(static_cast<Eigen::Index>(j));
      }
      betas.col(static_cast<Eigen::Index>(j)) = work.col(static_cast<Eigen::Index>(a));
      // Candidates that reached the same h-subset have bitwise equal coefficients and would
      // take identical steps from here: follow only the first of them.
      const bool duplicate = std::any_of(still.begin(), still.end(), [&](std::size_t b) {
        return work.col(static_cast<Eigen::Index>(b)) == work.col(static_cast<Eigen::Index>(a));
      });
      if (improved && before[a] > 0 && !duplicate) still.push_back(a);
    }
    Eigen::MatrixXd kept(work.rows(), static_cast<Eigen::Index>(still.size()));
    std::vector<std::size_t> next_active;
    for (std::size_t i = 0; i < still.size(); ++i) {
      kept.col(static_cast<Eigen::Index>(i)) = work.col(static_cast<Eigen::Index>(still[i]));
      next_active.push_back(active[still[i]]);
    }
    work = std::move(kept);
    active = std::move(next_active);
  }
  // Candidates still improving at max_steps: their latest coefficients are unevaluated;
  // keep the best evaluated ones.
  betas = best_betas;
  return best;
}

std::vector<std::size_t> best_indices(const std::vector<double>& objectives, std::size_t count) {
  std::vector<std::size_t> order(objectives.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return objectives[a] < objectives[b]; });
  order.resize(std::min(count, order.size()));
  return order;
}

Eigen::MatrixXd best_columns(const Eigen::MatrixXd& betas, const std::vector<double>& objectives,
                             std::size_t count) {
  const std::vector<std::size_t> order = best_indices(objectives, count);
  Eigen::MatrixXd best(betas.rows(), static_cast<Eigen::Index>(order.size()));
  for (std::size_t i = 0; i < order.size(); ++i) best.col(static_cast<Eigen::Index>(i)) = betas.col(static_cast<Eigen::Index>(order[i]));
  return best;
}

}  // namespace robustfit::regression::detail
