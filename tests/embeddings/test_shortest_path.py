"""The shortest-path kernel: brute force by NetworkX, equal to GraKeL's, and the usual theorems."""

from collections import Counter

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings import ShortestPath
from graphinvariants.embeddings import shortest_path as sp_module
from graphinvariants.kernels import paired_kernels, pairwise_kernels
from tests.conftest import cosine_of_counts, renumbered


def brute_force_features(G, node_label=None, edge_label=None):
    """Counter of (label(u), label(v), d, bond of (u, v) if adjacent) over ordered pairs
    u != v with a path u -> v (NetworkX's all-pairs shortest path lengths)."""
    counts = Counter()
    for u, lengths in nx.all_pairs_shortest_path_length(G):
        for v, d in lengths.items():
            if u == v:
                continue
            lu = G.nodes[u][node_label] if node_label else None
            lv = G.nodes[v][node_label] if node_label else None
            bond = G.edges[u, v][edge_label] if edge_label and d == 1 else None
            counts[(lu, lv, d, bond)] += 1
    return counts or Counter({"no pair": 1})


def labelled(G, seed, n_labels=3, n_bonds=2):
    rng = np.random.default_rng(seed)
    H = G.copy()
    for v in H:
        H.nodes[v]["label"] = int(rng.integers(n_labels))
    for u, v in H.edges:
        H.edges[u, v]["bond"] = int(rng.integers(n_bonds))
    return H


@pytest.fixture(scope="module")
def graphs():
    out = [nx.gnp_random_graph(int(n), 0.12, seed=int(n)) for n in range(6, 30, 3)]  # several disconnected
    out += [nx.path_graph(6), nx.star_graph(5), nx.cycle_graph(6), nx.empty_graph(4), nx.empty_graph(1),
            nx.disjoint_union(nx.path_graph(3), nx.cycle_graph(5))]
    return [labelled(G, seed) for seed, G in enumerate(out)]


@pytest.mark.parametrize("node_label, edge_label", [(None, None), ("label", None), (None, "bond"), ("label", "bond")])
def test_equal_to_brute_force(graphs, node_label, edge_label):
    assert not all(nx.is_connected(G) for G in graphs)
    K = gi.kernel_matrix(graphs, kernel="shortest_path", node_label=node_label, edge_label=edge_label)
    expected = cosine_of_counts([brute_force_features(G, node_label, edge_label) for G in graphs])
    # rtol: the same integer dots, divided by square roots taken in another order
    np.testing.assert_allclose(K, expected, rtol=1e-14, atol=1e-15)


def test_directed_distances_follow_edges():
    cycle, path = nx.DiGraph(nx.cycle_graph(4, create_using=nx.DiGraph)), nx.path_graph(4, create_using=nx.DiGraph)
    graphs = [cycle, path, nx.path_graph(4)]
    K = gi.kernel_matrix(graphs, kernel="shortest_path")
    expected = cosine_of_counts([brute_force_features(G) for G in graphs])
    np.testing.assert_allclose(K, expected, rtol=1e-14, atol=1e-15)
    assert brute_force_features(path) == Counter({(None, None, 1, None): 3, (None, None, 2, None): 2,
                                                 (None, None, 3, None): 1})


def test_directed_both_ways_with_other_edge_labels():
    # both directions stored, but with different labels: read as ordered pairs, not folded
    G = nx.DiGraph()
    G.add_edges_from([(0, 1, {"bond": 1}), (1, 0, {"bond": 2}), (1, 2, {"bond": 1}), (2, 1, {"bond": 1})])
    nx.set_node_attributes(G, {0: "a", 1: "b", 2: "a"}, "label")
    H = nx.DiGraph(G)
    H.edges[1, 0]["bond"] = 1
    graphs = [G, H, nx.Graph(H)]
    K = gi.kernel_matrix(graphs, kernel="shortest_path", node_label="label", edge_label="bond")
    expected = cosine_of_counts([brute_force_features(X, "label", "bond") for X in graphs])
    np.testing.assert_allclose(K, expected, rtol=1e-14, atol=1e-15)
    assert K[0, 1] < 1 and K[1, 2] == 1.0  # exact: equal integer counts


def test_graphs_without_pairs_are_alike_and_unlike_the_others():
    graphs = [nx.empty_graph(1), nx.empty_graph(5), nx.path_graph(2), nx.path_graph(3)]
    K = gi.kernel_matrix(graphs, kernel="shortest_path")
    np.testing.assert_array_equal(K[:2, :2], 1.0)
    np.testing.assert_array_equal(K[:2, 2:], 0.0)
    cross = gi.kernel_matrix(graphs[:1], graphs[1:], kernel="shortest_path")
    np.testing.assert_array_equal(cross, [[1.0, 0.0, 0.0]])


def test_unit_diagonal_symmetric_psd_renumbering_and_libraries(graphs, rng):
    functional = ShortestPath(node_label="label", edge_label="bond")
    K = pairwise_kernels(graphs, functional=functional)
    assert np.all(np.isfinite(K)) and np.linalg.eigvalsh(K).min() > -1e-12
    # exact: the counts are integers, so dots and norms are exact whatever the node order or library
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    moved = [renumbered(G, rng) for G in graphs]
    assert any(list(H) != list(G) for G, H in zip(graphs, moved))
    np.testing.assert_array_equal(paired_kernels(graphs, moved, functional=functional), 1.0)
    np.testing.assert_array_equal(pairwise_kernels(moved, functional=functional), K)
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs],
                                                   functional=functional), K)


def test_separately_embedded_collections_share_one_vocabulary(graphs):
    for params in ({}, {"node_label": "label", "edge_label": "bond"}):
        full = gi.kernel_matrix(graphs, kernel="shortest_path", **params)
        cross = gi.kernel_matrix(graphs[::2], graphs[1::2], kernel="shortest_path", **params)
        # the same integer dots and norms: equal to the last bit
        np.testing.assert_array_equal(cross, full[::2, 1::2])


def test_large_graph_swept_in_blocks_of_sources_and_unpacked_rows(monkeypatch, graphs):
    expected = gi.kernel_matrix(graphs, kernel="shortest_path", node_label="label")
    monkeypatch.setattr(sp_module, "DISTANCE_ENTRIES", 20)  # a few sources at a time, groups of one graph
    monkeypatch.setattr(sp_module, "GROUP_NODES", 1)
    np.testing.assert_array_equal(gi.kernel_matrix(graphs, kernel="shortest_path", node_label="label"), expected)
    monkeypatch.setattr(sp_module, "PACKED_KEYS", 0.0)  # rows counted by lexsort, not packed keys
    np.testing.assert_array_equal(gi.kernel_matrix(graphs, kernel="shortest_path", node_label="label"), expected)
    labelled_bonds = gi.kernel_matrix(graphs, kernel="shortest_path", node_label="label", edge_label="bond")
    expected = cosine_of_counts([brute_force_features(G, "label", "bond") for G in graphs])
    np.testing.assert_allclose(labelled_bonds, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("params", [{}, {"node_label": "label", "edge_label": "bond"}])
def test_compiled_search_equals_scipy(monkeypatch, graphs, params):
    pytest.importorskip("numba", reason="numba is the [fast] extra; CI installs it")
    directed = [nx.DiGraph(nx.gnp_random_graph(12, 0.2, seed=s, directed=True)) for s in range(3)]
    for G in directed:
        nx.set_node_attributes(G, 0, "label")
        nx.set_edge_attributes(G, 1, "bond")
    for collection in (graphs, directed):
        monkeypatch.setattr(sp_module, "COMPILED_PAIRS", float("inf"))
        expected = gi.kernel_matrix(collection, kernel="shortest_path", **params)
        monkeypatch.setattr(sp_module, "COMPILED_PAIRS", 0)
        # exact: the same integer distances, so the same counts
        np.testing.assert_array_equal(gi.kernel_matrix(collection, kernel="shortest_path", **params), expected)
        monkeypatch.setattr(sp_module, "DISTANCE_ENTRIES", 100)  # graphs above 100 pairs: scipy, in blocks
        np.testing.assert_array_equal(gi.kernel_matrix(collection, kernel="shortest_path", **params), expected)
        monkeypatch.undo()


def test_errors():
    with pytest.raises(TypeError, match="node_label must be None or an attribute name"):
        ShortestPath(node_label=1)
    with pytest.raises(ValueError, match="no attribute 'label'"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="shortest_path", node_label="label")
    unlabelled = ShortestPath().as_embeddings([nx.path_graph(3)])
    with pytest.raises(ValueError, match="node_label"):
        pairwise_kernels([labelled(nx.path_graph(3), 0)], unlabelled, functional=ShortestPath(node_label="label"))


def test_equal_to_grakel_on_mutag(tu_datasets):
    grakel = pytest.importorskip("grakel", reason="GraKeL is the [baselines] extra; CI installs it")
    ds = tu_datasets["MUTAG"]
    graphs = [grakel.Graph({v: {u: 1 for u in G[v]} for v in G}, node_labels={v: G.nodes[v]["label"] for v in G})
              for G in ds]
    with np.errstate(all="ignore"):
        labelled_ = grakel.ShortestPath(with_labels=True, normalize=True).fit_transform(graphs)
        plain = grakel.ShortestPath(with_labels=False, normalize=True).fit_transform(graphs)
    np.testing.assert_allclose(gi.kernel_matrix(ds, kernel="shortest_path", node_label="label"), labelled_,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(gi.kernel_matrix(ds, kernel="shortest_path"), plain, rtol=0, atol=1e-12)
