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

// X and y by reference: a MatrixXd / VectorXd, or any column-major block or mapped buffer with
// unit inner stride (a NumPy float64 Fortran-ordered array) binds without a copy.
using MatrixRef = Eigen::Ref<const Eigen::MatrixXd>;
using VectorRef = Eigen::Ref<const Eigen::VectorXd>;

FitResult fit_ls(MatrixRef X, VectorRef y, bool intercept = true);
FitResult fit_lts(MatrixRef X, VectorRef y, const LtsOptions& options = {});
FitResult fit_lms(MatrixRef X, VectorRef y, const LmsOptions& options = {});

// robustbase::h.alpha.n: the coverage for fraction alpha of n observations and p coefficients.
std::size_t h_alpha_n(double alpha, std::size_t n, std::size_t p);

// The input checks every fit_* makes, with predictors named by `names` in the messages
// (fit_* itself says "predictor j"). Throws std::invalid_argument.
void check_design(MatrixRef X, VectorRef y, bool intercept,
                  std::span<const std::string> names = {});

// Whether fit_* can use the CUDA backend in this build on this machine.
bool cuda_backend_available();

}  // namespace robustfit::regression
