import warnings

import networkx as nx
import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st

import graphinvariants as gi
from graphinvariants.kernels.topk import _kneighbors  # the engine (gi.kneighbors is deprecated)
from graphinvariants.kernels import topk as neighbors
from graphinvariants.kernels.topk import merge_top_k, top_k


def _relabelled(G, seed):
    """An isomorphic copy with shuffled node names: same invariants to the last bit."""
    perm = np.random.default_rng(seed).permutation(G.number_of_nodes())
    return nx.relabel_nodes(G, dict(zip(G, perm.tolist())))


@pytest.fixture(scope="module")
def corpus():
    """Distinct graphs, each present up to three times (once relabelled), so that kernel
    values tie within every row."""
    base = [nx.gnp_random_graph(12 + i % 7, 0.25, seed=i) for i in range(14)]
    base += [nx.barabasi_albert_graph(15 + i % 5, 2, seed=i) for i in range(10)]
    graphs = list(base)
    graphs += [_relabelled(G, i) for i, G in enumerate(base[::2])]
    graphs += base[1::3]
    order = np.random.default_rng(0).permutation(len(graphs))
    return [graphs[i] for i in order]


@pytest.fixture(scope="module")
def queries(corpus):
    return corpus[::4] + [nx.path_graph(9), nx.cycle_graph(8)]


def _brute_force(queries, corpus, n_neighbors, **kw):
    K = gi.kernel_matrix(queries, corpus, **kw)
    order = np.argsort(-K, axis=1, kind="stable")[:, :n_neighbors]
    return order, np.take_along_axis(K, order, axis=1)


@pytest.mark.parametrize("kernel, params", [
    ("power", {"k": 5}), ("power", {"k": 3, "ridge": 1e-8}), ("histogram", {"k": 3}),
    ("wl", {"n_iter": 2}), ("power*histogram", {"k": 3}),
])
@pytest.mark.parametrize("n_neighbors", [1, 4, 7])
def test_equals_brute_force_with_ties(queries, corpus, kernel, params, n_neighbors):
    expected_idx, expected_val = _brute_force(queries, corpus, n_neighbors, kernel=kernel, **params)
    # the corpus really has ties among the neighbours found
    K = gi.kernel_matrix(queries, corpus, kernel=kernel, **params)
    assert any(len(np.unique(row)) < len(row) for row in K)
    idx, val = _kneighbors(queries, corpus, n_neighbors=n_neighbors, kernel=kernel, **params)
    assert idx.dtype == np.int64 and val.dtype == np.float64
    assert idx.shape == val.shape == (len(queries), n_neighbors)
    # exact: kneighbors copies its values from the tiles kernel_matrix computes (each a function of its pair)
    np.testing.assert_array_equal(idx, expected_idx)
    np.testing.assert_array_equal(val, expected_val)


def test_ties_at_the_boundary_go_to_the_smaller_index(corpus):
    """A query whose copies straddle the k-th place keeps the earliest copies."""
    G = corpus[5]
    copies = [i for i, H in enumerate(corpus) if gi.power_kernel(G, H) == 1.0]
    assert len(copies) >= 2
    idx, val = _kneighbors([G], corpus, n_neighbors=len(copies) - 1)
    assert idx[0].tolist() == copies[:-1]
    assert np.all(val == 1.0)


@pytest.mark.parametrize("kernel", ["power", "histogram"])
def test_small_working_memory_gives_the_same_answer_in_many_chunks(queries, corpus, kernel, monkeypatch):
    chunk_rows = []
    original = neighbors.kernel_row_chunks

    def spy(*args, n_rows, **kwargs):
        for rows, block in original(*args, n_rows=n_rows, **kwargs):
            chunk_rows.append(len(rows))
            assert block.shape == (len(rows), len(corpus))
            yield rows, block

    monkeypatch.setattr(neighbors, "kernel_row_chunks", spy)
    row_mib = neighbors._BYTES_PER_PAIR * len(corpus) / 2**20
    idx, val = _kneighbors(queries, corpus, n_neighbors=5, kernel=kernel, working_memory=2.5 * row_mib)
    assert max(chunk_rows) == 2 and len(chunk_rows) == -(-len(queries) // 2)
    chunk_rows.clear()
    with sklearn.config_context(working_memory=3.5 * row_mib):  # working_memory=None reads the global config
        idx2, val2 = _kneighbors(queries, corpus, n_neighbors=5, kernel=kernel)
    assert max(chunk_rows) == 3
    chunk_rows.clear()
    with pytest.warns(UserWarning, match="Could not adhere to working_memory"):
        idx3, val3 = _kneighbors(queries, corpus, n_neighbors=5, kernel=kernel, working_memory=row_mib / 10)
    assert set(chunk_rows) == {1}
    chunk_rows.clear()
    idx4, val4 = _kneighbors(queries, corpus, n_neighbors=5, kernel=kernel, working_memory=1024)
    assert chunk_rows == [len(queries)]
    for i, v in ((idx2, val2), (idx3, val3), (idx4, val4)):
        # exact: chunks of rows change which tiles are computed, not any value
        np.testing.assert_array_equal(i, idx)
        np.testing.assert_array_equal(v, val)


def test_default_working_memory_does_not_warn(queries, corpus):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _kneighbors(queries, corpus, n_neighbors=2)


def test_every_input_form_gives_the_same_answer(tu_datasets):
    mutag = tu_datasets["MUTAG"]
    q, c = mutag[:15], mutag[10:]
    expected = _kneighbors(list(q), list(c), n_neighbors=6)
    for queries, corpus in (
        (q, c),
        (q.batch, c.batch),
        (gi.batch_power_invariants(q), gi.batch_power_invariants(c)),
        (list(gi.batch_power_invariants(q)), c),
    ):
        got = _kneighbors(queries, corpus, n_neighbors=6)
        # exact: every input form gives the same invariants, so the same values
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(expected[0], _brute_force(q, c, 6)[0])


def test_n_neighbors_equal_to_the_corpus_sorts_every_row(queries, corpus):
    idx, val = _kneighbors(queries[:3], corpus, n_neighbors=len(corpus))
    np.testing.assert_array_equal(idx, _brute_force(queries[:3], corpus, len(corpus))[0])
    assert np.all(np.diff(val, axis=1) <= 0)


def test_empty_queries():
    idx, val = _kneighbors(gi.batch_power_invariants([nx.path_graph(5)])[:0], [nx.path_graph(4)], n_neighbors=1)
    assert idx.shape == val.shape == (0, 1)


def test_arguments_are_checked(corpus):
    with pytest.raises(ValueError, match=r"n_neighbors=50 is larger than the corpus, which has 40 graphs"):
        _kneighbors(corpus[:2], corpus[:40], n_neighbors=50)
    with pytest.raises(ValueError, match="n_neighbors"):
        _kneighbors(corpus[:2], corpus, n_neighbors=0)
    with pytest.raises(TypeError, match="n_neighbors"):
        _kneighbors(corpus[:2], corpus, n_neighbors=2.0)
    with pytest.raises(ValueError, match="working_memory"):
        _kneighbors(corpus[:2], corpus, working_memory=0)
    with pytest.raises(TypeError, match="working_memory"):
        _kneighbors(corpus[:2], corpus, working_memory="1GB")
    with pytest.raises(ValueError, match="unknown kernel"):
        _kneighbors(corpus[:2], corpus, kernel="rbf")
    with pytest.raises(ValueError, match="takes the parameters"):
        _kneighbors(corpus[:2], corpus, kernel="histogram", ridge=1e-3)
    with pytest.raises(ValueError, match="n_jobs"):
        _kneighbors(corpus[:2], corpus, n_jobs=0)
    with pytest.raises(TypeError, match="single"):
        _kneighbors(corpus[0], corpus)
    with pytest.raises(ValueError, match="queries and corpus are the same one-shot iterator"):
        g = iter(corpus)
        _kneighbors(g, g, n_neighbors=1)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"graph_id": [0], "mean_0": [0.5]})  # what graphinvariants.distributed stores
    with pytest.raises(TypeError, match=r"corpus is a data frame .*graphinvariants\.distributed\.from_frame"):
        _kneighbors(corpus[:2], frame)
    with pytest.raises(TypeError, match="graphs is a data frame"):
        gi.kernel_matrix(frame)


def test_n_jobs_does_not_change_the_answer(queries, corpus):
    a = _kneighbors(queries, corpus, n_neighbors=5, working_memory=0.001)
    b = _kneighbors(queries, corpus, n_neighbors=5, working_memory=0.001, n_jobs=2)
    # exact: threads split the tiles; each value is a function of its pair
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 6), st.integers(1, 30)),
    n_levels=st.integers(1, 4),
    data=st.data(),
)
def test_top_k_is_a_stable_sort_prefix(seed, shape, n_levels, data):
    """Few distinct values: many ties everywhere, including at the k-th place."""
    rng = np.random.default_rng(seed)
    block = rng.integers(0, n_levels, size=shape) / n_levels
    k = data.draw(st.integers(1, shape[1]))
    labels, values = top_k(block, k)
    order = np.argsort(-block, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(labels, order)
    np.testing.assert_array_equal(values, np.take_along_axis(block, order, axis=1))
    # a top-k of top-k's over column splits, with global labels, is the same answer
    cuts = sorted(set(rng.integers(0, shape[1], size=3).tolist()) | {0, shape[1]})
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        cols = np.arange(a, b)
        lab, val = top_k(block[:, a:b], min(k, b - a), columns=cols)
        parts.append((lab, val, lab * 10))
    merged = parts[0]
    for part in parts[1:]:
        merged = merge_top_k([merged, part], k)
    np.testing.assert_array_equal(merged[0], order)
    np.testing.assert_array_equal(merged[1], values)
    np.testing.assert_array_equal(merged[2], order * 10)


def test_top_k_with_ties_everywhere_stays_within_the_block_memory():
    """Rows of equal values (kernel values that underflow to 0, or graphs no kernel
    separates) used to copy every tied value with its label: several times the block."""
    import tracemalloc

    block = np.zeros((100, 20000))
    block[:, 7] = 1.0
    tracemalloc.start()
    labels, values = top_k(block, 3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1.5 * block.nbytes, f"{peak / block.nbytes:.1f} x the block"
    np.testing.assert_array_equal(labels, np.tile([7, 0, 1], (100, 1)))
    np.testing.assert_array_equal(values, np.tile([1.0, 0.0, 0.0], (100, 1)))


@pytest.mark.parametrize("kernel, params", [
    ("wl", {"n_iter": 3}), ("histogram", {"k": 4}), ("labelled_histogram", {"k": 3}),
    ("power*histogram*wl", {"histogram__k": 5}), ("power", {"k": 5}),
])
def test_chunked_equals_unchunked_exactly(queries, corpus, kernel, params):
    """One query row per chunk, a few rows, and one chunk: the same neighbours and the
    same values to the last bit (count kernels align the two sides once per call)."""
    if kernel == "labelled_histogram":  # a node label that varies: degree parity
        corpus = [_with_parity(G) for G in corpus]
        queries = corpus[::4]
        params = dict(params, node_label="label")
    row_mib = neighbors._BYTES_PER_PAIR * len(corpus) / 2**20
    expected = _kneighbors(queries, corpus, n_neighbors=6, kernel=kernel, working_memory=1024, **params)
    np.testing.assert_array_equal(expected[0], _brute_force(queries, corpus, 6, kernel=kernel, **params)[0])
    for working_memory in (row_mib / 10, 2.5 * row_mib, 7.5 * row_mib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # one row above working_memory: intended
            got = _kneighbors(queries, corpus, n_neighbors=6, kernel=kernel, working_memory=working_memory, **params)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])


def _with_parity(G):
    H = G.copy()
    nx.set_node_attributes(H, {v: d % 2 for v, d in H.degree}, "label")
    return H


def test_count_kernel_tiles_work_on_the_shared_vocabulary_only(corpus):
    """A few queries against a corpus: the aligned count matrices keep only the labels
    both sides have, so a tile's cost no longer grows with the corpus's vocabulary
    (kneighbors of 100 queries in 100,000 graphs took 80-103 s in one-row chunks
    against 2.5 s in one; benchmarks/bench_neighbors_chunks.py prints the ratio)."""
    from graphinvariants.kernels import make_functional

    functional = make_functional("wl", n_iter=3)
    left = functional.as_embeddings(corpus[:2])
    right = functional.as_embeddings(corpus)
    L, R = functional.align(left, right)
    assert L.counts.shape[1] == R.counts.shape[1] <= left.counts.shape[1] < right.counts.shape[1]
    shared = np.intersect1d(L.counts.indices, R.counts.indices)
    assert len(shared) == L.counts.shape[1]  # every column kept is used by both sides
    K = gi.kernel_matrix(corpus[:2], corpus, kernel="wl", n_iter=3)
    np.testing.assert_array_equal(functional.tile(L, R, slice(0, 2), slice(0, len(corpus))), K)


@pytest.mark.parametrize("kernel, params", [("power", {"k": 5}), ("wl", {"n_iter": 2}), ("power*histogram", {"k": 3})])
def test_leave_one_out_excludes_only_the_query_itself(corpus, kernel, params):
    """queries=None (scikit-learn's kneighbors(X=None)): row i is corpus graph i's
    neighbours without position i; identical copies elsewhere stay, ties by position."""
    K = gi.kernel_matrix(corpus, corpus, kernel=kernel, **params)
    np.fill_diagonal(K, -np.inf)
    order = np.argsort(-K, axis=1, kind="stable")[:, :4]
    for working_memory in (1024, neighbors._BYTES_PER_PAIR * len(corpus) * 3 / 2**20):
        idx, val = _kneighbors(None, corpus, n_neighbors=4, kernel=kernel, working_memory=working_memory, **params)
        assert idx.shape == (len(corpus), 4)
        np.testing.assert_array_equal(idx, order)
        np.testing.assert_array_equal(val, np.take_along_axis(K, order, axis=1))
    assert not np.any(idx == np.arange(len(corpus))[:, None])
    # ties: a graph stored three times finds its two copies first, in position order
    for i, G in enumerate(corpus):
        copies = [j for j, H in enumerate(corpus) if j != i and K[i, j] == 1.0]
        assert idx[i, : len(copies)].tolist() == copies[:4]


def test_leave_one_out_of_copies_only():
    """Three identical graphs: each one's neighbours are the two others, smaller first,
    though all kernel values tie (kneighbors(ds, ds) would list the query among them)."""
    G = nx.cycle_graph(6)
    idx, val = _kneighbors(None, [G, G, G], n_neighbors=2)
    assert idx.tolist() == [[1, 2], [0, 2], [0, 1]]
    assert np.all(val == 1.0)
    same, _ = _kneighbors([G, G, G], [G, G, G], n_neighbors=1)
    assert same.ravel().tolist() == [0, 0, 0]  # without None: the smaller index, not the query


def test_leave_one_out_on_mutag_never_returns_the_query(tu_datasets):
    mutag = tu_datasets["MUTAG"]
    idx, _ = _kneighbors(None, mutag, n_neighbors=3)
    assert idx.shape == (len(mutag), 3)
    assert not np.any(idx == np.arange(len(mutag))[:, None])
    first, _ = _kneighbors(mutag, mutag, n_neighbors=1)
    assert np.mean(first[:, 0] == np.arange(len(mutag))) < 1  # why the option exists


def test_leave_one_out_arguments_are_checked(corpus):
    with pytest.raises(ValueError, match=r"n_neighbors=40, but with queries=None each of the 40 corpus graphs has only 39 others"):
        _kneighbors(None, corpus[:40], n_neighbors=40)
    with pytest.raises(TypeError, match="corpus must be a collection of graphs, got None"):
        _kneighbors(None, None)
    idx, _ = _kneighbors(None, corpus[:2], n_neighbors=1)
    assert idx.tolist() == [[1], [0]]


def test_gi_kneighbors_is_deprecated_for_nearest_graphs():
    # issue 38, friction 12: two doors, two conventions; NearestGraphs is the one door
    graphs = [nx.gnp_random_graph(12, 0.3, seed=s) for s in range(10)]
    corpus = graphs + graphs[:3]
    with pytest.warns(FutureWarning, match=r"deprecated since 0\.3\.0 and goes in 0\.4\.0: use NearestGraphs"):
        indices, values = gi.kneighbors(graphs[:4], corpus, n_neighbors=3, kernel="wl")
    distances, same = gi.NearestGraphs(kernel="wl", n_neighbors=3).fit(corpus).kneighbors(graphs[:4])
    np.testing.assert_array_equal(same, indices)
    np.testing.assert_allclose(1 - distances**2 / 2, values, rtol=0, atol=1e-12)  # sqrt rounds: 1e-16 * 2/d
    with pytest.warns(FutureWarning):
        loo, _ = gi.kneighbors(None, corpus, n_neighbors=2, kernel="wl")
    np.testing.assert_array_equal(gi.NearestGraphs(kernel="wl", n_neighbors=2).fit(corpus).kneighbors()[1], loo)
