"""One graph as a Dask edge table (graphinvariants.distributed.network) against the
in-process library on the same graph built as a scipy CSR matrix.

Tolerance: 1e-12 relative to the scale (means entry by entry, covariances against their
largest entry: an entry far below it is rounding noise in both paths). The summaries
themselves are equal bit for bit while walk counts are exact integers; the moments are
summed in another order (blocks of nodes, centred on a first pass's mean) than in
process, which changes the last bits only; with a hub at any node the test holds every
entry to that tolerance.
"""

import dask.dataframe as dd
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from dask.utils import key_split
from distributed import get_task_stream

import graphinvariants as gi
from graphinvariants.distributed import network

RTOL = 1e-12


@pytest.fixture(scope="module")
def client(dask_client):
    """The module's cluster (tests/conftest.py's ``dask_client``)."""
    return dask_client


def _csr(n, u, v, w=None, *, directed=False):
    """The in-process adjacency built independently: mirrored unless directed, loops
    once, parallel entries added (weighted) or collapsed to 1 (unweighted)."""
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    data = np.ones(u.size) if w is None else np.asarray(w, dtype=np.float64)
    if not directed:
        off = u != v
        u, v, data = np.concatenate((u, v[off])), np.concatenate((v, u[off])), np.concatenate((data, data[off]))
    A = sp.coo_array((data, (u, v)), shape=(n, n)).tocsr()
    A.sum_duplicates()
    A.eliminate_zeros()
    if w is None:
        A.data[:] = 1.0
    return A


def _expected(n, u, v, w=None, *, directed=False, k=5):
    return gi.power_invariants(_csr(n, u, v, w, directed=directed), k=k, weight=None if w is None else "weight")


def _table(u, v, w=None, *, npartitions=3, shuffle_seed=None):
    frame = pd.DataFrame({"u": pd.Series(u), "v": pd.Series(v)})  # keeps a nullable Int64 column
    if w is not None:
        frame["weight"] = np.asarray(w, dtype=np.float64)
    if shuffle_seed is not None:
        frame = frame.sample(frac=1.0, random_state=shuffle_seed).reset_index(drop=True)
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


def _assert_close(inv, expected):
    assert inv.n_nodes == expected.n_nodes and inv.k == expected.k
    np.testing.assert_allclose(inv.mean, expected.mean, rtol=RTOL, atol=0)
    scale = np.abs(expected.covariance).max()
    assert np.abs(inv.covariance - expected.covariance).max() <= RTOL * scale


def _edges(G):
    e = np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2)
    return e[:, 0], e[:, 1]


def test_erdos_renyi_and_barabasi_albert_equal_the_in_process_invariants(client):
    for G in (nx.gnm_random_graph(300, 1200, seed=1), nx.barabasi_albert_graph(400, 4, seed=2)):
        u, v = _edges(G)
        inv = gi.distributed.power_invariants(_table(u, v, npartitions=5), k=5)
        _assert_close(inv, gi.power_invariants(G, k=5))
        _assert_close(inv, _expected(G.number_of_nodes(), u, v))


def test_brute_force_dense_matrix_powers(client):
    rng = np.random.default_rng(3)
    n = 40
    u, v = rng.integers(0, n, 150), rng.integers(0, n, 150)
    A = _csr(n, u, v).toarray()
    columns, x = [], np.ones(n)
    for _ in range(4):  # Algorithm 1, with dense products
        y = A @ x / x.sum()
        columns.append(y)
        x = y
    S = np.column_stack(columns)
    mean = S.mean(axis=0)
    cov = (S - mean).T @ (S - mean) / n
    inv = gi.distributed.power_invariants(_table(u, v, npartitions=4), k=4, n_nodes=n)
    np.testing.assert_allclose(inv.mean, mean, rtol=RTOL, atol=0)
    assert np.abs(inv.covariance - cov).max() <= RTOL * np.abs(cov).max()


def test_directed_graph(client):
    G = nx.gnm_random_graph(200, 900, seed=4, directed=True)
    u, v = _edges(G)
    inv = gi.distributed.power_invariants(_table(u, v), k=4, directed=True)
    _assert_close(inv, gi.power_invariants(G, k=4))
    _assert_close(inv, _expected(200, u, v, directed=True, k=4))
    # the undirected reading of the same table is another graph
    undirected = gi.distributed.power_invariants(_table(u, v), k=4)
    _assert_close(undirected, gi.power_invariants(G.to_undirected(), k=4))


def test_duplicate_rows_reversed_rows_and_loops_collapse_without_weights(client):
    rng = np.random.default_rng(5)
    n = 60
    u, v = rng.integers(0, n, 200), rng.integers(0, n, 200)
    u[:10] = v[:10]  # loops
    # every edge again, some reversed, in other partitions after a shuffle
    uu = np.concatenate((u, v[:80], u[80:]))
    vv = np.concatenate((v, u[:80], v[80:]))
    expected = _expected(n, u, v, k=5)
    for directed in (False, True):
        if directed:
            expected = _expected(n, uu, vv, directed=True, k=5)  # a reversed row is another arc
        inv = gi.distributed.power_invariants(_table(uu, vv, npartitions=6, shuffle_seed=1), n_nodes=n, directed=directed)
        _assert_close(inv, expected)


def test_deduplicate_false_trusts_the_table_and_counts_repeats(client):
    # documented behaviour: a repeated row then counts as a parallel edge of weight 1
    u, v = np.array([0, 1, 1, 2, 0]), np.array([1, 2, 2, 3, 1])
    inv = gi.distributed.power_invariants(_table(u, v, npartitions=2), k=3, deduplicate=False)
    _assert_close(inv, _expected(4, u, v, np.ones(5), k=3))
    assert inv != gi.distributed.power_invariants(_table(u, v, npartitions=2), k=3)


def test_weighted_parallel_edges_add_and_loops_count_once(client):
    rng = np.random.default_rng(6)
    n = 80
    u, v = rng.integers(0, n, 400), rng.integers(0, n, 400)
    u[:15] = v[:15]
    for w in (rng.integers(0, 5, 400).astype(float), rng.uniform(0.0, 3.0, 400)):  # exact and float paths
        for directed in (False, True):
            inv = gi.distributed.power_invariants(_table(u, v, w, npartitions=7), weight="weight", directed=directed, n_nodes=n)
            _assert_close(inv, _expected(n, u, v, w, directed=directed))


def test_walk_counts_beyond_two_to_the_53_leave_the_exact_path(client):
    G = nx.gnm_random_graph(30, 200, seed=13)
    u, v = _edges(G)
    w = np.full(u.size, 10.0**6)  # integer weights whose walk counts pass 2**53 by step 3
    inv = gi.distributed.power_invariants(_table(u, v, w), weight="weight", k=6)
    _assert_close(inv, _expected(30, u, v, w, k=6))
    # a regular graph off the exact path: rows equal up to the order of their sums, so
    # the covariance is zero up to rounding against the squared entries (1e12 here)
    u, v = _edges(nx.complete_graph(30))
    inv = gi.distributed.power_invariants(_table(u, v, np.full(u.size, 10.0**6)), weight="weight", k=6)
    assert np.abs(inv.covariance).max() <= 1e-24 * inv.ridge_scale()


def test_isolated_nodes_through_n_nodes_and_edgeless_graphs(client):
    G = nx.barabasi_albert_graph(100, 2, seed=7)
    u, v = _edges(G)
    u, v = u + 3, v + 3  # nodes 0, 1, 2 and 103..109 are isolated
    inv = gi.distributed.power_invariants(_table(u, v), n_nodes=110)
    _assert_close(inv, _expected(110, u, v))
    assert gi.distributed.power_invariants(_table(u, v)).n_nodes == 103
    empty = gi.distributed.power_invariants(_table(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)), n_nodes=5, k=3)
    assert empty == gi.power_invariants(sp.csr_array((5, 5)), k=3)


def test_regular_graph_has_covariance_exactly_zero_and_equal_invariants(client):
    G = nx.circulant_graph(500, [1, 7, 40])
    u, v = _edges(G)
    inv = gi.distributed.power_invariants(_table(u, v, npartitions=4, shuffle_seed=2), node_block=64)
    assert not inv.covariance.any()
    assert inv == gi.power_invariants(G)  # walk counts exact: the summary is equal bit for bit


def test_renumbering_partitions_and_block_sizes_change_nothing(client):
    G = nx.gnm_random_graph(250, 1000, seed=8)
    u, v = _edges(G)
    perm = np.random.default_rng(9).permutation(250)
    base = gi.distributed.power_invariants(_table(u, v, npartitions=1))
    renumbered = gi.distributed.power_invariants(
        _table(perm[v], perm[u], npartitions=9, shuffle_seed=3), split_every=2, node_block=17
    )
    np.testing.assert_allclose(renumbered.mean, base.mean, rtol=RTOL, atol=0)
    assert np.abs(renumbered.covariance - base.covariance).max() <= RTOL * np.abs(base.covariance).max()


def test_parquet_table_with_extra_columns_and_one_task_per_partition(client, tmp_path):
    G = nx.gnm_random_graph(300, 1500, seed=10)
    u, v = _edges(G)
    frame = pd.DataFrame({"u": u.astype(np.int32), "v": v.astype(np.int32), "label": "x"})
    dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "edges")
    edges = dd.read_parquet(tmp_path / "edges")
    with get_task_stream(client) as stream:
        inv = gi.distributed.power_invariants(edges, k=3, deduplicate=False)
    _assert_close(inv, gi.power_invariants(G, k=3))
    names = [key_split(t["key"]) for t in stream.data]
    # one product per partition and step, each reading its partition again: nothing of
    # the graph is kept between steps (key_split drops the leading underscore)
    assert names.count("partial_product") == names.count("read_parquet") == 3 * edges.npartitions


def test_kernel_between_tables_and_invariants(client):
    G = nx.barabasi_albert_graph(150, 3, seed=11)
    H = nx.gnm_random_graph(150, 441, seed=12)
    a, b = _table(*_edges(G)), _table(*_edges(H))
    value = gi.distributed.power_kernel(a, b, k=4)
    assert isinstance(value, float)
    assert abs(value - gi.power_kernel(G, H, k=4)) <= RTOL
    assert gi.distributed.power_kernel(a, a, k=4) == 1.0
    inv = gi.distributed.power_invariants(a, k=4)
    assert gi.distributed.power_kernel(inv, b, k=4) == value
    assert gi.power_kernel(inv, gi.distributed.power_invariants(b, k=4), k=4) == value


def test_lazy_without_a_cluster():
    G = nx.path_graph(12)
    inv = gi.distributed.power_invariants(_table(*_edges(G)), k=3)  # Dask's local scheduler
    _assert_close(inv, gi.power_invariants(G, k=3))


def test_errors_are_clear(client):
    good = _table([0, 1], [1, 2])
    with pytest.raises(TypeError, match="dask.dataframe.DataFrame"):
        gi.distributed.power_invariants([(0, 1)])
    with pytest.raises(ValueError, match="no column 'v'"):
        gi.distributed.power_invariants(dd.from_pandas(pd.DataFrame({"u": [0], "target": [1]}), npartitions=1))
    with pytest.raises(ValueError, match="no column 'weight'"):
        gi.distributed.power_invariants(good, weight="weight")
    with pytest.raises(TypeError, match="node ids must be integers"):
        gi.distributed.power_invariants(_table([0.0, 1.0], [1.0, 2.0]))
    with pytest.raises(TypeError, match="node ids must be integers"):
        gi.distributed.power_invariants(_table(["a", "b"], ["b", "c"]))
    with pytest.raises(TypeError, match="weights must be real numbers"):
        gi.distributed.power_invariants(good.assign(weight="x"), weight="weight")
    with pytest.raises(ValueError, match=r"partition 1 of the edge table: column 'v' has the negative node id -4"):
        gi.distributed.power_invariants(_table([0, 1, 2, 3], [1, 2, 3, -4], npartitions=2), deduplicate=False)
    with pytest.raises(ValueError, match=r"partition 1 .*column 'v' has the negative node id -4"):
        gi.distributed.power_invariants(_table([0, 1, 2, 3], [1, 2, 3, -4], npartitions=2))  # checked before the shuffle
    with pytest.raises(ValueError, match="node id 7, out of range for n_nodes=5"):
        gi.distributed.power_invariants(_table([0, 7], [1, 2]), n_nodes=5)
    with pytest.raises(ValueError, match="column 'u' has missing node ids"):
        gi.distributed.power_invariants(_table(pd.array([0, None], dtype="Int64"), [1, 2]))
    with pytest.raises(ValueError, match="NaN or infinite weights"):
        gi.distributed.power_invariants(_table([0, 1], [1, 2], [1.0, np.nan]), weight="weight")
    with pytest.raises(ValueError, match="negative weights"):
        gi.distributed.power_invariants(_table([0, 1], [1, 2], [1.0, -2.0]), weight="weight")
    with pytest.raises(ValueError, match="too large or too small"):
        gi.distributed.power_invariants(_table([0, 1], [1, 2], [1e200, 1.0]), weight="weight")
    with pytest.raises(ValueError, match="edge table is empty: give n_nodes"):
        gi.distributed.power_invariants(_table(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)))
    with pytest.raises(TypeError, match="k must be a positive integer"):
        gi.distributed.power_invariants(good, k=2.5)
    with pytest.raises(ValueError, match="split_every must be an integer >= 2"):
        gi.distributed.power_invariants(good, split_every=1)
    with pytest.raises(ValueError, match="n_nodes must be an integer >= 1"):
        gi.distributed.power_invariants(good, n_nodes=0)
    with pytest.raises(TypeError, match="directed must be a bool"):
        gi.distributed.power_invariants(good, directed="yes")
    with pytest.raises(ValueError, match="k=3, but k=4"):
        gi.distributed.power_kernel(gi.distributed.power_invariants(good, k=3), good, k=4)


def test_module_docstring_states_the_limits():
    doc = network.__doc__
    assert "8 n" in doc and "0 .. n-1" in doc and "large_networks_cluster" in doc


def _hub_graphs(n):
    """Graphs with one node of very high degree, whose summary row is far from the mean:
    a star plus random edges, and a Barabasi-Albert graph."""
    rng = np.random.default_rng(11)
    u = np.concatenate((np.zeros(n - 1, dtype=np.int64), rng.integers(0, n, 2 * n)))
    v = np.concatenate((np.arange(1, n), rng.integers(0, n, 2 * n)))
    keep = u != v
    yield "star plus random edges", u[keep], v[keep]
    yield "Barabasi-Albert", *_edges(nx.barabasi_albert_graph(n, 3, seed=12))


def _node_orders(n, u, v):
    """The nodes as generated, with the hub swapped to node 0, with the hub last, and
    shuffled: the moments must not depend on which row comes first."""
    degree = np.bincount(np.concatenate((u, v)), minlength=n)
    hub = int(degree.argmax())
    yield "as generated", np.arange(n)
    for name, place in (("hub at node 0", 0), ("hub last", n - 1)):
        perm = np.arange(n)
        perm[[hub, place]] = perm[[place, hub]]
        yield name, perm
    yield "shuffled", np.random.default_rng(13).permutation(n)


@pytest.mark.slow
def test_moments_agree_per_entry_whatever_the_node_order(client):
    """Every entry of the mean within 1e-12 relative, and of the covariance within 1e-12
    of its largest entry, of the in-process invariants, with a hub at node 0 or anywhere
    else. Shifting every row by
    node 0's row and summing the shifted rows plainly lost up to 1e-9 relative here
    (``mean = x_0 + sum(x - x_0) / n`` cancels when node 0 is a hub)."""
    n = 20_000
    for graph, u, v in _hub_graphs(n):
        for order, perm in _node_orders(n, u, v):
            pu, pv = perm[u], perm[v]
            inv = gi.distributed.power_invariants(_table(pu, pv, npartitions=3), k=5, n_nodes=n)
            expected = _expected(n, pu, pv)
            for name, got, want in (("mean", inv.mean, expected.mean), ("covariance", inv.covariance, expected.covariance)):
                scale = np.abs(want) if name == "mean" else np.abs(want).max()
                error = float(np.max(np.abs(got - want) / scale))
                assert error <= RTOL, f"{graph}, {order}: {name} off by {error:.2e} relative"
