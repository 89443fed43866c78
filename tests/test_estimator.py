import igraph as ig
import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC
from sklearn.utils import estimator_checks as checks

import graphinvariants as gi


@pytest.fixture(scope="module")
def graphs_and_labels():
    graphs = [nx.gnp_random_graph(25 + i % 7, 0.12, seed=i) for i in range(24)]
    graphs += [ig.Graph.from_networkx(nx.barabasi_albert_graph(25 + i % 7, 2, seed=i)) for i in range(24)]
    return graphs, np.array([0] * 24 + [1] * 24)


def _pipeline(**kernel_params):
    return Pipeline([("kernel", gi.PowerKernel(**kernel_params)), ("svm", SVC(kernel="precomputed"))])


def test_pipeline_cross_val_score_and_grid_search(graphs_and_labels):
    graphs, y = graphs_and_labels
    scores = cross_val_score(_pipeline(), graphs, y, cv=StratifiedKFold(4, shuffle=True, random_state=0))
    assert scores.mean() > 0.75  # two families of random graphs, default C
    search = GridSearchCV(_pipeline(), {"kernel__k": [2, 3, 5], "svm__C": [0.1, 10]}, cv=3).fit(graphs, y)
    assert search.best_params_["kernel__k"] in (2, 3, 5)
    assert search.predict(graphs[:3]).shape == (3,)


def test_transform_rows_equal_the_full_matrix(graphs_and_labels):
    graphs, _ = graphs_and_labels
    full = gi.power_kernel_matrix(graphs)
    train, test = list(range(0, 48, 2)), list(range(1, 48, 2))
    kernel = gi.PowerKernel().fit([graphs[i] for i in train])
    np.testing.assert_allclose(kernel.transform([graphs[i] for i in test]), full[np.ix_(test, train)], rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(gi.PowerKernel().fit_transform(graphs), full)
    assert kernel.n_train_ == 24 and len(kernel.invariants_) == 24


def test_unfitted_transform_raises():
    with pytest.raises(NotFittedError):
        gi.PowerKernel().transform([nx.path_graph(4)])


def test_fit_rejects_an_empty_list():
    with pytest.raises(ValueError, match="at least one graph"):
        gi.PowerKernel().fit([])


def test_params_and_clone():
    kernel = gi.PowerKernel(k=3, ridge=1e-9)
    assert kernel.get_params() == {"k": 3, "ridge": 1e-9, "weight": None, "n_jobs": None}
    assert clone(kernel).get_params() == kernel.get_params()
    assert kernel.set_params(k=4).k == 4
    assert repr(kernel) == "PowerKernel(k=4, ridge=1e-09)"


@pytest.mark.parametrize(
    "check",
    [
        checks.check_parameters_default_constructible,
        checks.check_no_attributes_set_in_init,
        checks.check_get_params_invariance,
        checks.check_set_params,
        checks.check_estimator_cloneable,
        checks.check_estimator_repr,
        checks.check_do_not_raise_errors_in_init_or_set_params,
    ],
    ids=lambda c: c.__name__,
)
def test_data_free_estimator_checks(check):
    check("PowerKernel", gi.PowerKernel())
