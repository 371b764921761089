"""LTSRegressor / LMSRegressor: scikit-learn-style estimators over fit_lts / fit_lms."""
import numpy as np
import pytest

import robustfit
from conftest import load


def test_lts_regressor_holds_the_fit_lts_result():
    _, X, y, _ = load("stackloss")
    model = robustfit.LTSRegressor(seed=3)
    assert model.fit(X, y) is model
    fit = robustfit.fit_lts(X, y, seed=3)
    assert model.intercept_ == fit.coefficients["(Intercept)"]
    np.testing.assert_array_equal(model.coef_, list(fit.coefficients.values())[1:])
    assert model.scale_ == fit.scale
    assert model.outlier_mask_.dtype == bool
    assert (np.flatnonzero(model.outlier_mask_) + 1).tolist() == fit.outliers == [1, 3, 4, 21]
    assert model.result_.outliers == fit.outliers
    np.testing.assert_allclose(model.predict(X), fit.fitted, rtol=1e-12)
    np.testing.assert_allclose(model.predict(X[:3].astype(np.float32)), X[:3].astype(np.float32).astype(float) @ model.coef_ + model.intercept_)


def test_without_intercept():
    _, X, y, _ = load("hbk")
    model = robustfit.LTSRegressor(fit_intercept=False).fit(X, y)
    fit = robustfit.fit_lts(X, y, intercept=False)
    assert model.intercept_ == 0.0
    np.testing.assert_array_equal(model.coef_, list(fit.coefficients.values()))


def test_lms_regressor():
    _, X, y, _ = load("hbk")
    model = robustfit.LMSRegressor().fit(X, y)
    fit = robustfit.fit_lms(X, y)
    assert model.result_.method == "lms"
    np.testing.assert_array_equal(np.r_[model.intercept_, model.coef_], list(fit.coefficients.values()))
    np.testing.assert_allclose(model.predict(X), fit.fitted, rtol=1e-12)


def test_params():
    model = robustfit.LTSRegressor(alpha=0.75)
    assert model.get_params() == {"alpha": 0.75, "subsets": None, "seed": 0, "backend": "auto",
                                  "precision": "double", "fit_intercept": True, "h": None}
    assert model.set_params(seed=9, subsets=100) is model
    assert model.seed == 9 and model.subsets == 100
    with pytest.raises(ValueError, match="invalid parameter"):
        model.set_params(nonsense=1)
    assert "alpha=0.75" in repr(model)


def test_predict_checks():
    with pytest.raises(RuntimeError, match="not fitted"):
        robustfit.LTSRegressor().predict(np.ones((2, 3)))
    _, X, y, _ = load("stackloss")
    model = robustfit.LTSRegressor().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 predictor columns; the fit had 3"):
        model.predict(np.ones((2, 2)))


def test_sklearn_clone_when_available():
    base = pytest.importorskip("sklearn.base")
    model = robustfit.LTSRegressor(alpha=0.9, seed=4)
    copy = base.clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
