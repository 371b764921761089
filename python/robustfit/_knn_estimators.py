"""KNeighborsRegressor / KNeighborsClassifier: scikit-learn-style estimators over the exact kNN
(scikit-learn itself is not needed). Neighbours are the k smallest by (distance, row), so a tie at
the k-th distance goes to the earlier training row; a tied classification vote goes to the class
of the nearest neighbour among the tied classes (scikit-learn: the smallest class)."""
import numpy as np

from . import _arrays, _knn, _robustfit
from ._estimators import _Parameters


class _KNeighbors(_Parameters):
    _mode = "regression"

    def __init__(self, n_neighbors=5, weights="uniform", metric="euclidean", standardize=False, backend="auto",
                 precision="double"):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.metric = metric
        self.standardize = standardize
        self.backend = backend
        self.precision = precision

    def _options(self):
        return dict(metric=str(self.metric), standardize=bool(self.standardize), backend=str(self.backend),
                    precision=str(self.precision))

    def _fit(self, X, response):
        X = _arrays.predictors(X)
        if response.shape[0] != X.shape[0]:
            raise ValueError(f"y has {response.shape[0]} values but X has {X.shape[0]} rows")
        self._fit_X = X
        self._response = response
        self.n_features_in_ = X.shape[1]
        self.n_samples_fit_ = X.shape[0]
        return self

    def _queries(self, X):
        if not hasattr(self, "_fit_X"):
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet: call fit(X, y) first")
        X = _arrays.predictors(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} feature columns; the fit had {self.n_features_in_}")
        return X

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """(distances, indices) of the n_neighbors nearest training rows (0-based), as scikit-learn;
        without X, of every training row among the others (its own row left out)."""
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if X is None:
            self._queries(self._fit_X)  # the fitted check
            distances, indices = _knn.search_without_self(self._fit_X, k, **self._options())
        else:
            found = _robustfit.knn_search(self._fit_X, self._queries(X), k=_knn._k(k), **self._options())
            distances, indices = found["distances"], found["indices"]
        return (distances, indices) if return_distance else indices

    def _predict_codes(self, X):
        queries = self._queries(X)  # raises when not fitted
        done = _robustfit.knn_predict(self._fit_X, self._response, queries, k=_knn._k(self.n_neighbors),
                                      mode=self._mode, weights=str(self.weights), return_neighbors=False,
                                      **self._options())
        return done["predictions"]


class KNeighborsRegressor(_KNeighbors):
    """Exact k-nearest-neighbour regression: the (weighted) mean response of the neighbours.

    weights: "uniform" | "distance" (1 / distance; neighbours at distance 0, when any, share the
    whole weight); metric: "euclidean" | "manhattan"; standardize: z-score the features with the
    training mean and population sd (off by default, as scikit-learn); backend: "auto" | "cpu" |
    "cuda"; precision: "double" | "float" (CUDA only).
    """

    def fit(self, X, y):
        return self._fit(X, _arrays.vector(y, "y"))

    def predict(self, X):
        return self._predict_codes(X)

    def score(self, X, y):
        """R^2 of the predictions (as scikit-learn's regressors)."""
        y = _arrays.vector(y, "y")
        residual = y - self.predict(X)
        return 1.0 - float(residual @ residual) / float(((y - y.mean()) ** 2).sum())


class KNeighborsClassifier(_KNeighbors):
    """Exact k-nearest-neighbour classification: the label with the largest (weighted) vote.

    Labels may be any hashable values; classes_ holds them (sorted when they sort). Parameters as
    KNeighborsRegressor.
    """

    _mode = "classification"

    def fit(self, X, y):
        labels = _knn.Labels(y)
        self.classes_ = labels.classes
        self._labels = labels
        return self._fit(X, labels.codes)

    def predict(self, X):
        codes = self._predict_codes(X)
        return self._labels.decode(codes)

    def score(self, X, y):
        """Accuracy: the fraction of rows predicted with their label."""
        return float(np.mean(self.predict(X) == np.asarray(y).reshape(-1)))
