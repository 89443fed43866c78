import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.walks.closed import closed_walk_counts
from graphinvariants.graphs import as_graph_batch
from tests.conftest import renumbered


def brute_force(G, k, dtype=np.int64):
    A = nx.to_numpy_array(G, nodelist=list(G)).astype(np.int64).astype(dtype)  # object: Python ints
    out, P = [], np.eye(len(A), dtype=dtype)
    for _ in range(k):
        P = P.dot(A)
        out.append(np.diag(P))
    return np.column_stack(out)


@pytest.mark.parametrize("directed", [False, True])
def test_equals_matrix_powers_on_small_graphs(rng, directed):
    for _ in range(25):
        n = int(rng.integers(1, 30))
        G = nx.gnp_random_graph(n, rng.random(), seed=int(rng.integers(2**31)), directed=directed)
        k = int(rng.integers(1, 11))
        assert np.array_equal(gi.closed_walk_profile(G, k=k), brute_force(G, k))


@pytest.mark.parametrize("n, p, directed", [(150, 0.02, False), (160, 0.4, False), (130, 0.05, True), (120, 0.5, True)])
@pytest.mark.parametrize("block_entries", [400, 5000, 2**22])
def test_ball_paths_equal_matrix_powers(n, p, directed, block_entries):
    # graphs above the stacked size: sparse columns, turning dense for the denser ones,
    # in blocks small enough to cut a graph's columns into many pieces
    G = nx.gnp_random_graph(n, p, seed=n, directed=directed)
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), dtype=float)
    got = closed_walk_counts(A, np.array([0, n]), 8, block_entries=block_entries)
    assert got.dtype == np.int64
    assert np.array_equal(got, brute_force(G, 8))


def test_batch_of_mixed_sizes_and_a_star(rng):
    graphs = [nx.gnp_random_graph(int(n), 0.08, seed=i) for i, n in enumerate(rng.integers(1, 160, 20))]
    graphs += [nx.star_graph(150), nx.empty_graph(3), nx.complete_graph(1)]
    batch = as_graph_batch(graphs)
    got = closed_walk_counts(batch.matrix, batch.offsets, 7)
    assert np.array_equal(got, np.vstack([brute_force(G, 7) for G in graphs]))


def test_weights_are_integer_multiplicities():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 2), (1, 2, 3), (2, 0, 1)])
    assert np.array_equal(gi.closed_walk_profile(G, k=6, weight="weight"), brute_force(G, 6))
    G[0][1]["weight"] = 0.5
    with pytest.raises(ValueError, match="integer edge weights"):
        gi.closed_walk_profile(G, k=3, weight="weight")


def test_counts_beyond_float_precision_stay_exact():
    # K_80 at k = 10 ((A^10)_ii ~ 1e17 > 2^53) goes through the stacked int64 path,
    # K_150 at k = 9 through the ball path in int64; both checked against Python integers
    for n, k in ((80, 10), (150, 9)):
        G = nx.complete_graph(n)
        got = gi.closed_walk_profile(G, k=k)
        assert got[0, -1] > 2**53
        assert got[0, -1] == ((n - 1) ** k + (n - 1) * (-1) ** k) // n  # closed walks of K_n
        assert np.array_equal(got, brute_force(G, k, dtype=object).astype(np.int64))


def test_counts_beyond_int64_are_a_clear_error():
    for n in (60, 200):  # stacked and ball paths
        with pytest.raises(ValueError, match="exceed the int64 range"):
            gi.closed_walk_profile(nx.complete_graph(n), k=12)


def test_renumbering_invariance(rng):
    for G in (nx.gnp_random_graph(40, 0.15, seed=1), nx.barabasi_albert_graph(200, 3, seed=2)):
        H = renumbered(G, rng)
        a = gi.closed_walk_profile(G, k=8)
        b = gi.closed_walk_profile(H, k=8)
        # the same multiset of node profiles, whatever the numbering and storage order
        assert sorted(map(tuple, a.tolist())) == sorted(map(tuple, b.tolist()))


def test_networkx_igraph_and_scipy_agree():
    G = nx.gnp_random_graph(120, 0.05, seed=3)
    expected = gi.closed_walk_profile(G, k=8)
    assert np.array_equal(gi.closed_walk_profile(ig.Graph.from_networkx(G), k=8), expected)
    assert np.array_equal(gi.closed_walk_profile(nx.to_scipy_sparse_array(G, nodelist=list(G)), k=8), expected)


def test_bad_input():
    with pytest.raises(ValueError, match="no nodes"):
        gi.closed_walk_profile(nx.Graph(), k=3)
    with pytest.raises((TypeError, ValueError), match="k"):
        gi.closed_walk_profile(nx.path_graph(3), k=0)
    with pytest.raises(ValueError, match="non-negative"):
        closed_walk_counts(sp.csr_array(np.array([[0.0, -1.0], [-1.0, 0.0]])), np.array([0, 2]), 3)
