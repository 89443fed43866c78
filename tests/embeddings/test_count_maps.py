"""Fitted count maps (issue 43, item 1): every count member finds a new batch's labels
among the fitted ones by their signatures, in time set by the batch, and finds the
columns that merging with the whole fitted vocabulary finds."""

import copy
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.embeddings.assignment import column_maxima, unary_code
from graphinvariants.embeddings.counts import CountMap, RowLookup, squared_norms
from graphinvariants.graphs.batch import subset
from graphinvariants.kernels import make_functional

#: Every count member, with the parameters that change how its labels are made.
MEMBERS = [
    ("wl", {}), ("wl", {"node_label": "label"}), ("wl", {"node_label": "label", "edge_label": "label"}),
    ("wl_closed", {}), ("wloa", {}), ("wloa", {"node_label": "label"}),
    ("histogram", {}), ("histogram_oa", {}), ("closed_histogram", {}),
    ("labelled_histogram", {}), ("labelled_histogram", {"edge_label": "label"}), ("labelled_histogram_oa", {}),
    ("rooted_subgraph", {"node_label": "label", "edge_label": "label"}), ("rooted_subgraph", {}),
    ("shortest_path", {}), ("shortest_path", {"node_label": "label", "edge_label": "label"}),
]


def _split(dataset):
    n = len(dataset)
    return subset(dataset, np.arange(0, n, 2)), subset(dataset, np.arange(1, n, 2))


@pytest.mark.parametrize(("name", "params"), MEMBERS, ids=lambda v: str(v))
def test_count_map_finds_the_columns_merging_finds(tu_load, name, params):
    fitted, queries = _split(tu_load("MUTAG"))
    functional = make_functional(name, **params)
    a, b = functional.as_embeddings(fitted), functional.as_embeddings(queries)
    found = functional.count_map(a)
    assert type(found) is not CountMap  # the member's own lookup, not the merge
    columns = found.columns(b)
    np.testing.assert_array_equal(columns, CountMap(functional, a).columns(b))
    assert 0 < (columns >= 0).mean() < 1 or (name, params) == ("shortest_path", {})  # seen and unseen labels met
    # the counts on the fitted columns, as the merge gives them
    merged_a, merged_b = functional.merge(a, b)
    place = sp.csr_array(functional.merge(CountMap(functional, a).probe, b)[0])
    want = sp.csr_array(sp.csr_array(merged_b) @ place.T)
    want.sum_duplicates()
    got = found.counts(b)
    # counts are integers (exact in float64): equal entry by entry
    assert (got != want).nnz == 0 and np.array_equal(got.indices, want.indices)
    assert squared_norms(merged_b).tolist() == squared_norms(b.counts).tolist()


@pytest.mark.parametrize("name", ["wl", "labelled_histogram", "shortest_path"])
def test_count_map_on_other_sets(tu_load, name):
    for dataset in ("NCI1", "ENZYMES"):
        fitted, queries = _split(tu_load(dataset)[:600])
        functional = make_functional(name, node_label="label") if name != "labelled_histogram" else \
            make_functional(name)
        a, b = functional.as_embeddings(fitted), functional.as_embeddings(queries)
        np.testing.assert_array_equal(functional.count_map(a).columns(b), CountMap(functional, a).columns(b))


def _complete(n, label="C"):
    G = nx.complete_graph(n)
    nx.set_node_attributes(G, {v: label if v % 3 else "N" for v in G}, "label")
    return G


@pytest.mark.parametrize(("name", "params"), [("histogram", {"k": 14}), ("labelled_histogram", {"k": 13}),
                                              ("histogram_oa", {"k": 14})])
def test_count_map_across_digit_forms(name, params):
    # walk counts of complete graphs pass int64 (they are then held as base-2**31 digits):
    # fitted and query batches may hold one count in different forms
    big = [_complete(40), _complete(41), _complete(6)]
    small = [_complete(5), nx.relabel_nodes(_complete(6), {0: 9, 9: 0}), _complete(40)]
    paths = [nx.path_graph(5), nx.cycle_graph(6)]
    for graph in paths:
        nx.set_node_attributes(graph, "C", "label")
    functional = make_functional(name, **params)
    for fit, query in [(big, small), (small + paths, big), (big + paths, paths), (paths, big)]:
        a, b = functional.as_embeddings(fit), functional.as_embeddings(query)
        columns = functional.count_map(a).columns(b)
        np.testing.assert_array_equal(columns, CountMap(functional, a).columns(b))
    a = functional.as_embeddings(big)
    assert (functional.count_map(a).columns(functional.as_embeddings(big[:1])) >= 0).all()


def test_row_lookup_is_exact():
    rng = np.random.default_rng(0)
    rows = np.unique(rng.integers(-3, 4, size=(500, 3)), axis=0)
    table = RowLookup(rows)
    asked = rng.integers(-4, 5, size=(300, 3))
    want = [next((i for i, r in enumerate(rows.tolist()) if r == q), -1) for q in asked.tolist()]
    assert table.find(asked).tolist() == want
    perm = rng.permutation(len(rows))
    shuffled = RowLookup(rows[perm])  # not in order: sorted once
    assert shuffled.order is not None and shuffled.find(rows).tolist() == np.argsort(perm).tolist()
    assert table.find(asked, known=np.zeros(len(asked), bool)).tolist() == [-1] * len(asked)


def _old_rows(member, block):
    """GraphFeatures' rows of an exact member as they were made before the fitted count
    map: merged with the whole fitted vocabulary (issue 43's old path), verbatim."""
    embedded = member.functional.as_embeddings(block, what="X")
    place, counts = member.functional.merge(member.probe, embedded)
    counts = sp.csr_array(counts)
    kept = sp.csr_array(counts @ sp.csr_array(place).T)
    kept.sum_duplicates()
    if member.assignment:
        norms = np.asarray(counts.sum(axis=1), dtype=np.float64).reshape(-1)
        kept.data = np.minimum(kept.data, member.widths[kept.indices].astype(np.float64))
        kept = unary_code(kept, member.widths)
    else:
        norms = squared_norms(counts)
    scale = np.where(norms > 0, member.scale / np.sqrt(norms), 0.0)
    kept = sp.csr_array(kept)
    kept.data = kept.data * np.repeat(scale, np.diff(kept.indptr))
    return kept, norms


@pytest.mark.parametrize("kernel", ["wl", "wl:node_label=label", "wloa", "histogram", "labelled_histogram",
                                    "shortest_path:node_label=label", "rooted_subgraph:node_label=label"])
def test_graph_features_rows_equal_the_old_path(tu_load, kernel):
    fitted, queries = _split(tu_load("MUTAG"))
    features = gi.GraphFeatures(kernel).fit(fitted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (graphs with mostly unseen labels: the rows are compared)
        new = features.transform(queries)
    (member,) = features._exact
    old, norms = _old_rows(member, queries)
    assert np.array_equal(new.indptr, old.indptr) and np.array_equal(new.indices, old.indices)
    # the same values; bit for bit where a graph's counts have no common divisor above 1
    # (then the operations are the same), else within 2 units of the last place
    # (counts divided by their gcd, then by the norm's square root: two roundings)
    np.testing.assert_allclose(new.data, old.data, rtol=4.5e-16, atol=0)
    counts = member.functional.as_embeddings(queries).counts
    plain = np.array([np.gcd.reduce(counts[[g]].data.astype(np.int64)) == 1 for g in range(counts.shape[0])])
    rows = np.repeat(plain, np.diff(new.indptr)) if not member.assignment else np.ones(new.nnz, bool)
    assert plain.any() and np.array_equal(new.data[rows], old.data[rows])


def test_query_cost_does_not_grow_with_the_collection(tu_load, monkeypatch):
    """A graph becomes its row without the fitted vocabulary being merged (no call of
    ``merge``), by lookups of its own labels only: as many rows looked up whatever the
    size of the collection."""
    data = tu_load("NCI1")
    query = data[3000:3001]
    looked_up = []
    find = RowLookup.find

    def counted(self, rows, known=None):
        looked_up.append(len(rows))
        return find(self, rows, known)

    sizes = []
    for n in (100, 2000):
        features = gi.GraphFeatures("wl:node_label=label").fit(data[:n])
        vocabulary = features._exact[0].count_map.n_columns
        monkeypatch.setattr(RowLookup, "find", counted)
        monkeypatch.setattr(type(features._exact[0].functional), "merge", _refuse)
        looked_up.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            features.transform(query)
        monkeypatch.undo()
        sizes.append((vocabulary, sum(looked_up)))
    assert sizes[1][0] > 5 * sizes[0][0]  # a vocabulary many times larger
    labels = gi.GraphFeatures("wl:node_label=label").fit(query)._exact[0].count_map.n_columns
    assert sizes[0][1] <= labels and sizes[1][1] <= labels  # at most the query's own labels, each once


def _refuse(*args, **kwargs):
    raise AssertionError("merge was called: the query paid for the whole fitted vocabulary")


def test_count_map_refuses_other_forms():
    graphs = [nx.path_graph(4), nx.cycle_graph(5)]
    closed = make_functional("wl_closed").as_embeddings(graphs)
    plain = make_functional("wl").as_embeddings(graphs)
    with pytest.raises(ValueError, match="closed walks"):
        make_functional("wl").count_map(plain).columns(closed)
    for G in graphs:
        nx.set_node_attributes(G, 1, "label")
    numbers = make_functional("wl", node_label="label").as_embeddings(graphs)
    for G in graphs:
        nx.set_node_attributes(G, "C", "label")
    text = make_functional("wl", node_label="label").as_embeddings(graphs)
    with pytest.raises(TypeError, match="numbers and of the other strings"):
        make_functional("wl", node_label="label").count_map(numbers).columns(text)


def test_copy_of_a_batch_is_found_whole():
    graphs = [nx.path_graph(n) for n in range(3, 9)]
    functional = make_functional("wl")
    a = functional.as_embeddings(graphs)
    b = copy.deepcopy(a)
    np.testing.assert_array_equal(functional.count_map(a).columns(b), np.arange(a.counts.shape[1]))
    assert column_maxima(a.counts).shape == (a.counts.shape[1],)
