"""number_of_walks: NetworkX's dict of dicts of Python ints, and the declined walk lengths."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphinvariants.networkx_backend.algorithms.walks import number_of_walks, walk_overflow_reason
from graphinvariants.networkx_backend.graph import from_networkx
from graphinvariants.networkx_backend.interface import BackendInterface

from .conftest import attributed_graphs


@settings(max_examples=80, deadline=None)
@given(G=attributed_graphs(multigraph=True) | attributed_graphs(), k=st.integers(0, 7))
def test_walk_counts_are_networkx_ints(G, k):
    if len(G) == 0:
        with pytest.raises(nx.NetworkXError, match="no nodes or edges"):
            number_of_walks(from_networkx(G), k)
        return
    mine, theirs = number_of_walks(from_networkx(G), k), nx.number_of_walks(G, k)
    assert mine == theirs
    assert list(mine) == list(G) and all(list(mine[u]) == list(theirs[u]) for u in G)
    # NetworkX's types: Python ints, and floats for a graph without edges (its adjacency
    # matrix of no entries is float64)
    kinds = {type(c) for row in theirs.values() for c in row.values()}
    assert {type(c) for row in mine.values() for c in row.values()} == kinds
    assert kinds == ({float} if G.number_of_edges() == 0 else {int})


@pytest.mark.parametrize("graph", [nx.empty_graph(3), nx.empty_graph(1, create_using=nx.MultiDiGraph)])
@pytest.mark.parametrize("k", [0, 1, 4])
def test_a_graph_without_edges_gives_networkx_floats(graph, k):
    """Issue 52 item 6: ints where NetworkX returns floats."""
    mine, theirs = number_of_walks(from_networkx(graph), k), nx.number_of_walks(graph, k)
    assert mine == theirs
    assert [type(c) for row in mine.values() for c in row.values()] == [float] * len(graph) ** 2


def test_nodes_of_other_types_and_an_adjacency_in_another_order():
    """Issue 52 item 6: node ids equal to 0..n-1 of another type, and G._adj iterating in
    another order than G._node."""
    from .test_graph_hashing import _SortedAdjacency

    G = nx.relabel_nodes(nx.cycle_graph(4), {u: complex(u) for u in range(4)})
    G.add_edge(0j, complex(2))
    assert number_of_walks(from_networkx(G), 3) == nx.number_of_walks(G, 3)
    S = _SortedAdjacency([(12, 3), (3, 1), (1, 20), (20, 12), (3, 20)])
    mine, theirs = number_of_walks(from_networkx(S), 3), nx.number_of_walks(S, 3)
    assert mine == theirs and list(mine) == list(theirs) == list(S)


def test_against_brute_force_matrix_powers_in_python_ints():
    G = nx.gnp_random_graph(25, 0.3, seed=1, directed=True)
    G.add_edge(3, 3)
    A = nx.to_numpy_array(G, dtype=object, weight=None).astype(int).astype(object)
    P = np.identity(25, dtype=int).astype(object)
    for k in range(1, 9):
        P = P.dot(A)
        counts = number_of_walks(from_networkx(G), k)
        assert [[counts[u][v] for v in G] for u in G] == P.tolist()


def test_counts_above_2_53_take_the_exact_int64_path():
    G = nx.complete_graph(20)  # 19**13 > 2**53: float64 would round
    counts = number_of_walks(from_networkx(G), 13)
    assert counts == nx.number_of_walks(G, 13)
    assert counts[0][0] == (19**13 + 19 * (-1) ** 13) // 20  # closed walks of K_n, exactly


def test_declines_what_may_overflow_int64_and_only_that():
    K = nx.complete_graph(10)  # 9**20 > 2**63
    assert "2**63" in number_of_walks.can_run(K, 20)
    with pytest.raises(NotImplementedError, match="may reach 2"):
        number_of_walks(from_networkx(K), 20)
    assert number_of_walks.can_run(K, 18) is True  # 9**18 < 2**62
    assert BackendInterface.can_run("number_of_walks", (K, 20), {}) is True  # the function declines, with its reason
    # a star: the degree bound 100**15 is far above 2**63, the walks themselves are not
    S = nx.star_graph(100)
    assert walk_overflow_reason(S, 15) is None
    assert number_of_walks(from_networkx(S), 15) == nx.number_of_walks(S, 15)
    assert "not an int" in number_of_walks.can_run(S, 2.0)
    assert "above" in walk_overflow_reason(S, 20_000)
    C = nx.cycle_graph(5, create_using=nx.DiGraph)  # out-degrees 1: every count is 0 or 1
    assert walk_overflow_reason(C, 10**6) is None
    assert number_of_walks(from_networkx(C), 10**6 + 2) == nx.number_of_walks(C, 10**6 + 2)
    with pytest.raises(ValueError, match="cannot be negative"):
        number_of_walks(from_networkx(C), -1)
