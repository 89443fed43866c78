"""Strongly regular graphs of the expressiveness suite, and who separates them."""

from itertools import combinations

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import srg25_graphs, strongly_regular_pair


def srg_parameters(G):
    """(n, k, lambda, mu) if G is strongly regular, else None (from A^2, brute force)."""
    A = nx.to_numpy_array(G, dtype=np.int64)
    n = len(A)
    degrees = set(A.sum(axis=1).tolist())
    if len(degrees) != 1:
        return None
    A2 = A @ A
    off = ~np.eye(n, dtype=bool)
    lam, mu = set(A2[(A == 1)].tolist()), set(A2[(A == 0) & off].tolist())
    if len(lam) != 1 or len(mu) != 1:
        return None
    return n, degrees.pop(), lam.pop(), mu.pop()


def test_srg25_graphs_are_srg_25_12_5_6_and_pairwise_non_isomorphic():
    graphs = srg25_graphs()
    assert len(graphs) == 15
    assert all(sorted(G) == list(range(25)) for G in graphs)
    assert all(srg_parameters(G) == (25, 12, 5, 6) for G in graphs)
    # Two independent isomorphism tests (BLISS and VF2, both in igraph; NetworkX's VF2
    # takes about 20 s for the 105 pairs).
    copies = [ig.Graph(25, list(G.edges())) for G in graphs]
    assert not any(a.isomorphic(b) for a, b in combinations(copies, 2))
    assert not any(a.isomorphic_vf2(b) for a, b in combinations(copies, 2))
    shrikhande, rook = strongly_regular_pair()
    assert srg_parameters(shrikhande) == srg_parameters(rook) == (16, 6, 2, 2)


def confused(K):
    return int(np.count_nonzero(np.triu(K >= 1 - 1e-12, 1)))


@pytest.mark.parametrize("kernel", ["rooted_subgraph:radius=1", "rooted_subgraph"])
def test_rooted_subgraphs_separate_every_strongly_regular_pair(kernel):
    graphs = srg25_graphs()
    assert len(graphs) * (len(graphs) - 1) // 2 == 105
    assert confused(gi.kernel_matrix(graphs, kernel=kernel)) == 0
    shrikhande, rook = strongly_regular_pair()
    assert gi.kernel_matrix([shrikhande], [rook], kernel=kernel)[0, 0] < 1 - 1e-12


@pytest.mark.parametrize("kernel", ["wl", "histogram", "closed_histogram", "wl_closed"])
def test_walk_and_wl_members_confuse_them_all(kernel):
    """Their documented limit: equal walk counts at every node."""
    graphs = srg25_graphs()
    assert confused(gi.kernel_matrix(graphs, kernel=kernel)) == 105
    shrikhande, rook = strongly_regular_pair()
    assert gi.kernel_matrix([shrikhande], [rook], kernel=kernel)[0, 0] >= 1 - 1e-12
