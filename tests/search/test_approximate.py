"""NearestGraphs(index="approximate"): recall against exact, persistence, growth."""

import io

import joblib
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi

pytest.importorskip("faiss")


def _random_graphs(n, seed):
    rng = np.random.default_rng(seed)
    graphs = []
    for i in range(n):
        size = int(rng.integers(8, 30))
        G = nx.barabasi_albert_graph(size, int(rng.integers(1, 3)), seed=int(rng.integers(2**31)))
        nx.set_node_attributes(G, {v: "CNO"[int(rng.integers(3))] for v in G}, "label")
        graphs.append(G)
    return graphs


@pytest.fixture(scope="module")
def corpus():
    """Synthetic labelled graphs (no TU data needed, so that CI runs these tests)."""
    graphs = _random_graphs(1000, 0)
    y = [G.number_of_edges() >= 2 * G.number_of_nodes() - 4 for G in graphs]  # BA with m=2 or m=1
    features = gi.GraphFeatures(n_landmarks=50, max_samples=200, seed=0).fit(graphs, y)
    return graphs, features


def _recall(got, want):
    return np.mean([len(set(g) & set(w)) / len(w) for g, w in zip(got, want)])


def test_recall_against_exact_and_leave_one_out(corpus):
    copies, features = corpus
    exact = gi.NearestGraphs(kernel=features).fit(copies)
    approx = gi.NearestGraphs(kernel=features, index="approximate", seed=0,
                              index_params={"n_dims": 32}).fit(copies)
    queries = _random_graphs(50, 1)
    d_e, i_e = exact.kneighbors(queries)
    d_a, i_a = approx.kneighbors(queries)
    assert _recall(i_a, i_e) >= 0.95
    # reranked: every value returned is the exact one of its position
    assert (np.diff(d_a, axis=1) >= 0).all()
    same = i_a == i_e
    np.testing.assert_allclose(d_a[same], d_e[same], atol=1e-7)
    d, i = approx.kneighbors(n_neighbors=3)
    assert not (i == np.arange(len(copies))[:, None]).any()


def test_persist_reload_and_add(corpus):
    copies, features = corpus
    graphs, rest = copies[:600], copies[600:800]
    model = gi.NearestGraphs(kernel=features, index="approximate", seed=0, n_neighbors=5,
                             index_params={"n_dims": 32}).fit(graphs, ids=np.arange(600))
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    loaded = joblib.load(buffer)
    queries = _random_graphs(10, 2)
    # equal by construction: the same stored state searched by the same code in this process
    for a, b in zip(model.kneighbors(queries), loaded.kneighbors(queries)):
        np.testing.assert_array_equal(a, b)
    loaded.partial_fit(rest, ids=np.arange(600, 800))
    assert loaded.n_samples_fit_ == 800
    d, i, ids = loaded.kneighbors(rest[:20], n_neighbors=1, return_ids=True)
    exact = gi.NearestGraphs(kernel=features, n_neighbors=1).fit(copies[:800])
    d_e, i_e = exact.kneighbors(rest[:20])
    assert (i == i_e).mean() >= 0.75  # the added graphs are found (HNSW for inner product misses some: 16 of 20)
    assert (i >= 600).mean() >= 0.75
    np.testing.assert_allclose(d[i == i_e], d_e[i == i_e], atol=1e-7)
    np.testing.assert_array_equal(ids, i)


def test_kernel_name_approximate_uses_nystroem():
    graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(n) for n in range(5, 25)]
    model = gi.NearestGraphs(kernel="wl", index="approximate", seed=0, n_neighbors=3).fit(graphs)
    assert type(model.feature_map_).__name__ == "GraphFeatures"
    assert (model.kneighbors([nx.star_graph(40)])[1] >= 20).all()


@pytest.mark.parametrize("rerank", [True, False])
def test_leave_one_out_with_and_without_rerank(corpus, rerank):
    # issue 38, defect 5: rerank=False then kneighbors() raised "the rows are kept only with rerank=True"
    graphs, features = corpus
    graphs = graphs[:200]
    search = gi.NearestGraphs(kernel=features, index="approximate", n_neighbors=5, seed=0,
                              index_params={"rerank": rerank}).fit(graphs)
    distances, indices = search.kneighbors()
    assert indices.shape == (200, 5)
    assert not (indices == np.arange(200)[:, None]).any()
    assert (np.diff(distances, axis=1) >= 0).all()
    exact = gi.NearestGraphs(kernel=features, n_neighbors=5).fit(graphs).kneighbors()[1]
    assert _recall(indices, exact) > 0.8


def test_small_builds_take_the_full_svd_and_large_ones_show_progress(capsys):
    # issue 38, friction 15: 188 rows took 5-10 s in the randomised SVD under thread
    # oversubscription; a sample this small is LAPACK's full SVD, on one BLAS thread
    from graphinvariants.search.approximate import ApproximateIndex

    rng = np.random.default_rng(0)
    X = rng.random((188, 400))
    index = ApproximateIndex(n_dims=16, seed=0).fit(X)
    _, _, vt = np.linalg.svd(X, full_matrices=False)
    # the same 16 directions (to sign): |<v_i, w_i>| = 1 up to rounding (1e-8: LAPACK
    # drivers differ in the last bits of singular vectors)
    components = index.exact_.projection_.components_
    np.testing.assert_allclose(np.abs(np.sum(vt[:16] * components.T, axis=1)), 1, atol=1e-8)
    ApproximateIndex(n_dims=16, seed=0, progress=True).fit(X)
    assert "approximate index" in capsys.readouterr().err
    ApproximateIndex(n_dims=16, seed=0).fit(X)  # None: no bar below PROGRESS_ROWS
    assert "approximate index" not in capsys.readouterr().err


# -- ApproximateIndex itself, against brute force ----------------------------------------

def _clustered_rows(n, seed):
    """Rows near 40 centres: a dense part (60 columns) and a sparse count part (300
    columns, a few per row), so that the projection keeps much but not all."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, 60))
    dense = centres[rng.integers(40, size=n)] + 0.3 * rng.normal(size=(n, 60))
    counts = sp.random(n, 300, density=0.02, random_state=seed, format="csr",
                       data_rvs=lambda size: rng.integers(1, 4, size=size).astype(float))
    return sp.csr_array(sp.hstack([sp.csr_array(dense), counts], format="csr"))


@pytest.fixture(scope="module")
def clustered():
    rows = _clustered_rows(1540, 3)
    return rows[:1500], rows[1500:]  # stored rows, held-out queries near the same centres


def _tie_aware_recall(distances, kth):
    """Share of the k returned rows at most the k-th exact distance away, per query."""
    k = distances.shape[1]
    return np.minimum((distances <= kth[:, None]).sum(axis=1), k) / k


@pytest.mark.slow
def test_calibration_reaches_its_target_on_the_rows_it_drew(clustered):
    from graphinvariants.search.approximate import ApproximateIndex
    from graphinvariants.search.exact import brute_force

    X, _ = clustered
    n = X.shape[0]
    # the graph's calibration (these clustered rows are dense enough that the column stage
    # would score every row); every row a calibration query: all leave-one-out queries
    index = ApproximateIndex(recall=0.9, n_dims=8, calibration_queries=n, seed=0, candidates="graph").fit(X)
    assert index.calibrated_recall_ >= 0.9
    assert (index.n_candidates_, index.calibrated_recall_) in index.calibration_
    # every smaller count tried fell short: the count kept is the smallest of those tried
    assert all(r < 0.9 for c, r in index.calibration_ if c < index.n_candidates_)
    assert index.calibration_[0][0] == 10 and index.n_candidates_ < n  # not everything fetched
    _, truth = brute_force(X, X, 10, exclude=np.arange(n))
    found, distances = index.search_rows(0, n, 10)
    recall = _tie_aware_recall(distances, truth[:, 9]).mean()
    assert recall == pytest.approx(index.calibrated_recall_, abs=1e-12)  # the same sums, the same answer
    # a higher target takes more candidates and reaches it
    strict = ApproximateIndex(recall=0.99, n_dims=8, calibration_queries=n, seed=0, candidates="graph").fit(X)
    assert strict.n_candidates_ > index.n_candidates_ and strict.calibrated_recall_ >= 0.99
    # calibrate() again: the same rows drawn, the same count
    again = ApproximateIndex(recall=0.9, n_dims=8, calibration_queries=200, seed=0, candidates="graph").fit(X)
    count, measured = again.n_candidates_, again.calibrated_recall_
    again.calibrate()
    assert (again.n_candidates_, again.calibrated_recall_) == (count, measured)
    # n_candidates given: no calibration
    fixed = ApproximateIndex(n_candidates=25, n_dims=8, seed=0, candidates="graph").fit(X)
    assert fixed.n_candidates_ == 25 and fixed.calibrated_recall_ is None and fixed.calibration_ == []


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_returned_distances_are_brute_force_bits(clustered, dtype):
    from graphinvariants.search.approximate import ApproximateIndex
    from graphinvariants.search.exact import brute_force

    X, Q = clustered
    index = ApproximateIndex(n_dims=8, dtype=dtype, seed=1).fit(X)
    stored = index.rows(0, X.shape[0])  # as stored (float32-rounded with dtype="float32")
    found, distances = index.search(Q, 10)
    # the queries rounded as the rows are, as the exact index rounds them (a copy of a
    # stored row at distance exactly 0): the distances are the exact index's bits
    Q = Q.astype(np.float32).astype(np.float64) if dtype == "float32" else Q
    order, every = brute_force(stored, Q, X.shape[0])  # every row's distance, sorted
    full = np.empty_like(every)
    np.put_along_axis(full, order, every, axis=1)
    # equal by construction: both sum each inner product one column at a time in column order
    np.testing.assert_array_equal(distances, np.take_along_axis(full, found, axis=1))
    assert (np.diff(distances, axis=1) >= 0).all()
    recall = _tie_aware_recall(distances, every[:, 9]).mean()
    assert recall >= 0.9  # held-out queries, calibrated for 0.95 on leave-one-out ones


def test_pickle_round_trip_gives_identical_answers(clustered):
    import pickle

    from graphinvariants.search.approximate import ApproximateIndex

    X, Q = clustered
    index = ApproximateIndex(n_dims=8, seed=2).fit(X[:1000])
    loaded = pickle.loads(pickle.dumps(index))
    # equal by construction: the same state, the same code; rows added on one FAISS thread
    # (fixed level seed) make the same graph in both
    assert loaded.n_candidates_ == index.n_candidates_ and loaded.nbytes == index.nbytes
    for a, b in zip(index.search(Q, 10), loaded.search(Q, 10)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(index.search_rows(0, 100, 5), loaded.search_rows(0, 100, 5)):
        np.testing.assert_array_equal(a, b)
    index.add(X[1000:])
    loaded.add(X[1000:])
    for a, b in zip(index.search(Q, 10), loaded.search(Q, 10)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("recall, error, match", [
    (0.0, ValueError, r"recall must be in \(0, 1\]"),
    (1.5, ValueError, r"recall must be in \(0, 1\]"),
    (float("nan"), ValueError, r"recall must be in \(0, 1\]"),
    (-0.2, ValueError, r"recall must be in \(0, 1\]"),
    (True, TypeError, "recall must be a number"),
    ("high", TypeError, "recall must be a number"),
])
def test_bad_recall_is_refused(clustered, recall, error, match):
    from graphinvariants.search.approximate import ApproximateIndex

    with pytest.raises(error, match=match):
        ApproximateIndex(recall=recall).fit(clustered[0][:50])
    with pytest.raises(ValueError, match="n_candidates must be an integer >= 1"):
        ApproximateIndex(n_candidates=0).fit(clustered[0][:50])


def test_leave_one_out_excludes_self_even_beside_duplicates(clustered):
    import scipy.sparse as sp

    from graphinvariants.search.approximate import ApproximateIndex

    X, _ = clustered
    X = sp.csr_array(sp.vstack([X[:300], X[:50]], format="csr"))  # rows 300..349 repeat rows 0..49
    index = ApproximateIndex(n_dims=8, seed=0).fit(X)
    found, distances = index.search_rows(0, 350, 3)
    assert not (found == np.arange(350)[:, None]).any()
    # the duplicate is found first, at distance exactly 0
    twin = np.r_[np.arange(300, 350), np.arange(50)]
    np.testing.assert_array_equal(found[np.r_[0:50, 300:350], 0], twin)
    assert (distances[np.r_[0:50, 300:350], 0] == 0).all()
    # search with exclude= equals search_rows (the same stored rows as queries, the same code)
    again = index.search(index.rows(0, 350), 3, exclude=np.arange(350))
    np.testing.assert_array_equal(again[0], found)
    np.testing.assert_array_equal(again[1], distances)


def test_one_distance_for_queries_with_labels_unseen_at_fit():
    # issue 43 item 4 / 44 item 8: a query with labels no fitted graph has was at
    # sqrt(|q|^2 + 1 - 2K) by the approximate index (its row lacks those labels) and at
    # sqrt(2 - 2K) by the exact engine; now every index reports the kernel's distance
    import warnings

    from graphinvariants.search.approximate import ApproximateIndex
    from graphinvariants.search.exact import ExactIndex, brute_force

    graphs = _random_graphs(60, 3)
    query = nx.barabasi_albert_graph(20, 2, seed=5)
    nx.set_node_attributes(query, {v: "CNSP"[v % 4] for v in query}, "label")  # S and P: unseen at fit
    wl = gi.GraphKernel(kernel="wl", node_label="label")
    d_pair, i_pair = gi.NearestGraphs(wl, n_neighbors=5).fit(graphs).kneighbors([query])  # sqrt(2 - 2K)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "mostly labels that no graph given to fit has"
        for kernel, index in [(wl, "approximate"), (gi.GraphFeatures(wl), "exact"),
                              (gi.GraphFeatures(wl), "approximate")]:
            search = gi.NearestGraphs(kernel, index=index, n_neighbors=5, seed=0).fit(graphs)
            d, i = search.kneighbors([query])
            np.testing.assert_array_equal(i, i_pair)
            # the pair engine sums K in another order: within a few roundings
            np.testing.assert_allclose(d, d_pair, rtol=0, atol=1e-7)
        features = gi.GraphFeatures(wl).fit(graphs)
        X = features.transform(graphs)
        Q, lost = features.transform_with_missing([query, graphs[0]])
    rows_only = np.sqrt(np.maximum(0, (Q[[0]].multiply(Q[[0]])).sum() + 1 - 2 * (1 - d_pair[0, 0] ** 2 / 2)))
    assert d_pair[0, 0] - rows_only > 0.05  # what the rows alone would have said: far from it
    assert lost[0] > 0.1 and lost[1] == 0.0  # a fitted graph lacks nothing
    want = brute_force(X, Q, 5, lost=lost)
    # (the graph's 20 candidates of 60 rows hold these queries' 5 nearest; the column stage
    # over these 3-label rows needs more, and its own tests check its bits)
    for index in (ExactIndex(seed=0).fit(X), ApproximateIndex(n_candidates=20, candidates="graph", n_dims=8,
                                                              seed=0).fit(X)):
        got = index.search(Q, 5, lost=lost)
        np.testing.assert_array_equal(got[1], want[1])  # the same bits: <q, q> + lost, then the same sums
        np.testing.assert_array_equal(got[0], want[0])
        assert index.search(Q[1:], 5, lost=lost[1:])[1][0, 0] == 0.0  # a fitted graph: itself at exactly 0
        with pytest.raises(ValueError, match="lost"):
            index.search(Q, 5, lost=-lost)


@pytest.mark.parametrize("n, given", [(5, None), (11, None), (40, 40), (40, 100)])
def test_a_set_no_larger_than_its_candidates_scores_every_row(n, given):
    # issue 44 item 9: HNSW over a tiny set missed true neighbours while the
    # calibration reported a recall of 1.0; every row is now a candidate there
    from graphinvariants.search.approximate import ApproximateIndex
    from graphinvariants.search.exact import brute_force

    rng = np.random.default_rng(n)
    X = rng.random((n, 6)) ** 4  # skewed rows: bounds far from the distances
    Q = rng.random((30, 6)) ** 4
    for rerank in (True, False):
        index = ApproximateIndex(n_candidates=given, n_dims=2, M=2, ef_construction=1, rerank=rerank,
                                 seed=0).fit(X)
        assert index.n_candidates_ >= n  # (calibrated: 10 candidates of 11 rows, one left out, are all)
        k = min(n - 1, 10)
        i, d = index.search(Q, k)
        if rerank:
            _check = brute_force(X, Q, k)
            np.testing.assert_array_equal(i, _check[0])
            np.testing.assert_array_equal(d, _check[1])
            assert given or index.calibrated_recall_ == 1.0
        else:  # every row ranked by the estimate: each query's k smallest estimates
            assert (np.diff(d, axis=1) >= 0).all() and i.shape == (30, k)


def test_calibration_holds_its_queries_out_of_the_graph(clustered):
    # issue 43 item 3: calibrated on queries from outside (rows kept out of the graph
    # until the count is chosen), as the users' are, not on rows the graph links to
    from graphinvariants.search.approximate import HELD_OUT_RATIO, ApproximateIndex
    from graphinvariants.search.exact import brute_force

    X, Q = clustered
    n = X.shape[0]
    index = ApproximateIndex(recall=0.9, n_dims=8, calibration_queries=n // HELD_OUT_RATIO, seed=0).fit(X)
    assert index.n_rows_ == n and sorted(index._order.tolist()) == list(range(n))  # every row in, once
    held = index._order[-(n // HELD_OUT_RATIO):]  # added last: the calibration's queries
    assert index.calibrated_recall_ >= 0.9 and index.n_candidates_ < n
    found, distances = index.search(Q, 10)
    _, truth = brute_force(X, Q, 10)
    assert _tie_aware_recall(distances, truth[:, 9]).mean() >= 0.85  # new queries near the same centres
    order, every = brute_force(X, Q, n)
    full = np.empty_like(every)
    np.put_along_axis(full, order, every, axis=1)
    np.testing.assert_array_equal(distances, np.take_along_axis(full, found, axis=1))  # positions, not graph numbers
    i, d = index.search(X[held[:5]], 1)
    np.testing.assert_array_equal(i[:, 0], held[:5])  # a held-out row, added after: found at distance 0
    assert (d == 0).all()
