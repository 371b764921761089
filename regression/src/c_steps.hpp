#pragma once
// The C-step loops of FAST-LTS over an engine, and candidate bookkeeping.
#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "engine.hpp"

namespace robustfit::regression::detail {

// `steps` C-steps on every candidate; returns the LTS objectives of the resulting coefficients.
std::vector<double> run_c_steps(Engine& engine, Eigen::MatrixXd& betas, std::size_t h, int steps);

// C-steps on every candidate until its objective stops decreasing (or max_steps); betas end as
// the best coefficients seen, and their objectives are returned.
std::vector<double> c_steps_to_convergence(Engine& engine, Eigen::MatrixXd& betas, std::size_t h,
                                           int max_steps);

// Indices of the `count` smallest objectives, best first (stable: ties keep their order).
std::vector<std::size_t> best_indices(const std::vector<double>& objectives, std::size_t count);

// The `count` columns with the smallest objectives (stable: ties keep their order).
Eigen::MatrixXd best_columns(const Eigen::MatrixXd& betas, const std::vector<double>& objectives,
                             std::size_t count);

}  // namespace robustfit::regression::detail
