import pickle

import numpy as np
import scipy.sparse as sp

from graphinvariants.search.storage import decompose, narrowest, rebuild
from graphinvariants.search.exact import ExactIndex, brute_force


def _count_rows(n, d, seed, common=1):
    """Rows ``fl(c * s)``: integer counts (times ``common``) over one scale per row."""
    rng = np.random.default_rng(seed)
    C = sp.random(n, d, density=0.1, random_state=rng, format="csr", data_rvs=lambda k: rng.integers(1, 40, k))
    C.data = C.data * common
    norms = np.sqrt(np.asarray(C.multiply(C).sum(axis=1)).ravel())
    scales = np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 0.0)
    X = sp.csr_array(C, dtype=np.float64)
    X.data = X.data * np.repeat(scales, np.diff(X.indptr))
    return X


def test_decompose_gives_back_every_value_to_the_bit():
    for common in (1, 3, 7, 256):  # a common divisor that is not a power of 2 too
        X = _count_rows(400, 60, common, common)
        counts, scales = decompose(X.indptr, X.data)
        assert np.array_equal(rebuild(counts, np.repeat(scales, np.diff(X.indptr))), X.data)
        assert counts.dtype == narrowest(int(counts.min()), int(counts.max()))
    signed = np.array([-3.0, 1.0, 2.0]) / np.sqrt(14.0)
    counts, scales = decompose(np.array([0, 3]), signed)
    assert counts.dtype == np.int8 and np.array_equal(rebuild(counts, scales[0]), signed)


def test_rows_that_are_not_counts_have_no_compact_form():
    rng = np.random.default_rng(0)
    assert decompose(np.arange(0, 401, 4), rng.random(400)) is None
    counts, scales = decompose(np.array([0, 0, 2]), np.array([0.5, 1.5]))  # an empty row: scale 1
    assert counts.tolist() == [1, 3] and scales.tolist() == [1.0, 0.5]


def test_count_rows_are_held_compact_with_the_answers_of_their_values():
    X = _count_rows(600, 80, 1)
    X = sp.csr_array(sp.vstack([X, X[:50]]))  # copies: ties by position at distance 0
    Q = X[::37]
    index = ExactIndex(seed=0, dense_share=0.08).fit(X)
    assert index._compact and index._sparse.dtype == np.uint8 and index._dense.dtype == np.uint8
    assert len(index.dense_columns_) > 0
    assert (index.rows(0, X.shape[0]) != X).nnz == 0
    want = brute_force(X, Q, 7)
    for method in ("bounds", "scan"):
        got = ExactIndex(seed=0, method=method, dense_share=0.08).fit(X).search(Q, 7)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    index.postings()  # made at the first scan; not pickled (made again when asked)
    again = pickle.loads(pickle.dumps(index))
    assert again._postings is None and again._compact
    got = again.search(Q, 7)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_rows_that_are_not_counts_added_later_turn_the_index_to_values():
    X = _count_rows(300, 50, 2)
    other = X[:20].copy()
    other.data = other.data + np.sqrt(2.0) / 10  # not one scale per row
    index = ExactIndex(seed=0).fit(X)
    assert index._compact
    index.add(other)
    assert not index._compact and index._sparse.dtype == np.float64
    both = sp.csr_array(sp.vstack([X, other]))
    assert (index.rows(0, both.shape[0]) != both).nnz == 0
    want = brute_force(both, both[::11], 5)
    got = index.search(both[::11], 5)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_decompose_a_block_of_rows_at_a_time_gives_the_same_counts(monkeypatch):
    from graphinvariants.search import storage

    X = _count_rows(500, 40, 5)
    whole = decompose(X.indptr, X.data)
    monkeypatch.setattr(storage, "DECOMPOSE_ROWS", 64)
    blocks = decompose(X.indptr, X.data)
    assert np.array_equal(whole[0], blocks[0]) and whole[0].dtype == blocks[0].dtype
    assert np.array_equal(whole[1], blocks[1])


def test_a_kernel_names_search_holds_compact_rows_and_pickles_without_postings():
    import networkx as nx

    import graphinvariants as gi

    graphs = [nx.gnp_random_graph(n, 0.2, seed=n) for n in range(10, 70)] + [nx.path_graph(9)] * 2
    search = gi.NearestGraphs("wl", n_neighbors=4).fit(graphs)
    index = search.index_
    assert index._compact and index._sparse.dtype == np.uint8
    rows = index.rows(0, index.n_rows_)
    Q = rows[::9]
    got = index.search(Q, 4)
    want = brute_force(rows, Q, 4, metric=index.metric)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    index.postings()
    again = pickle.loads(pickle.dumps(search))
    assert again.index_._postings is None
    for x, z in zip(search.kneighbors(graphs[:6]), again.kneighbors(graphs[:6])):
        assert np.array_equal(x, z)
