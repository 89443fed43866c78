"""External kernels (GraKeL objects, callables, transformers) as candidates of the learned default."""

import pickle
import warnings

import networkx as nx
import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

import graphinvariants as gi
from graphinvariants.cli._main import main
from graphinvariants.kernels import parse_kernel_spec
from graphinvariants.kernels.learned.external import to_grakel
from graphinvariants.kernels.learned._combination import LearnedCombination
from graphinvariants.graphs import as_graph_batch


def shortest_path_kernel(graphs_a, graphs_b):
    """A callable candidate (module level, so that it pickles)."""
    return gi.kernel_matrix(graphs_a, graphs_b, kernel="shortest_path")


def unnormalised(graphs_a, graphs_b):
    size = np.array([G.number_of_nodes() for G in graphs_a], float)
    other = np.array([G.number_of_nodes() for G in graphs_b], float)
    return np.outer(size, other)


def not_psd(graphs_a, graphs_b):
    K = np.full((len(graphs_a), len(graphs_b)), -0.5)
    if graphs_a is graphs_b:
        np.fill_diagonal(K, 1.0)
    return K


class SizeTransformer(BaseEstimator):
    """A transformer candidate: min/max of node counts against the fitted graphs."""

    def __init__(self, scale=1.0):
        self.scale = scale

    def fit(self, graphs, y=None):
        self.sizes_ = np.array([G.number_of_nodes() for G in graphs], float)
        return self

    def transform(self, graphs):
        sizes = np.array([G.number_of_nodes() for G in graphs], float)
        return np.minimum.outer(sizes, self.sizes_) / np.maximum.outer(sizes, self.sizes_)


@pytest.fixture(scope="module")
def data():
    graphs = [nx.cycle_graph(n) for n in range(5, 17)] + [nx.star_graph(n) for n in range(4, 16)]
    graphs += [nx.disjoint_union(nx.path_graph(3), nx.path_graph(4)), nx.empty_graph(3)]
    y = np.array([0] * 12 + [1] * 12 + [0, 1])
    order = np.random.default_rng(0).permutation(len(graphs))
    return [graphs[i] for i in order], y[order]


def test_callable_and_transformer_candidates(data):
    graphs, y = data
    model = gi.GraphKernel(members=("wl", shortest_path_kernel, SizeTransformer()), node_label=None)
    K = model.fit_transform(graphs[:20], y[:20])
    assert {"wl", "shortest_path_kernel", "SizeTransformer"} <= set(model.weights_)
    assert abs(sum(model.weights_.values()) - 1) < 1e-12
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-12
    C = model.transform(graphs[20:])
    assert C.shape == (len(graphs) - 20, 20)
    # the callable alone, weight 1: its own matrix (exactly: weight 1.0 times the same values)
    alone = gi.GraphKernel(members=(shortest_path_kernel,), powers=(1,), bandwidths=(), node_label=None)
    np.testing.assert_array_equal(alone.fit(graphs[:20], y[:20]).transform(graphs[20:]),
                                  shortest_path_kernel(graphs[20:], graphs[:20]))


def test_pickle_clone_and_get_params(data):
    graphs, y = data
    transformer = SizeTransformer(scale=2.0)
    model = gi.GraphKernel(members=("histogram", shortest_path_kernel, transformer), node_label=None)
    copy = clone(model)
    members = copy.get_params()["members"]
    assert members[:2] == ("histogram", shortest_path_kernel) and members[2] is not transformer
    assert members[2].get_params() == {"scale": 2.0}
    model.fit(graphs[:20], y[:20])
    assert not hasattr(transformer, "sizes_")  # the given transformer is never fitted: a clone is
    again = pickle.loads(pickle.dumps(model))
    # exact: the same members and weights, the same operations in the same order
    np.testing.assert_array_equal(again.transform(graphs[20:]), model.transform(graphs[20:]))
    np.testing.assert_array_equal(again.combination_.gram(), model.combination_.gram())


def test_checks_name_the_candidate(data):
    graphs, y = data
    with pytest.raises(ValueError, match="candidate 'unnormalised' gave a diagonal from 9 to 256.*normalise it"):
        gi.GraphKernel(members=("wl", unnormalised), node_label=None).fit(graphs, y)
    with pytest.raises(ValueError, match="candidate 'not_psd' is not positive semidefinite: its smallest eigenvalue"):
        gi.GraphKernel(members=(not_psd,), node_label=None).fit(graphs, y)
    with pytest.raises(ValueError, match=r"candidate '<lambda>' gave a matrix of shape \(2, 2\), expected \(26, 26\)"):
        gi.GraphKernel(members=(lambda a, b: np.eye(2),), node_label=None).fit(graphs, y)
    with pytest.raises(ValueError, match="candidate '<lambda>' gave a matrix with 26 values that are NaN"):
        gi.GraphKernel(members=(lambda a, b: np.diag(np.full(len(a), np.nan)) + 0 * np.eye(len(a)),),
                       node_label=None).fit(graphs, y)
    with pytest.raises(ValueError, match="not symmetric"):
        gi.GraphKernel(members=(lambda a, b: np.eye(len(a)) + np.triu(np.full((len(a), len(b)), 0.1), 1),),
                       node_label=None).fit(graphs, y)
    with pytest.raises(ValueError, match="members must name candidates .* or be external kernels"):
        LearnedCombination(members=("wl", 3))


def test_to_grakel_lists_every_node_labels_and_bonds():
    pytest.importorskip("grakel", reason="GraKeL is the [baselines] extra; CI installs it")
    G = nx.Graph([(0, 1, {"bond": "a"}), (1, 2, {"bond": "b"})])
    G.add_node(3)
    nx.set_node_attributes(G, {0: "C", 1: "O", 2: "C", 3: "N"}, "label")
    batch = as_graph_batch([G], node_label="label", edge_label="bond")
    [g] = to_grakel(batch, node_labels=batch.node_labels, edge_labels=batch.edge_labels)
    assert g.get_edge_dictionary() == {0: {1: 1.0}, 1: {0: 1.0, 2: 1.0}, 2: {1: 1.0}, 3: {}}
    assert g.get_labels() == {0: "C", 1: "O", 2: "C", 3: "N"}
    assert g.get_labels(purpose="dictionary", label_type="edge") == {(0, 1): "a", (1, 0): "a", (1, 2): "b",
                                                                       (2, 1): "b"}


def test_grakel_candidate_equals_grakel_and_our_member(tu_datasets):
    grakel = pytest.importorskip("grakel", reason="GraKeL is the [baselines] extra; CI installs it")
    ds = tu_datasets["MUTAG"]
    given = grakel.ShortestPath()  # normalize=False: used with normalize=True on a clone
    model = gi.GraphKernel(members=(given,), bandwidths=())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        K = model.fit_transform(ds[:150], ds.y[:150])
        C = model.transform(ds[150:])
    assert model.weights_ == {"grakel.ShortestPath": 1.0} and given.get_params()["normalize"] is False
    # the node labels reach GraKeL: its matrix is our labelled member's (1e-12: GraKeL divides by
    # square roots of float products in its own order)
    np.testing.assert_allclose(K, gi.kernel_matrix(ds[:150], kernel="shortest_path", node_label="label"), atol=1e-12)
    np.testing.assert_allclose(C, gi.kernel_matrix(ds[150:], ds[:150], kernel="shortest_path", node_label="label"),
                               atol=1e-12)
    again = pickle.loads(pickle.dumps(model))  # the fitted GraKeL object travels with it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(again.transform(ds[150:]), C)  # the same fitted object: the same numbers
        assert clone(model).get_params()["members"][0].get_params() == given.get_params()


def test_grakel_class_names_and_the_command_line(tu_dir, tmp_path, capsys):
    pytest.importorskip("grakel", reason="GraKeL is the [baselines] extra; CI installs it")
    with pytest.raises(ValueError, match="GraKeL has no kernel class 'NoSuchKernel'"):
        gi.GraphKernel(members=("grakel.NoSuchKernel",)).fit([nx.path_graph(3)] * 2, [0, 1])
    argv = ["evaluate", "MUTAG", "--kernel", "learned:members=wl+grakel.ShortestPath", "--reps", "1", "--folds", "3",
            "--data-home", str(tu_dir), "--no-download", "--out", str(tmp_path), "--quiet"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    out = capsys.readouterr().out
    assert "MUTAG, learned:members=wl+grakel.ShortestPath:" in out
    for spelled, message in (("wl+grakel.NoSuchKernel", "GraKeL has no kernel class 'NoSuchKernel'"),
                             ("wl+nosuch", "members must name candidates")):
        with pytest.raises(SystemExit) as exit_:
            main(["evaluate", "MUTAG", "--kernel", f"learned:members={spelled}", "--out", str(tmp_path)])
        assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert parse_kernel_spec("learned:members=wl")[1] == {"members": ("wl",)}  # one member: a tuple too


class FreshGraphKernel(gi.GraphKernel):
    """The learned default as any other transformer: the protocol fits a fresh clone on
    every part (only GraphKernel itself is given member Grams computed once)."""


def _same_outcome(a, b):
    np.testing.assert_array_equal(a.accuracies, b.accuracies)
    np.testing.assert_array_equal(a.chosen_C, b.chosen_C)
    np.testing.assert_array_equal(a.validation_accuracies, b.validation_accuracies)


def test_evaluate_estimator_with_external_candidates(data):
    """External candidates through the protocol: the shared member Grams give, fold by
    fold, the accuracies, validation accuracies and C of fresh fits on every part; and
    one external candidate alone (weight 1) is its own precomputed Gram matrix through
    evaluate_kernel on the same splits."""
    graphs, y = data
    members = ("wl", shortest_path_kernel, SizeTransformer())
    options = dict(n_repeats=2, n_folds=2, seed=0, C_grid=(1e-2, 1.0, 1e2))
    shared = gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(members=members, node_label=None), **options)
    fresh = gi.evaluate_estimator(graphs, y, kernel=FreshGraphKernel(members=members, node_label=None), **options)
    _same_outcome(shared, fresh)
    alone = gi.GraphKernel(members=(shortest_path_kernel,), powers=(1,), bandwidths=(), node_label=None)
    by_hand = gi.evaluate_kernel(shortest_path_kernel(graphs, graphs), y, **options)
    _same_outcome(gi.evaluate_estimator(graphs, y, kernel=alone, **options), by_hand)
    assert 0.5 < by_hand.mean <= 1  # the cycles and the stars are told apart


def test_a_misspelt_grakel_class_gets_a_did_you_mean():
    """Was: "GraKeL has no kernel class 'ShortstPath'", and no hint."""
    pytest.importorskip("grakel")
    with pytest.raises(ValueError, match=r"'ShortstPath'; did you mean grakel\.ShortestPath"):
        LearnedCombination(members=("grakel.ShortstPath",))
    with pytest.raises(ValueError, match=r"its kernel classes are .*WeisfeilerLehman"):
        LearnedCombination(members=("grakel.Nothing",))
