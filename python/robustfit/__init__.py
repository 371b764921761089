"""Robust linear regression (LTS, LMS) on exact k-th order statistics: robust-fit's C++ library.

    import numpy as np, robustfit
    fit = robustfit.fit_lts(X, y)            # X: n x q predictors, y: n
    fit.coefficients, fit.scale, fit.outliers  # the CLI's JSON fields (outliers 1-based)

fit_lts / fit_lms / fit_ls return a FitResult; select(values, k) gives exact order statistics;
LTSRegressor / LMSRegressor are scikit-learn-style estimators.
"""
from ._fits import fit_lms, fit_lts, fit_ls, select
from ._result import FitResult
from ._estimators import LMSRegressor, LTSRegressor
from ._robustfit import cuda_available

__all__ = ["fit_lts", "fit_lms", "fit_ls", "select", "FitResult", "LTSRegressor", "LMSRegressor",
           "cuda_available"]
