"""Exact k-nearest neighbours on NumPy arrays: knn_search, knn_predict, knn_loo and knn (docs/KNN.md).

Neighbour indices are 0-based rows of `train` (as scikit-learn's kneighbors), ordered by
(distance, row): a tie at the k-th distance goes to the smaller row. The CLI prints 1-based data
rows instead. Classification labels may be any hashable values (strings, ints, ...): they are
numbered 0..C-1 here (in sorted order when they sort) and the predictions are labels again.
"""
import collections
import numbers

import numpy as np

from . import _arrays, _robustfit

# One entry per k of the list: RMSE (regression) or misclassification rate (classification) of
# every training point predicted from the others; best_k: the smallest error, ties to the smaller k.
LooResult = collections.namedtuple("LooResult", ["ks", "errors", "best_k", "backend"])


def _k(value, what="k"):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value == 0:
        return 0  # the library's own message: "k: must be at least 1"
    return _arrays.count(value, what)


def _options(metric, standardize, backend, precision):
    return dict(metric=str(metric), standardize=bool(standardize), backend=str(backend), precision=str(precision))


class Labels:
    """Class labels <-> the codes 0..C-1 the library takes: classes (sorted when they sort), codes."""

    def __init__(self, y):
        y = _label_array(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise ValueError(f"y must be a 1-d array of labels, not of shape {y.shape}")
        try:
            self.classes, codes = np.unique(y, return_inverse=True)
        except TypeError:  # labels that do not sort (mixed types): in order of first appearance
            first = {}
            codes = np.array([first.setdefault(label, len(first)) for label in y.tolist()], dtype=np.int64)
            self.classes = np.empty(len(first), dtype=object)
            self.classes[:] = list(first)
        self.codes = np.ascontiguousarray(codes.reshape(-1), dtype=np.float64)

    def decode(self, codes):
        return self.classes[np.asarray(codes, dtype=np.intp)]


def _label_array(y):
    """y as a NumPy array of labels; a list of mixed kinds (1, "a", (2, 3)) becomes an object array
    rather than strings or a 2-d array."""
    if isinstance(y, np.ndarray):
        return y
    items = list(y)
    try:
        array = np.asarray(items)
    except ValueError:  # sequences of different lengths among the labels
        array = None
    column = array is not None and array.ndim == 2 and array.shape[1] == 1
    if array is None or (array.ndim != 1 and not column) or (
            array.dtype.kind in "US" and not all(isinstance(item, (str, bytes)) for item in items)):
        array = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            array[i] = item
    return array


def _response(y, mode):
    """(float64 values the library takes, Labels or None)."""
    if str(mode) == "classification":
        labels = Labels(y)
        return labels.codes, labels
    return _arrays.vector(y, "y"), None


def knn_search(train, queries, k=5, metric="euclidean", standardize=False, backend="auto", precision="double"):
    """The k nearest rows of `train` for every row of `queries`: (distances, indices), m x k each.

    indices are 0-based rows of train (int64), each row of the result ordered by (distance, row);
    a tie at the k-th distance goes to the smaller row. metric: "euclidean" | "manhattan";
    standardize: z-score the features with train's mean and population sd (queries too);
    backend: "auto" | "cpu" | "cuda"; precision: "double" | "float" (CUDA only).
    Raises ValueError for k = 0 or k > n, NaN/Inf, or queries with another number of columns.
    """
    train = _arrays.predictors(train, "train")
    queries = _arrays.predictors(queries, "queries")
    found = _robustfit.knn_search(train, queries, k=_k(k), **_options(metric, standardize, backend, precision))
    return found["distances"], found["indices"]


def knn_predict(train, y, queries, k=5, mode="regression", weights="uniform", metric="euclidean", standardize=False,
                backend="auto", precision="double", return_neighbors=False):
    """Predictions for the rows of `queries` from their k nearest rows of `train`.

    mode "regression": the (weighted) mean of the neighbours' y; "classification": the label with
    the largest (weighted) vote, a tied vote going to the class of the nearest neighbour among the
    tied classes (scikit-learn takes the smallest class). weights: "uniform" | "distance" (1 /
    distance; neighbours at distance 0, when any, share the whole weight). Other arguments as
    knn_search. With return_neighbors: (predictions, distances, indices).
    """
    train = _arrays.predictors(train, "train")
    queries = _arrays.predictors(queries, "queries")
    response, labels = _response(y, mode)
    done = _robustfit.knn_predict(train, response, queries, k=_k(k), mode=str(mode), weights=str(weights),
                                  return_neighbors=bool(return_neighbors),
                                  **_options(metric, standardize, backend, precision))
    predictions = done["predictions"] if labels is None else labels.decode(done["predictions"])
    if return_neighbors:
        return predictions, done["distances"], done["indices"]
    return predictions


def knn_loo(train, y, ks=(1, 5, 10), mode="regression", weights="uniform", metric="euclidean", standardize=False,
            backend="auto", precision="double"):
    """Leave-one-out over the training set for every k of `ks` (each 1 <= k <= n - 1): a LooResult.

    Every row is predicted from the others (its own row left out; a duplicate of it is not).
    errors[i]: RMSE (regression) or misclassification rate (classification) for ks[i]; best_k:
    the smallest error, ties to the smaller k.
    """
    train = _arrays.predictors(train, "train")
    response, _ = _response(y, mode)
    ks = [_k(k) for k in (list(ks) if np.ndim(ks) > 0 else [ks])]
    done = _robustfit.knn_loo(train, response, ks=ks, mode=str(mode), weights=str(weights),
                              **_options(metric, standardize, backend, precision))
    return LooResult(list(done["ks"]), np.asarray(done["errors"]), int(done["best_k"]), done["backend"])


def knn(train, queries=None, y=None, k=5, mode="regression", metric="euclidean", weights="uniform",
        standardize=False, backend="auto", precision="double", neighbors=False):
    """`robust-fit knn` on arrays: a dict with the fields of its JSON output.

    With queries and y: k, mode, metric, weights, n_train, n_query, backend, precision,
    predictions, and with neighbors=True also neighbors (0-based rows of train, unlike the CLI's
    1-based data rows) and distances. With queries and no y: the neighbour search alone.
    Without queries: leave-one-out for k (a whole number or a list): k (the list), mode, metric,
    weights, n_train, backend, precision, loo ([{"k", "error"}]), best_k.
    """
    if queries is None:
        if y is None:
            raise ValueError("knn: leave-one-out (no queries) needs the training responses y")
        result = knn_loo(train, y, ks=k, mode=mode, weights=weights, metric=metric, standardize=standardize,
                         backend=backend, precision=precision)
        return {"k": result.ks, "mode": str(mode), "metric": str(metric), "weights": str(weights),
                "n_train": len(_arrays.predictors(train, "train")), "n_query": 0, "backend": result.backend,
                "precision": str(precision),
                "loo": [{"k": k_, "error": float(e)} for k_, e in zip(result.ks, result.errors)],
                "best_k": result.best_k}
    train = _arrays.predictors(train, "train")
    queries = _arrays.predictors(queries, "queries")
    fields = {"k": k, "mode": str(mode), "metric": str(metric), "weights": str(weights), "n_train": train.shape[0],
              "n_query": queries.shape[0]}
    options = _options(metric, standardize, backend, precision)
    if y is None:
        found = _robustfit.knn_search(train, queries, k=_k(k), **options)
        fields.update(backend=found["backend"], precision=str(precision), neighbors=found["indices"],
                      distances=found["distances"])
        return fields
    response, labels = _response(y, mode)
    done = _robustfit.knn_predict(train, response, queries, k=_k(k), mode=str(mode), weights=str(weights),
                                  return_neighbors=bool(neighbors), **options)
    fields.update(backend=done["backend"], precision=str(precision),
                  predictions=done["predictions"] if labels is None else labels.decode(done["predictions"]))
    if neighbors:
        fields.update(neighbors=done["indices"], distances=done["distances"])
    return fields


def search_without_self(train, k, **options):
    """(distances, indices) of the k nearest other rows of every training row (scikit-learn's
    kneighbors() without X): one search with k + 1; a row's own entry is dropped, or the last
    entry when the row is not among its k + 1 nearest (more than k exact duplicates before it)."""
    n = train.shape[0]
    k = _arrays.count(k, "n_neighbors")
    if k > n - 1:
        raise ValueError(f"n_neighbors: {k} exceeds n - 1 = {n - 1} (each training point's own row is left out)")
    found = _robustfit.knn_search(train, train, k=k + 1, **options)
    distances, indices = found["distances"], found["indices"]
    own = indices == np.arange(n)[:, None]
    keep = ~own
    keep[~own.any(axis=1), -1] = False
    return distances[keep].reshape(n, -1), indices[keep].reshape(n, -1)

