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
    # oversubscription; a sample this small is now LAPACK's full SVD, on one BLAS thread
    from graphinvariants.search.approximate import DENSE_SVD_ENTRIES, ApproximateIndex

    rng = np.random.default_rng(0)
    X = rng.random((188, 400))
    index = ApproximateIndex(n_dims=16, seed=0).fit(X)
    assert index.svd_solver_ == "full"
    _, _, vt = np.linalg.svd(X, full_matrices=False)
    # the same 16 directions (to sign): |<v_i, w_i>| = 1 up to rounding (1e-8: LAPACK
    # drivers differ in the last bits of singular vectors)
    np.testing.assert_allclose(np.abs(np.sum(vt[:16] * index.components_.T, axis=1)), 1, atol=1e-8)
    wide = 1 + DENSE_SVD_ENTRIES // 40
    S = np.zeros((40, wide))
    S[np.arange(40), np.arange(40)] = 1.0 + np.arange(40)
    import scipy.sparse as sp

    assert ApproximateIndex(n_dims=8, seed=0).fit(sp.csr_array(S)).svd_solver_ == "full"  # 40 columns held
    big = sp.random(50, DENSE_SVD_ENTRIES // 40, density=0.05, random_state=0, format="csr")
    assert ApproximateIndex(n_dims=8, seed=0).fit(big).svd_solver_ == "randomized"
    ApproximateIndex(n_dims=16, seed=0, progress=True).fit(X)
    assert "approximate index" in capsys.readouterr().err
    ApproximateIndex(n_dims=16, seed=0).fit(X)  # None: no bar below PROGRESS_ROWS
    assert "approximate index" not in capsys.readouterr().err
