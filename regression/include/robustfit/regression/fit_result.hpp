#pragma once
// What a fit returns: what robustbase users expect of an "lts" object, and more.
#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include <optional>

#include "robustfit/regression/options.hpp"

namespace robustfit::regression {

struct PhaseTimings {
  double setup_s = 0;       // input validation and engine set-up (device upload for CUDA)
  double subsets_s = 0;     // drawing and solving elemental subsets
  double objectives_s = 0;  // residuals + order statistics of candidates
  double csteps_s = 0;      // C-steps (LTS) / Chebyshev refinement (LMS)
  double finish_s = 0;      // final fit, scale, reweighting, diagnostics
  double total_s = 0;
  // CUDA engine only, device time inside subsets/objectives/C-steps on the full data: the
  // residual GEMMs (with squaring) and the order-statistic selections.
  std::optional<double> residuals_s, selection_s;
};

// One row of the coefficient table of the final least-squares fit.
struct CoefficientInference {
  double estimate = 0, std_error = 0, t_value = 0, p_value = 0;  // p_value: two-sided, Student t
};

// Inference for the final (for LTS/LMS: reweighted) least-squares fit, as robustbase's
// summary.lts computes it: 0/1 weights `FitResult::weights`, rows of weight 1 only. For LS
// (every weight 1) this is summary.lm. NaN where undefined (df <= 0, a rank-deficient kept design).
struct Inference {
  std::vector<CoefficientInference> coefficients;  // in the order of FitResult::coefficients
  double sigma = 0;               // residual standard error sqrt(sum w r^2 / df) (not FitResult::scale)
  std::size_t df = 0;             // residual degrees of freedom: sum(w) - p (0 when sum(w) <= p)
  double multiple_r_squared = 0;  // mss / (mss + rss), weighted; 0 without predictors
  double adj_r_squared = 0;       // 1 - (1 - R^2) (sum(w) - intercept) / df
  // F = (mss / numerator_df) / sigma^2 on (p - intercept, df); absent without predictors.
  std::optional<double> f_statistic, f_p_value;
  std::size_t f_numerator_df = 0;
};

struct FitResult {
  Method method = Method::ls;
  std::size_t n = 0;             // observations used
  std::size_t p = 0;             // coefficients, intercept included
  std::size_t h = 0;             // coverage (n for LS)
  bool intercept = true;

  // Coefficient vectors are ordered as R's coef(): the intercept first when present,
  // then the predictors in the order given.
  Eigen::VectorXd coefficients;      // final (reweighted for LTS/LMS) coefficients
  Eigen::VectorXd raw_coefficients;  // the raw LTS/LMS fit (equal to coefficients for LS)
  double scale = 0;                  // final scale
  double raw_scale = 0;              // scale of the raw fit, consistency-corrected
  double objective = 0;              // LTS: sum of the h smallest r^2 of the raw fit;
                                     // LMS: the h-th smallest r^2; LS: residual sum of squares
  double r_squared = 0;              // robust R^2 (robustbase's definition for LTS)
  // An exact fit (robustbase's rule: raw scale below 1e-7): at least h rows lie on the raw fit's
  // hyperplane. Then scale = raw_scale = 0, the final coefficients are the raw ones, the outliers
  // are the rows with |residual| > 1e-7, standardized residuals are 0. Absolute, as robustbase:
  // data whose spread is itself below 1e-7 read as an exact fit (rescale them).
  bool exact_fit = false;

  std::vector<std::size_t> best_subset;  // 0-based rows of the raw fit's h-subset (sorted)
  Eigen::VectorXd fitted;                // from the final coefficients
  Eigen::VectorXd residuals;             // y - fitted
  Eigen::VectorXd standardized_residuals;  // residuals / scale
  Eigen::VectorXd weights;               // 0/1 weights of the final fit
  std::vector<bool> outlier;             // |standardized residual| beyond the cutoff
  Inference inference;                   // coefficient table, R^2, F of the final fit (finish stage)

  // Robust distances of the predictor rows (FAST-MCD, as ltsReg(mcd = TRUE)): one per data row,
  // empty when MCD was not run; rd_cutoff = sqrt(qchisq(0.975, q)), q predictors (intercept
  // excluded). The outlier map (outlier_map.hpp) classifies rows when these are present.
  std::vector<double> robust_distances;
  double rd_cutoff = 0;

  std::size_t subsets_tried = 0;     // elemental subsets evaluated (singular ones excluded)
  std::size_t singular_subsets = 0;  // singular elemental subsets that were redrawn / skipped
  bool exhaustive = false;           // every elemental subset was enumerated
  std::string backend;               // "cpu" or "cuda"
  std::string selection;             // selection algorithm used for the objectives
  Precision precision = Precision::double_precision;  // arithmetic of the engine (float: CUDA only)
  PhaseTimings timings;
};

}  // namespace robustfit::regression
