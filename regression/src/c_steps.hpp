#pragma once
// Candidate bookkeeping of the concentration-step searches (concentration.hpp).
#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "engine.hpp"

namespace robustfit::regression::detail {

// Indices of the `count` smallest objectives, best first (stable: ties keep their order).
std::vector<std::size_t> best_indices(const std::vector<double>& objectives, std::size_t count);

// The `count` columns with the smallest objectives (stable: ties keep their order).
Eigen::MatrixXd best_columns(const Eigen::MatrixXd& betas, const std::vector<double>& objectives,
                             std::size_t count);

}  // namespace robustfit::regression::detail
