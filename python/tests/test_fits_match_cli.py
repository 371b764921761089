"""fit_lts / fit_lms / fit_ls equal the robust-fit CLI on the bundled datasets, field by field."""
import csv
import json
import subprocess

import numpy as np
import pytest

import robustfit
from conftest import BUNDLED, REPOSITORY, cli, cli_fit, load

# Python keyword arguments and the equivalent CLI options.
CASES = [
    ("lts", {}, []),
    ("lts", {"alpha": 0.75, "seed": 7}, ["--alpha", "0.75", "--seed", "7"]),
    ("lts", {"h": 15, "subsets": 200}, ["--h", "15", "--subsets", "200"]),
    ("lts", {"intercept": False}, ["--no-intercept"]),
    ("lms", {}, []),
    ("lms", {"subsets": 300, "seed": 3}, ["--subsets", "300", "--seed", "3"]),
    ("lts", {"subsets": "all"}, ["--subsets", "all"]),  # every elemental subset (nsamp = "exact")
    ("lms", {"subsets": "all"}, ["--subsets", "all"]),
    ("ls", {}, []),
    ("ls", {"intercept": False}, ["--no-intercept"]),
]
FITS = {"lts": robustfit.fit_lts, "lms": robustfit.fit_lms, "ls": robustfit.fit_ls}
NOT_COMPARED = {"data", "timings_s"}  # the input file's name; run times


def expected_and_actual(name, method, kwargs, options):
    names, X, y, _ = load(name)
    expected = cli_fit(name, "--method", method, "--backend", "cpu", *options)
    backend = {} if method == "ls" else {"backend": "cpu"}
    actual = FITS[method](X, y, names=names, **backend, **kwargs)
    return expected, actual


@pytest.mark.parametrize("name", sorted(BUNDLED))
@pytest.mark.parametrize("method,kwargs,options", CASES)
def test_fields_equal_the_cli(name, method, kwargs, options):
    expected, actual = expected_and_actual(name, method, kwargs, options)
    fields = actual.to_dict()
    assert set(fields) == set(expected) - {"data"}
    assert fields["response"] == "y" and fields["dropped_rows"] == 0
    for key in set(expected) - NOT_COMPARED - {"response"}:
        if isinstance(expected[key], float):
            assert fields[key] == pytest.approx(expected[key], rel=1e-12, abs=1e-12), key
        elif isinstance(expected[key], dict):
            assert list(fields[key]) == list(expected[key]), key  # same names, same order
            assert list(fields[key].values()) == pytest.approx(list(expected[key].values()), rel=1e-12, abs=1e-12), key
        else:
            assert fields[key] == expected[key], key
    assert actual.outliers == expected["outliers"]  # also an attribute, 1-based
    assert list(actual.timings_s) == list(expected["timings_s"])


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_per_row_arrays_equal_the_cli_residuals_file(name, tmp_path):
    names, X, y, path = load(name)
    residuals_file = tmp_path / "residuals.csv"
    subprocess.run([cli(), "fit", str(path), "--response", BUNDLED[name], "--backend", "cpu",
                    "--residuals", str(residuals_file)], check=True, capture_output=True)
    with open(residuals_file, newline="") as handle:
        rows = list(csv.DictReader(handle))
    fit = robustfit.fit_lts(X, y, names=names, backend="cpu")
    column = lambda key: np.array([float(row[key]) for row in rows])
    assert fit.residuals.dtype == np.float64 and fit.residuals.shape == (X.shape[0],)
    np.testing.assert_allclose(fit.residuals, column("residual"), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fit.fitted, column("fitted"), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(fit.weights, column("weight"))
    np.testing.assert_array_equal(fit.outlier_mask, column("outlier") == 1)
    np.testing.assert_array_equal(np.flatnonzero(fit.outlier_mask) + 1, fit.outliers)


def test_stackloss_lts_is_robustbase_fit(stackloss):
    # tests/fixtures/stackloss_lts.json: robustbase::ltsReg on stackloss (provenance inside).
    reference = json.loads((REPOSITORY / "tests" / "fixtures" / "stackloss_lts.json").read_text())
    names, X, y, _ = stackloss
    fit = robustfit.fit_lts(X, y, names=names)
    assert fit.outliers == reference["outliers"]
    assert fit.h == reference["h"]
    assert list(fit.coefficients.values()) == pytest.approx(list(reference["coefficients"].values()), rel=1e-4)
    assert fit.objective <= reference["objective"] * (1 + 1e-9)
    assert list(fit.coefficients) == ["(Intercept)", "Air.Flow", "Water.Temp", "Acid.Conc."]
    assert fit.method == "lts" and fit.n == 21 and fit.p == 4 and fit.h == 13 and fit.alpha == 0.5
