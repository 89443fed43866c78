import re

import igraph as ig
import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, ParameterGrid, StratifiedKFold, cross_val_score
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


def test_pipeline_cross_val_score(graphs_and_labels):
    graphs, y = graphs_and_labels
    scores = cross_val_score(_pipeline(), graphs, y, cv=StratifiedKFold(4, shuffle=True, random_state=0))
    assert scores.mean() > 0.75  # two families of random graphs, default C


def test_grid_search_picks_the_k_with_the_best_cross_validated_score(graphs_and_labels):
    """GridSearchCV over the pipeline agrees with the same search done by hand on
    precomputed power-kernel matrices: every mean score, hence the chosen k and C."""
    graphs, y = graphs_and_labels
    grid = {"kernel__k": [1, 2, 3, 5], "svm__C": [0.01, 1, 100]}
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    search = GridSearchCV(_pipeline(), grid, cv=cv).fit(graphs, y)

    folds = list(cv.split(np.zeros(len(y)), y))
    expected = []
    for params in ParameterGrid(grid):  # the order of cv_results_
        K = gi.power_kernel_matrix(graphs, k=params["kernel__k"])
        scores = [
            SVC(kernel="precomputed", C=params["svm__C"]).fit(K[np.ix_(tr, tr)], y[tr]).score(K[np.ix_(te, tr)], y[te])
            for tr, te in folds
        ]
        expected.append(np.mean(scores))
    expected = np.array(expected)
    assert len(set(expected.round(12))) > 2, "the grid must make a difference for this test to mean anything"
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-12)
    best = list(ParameterGrid(grid))[int(np.argmax(expected))]  # first of the ties, as GridSearchCV
    assert search.best_params_ == best
    assert search.best_score_ == pytest.approx(expected.max(), abs=1e-12)
    np.testing.assert_array_equal(search.predict(graphs[:3]), search.best_estimator_.predict(graphs[:3]))


def test_transform_rows_equal_the_full_matrix(graphs_and_labels):
    graphs, _ = graphs_and_labels
    full = gi.power_kernel_matrix(graphs)
    train, test = list(range(0, 48, 2)), list(range(1, 48, 2))
    kernel = gi.PowerKernel().fit([graphs[i] for i in train])
    np.testing.assert_allclose(kernel.transform([graphs[i] for i in test]), full[np.ix_(test, train)], rtol=1e-12, atol=1e-300)
    # exact: fit_transform is the Gram matrix by the same engine and tiles
    np.testing.assert_array_equal(gi.PowerKernel().fit_transform(graphs), full)
    assert kernel.n_train_ == 24 and len(kernel.invariants_) == 24


def test_unfitted_transform_raises():
    with pytest.raises(NotFittedError):
        gi.PowerKernel().transform([nx.path_graph(4)])


def test_fit_rejects_an_empty_list():
    with pytest.raises(ValueError, match="at least one graph"):
        gi.PowerKernel().fit([])


def test_fit_validates_the_parameters():
    kernel = gi.PowerKernel(ridge=-1)  # scikit-learn convention: __init__ only stores
    assert kernel.ridge == -1
    with pytest.raises(ValueError, match="ridge"):
        kernel.fit([nx.path_graph(4), nx.cycle_graph(5)])
    with pytest.raises(ValueError, match="k must be"):
        gi.PowerKernel(k=0).fit([nx.path_graph(4)])


def test_an_unknown_kernel_name_lists_the_learned_default_too():
    graphs, y = [nx.path_graph(4), nx.cycle_graph(5)], [0, 1]
    with pytest.raises(ValueError, match=r"unknown kernel 'LEARNED': did you mean 'learned'\? Choose among \[.*'learned'"):
        gi.GraphKernel(kernel="LEARNED").fit(graphs, y)
    with pytest.raises(ValueError, match="ridge") as caught:  # other errors of a named kernel stay as they are
        gi.GraphKernel(kernel="power", ridge=-1).fit(graphs, y)
    assert "learned" not in str(caught.value)


def test_unknown_kernel_names_get_a_did_you_mean_at_fit_not_at_construction():
    """Was "unknown kernel 'WL'; choose among [...]" with no suggestion. The name is
    checked at fit, as scikit-learn asks of parameter values (its own check builds and
    set_params every parameter to "helloworld", -1, ... and expects no error)."""
    graphs, y = [nx.path_graph(4), nx.cycle_graph(5)], [0, 1]
    kernel = gi.GraphKernel(kernel="WL")  # built: a value, stored
    assert kernel.set_params(kernel="powr") is kernel
    for name, suggestion in (("WL", "'wl'"), ("powr", "'power'"), ("learnd", "'learned'"), ("power*histgram", "'histogram'")):
        with pytest.raises(ValueError, match=f"unknown kernel '{name.split('*')[-1]}': did you mean {suggestion}"):
            gi.GraphKernel(kernel=name).fit(graphs, y)
    with pytest.raises(ValueError, match=r"unknown kernel 'powr': did you mean 'power'\? Choose among \[") as caught:
        gi.kernel_matrix(graphs, kernel="powr")
    assert "learned" not in str(caught.value)  # kernel_matrix does not take it
    with pytest.raises(ValueError, match=r"unknown kernel 'xyz'; choose among \["):
        gi.kernel_matrix(graphs, kernel="xyz")
    # scikit-learn's check_do_not_raise_errors_in_init_or_set_params, for the named
    # parameters (it would also pass "params", the name of **params, which is no parameter)
    for value in (-1, 3.0, "helloworld", np.array([1.0, 4.0]), [1], {}, []):
        gi.GraphKernel(kernel=value, n_jobs=value).set_params(kernel=value, n_jobs=value)


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        gi.PowerKernel(5)
    assert gi.PowerKernel(k=5).k == 5


def test_feature_names_out_name_the_training_graphs(graphs_and_labels):
    graphs, _ = graphs_and_labels
    with pytest.raises(NotFittedError):
        gi.PowerKernel().get_feature_names_out()
    kernel = gi.PowerKernel().fit(graphs[:5])
    names = kernel.get_feature_names_out()
    assert isinstance(names, np.ndarray) and names.dtype == object
    assert names.tolist() == [f"powerkernel{i}" for i in range(5)]
    assert kernel.transform(graphs[5:8]).shape == (3, len(names))
    # in a pipeline, the SVM sees one feature per training graph
    model = _pipeline().fit(graphs[:5] + graphs[-5:], [0] * 5 + [1] * 5)
    assert model[:-1].get_feature_names_out().tolist() == [f"powerkernel{i}" for i in range(10)]


def test_set_output_pandas(graphs_and_labels):
    pd = pytest.importorskip("pandas")
    graphs, _ = graphs_and_labels
    train, test = graphs[:6], graphs[30:33]
    kernel = gi.PowerKernel().set_output(transform="pandas").fit(train)
    frame = kernel.transform(test)
    assert isinstance(frame, pd.DataFrame)
    assert frame.columns.tolist() == kernel.get_feature_names_out().tolist()
    np.testing.assert_array_equal(frame.to_numpy(), gi.PowerKernel().fit(train).transform(test))
    square = gi.PowerKernel().set_output(transform="pandas").fit_transform(train)
    assert isinstance(square, pd.DataFrame) and square.shape == (6, 6)
    np.testing.assert_array_equal(square.to_numpy(), gi.power_kernel_matrix(train))
    default = gi.PowerKernel().set_output(transform="default").fit(train).transform(test)
    assert isinstance(default, np.ndarray)


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


@pytest.mark.parametrize("name", ["fit", "transform", "get_params", "foo", "histogram__foo", "nomember__k", "_kernel_params"])
def test_graph_kernel_refuses_a_parameter_no_kernel_takes(name):
    # GraphKernel(fit=1) stored fit=1 over the method: "'int' object is not callable"
    with pytest.raises(ValueError, match=f"GraphKernel has no parameter '{name}': .*kernel, n_jobs.*n_iter"):
        gi.GraphKernel(**{name: 1})
    kernel = gi.GraphKernel(kernel="wl")
    with pytest.raises(ValueError, match=f"GraphKernel has no parameter '{name}'"):
        kernel.set_params(**{name: 1})
    assert kernel.get_params() == {"kernel": "wl", "n_jobs": None}


def test_graph_kernel_takes_every_kernel_parameter_and_member_parameters():
    kernel = gi.GraphKernel(kernel="power*histogram", histogram__k=3, ridge=1e-9)
    assert kernel.set_params(n_iter=2, kernel="wl", histogram__k=4).get_params() == {
        "kernel": "wl", "n_jobs": None, "histogram__k": 4, "n_iter": 2, "ridge": 1e-9}
    assert clone(kernel).get_params() == kernel.get_params()
    with pytest.raises(ValueError, match="names no parameter of a member of 'wl'"):
        kernel.fit([nx.path_graph(4)])  # a parameter of another kernel: refused at fit, by name


# -- the learned default -----------------------------------------------------------------
def _labelled_molecules():
    """Small labelled graphs whose class is carried by the labels only (same shapes)."""
    graphs, y = [], []
    for i in range(16):
        G = nx.cycle_graph(5 + i % 4)
        cls = i % 2
        nx.set_node_attributes(G, {v: ("N" if cls and v == 0 else "C") for v in G}, "label")
        graphs.append(G)
        y.append(cls)
    return graphs, np.array(y)


def test_learned_default_contract(graphs_and_labels):
    graphs, y = graphs_and_labels
    model = gi.GraphKernel()
    K = model.fit_transform(graphs, y)
    weights = model.weights_
    assert min(weights.values()) >= 0 and sum(weights.values()) == pytest.approx(1.0, abs=1e-12)
    assert model.members_ == [name for name, w in weights.items() if w > 0]
    assert not any("label" in name for name in weights)  # unlabelled graphs: structure members only
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-10  # a sum of PSD matrices, up to rounding
    cross = model.transform(graphs[:5])
    np.testing.assert_allclose(cross, K[:5], atol=1e-12)  # the same sums in another order
    assert model.n_train_ == len(graphs) and cross.shape == (5, len(graphs))


def test_learned_default_uses_labels_when_every_graph_has_them():
    graphs, y = _labelled_molecules()
    model = gi.GraphKernel().fit(graphs, y)
    assert any(name.startswith(("wl_label", "labelled_histogram")) for name in model.members_)
    # the classes differ only by one node label: label members align, structure ones cannot
    assert max(v for n, v in model.alignments_.items() if "label" in n) > 0.9
    refused = gi.GraphKernel(node_label=None).fit(graphs, y)
    assert not any("label" in name for name in refused.weights_)
    unlabelled = [nx.Graph(G.edges) for G in graphs[:-1]] + graphs[-1:]  # one graph with labels
    with pytest.warns(UserWarning, match="15 of the 16 graphs lack node_label 'label'"):
        assert not any("label" in n for n in gi.GraphKernel().fit(unlabelled, y).weights_)
    with pytest.raises(ValueError, match="no node labels|none"), pytest.warns(UserWarning, match="lack node_label"):
        gi.GraphKernel(members=("wl_label",)).fit(unlabelled, y)


def test_learned_default_with_a_tu_data_set(tu_datasets):
    mutag = tu_datasets["MUTAG"]
    model = gi.GraphKernel(seed=0).fit(mutag, mutag.y)
    assert any("label" in name for name in model.weights_)
    assert not any("label" in n for n in gi.GraphKernel(node_label=None).fit(mutag, mutag.y).weights_)
    K = model.transform(mutag[:4])
    assert K.shape == (4, len(mutag)) and np.allclose(K[np.arange(4), np.arange(4)], 1.0, atol=1e-12)


def test_learned_default_regression():
    graphs = [nx.path_graph(n) for n in range(3, 15)] + [nx.star_graph(n) for n in range(3, 15)]
    y = np.array([float(G.number_of_nodes()) + 0.5 * (i % 2) for i, G in enumerate(graphs)])
    model = gi.GraphKernel().fit(graphs, y)
    assert sum(model.weights_.values()) == pytest.approx(1.0, abs=1e-12)
    classes = gi.GraphKernel(task="classification").fit(graphs, y)  # 24 classes, one-hot target
    assert classes.alignments_ != model.alignments_


def test_learned_default_keeps_the_weighting_with_the_smaller_leave_one_out_error(graphs_and_labels):
    graphs, y = graphs_and_labels
    model = gi.GraphKernel().fit(graphs, y)
    errors = model.loo_errors_
    assert set(errors) == {"plain", "shaped"}
    shaped = gi.GraphKernel(selection=None).fit(graphs, y)  # every shape, weighted once
    plain = gi.GraphKernel(bandwidths=()).fit(graphs, y)  # the plain candidates only: no choice to make
    assert shaped.loo_errors_ == {} and plain.loo_errors_ == {}
    kept = plain if errors["plain"] < errors["shaped"] else shaped
    # exact: the same weights from the same alignment problem
    assert model.weights_ == {name: kept.weights_.get(name, 0.0) for name in shaped.weights_}
    with pytest.raises(ValueError, match="selection must be one of"):
        gi.GraphKernel(selection="cv").fit(graphs, y)


def test_learned_default_keeps_the_plain_kernel_where_a_peaked_shape_generalises_worse(tu_load):
    # COX2 with WL-OA on atom labels: alignment favours a peaked Gaussian shape, whose
    # leave-one-out error is 5% above the plain kernel's (0.1346 against 0.1279)
    cox2 = tu_load("COX2")
    shaped = gi.GraphKernel(members=("wloa_label",), selection=None).fit(cox2, cox2.y)
    assert any(":gauss" in name for name in shaped.members_)
    model = gi.GraphKernel(members=("wloa_label",)).fit(cox2, cox2.y)
    assert model.loo_errors_["plain"] < 0.97 * model.loo_errors_["shaped"]
    # exact: one plain candidate, whose weight is v / v, which is 1.0 in IEEE arithmetic
    assert model.members_ == ["wloa_label"] and model.weights_["wloa_label"] == 1.0


def test_learned_default_is_reproducible_with_a_seed(graphs_and_labels):
    graphs, y = graphs_and_labels
    first = gi.GraphKernel(max_samples=20, seed=3).fit(graphs, y)
    assert gi.GraphKernel(max_samples=20, seed=3).fit(graphs, y).weights_ == first.weights_
    assert first.combination_.sample.tolist() != gi.GraphKernel(max_samples=20, seed=4).fit(graphs, y).combination_.sample.tolist()
    np.testing.assert_array_equal(first.transform(graphs[:3]), gi.GraphKernel(max_samples=20, seed=3).fit(graphs, y).transform(graphs[:3]))


def test_learned_default_clone_pickle_and_params(graphs_and_labels):
    import pickle

    graphs, y = graphs_and_labels
    model = gi.GraphKernel(combination="align", k=4, seed=0)
    assert model.get_params() == {"kernel": "learned", "n_jobs": None, "combination": "align", "k": 4, "seed": 0}
    assert clone(model).get_params() == model.get_params()
    assert gi.GraphKernel().get_params() == {"kernel": "learned", "n_jobs": None}
    model.fit(graphs, y)
    assert model.combination_.functionals["power"].k == 4 and model.combination_.functionals["histogram"].k == 4
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.transform(graphs[:4]), model.transform(graphs[:4]))
    np.testing.assert_array_equal(again.combination_.gram(), model.combination_.gram())
    assert again.weights_ == model.weights_
    for check in (checks.check_no_attributes_set_in_init, checks.check_get_params_invariance, checks.check_set_params,
                  checks.check_estimator_cloneable, checks.check_parameters_default_constructible):
        check("GraphKernel", gi.GraphKernel())  # options given as **params are not in the signature


def test_learned_default_in_a_pipeline_and_errors(graphs_and_labels):
    graphs, y = graphs_and_labels
    model = Pipeline([("kernel", gi.GraphKernel()), ("svm", SVC(kernel="precomputed"))])
    scores = cross_val_score(model, graphs, y, cv=StratifiedKFold(3, shuffle=True, random_state=0))
    assert scores.mean() > 0.75
    with pytest.raises(ValueError, match="training labels"):
        gi.GraphKernel().fit(graphs)
    with pytest.raises(ValueError, match="reach no member these graphs support"):
        gi.GraphKernel(bandwidth=0.5).fit(graphs, y)
    with pytest.raises(ValueError, match="one label per graph"):
        gi.GraphKernel().fit(graphs, y[:-1])
    with pytest.raises(ValueError, match="powers"):
        gi.GraphKernel(powers=(0.5,)).fit(graphs, y)
    with pytest.raises(ValueError, match="members"):
        gi.GraphKernel(members=("graphlet",)).fit(graphs, y)
    fixed = gi.GraphKernel(kernel="wl").fit(graphs)  # a named kernel needs no y
    assert not hasattr(fixed, "weights_")
    with pytest.raises(NotFittedError):
        gi.GraphKernel().transform(graphs)


def test_gaussian_shapes_alone_keep_the_kernel_a_kernel(graphs_and_labels):
    """exp(-(2 - 2K) / h) of a unit-diagonal PSD K: unit diagonal, PSD (a limit of sums
    of Schur powers), and transform uses the bandwidth learned at fit."""
    graphs, y = graphs_and_labels
    model = gi.GraphKernel(powers=(), bandwidths=(0.5,), combination="align")
    K = model.fit_transform(graphs, y)
    assert all(name.endswith(":gauss(0.5)") for name in model.weights_)
    assert all(m > 0 for m in model.combination_.medians.values())
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-10  # PSD up to rounding
    np.testing.assert_allclose(model.transform(graphs[:4]), K[:4], atol=1e-12)  # same sums, other order
    power = gi.kernel_matrix(graphs, kernel="power", k=5)
    median = model.combination_.medians["power"]
    off = ~np.eye(len(graphs), dtype=bool)
    assert median == pytest.approx(float(np.median(np.clip(2 - 2 * power[off], 0, None))), rel=1e-12)


def test_learned_default_uses_edge_labels_and_attributes_when_every_graph_has_them():
    # same shapes and node labels; the classes differ by one bond type, or by attributes
    graphs, y = _labelled_molecules()
    for G, cls in zip(graphs, y):
        nx.set_edge_attributes(G, {e: ("double" if cls and i == 0 else "single") for i, e in enumerate(G.edges)}, "label")
        nx.set_node_attributes(G, {v: (float(cls) + 0.1 * v, 1.0) for v in G}, "attributes")
    model = gi.GraphKernel(seed=0).fit(graphs, y)
    names = set(model.weights_)
    assert any(n.startswith("wl_edge_label") for n in names) and any(n.startswith("attributes") for n in names)
    K = model.fit_transform(graphs, y)
    np.testing.assert_array_equal(np.diag(K), 1.0)  # gram() sets the diagonal: unit by construction
    refused = set(gi.GraphKernel(edge_label=None, node_attributes=None, seed=0).fit(graphs, y).weights_)
    assert not any("edge_label" in n or n.startswith("attributes") for n in refused)
    with pytest.raises(ValueError, match="has no attribute"):  # what the chosen candidates read
        model.transform([nx.cycle_graph(5)])


def test_learned_default_takes_one_candidates_parameter():
    graphs, y = _labelled_molecules()
    model = gi.GraphKernel(wl_label__n_iter=2, seed=0)
    assert model.get_params()["wl_label__n_iter"] == 2
    model.fit(graphs, y)
    assert model.combination_.functionals["wl_label"].n_iter == 2
    assert model.combination_.functionals["wl"].n_iter == 5
    with pytest.raises(ValueError, match="no parameter"):
        gi.GraphKernel(wl_label__k=2)


def test_learned_default_refuses_what_it_cannot_use_with_messages_of_ours(graphs_and_labels):
    """Was: scipy's IndexError for no graphs, a message about TU data sets for an edge
    weight, weights_ summing to 0.5 for powers=(1, 1), "'int' object is not iterable",
    a bad seed accepted while no subsample was drawn, numpy's TypeError for labels that
    cannot be sorted, and "single class (np.int64(0))"."""
    graphs, y = graphs_and_labels
    with pytest.raises(ValueError, match="at least one graph"):
        gi.GraphKernel().fit([], [])
    for params in ({"weight": "weight"}, {"power__weight": "weight"}):
        with pytest.raises(ValueError, match="reads no edge weights"):
            gi.GraphKernel(**params).fit(graphs, y)
    with pytest.raises(ValueError, match="powers must be distinct"):
        gi.GraphKernel(powers=(1, 1)).fit(graphs, y)
    with pytest.raises(ValueError, match="bandwidths must be distinct"):
        gi.GraphKernel(bandwidths=(1, 1.0)).fit(graphs, y)
    with pytest.raises(TypeError, match=r"powers must be a sequence, e.g. powers=\(2,\)"):
        gi.GraphKernel(powers=2).fit(graphs, y)
    with pytest.raises(TypeError, match="members must be a sequence of candidate names"):
        gi.GraphKernel(members="power").fit(graphs, y)
    with pytest.raises(TypeError, match="seed must be"):
        gi.GraphKernel(seed="0").fit(graphs, y)  # fewer graphs than max_samples: no subsample drawn
    with pytest.raises(TypeError, match="all numbers or all strings"):
        gi.GraphKernel().fit(graphs, np.array([None] * 24 + ["a"] * 24, dtype=object))
    with pytest.raises(ValueError, match=r"single class \(0\)"):
        gi.GraphKernel().fit(graphs, np.zeros(len(graphs), dtype=np.int64))


def test_learned_default_refuses_labels_every_graph_has_but_not_valid():
    """Labels or attributes on every node but not valid (NaN, numbers beside strings)
    are an error naming them; they were read as absent and their members silently left
    out. Absent on some node or graph: those members are left out (as before)."""
    graphs, y = _labelled_molecules()
    mixed = [G.copy() for G in graphs]
    for i, G in enumerate(mixed):  # numbers in some graphs, strings in others
        nx.set_node_attributes(G, {v: (1 if i % 2 else "C") for v in G}, "label")
    with pytest.raises(TypeError, match="mix numbers and strings.*refuse it with node_label=None"):
        gi.GraphKernel().fit(mixed, y)
    assert not any("label" in n for n in gi.GraphKernel(node_label=None).fit(mixed, y).weights_)
    with_nan = [G.copy() for G in graphs]
    for G in with_nan:
        nx.set_node_attributes(G, {v: (1.0, 2.0) for v in G}, "attributes")
    with_nan[3].nodes[0]["attributes"] = (np.nan, 2.0)
    with pytest.raises(ValueError, match=r"X\[3\]: node 0: attribute 'attributes' holds nan"):
        gi.GraphKernel().fit(with_nan, y)
    del with_nan[3].nodes[0]["attributes"]  # absent on one node: the attribute member is left out
    with pytest.warns(UserWarning, match=r"1 of the 16 graphs lack node_attributes 'attributes' on some node \(X\[3\]"):
        assert not any(n.startswith("attributes") for n in gi.GraphKernel().fit(with_nan, y).weights_)
    as_igraph = [ig.Graph.from_networkx(G) for G in mixed]
    with pytest.raises(TypeError, match="mix numbers and strings"):
        gi.GraphKernel().fit(as_igraph, y)


def test_labels_on_only_some_graphs_give_one_warning_naming_how_many_lack_them():
    """Was silent: the label members were left out without a word."""
    import warnings

    graphs = [nx.cycle_graph(n) for n in range(5, 11)] + [nx.star_graph(n) for n in range(4, 10)]
    y = [0] * 6 + [1] * 6
    for G in graphs[:8]:
        nx.set_node_attributes(G, 1, "label")
    del graphs[2].nodes[0]["label"]  # and on all but one node of X[2]
    with pytest.warns(UserWarning) as caught:
        weights = gi.GraphKernel().fit(graphs, y).weights_
    assert len(caught) == 1
    assert re.search(r"^5 of the 12 graphs lack node_label 'label' on some node \(X\[2\] first\), though 8 carry "
                     r"it on at least one: .*\(wl_label, labelled_histogram, .*\).*node_label=None", str(caught[0].message))
    assert not any("label" in name for name in weights)
    as_igraph = [ig.Graph.from_networkx(G) for G in graphs]  # igraph: None where unset
    with pytest.warns(UserWarning, match="^5 of the 12 graphs lack node_label 'label'"):
        gi.GraphKernel().fit(as_igraph, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gi.GraphKernel(node_label=None).fit(graphs, y)  # refused: no warning
        unlabelled = [nx.cycle_graph(n) for n in range(5, 11)] + [nx.star_graph(n) for n in range(4, 10)]
        gi.GraphKernel().fit(unlabelled, y)  # carried by none: no warning
        gi.GraphKernel(members=("power", "wl")).fit(graphs, y)  # no member reads it


def test_a_graph_without_nodes_is_refused_without_a_hint_about_labels():
    """Was "X[1] has no nodes ... every graph has node_label 'label', so the learned
    default reads it; fix the values, or refuse it with node_label=None": the graph
    with no nodes carries the label vacuously, and refusing the label would not help."""
    graphs = [nx.path_graph(3), nx.Graph(), nx.path_graph(4), nx.cycle_graph(3)]
    for G in graphs:
        nx.set_node_attributes(G, 1, "label")
    with pytest.raises(ValueError, match=r"^X\[1\] has no nodes; every kernel needs at least one node per graph$"):
        gi.GraphKernel().fit(graphs, [0, 1, 0, 1])


def test_a_subsample_with_one_label_is_our_message():
    """Was: "y holds a single class", though y has two: the graphs drawn (max_samples)
    held one."""
    graphs = [nx.cycle_graph(n) for n in range(4, 33)] + [nx.star_graph(5)]
    y = np.array([0] * 29 + [1])
    failed = 0
    for seed in range(6):  # each draw of 10 of 30 misses the one graph of class 1 with probability 2/3
        try:
            gi.GraphKernel(members=("power",), max_samples=10, seed=seed).fit(graphs, y)
        except ValueError as err:
            assert "max_samples=10 graphs drawn (with seed) to learn the weights on hold a single label value, 0" in str(err)
            failed += 1
    assert 0 < failed < 6


def test_transform_reads_only_what_the_chosen_candidates_need(graphs_and_labels):
    """Labels the fitted combination does not use are not read from new graphs, so
    labels that are not valid there (numbers beside strings) do not matter."""
    graphs, y = graphs_and_labels
    model = gi.GraphKernel().fit(graphs, y)  # unlabelled: structure members only
    assert model.combination_.requires == ()
    new = [nx.gnp_random_graph(20, 0.2, seed=100 + i) for i in range(3)]
    labelled = [G.copy() for G in new]
    for i, G in enumerate(labelled):
        nx.set_node_attributes(G, {v: (1 if i % 2 else "C") for v in G}, "label")
    np.testing.assert_array_equal(model.transform(labelled), model.transform(new))


def test_a_fitted_graph_kernel_and_its_combination_print_their_positive_weights():
    """Was: a fitted GraphKernel printed as GraphKernel(), combination_ as an object
    address, and weights_ had 28 entries, almost all 0."""
    graphs, y = _labelled_molecules()
    model = gi.GraphKernel(seed=0).fit(graphs, y)
    positive = sorted(((w, name) for name, w in model.weights_.items() if w > 0), key=lambda t: (-t[0], t[1]))
    assert 0 < len(positive) < len(model.weights_)
    listed = ", ".join(f"{name} {w:.3f}" for w, name in positive[:5])
    more = f", and {len(positive) - 5} more" if len(positive) > 5 else ""
    assert repr(model) == f"GraphKernel(seed=0) fitted on {len(graphs)} graphs: {listed}{more}"
    assert repr(model.combination_) == (f"<LearnedCombination of {len(positive)} of {len(model.weights_)} candidates, "
                                        f"fitted on {len(graphs)} graphs: "
                                        + ", ".join(f"{name} {w:.3f}" for w, name in positive) + ">")
    assert "0x" not in repr(model.combination_)
    assert repr(gi.GraphKernel(kernel="wl").fit(graphs)) == f"GraphKernel(kernel='wl') fitted on {len(graphs)} graphs"
    assert repr(clone(model)) == "GraphKernel(seed=0)"  # parameters only, as scikit-learn prints them
    assert repr(Pipeline([("kernel", model)])) == "Pipeline(steps=[('kernel', GraphKernel(seed=0))])"


# -- the order of the training graphs: the fit does not depend on it, to the last bit ------------
@pytest.mark.parametrize("max_samples", [None, 120])
def test_the_learned_fit_does_not_depend_on_the_order_of_the_graphs(tu_load, max_samples):
    """Was: permuted MUTAG gave weights 5.6e-16 apart and a matrix 4.4e-16 apart (the
    centring sums, inner products and eigendecompositions ran in the order given), and
    with max_samples another sample. Now the weights, alignments, leave-one-out errors
    and the matrix (put back in the first order) are equal bit for bit: the reductions
    run in the canonical order of kernels.learned.canonical_ranks and every entry of the
    matrix is computed from its own pair of graphs."""
    data = tu_load("MUTAG")
    graphs, y = [data[i] for i in range(len(data))], np.asarray(data.y)
    graphs += graphs[:5]  # copies with their labels: ties of the canonical order
    y = np.concatenate([y, y[:5]])
    perm = np.random.default_rng(1).permutation(len(graphs))
    first = gi.GraphKernel(seed=0, max_samples=max_samples)
    again = gi.GraphKernel(seed=0, max_samples=max_samples)
    K = first.fit_transform(graphs, y)
    K_perm = again.fit_transform([graphs[i] for i in perm], y[perm])
    assert list(first.weights_) == list(again.weights_)
    for name in ("weights_", "alignments_", "loo_errors_"):
        np.testing.assert_array_equal(list(getattr(first, name).values()), list(getattr(again, name).values()))
    back = np.argsort(perm)
    np.testing.assert_array_equal(K, K_perm[np.ix_(back, back)])
    tests = [graphs[i] for i in range(0, 188, 7)]
    np.testing.assert_array_equal(first.transform(tests), again.transform(tests)[:, back])
    if max_samples is not None:  # the same graphs drawn (a copy and its source are the same graph)
        same_graph = np.where(np.arange(len(graphs)) < 188, np.arange(len(graphs)), np.arange(len(graphs)) - 188)
        np.testing.assert_array_equal(np.sort(same_graph[perm[again.combination_.sample]]),
                                      np.sort(same_graph[first.combination_.sample]))
