"""The learned default on many training parts from member Grams computed once: the
matrices and weights of a fresh fit on each part, to the last bit, and no label from
outside the part."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.kernels import pairwise_kernels
from graphinvariants.kernels.learned._combination import CANDIDATES, LearnedCombination
from graphinvariants.kernels.learned.folds import LearnedFolds


def labelled_graphs(n, *, attributes=False, seed=0):
    rng = np.random.default_rng(seed)
    graphs, y = [], []
    for i in range(n):
        G = nx.gnp_random_graph(7 + i % 8, 0.35, seed=seed * 1000 + i) if i % 2 else \
            nx.barabasi_albert_graph(7 + i % 8, 2, seed=seed * 1000 + i)
        nx.set_node_attributes(G, {v: int(rng.integers(3)) for v in G}, "label")
        nx.set_edge_attributes(G, {e: int(rng.integers(2)) for e in G.edges}, "label")
        if attributes:
            nx.set_node_attributes(G, {v: (float(rng.normal()), float(rng.normal() + i % 2)) for v in G}, "attributes")
        graphs.append(G)
        y.append(i % 2)
    return graphs, np.array(y)


class PerFoldGraphKernel(gi.GraphKernel):
    """The learned default fitted afresh on every part (a subclass: evaluate_estimator
    runs it as any other estimator, the path before shared Grams)."""


def fresh_fit(graphs, y, train, test, **options):
    model = gi.GraphKernel(**options)
    K_train = model.fit_transform([graphs[i] for i in train], y[train])
    return K_train, model.transform([graphs[i] for i in test]), model.combination_


@pytest.mark.parametrize("options", [
    {"seed": 0, "max_samples": 30},  # weights learned on a subsample of each part
    {"combination": "align", "selection": None},  # every candidate and shape with a positive weight
    {"seed": 2, "max_samples": 25, "n_jobs": 2},
])
def test_each_part_gets_the_matrices_and_weights_of_a_fresh_fit(options):
    graphs, y = labelled_graphs(48, attributes=True)
    folds = LearnedFolds(graphs, gi.GraphKernel(**options).learned_combination)
    assert "attributes" not in folds.shared and "wl_label" in folds.shared  # the fitted member stays per part
    rng = np.random.default_rng(1)
    for _ in range(3):
        order = rng.permutation(len(graphs))
        train, test = np.sort(order[:36]), np.sort(order[36:])
        K_train, K_test, combination = folds.fit_part(y, train, test)
        ref_train, ref_test, reference = fresh_fit(graphs, y, train, test, **options)
        assert combination.weights == reference.weights and combination.medians == reference.medians
        # exact: every member value is its pair's (checked below per member), summed in the same order
        np.testing.assert_array_equal(K_train, ref_train)
        np.testing.assert_array_equal(K_test, ref_test)


def test_every_shared_member_slices_to_what_a_part_computes():
    """Per member: the train x train and test x train blocks of the Gram matrix of all
    graphs equal the part's own matrices, to the bit; the attributes member, whose
    scaling and bandwidth are fitted on the part's graphs, does not, and is not shared."""
    graphs, y = labelled_graphs(40, attributes=True)
    combination = LearnedCombination()
    batch, carries = combination.graph_batch(graphs)
    functionals = combination.candidate_functionals(carries)
    assert set(functionals) == set(CANDIDATES) - {"descriptors"}  # every member but the one for molecules
    train, test = np.arange(3, 40, 2), np.arange(0, 40, 2)
    for name, f in functionals.items():
        whole = pairwise_kernels(batch, functional=f)
        fresh = combination.candidate_functionals(carries)[name]  # unfitted, as a part's fit starts
        part = fresh.as_embeddings(batch.take(train))
        own_train, own_test = pairwise_kernels(part, functional=fresh), pairwise_kernels(batch.take(test), part, functional=fresh)
        same = np.array_equal(whole[np.ix_(train, train)], own_train) and np.array_equal(whole[np.ix_(test, train)], own_test)
        assert same == (name != "attributes"), name
        assert hasattr(f, "fit") == (name == "attributes")


def test_no_test_label_reaches_the_weights():
    graphs, y = labelled_graphs(40)
    folds = LearnedFolds(graphs, gi.GraphKernel(seed=0, max_samples=20).learned_combination)
    train, test = np.arange(0, 40, 4), np.setdiff1d(np.arange(40), np.arange(0, 40, 4))
    train = np.sort(np.concatenate([train, test[:20]]))
    test = np.setdiff1d(np.arange(40), train)
    K_train, K_test, combination = folds.fit_part(y, train, test)
    for poison in (1 - y, np.full(len(y), 7), np.random.default_rng(0).permutation(y)):
        poisoned = y.copy()
        poisoned[test] = poison[test]  # every label outside the training part changed
        P_train, P_test, other = folds.fit_part(poisoned, train, test)
        assert other.weights == combination.weights and other.alignments == combination.alignments
        # exact: nothing computed differs
        np.testing.assert_array_equal(P_train, K_train)
        np.testing.assert_array_equal(P_test, K_test)


def test_evaluate_estimator_gives_the_results_of_fresh_fits():
    graphs, y = labelled_graphs(40)
    options = {"seed": 0, "max_samples": 25}
    shared = gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(**options), n_repeats=2, n_folds=4, seed=3)
    fresh = gi.evaluate_estimator(graphs, y, kernel=PerFoldGraphKernel(**options), n_repeats=2, n_folds=4, seed=3)
    # exact: the same matrices in every part (above), so the same fits
    np.testing.assert_array_equal(shared.accuracies, fresh.accuracies)
    np.testing.assert_array_equal(shared.chosen_C, fresh.chosen_C)
    np.testing.assert_array_equal(shared.validation_accuracies, fresh.validation_accuracies)


def test_evaluate_estimator_regression_gives_the_results_of_fresh_fits():
    graphs, _ = labelled_graphs(30)
    y = np.array([G.number_of_edges() / G.number_of_nodes() for G in graphs])
    shared = gi.evaluate_estimator(graphs, y, n_repeats=1, n_folds=3, task="regression")
    fresh = gi.evaluate_estimator(graphs, y, kernel=PerFoldGraphKernel(), n_repeats=1, n_folds=3, task="regression")
    # exact: as above
    np.testing.assert_array_equal(shared.rmse, fresh.rmse)


def test_graphs_carrying_labels_in_some_parts_only_are_fitted_per_part():
    """A graph without node labels leaves the label members out of the whole collection,
    but not out of a part without it: such a part is fitted from its own graphs, the
    others from the shared matrices."""
    graphs, y = labelled_graphs(24)
    for v in graphs[0]:
        del graphs[0].nodes[v]["label"]
    folds = LearnedFolds(graphs, gi.GraphKernel(seed=0).learned_combination)
    assert set(folds.carriers) == {"node_label"} and "wl_label" not in folds.shared
    for train, test, labelled in ((np.arange(1, 18), np.arange(18, 24), True),  # graph 0 in neither part
                                  (np.arange(0, 18), np.arange(18, 24), False)):
        K_train, K_test, combination = folds.fit_part(y, train, test)
        ref_train, ref_test, reference = fresh_fit(graphs, y, train, test, seed=0)
        assert ("wl_label" in combination.functionals) == labelled and combination.weights == reference.weights
        # exact: the fresh fit's own steps, or slices equal to them
        np.testing.assert_array_equal(K_train, ref_train)
        np.testing.assert_array_equal(K_test, ref_test)


def test_a_tu_data_set_is_evaluated_from_shared_grams(tu_load):
    mutag = tu_load("MUTAG")
    folds = LearnedFolds(mutag, gi.GraphKernel(seed=0).learned_combination)
    assert not folds.carriers and "wl_label" in folds.shared
    train, test = np.arange(0, 188, 3), np.setdiff1d(np.arange(188), np.arange(0, 188, 3))
    K_train, K_test, _ = folds.fit_part(mutag.y, train, test)
    model = gi.GraphKernel(seed=0)
    # exact: as above
    np.testing.assert_array_equal(K_train, model.fit_transform(mutag[train], mutag.y[train]))
    np.testing.assert_array_equal(K_test, model.transform(mutag[test]))


def test_folds_pickle_for_other_processes():
    import pickle

    graphs, y = labelled_graphs(24)
    folds = LearnedFolds(graphs, gi.GraphKernel(seed=0).learned_combination)
    train, test = np.arange(0, 18), np.arange(18, 24)
    K_train, K_test, _ = folds.fit_part(y, train, test)
    copy = pickle.loads(pickle.dumps(folds))
    assert not copy.shared["wl"]._grams  # the matrices are computed again where the copy runs
    # exact: the same computation
    np.testing.assert_array_equal(copy.fit_part(y, train, test)[0], K_train)


class LargestSizeScaled:
    """A transformer candidate that reads the graphs it is fitted on: exp(-|a - b| / m)
    of node counts, m the largest node count among the fitted graphs (a Laplacian
    kernel of one number: PSD, unit diagonal). Fitted on all graphs instead of a part,
    it would give other values."""

    def fit(self, graphs, y=None):
        self.sizes_ = np.array([G.number_of_nodes() for G in graphs], float)
        self.largest_ = self.sizes_.max()
        return self

    def transform(self, graphs):
        sizes = np.array([G.number_of_nodes() for G in graphs], float)
        return np.exp(-np.abs(np.subtract.outer(sizes, self.sizes_)) / self.largest_)


def degree_kernel(graphs_a, graphs_b):
    """A callable candidate: a Gaussian of the mean degree."""
    a = np.array([2 * G.number_of_edges() / G.number_of_nodes() for G in graphs_a])
    b = np.array([2 * G.number_of_edges() / G.number_of_nodes() for G in graphs_b])
    return np.exp(-np.subtract.outer(a, b) ** 2)


@pytest.mark.parametrize("max_samples", [None, 20])
def test_external_candidates_are_fitted_per_part(max_samples):
    """External kernels are fitted on each part's own graphs by their own code (as
    fit does), beside shared members: the matrices and weights of a fresh fit."""
    graphs, y = labelled_graphs(40)
    graphs[7].add_node(99, label=0)  # the largest graph, outside some parts
    options = {"seed": 0, "max_samples": max_samples, "selection": None, "combination": "align",
               "members": ("wl_label", "histogram", degree_kernel, LargestSizeScaled())}
    folds = LearnedFolds(graphs, gi.GraphKernel(**options).learned_combination)
    assert set(folds.shared) == {"wl_label", "histogram"}
    for train in (np.arange(0, 40, 3), np.arange(5, 40)):  # graph 7 outside the part, and in it
        test = np.setdiff1d(np.arange(40), train)
        K_train, K_test, combination = folds.fit_part(y, train, test)
        assert {"degree_kernel", "LargestSizeScaled"} <= set(combination.needed_members())
        assert combination.externals["LargestSizeScaled"].fitted_.largest_ == max(
            graphs[i].number_of_nodes() for i in train)
        ref_train, ref_test, reference = fresh_fit(graphs, y, train, test, **options)
        assert combination.weights == reference.weights
        # exact: the external kernels' own matrices, the shared members' slices, summed in the same order
        np.testing.assert_array_equal(K_train, ref_train)
        np.testing.assert_array_equal(K_test, ref_test)


def test_evaluate_estimator_with_an_external_candidate_gives_the_results_of_fresh_fits():
    graphs, y = labelled_graphs(32)
    options = {"seed": 0, "members": ("wl_label", degree_kernel, LargestSizeScaled())}
    shared = gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(**options), n_repeats=1, n_folds=4, seed=1)
    fresh = gi.evaluate_estimator(graphs, y, kernel=PerFoldGraphKernel(**options), n_repeats=1, n_folds=4, seed=1)
    # exact: the same matrices in every part, so the same fits
    np.testing.assert_array_equal(shared.accuracies, fresh.accuracies)
    np.testing.assert_array_equal(shared.chosen_C, fresh.chosen_C)


@pytest.mark.parametrize("name", ["MUTAG", pytest.param("ENZYMES", marks=pytest.mark.slow)])  # node and edge labels; node attributes
def test_the_digests_of_a_part_are_the_whole_collections_at_its_positions(tu_load, name):
    """Each part takes its graphs' digests (which order them canonically) from the
    whole collection's, computed once, instead of hashing its graphs again."""
    from graphinvariants.graphs import as_graph_batch
    from graphinvariants.kernels.learned._combination import canonical_ranks, graph_digests

    ds = tu_load(name)
    batch = as_graph_batch(ds)
    part = np.random.default_rng(0).permutation(len(batch))[: len(batch) // 2]
    digests = graph_digests(batch)
    assert len(set(digests.tolist())) > len(batch) // 2  # they tell the graphs apart
    # exact: the same bytes hashed
    np.testing.assert_array_equal(graph_digests(batch.take(part)), digests[part])
    folds = LearnedFolds(ds, gi.GraphKernel(seed=0).learned_combination)
    train = np.sort(part)
    _, _, combination = folds.fit_part(ds.y, train, np.setdiff1d(np.arange(len(batch)), train)[:5])
    np.testing.assert_array_equal(combination.ranks, canonical_ranks(batch.take(train), ds.y[train]))


def test_digests_given_to_begin_fit_must_be_one_per_graph():
    graphs, y = labelled_graphs(6)
    with pytest.raises(ValueError, match="one digest per graph"):
        LearnedCombination().begin_fit(graphs, y, digests=np.zeros(5, dtype="S16"))
