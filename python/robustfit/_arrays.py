"""NumPy inputs as the C++ library takes them: float64, column-major (Fortran order).

A float64 Fortran-ordered X (for example np.asfortranarray(X)) and a contiguous float64 y are
passed by reference, without a copy. Anything else (float32, integers, C order, strided slices)
is converted once into a new float64 Fortran-ordered array. The library itself then copies X
once more into its design matrix (which has the intercept column).
"""
import numbers

import numpy as np


def _numeric(array, what):
    if array.dtype.kind not in "fiub":
        raise ValueError(f"{what} must hold numbers, not {array.dtype}")


def predictors(X, what="X"):
    X = np.asarray(X)
    _numeric(X, what)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-d array (n rows x q columns), not {X.ndim}-d")
    return np.asfortranarray(X, dtype=np.float64)  # no copy when already float64 and F-ordered


def vector(values, what):
    values = np.asarray(values)
    _numeric(values, what)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(f"{what} must be a 1-d array, not of shape {values.shape}")
    return np.ascontiguousarray(values, dtype=np.float64)


def count(value, what, minimum=1):
    """A whole number >= minimum (rejects bools, floats with fractions and negative numbers)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{what} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def names_for(names, q):
    if names is None:
        return [f"x{j + 1}" for j in range(q)]
    names = [str(name) for name in names]
    if len(names) != q:
        raise ValueError(f"names has {len(names)} entries but X has {q} predictor columns")
    return names
