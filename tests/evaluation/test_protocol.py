import json
import warnings

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.evaluation._protocol import DEFAULT_C_GRID, _best_C_index, evaluate_kernel, splits

from ..conftest import KERN_A, KERN_B


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


def test_ties_go_to_the_smallest_C_with_a_free_dual_coefficient(toy):
    K, y = toy
    result = evaluate_kernel(K, y, n_repeats=2, n_folds=5)
    grid = np.array(DEFAULT_C_GRID)
    for r in range(2):
        for f in range(5):
            val = result.validation_accuracies[r, f]
            assert result.chosen_C[r, f] in grid[val == val.max()]
    # the rule itself: the smallest tied C with a free coefficient, else the largest tied
    assert _best_C_index([0.9, 1.0, 1.0, 1.0, 0.8], [False, False, True, True, True]) == 2
    assert _best_C_index([0.9, 1.0, 1.0, 1.0, 0.8], [True, True, True, True, True]) == 1
    assert _best_C_index([1.0, 1.0, 0.9, 0.8], [False, False, True, True]) == 1
    assert _best_C_index([0.5, 0.5], [True, False]) == 0


def test_ties_in_C_do_not_go_to_a_C_that_predicts_the_majority():
    """Was 61.9 % (folds 0.43 / 0.43 / 1.0): two classes of identical graphs, perfectly
    separable, validated as well at C = 1e-7 as at any C, and the first of the ties,
    1e-7, predicted the training part's majority class for every test graph."""
    graphs = [nx.empty_graph(1)] * 10 + [nx.path_graph(2)] * 10
    y = [0] * 10 + [1] * 10
    estimated = gi.evaluate_estimator(graphs, y, n_repeats=1, n_folds=3)
    kernel = evaluate_kernel(gi.kernel_matrix(graphs, kernel="wl"), y, n_repeats=1, n_folds=3)
    for result in (estimated, kernel):  # one rule, in both protocols
        assert result.mean == 1.0
        assert np.all(result.chosen_C > 1e-7)
        # some fold really had a tie that reached down to the smallest C
        assert np.any(result.validation_accuracies[..., 0] == result.validation_accuracies.max(axis=-1))


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
    for _, test in splits(y, 10, True, 0).split(y, y):
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


def test_a_checkpoint_cut_inside_a_multibyte_character_loses_its_last_line(toy, tmp_path):
    # issue 29, friction 13: a last line cut inside a multi-byte UTF-8 character made
    # the whole checkpoint unreadable ("cannot be read"), not a cut last line
    K, y = toy
    path = tmp_path / "run.jsonl"
    full = evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path)
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join(lines[:3]) + b"\n" + lines[3][:40] + "\u00e9".encode()[:1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a cut last line is redone without a word
        resumed = evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path)
    assert resumed.n_resumed == 3
    np.testing.assert_array_equal(resumed.accuracies, full.accuracies)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 5  # the cut line dropped, two folds added
    # a line that is not UTF-8 elsewhere is one invalid record, skipped with a warning
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join([lines[0][:40] + b"\xc3"] + lines[1:]) + b"\n")
    with pytest.warns(UserWarning, match="skipped 1 invalid record.*line 1: not UTF-8"):
        assert evaluate_kernel(K, y, n_repeats=1, n_folds=5, checkpoint=path).n_resumed == 4


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


# -- kernels that learn: evaluate_estimator ------------------------------------------------
from sklearn.base import BaseEstimator, TransformerMixin  # noqa: E402


class _Log(list):
    """Shared by every clone: scikit-learn's clone deep-copies parameters."""

    def __deepcopy__(self, memo):
        return self


class _Matrix:
    def __init__(self, K):
        self.K = K

    def __deepcopy__(self, memo):
        return self


class _RecordingKernel(TransformerMixin, BaseEstimator):
    """A kernel over graph indices that records which graphs and labels reached fit."""

    def __init__(self, log=None, K=None):
        self.log = log
        self.K = K

    def fit(self, X, y=None):
        self.train_ = np.asarray(X)
        self.log.append((self.train_.copy(), np.asarray(y).copy()))
        return self

    def transform(self, X):
        return self.K.K[np.ix_(np.asarray(X), self.train_)]

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)


def _toy_kernel(y, rng):
    F = rng.normal(size=(len(y), 3)) + np.asarray(y)[:, None]
    return F @ F.T


def test_no_test_label_reaches_the_kernel(toy):
    K, y = toy
    log = _Log()
    index = np.arange(len(y))
    result = gi.evaluate_estimator(index, y, kernel=_RecordingKernel(log, _Matrix(K)), n_repeats=2, n_folds=4, seed=1)
    assert len(log) == 2 * 4 * 2  # per outer fold: inner training part (for C), then training part
    tests = [set(range(len(y))) - set(train) for train, _ in log[1::2]]
    for (train, labels), test in zip(log[1::2], tests):
        assert not set(train) & test and len(train) + len(test) == len(y)
        np.testing.assert_array_equal(labels, y[train])  # the labels of the graphs it was given, no others
    for inner, outer in zip(log[0::2], log[1::2]):
        assert set(inner[0]) < set(outer[0])  # C is chosen inside the training part
    # same splits and same numbers as the precomputed protocol when the kernel learns nothing
    expected = gi.evaluate_kernel(K, y, n_repeats=2, n_folds=4, seed=1)
    np.testing.assert_array_equal(result.accuracies, expected.accuracies)


def test_learned_default_is_fitted_per_fold_like_a_pipeline():
    import networkx as nx

    graphs = [nx.gnp_random_graph(20, 0.15, seed=i) for i in range(12)]
    graphs += [nx.barabasi_albert_graph(20, 2, seed=i) for i in range(12)]
    y = np.array([0] * 12 + [1] * 12)
    result = gi.evaluate_estimator(graphs, y, n_repeats=1, n_folds=3)
    assert result.mean > 0.9 and result.params["task"] == "classification"


def test_regression_protocol(rng):
    y = np.linspace(0.0, 4.0, 30) + 0.1 * rng.normal(size=30)
    F = np.stack([np.cos(y), np.sin(y)], axis=1)
    K = F @ F.T  # a kernel that sees y: small error
    log = _Log()
    result = gi.evaluate_estimator(np.arange(30), y, kernel=_RecordingKernel(log, _Matrix(K)), n_repeats=2, n_folds=5)
    assert isinstance(result, gi.RegressionResult) and result.rmse.shape == (2, 5)
    assert result.params["task"] == "regression" and result.mean < 0.5 * y.std()
    blind = gi.evaluate_estimator(np.arange(30), y, kernel=_RecordingKernel(_Log(), _Matrix(np.eye(30))), n_repeats=2, n_folds=5)
    assert blind.mean > 0.8 * y.std()  # an identity kernel predicts about the training mean
    assert set(result.chosen_alpha.ravel()) <= set(gi.evaluation.DEFAULT_ALPHA_GRID)


def test_evaluate_estimator_bad_inputs(toy):
    K, y = toy
    with pytest.raises(TypeError, match="transformer"):
        gi.evaluate_estimator(np.arange(len(y)), y, kernel=K)
    with pytest.raises(ValueError, match="one label per graph"):
        gi.evaluate_estimator(np.arange(len(y)), y[:-1])
    with pytest.raises(ValueError, match="task"):
        gi.evaluate_estimator(np.arange(len(y)), y, task="ranking")


def test_folds_too_many_for_the_inner_split_get_a_message_of_ours(toy):
    """Was: scikit-learn's 'n_splits=30 cannot be greater than the number of members in
    each class' from the inner split, when n_folds fits the whole set but not a training part."""
    K, y = toy  # 30 graphs per class: 30 folds fit the set, but a training part has 29 per class
    message = r"repetition 1, outer fold 1: its training part's largest class has 29 graphs, fewer than n_folds=30"
    with pytest.raises(ValueError, match=message):
        evaluate_kernel(K, y, n_repeats=1, n_folds=30)
    kernel = _RecordingKernel(_Log(), _Matrix(K))
    with pytest.raises(ValueError, match=message):
        gi.evaluate_estimator(np.arange(len(y)), y, kernel=kernel, n_repeats=1, n_folds=30)


def test_evaluate_estimator_checks_folds_and_labels_as_evaluate_kernel_does(toy):
    """Was: scikit-learn's StratifiedKFold error, a silenced small-class warning, numpy's
    and scikit-learn's errors for NaN, strings and a generator, 'every C' for alpha."""
    K, y = toy
    index = np.arange(len(y))
    kernel = _RecordingKernel(_Log(), _Matrix(K))
    with pytest.raises(ValueError, match="n_folds=31, but the largest class has 30 graphs"):
        gi.evaluate_estimator(index, y, kernel=kernel, n_repeats=1, n_folds=31)
    small = np.where(index < 58, 0, 1)
    with pytest.warns(UserWarning, match="class 1 has 2 graphs, fewer than n_folds=3"):
        with pytest.raises(ValueError, match="training part holds only class 0"):
            gi.evaluate_estimator(index, small, kernel=kernel, n_repeats=1, n_folds=3)
    for task in ("auto", "classification", "regression"):
        with pytest.raises(ValueError, match="y contains NaN or infinite values"):
            gi.evaluate_estimator(index, np.where(index == 0, np.nan, y), kernel=kernel, task=task)
    with pytest.raises(ValueError, match="regression targets y must be numbers"):
        gi.evaluate_estimator(index, np.where(y, "b", "a"), kernel=kernel, task="regression")
    with pytest.raises(TypeError, match="all numbers or all strings"):
        gi.evaluate_estimator(index, np.array([None] * 30 + [1] * 30, dtype=object), kernel=kernel)
    with pytest.raises(TypeError, match="indexable sequence"):
        gi.evaluate_estimator((i for i in index), y, kernel=kernel)
    with pytest.raises(TypeError, match=r"an instance, e.g. GraphKernel\(\)"):
        gi.evaluate_estimator(index, y, kernel=gi.GraphKernel)
    with pytest.raises(ValueError, match="every alpha must be"):
        gi.evaluate_estimator(index, y + 0.5 * (index % 3), kernel=kernel, alpha_grid=[-1.0])


def test_evaluate_kernel_refuses_nan_and_unsortable_labels(toy):
    K, y = toy
    with pytest.raises(ValueError, match="y contains NaN or infinite values"):
        evaluate_kernel(K, np.where(np.arange(len(y)) == 0, np.nan, y))
    with pytest.raises(TypeError, match="all numbers or all strings"):
        evaluate_kernel(K, np.array([None] * 30 + ["a"] * 30, dtype=object))


def test_the_learned_default_reads_y_as_the_protocol_does():
    """Integer regression targets (counts): evaluate_estimator(task="regression") gives
    the learned default task="regression" too; left to "auto", it aligned them as classes."""
    graphs = [nx.gnp_random_graph(10, 0.3, seed=i) for i in range(9)]
    graphs += [nx.barabasi_albert_graph(10, 2, seed=i) for i in range(9)]
    y = np.array([G.number_of_edges() % 4 for G in graphs])  # counts: integers
    kernel = gi.GraphKernel(members=("power", "histogram"))
    result = gi.evaluate_estimator(graphs, y, kernel=kernel, task="regression", n_repeats=1, n_folds=3)
    told = gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(members=("power", "histogram"), task="regression"),
                                 task="regression", n_repeats=1, n_folds=3)
    classes = gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(members=("power", "histogram"), task="classification"),
                                    task="regression", n_repeats=1, n_folds=3)
    np.testing.assert_array_equal(result.rmse, told.rmse)  # exact: the same fits
    assert not np.array_equal(result.rmse, classes.rmse)  # the task makes a difference here
    assert result.params["kernel"] == repr(kernel)  # the kernel as given


def test_folds_too_many_for_the_inner_split_without_stratification():
    """Was: scikit-learn's 'Cannot have number of splits n_splits=6 greater than the
    number of samples: n_samples=5' from the inner split (regression, stratify=False)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    K, y = X @ X.T, np.array([0, 1] * 3)
    message = "n_folds=6 leaves training parts of 5 of the 6 samples, too few for the inner split"
    with pytest.raises(ValueError, match=message):
        evaluate_kernel(K, y, n_repeats=1, n_folds=6, stratify=False)
    kernel = _RecordingKernel(_Log(), _Matrix(K))
    with pytest.raises(ValueError, match=message):
        gi.evaluate_estimator(np.arange(6), y + 0.5 * np.arange(6), kernel=kernel, n_repeats=1, n_folds=6)
    with pytest.raises(ValueError, match="n_folds=5 leaves training parts of 4 of the 6"):
        gi.evaluate_estimator(np.arange(6), y, kernel=kernel, n_repeats=1, n_folds=5, stratify=False)
    result = gi.evaluate_estimator(np.arange(6), y + 0.5 * np.arange(6), kernel=kernel, n_repeats=1, n_folds=3)
    assert result.rmse.shape == (1, 3)  # 4 graphs in every training part: enough for 3 inner parts


def test_labels_of_an_object_array_in_messages():
    """Was: AttributeError "'str' object has no attribute 'item'" for the labels of a
    pandas Series of strings (an object array)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = pd.Series(["a"] * 39 + ["b"])
    with pytest.warns(UserWarning, match="class 'b' has 1 graphs"):
        with pytest.raises(ValueError, match="training part holds only class 'a'"):
            evaluate_kernel(X @ X.T, y, n_repeats=1, n_folds=3)


def test_integer_regression_targets_read_as_classes_get_a_hint(toy):
    K, _ = toy
    y = np.arange(len(K)) % 40  # integer targets: task="auto" reads them as 40 classes
    with pytest.raises(ValueError, match=r"largest class has 2 graphs.*40 distinct numbers.*task=\"regression\""):
        evaluate_kernel(K, y, n_folds=3)
    kernel = _RecordingKernel(_Log(), _Matrix(K))
    with pytest.raises(ValueError, match="40 distinct numbers"):
        gi.evaluate_estimator(np.arange(len(K)), y, kernel=kernel, n_folds=3)
    result = gi.evaluate_estimator(np.arange(len(K)), y, kernel=kernel, task="regression", n_repeats=1, n_folds=3)
    assert result.rmse.shape == (1, 3)


class _FailingKernel(TransformerMixin, BaseEstimator):
    """A kernel over graph indices whose fit refuses a training part holding graph 0."""

    def __init__(self, error=ValueError):
        self.error = error

    def fit(self, X, y=None):
        if 0 in np.asarray(X):
            raise self.error("graph 0 is not welcome")
        self.train_ = np.asarray(X)
        return self

    def transform(self, X):
        return np.eye(40)[np.ix_(np.asarray(X), self.train_)]

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)


@pytest.mark.parametrize("error", [ValueError, TypeError])
@pytest.mark.parametrize("y", [np.repeat([0, 1], 20), np.linspace(0.5, 9.5, 40)], ids=["classes", "targets"])
def test_an_error_of_the_kernel_in_a_fold_names_the_fold(error, y):
    # one outer fold holds graph 0 in its test part; every other fold's training part fails
    with pytest.raises(error, match=r"^repetition 1, outer fold \d+: graph 0 is not welcome$") as caught:
        gi.evaluate_estimator(np.arange(40), y, kernel=_FailingKernel(error), n_repeats=1, n_folds=4)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_evaluate_estimator_resumes_from_its_checkpoint(tmp_path, task):
    rng = np.random.default_rng(3)
    graphs = [nx.gnp_random_graph(int(n), 0.2, seed=i) for i, n in enumerate(rng.integers(8, 20, 30))]
    y = np.repeat([0, 1], 15) if task == "classification" else rng.normal(size=30)
    protocol = dict(kernel=gi.GraphKernel(kernel="histogram", k=4), n_repeats=2, n_folds=3, seed=5)
    path = tmp_path / "run.jsonl"
    plain = gi.evaluate_estimator(graphs, y, **protocol)
    full = gi.evaluate_estimator(graphs, y, checkpoint=path, **protocol)
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and full.n_resumed == 0
    path.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])  # interrupted mid-line
    resumed = gi.evaluate_estimator(graphs, y, checkpoint=path, **protocol)
    assert resumed.n_resumed == 2 and len(path.read_text().splitlines()) == 6
    # exact: the same fits in the same order, and the checkpoint stores floats by repr
    # (JSON), which reads back to the same bits
    scores = "accuracies" if task == "classification" else "rmse"
    for result in (full, resumed):
        np.testing.assert_array_equal(getattr(result, scores), getattr(plain, scores))
    assert gi.evaluate_estimator(graphs, y, checkpoint=path, **protocol).n_resumed == 6
    other = y[::-1].copy()
    with pytest.raises(ValueError, match="another run"):
        gi.evaluate_estimator(graphs, other, checkpoint=path, **protocol)
    with pytest.raises(ValueError, match="another run"):
        gi.evaluate_estimator(graphs, y, checkpoint=path, **{**protocol, "kernel": gi.GraphKernel(kernel="wl")})


def test_evaluate_estimator_checkpoint_needs_graphs_that_pickle(tmp_path):
    graphs = [nx.path_graph(5 + i % 3) for i in range(12)]
    graphs[0].graph["made_by"] = (i for i in range(3))  # a function is read by its code; a generator cannot be
    with pytest.raises(TypeError, match=r"identifies the run by the graphs' content .* graphs\[0\]\.graph\['made_by'\] "
                                        r"holds a generator, which can be neither read nor pickled"):
        gi.evaluate_estimator(graphs, [0, 1] * 6, kernel=gi.GraphKernel(kernel="histogram"), n_repeats=1,
                              n_folds=2, checkpoint=tmp_path / "run.jsonl")
    assert not (tmp_path / "run.jsonl").exists()


def test_regression_results_compare_by_their_values():
    """Was: the dataclass's own == on arrays, "The truth value of an array ... is ambiguous"."""
    result = gi.RegressionResult(np.array([[1.0, 2.0]]), np.ones((1, 2)), elapsed=0.1, params={"n_folds": 2})
    same = gi.RegressionResult(np.array([[1.0, 2.0]]), np.ones((1, 2)), elapsed=0.1, params={"n_folds": 2})
    assert result == same and not result != same
    assert result != gi.RegressionResult(np.array([[1.0, 3.0]]), np.ones((1, 2)), elapsed=0.1, params={"n_folds": 2})
    assert result != gi.RegressionResult(np.array([[1.0, 2.0]]), np.ones((1, 2)), elapsed=0.1, n_resumed=1,
                                         params={"n_folds": 2})
    assert result != "RMSE 1.5"


def _count_folds(monkeypatch):
    """Count the outer folds evaluate_estimator runs (the calls of its fold function)."""
    from graphinvariants.evaluation import _estimator

    calls = []
    original = _estimator._classification_fold

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(_estimator, "_classification_fold", counted)
    return calls


def test_evaluate_estimator_resumes_fresh_graphs_and_a_generator_seed(tmp_path, monkeypatch):
    """A run is identified by what defines it, not by pickled bytes: fresh NetworkX
    graphs (whose views NetworkX caches when read), graphs read by kernel_matrix in
    between, and a learned default seeded by a Generator (its repr holds an address)
    resume, and the second call runs no fold."""
    calls = _count_folds(monkeypatch)

    def fresh():
        return [nx.gnp_random_graph(10 + i % 7, 0.3, seed=i) for i in range(24)]

    y = np.repeat([0, 1], 12)
    protocol = dict(n_repeats=1, n_folds=3, seed=2)
    path = tmp_path / "fresh.jsonl"
    kernel = gi.GraphKernel(kernel="histogram", k=3)
    first = gi.evaluate_estimator(fresh(), y, kernel=kernel, checkpoint=path, **protocol)
    assert len(calls) == 3
    again = gi.evaluate_estimator(fresh(), y, kernel=kernel, checkpoint=path, **protocol)
    assert len(calls) == 3 and again.n_resumed == 3
    np.testing.assert_array_equal(again.accuracies, first.accuracies)
    graphs = fresh()
    gi.kernel_matrix(graphs, kernel="wl")
    assert gi.evaluate_estimator(graphs, y, kernel=kernel, checkpoint=path, **protocol).n_resumed == 3
    assert len(calls) == 3

    def seeded():
        return gi.GraphKernel(members=("histogram", "wl"), max_samples=10, seed=np.random.default_rng(0))

    path = tmp_path / "generator.jsonl"
    gi.evaluate_estimator(fresh(), y, kernel=seeded(), checkpoint=path, **protocol)
    assert len(calls) == 6
    assert gi.evaluate_estimator(fresh(), y, kernel=seeded(), checkpoint=path, **protocol).n_resumed == 3
    assert len(calls) == 6
    other = gi.GraphKernel(members=("histogram", "wl"), max_samples=10, seed=np.random.default_rng(1))
    with pytest.raises(ValueError, match="another run") as caught:
        gi.evaluate_estimator(fresh(), y, kernel=other, checkpoint=path, **protocol)
    assert "delete" not in str(caught.value) and "3 finished folds" in str(caught.value)
    # the content counts: one node label more is another run
    changed = fresh()
    changed[5].nodes[0]["label"] = 1
    with pytest.raises(ValueError, match="another run"):
        gi.evaluate_estimator(changed, y, kernel=seeded(), checkpoint=path, **protocol)
    assert len(calls) == 6


def test_evaluate_estimator_resumes_an_indexed_data_set(tu_datasets, tmp_path, monkeypatch):
    calls = _count_folds(monkeypatch)
    mutag = tu_datasets["MUTAG"]
    index = np.r_[0:15, 170:185]
    protocol = dict(kernel=gi.GraphKernel(kernel="wl", n_iter=2), n_repeats=1, n_folds=3, seed=0,
                    checkpoint=tmp_path / "mutag.jsonl")
    part = mutag[index]
    gi.evaluate_estimator(part, part.y, **protocol)
    assert len(calls) == 3
    part[0], list(part)  # NetworkX graphs built on demand (and cached) change no identity
    assert gi.evaluate_estimator(part, part.y, **protocol).n_resumed == 3
    again = mutag[index]
    assert gi.evaluate_estimator(again, again.y, **protocol).n_resumed == 3
    assert len(calls) == 3
    with pytest.raises(ValueError, match="another run"):
        gi.evaluate_estimator(mutag[index[::-1]], again.y[::-1], **protocol)


def test_resumed_folds_keep_their_seconds_and_fits(toy, tmp_path):
    """Each fold's seconds are stored in the checkpoint; a resumed run reports those of
    the folds it took from there, and their fits, beside what it ran itself."""
    K, y = toy
    path = tmp_path / "run.jsonl"
    full = evaluate_kernel(K, y, n_repeats=2, n_folds=3, checkpoint=path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    seconds = [record["outcome"]["seconds"] for record in records]
    assert all(s > 0 for s in seconds) and sum(seconds) <= full.elapsed
    assert (full.resumed_seconds, full.resumed_fits) == (0.0, 0)
    path.write_text("".join(line + "\n" for line in path.read_text().splitlines()[:4]))
    part = evaluate_kernel(K, y, n_repeats=2, n_folds=3, checkpoint=path)
    done = sorted((r["repeat"], r["fold"], r["outcome"]["seconds"], r["outcome"]["n_fits"]) for r in records[:4])
    # the same floats added in (repeat, fold) order
    assert part.resumed_seconds == sum(s for _, _, s, _ in done)
    assert part.resumed_fits == sum(n for _, _, _, n in done)
    assert part.n_fits + part.resumed_fits == full.n_fits and part.n_resumed == 4
    assert part.to_dict()["resumed_seconds"] == part.resumed_seconds
    again = evaluate_kernel(K, y, n_repeats=2, n_folds=3, checkpoint=path)
    assert again.n_fits == 0 and again.resumed_fits == full.n_fits
    # a record without seconds (an older checkpoint) counts 0 s; negative seconds are invalid
    lines = path.read_text().splitlines()
    old = json.loads(lines[0])
    del old["outcome"]["seconds"]
    bad = json.loads(lines[1])
    bad["outcome"]["seconds"] = -1.0
    path.write_text("\n".join([json.dumps(old), json.dumps(bad)] + lines[2:]) + "\n")
    with pytest.warns(UserWarning, match="line 2: seconds must be"):
        resumed = evaluate_kernel(K, y, n_repeats=2, n_folds=3, checkpoint=path)
    assert resumed.n_resumed == 5


def test_integer_targets_too_few_per_class_in_a_training_part_get_the_hint(toy):
    """Was "its training part's largest class has 2 graphs ... use fewer folds", without
    naming task="regression": 10 integer values, 3 graphs each, pass the check on the
    whole set and fail on the first training part."""
    K, _ = toy
    y = np.arange(30) % 10
    kernel = _RecordingKernel(_Log(), _Matrix(K[:30, :30]))
    with pytest.raises(ValueError, match=r"training part's largest class has 2 graphs.*that part holds 10 distinct "
                                         r"numbers.*task=\"regression\""):
        gi.evaluate_estimator(np.arange(30), y, kernel=kernel, n_repeats=1, n_folds=3)
    with pytest.raises(ValueError, match=r"largest class has 2 graphs.*task=\"regression\""):
        evaluate_kernel(K[:30, :30], y, n_repeats=1, n_folds=3)


def test_class_labels_mixing_numbers_and_strings_are_refused_by_us():
    """Was numpy's "'<' not supported between instances of 'int' and 'str'" from inside
    scikit-learn, for GraphKernel().fit and evaluate_estimator alike."""
    graphs = [nx.gnp_random_graph(12, 0.3, seed=i) for i in range(8)]
    y = np.array(["a", 1] * 4, dtype=object)
    with pytest.raises(TypeError, match="all numbers or all strings.*a mix of int, str"):
        gi.GraphKernel().fit(graphs, y)
    with pytest.raises(TypeError, match="all numbers or all strings.*a mix of int, str"):
        gi.evaluate_estimator(graphs, y, n_repeats=1, n_folds=2)


def test_a_callable_of_another_body_is_another_run(define, tmp_path, monkeypatch):
    # issue 29, defect 3: two scripts' def kern(a, b) with different bodies; the second
    # resumed all the first's folds, a callable being identified by its name only
    calls = _count_folds(monkeypatch)
    graphs = [nx.gnp_random_graph(8 + i % 5, 0.3, seed=i) for i in range(24)]
    y = np.repeat([0, 1], 12)
    protocol = dict(n_repeats=1, n_folds=3, seed=0, checkpoint=tmp_path / "kern.jsonl")
    first = define(KERN_A)
    gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(members=(first,), bandwidths=()), **protocol)
    assert len(calls) == 3
    again = define(KERN_A)  # the same script run again: resumed
    assert gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(members=(again,), bandwidths=()),
                                 **protocol).n_resumed == 3
    other = define(KERN_B)
    with pytest.raises(ValueError, match="another run"):
        gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(members=(other,), bandwidths=()), **protocol)
    assert len(calls) == 3


def test_a_data_set_and_the_list_of_its_graphs_are_one_run(tu_datasets, tmp_path, monkeypatch):
    # issue 29, friction 13: a TUDataset and the list of its graphs counted as two runs
    calls = _count_folds(monkeypatch)
    part = tu_datasets["MUTAG"][np.r_[0:12, 176:188]]
    protocol = dict(kernel=gi.GraphKernel(kernel="wl", n_iter=2), n_repeats=1, n_folds=3, seed=0,
                    checkpoint=tmp_path / "mutag.jsonl")
    gi.evaluate_estimator(part, part.y, **protocol)
    assert gi.evaluate_estimator(list(part), part.y, **protocol).n_resumed == 3
    assert len(calls) == 3
