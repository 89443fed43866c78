"""The learned default's fitted state, graphinvariants/kernels/learned/_combination.py:
the weights form a convex combination, the training matrix is a kernel matrix, the fit
does not depend on the order of the graphs, and a pickle keeps every bit.

The estimator's contract (GraphKernel with kernel="learned") is tested in
tests/test_estimator.py, the alignment in test_alignment.py, the blocks in
test_blockwise.py, the folds in test_folds.py; here the class itself, on graphs small
enough to fit in a fraction of a second.
"""

import pickle

import networkx as nx
import numpy as np
import pytest

from graphinvariants.graphs import as_graph_batch
from graphinvariants.kernels.learned import CANDIDATES, LearnedCombination, canonical_ranks, graph_digests

from ...conftest import labelled


def _graphs():
    """Cycles with a pendant node (class 1) and paths (class 0), node and edge labelled."""
    graphs, y = [], []
    for i in range(20):
        G = nx.cycle_graph(5 + i % 4) if i % 2 else nx.path_graph(5 + i % 4)
        G.add_edge(0, len(G))
        graphs.append(labelled(G, i))
        y.append(i % 2)
    return graphs, np.array(y)


@pytest.fixture(scope="module")
def data():
    return _graphs()


@pytest.fixture(scope="module")
def fitted(data):
    graphs, y = data
    return LearnedCombination(seed=0).fit(graphs, y)


def test_the_weights_are_a_convex_combination_of_the_candidates(fitted):
    weights = np.array(list(fitted.weights.values()))
    assert (weights >= 0).all()
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    chosen = fitted.chosen
    assert chosen and all(w > 0 for _, _, _, w in chosen)
    assert sum(w for _, _, _, w in chosen) == pytest.approx(1.0, abs=1e-12)
    assert fitted.members_used == [label for label, _, _, _ in chosen]
    # the members read are those of the chosen candidates, in the order of CANDIDATES
    needed = fitted.needed_members()
    assert set(needed) == {part for _, parts, _, _ in chosen for part in parts}
    order = list(CANDIDATES)
    assert needed == sorted(needed, key=order.index)


def test_the_training_matrix_is_a_kernel_matrix(fitted, data):
    graphs, _ = data
    K = fitted.gram()
    assert K.shape == (len(graphs), len(graphs))
    # exact by construction: the blocks are symmetrised pair by pair and the diagonal of
    # every candidate is 1, the weights summing to 1
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=0, atol=1e-12)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    # the training graphs as new graphs: the same values, before the symmetrisation
    np.testing.assert_allclose(fitted.cross(graphs), K, rtol=0, atol=1e-12)


def test_a_candidate_s_term_keeps_a_unit_diagonal_in_every_shape(fitted, data):
    graphs, _ = data
    grams = {name: _member_gram(fitted, name) for name in fitted.needed_members()}
    total = np.zeros((len(graphs), len(graphs)))
    for _, parts, shape, w in fitted.chosen:
        term = fitted.term(grams, parts, shape)
        np.testing.assert_allclose(np.diag(term), 1.0, rtol=0, atol=1e-12)
        assert term.min() >= -1e-12 and term.max() <= 1 + 1e-12
        total += w * term
    # the weighted sum of the terms is combine(), up to the order of the additions
    np.testing.assert_allclose(fitted.combine(grams), total, rtol=0, atol=1e-12)


def _member_gram(fitted, name):
    from graphinvariants.kernels import pairwise_kernels

    return pairwise_kernels(fitted.embeddings[name], functional=fitted.functionals[name])


def test_label_members_need_labels_on_every_graph(data):
    graphs, y = data
    with_labels = LearnedCombination(seed=0).fit(graphs, y)
    assert "wl_label" in with_labels.functionals and "wl_edge_label" in with_labels.functionals
    without = LearnedCombination(node_label=None, seed=0).fit(graphs, y)
    assert not any(name.endswith("label") for name in without.functionals)
    assert not any("label" in part for _, parts, _, _ in without.chosen for part in parts)
    with pytest.raises(TypeError, match="node_label must be None or an attribute name"):
        LearnedCombination(node_label=3)


def test_the_fit_does_not_depend_on_the_order_of_the_graphs(fitted, data):
    graphs, y = data
    order = np.random.default_rng(0).permutation(len(graphs))
    again = LearnedCombination(seed=0).fit([graphs[i] for i in order], y[order])
    assert again.weights == fitted.weights
    np.testing.assert_array_equal(again.gram(), fitted.gram()[np.ix_(order, order)])


def test_canonical_ranks_order_by_what_a_graph_stores_then_by_label():
    graphs = [nx.path_graph(3), nx.cycle_graph(4), nx.path_graph(3), nx.star_graph(3)]
    batch = as_graph_batch(graphs)
    digests = graph_digests(batch)
    assert digests.dtype == np.dtype("S16") and digests[0] == digests[2] and len(set(digests.tolist())) == 3
    # a part's digests are the whole batch's at its positions
    np.testing.assert_array_equal(graph_digests(batch.take([3, 0])), digests[[3, 0]])
    ranks = canonical_ranks(batch, [1, 0, 0, 0])
    assert sorted(ranks.tolist()) == [0, 1, 2, 3]
    assert ranks[2] + 1 == ranks[0]  # the same graph: the smaller label first, next to each other
    # a graph's digest does not depend on the other graphs of its batch
    assert (graph_digests(as_graph_batch([nx.path_graph(3)])) == digests[0]).all()


def test_summary_repr_and_pickle(fitted, data):
    graphs, _ = data
    n = len(fitted.chosen)
    labels = [label for label, _, _, _ in fitted.chosen]
    text = fitted.summary()
    assert all(label in text for label in labels) and text.count(",") == n - 1
    if n > 1:
        assert fitted.summary(n_shown=1).endswith(f", and {n - 1} more")
    assert repr(fitted).startswith(f"<LearnedCombination of {n} of {len(fitted.weights)} candidates, fitted on "
                                   f"{len(graphs)} graphs: ")
    assert repr(LearnedCombination()).startswith("<LearnedCombination, not fitted:")
    copy = pickle.loads(pickle.dumps(fitted))
    assert copy._train_grams is None  # computed again on demand: small pickles
    np.testing.assert_array_equal(copy.gram(), fitted.gram())
    np.testing.assert_array_equal(copy.cross(graphs[:5]), fitted.cross(graphs[:5]))
