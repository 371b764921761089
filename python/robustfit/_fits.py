"""fit_lts, fit_lms, fit_ls and select: the library's estimators on NumPy arrays."""
import numbers

import numpy as np

from . import _arrays, _robustfit
from ._result import FitResult


def _prepare(X, y, names):
    X = _arrays.predictors(X)
    y = _arrays.vector(y, "y")
    return X, y, _arrays.names_for(names, X.shape[1])


def _optional_count(value, what, minimum=1):
    return None if value is None else _arrays.count(value, what, minimum)


def _subsets(value):
    """None, a count >= 1, or "all" (every elemental subset: the library's all_subsets)."""
    if isinstance(value, str) and value == "all":
        return _robustfit.all_subsets
    return _optional_count(value, "subsets")


def fit_lts(X, y, alpha=0.5, subsets=None, seed=0, backend="auto", precision="double", intercept=True,
            h=None, names=None):
    """Least Trimmed Squares (FAST-LTS as robustbase::ltsReg), reweighted.

    X: n x q predictors (no column of ones), y: n responses. alpha in [0.5, 1] sets the coverage
    h = h.alpha.n(alpha, n, p); h, when given, overrides it. subsets: None for robust-fit's
    default search (docs/SEARCH.md), N for robustbase's (N random elemental subsets, its nsamp), or
    "all" for every elemental subset (robustbase's nsamp = "exact"; at most 1e8 of them);
    seed: the same seed gives the same fit. backend: "auto" | "cpu" | "cuda"; precision:
    "double" | "float" (CUDA only). names: predictor names (default x1..xq).
    Raises ValueError for bad input (NaN, n <= p, collinear predictors, unknown backend).
    """
    X, y, names = _prepare(X, y, names)
    return FitResult(_robustfit.fit_lts(X, y, alpha=float(alpha), h=_optional_count(h, "h"),
                                        subsets=_subsets(subsets),
                                        seed=_arrays.count(seed, "seed", 0), backend=str(backend),
                                        precision=str(precision), intercept=bool(intercept), names=names))


def fit_lms(X, y, subsets=None, seed=0, backend="auto", precision="double", intercept=True, h=None, names=None):
    """Least Median of Squares (as MASS::lqs, with Chebyshev refinement), reweighted.

    subsets: None for the default (all C(n, p) subsets when <= 5000, else min(500 p, 3000)
    random ones), N random ones, or "all" (MASS's nsamp = "exact"); h defaults to floor((n + 1) / 2). Other arguments as fit_lts.
    """
    X, y, names = _prepare(X, y, names)
    return FitResult(_robustfit.fit_lms(X, y, h=_optional_count(h, "h"), subsets=_subsets(subsets),
                                        seed=_arrays.count(seed, "seed", 0), backend=str(backend),
                                        precision=str(precision), intercept=bool(intercept), names=names))


def fit_ls(X, y, intercept=True, names=None):
    """Ordinary least squares (rank-revealing QR)."""
    X, y, names = _prepare(X, y, names)
    return FitResult(_robustfit.fit_ls(X, y, intercept=bool(intercept), names=names))


def select(values, k, backend="auto"):
    """Exact order statistics: the k-th smallest of `values`, k = 1 the minimum, n the maximum.

    k is a whole number or a list of them; returns a float or a list of floats. Values are
    compared as float64 (integers beyond 2**53 lose precision). backend: "auto" (CUDA when a GPU
    is usable) | "cpu" | "cuda". Raises ValueError for NaN, empty input or k out of range.
    """
    values = _arrays.vector(values, "values")
    many = np.ndim(k) > 0  # a list, tuple or array of ranks
    ks = list(k) if many else [k]
    n = values.shape[0]
    for rank in ks:
        if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or not 1 <= rank <= n:
            raise ValueError(f"k = {rank!r} is out of range: it must be a whole number in [1, {n}] (n = {n})")
    chosen = _robustfit.select(values, [int(rank) - 1 for rank in ks], str(backend))
    return chosen if many else chosen[0]
