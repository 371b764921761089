"""Input dtypes and layouts give the same fit as float64; bad input raises ValueError, never crashes."""
import threading
import time

import numpy as np
import pytest

import robustfit


def coefficients(fit):
    return np.array(list(fit.coefficients.values()))


@pytest.fixture
def hbk():
    from conftest import load
    names, X, y, _ = load("hbk")
    return names, X, y


@pytest.mark.parametrize("layout", ["fortran", "c", "float32", "strided", "list"])
def test_layouts_and_dtypes_give_the_float64_fit(hbk, layout):
    _, X, y = hbk
    reference_X, reference_y = np.asfortranarray(X), y
    if layout == "fortran":
        X_in, y_in = np.asfortranarray(X), y
    elif layout == "c":
        X_in, y_in = np.ascontiguousarray(X), y.reshape(-1, 1)
    elif layout == "float32":
        X_in, y_in = X.astype(np.float32), y.astype(np.float32)
        reference_X, reference_y = X_in.astype(np.float64), y_in.astype(np.float64)
    elif layout == "strided":  # non-contiguous views into bigger arrays
        big = np.zeros((2 * X.shape[0], 2 * X.shape[1]))
        big[::2, ::2] = X
        column = np.zeros((X.shape[0], 3))
        column[:, 1] = y
        X_in, y_in = big[::2, ::2], column[:, 1]
    else:
        X_in, y_in = X.tolist(), y.tolist()
    expected = robustfit.fit_lts(reference_X, reference_y, backend="cpu")
    actual = robustfit.fit_lts(X_in, y_in, backend="cpu")
    np.testing.assert_array_equal(coefficients(actual), coefficients(expected))
    assert actual.outliers == expected.outliers and actual.scale == expected.scale


def test_integer_input_equals_float_input():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 50, size=(60, 2))
    y = 3 * X[:, 0] - 2 * X[:, 1] + rng.integers(-3, 4, size=60)
    y[:6] += 200  # outliers
    expected = robustfit.fit_lts(X.astype(np.float64), y.astype(np.float64), backend="cpu")
    actual = robustfit.fit_lts(X, y, backend="cpu")
    np.testing.assert_array_equal(coefficients(actual), coefficients(expected))
    assert set(range(1, 7)) <= set(actual.outliers)


def test_one_dimensional_X_is_one_predictor():
    from conftest import load
    _, X, y, _ = load("starsCYG")
    assert coefficients(robustfit.fit_lts(X[:, 0], y)).tolist() == coefficients(robustfit.fit_lts(X, y)).tolist()
    assert list(robustfit.fit_ls(X[:, 0], y).coefficients) == ["(Intercept)", "x1"]


def test_inputs_are_not_modified(hbk):
    _, X, y = hbk
    X_copy, y_copy = X.copy(), y.copy()
    robustfit.fit_lts(np.asfortranarray(X), y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)


def test_errors_are_value_errors_with_the_library_message(hbk):
    names, X, y = hbk
    bad = X.copy()
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match="predictor 'X2' has a non-finite value in row 5"):
        robustfit.fit_lts(bad, y, names=names)
    with pytest.raises(ValueError, match="predictor 'x2' has a non-finite value in row 5"):
        robustfit.fit_ls(bad, y)
    y_bad = y.copy()
    y_bad[0] = np.inf
    with pytest.raises(ValueError, match="response has a non-finite value in row 1"):
        robustfit.fit_lms(X, y_bad)
    with pytest.raises(ValueError, match="too few observations"):
        robustfit.fit_lts(X[:4], y[:4])
    with pytest.raises(ValueError, match="rows but y has"):
        robustfit.fit_lts(X, y[:-1])
    constant = X.copy()
    constant[:, 2] = 1.0
    with pytest.raises(ValueError, match="'X3' is constant"):
        robustfit.fit_lts(constant, y, names=names)
    collinear = np.column_stack([X, X[:, 0] + X[:, 1]])
    with pytest.raises(ValueError, match="collinear"):
        robustfit.fit_lts(collinear, y)
    with pytest.raises(ValueError, match="gpu"):
        robustfit.fit_lts(X, y, backend="gpu")
    with pytest.raises(ValueError, match="half"):
        robustfit.fit_lms(X, y, precision="half")
    with pytest.raises(ValueError, match="alpha"):
        robustfit.fit_lts(X, y, alpha=0.3)
    with pytest.raises(ValueError, match="h = 2 is out of range"):
        robustfit.fit_lts(X, y, h=2)
    for subsets in (0, -3, 2.5):
        with pytest.raises(ValueError, match="subsets"):
            robustfit.fit_lts(X, y, subsets=subsets)
    with pytest.raises(ValueError, match="seed"):
        robustfit.fit_lts(X, y, seed=-1)
    with pytest.raises(ValueError, match="names has 2 entries"):
        robustfit.fit_lts(X, y, names=["a", "b"])
    with pytest.raises(ValueError, match="numbers"):
        robustfit.fit_lts(np.array([["a"] * 3] * 10), y[:10])
    with pytest.raises(ValueError, match="2-d"):
        robustfit.fit_lts(np.ones((5, 2, 2)), y[:5])


def test_float_precision_on_the_cpu_is_an_error(hbk):
    _, X, y = hbk
    with pytest.raises(ValueError):
        robustfit.fit_lts(X, y, backend="cpu", precision="float")


@pytest.mark.skipif(robustfit.cuda_available(), reason="a GPU is usable here")
def test_cuda_backend_without_a_gpu_raises(hbk):
    _, X, y = hbk
    with pytest.raises((ValueError, RuntimeError), match="CUDA|cuda"):
        robustfit.fit_lts(X, y, backend="cuda")


def test_the_gil_is_released_during_a_fit():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((20_000, 6))
    y = X @ np.arange(1.0, 7.0) + rng.standard_normal(20_000)
    fit_thread = threading.Thread(target=robustfit.fit_lts, args=(X, y), kwargs={"backend": "cpu", "subsets": 50})
    ticks = 0
    started = time.perf_counter()
    fit_thread.start()
    while fit_thread.is_alive():  # with the GIL held by the fit this loop could not run
        ticks += 1
        time.sleep(0.001)
    elapsed = time.perf_counter() - started
    assert elapsed > 0.05, "the fit was too quick to tell"
    assert ticks >= 10, f"the main thread ran {ticks} times in {elapsed:.2f} s"
