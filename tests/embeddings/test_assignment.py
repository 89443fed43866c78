"""Optimal-assignment kernels: equal to GraKeL's WL-OA, to explicit minimum sums and to
the optimal assignment itself, and tested like every other functional."""

from collections import Counter

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

import graphinvariants as gi
from graphinvariants.embeddings import (
    LabelledWalkHistogramOptimalAssignment,
    WalkHistogram,
    WalkHistogramOptimalAssignment,
    WeisfeilerLehman,
    WeisfeilerLehmanOptimalAssignment,
)
from graphinvariants.embeddings import assignment
from graphinvariants.embeddings.assignment import unary_code
from graphinvariants.kernels import paired_kernels, pairwise_kernels
from tests.conftest import renumbered

# ---------------------------------------------------------------------------------------
# brute force: every node's label at every level, from scratch with Python objects


def _wl_levels(G, n_iter, node_label):
    """For every node, its WL colours of rounds 0..n_iter as nested tuples."""
    colour = {v: (G.nodes[v][node_label] if node_label else G.degree(v)) for v in G}
    levels = {v: [colour[v]] for v in G}
    for _ in range(n_iter):
        colour = {v: (colour[v], tuple(sorted((colour[u] for u in G[v]), key=repr))) for v in G}
        for v in G:
            levels[v].append(colour[v])
    return levels


def _histogram_levels(G, k):
    """For every node, the prefixes (c_1), (c_1, c_2), ... of its walk counts."""
    nodes = list(G)
    A = nx.to_numpy_array(G, nodelist=nodes, weight=None).astype(np.int64)
    counts = np.stack([np.linalg.matrix_power(A, t).sum(axis=1) for t in range(1, k + 1)], axis=1)
    return {v: [tuple(counts[i, : t + 1].tolist()) for t in range(k)] for i, v in enumerate(nodes)}


def _labelled_levels(G, k):
    """For every node: own label, then (own label, walks ending at each label, t = 1..)."""
    nodes = list(G)
    A = nx.to_numpy_array(G, nodelist=nodes, weight=None).astype(np.int64)
    labels = sorted({G.nodes[v]["label"] for v in nodes})
    E = np.array([[G.nodes[v]["label"] == lab for lab in labels] for v in nodes], dtype=np.int64)
    out = {}
    for i, v in enumerate(nodes):
        prefix = (G.nodes[v]["label"],)
        out[v] = [prefix]
        for t in range(1, k + 1):
            row = (np.linalg.matrix_power(A, t) @ E)[i]
            prefix = prefix + (tuple((lab, c) for lab, c in zip(labels, row.tolist()) if c),)
            out[v].append(prefix)
    return out


def _intersection(levels_G, levels_H):
    """Explicit sum over levels and labels of min(count in G, count in H)."""
    total = 0
    for h in range(len(next(iter(levels_G.values())))):
        a = Counter(labels[h] for labels in levels_G.values())
        b = Counter(labels[h] for labels in levels_H.values())
        total += sum(min(a[key], b[key]) for key in a)
    return total


def _normalised(levels, i, j):
    return _intersection(levels[i], levels[j]) / np.sqrt(
        _intersection(levels[i], levels[i]) * _intersection(levels[j], levels[j])
    )


def _optimal_assignment(levels_G, levels_H):
    """Best one-to-one assignment of nodes (padded with dummies scoring 0) when two nodes
    score the number of levels at which their labels agree."""
    a, b = list(levels_G.values()), list(levels_H.values())
    n = max(len(a), len(b))
    score = np.zeros((n, n))
    for p, x in enumerate(a):
        for q, y in enumerate(b):
            score[p, q] = sum(s == t for s, t in zip(x, y))
    rows, cols = linear_sum_assignment(score, maximize=True)
    return score[rows, cols].sum()


def _labelled(G, rng, alphabet):
    nx.set_node_attributes(G, {v: str(rng.choice(list(alphabet))) for v in G}, "label")
    return G


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(7)
    out = [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in range(4, 19, 2)]
    out += [nx.path_graph(6), nx.star_graph(5), nx.cycle_graph(6), nx.empty_graph(3)]
    out.append(nx.disjoint_union(nx.path_graph(3), nx.empty_graph(2)))  # isolated nodes
    return [_labelled(G, rng, "CON") for G in out]


FUNCTIONALS = {
    "wloa-degree": (WeisfeilerLehmanOptimalAssignment(n_iter=3), lambda G: _wl_levels(G, 3, None)),
    "wloa-label": (WeisfeilerLehmanOptimalAssignment(n_iter=3, node_label="label"), lambda G: _wl_levels(G, 3, "label")),
    "histogram_oa": (WalkHistogramOptimalAssignment(k=4), lambda G: _histogram_levels(G, 4)),
    "labelled_histogram_oa": (LabelledWalkHistogramOptimalAssignment(k=3), lambda G: _labelled_levels(G, 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_equals_explicit_minimum_sums_and_the_optimal_assignment(graphs, name):
    functional, levels_of = FUNCTIONALS[name]
    K = pairwise_kernels(graphs, functional=functional)
    levels = [levels_of(G) for G in graphs]
    for i in range(len(graphs)):
        for j in range(len(graphs)):
            assert K[i, j] == pytest.approx(_normalised(levels, i, j), rel=1e-14)
    # the hierarchy makes the intersection an optimal assignment (Kriege et al., Thm. 1)
    for i, j in [(0, 3), (2, 7), (5, 6), (8, 9), (4, 12), (1, 10)]:
        assert _intersection(levels[i], levels[j]) == _optimal_assignment(levels[i], levels[j])


@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_unit_diagonal_symmetric_psd_renumbering_and_libraries(graphs, rng, name):
    functional, _ = FUNCTIONALS[name]
    K = pairwise_kernels(graphs, functional=functional)
    assert np.all(np.isfinite(K)) and np.linalg.eigvalsh(K).min() > -1e-12
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    again = [renumbered(G, rng) for G in graphs]  # labels carried over
    np.testing.assert_array_equal(paired_kernels(graphs, again, functional=functional), 1.0)
    np.testing.assert_array_equal(pairwise_kernels(again, functional=functional), K)
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=functional), K)


@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_cross_matrices_are_blocks_of_the_gram_matrix(graphs, name):
    functional, _ = FUNCTIONALS[name]
    K = pairwise_kernels(graphs, functional=functional)
    # every value is an exact integer over the same square root: equal to the last bit
    np.testing.assert_array_equal(pairwise_kernels(graphs[:5], graphs[5:], functional=functional), K[:5, 5:])
    np.testing.assert_array_equal(pairwise_kernels(graphs[1::2], graphs[::2], functional=functional), K[1::2, ::2])
    np.testing.assert_array_equal(paired_kernels(graphs[:6], graphs[6:12], functional=functional), np.diag(K[:6, 6:12]))


def test_dense_and_sparse_blocks_give_the_same_integers(graphs, monkeypatch):
    functional = WeisfeilerLehmanOptimalAssignment(n_iter=2)
    values = []
    for share in (-1.0, 0.0, 0.5, 2.0):  # everything dense .. everything sparse
        monkeypatch.setattr(assignment, "DENSE_SHARE", share)
        values.append(pairwise_kernels(graphs, graphs[3:], functional=functional))
        values.append(paired_kernels(graphs, graphs[::-1], functional=functional))
    for a, b in zip(values[2:], values[:-2]):
        np.testing.assert_array_equal(a, b)


def test_unary_code_is_the_intersection_inner_product():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 5, size=(7, 6)) * (rng.random((7, 6)) < 0.6)
    unary = unary_code(sp.csr_array(counts.astype(np.float64)), counts.max(axis=0) + 1)  # widths may exceed counts
    assert set(unary.data.tolist()) == {1.0} and unary.shape == (7, int((counts.max(axis=0) + 1).sum()))
    expected = np.minimum(counts[:, None, :], counts[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal((unary @ unary.T).toarray(), expected)
    assert unary_code(sp.csr_array((3, 4)), np.zeros(4, np.int64)).shape == (3, 0)


def test_explicit_features_give_the_gram_matrix(graphs):
    functional = WalkHistogramOptimalAssignment(k=3)
    features = functional.features(functional.as_embeddings(graphs))
    K = pairwise_kernels(graphs, functional=functional)
    # unit-norm rows: a sum of up to 60 rounded terms against the kernel's one division
    np.testing.assert_allclose((features @ features.T).toarray(), K, rtol=0, atol=1e-14)


def test_takes_the_count_functionals_embeddings_as_precomputed(graphs):
    embedded = WeisfeilerLehman(n_iter=3, node_label="label").as_embeddings(graphs)
    functional = WeisfeilerLehmanOptimalAssignment(n_iter=3, node_label="label")
    expected = pairwise_kernels(graphs, functional=functional)
    # exact: the same WL embedding either way, compared by the same operations in the same order
    np.testing.assert_array_equal(pairwise_kernels(embedded, functional=functional), expected)
    with pytest.raises(ValueError, match="n_iter=3, but n_iter=2"):
        pairwise_kernels(embedded, functional=WeisfeilerLehmanOptimalAssignment(n_iter=2, node_label="label"))
    histograms = WalkHistogram(k=3).as_embeddings(graphs)
    with pytest.raises(ValueError, match="k=3, but k=4"):
        pairwise_kernels(histograms, functional=WalkHistogramOptimalAssignment(k=4))


def test_graph_kernel_transforms_against_the_training_graphs(graphs):
    model = gi.GraphKernel(kernel="wloa", n_iter=2, node_label="label")
    train, test = graphs[::2], graphs[1::2]
    K = gi.kernel_matrix(graphs, kernel="wloa", n_iter=2, node_label="label")
    np.testing.assert_array_equal(model.fit_transform(train), K[::2, ::2])
    np.testing.assert_array_equal(model.transform(test), K[1::2, ::2])


def test_kernel_names_and_errors(graphs):
    K = gi.kernel_matrix(graphs, kernel="wloa", n_iter=3, node_label="label")
    np.testing.assert_array_equal(K, pairwise_kernels(graphs, functional=FUNCTIONALS["wloa-label"][0]))
    product = gi.kernel_matrix(graphs, kernel="power*wloa", k=4, n_iter=3)
    power = gi.kernel_matrix(graphs, kernel="power", k=4)
    np.testing.assert_allclose(product, power * gi.kernel_matrix(graphs, kernel="wloa", n_iter=3), rtol=1e-14)
    assert set(gi.KERNELS) >= {"wloa", "histogram_oa", "labelled_histogram_oa"}
    with pytest.raises(ValueError, match="no attribute 'label'"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="wloa", node_label="label")
    with pytest.raises(ValueError, match="no attribute 'label'"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="labelled_histogram_oa")
    with pytest.raises(ValueError, match="n_iter"):
        WeisfeilerLehmanOptimalAssignment(n_iter=-1)
    with pytest.raises(ValueError, match="k"):
        WalkHistogramOptimalAssignment(k=0)


# ---------------------------------------------------------------------------------------
# GraKeL's WeisfeilerLehmanOptimalAssignment


def _grakel_graphs(graphs, labels):
    """GraKeL graphs from an edge dictionary listing every node (GraKeL leaves nodes
    that are not keys of the edge dictionary, such as isolated nodes of an edge list,
    out of every round)."""
    from grakel import Graph

    out = []
    for G in graphs:
        node_labels = {v: (G.degree(v) if labels == "degree" else G.nodes[v]["label"]) for v in G}
        out.append(Graph({v: {u: 1 for u in G[v]} for v in G}, node_labels=node_labels))
    return out


def _grakel_wloa(n_iter):
    grakel = pytest.importorskip("grakel", reason="GraKeL is the [baselines] extra; CI installs it")
    return grakel.WeisfeilerLehmanOptimalAssignment(n_iter=n_iter, normalize=True)


@pytest.mark.parametrize("labels", ["node", "degree"])
@pytest.mark.parametrize("n_iter", [1, 5])
def test_equal_to_grakel_on_mutag(tu_datasets, labels, n_iter):
    reference = _grakel_wloa(n_iter)
    ds = tu_datasets["MUTAG"]
    with np.errstate(all="ignore"):
        expected = reference.fit_transform(_grakel_graphs(ds, labels))
    K = gi.kernel_matrix(ds, kernel="wloa", n_iter=n_iter, node_label="label" if labels == "node" else None)
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("labels", ["node", "degree"])
def test_equal_to_grakel_on_enzymes(tu_datasets, labels):
    reference = _grakel_wloa(5)
    ds = tu_datasets["ENZYMES"]
    # 150 graphs (GraKeL's whole Gram matrix takes half a minute), with every graph
    # that has isolated nodes among them
    isolated = [g for g, G in enumerate(ds) if min(dict(G.degree).values()) == 0]
    index = np.union1d(np.arange(0, 600, 600 // (150 - len(isolated)))[: 150 - len(isolated)], isolated)
    subset = ds[index]
    with np.errstate(all="ignore"):
        expected = reference.fit_transform(_grakel_graphs(subset, labels))
    K = gi.kernel_matrix(subset, kernel="wloa", node_label="label" if labels == "node" else None)
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12)


def test_cross_matrix_equal_to_grakels_transform(tu_datasets):
    reference = _grakel_wloa(3)
    ds = tu_datasets["MUTAG"]
    train, test = ds[:120], ds[120:]
    with np.errstate(all="ignore"):
        reference.fit(_grakel_graphs(train, "node"))
        expected = reference.transform(_grakel_graphs(test, "node"))
    K = gi.kernel_matrix(test, train, kernel="wloa", n_iter=3, node_label="label")
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12)
