import math
import warnings

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.walks.counts import exact_walk_counts
from graphinvariants.walks.summary import power_iteration


def _brute_force_summary(A, k):
    """Algorithm 1 with dense matrix powers: x_t = A^t 1 / sum(A^(t-1) 1)."""
    n = A.shape[0]
    cols = []
    for t in range(1, k + 1):
        prev = np.linalg.matrix_power(A, t - 1) @ np.ones(n)
        cur = np.linalg.matrix_power(A, t) @ np.ones(n)
        cols.append(cur / prev.sum() if prev.sum() > 0 else np.zeros(n))
    return np.column_stack(cols)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("directed", [False, True])
def test_summary_matches_matrix_powers(seed, directed):
    G = nx.gnp_random_graph(25, 0.12, seed=seed, directed=directed)
    A = nx.to_numpy_array(G, weight=None)
    S = gi.power_summary(G, k=6)
    np.testing.assert_allclose(S.matrix, _brute_force_summary(A, 6), rtol=1e-12, atol=0)
    # the defining recursion, step by step
    x = np.ones(len(A))
    for t in range(6):
        x = A @ (x / np.abs(x).sum()) if x.sum() else x
        np.testing.assert_allclose(S.matrix[:, t], x, rtol=1e-12)


def test_weighted_summary_matches_matrix_powers():
    G = nx.gnp_random_graph(15, 0.3, seed=1)
    rng = np.random.default_rng(0)
    for u, v in G.edges():
        G[u][v]["w"] = rng.uniform(0.1, 3)
    A = nx.to_numpy_array(G, weight="w")
    np.testing.assert_allclose(gi.power_summary(G, k=4, weight="w").matrix, _brute_force_summary(A, 4), rtol=1e-12)


def test_walk_counts_are_exact_integers():
    G = nx.gnp_random_graph(20, 0.2, seed=3)
    A = nx.to_numpy_array(G, weight=None).astype(np.int64)
    counts = gi.power_summary(G, k=5).walk_counts()
    assert counts.dtype == np.int64
    for t in range(1, 6):
        np.testing.assert_array_equal(counts[:, t - 1], np.linalg.matrix_power(A, t) @ np.ones(20, dtype=np.int64))


def test_walk_counts_switch_to_python_ints_instead_of_overflowing():
    G = nx.complete_graph(50)  # 49^t walks of length t from each node
    counts = gi.power_summary(G, k=14).walk_counts()
    assert counts.dtype == object
    assert counts[0, 13] == 49**14 and counts[7, 9] == 49**10
    assert 49**14 > 2**63


def test_walk_counts_of_weighted_graphs():
    G = nx.Graph()
    G.add_edge(0, 1, weight=2)
    assert gi.power_summary(G, k=2, weight="weight").walk_counts().tolist() == [[2, 4], [2, 4]]
    G[0][1]["weight"] = 0.5
    with pytest.raises(ValueError, match="integer"):
        gi.power_summary(G, k=2, weight="weight").walk_counts()


def test_directed_walks_follow_edges():
    S = gi.power_summary(nx.DiGraph([(0, 1), (1, 2)]), k=3)
    np.testing.assert_array_equal(S.walk_counts(), [[1, 1, 0], [1, 0, 0], [0, 0, 0]])
    # the iteration reaches zero after two steps: later columns are zero, not NaN
    np.testing.assert_array_equal(S.matrix[:, 2], 0)


def test_edgeless_graph_has_zero_summary():
    S = gi.power_summary(nx.empty_graph(4), k=3)
    np.testing.assert_array_equal(S.matrix, np.zeros((4, 3)))


def test_theorem_1_permutation_permutes_rows(rng):
    G = nx.gnp_random_graph(30, 0.1, seed=5)
    perm = rng.permutation(30)
    H = nx.relabel_nodes(G, dict(enumerate(perm)))
    S, T = gi.power_summary(G), gi.power_summary(H)
    for node in G:
        np.testing.assert_allclose(T.profile(perm[node]), S.profile(node), rtol=1e-13)


def test_profile_by_node_name_and_errors():
    S = gi.power_summary(nx.path_graph(["a", "b", "c"]), k=2)
    np.testing.assert_allclose(S.profile("b"), [2 / 3, 0.5])
    with pytest.raises(KeyError, match="'z'"):
        S.profile("z")
    with pytest.raises(ValueError, match="read-only"):
        S.matrix[0, 0] = 1


@pytest.mark.parametrize("k", [0, -1, 2.5, "5", True])
def test_bad_k(k):
    with pytest.raises((TypeError, ValueError), match="k must be"):
        gi.power_summary(nx.path_graph(3), k=k)


def test_igraph_and_scipy_give_identical_summaries():
    G = nx.karate_club_graph()
    g = ig.Graph.from_networkx(G)
    A = nx.to_scipy_sparse_array(G, weight=None)
    ref = gi.power_summary(G).matrix
    # exact: every adapter gives the same adjacency, and each entry is one division of exact integer counts
    np.testing.assert_array_equal(gi.power_summary(g).matrix, ref)
    np.testing.assert_array_equal(gi.power_summary(A).matrix, ref)


def test_batched_iteration_matches_single_graphs():
    graphs = [nx.gnp_random_graph(n, 0.2, seed=n) for n in (1, 5, 12, 30)] + [nx.empty_graph(3)]
    mats = [gi.as_adjacency(G).matrix for G in graphs]
    offsets = np.concatenate(([0], np.cumsum([m.shape[0] for m in mats])))
    S = power_iteration(sp.block_diag(mats, format="csr"), offsets, 5)
    for G, a, b in zip(graphs, offsets[:-1], offsets[1:]):
        # exact: each entry is one division of exact integer counts, whatever else is in the batch
        np.testing.assert_array_equal(S[a:b], gi.power_summary(G).matrix)


def test_summary_is_bit_exact_under_renumbering(rng):
    G = nx.gnp_random_graph(200, 0.05, seed=9)
    perm = rng.permutation(200)
    H = nx.Graph()
    H.add_nodes_from(range(200))
    H.add_edges_from((perm[u], perm[v]) for u, v in G.edges())
    np.testing.assert_array_equal(gi.power_summary(H).matrix[perm], gi.power_summary(G).matrix)
    a, b = gi.power_invariants(G), gi.power_invariants(H)
    np.testing.assert_array_equal(a.mean, b.mean)
    np.testing.assert_array_equal(a.covariance, b.covariance)


def test_huge_counts_fall_back_to_normalised_iteration():
    G = nx.complete_graph(300)  # 299^t walks: beyond 2**53 after a few steps
    S = gi.power_summary(G, k=10).matrix
    np.testing.assert_allclose(S, 299 / 300, rtol=1e-14)


def test_walk_counts_never_wrap_for_huge_integer_weights():
    """Was: integer weights >= 2**63 wrapped silently."""
    G = nx.Graph()
    G.add_edge(0, 1, w=2.0**63)
    G.add_edge(1, 2, w=3.0)
    counts = gi.power_summary(G, k=2, weight="w").walk_counts()
    assert counts.dtype == object
    assert counts[0, 0] == 2**63 and counts[1, 0] == 2**63 + 3
    assert counts[0, 1] == 2**63 * (2**63 + 3)


@pytest.mark.parametrize("normalization", ["l1", "l2", "none"])
def test_normalizations_against_matrix_powers(normalization):
    from graphinvariants.walks.summary import power_iteration

    G = nx.gnp_random_graph(30, 0.2, seed=4)
    A = nx.to_numpy_array(G)
    counts = np.column_stack([np.linalg.matrix_power(A, t) @ np.ones(30) for t in range(0, 7)])
    norm = {"l1": np.abs(counts).sum(0), "l2": np.sqrt((counts**2).sum(0)), "none": np.ones(7)}[normalization]
    expected = counts[:, 1:] / norm[:-1]
    S = power_iteration(gi.as_adjacency(G).matrix, np.array([0, 30]), 6, normalization)
    np.testing.assert_allclose(S, expected, rtol=1e-13)


def test_gaussian_kernel_normalizations_differ_but_column_weights_cannot_matter():
    """The Bhattacharyya coefficient is invariant under a common invertible linear map."""
    from graphinvariants.embeddings import GaussianEmbedding
    from graphinvariants.kernels import pairwise_kernels

    graphs = [nx.gnp_random_graph(30, 0.2, seed=i) for i in range(5)]
    l1 = pairwise_kernels(graphs, functional=GaussianEmbedding(5, ridge=0))
    l2 = pairwise_kernels(graphs, functional=GaussianEmbedding(5, ridge=0, normalization="l2"))
    assert not np.allclose(l1, l2, atol=1e-3)
    invs = gi.batch_power_invariants(graphs)
    D = np.diag([1.0, 0.5, 0.25, 0.125, 0.0625])  # discounting columns
    discounted = [gi.PowerInvariants(D @ m, D @ c @ D, n) for m, c, n in zip(invs.means, invs.covariances, invs.n_nodes)]
    np.testing.assert_allclose(gi.power_kernel_matrix(discounted, ridge=0), l1, rtol=1e-9)


def _python_walk_counts(W, k):
    """A^t 1 for t = 1..k by repeated products in Python integers."""
    A = np.array([[int(w) for w in row] for row in np.asarray(W).tolist()], dtype=object)
    columns = [np.ones(len(A), dtype=object)]
    for _ in range(k):
        columns.append(A @ columns[-1])
    return np.column_stack(columns[1:])


@pytest.mark.parametrize("case", ["dense", "weights beyond 2**31 per row", "weights beyond 2**62"])
def test_walk_counts_beyond_int64_are_exact_digits(case):
    from graphinvariants.walks.counts import walk_count_columns

    rng = np.random.default_rng(5)
    W = nx.to_numpy_array(nx.gnp_random_graph(40, 0.6, seed=3))
    if case != "dense":
        top = 2**40 if case == "weights beyond 2**31 per row" else 2**52
        W = np.triu(W * rng.integers(1, top, size=W.shape).astype(float), 1)
        if case == "weights beyond 2**62":
            W = np.ldexp(W, np.triu(rng.integers(0, 200, size=W.shape), 1))
        W = W + W.T
    k = 25 if case == "dense" else 12
    expected = _python_walk_counts(W, k)
    A = sp.csr_array(W)
    counts = exact_walk_counts(A, k)
    assert counts.dtype == object
    assert counts.tolist() == expected.tolist()
    columns = list(walk_count_columns(A, k))
    plain = [c.ndim == 1 for c in columns]
    assert plain == sorted(plain, reverse=True) and not plain[-1]  # digits from some length on, then always
    for column in columns:
        if column.ndim == 2:
            assert column.min() >= 0 and column.max() < 2**31 and column[:, -1].any()


def test_float_walk_counts_are_rounded_once_and_logs_go_beyond_the_double_range():
    from graphinvariants.walks.counts import float_walk_counts

    G = nx.complete_graph(40)
    G.add_edges_from([(40, 0), (41, 40)])  # rows of different sizes
    A = nx.to_scipy_sparse_array(G, format="csr")
    k = 200  # 39**200 is about 1e318
    exact = _python_walk_counts(A.toarray(), k)
    logs = float_walk_counts(A, k, log=True)
    for t in range(k):
        for i in range(len(exact)):
            value = int(exact[i, t])
            if value < 2**1000:
                assert logs[i, t] == np.log1p(float(value))  # the one rounding float(int) does
            else:  # log of a count beyond the double range: a few units in the last place
                assert logs[i, t] == pytest.approx(math.log(value), rel=4e-16)
    values = float_walk_counts(A, 100)
    assert values.tolist() == [[float(int(c)) for c in row] for row in exact[:, :100].tolist()]
    with pytest.raises(ValueError, match="length 194 exceed the double-precision range"):
        float_walk_counts(A, k)
    with pytest.raises(ValueError, match="profile='log' counts of any size"):
        gi.kernel_matrix([G], kernel="meanmap", profile="counts", k=k)
    K = gi.kernel_matrix([G, nx.complete_graph(30)], kernel="meanmap", profile="log", k=k)
    assert np.all(np.isfinite(K)) and K[0, 0] == 1.0


def test_large_weights_give_no_overflow_warning():
    # the exactness test multiplied the largest count by a bound and overflowed to inf
    # (a correct "not exact", but with a RuntimeWarning printed on every call)
    G = nx.cycle_graph(4)
    G.add_edge(0, 2)
    nx.set_edge_attributes(G, 1.0, "weight")
    G.edges[0, 1]["weight"] = 1e150
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S = gi.power_summary(G, weight="weight")
        assert gi.power_kernel(G, G, weight="weight") == 1.0
    assert np.all(np.isfinite(S.matrix))
