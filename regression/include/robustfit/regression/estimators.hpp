#pragma once
// Robust (LTS, LMS) and ordinary least-squares regression.
// X holds the predictors only (n x q, no column of ones); `intercept` adds the constant term.
// Errors (std::invalid_argument): size mismatch, non-finite values, n <= p, a constant
// predictor together with an intercept, collinear (rank-deficient) predictors, h out of range.
#include <Eigen/Core>
#include <span>
#include <string>

#include "robustfit/regression/fit_result.hpp"
#include "robustfit/regression/options.hpp"

namespace robustfit::regression {

FitResult fit_ls(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, bool intercept = true);
FitResult fit_lts(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const LtsOptions& options = {});
FitResult fit_lms(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const LmsOptions& options = {});

// robustbase::h.alpha.n: the coverage for fraction alpha of n observations and p coefficients.
std::size_t h_alpha_n(double alpha, std::size_t n, std::size_t p);

// The input checks every fit_* makes, with predictors named by `names` in the messages
// (fit_* itself says "predictor j"). Throws std::invalid_argument.
void check_design(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, bool intercept,
                  std::span<const std::string> names = {});

// Whether fit_* can use the CUDA backend in this build on this machine.
bool cuda_backend_available();

}  // namespace robustfit::regression
