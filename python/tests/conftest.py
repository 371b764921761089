"""Shared fixtures: the bundled datasets and the robust-fit CLI (paths from CTest's environment)."""
import csv
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
DATASETS = pathlib.Path(os.environ.get("ROBUSTFIT_DATASETS", REPOSITORY / "data" / "datasets"))
# (file, response) of each bundled dataset; the predictors are the other columns.
BUNDLED = {"stackloss": "stack.loss", "hbk": "Y", "starsCYG": "log.light"}


def load(name):
    """(predictor names, X, y, path) of a bundled dataset, read independently of the library."""
    path = DATASETS / f"{name}.csv"
    with open(path, newline="") as handle:
        header = next(csv.reader(handle))
    table = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    response = header.index(BUNDLED[name])
    predictors = [j for j in range(len(header)) if j != response]
    return [header[j] for j in predictors], table[:, predictors], table[:, response], path


def cli():
    path = os.environ.get("ROBUSTFIT_CLI")
    if not path:
        pytest.skip("ROBUSTFIT_CLI is not set (CTest sets it to the built robust-fit)")
    return path


def cli_fit(name, *options):
    """`robust-fit fit <dataset> --response R --output json <options>` as a dict."""
    path = DATASETS / f"{name}.csv"
    done = subprocess.run([cli(), "fit", str(path), "--response", BUNDLED[name], "--output", "json", *options],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


@pytest.fixture
def stackloss():
    return load("stackloss")
