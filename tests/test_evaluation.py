import json

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
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
    # exact: accuracies are counts / n of the same fits (one seed per repetition, whatever n_jobs)
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
    # exact: the checkpoint stores floats by repr (JSON), which reads back to the same bits
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


def test_resumed_folds_are_counted(toy, tmp_path):
    K, y = toy
    path = tmp_path / "run.jsonl"
    evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path)
    assert evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path).n_resumed == 5


@pytest.mark.parametrize(
    "line",
    ["[1, 2]", "42", '{"repeat": 0, "fold": 0}', '{"repeat": 99, "fold": 0, "outcome": {}}', "TAMPERED"],
)
def test_invalid_checkpoint_records_are_skipped_and_reported(toy, tmp_path, line):
    K, y = toy
    path = tmp_path / "run.jsonl"
    full = evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path)
    lines = path.read_text().splitlines()
    if line == "TAMPERED":  # a record whose accuracy is impossible
        record = json.loads(lines[0])
        record["outcome"]["test_acc"] = 5.0
        line = json.dumps(record)
    else:
        fingerprint = json.loads(lines[0])["fingerprint"]
        if line.startswith("{"):
            line = json.dumps({**json.loads(line), "fingerprint": fingerprint})
    path.write_text("\n".join([line] + lines[1:]) + "\n")
    with pytest.warns(UserWarning, match="skipped 1 invalid record"):
        resumed = evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path)
    np.testing.assert_array_equal(resumed.accuracies, full.accuracies)
    assert resumed.mean <= 1.0


def test_a_directory_as_checkpoint_is_a_clear_error(toy, tmp_path):
    K, y = toy
    with pytest.raises(ValueError, match="is a directory"):
        evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=tmp_path)


def test_non_symmetric_kernels_and_bad_C_are_refused_at_once(toy):
    """Was: a hang of more than 60 s for a non-symmetric K, C = inf or 1e300."""
    K, y = toy
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="symmetric"):
        evaluate_kernel(K + 0.01 * rng.random(K.shape), y)
    for C in (np.inf, 1e300, -1.0, np.nan):
        with pytest.raises(ValueError, match="finite number"):
            evaluate_kernel(K, y, C_grid=[1.0, C])


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n_repeats": 0}, ValueError),
        ({"n_repeats": -1}, ValueError),
        ({"n_folds": 2.5}, TypeError),
        ({"n_folds": 1}, ValueError),
        ({"seed": 1.5}, TypeError),
        ({"n_jobs": 0}, ValueError),
    ],
)
def test_bad_protocol_arguments(toy, kwargs, error):
    K, y = toy
    with pytest.raises(error):
        evaluate_kernel(K, y, **kwargs)


def test_seed_none_and_generator_are_accepted(toy):
    K, y = toy
    assert evaluate_kernel(K, y, n_repeats=1, n_folds=3, seed=None).accuracies.shape == (1, 3)
    a = evaluate_kernel(K, y, n_repeats=1, n_folds=3, seed=np.random.default_rng(5))
    b = evaluate_kernel(K, y, n_repeats=1, n_folds=3, seed=np.random.default_rng(5))
    np.testing.assert_array_equal(a.accuracies, b.accuracies)


def test_small_classes_get_a_message_of_ours_not_libsvm_s():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    K = X @ X.T
    y = np.array([0] * 39 + [1])
    with pytest.warns(UserWarning, match="class 1 has 1 graphs, fewer than n_folds=3") as record:
        with pytest.raises(ValueError, match=r"repetition 1, outer fold \d: its (inner )?training part holds only class 0"):
            gi.evaluate_kernel(K, y, n_repeats=1, n_folds=3)
    assert not any("least populated" in str(w.message) for w in record)  # said once, by us
    with pytest.raises(ValueError, match="n_folds=40, but the largest class has 39 graphs"):
        gi.evaluate_kernel(K, y, n_repeats=1, n_folds=40)


def test_results_compare_by_value_and_accept_lists():
    a = gi.EvaluationResult([[0.8, 0.9]], [[1.0, 1.0]], [[[0.5], [0.5]]], n_fits=4, elapsed=0.1)
    b = gi.EvaluationResult(np.array([[0.8, 0.9]]), np.ones((1, 2)), np.full((1, 2, 1), 0.5), n_fits=4, elapsed=0.1)
    assert a == b and "85.00" in repr(a)
    assert a != gi.EvaluationResult([[0.8, 0.8]], [[1.0, 1.0]], [[[0.5], [0.5]]], n_fits=4, elapsed=0.1)
