#pragma once
// Local refinement of LMS candidates by "Chebyshev steps", the LMS analogue of LTS's C-step:
// the h-th smallest |r| of a fit is the largest |r| on its h-subset H, so the minimax
// (Chebyshev) fit on H can only lower it. Each step fits the largest residuals of H in the
// L-infinity sense (Lawson's iteratively reweighted least squares); the engine then re-adjusts
// the intercept exactly and evaluates the objective on all the data, and the step is accepted
// only if it decreases: a candidate never gets worse.
#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "design_matrix.hpp"
#include "engine.hpp"

namespace robustfit::regression::detail {

// Refines every column of `betas` (whose objectives are `objectives`) in lockstep, up to
// max_steps accepted steps each; both are updated in place.
void refine_lms(Engine& engine, const ModelData& data, std::size_t h, int max_steps, Eigen::MatrixXd& betas,
                std::vector<double>& objectives);

}  // namespace robustfit::regression::detail
