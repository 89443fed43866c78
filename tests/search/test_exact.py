"""ExactIndex and NearestGraphs(index="exact") against exhaustive top-k."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.search._kernel_index import kernel_neighbors as _kneighbors  # the kernel index (gi.kneighbors is deprecated)
from graphinvariants.search._maps import rows_metric
from graphinvariants.search.exact import BLOCK_ROWS, ExactIndex, brute_force, split_points


def _rows(n, d, seed, density=0.05, dense=3):
    """Sparse rows with a few frequent columns and duplicates (ties by position)."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=rng, format="csr")
    X.data = np.round(X.data * 8) / 8  # few distinct values: many equal inner products
    X = sp.csr_array(sp.hstack([sp.csr_array(np.round(rng.random((n, dense)) * 4) / 4), X], format="csr"))
    return sp.csr_array(sp.vstack([X[: n - n // 2], X[: n // 2]], format="csr"))  # every row twice


def _stored(X, dtype):
    """Rows (or queries) as an index of ``dtype`` holds them: a float32 index rounds
    its queries as it rounds its rows (issue 52, item 8)."""
    if dtype != "float32":
        return X
    return sp.csr_array(X, dtype=np.float32).astype(np.float64) if sp.issparse(X) else X.astype(np.float32).astype(
        np.float64)


def _check_same(got, want):
    """Equal to the last bit: the index and the reference sum every inner product in
    the same documented order (pair_inner_products), so positions and distances are
    equal by construction, ties by position included."""
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("method", ["auto", "bounds", "scan"])
@pytest.mark.parametrize("dense_share", [0.0, 0.01, 1.1])
def test_exact_index_equals_brute_force(dense_share, method):
    X = _rows(300, 40, 0)
    Q = _rows(20, 40, 1)
    index = ExactIndex(dense_share=dense_share, method=method).fit(X)
    got = index.search(Q, 7)
    _check_same(got, brute_force(X, Q, 7))
    # duplicates (row i and i + 150) are at the same distance: the smaller position first
    i, d = got
    for r in range(len(i)):
        for a in range(len(i[r]) - 1):
            if d[r, a] == d[r, a + 1]:
                assert i[r, a] < i[r, a + 1]


def test_exact_index_dense_rows_and_exclude():
    rng = np.random.default_rng(3)
    X = np.round(rng.random((50, 6)) * 3) / 3
    index = ExactIndex().fit(X)
    exclude = np.arange(10)
    got = index.search(X[:10], 5, exclude=exclude)
    want = brute_force(X, X[:10], 5, exclude=exclude)
    _check_same(got, want)
    assert not (got[0] == exclude[:, None]).any()


def test_exact_index_tiny_working_memory_gives_same_answer():
    X = _rows(200, 30, 4)
    Q = _rows(30, 30, 5)
    a = ExactIndex().fit(X).search(Q, 5)
    b = ExactIndex(working_memory=0.01).fit(X).search(Q, 5)  # one query per batch
    _check_same(a, b)


def test_exact_index_add_and_rows():
    X = _rows(120, 25, 6)
    index = ExactIndex().fit(X[:70]).add(X[70:])
    assert index.n_rows_ == 120
    assert (index.rows(0, 120) != X).nnz == 0
    _check_same(index.search(X[:5], 4), brute_force(X, X[:5], 4))


def test_split_points_are_block_multiples():
    points = split_points(5 * BLOCK_ROWS + 3, 2)
    assert points[0] == 0 and points[-1] == 5 * BLOCK_ROWS + 3
    assert all(p % BLOCK_ROWS == 0 for p in points[:-1])


def _graphs():
    return ([nx.cycle_graph(n) for n in range(6, 16)] + [nx.star_graph(n) for n in range(5, 15)]
            + [nx.path_graph(n) for n in range(4, 14)])


def test_nearest_graphs_feature_rows_equal_brute_force():
    graphs = _graphs()
    y = [0] * 10 + [1] * 10 + [2] * 10
    features = gi.GraphFeatures(n_landmarks=10, seed=0).fit(graphs, y)
    X = features.transform(graphs)
    search = gi.NearestGraphs(kernel=features, n_neighbors=4).fit(graphs)
    queries = [nx.cycle_graph(30), nx.star_graph(3), nx.path_graph(20)]
    distances, indices = search.kneighbors(queries)
    Q, lost = features.transform_with_missing(queries)  # K(G, G) counts what the rows lack (unseen labels)
    assert lost.max() > 0
    _check_same((indices, distances), brute_force(X, Q, 4, lost=lost))
    assert (np.diff(distances, axis=1) >= 0).all()
    # leave-one-out: own position never returned
    distances, indices = search.kneighbors()
    _check_same((indices, distances), brute_force(X, X, 4, exclude=np.arange(30)))
    assert not (indices == np.arange(30)[:, None]).any()


def test_nearest_graphs_learned_default_needs_y():
    with pytest.raises(ValueError, match=r"fit\(graphs, y\)"):
        gi.NearestGraphs().fit(_graphs())
    search = gi.NearestGraphs(seed=0, n_neighbors=2).fit(_graphs(), [0] * 10 + [1] * 10 + [2] * 10)
    assert search.kneighbors([nx.star_graph(20)], return_distance=False).shape == (1, 2)


def test_nearest_graphs_kernel_name_matches_kneighbors():
    graphs = _graphs()
    search = gi.NearestGraphs(kernel="wl", n_neighbors=5).fit(graphs)
    distances, indices = search.kneighbors(graphs[:4])
    want_i, want_v = _kneighbors(graphs[:4], graphs, n_neighbors=5, kernel="wl")
    np.testing.assert_array_equal(indices, want_i)
    np.testing.assert_array_equal(distances, np.sqrt(np.maximum(0, 2 - 2 * want_v)))
    d, i = search.kneighbors()
    np.testing.assert_array_equal(i, _kneighbors(None, graphs, n_neighbors=5, kernel="wl")[0])
    fixed = gi.NearestGraphs(kernel=gi.GraphKernel(kernel="wl"), n_neighbors=5).fit(graphs)
    np.testing.assert_array_equal(fixed.kneighbors(graphs[:4])[1], want_i)


def test_nearest_graphs_errors_and_ids():
    graphs = _graphs()
    search = gi.NearestGraphs(kernel="wl", n_neighbors=3).fit(graphs, ids=np.arange(100, 130))
    with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit"):
        search.kneighbors(graphs[:1], n_neighbors=31)
    with pytest.raises(ValueError, match="n_neighbors < n_samples_fit"):
        search.kneighbors(n_neighbors=30)
    d, i, ids = search.kneighbors(graphs[:2], return_ids=True)
    np.testing.assert_array_equal(ids, i + 100)
    with pytest.raises(ValueError, match="index must be"):
        gi.NearestGraphs(index="fast").fit(graphs)
    with pytest.raises(TypeError, match="kernel must be"):
        gi.NearestGraphs(kernel=3).fit(graphs)
    with pytest.raises(ValueError, match="ids must have one identifier"):
        gi.NearestGraphs(kernel="wl").fit(graphs, ids=[1, 2])
    with pytest.raises(TypeError, match="one string"):
        search.kneighbors("CCO")


def test_molecules_in_molecules_out():
    pytest.importorskip("rdkit")
    smiles = ["CCO", "CCCO", "CCCCO", "c1ccccc1", "c1ccccc1C", "c1ccccc1CC", "CC(=O)O", "CCC(=O)O"]
    names = ["ethanol", "propanol", "butanol", "benzene", "toluene", "ethylbenzene", "acetic", "propanoic"]
    search = gi.NearestGraphs(kernel=gi.GraphKernel(kernel="wl", node_label="label"), n_neighbors=2).fit(smiles, ids=names)
    distances, indices, ids = search.kneighbors(["c1ccccc1CCC", "CCCCCO"], return_ids=True)
    assert ids[:, 0].tolist() == ["ethylbenzene", "butanol"]  # one CH2 apart
    np.testing.assert_array_equal(ids, np.asarray(names)[indices])
    graphs = [gi.datasets.from_smiles(s) for s in smiles]
    same = gi.NearestGraphs(kernel=gi.GraphKernel(kernel="wl", node_label="label"), n_neighbors=2).fit(graphs)
    np.testing.assert_array_equal(same.kneighbors([gi.datasets.from_smiles("c1ccccc1CCC")])[1], indices[:1])


def _labelled(n, seed):
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(n):
        G = nx.gnp_random_graph(int(rng.integers(6, 14)), 0.3, seed=int(rng.integers(2**31)))
        nx.set_node_attributes(G, {v: "CNO"[int(rng.integers(3))] for v in G}, "label")
        graphs.append(G)
    return graphs


def _check_at_every_block(graphs, features, n_neighbors):
    """Issue 38, defect 4: at every block size, working_memory and block_rows, the
    answer is a stable sort of the brute-force distances, identical graphs are at
    distance exactly 0, leave-one-out equals querying the same graph (its position
    left out) and a batch equals single queries."""
    X = features.transform(graphs)
    n = len(graphs)
    metric = rows_metric(features)  # rows of norm one: ranked by direction (issue 52, item 8)
    want = brute_force(X, X, n_neighbors, metric=metric)
    want_loo = brute_force(X, X, n_neighbors, exclude=np.arange(n), metric=metric)
    for working_memory, block_rows in [(None, 32768), (0.01, 32768), (None, 7), (1, 50)]:
        search = gi.NearestGraphs(kernel=features, n_neighbors=n_neighbors, working_memory=working_memory,
                                  index_params={"block_rows": block_rows}).fit(graphs)
        distances, indices = search.kneighbors(graphs)
        _check_same((indices, distances), want)
        assert (distances[:, 0] == 0).all()  # each graph finds itself (or an earlier copy) at 0
        loo = search.kneighbors()
        _check_same((loo[1], loo[0]), want_loo)
        for q in range(0, n, 37):  # one at a time, as in the batch
            d, i = search.kneighbors([graphs[q]])
            np.testing.assert_array_equal(i[0], indices[q])
            np.testing.assert_array_equal(d[0], distances[q])
    return want


def test_ties_and_duplicates_do_not_depend_on_the_block():
    base = _labelled(80, 0)
    graphs = base + base[:30]  # 30 copies: ties by position, copies at distance 0
    features = gi.GraphFeatures("wl").fit(graphs)
    indices, distances = _check_at_every_block(graphs, features, 7)
    for i in range(30):  # a copy finds the other copy at distance exactly 0
        assert {i, 80 + i} <= set(indices[i][distances[i] == 0])


def test_ties_and_duplicates_on_mutag(tu_load):
    # the reproduction: MUTAG plus 50 duplicates, GraphFeatures("wl"), 7 neighbours
    mutag = list(tu_load("MUTAG"))
    graphs = mutag + mutag[:50]
    _check_at_every_block(graphs, gi.GraphFeatures("wl").fit(graphs), 7)


# -- the bounds: rows skipped only with proof ------------------------------------------------------
def _hard_rows(seed):
    """Rows made to stress the bounds: near-duplicates a rounding apart, rows inside the
    projection's span (residual ~ 0), rows of very different norms, zero rows."""
    rng = np.random.default_rng(seed)
    base = rng.random((40, 12))
    near = base[:20] * (1 + 1e-15 * rng.standard_normal((20, 12)))  # a rounding apart
    scaled = np.vstack([base[:5] * 1e6, base[5:10] * 1e-6, np.zeros((2, 12))])
    low_rank = rng.random((15, 2)) @ rng.random((2, 12))  # residual ~ 0 beyond 2 directions
    X = np.vstack([base, near, scaled, low_rank, base[:10]])  # and exact duplicates
    return X


@pytest.mark.parametrize("method", ["bounds", "scan"])
@pytest.mark.parametrize("n_dims", [0, 2, 8, 32])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bounds_never_drop_a_neighbour(n_dims, dtype, method):
    X = _hard_rows(0)
    Q = np.vstack([X[:12], _hard_rows(1)[:12], np.zeros((1, 12))])
    index = ExactIndex(n_dims=n_dims, dtype=dtype, method=method, seed=0).fit(X)
    stored = _stored(X, dtype)
    for k in (1, 7, X.shape[0]):
        _check_same(index.search(Q, k), brute_force(stored, _stored(Q, dtype), k))
    exclude = np.arange(12)
    _check_same(index.search(X[:12], X.shape[0], exclude=exclude), brute_force(stored, stored[:12], X.shape[0],
                                                                               exclude=exclude))


def test_bounds_skip_rows_on_clustered_data():
    # tight clusters: a query near one scores few rows beyond its own cluster
    rng = np.random.default_rng(2)
    centres = rng.random((50, 30)) * 10
    X = np.repeat(centres, 40, axis=0) + 0.01 * rng.standard_normal((2000, 30))
    Q = centres[:10] + 0.01 * rng.standard_normal((10, 30))
    index = ExactIndex(n_dims=8, seed=0).fit(X)
    _check_same(index.search(Q, 5), brute_force(X, Q, 5))
    assert index.scored_.max() < 400  # of 2,000 (the 40 of the cluster and the first rows taken)


@pytest.mark.parametrize("method", ["bounds", "scan"])
def test_compiled_and_numpy_passes_give_the_same_answer(monkeypatch, method):
    import sys

    X = _rows(400, 50, 6)
    Q = _rows(25, 50, 7)
    index = ExactIndex(n_dims=6, method=method, seed=1).fit(X)
    compiled = index.search(Q, 9)
    monkeypatch.setitem(sys.modules, "numba", None)  # numpy and BLAS (float32) instead
    _check_same(index.search(Q, 9), compiled)
    _check_same(index.search(Q[:1], 9), (compiled[0][:1], compiled[1][:1]))
    _check_same(compiled, brute_force(X, Q, 9))


def _count_rows(n, seed, d=3000):
    """Rows shaped like normalised label counts of distinct molecules: a few columns
    held by nearly every row with large counts (atoms), many rare ones (larger
    neighbourhoods), every row of norm 1 (a rounding apart), near-duplicates whose
    inner products differ in the last bits, and rows sharing no column with a query."""
    rng = np.random.default_rng(seed)
    common = rng.poisson(6.0, (n, 6)).astype(float)
    rare = sp.random(n, d, density=0.01, random_state=rng, format="csr")
    rare.data = np.ceil(rare.data * 3)
    X = sp.csr_array(sp.hstack([sp.csr_array(common), rare], format="csr"))
    X = sp.csr_array(sp.diags(1.0 / np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())) @ X)
    near = X[: n // 10].copy()
    near.data = near.data * (1 + 4e-16 * rng.standard_normal(near.nnz))  # a rounding or two apart
    lonely = sp.csr_array((np.ones(5), (np.arange(5), 6 + d - 1 - np.arange(5))), shape=(5, X.shape[1]))
    return sp.csr_array(sp.vstack([X, near, X[: n // 20], lonely], format="csr"))


@pytest.mark.parametrize("method", ["bounds", "scan"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_scan_and_bounds_on_count_rows_equal_exhaustive_top_k(method, dtype):
    # the scan's rough scores (dense columns by BLAS, the rest from posting lists, in
    # another order than the exact sums) may only choose candidates: every answer is
    # the exhaustive stable sort, at every block size, one query or a batch, with
    # rows added after fit (the posting lists made again)
    X = _count_rows(600, 0)
    Q = sp.csr_array(sp.vstack([X[:15], _count_rows(200, 1)[:15], X[-5:]], format="csr"))
    stored, Qs = _stored(X, dtype), _stored(Q, dtype)
    for block_rows in (BLOCK_ROWS, 64):
        index = ExactIndex(method=method, dtype=dtype, block_rows=block_rows, seed=0).fit(X[:400]).add(X[400:])
        for k in (1, 10, X.shape[0]):
            _check_same(index.search(Q, k), brute_force(stored, Qs, k))
        _check_same(index.search(Q[3:4], 10), brute_force(stored, Qs[3:4], 10))
        exclude = np.arange(15)
        _check_same(index.search(X[:15], 10, exclude=exclude), brute_force(stored, stored[:15], 10, exclude=exclude))
        if method == "scan":
            assert (index.scored_ == X.shape[0]).all()
            assert index.rescored_.max() < X.shape[0] // 4  # the rounding bound leaves few to score again


def test_auto_takes_the_scan_where_it_is_cheaper():
    X = _count_rows(600, 0)  # 6 dense columns, few postings per row: the scan
    index = ExactIndex(seed=0).fit(X)
    index.search(X[:5], 3)
    assert (index.scored_ == X.shape[0]).all()
    rng = np.random.default_rng(0)  # 64 dense columns > 32 directions: the bounds, on clusters they prune
    dense = np.repeat(rng.random((20, 64)) * 10, 20, axis=0) + 0.01 * rng.standard_normal((400, 64))
    index = ExactIndex(seed=0).fit(dense)
    index.search(dense[::40], 3)
    assert (index.rescored_ == index.scored_).all() and index.scored_.max() < 100
    with pytest.raises(ValueError, match="method"):
        ExactIndex(method="inverted").fit(X)


def test_answer_does_not_depend_on_seed_dims_batch_or_add():
    X = _rows(300, 40, 8)
    Q = _rows(30, 40, 9)
    want = brute_force(X, Q, 6)
    for n_dims, seed in [(1, 0), (4, 1), (16, 2)]:
        _check_same(ExactIndex(n_dims=n_dims, seed=seed).fit(X).search(Q, 6), want)
    grown = ExactIndex(seed=0).fit(X[:100]).add(X[100:])  # codes of the added rows clip: still bounds
    _check_same(grown.search(Q, 6), want)
    single = [grown.search(Q[i : i + 1], 6) for i in range(Q.shape[0])]
    _check_same((np.vstack([s[0] for s in single]), np.vstack([s[1] for s in single])), want)


def test_float32_rows_are_smaller_and_exact_for_the_stored_rows():
    X = _rows(300, 40, 10)
    Q = _rows(10, 40, 11)
    values = X.copy()  # rows that are not counts times a scale: float64 values
    values.data = values.data * (1 + np.random.default_rng(0).random(values.nnz) / 3)
    wide = ExactIndex(seed=0).fit(values)
    narrow = ExactIndex(dtype="float32", seed=0).fit(X)
    assert not wide._compact and narrow.nbytes < wide.nbytes
    stored = sp.csr_array(X, dtype=np.float32).astype(np.float64)
    _check_same(narrow.search(Q, 5), brute_force(stored, Q, 5))


def test_bad_rows_and_options_are_refused():
    with pytest.raises(ValueError, match="not finite"):
        ExactIndex().fit(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match=r"row 1, column 0"):
        ExactIndex().fit(sp.csr_array(np.array([[1.0, 0.0], [np.inf, 0.0]])))
    with pytest.raises(ValueError, match="dtype"):
        ExactIndex(dtype="float16").fit(np.eye(3))
    index = ExactIndex().fit(np.eye(3))
    with pytest.raises(ValueError, match="not finite"):
        index.search(np.array([[np.nan, 0.0, 0.0]]), 1)
    with pytest.raises(ValueError, match="one integer position per query"):
        index.search(np.eye(3), 1, exclude=np.arange(2))


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_bound_path_and_full_pass_give_the_same_answer(monkeypatch, share):
    # share 0: every query takes the full BLAS pass; 1: every query the bound path
    from graphinvariants.search import exact

    monkeypatch.setattr(exact, "FULL_PASS_SHARE", share)
    X = _rows(300, 40, 12)
    Q = _rows(20, 40, 13)
    index = ExactIndex(n_dims=4, seed=0).fit(X)
    _check_same(index.search(Q, 8), brute_force(X, Q, 8))  # 20 queries: sparse x sparse
    _check_same(index.search(Q[:3], 8), brute_force(X, Q[:3], 8))  # a few: their sparse part dense
    narrow = ExactIndex(n_dims=4, dtype="float32", seed=0).fit(X)  # float32 products, their margin
    stored = sp.csr_array(X, dtype=np.float32).astype(np.float64)
    _check_same(narrow.search(Q, 8), brute_force(stored, Q, 8))
    exclude = np.arange(20)
    _check_same(index.search(X[:20], 299, exclude=exclude), brute_force(X, X[:20], 299, exclude=exclude))
    _check_same(index.search(X[:20], 300, exclude=exclude), brute_force(X, X[:20], 300, exclude=exclude))


# -- issue 52, item 8: equal kernel values give equal distances; a float32 copy is at 0 ----
def _unit(X):
    X = sp.csr_array(X, dtype=np.float64)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_array(sp.diags(1.0 / norms) @ X)


@pytest.mark.parametrize("method", ["bounds", "scan"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cosine_ranks_orthogonal_rows_by_position(method, dtype):
    """Unit rows whose norms differ in the last bits, a query sharing no column with
    any: every distance is exactly sqrt(2) and the rows come in position order (the
    Euclidean formula ordered them by the rounding of their norms)."""
    rng = np.random.default_rng(3)
    X = _unit(sp.random(40, 30, density=0.3, random_state=rng, format="csr") + sp.eye(40, 30, format="csr"))
    Q = sp.csr_array(np.hstack([np.zeros((2, 30)), np.array([[0.6, 0.8], [1.0, 0.0]])]))
    X = sp.csr_array(sp.hstack([X, sp.csr_array((40, 2))]))
    index = ExactIndex(metric="cosine", method=method, dtype=dtype, seed=0).fit(X)
    indices, distances = index.search(Q, 40)
    np.testing.assert_array_equal(indices, np.tile(np.arange(40), (2, 1)))
    assert np.all(distances == np.sqrt(2.0))
    euclidean = ExactIndex(method=method, dtype=dtype, seed=0).fit(X).search(Q, 40)
    assert len(np.unique(euclidean[1])) > 1  # what it fixes: the norms' last bits


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("method", ["bounds", "scan"])
def test_float32_index_puts_a_copy_at_distance_zero(metric, method):
    """Queries are rounded as the rows are stored: a stored row asked again is at
    exactly 0 (it was at about 3e-8, its own float32 rounding)."""
    X = _unit(_rows(60, 50, 4)) if metric == "cosine" else _rows(60, 50, 4)
    index = ExactIndex(dtype="float32", metric=metric, method=method, seed=0).fit(X)
    indices, distances = index.search(X[:20], 3)
    assert np.all(distances[:, 0] == 0.0)
    stored = sp.csr_array(X.astype(np.float32).astype(np.float64))
    _check_same((indices, distances), brute_force(stored, stored[:20], 3, metric=metric))


@pytest.mark.parametrize("method", ["bounds", "scan"])
@pytest.mark.parametrize("n_dims", [0, 4, 32])
def test_cosine_equals_brute_force(method, n_dims):
    """The bounds (Euclidean) stay bounds for the cosine ranking: nothing is dropped."""
    X = _unit(_rows(120, 40, 5))
    Q = sp.csr_array(sp.vstack([X[:10], _unit(_rows(10, 40, 6))]))
    index = ExactIndex(metric="cosine", method=method, n_dims=n_dims, seed=0).fit(X)
    for k in (1, 6, X.shape[0]):
        _check_same(index.search(Q, k), brute_force(X, Q, k, metric="cosine"))
        if method == "scan" and k < X.shape[0]:  # the gap to the Euclidean square is tiny: few rows summed again
            assert index.rescored_.max() < X.shape[0] // 2
    exclude = np.arange(10)
    _check_same(index.search(X[:10], 8, exclude=exclude), brute_force(X, X[:10], 8, exclude=exclude, metric="cosine"))
