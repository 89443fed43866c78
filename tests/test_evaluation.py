import json

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants import evaluation
from graphinvariants.evaluation import DEFAULT_C_GRID, _splits, evaluate_kernel


@pytest.fixture(scope="module")
def toy():
    graphs = [nx.gnp_random_graph(20 + i % 5, 0.15, seed=i) for i in range(30)]
    graphs += [nx.watts_strogatz_graph(20 + i % 5, 4, 0.3, seed=i) for i in range(30)]
    return gi.power_kernel_matrix(graphs), np.array([0] * 30 + [1] * 30)


def test_same_seed_same_result_whatever_n_jobs(toy):
    K, y = toy
    a = evaluate_kernel(K, y, n_repeats=2, n_folds=5, seed=3)
    b = evaluate_kernel(K, y, n_repeats=2, n_folds=5, seed=3, n_jobs=2)
    np.testing.assert_array_equal(a.accuracies, b.accuracies)
    np.testing.assert_array_equal(a.chosen_C, b.chosen_C)
    c = evaluate_kernel(K, y, n_repeats=2, n_folds=5, seed=4)
    assert not np.array_equal(a.validation_accuracies, c.validation_accuracies)


def test_ties_go_to_the_smallest_C(toy):
    K, y = toy
    result = evaluate_kernel(K, y, n_repeats=2, n_folds=5)
    grid = np.array(DEFAULT_C_GRID)
    for r in range(2):
        for f in range(5):
            val = result.validation_accuracies[r, f]
            assert result.chosen_C[r, f] == grid[np.flatnonzero(val == val.max())[0]]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_large_C_shortcut_changes_nothing(toy, n_jobs):
    K, y = toy
    fast = evaluate_kernel(K, y, n_repeats=2, n_folds=5, n_jobs=n_jobs)
    slow = evaluate_kernel(K, y, n_repeats=2, n_folds=5, shortcut=False, n_jobs=n_jobs)
    assert slow.n_fits == 2 * 5 * (len(DEFAULT_C_GRID) + 1)
    assert fast.n_fits < slow.n_fits
    np.testing.assert_array_equal(fast.validation_accuracies, slow.validation_accuracies)
    np.testing.assert_array_equal(fast.accuracies, slow.accuracies)


def test_folds_are_stratified():
    y = np.array([0] * 70 + [1] * 30)
    for _, test in _splits(y, 10, True, 0).split(y, y):
        assert np.bincount(y[test]).tolist() == [7, 3]


def test_checkpoint_resumes_and_refuses_other_runs(toy, tmp_path):
    K, y = toy
    path = tmp_path / "run.jsonl"
    full = evaluate_kernel(K, y, n_repeats=2, n_folds=5, checkpoint=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 10
    path.write_text("\n".join(lines[:4]) + "\n" + lines[4][: len(lines[4]) // 2])  # interrupted mid-line
    resumed = evaluate_kernel(K, y, n_repeats=2, n_folds=5, checkpoint=path)
    np.testing.assert_array_equal(resumed.accuracies, full.accuracies)
    assert 0 < resumed.n_fits < full.n_fits  # only the 6 missing folds were fitted
    again = evaluate_kernel(K, y, n_repeats=2, n_folds=5, checkpoint=path)
    assert again.n_fits == 0
    with pytest.raises(ValueError, match="another run"):
        evaluate_kernel(K, y, n_repeats=2, n_folds=5, seed=1, checkpoint=path)


def test_result_object(toy):
    K, y = toy
    result = evaluate_kernel(K, y, n_repeats=3, n_folds=5)
    assert isinstance(result.mean, float) and isinstance(result.stderr, float)
    assert result.stderr == pytest.approx(result.accuracies.mean(axis=1).std(ddof=1) / np.sqrt(3))
    assert json.loads(json.dumps(result.to_dict()))["params"]["n_folds"] == 5
    assert "over 3 x 5 folds" in repr(result)


def test_bad_inputs(toy):
    K, y = toy
    with pytest.raises(ValueError, match="square"):
        evaluate_kernel(K[:5], y)
    with pytest.raises(ValueError, match="shape"):
        evaluate_kernel(K, y[:5])
    bad = K.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        evaluate_kernel(bad, y)
    with pytest.raises(ValueError, match="finite number in"):
        evaluate_kernel(K, y, C_grid=[0.0, 1.0])


def test_mutag_regression(tu_datasets):
    """Recorded: 83.26 (0.28) with seed 0, 2 repetitions (docs/reproduction.rst)."""
    ds = tu_datasets["MUTAG"]
    result = evaluate_kernel(gi.power_kernel_matrix(ds, k=5), ds.y, n_repeats=2, seed=0, n_jobs=2)
    assert abs(100 * result.mean - 83.26) < 1.5
