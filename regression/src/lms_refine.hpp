#pragma once
// Local refinement of LMS candidates by "Chebyshev steps", the LMS analogue of LTS's C-step:
// the h-th smallest |r| of a fit is the largest |r| on its h-subset H, so the minimax
// (Chebyshev) fit on H can only lower it. Each step fits H in the L-infinity sense
// (Lawson's iteratively reweighted least squares), re-adjusts the intercept exactly, and is
// accepted only if the objective on all the data decreases: never worse than the start.
#include <Eigen/Core>
#include <cstddef>

#include "design_matrix.hpp"

namespace robustfit::regression::detail {

struct LmsRefinement {
  Eigen::VectorXd beta;
  double objective = 0;  // h-th smallest squared residual
  int steps = 0;         // accepted Chebyshev steps
};

// The h-th smallest squared residual of beta (after the exact intercept adjustment when the
// model has an intercept, which updates beta(0)).
double lms_objective(const ModelData& data, Eigen::VectorXd& beta, std::size_t h);

LmsRefinement refine_lms(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, int max_steps);

}  // namespace robustfit::regression::detail
