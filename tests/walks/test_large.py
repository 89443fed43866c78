"""One large graph at the floor (graphinvariants.walks.large): every path against brute
force, exact rationals, the small-graph path, renumbering, threads and input types.

Small graphs are sent down the large path by lowering ``LARGE_GRAPH`` (monkeypatch),
so the tests are fast and the reference computations exact or dense.
"""

import importlib.util
import sys
import tracemalloc
from fractions import Fraction

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.walks import large as large_graph
from graphinvariants.walks.counts import exact_walk_counts

HAS_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.fixture
def everything_large(monkeypatch):
    monkeypatch.setattr(large_graph, "LARGE_GRAPH", 0)


def random_csr(n, m, seed, *, directed=False):
    rng = np.random.default_rng(seed)
    return gi.from_edge_arrays(rng.integers(0, n, m), rng.integers(0, n, m), n_nodes=n, directed=directed).matrix


def exact_moments(A, k):
    """Mean and 1/n covariance of the power summary in exact rational arithmetic."""
    counts = exact_walk_counts(A, k)  # A^t 1, exact integers
    n = A.shape[0]
    totals = [n] + [int(sum(int(c) for c in counts[:, t])) for t in range(k - 1)]
    S = [[Fraction(int(counts[i, t]), totals[t]) for t in range(k)] for i in range(n)]
    mean = [sum(row[t] for row in S) / n for t in range(k)]
    cov = [[sum((row[a] - mean[a]) * (row[b] - mean[b]) for row in S) / n for b in range(k)] for a in range(k)]
    return mean, cov


def test_summary_equals_dense_matrix_powers(everything_large):
    A = random_csr(300, 900, seed=0)
    summary = gi.power_summary(A, k=6).matrix
    dense = A.toarray()
    powers = [np.linalg.matrix_power(dense, t) @ np.ones(300) for t in range(7)]  # A^t 1
    for t in range(6):
        # column t is A^(t+1) 1 / sum(A^t 1): a few roundings per entry
        np.testing.assert_allclose(summary[:, t], powers[t + 1] / powers[t].sum(), rtol=1e-13)


def test_moments_within_a_few_ulps_of_exact_rationals(everything_large):
    A = random_csr(200, 700, seed=1)
    inv = gi.power_invariants(A, k=5)
    mean, cov = exact_moments(A, 5)
    exact_mean = np.array([float(v) for v in mean])
    exact_cov = np.array([[float(v) for v in row] for row in cov])
    # relative to each entry's scale: the covariance's diagonal bounds its row (Cauchy-Schwarz)
    scale = np.sqrt(np.outer(np.diag(exact_cov), np.diag(exact_cov)))
    assert np.max(np.abs(inv.mean - exact_mean) / exact_mean) < 1e-14
    assert np.max(np.abs(inv.covariance - exact_cov) / scale) < 1e-13


def test_large_path_agrees_with_small_path(monkeypatch):
    A = random_csr(500, 2000, seed=2)
    small = gi.power_invariants(A, k=5)
    monkeypatch.setattr(large_graph, "LARGE_GRAPH", 0)
    large = gi.power_invariants(A, k=5)
    np.testing.assert_allclose(large.mean, small.mean, rtol=1e-14)
    np.testing.assert_allclose(large.covariance, small.covariance, rtol=1e-12, atol=1e-14 * np.abs(small.covariance).max())
    np.testing.assert_allclose(gi.power_summary(A, k=5).matrix, gi.power_summary(A, k=5).matrix)


def test_renumbering_with_nodes_stored_in_a_new_order(everything_large):
    A = random_csr(2000, 8000, seed=3)
    perm = np.random.default_rng(0).permutation(2000)
    B = sp.csr_array(A[perm][:, perm])  # node perm[i] stored in row i
    a, b = gi.power_invariants(A), gi.power_invariants(B)
    # the same sums in another order: last bits only
    np.testing.assert_allclose(b.mean, a.mean, rtol=1e-14)
    np.testing.assert_allclose(b.covariance, a.covariance, rtol=1e-11, atol=1e-14 * np.abs(a.covariance).max())
    np.testing.assert_allclose(gi.power_summary(B).matrix, gi.power_summary(A).matrix[perm], rtol=1e-14)
    assert gi.power_kernel(A, B) == pytest.approx(1.0, abs=1e-12)
    assert gi.power_kernel(A, A) == 1.0


@pytest.mark.skipif(not HAS_NUMBA, reason="threads need numba")
def test_same_bits_on_one_and_two_threads(everything_large):
    A = random_csr(50_000, 200_000, seed=4)
    one, two = gi.power_invariants(A, n_jobs=1), gi.power_invariants(A, n_jobs=2)
    assert np.array_equal(one.mean, two.mean) and np.array_equal(one.covariance, two.covariance)
    assert np.array_equal(gi.power_summary(A, n_jobs=1).matrix, gi.power_summary(A, n_jobs=-1).matrix)


@pytest.mark.skipif(not HAS_NUMBA, reason="compares the compiled loops with scipy and numpy")
def test_compiled_and_plain_paths_agree(everything_large, monkeypatch):
    A = random_csr(30_000, 100_000, seed=5)
    compiled, summary = gi.power_invariants(A), gi.power_summary(A).matrix
    monkeypatch.setitem(sys.modules, "numba", None)  # scipy and numpy instead
    plain = gi.power_invariants(A)
    # the same products and sums in the same order: the same summary and mean
    assert np.array_equal(gi.power_summary(A).matrix, summary)
    assert np.array_equal(plain.mean, compiled.mean)
    # the centred products by BLAS per block instead of a loop: last bits
    np.testing.assert_allclose(plain.covariance, compiled.covariance, rtol=1e-12)


def test_every_input_type_agrees(everything_large):
    G = nx.gnm_random_graph(3000, 12000, seed=6)
    edges = np.array(G.edges()).T
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    inputs = {
        "networkx": G,
        "igraph": ig.Graph(n=3000, edges=edges.T.tolist()),
        "csr": A,
        "csc": A.tocsc(),
        "coo": A.tocoo(),
        "int csr": A.astype(np.int64),
        "csr_matrix": sp.csr_matrix(A),
        "edge arrays": (edges[0], edges[1]),
        "from_edge_arrays": gi.from_edge_arrays(edges[1], edges[0], n_nodes=3000),
    }
    reference = gi.power_invariants(A)
    for name, graph in inputs.items():
        inv = gi.power_invariants(graph)
        # canonical CSR with the same entries: the same operations in the same order
        assert inv == reference, name


def test_weighted_and_directed_match_the_small_path(monkeypatch):
    rng = np.random.default_rng(7)
    n, m = 800, 3000
    u, v, w = rng.integers(0, n, m), rng.integers(0, n, m), rng.uniform(0.5, 3.0, m)
    graphs = [gi.from_edge_arrays(u, v, weights=w, n_nodes=n), gi.from_edge_arrays(u, v, directed=True, n_nodes=n),
              gi.from_edge_arrays(np.arange(9), np.arange(1, 10), directed=True)]  # a path: A^10 1 = 0
    small = [gi.power_invariants(g, k=12 if i == 2 else 5) for i, g in enumerate(graphs)]
    monkeypatch.setattr(large_graph, "LARGE_GRAPH", 0)
    for i, (g, ref) in enumerate(zip(graphs, small)):
        inv = gi.power_invariants(g, k=12 if i == 2 else 5)
        np.testing.assert_allclose(inv.mean, ref.mean, rtol=1e-13, atol=0)
        np.testing.assert_allclose(inv.covariance, ref.covariance, rtol=1e-11, atol=1e-14 * np.abs(ref.covariance).max())
    assert np.all(gi.power_summary(graphs[2], k=12).matrix[:, 9:] == 0)  # the zero vector stays zero


def test_memory_is_the_summary_beyond_a_canonical_csr(everything_large):
    n, k = 200_000, 5
    A = random_csr(n, 600_000, seed=8)
    gi.power_invariants(A, k=k)  # compiled code and caches loaded before measuring
    tracemalloc.start()
    gi.power_invariants(A, k=k)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    summary = 8 * n * k
    assert peak < 1.2 * summary + 2**20, (peak, summary)  # nothing per stored entry


def test_kernel_matrix_of_large_graphs_is_a_valid_gram_matrix(everything_large):
    graphs = [random_csr(1000, 3000 + 500 * i, seed=i) for i in range(4)] + [nx.path_graph(30)]
    K = gi.power_kernel_matrix(graphs)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    assert gi.power_kernel(graphs[0], graphs[1]) == pytest.approx(K[0, 1], rel=1e-12)


@pytest.mark.parametrize(
    "values, message",
    [([np.nan, 1.0], "NaN or infinite"), ([np.inf, 1.0], "NaN or infinite"), ([-1.0, 1.0], "negative")],
)
def test_bad_weights_are_refused_before_any_product(everything_large, values, message):
    A = sp.csr_array((np.array(values), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2))
    with pytest.raises(ValueError, match=message):
        gi.power_invariants(A)


def test_stored_zeros_are_not_edges(everything_large):
    A = random_csr(500, 2000, seed=9)
    with_zeros = A.copy()
    with_zeros.data[::7] = 0.0
    dropped = with_zeros.copy()
    dropped.eliminate_zeros()
    assert gi.power_invariants(with_zeros) == gi.power_invariants(dropped)


def test_a_canonical_input_is_read_in_place():
    A = random_csr(100, 300, seed=10)
    adj = gi.as_adjacency(A)
    assert np.shares_memory(adj.matrix.indices, A.indices) and np.shares_memory(adj.matrix.data, A.data)
    assert adj.nodes == range(100)


def test_edge_arrays_are_checked():
    with pytest.raises(ValueError, match="differ in length"):
        gi.from_edge_arrays(np.array([0, 1]), np.array([1]))
    with pytest.raises(ValueError, match="not below n_nodes=2"):
        gi.from_edge_arrays(np.array([0, 1]), np.array([1, 2]), n_nodes=2)
    with pytest.raises(ValueError, match="non-negative"):
        gi.from_edge_arrays(np.array([0, -1]), np.array([1, 2]))
    with pytest.raises(TypeError, match="integer node ids"):
        gi.from_edge_arrays(np.array([0.5]), np.array([1.0]))
    with pytest.raises(ValueError, match="negative"):
        gi.from_edge_arrays(np.array([0]), np.array([1]), weights=[-1.0])


def test_a_large_unweighted_graph_stores_no_ones():
    n = 2**19
    rng = np.random.default_rng(11)
    u, v = rng.integers(0, n, n), rng.integers(0, n, n)
    built = {"arrays": gi.from_edge_arrays(u, v, n_nodes=n), "pair": gi.as_adjacency((u, v))}
    for name, adj in built.items():
        assert adj.matrix.data.strides == (0,) and not adj.matrix.data.flags.writeable, name
        assert adj.matrix.indices.dtype == np.int32
    A = built["arrays"].matrix
    reference = sp.csr_array((np.ones(A.nnz), A.indices.copy(), A.indptr.copy()), shape=A.shape)
    assert gi.power_invariants(A) == gi.power_invariants(reference)
    assert np.array_equal(A @ np.arange(n, dtype=float), reference @ np.arange(n, dtype=float))


def test_plain_path_reads_a_pattern_only_graph(monkeypatch):
    n = 2**19
    rng = np.random.default_rng(12)
    adj = gi.from_edge_arrays(rng.integers(0, n, n), rng.integers(0, n, n), n_nodes=n)
    compiled = gi.power_summary(adj).matrix
    monkeypatch.setitem(sys.modules, "numba", None)  # scipy and numpy instead
    assert np.array_equal(gi.power_summary(adj).matrix, compiled)


def test_threads_calling_at_once_and_bad_n_jobs(everything_large):
    from concurrent.futures import ThreadPoolExecutor

    A = random_csr(20_000, 80_000, seed=13)
    reference = gi.power_invariants(A)
    with ThreadPoolExecutor(4) as pool:  # numba's workqueue layer would abort the process
        results = list(pool.map(lambda _: gi.power_invariants(A), range(8)))
    assert all(r == reference for r in results)
    with pytest.raises(ValueError, match="n_jobs"):
        gi.power_invariants(A, n_jobs=0)
    assert gi.power_invariants(A, n_jobs=1) == reference  # the lock was released


def test_moments_per_entry_with_a_hub_at_any_node(monkeypatch):
    """The large path's two passes (no shift by a row: the column sums, then the
    centred products with the corrected formula) against the small path, entry by entry
    within 1e-12 relative, whichever node holds the hub: a star plus random edges."""
    n = 20_000
    rng = np.random.default_rng(14)
    u = np.concatenate((np.zeros(n - 1, dtype=np.int64), rng.integers(0, n, 2 * n)))
    v = np.concatenate((np.arange(1, n), rng.integers(0, n, 2 * n)))
    for perm in (np.arange(n), np.roll(np.arange(n), -1), rng.permutation(n)):  # hub at 0, at n - 1, anywhere
        A = gi.from_edge_arrays(perm[u], perm[v], n_nodes=n).matrix
        monkeypatch.setattr(large_graph, "LARGE_GRAPH", 2**40)
        small = gi.power_invariants(A, k=5)
        monkeypatch.setattr(large_graph, "LARGE_GRAPH", 0)
        large = gi.power_invariants(A, k=5)
        assert np.max(np.abs(large.mean - small.mean) / small.mean) <= 1e-12
        assert np.max(np.abs(large.covariance - small.covariance) / np.abs(small.covariance)) <= 1e-12
