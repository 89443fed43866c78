"""Weisfeiler-Lehman with neighbourhoods typed by edge labels, against a plain Python refinement."""

import networkx as nx
import numpy as np
import pytest

from tests.conftest import assert_gram_theorems, cosine_of_counts
from graphinvariants.embeddings import WeisfeilerLehman
from graphinvariants.kernels import pairwise_kernels


def _brute_force(graphs, n_iter, node_label):
    """Cosine of the label counts of the edge-typed refinement, colours as nested tuples."""
    counts = [dict() for _ in graphs]
    for g, G in enumerate(graphs):
        colour = {v: ("start", G.nodes[v][node_label] if node_label else G.degree(v)) for v in G}
        for h in range(n_iter + 1):
            for v in G:
                counts[g][(h, colour[v])] = counts[g].get((h, colour[v]), 0) + 1
            colour = {v: (colour[v], tuple(sorted((G.edges[v, u]["bond"], colour[u]) for u in G[v]))) for v in G}
    return cosine_of_counts(counts)


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(5)
    out = [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in range(5, 26, 4)]
    out += [nx.cycle_graph(6), nx.cycle_graph(6), nx.star_graph(4), nx.empty_graph(3)]
    for G in out:
        for u, v in G.edges:
            G.edges[u, v]["bond"] = int(rng.integers(3))
        for v in G:
            G.nodes[v]["atom"] = "CNO"[int(rng.integers(3))]
    for G in out[6:8]:  # two hexagons of carbons that differ by one bond only
        nx.set_edge_attributes(G, 0, "bond")
        nx.set_node_attributes(G, "C", "atom")
    out[7].edges[0, 1]["bond"] = 1
    return out


@pytest.mark.parametrize("node_label", [None, "atom"])
@pytest.mark.parametrize("n_iter", [1, 3])
def test_equal_to_the_python_refinement(graphs, node_label, n_iter):
    K = pairwise_kernels(graphs, functional=WeisfeilerLehman(n_iter=n_iter, node_label=node_label, edge_label="bond"))
    # cosine of integer counts: the same quotient up to the rounding of two float paths
    np.testing.assert_allclose(K, _brute_force(graphs, n_iter, node_label), rtol=0, atol=1e-12)
    assert K[6, 7] < 1.0  # the bond types are seen
    untyped = pairwise_kernels(graphs, functional=WeisfeilerLehman(n_iter=n_iter, node_label=node_label))
    assert untyped[6, 7] == 1.0


def test_theorems_renumbering_libraries_and_edge_label_renaming(graphs, rng):
    functional = WeisfeilerLehman(n_iter=3, node_label="atom", edge_label="bond")
    K, renumbered = assert_gram_theorems(graphs, functional, rng)
    np.testing.assert_array_equal(pairwise_kernels(renumbered, functional=functional), K)
    renamed = []
    for G in graphs:
        H = G.copy()
        for u, v in H.edges:
            H.edges[u, v]["bond"] = ["single", "double", "triple", "aromatic", "x", "y", "z", "other"][G.edges[u, v]["bond"]][::-1]
        renamed.append(H)
    np.testing.assert_array_equal(pairwise_kernels(renamed, functional=functional), K)


def test_separately_embedded_collections_share_one_vocabulary(graphs):
    functional = WeisfeilerLehman(n_iter=3, edge_label="bond")
    whole = pairwise_kernels(graphs, functional=functional)
    left, right = graphs[:5], graphs[5:]
    np.testing.assert_array_equal(pairwise_kernels(left, right, functional=functional), whole[:5, 5:])
    # a bond type one side lacks
    extra = graphs[1].copy()
    u, v = next(iter(extra.edges))
    extra.edges[u, v]["bond"] = 9
    np.testing.assert_array_equal(pairwise_kernels(graphs + [extra], functional=functional)[:-1, -1],
                                  pairwise_kernels(graphs, [extra], functional=functional)[:, 0])


def test_mutag_bond_types(tu_datasets):
    ds = tu_datasets["MUTAG"][:60]
    typed = pairwise_kernels(ds, functional=WeisfeilerLehman(n_iter=2, node_label="label", edge_label="label"))
    graphs = list(ds)
    for G in graphs:
        nx.set_edge_attributes(G, nx.get_edge_attributes(G, "label"), "bond")
    np.testing.assert_allclose(typed, _brute_force(graphs, 2, "label"), rtol=0, atol=1e-12)


def test_errors_name_the_problem(graphs):
    with pytest.raises(ValueError, match="edge"):
        pairwise_kernels([nx.path_graph(3), nx.path_graph(4)], functional=WeisfeilerLehman(edge_label="bond"))
    with pytest.raises(TypeError, match="edge_label"):
        WeisfeilerLehman(edge_label=3)
    typed = WeisfeilerLehman(n_iter=2, edge_label="bond").as_embeddings(graphs)
    with pytest.raises(ValueError, match="edge_label=.bond., but edge_label=None"):
        pairwise_kernels(typed, functional=WeisfeilerLehman(n_iter=2))
    with pytest.raises(ValueError, match="edge_label=None, but edge_label=.bond."):
        pairwise_kernels(WeisfeilerLehman(n_iter=2).as_embeddings(graphs), functional=WeisfeilerLehman(n_iter=2, edge_label="bond"))
