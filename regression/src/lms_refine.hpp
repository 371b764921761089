#pragma once
// Local refinement of LMS candidates by "Chebyshev steps", the LMS analogue of LTS's C-step:
// the h-th smallest |r| of a fit is the largest |r| on its h-subset H, so the minimax
// (Chebyshev) fit on H can only lower it. Each step fits the largest residuals of H in the
// L-infinity sense (Lawson's iteratively reweighted least squares); the intercept is then
// re-adjusted exactly and the objective evaluated on all the data, and the step is accepted
// only if it decreases: a candidate never gets worse.
//
// With `concentrate` (the default search below kLargeN rows, lms.cpp), each step first tries
// the LS fit on H (LTS's C-step, cheap: one QR of h x p) under the same acceptance test, and
// takes a Chebyshev step only when that does not decrease the objective. The LS steps move a
// candidate across the basins that the Chebyshev steps alone stop in (bench/search_quality).
//
// Everything here runs on the host in double, whatever the engine: the steps are a chaotic
// map (discrete working sets, acceptance tests), so residuals that differ by rounding (a GPU
// GEMM against Eigen) could end two backends in different local optima. The engine's only
// input is the candidates; their objectives are recomputed here first. Cost per step: two
// passes over X (residuals of the candidate and the proposal) and a few over the residuals: the
// intercept's window bins them (univariate.hpp's shortest_window_below_unsorted: no full sort),
// the working set's two order statistics come from one sampled bracket.
//
// Written over RowReductions (row_reductions.hpp): `data` may hold only this process's rows
// of an MPI job; the order statistics, the intercept's window, the h-subset's LS fit and the
// working set's rows are then taken over all ranks, and every rank makes the same steps.
#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "design_matrix.hpp"
#include "row_reductions.hpp"

namespace robustfit::regression::detail {

// Refines every column of `betas` (whose objectives, as an engine found them, are
// `objectives`) independently, up to max_steps accepted steps each; both are updated in place.
void refine_lms(const ModelData& data, const RowReductions& all, std::size_t h, int max_steps, bool concentrate, Eigen::MatrixXd& betas,
                std::vector<double>& objectives);

}  // namespace robustfit::regression::detail
