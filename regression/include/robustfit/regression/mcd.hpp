#pragma once
// The Minimum Covariance Determinant estimator of multivariate location and scatter by
// FAST-MCD (Rousseeuw & Van Driessen 1999), as robustbase::covMcd with its defaults: raw
// estimate from the h-subset of smallest covariance determinant (consistency factor and
// small-sample correction), one reweighting step with the 0.975 chi-square quantile (its own
// factors), robust distances from the reweighted estimate.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "robustfit/regression/options.hpp"

namespace robustfit::regression {

struct McdOptions {
  double alpha = 0.5;          // the fraction of points the raw estimate covers, in [0.5, 1]
  std::size_t subsets = 500;   // random starts of p + 1 rows (robustbase's nsamp)
  std::uint64_t seed = 0;
  Backend backend = Backend::automatic;
  selection::Algorithm selection = selection::Algorithm::automatic;
  ProgressCallback progress;   // optional (options.hpp): phases "subsets", "C-steps", "finish"
};

struct McdResult {
  std::size_t n = 0, p = 0;
  std::size_t h = 0;              // coverage of the raw estimate: h_alpha_n(alpha, n, p)
  double alpha = 0.5;
  Eigen::VectorXd center;         // reweighted location
  Eigen::MatrixXd covariance;     // reweighted scatter (consistency-corrected)
  Eigen::VectorXd raw_center;     // mean of the best h-subset
  Eigen::MatrixXd raw_covariance; // its covariance, consistency-corrected
  // Robust distances sqrt(mah) of every row from the reweighted (distances) and the raw
  // (raw_distances) estimate; empty at an exact fit (the scatter is singular).
  Eigen::VectorXd distances, raw_distances;
  double cutoff = 0;              // sqrt(qchisq(0.975, p))
  std::vector<std::size_t> flagged;      // 1-based rows with weight 0 (distance >= cutoff; at an
                                         // exact fit: the rows off the hyperplane)
  std::vector<std::size_t> best_subset;  // 1-based rows of the best h-subset (robustbase's best)
  double log_det = 0;             // the objective: log det of the best h-subset's covariance
                                  // (divisor h - 1, no correction factors); -inf at an exact fit
  bool exact_fit = false;         // more than h points on a hyperplane: the scatter is singular
  std::string exact_fit_message;  // robustbase's message for it
  std::vector<double> hyperplane; // exact fit: coefficients a of a^T (x - center) = 0
  std::size_t subsets_tried = 0, singular_subsets = 0;
  std::string backend;            // "cpu" | "cuda"
};

// X: n x p, the variables (no intercept column). Errors (std::invalid_argument): no columns,
// non-finite values (naming the row and column, 1-based), n <= p + 1 (robustbase refuses
// these), alpha out of [0.5, 1], h <= p, subsets = 0, an unavailable backend.
// An exact fit (a constant column, more than h points on a hyperplane, a singular covariance
// of the data) is no error: exact_fit is set and the message says what happened.
McdResult fit_mcd(Eigen::Ref<const Eigen::MatrixXd> X, const McdOptions& options = {});

}  // namespace robustfit::regression
