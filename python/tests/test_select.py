"""select(values, k): exact order statistics, checked against numpy.sort."""
import numpy as np
import pytest

import robustfit


@pytest.mark.parametrize("n", [1, 2, 17, 1000, 100_003])
def test_every_requested_rank_equals_numpy_sort(n):
    rng = np.random.default_rng(n)
    values = rng.standard_normal(n)
    values[: n // 3] = np.round(values[: n // 3])  # ties
    ordered = np.sort(values)
    ks = sorted({1, n, (n + 1) // 2, *rng.integers(1, n + 1, size=20).tolist()})
    assert robustfit.select(values, ks, backend="cpu") == [ordered[k - 1] for k in ks]
    assert robustfit.select(values, n, backend="cpu") == ordered[-1]
    assert isinstance(robustfit.select(values, 1, backend="cpu"), float)


def test_ranks_in_any_order_and_repeated():
    values = np.array([5.0, -1.0, 3.0, 3.0, 10.0])
    assert robustfit.select(values, [5, 1, 3, 3]) == [10.0, -1.0, 3.0, 3.0]
    assert robustfit.select(values, (2,)) == [3.0]
    assert robustfit.select(values, np.array([4, 2])) == [5.0, 3.0]


def test_dtypes_and_layouts():
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((50, 4)).astype(np.float32)
    column = matrix[:, 2]  # a strided float32 view
    assert robustfit.select(column, [1, 25, 50]) == [float(v) for v in np.sort(column)[[0, 24, 49]]]
    integers = rng.integers(-1000, 1000, size=99)
    assert robustfit.select(integers, 50) == float(np.sort(integers)[49])
    assert robustfit.select([3, 1, 2], 2) == 2.0


def test_input_is_not_modified():
    values = np.array([3.0, 1.0, 2.0])
    robustfit.select(values, 1)
    np.testing.assert_array_equal(values, [3.0, 1.0, 2.0])


@pytest.mark.parametrize("k", [0, 4, -1, 1.5, True])
def test_rank_out_of_range_is_a_value_error(k):
    with pytest.raises(ValueError, match=r"out of range.*\[1, 3\]"):
        robustfit.select([1.0, 2.0, 3.0], k)


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="NaN"):
        robustfit.select([1.0, np.nan, 3.0], 1, backend="cpu")
    with pytest.raises(ValueError):
        robustfit.select([], 1)
    with pytest.raises(ValueError, match="1-d"):
        robustfit.select(np.ones((3, 3)), 1)
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        robustfit.select([1.0, 2.0], 1, backend="gpu")
    with pytest.raises(ValueError, match="numbers"):
        robustfit.select(["a", "b"], 1)


@pytest.mark.skipif(robustfit.cuda_available(), reason="a GPU is usable here")
def test_cuda_backend_without_a_gpu_is_a_value_error():
    with pytest.raises(ValueError, match="CUDA backend is not available"):
        robustfit.select([1.0, 2.0], 1, backend="cuda")
