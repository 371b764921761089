#pragma once
// Which candidates of an LMS batch need their exact window (the sort), given bounds on every
// candidate's objective (lower[j] <= objective_j <= upper[j]; the CUDA engine's histogram
// bounds): engine.hpp's contract for lms_objectives(..., needed). Host code, no CUDA.
#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <vector>

namespace robustfit::regression::detail {

// The columns (ascending) whose exact objective may be among the `needed` best with distinct
// coefficients. Walking the candidates by upper bound (ties by column), the first `needed` with
// pairwise different slopes (rows 1.. of `betas`, ==) are references, each with its objective
// at most the last one's upper bound, the cut. A candidate whose lower bound exceeds the cut is
// beaten by all of them and left out; every other one is returned, the references included.
// When fewer than `needed` references have finite upper bounds, every column is returned.
std::vector<std::size_t> lms_window_choice(const Eigen::Ref<const Eigen::MatrixXd>& betas, std::span<const double> lower,
                                           std::span<const double> upper, std::size_t needed);

}  // namespace robustfit::regression::detail
