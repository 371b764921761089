"""scikit-learn-style estimators (scikit-learn itself is not needed): LTSRegressor, LMSRegressor."""
import inspect

import numpy as np

from . import _arrays
from ._fits import fit_lms, fit_lts


class _Parameters:
    """get_params / set_params / repr from the constructor's arguments, as scikit-learn's BaseEstimator."""

    @classmethod
    def _get_param_names(cls):
        return [name for name in inspect.signature(cls.__init__).parameters if name != "self"]

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self._get_param_names():
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        params = ", ".join(f"{name}={value!r}" for name, value in self.get_params().items())
        return f"{type(self).__name__}({params})"


class _RobustRegressor(_Parameters):
    """fit(X, y) -> self, predict(X); coef_, intercept_, scale_, outlier_mask_, result_."""

    def _store(self, result):
        coef = result.coef
        self.result_ = result
        self.intercept_ = float(coef[0]) if result.intercept else 0.0
        self.coef_ = coef[1:] if result.intercept else coef
        self.scale_ = result.scale
        self.outlier_mask_ = result.outlier_mask
        self.n_features_in_ = self.coef_.shape[0]
        return self

    def predict(self, X):
        if not hasattr(self, "coef_"):
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet: call fit(X, y) first")
        X = _arrays.predictors(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} predictor columns; the fit had {self.n_features_in_}")
        return X @ self.coef_ + self.intercept_

    def score(self, X, y):
        """R^2 of the predictions on all rows (as scikit-learn's regressors)."""
        y = _arrays.vector(y, "y")
        residual = y - self.predict(X)
        return 1.0 - float(residual @ residual) / float(((y - y.mean()) ** 2).sum())


class LTSRegressor(_RobustRegressor):
    """Least Trimmed Squares (robustfit.fit_lts) as a scikit-learn-style estimator."""

    def __init__(self, alpha=0.5, subsets=None, seed=0, backend="auto", precision="double", fit_intercept=True,
                 h=None):
        self.alpha = alpha
        self.subsets = subsets
        self.seed = seed
        self.backend = backend
        self.precision = precision
        self.fit_intercept = fit_intercept
        self.h = h

    def fit(self, X, y):
        return self._store(fit_lts(X, y, alpha=self.alpha, subsets=self.subsets, seed=self.seed, backend=self.backend,
                                   precision=self.precision, intercept=self.fit_intercept, h=self.h))


class LMSRegressor(_RobustRegressor):
    """Least Median of Squares (robustfit.fit_lms) as a scikit-learn-style estimator."""

    def __init__(self, subsets=None, seed=0, backend="auto", precision="double", fit_intercept=True, h=None):
        self.subsets = subsets
        self.seed = seed
        self.backend = backend
        self.precision = precision
        self.fit_intercept = fit_intercept
        self.h = h

    def fit(self, X, y):
        return self._store(fit_lms(X, y, subsets=self.subsets, seed=self.seed, backend=self.backend,
                                   precision=self.precision, intercept=self.fit_intercept, h=self.h))
