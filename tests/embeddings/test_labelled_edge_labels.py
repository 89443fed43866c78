"""Labelled walk histograms with walks typed by their bonds, against dense matrix powers."""

import igraph as ig
import networkx as nx
import numpy as np
import pytest

from tests.conftest import cosine_of_counts, renumbered as renumbered_graph
from graphinvariants.embeddings import LabelledWalkHistogram
from graphinvariants.kernels import paired_kernels, pairwise_kernels


def _brute_force(graphs, k):
    """Cosine of prefix counts; a node's round-t entry is the tuple of (A_e C_{t-1}) rows."""
    atoms = sorted({G.nodes[v]["label"] for G in graphs for v in G})
    bonds = sorted({b for G in graphs for _, _, b in G.edges(data="bond")})
    counts = [dict() for _ in graphs]
    for g, G in enumerate(graphs):
        nodes = list(G)
        E = np.array([[G.nodes[v]["label"] == a for a in atoms] for v in nodes], dtype=np.int64)
        A = {b: nx.to_numpy_array(G, nodelist=nodes, weight=None, dtype=np.int64) * 0 for b in bonds}
        for u, v, b in G.edges(data="bond"):
            i, j = nodes.index(u), nodes.index(v)
            A[b][i, j] = A[b][j, i] = 1
        C, prefix = E, [(G.nodes[v]["label"],) for v in nodes]
        for t in range(k + 1):
            for i in range(len(nodes)):
                counts[g][tuple(prefix[i])] = counts[g].get(tuple(prefix[i]), 0) + 1
            typed = [A[b] @ C for b in bonds]
            prefix = [prefix[i] + (tuple(tuple(T[i]) for T in typed),) for i in range(len(nodes))]
            C = sum(typed)
    return cosine_of_counts(counts)


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(11)
    out = [nx.gnp_random_graph(int(n), 0.25, seed=int(n)) for n in range(4, 20, 3)]
    out += [nx.cycle_graph(6), nx.cycle_graph(6), nx.empty_graph(3)]
    for G in out:
        for u, v in G.edges:
            G.edges[u, v]["bond"] = "sdt"[int(rng.integers(3))]
        for v in G:
            G.nodes[v]["label"] = int(rng.integers(3))
    for G in out[6:8]:  # two hexagons of one atom type that differ by one bond only
        nx.set_edge_attributes(G, "s", "bond")
        nx.set_node_attributes(G, 0, "label")
    out[7].edges[0, 1]["bond"] = "d"
    return out


@pytest.mark.parametrize("k", [1, 3])
def test_equal_to_dense_matrix_products(graphs, k):
    K = pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=k, edge_label="bond"))
    # cosine of integer counts, computed along two float paths
    np.testing.assert_allclose(K, _brute_force(graphs, k), rtol=0, atol=1e-12)
    assert K[6, 7] < 1.0
    assert pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=k))[6, 7] == 1.0


def test_theorems_renumbering_libraries_and_separate_batches(graphs, rng):
    functional = LabelledWalkHistogram(k=3, edge_label="bond")
    K = pairwise_kernels(graphs, functional=functional)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-12
    renumbered = [renumbered_graph(G, rng) for G in graphs]
    np.testing.assert_array_equal(paired_kernels(graphs, renumbered, functional=functional), 1.0)
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=functional), K)
    np.testing.assert_array_equal(pairwise_kernels(graphs[:4], graphs[4:], functional=functional), K[:4, 4:])
    renamed = []
    for G in graphs:
        H = G.copy()
        nx.set_edge_attributes(H, {e: {"s": 3, "d": 1, "t": 2}[b] for e, b in nx.get_edge_attributes(G, "bond").items()}, "bond")
        renamed.append(H)
    np.testing.assert_array_equal(pairwise_kernels(renamed, functional=functional), K)
    extra = graphs[2].copy()
    nx.set_edge_attributes(extra, "aromatic", "bond")  # a bond type one side lacks
    np.testing.assert_array_equal(pairwise_kernels(graphs + [extra], functional=functional)[:-1, -1],
                                  pairwise_kernels(graphs, [extra], functional=functional)[:, 0])


def test_mutag_bond_types(tu_datasets):
    ds = tu_datasets["MUTAG"][:50]
    K = pairwise_kernels(ds, functional=LabelledWalkHistogram(k=2, edge_label="label"))
    graphs = list(ds)
    for G in graphs:
        nx.set_edge_attributes(G, nx.get_edge_attributes(G, "label"), "bond")
    np.testing.assert_allclose(K, _brute_force(graphs, 2), rtol=0, atol=1e-12)


def test_errors_name_the_problem(graphs):
    with pytest.raises(ValueError, match="edge"):
        pairwise_kernels([G.copy() for G in graphs[:2]], functional=LabelledWalkHistogram(k=2, edge_label="nothing"))
    with pytest.raises(TypeError, match="edge_label"):
        LabelledWalkHistogram(edge_label=1)
    typed = LabelledWalkHistogram(k=2, edge_label="bond").as_embeddings(graphs)
    with pytest.raises(ValueError, match="edge_label=.bond., but edge_label=None"):
        pairwise_kernels(typed, functional=LabelledWalkHistogram(k=2))
