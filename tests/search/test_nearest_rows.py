"""A kernel name with exact rows is searched by the index over its feature rows (issue
43, item 1), reads the labels the fitted graphs carry (issue 44, item 15), and keeps
the distances the pair engine gave: ``sqrt(max(0, 2 - 2 K))``, ties by position."""

import warnings

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings.counts import CountFeatures
from graphinvariants.graphs.batch import subset
from graphinvariants.search.exact import ExactIndex
from tests.conftest import renumbered

#: 2 - 2K from rows differs from the pair engine's by a few roundings of values near 1
#: (rows divided by their norms' square roots, summed in another order): 1e-14 on
#: squared distances covers them with a margin of 10 over what was seen (1.3e-15).
SQUARED_TOLERANCE = 1e-14


def _brute_force(K, k):
    """Exhaustive top-k of ``sqrt(max(0, 2 - 2K))``, ties by position (a stable sort)."""
    D = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * K))
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, order, axis=1), order


def _assert_same_answer(got, want):
    (d, i), (wd, wi) = got, want
    np.testing.assert_allclose(d**2, wd**2, rtol=0, atol=SQUARED_TOLERANCE)
    # the same neighbours, but where two of them are within rounding of each other
    for q in range(len(i)):
        differ = i[q] != wi[q]
        assert np.all(np.abs(wd[q][differ] ** 2 - d[q][differ] ** 2) <= SQUARED_TOLERANCE), (q, i[q], wi[q])


@pytest.mark.parametrize("kernel", ["wl", "wloa", "histogram", "labelled_histogram", "shortest_path",
                                    "rooted_subgraph"])
def test_name_equals_its_graph_features_and_brute_force(tu_load, kernel):
    data = tu_load("MUTAG")
    # held out, and (all their labels seen) some of the fitted graphs
    fitted, queries = subset(data, np.arange(0, 150)), subset(data, np.r_[150:188, 0:150:15])
    search = gi.NearestGraphs(kernel, n_neighbors=7).fit(fitted)
    assert isinstance(search.index_, ExactIndex)  # the index over rows, not the pair engine
    params = {key: value for key, value in search.feature_map_.kernel_.get_params().items()
              if key in ("node_label", "edge_label")}
    taken = {"wl": ("node_label", "edge_label"), "wloa": ("node_label",), "labelled_histogram": ("node_label",),
             "shortest_path": ("node_label", "edge_label"), "rooted_subgraph": ("node_label", "edge_label")}
    for key in taken.get(kernel, ()):  # MUTAG carries atom and bond labels: a name reads them
        assert params[key] == "label"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (held-out molecules with mostly unseen labels)
        K = gi.kernel_matrix(queries, fitted, kernel=kernel, **params)
        got = search.kneighbors(queries)
        rows = gi.NearestGraphs(gi.GraphFeatures(gi.GraphKernel(kernel=kernel, **params)), n_neighbors=7).fit(fitted)
        by_rows = rows.kneighbors(queries)
    _assert_same_answer(got, _brute_force(K, 7))
    # GraphFeatures of that name: the same index over the same rows, so the same answer
    # to the last bit for a query whose labels were all seen; for the others its
    # distances take the row's own norm (below 1), the name's sqrt(2 - 2K)
    _, missing = search.feature_map_.transform_with_missing(queries)
    seen = missing == 0
    assert seen.any()
    np.testing.assert_array_equal(by_rows[0][seen], got[0][seen])
    np.testing.assert_array_equal(by_rows[1][seen], got[1][seen])
    assert np.all(by_rows[0][~seen] < got[0][~seen] + 1e-12)
    # leave-one-out
    K_all = gi.kernel_matrix(fitted, kernel=kernel, **params)
    np.fill_diagonal(K_all, -np.inf)  # itself left out: last
    _assert_same_answer(search.kneighbors(n_neighbors=5), _brute_force(K_all, 5))


def test_unseen_labels_keep_sqrt_2_minus_2k(tu_load):
    data = gi.datasets.as_molecules(tu_load("MUTAG"))
    search = gi.NearestGraphs("wl", n_neighbors=3).fit(data)
    G = data[0].copy()
    nx.set_node_attributes(G, "S", "label")  # no sulphur in MUTAG: every label unseen
    distances, _ = search.kneighbors([G])
    np.testing.assert_allclose(distances**2, 2.0, rtol=0, atol=SQUARED_TOLERANCE)  # K = 0, not a copy at 0
    H = data[5].copy()
    nx.set_node_attributes(H, {next(iter(H)): "S"}, "label")  # one atom unseen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        K = gi.kernel_matrix([H], data, kernel="wl", node_label="label", edge_label="label")
    _assert_same_answer(search.kneighbors([H]), _brute_force(K, 3))
    assert search.kneighbors([H])[0][0, 0] > 0.1


def test_smiles_against_a_labelled_tu_set(tu_load):
    pytest.importorskip("rdkit")
    # issue 44, item 15: the atoms were not read, so these three had identical neighbours
    search = gi.NearestGraphs("wl", n_neighbors=5).fit(gi.datasets.as_molecules(tu_load("MUTAG")))
    d_o, i_o = search.kneighbors(["CCCCCCO"])
    d_s, _ = search.kneighbors(["CCCCCCS"])
    assert not np.array_equal(d_o, d_s)
    d, i = search.kneighbors(["c1ccc2ccccc2c1[N+](=O)[O-]"])
    assert d[0, 0] == 0.0


def test_a_query_renumbered_gets_the_same_answer(tu_load, rng):
    data = gi.datasets.as_molecules(tu_load("MUTAG"))
    search = gi.NearestGraphs("wl", n_neighbors=6).fit(subset(data, np.arange(0, 160)))
    queries = [data[i] for i in range(160, 170)]
    moved = [renumbered(G, rng) for G in queries]
    assert [list(G) for G in moved] != [list(G) for G in queries]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d, i = search.kneighbors(queries)
        d2, i2 = search.kneighbors(moved)
    np.testing.assert_array_equal(d, d2)  # the same integer counts: the same rows, bit for bit
    np.testing.assert_array_equal(i, i2)


def test_labels_read_where_the_graphs_carry_them():
    plain = [nx.path_graph(n) for n in range(3, 9)]
    labelled = [G.copy() for G in plain]
    for G in labelled:
        nx.set_node_attributes(G, {v: "CO"[v % 2] for v in G}, "label")
    assert gi.NearestGraphs("wl").fit(plain).feature_map_.kernel_.get_params().get("node_label") is None
    search = gi.NearestGraphs("wl").fit(labelled)
    params = search.feature_map_.kernel_.get_params()
    assert params["node_label"] == "label" and params.get("edge_label") is None  # no edge labels to read
    assert gi.NearestGraphs("wl:node_label=None").fit(labelled).feature_map_.kernel_.get_params().get("node_label") is None
    flipped = labelled[4].copy()  # path 7: OCOCOCO is not COCOCOC
    nx.set_node_attributes(flipped, {v: "OC"[v % 2] for v in flipped}, "label")
    assert search.kneighbors([flipped], n_neighbors=1)[0][0, 0] > 0  # the labels count
    with pytest.raises(ValueError, match="node 0 has no attribute 'label'"):  # fitted with labels, asked without
        search.kneighbors([nx.path_graph(6)])


def test_partial_fit_with_a_name():
    graphs = [nx.path_graph(n) for n in range(3, 9)]
    search = gi.NearestGraphs("wl", n_neighbors=2).fit(graphs[:3])
    search.partial_fit(graphs[3:])
    K = gi.kernel_matrix([graphs[1]], graphs, kernel="wl")  # every label of path 4 was seen at fit
    _assert_same_answer(search.kneighbors(graphs[1:2]), _brute_force(K, 2))
    d, i = search.kneighbors()
    assert d.shape == (6, 2) and np.all(np.isfinite(d))
    with pytest.raises(ValueError, match=r"GraphFeatures\('power'\) as kernel.*or index='approximate'"):
        gi.NearestGraphs("power").fit(graphs).partial_fit(graphs[:1])


def test_learned_default_rows_skip_the_merge(tu_load, monkeypatch):
    data = tu_load("MUTAG")
    search = gi.NearestGraphs(n_neighbors=3, seed=0).fit(data[:120], data.y[:120])
    exact = [m.functional for m in search.feature_map_._exact if hasattr(m, "count_map")]
    assert exact and all(isinstance(f, CountFeatures) for f in exact)
    for f in exact:
        monkeypatch.setattr(type(f), "merge", _refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert search.kneighbors(data[150:152])[1].shape == (2, 3)


def _refuse(*args, **kwargs):
    raise AssertionError("merge was called: a query paid for the whole fitted vocabulary")


@pytest.mark.parametrize("prefitted", [False, True])
def test_stored_rows_that_lack_labels_answer_alike_by_query_and_leave_one_out(prefitted):
    """Graphs whose labels the map never saw (added by partial_fit, or stored by a map
    fitted on other graphs) hold their missing part in a column of their own: the exact
    and the approximate index give the same distances, leave-one-out equals asking each
    stored graph as a query (its own row aside), and a query of two stars is at the
    distance the kernel gives when their unseen labels are counted apart. Before, the
    approximate index's leave-one-out matched the two columns (0.0026 where the exact
    index said 1.2952) and a map fitted on other graphs put a stored graph's own copy at
    0.916 by query but its neighbours near 0 by leave-one-out."""
    pytest.importorskip("faiss")
    paths = [nx.path_graph(n) for n in range(3, 9)]
    stars = [nx.star_graph(5), nx.star_graph(6), nx.star_graph(7)]
    answers = []
    for index in ("exact", "approximate"):
        if prefitted:
            features = gi.GraphFeatures("wl").fit(paths)
            search = gi.NearestGraphs(features, index=index, n_neighbors=3).fit(paths + stars)
        else:
            search = gi.NearestGraphs("wl", index=index, n_neighbors=3).fit(paths).partial_fit(stars)
        loo = search.kneighbors()
        asked = search.kneighbors(stars, n_neighbors=4)
        answers.append((loo, asked))
        n = len(paths)
        for j in range(len(stars)):  # a stored star's neighbours: the same by query, itself aside
            own = asked[1][j] != n + j
            np.testing.assert_allclose(loo[0][n + j], asked[0][j][own][:3], rtol=0, atol=1e-12)
            assert loo[1][n + j].tolist() == asked[1][j][own][:3].tolist()
    # both indexes answer alike (the approximate index scores every row of so small a set)
    (loo_e, asked_e), (loo_a, asked_a) = answers
    np.testing.assert_allclose(loo_e[0], loo_a[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(asked_e[0], asked_a[0], rtol=0, atol=1e-12)
    # a star's unseen labels count in its norm, never in an inner product: its own copy
    # is at sqrt(2 m), m its row's missing part (documented in the module)
    _, missing = search.feature_map_.transform_with_missing(stars)
    assert missing.min() > 0
    for j in range(len(stars)):
        at = asked_e[1][j].tolist().index(len(paths) + j)
        assert asked_e[0][j][at] == pytest.approx(np.sqrt(2 * missing[j]), abs=1e-12)


def _labelled(n, seed, alphabet):
    G = nx.gnp_random_graph(n, 0.4, seed=seed)
    rng = np.random.default_rng(seed)
    nx.set_node_attributes(G, {v: str(rng.choice(alphabet)) for v in G}, "label")
    nx.set_edge_attributes(G, "-", "label")
    return G


@pytest.mark.parametrize("kernel", ["wl", "shortest_path", "rooted_subgraph"])
def test_no_shared_label_gives_equal_distances_by_position(kernel):
    """Issue 52, item 8: a query with K = 0 to every fitted graph (no label in common)
    is at exactly sqrt(2) from each, in position order (not [1, 4, 0, 2], the order of
    the last bits of the rows' norms)."""
    fitted = [_labelled(5 + i % 7, i, list("ABC")) for i in range(30)]
    search = gi.NearestGraphs(kernel, n_neighbors=30).fit(fitted)
    assert gi.kernel_matrix([_labelled(8, 99, list("XYZ"))], fitted, kernel=kernel, node_label="label").max() == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (labels unseen at fit)
        distances, indices = search.kneighbors([_labelled(8, 99, list("XYZ"))])
    np.testing.assert_array_equal(indices, [np.arange(30)])
    assert np.all(distances == np.sqrt(2.0))


@pytest.mark.parametrize("kernel", ["wl", "histogram"])
def test_float32_index_finds_copies_at_distance_zero(kernel):
    """Issue 52, item 8: with a float32 index an identical graph is at distance exactly
    0, as the docs promise (it was at 2.98e-08: its row rounded, the query's not)."""
    graphs = [_labelled(6 + i % 9, i, list("ABCD")) for i in range(40)]
    search = gi.NearestGraphs(kernel, n_neighbors=2, index_params={"dtype": "float32"}).fit(graphs)
    distances, indices = search.kneighbors(graphs[:15])
    assert np.all(distances[:, 0] == 0.0)
    assert np.all(search.kneighbors()[0] >= 0.0)  # leave-one-out: the copies' rows, rounded alike
