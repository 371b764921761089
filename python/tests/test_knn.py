"""robustfit's kNN (knn_search, knn_predict, knn_loo, knn, KNeighbors*) against independent references:
a brute-force NumPy search (full sort by (distance, row)), scikit-learn on tie-free data, leave-one-out
by deleting rows, and the robust-fit CLI on iris."""
import json
import subprocess

import numpy as np
import pytest

import robustfit
from conftest import DATASETS, cli


# ---------------------------------------------------------------- brute-force reference

def brute_distances(train, queries, metric):
    """Distances summed column by column, each term and sum rounded separately (the library's definition)."""
    total = np.zeros((queries.shape[0], train.shape[0]))
    for j in range(train.shape[1]):
        difference = queries[:, j][:, None] - train[:, j][None, :]
        total = total + (difference * difference if metric == "euclidean" else np.abs(difference))
    return np.sqrt(total) if metric == "euclidean" else total


def brute_search(train, queries, k, metric="euclidean"):
    """(distances, indices) of the k smallest by (distance, row): a full sort of every row."""
    all_distances = brute_distances(train, queries, metric)
    rows = np.arange(train.shape[0])
    order = np.array([np.lexsort((rows, row))[:k] for row in all_distances])
    return np.take_along_axis(all_distances, order, axis=1), order


def neighbor_weights(distances, weights):
    if weights == "uniform":
        return np.ones_like(distances)
    zero = distances == 0
    if zero.any():
        return zero.astype(float)
    return 1.0 / distances


def brute_predict(train, y, queries, k, mode, weights, metric="euclidean"):
    distances, indices = brute_search(train, queries, k, metric)
    predictions = []
    for d, rows in zip(distances, indices):
        w = neighbor_weights(d, weights)
        if mode == "regression":
            predictions.append(float(w @ y[rows] / w.sum()))
            continue
        votes = {}
        for label, weight in zip(y[rows], w):
            votes[label] = votes.get(label, 0.0) + weight
        best = max(votes.values())
        tied = {label for label, vote in votes.items() if vote == best}
        predictions.append(next(label for label in y[rows] if label in tied))  # the nearest of the tied classes
    return np.array(predictions)


def tied_data(seed, n, d, m):
    """Small integers (many exact distance ties) with planted duplicate rows, and queries that repeat training rows."""
    rng = np.random.default_rng(seed)
    train = rng.integers(0, 3, size=(n, d)).astype(float)
    train[n // 2: n // 2 + 5] = train[0]  # duplicates of row 0
    queries = rng.integers(0, 3, size=(m, d)).astype(float)
    queries[:3] = train[[0, 7, n - 1]][:m]
    return train, queries


# ---------------------------------------------------------------- search and predictions vs brute force

@pytest.mark.parametrize("d", [1, 2, 5])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_search_equals_a_full_sort_by_distance_then_row(d, metric):
    train, queries = tied_data(d, 60, d, 20)
    for k in [1, 2, 7, 30, 59, 60]:
        distances, indices = robustfit.knn_search(train, queries, k=k, metric=metric, backend="cpu")
        expected_distances, expected_indices = brute_search(train, queries, k, metric)
        assert indices.dtype == np.int64 and indices.shape == (20, k)
        np.testing.assert_array_equal(indices, expected_indices)
        np.testing.assert_array_equal(distances, expected_distances)  # bit for bit


def test_standardize_is_the_search_on_z_scored_features():
    rng = np.random.default_rng(1)
    train = rng.normal(size=(80, 4)) * [1.0, 100.0, 0.01, 0.0] + [0.0, 5.0, -2.0, 3.0]  # the last column constant
    queries = rng.normal(size=(10, 4)) * [1.0, 100.0, 0.01, 1.0]
    mean, sd = train.mean(axis=0), train.std(axis=0)  # population sd, as StandardScaler
    sd[3] = 1.0  # a constant column is centred, not scaled
    _, indices = robustfit.knn_search(train, queries, k=6, standardize=True, backend="cpu")
    _, expected = brute_search((train - mean) / sd, (queries - mean) / sd, 6)
    np.testing.assert_array_equal(indices, expected)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_regression_equals_brute_force(weights):
    train, queries = tied_data(3, 50, 2, 25)
    y = np.random.default_rng(3).normal(size=50)
    for k in [1, 4, 9, 50]:
        predictions = robustfit.knn_predict(train, y, queries, k=k, weights=weights, backend="cpu")
        np.testing.assert_allclose(predictions, brute_predict(train, y, queries, k, "regression", weights),
                                   rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_classification_with_string_labels_equals_brute_force(weights):
    train, queries = tied_data(4, 50, 2, 25)
    labels = np.random.default_rng(4).choice(["red", "green", "blue"], size=50)
    for k in [1, 2, 4, 6, 11]:  # even k: tied votes, decided by the nearest of the tied classes
        predictions, distances, indices = robustfit.knn_predict(train, labels, queries, k=k, mode="classification",
                                                                weights=weights, backend="cpu", return_neighbors=True)
        assert predictions.tolist() == brute_predict(train, labels, queries, k, "classification", weights).tolist()
        np.testing.assert_array_equal(indices, brute_search(train, queries, k)[1])


def test_labels_of_any_hashable_kind():
    train, queries = tied_data(5, 30, 2, 10)
    codes = np.random.default_rng(5).integers(0, 3, size=30)
    as_ints = robustfit.knn_predict(train, codes * 10 + 7, queries, k=3, mode="classification")
    as_text = robustfit.knn_predict(train, [f"c{c}" for c in codes], queries, k=3, mode="classification")
    mixed_kinds = [(1, "a"), "b", 3.5]  # labels that do not sort
    as_mixed = robustfit.knn_predict(train, [mixed_kinds[c] for c in codes], queries, k=3, mode="classification")
    assert [(c - 7) // 10 for c in as_ints] == [int(t[1]) for t in as_text] == [mixed_kinds.index(m) for m in as_mixed]
    model = robustfit.KNeighborsClassifier(n_neighbors=3).fit(train, [f"c{c}" for c in codes])
    assert model.classes_.tolist() == ["c0", "c1", "c2"]


# ---------------------------------------------------------------- leave-one-out

@pytest.mark.parametrize("mode", ["regression", "classification"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_leave_one_out_equals_predicting_each_row_from_the_others(mode, weights):
    train, _ = tied_data(6, 40, 2, 1)  # duplicates: a row's copies stay among "the others"
    rng = np.random.default_rng(6)
    y = rng.normal(size=40) if mode == "regression" else rng.choice(["a", "b", "c"], size=40)
    ks = [1, 3, 8, 39]
    result = robustfit.knn_loo(train, y, ks=ks, mode=mode, weights=weights, backend="cpu")
    assert result.ks == ks
    expected = []
    for k in ks:
        held_out = np.array([robustfit.knn_predict(np.delete(train, i, axis=0), np.delete(y, i), train[i:i + 1], k=k,
                                                   mode=mode, weights=weights, backend="cpu")[0] for i in range(40)])
        expected.append(np.sqrt(np.mean((held_out - y) ** 2)) if mode == "regression" else np.mean(held_out != y))
    np.testing.assert_allclose(result.errors, expected, rtol=1e-12)
    assert result.best_k == ks[int(np.argmin(expected))]


# ---------------------------------------------------------------- the estimators

def test_kneighbors_without_x_leaves_each_row_itself_out():
    train, _ = tied_data(7, 40, 2, 1)
    train[20:32] = train[3]  # more copies of row 3 than k + 1: row 3 is not among its own k + 1 nearest rows
    model = robustfit.KNeighborsRegressor(n_neighbors=4).fit(train, np.zeros(40))
    distances, indices = model.kneighbors()
    all_distances, all_indices = brute_search(train, train, 40)
    for i in range(40):
        others = all_indices[i] != i
        np.testing.assert_array_equal(indices[i], all_indices[i][others][:4])
        np.testing.assert_array_equal(distances[i], all_distances[i][others][:4])
    assert model.kneighbors(train[:2], n_neighbors=3, return_distance=False).tolist() == brute_search(train, train[:2], 3)[1].tolist()


def test_estimator_parameters_and_fitted_checks():
    model = robustfit.KNeighborsClassifier()
    assert model.get_params() == {"n_neighbors": 5, "weights": "uniform", "metric": "euclidean",
                                  "standardize": False, "backend": "auto", "precision": "double"}
    assert model.set_params(n_neighbors=3, weights="distance") is model
    assert model.n_neighbors == 3 and model.weights == "distance"
    with pytest.raises(ValueError, match="invalid parameter 'k'"):
        model.set_params(k=3)
    with pytest.raises(RuntimeError, match="not fitted"):
        model.predict(np.zeros((1, 2)))
    model.fit(np.eye(4), ["a", "b", "a", "b"])
    with pytest.raises(ValueError, match="3 feature columns; the fit had 4"):
        model.predict(np.zeros((1, 3)))


# ---------------------------------------------------------------- errors

def test_errors_name_the_argument():
    train, queries = tied_data(8, 20, 3, 4)
    y = np.arange(20.0)
    with pytest.raises(ValueError, match="k: must be at least 1"):
        robustfit.knn_search(train, queries, k=0)
    with pytest.raises(ValueError, match="k: 21 exceeds the number of training points n = 20"):
        robustfit.knn_predict(train, y, queries, k=21)
    with pytest.raises(ValueError, match="k must be a whole number >= 1"):
        robustfit.knn_search(train, queries, k=-2)
    with pytest.raises(ValueError, match="k must be a whole number >= 1"):
        robustfit.knn_search(train, queries, k=2.5)
    with pytest.raises(ValueError, match="queries: 2 columns, the training data has 3"):
        robustfit.knn_search(train, queries[:, :2], k=3)
    with pytest.raises(ValueError, match="y has 19 values but X has 20 rows"):
        robustfit.KNeighborsRegressor().fit(train, y[:-1])
    with pytest.raises(ValueError, match="response: 19 values for 20 training rows"):
        robustfit.knn_predict(train, y[:-1], queries, k=3)
    bad = train.copy()
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match="train: row 5, column 2 is NaN"):
        robustfit.knn_search(bad, queries, k=3)
    bad_queries = queries.copy()
    bad_queries[0, 0] = np.inf
    with pytest.raises(ValueError, match="queries: row 1, column 1 is infinite"):
        robustfit.knn_predict(train, y, bad_queries, k=3)
    with pytest.raises(ValueError, match="k: 20 exceeds n - 1 = 19"):
        robustfit.knn_loo(train, y, ks=[1, 20])
    with pytest.raises(ValueError, match="n_neighbors: 20 exceeds n - 1 = 19"):
        robustfit.KNeighborsRegressor().fit(train, y).kneighbors(n_neighbors=20)
    with pytest.raises(ValueError, match="metric: unknown 'cosine'"):
        robustfit.knn_search(train, queries, metric="cosine")
    with pytest.raises(ValueError, match="mode: unknown 'ranking'"):
        robustfit.knn_predict(train, y, queries, mode="ranking")
    with pytest.raises(ValueError, match="weights: unknown 'gaussian'"):
        robustfit.knn_predict(train, y, queries, weights="gaussian")
    with pytest.raises(ValueError, match="y must hold numbers"):
        robustfit.knn_predict(train, ["a"] * 20, queries)  # text labels in regression


def test_cuda_backend_without_a_device_is_a_value_error():
    if robustfit.cuda_available():
        pytest.skip("a GPU is usable here")
    train, queries = tied_data(9, 20, 2, 3)
    with pytest.raises(ValueError, match="CUDA backend .* not available"):
        robustfit.knn_search(train, queries, k=3, backend="cuda")


# ---------------------------------------------------------------- scikit-learn (tie-free data)

def tie_free(seed, n=200, d=4, m=60):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(m, d)), rng


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_regressor_equals_scikit_learn(weights, metric):
    neighbors = pytest.importorskip("sklearn.neighbors")
    train, queries, rng = tie_free(10)
    y = train[:, 0] - 2 * train[:, 1] + rng.normal(size=200)
    for k in [1, 5, 15]:
        ours = robustfit.KNeighborsRegressor(n_neighbors=k, weights=weights, metric=metric, backend="cpu").fit(train, y)
        theirs = neighbors.KNeighborsRegressor(n_neighbors=k, weights=weights, metric=metric, algorithm="brute").fit(train, y)
        np.testing.assert_allclose(ours.predict(queries), theirs.predict(queries), rtol=1e-12)
        our_distances, our_indices = ours.kneighbors(queries)
        their_distances, their_indices = theirs.kneighbors(queries)
        np.testing.assert_array_equal(our_indices, their_indices)
        np.testing.assert_allclose(our_distances, their_distances, rtol=1e-12)
        np.testing.assert_array_equal(ours.kneighbors()[1], theirs.kneighbors()[1])  # each row among the others


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_classifier_with_string_labels_equals_scikit_learn(weights):
    neighbors = pytest.importorskip("sklearn.neighbors")
    train, queries, rng = tie_free(11)
    labels = np.array(["setosa", "versicolor", "virginica"])[(train[:, 0] > 0).astype(int) + (train[:, 1] > 0.5)]
    labels[rng.choice(200, 30, replace=False)] = "virginica"
    for k in [1, 4, 9]:
        ours = robustfit.KNeighborsClassifier(n_neighbors=k, weights=weights, backend="cpu").fit(train, labels)
        theirs = neighbors.KNeighborsClassifier(n_neighbors=k, weights=weights, algorithm="brute").fit(train, labels)
        assert ours.classes_.tolist() == theirs.classes_.tolist()
        # A tied vote goes to the nearest of the tied classes here, to the smallest class in scikit-learn:
        # compare where the vote has one winner.
        _, indices = theirs.kneighbors(queries)
        distances = theirs.kneighbors(queries)[0]
        untied = []
        for row, d in zip(indices, distances):
            w = neighbor_weights(d, weights)
            votes = np.array([w[labels[row] == c].sum() for c in theirs.classes_])
            untied.append((votes == votes.max()).sum() == 1)
        untied = np.array(untied)
        assert untied.sum() >= 40
        assert ours.predict(queries)[untied].tolist() == theirs.predict(queries)[untied].tolist()
        np.testing.assert_array_equal(ours.kneighbors(queries)[1], indices)
        assert ours.score(queries, theirs.predict(queries)) >= untied.mean()


# ---------------------------------------------------------------- the CLI on iris

def run_cli(*arguments):
    done = subprocess.run([cli(), "knn", "--train", str(DATASETS / "iris.csv"), *arguments, "--output", "json"],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def iris():
    table = np.genfromtxt(DATASETS / "iris.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    features = np.column_stack([table[name] for name in ("sepal_length", "sepal_width", "petal_length", "petal_width")])
    return features.astype(float), table["species"].astype(str)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_classification_on_iris_equals_the_cli(weights):
    X, species = iris()  # iris has duplicate rows and tied distances
    expected = run_cli("--query", str(DATASETS / "iris.csv"), "--response", "species", "--mode", "classification",
                       "--k", "7", "--weights", weights, "--neighbors", "--backend", "cpu")
    result = robustfit.knn(X, X, species, k=7, mode="classification", weights=weights, neighbors=True, backend="cpu")
    assert result["predictions"].tolist() == expected["predictions"]
    assert (result["neighbors"] + 1).tolist() == expected["neighbors"]  # the CLI's rows are 1-based
    np.testing.assert_array_equal(result["distances"], np.array(expected["distances"]))
    for field in ("k", "mode", "metric", "weights", "n_train", "n_query", "backend", "precision"):
        assert result[field] == expected[field], field


def test_leave_one_out_on_iris_equals_the_cli():
    X, species = iris()
    expected = run_cli("--response", "species", "--mode", "classification", "--k", "1,5,15,40", "--standardize",
                       "--backend", "cpu")
    result = robustfit.knn(X, y=species, k=[1, 5, 15, 40], mode="classification", standardize=True, backend="cpu")
    assert result == expected


def test_regression_on_iris_equals_the_cli():
    X, _ = iris()
    expected = run_cli("--query", str(DATASETS / "iris.csv"), "--response", "petal_width", "--predictors",
                       "sepal_length,sepal_width,petal_length", "--k", "5", "--metric", "manhattan", "--backend", "cpu")
    predictions = robustfit.knn_predict(X[:, :3], X[:, 3], X[:, :3], k=5, metric="manhattan", backend="cpu")
    np.testing.assert_array_equal(predictions, np.array(expected["predictions"]))
