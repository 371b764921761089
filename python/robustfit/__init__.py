"""Robust linear regression (LTS, LMS) on exact k-th order statistics: robust-fit's C++ library.

    import numpy as np, robustfit
    fit = robustfit.fit_lts(X, y)            # X: n x q predictors, y: n
    fit.coefficients, fit.scale, fit.outliers  # the CLI's JSON fields (outliers 1-based)

fit_lts / fit_lms / fit_ls return a FitResult; select(values, k) gives exact order statistics;
LTSRegressor / LMSRegressor are scikit-learn-style estimators.

Exact k-nearest neighbours (indices 0-based, ties at the k-th distance to the smaller row):

    distances, indices = robustfit.knn_search(train, queries, k=5)
    labels = robustfit.knn_predict(train, y, queries, k=5, mode="classification")
    robustfit.knn_loo(train, y, ks=[1, 5, 10]).best_k
    robustfit.KNeighborsClassifier(n_neighbors=5).fit(X, y).predict(Q)   # also KNeighborsRegressor
"""
from ._fits import fit_lms, fit_lts, fit_ls, select
from ._result import FitResult
from ._estimators import LMSRegressor, LTSRegressor
from ._knn import LooResult, knn, knn_loo, knn_predict, knn_search
from ._knn_estimators import KNeighborsClassifier, KNeighborsRegressor
from ._robustfit import cuda_available

__all__ = ["fit_lts", "fit_lms", "fit_ls", "select", "FitResult", "LTSRegressor", "LMSRegressor",
           "knn", "knn_search", "knn_predict", "knn_loo", "LooResult", "KNeighborsRegressor",
           "KNeighborsClassifier", "cuda_available"]
