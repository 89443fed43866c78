"""The Weisfeiler-Lehman query path (issue 51, item 5): a few small graphs' label counts,
made on plain arrays and looked up in packed signature tables, give the rows that the
per-degree path (embed, then the count map's columns) gives, bit for bit."""

import warnings

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings import WeisfeilerLehman, wl_lookup
from graphinvariants.embeddings.counts import CountMap, label_places
from graphinvariants.embeddings.wl_lookup import SignatureTable, label_index, own_labels, small_batch_counts
from graphinvariants.graphs.batch import subset
from graphinvariants.graphs.csr import CSRArrays


def _same_rows(got, want):
    """Two ``transform_with_missing`` results, equal to the bit: values, indices and types.
    Exact by construction: both paths give the same integer label counts, and one row
    arithmetic (features/maps.py) turns counts into values with the same operations."""
    (a, lost_a), (b, lost_b) = got, want
    assert a.shape == b.shape and a.indices.dtype == b.indices.dtype and a.indptr.dtype == b.indptr.dtype
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    assert a.data.tobytes() == b.data.tobytes() and lost_a.tobytes() == lost_b.tobytes()


def _both_paths(features, blocks, monkeypatch):
    """Each block's rows by the array path (counting the blocks it took) and by the
    per-degree path, in the same process."""
    taken, made = [], small_batch_counts

    def counted(*args, **kwargs):
        found = made(*args, **kwargs)
        taken.append(found is not None)
        return found

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (queries with mostly unseen labels: their rows are compared)
        with monkeypatch.context() as patch:
            patch.setattr(wl_lookup, "small_batch_counts", counted)
            patch.setattr("graphinvariants.embeddings.wl.small_batch_counts", counted)
            fast = [features.transform_with_missing(block) for block in blocks]
        with monkeypatch.context() as patch:
            patch.setattr(wl_lookup, "SMALL_CELLS", -1)
            slow = [features.transform_with_missing(block) for block in blocks]
    for got, want in zip(fast, slow):
        _same_rows(got, want)
    return taken


def test_molecules_one_per_call_and_in_blocks(tu_load, monkeypatch):
    pytest.importorskip("rdkit")
    from rdkit import Chem, RDLogger

    from graphinvariants.datasets import as_molecules, to_mol

    RDLogger.DisableLog("rdApp.*")
    smiles = []
    for G in as_molecules(tu_load("Mutagenicity"))[::6]:
        try:
            written = Chem.MolToSmiles(to_mol(G))
        except Exception:  # a molecule RDKit will not write
            continue
        if Chem.MolFromSmiles(written) is not None:  # (nor read back)
            smiles.append(written)
    fitted, queries = smiles[:400], smiles[400:]
    features = gi.NearestGraphs("wl", n_neighbors=3).fit(fitted).feature_map_
    blocks = [[s] for s in queries[:150]] + [queries[i : i + 10] for i in range(150, len(queries), 10)]
    taken = _both_paths(features, blocks, monkeypatch)
    assert all(taken) and len(taken) == len(blocks)
    # the other labellings and rounds of the member, and closed walks
    for kernel in ("wl:n_iter=2", "wl:node_label=None", "wl_closed:closed_walks=4"):
        features = gi.GraphFeatures(kernel).fit(fitted[:200])
        assert all(_both_paths(features, [[s] for s in queries[:30]] + [queries[30:60]], monkeypatch))


@pytest.mark.parametrize(("name", "kernel"), [
    ("MUTAG", "wl:node_label=label,edge_label=label"), ("MUTAG", "wl"), ("MUTAG", "wl_closed"),
    ("Mutagenicity", "wl_closed:node_label=label,edge_label=label,closed_walks=3"),
    ("NCI1", "wl:node_label=label"), ("ENZYMES", "wl_closed:node_label=label"), ("IMDB-BINARY", "wl"),
])
def test_tu_graphs(tu_load, monkeypatch, name, kernel):
    data = tu_load(name)
    n = min(len(data), 600)
    features = gi.GraphFeatures(kernel).fit(subset(data, np.arange(0, n, 2)))
    queries = np.arange(1, n, 2)
    blocks = [subset(data, [i]) for i in queries[:80]] + [list(subset(data, queries[80:84])), subset(data, queries)]
    taken = _both_paths(features, blocks, monkeypatch)
    (member,) = features._exact
    packed = all(table.packed for table in member.count_map.rounds)  # (IMDB-BINARY's hubs: per degree)
    cells = []
    for block in blocks:
        batch = member.functional.graph_batch(block)
        cells.append(batch.n_nodes * (np.diff(batch.matrix.indptr).max() + 1))
    assert taken == [packed and c <= wl_lookup.SMALL_CELLS for c in cells]
    assert (name == "IMDB-BINARY") != packed
    assert cells[-1] > wl_lookup.SMALL_CELLS or name == "MUTAG"  # (its 94 queries fit the array path)


def test_a_hub_wider_than_the_fitted_graphs_and_many_own_labels(monkeypatch):
    """A query node of a degree no fitted node has sends its batch the per-degree way; a
    batch with more labels of its own than the fitted fields hold is told apart by its
    rows; the rows are the same bits either way."""
    fitted = [nx.path_graph(n) for n in range(3, 12)] + [nx.cycle_graph(n) for n in range(3, 9)] + [nx.star_graph(9)]
    features = gi.GraphFeatures("wl").fit(fitted)
    queries = [[nx.star_graph(12)], [nx.path_graph(7)], [nx.wheel_graph(9)], [nx.star_graph(30), nx.path_graph(5)]]
    assert _both_paths(features, queries, monkeypatch) == [False, True, True, False]
    trees = [nx.random_labeled_tree(40, seed=s) for s in range(12)]
    trees = [T for T in trees if max(d for _, d in T.degree) <= 9]
    (member,) = features._exact
    assert len(trees) > 5 and member.count_map.rounds[1].bits < 10  # ~400 own labels of round 1, and more
    assert _both_paths(features, [trees], monkeypatch) == [True]


def test_unpacked_tables_find_what_packed_ones_find(tu_load, monkeypatch):
    fitted, queries = subset(tu_load("MUTAG"), np.arange(0, 188, 2)), subset(tu_load("MUTAG"), np.arange(1, 188, 2))
    functional = WeisfeilerLehman(node_label="label", edge_label="label")
    a, b = functional.as_embeddings(fitted), functional.as_embeddings(queries)
    packed = functional.count_map(a)
    assert all(table.packed for table in packed.rounds)
    with monkeypatch.context() as patch:
        patch.setattr(wl_lookup, "MAX_WORDS", 0)
        plain = functional.count_map(a)
    assert not any(table.packed for table in plain.rounds)
    want = CountMap(functional, a).columns(b)
    np.testing.assert_array_equal(packed.columns(b), want)
    np.testing.assert_array_equal(plain.columns(b), want)
    one = CSRArrays.of(functional.graph_batch(subset(queries, [0])))
    assert small_batch_counts(plain, one, node_label="label", edge_label="label", n_iter=5) is None
    assert small_batch_counts(packed, one, node_label="label", edge_label="label", n_iter=5) is not None
    assert small_batch_counts(packed, one, node_label="label", edge_label="label", n_iter=4) is None


def test_signature_table_by_its_words():
    rng = np.random.default_rng(0)
    by_degree = {}
    for d in (0, 1, 2, 5):
        rows = rng.integers(0, 40, size=(300, d + 1))
        rows[:, 1:].sort(axis=1)
        by_degree[d] = np.unique(rows, axis=0)
    labels = {(d, tuple(r)): i for i, (d, r) in enumerate((d, r) for d, rows in by_degree.items()
                                                            for r in rows.tolist())}
    # 6 bits a field (keys + 1 up to 40), 10 fields a word, 7 fields: one word; keys
    # up to 5,000 (13 bits a field, 4 a word): two words
    for n_keys, n_words in ((40, 1), (5000, 2)):
        table = SignatureTable(by_degree, n_keys)
        assert table.packed and table.n_words == n_words
        for d, rows in by_degree.items():
            asked = np.concatenate((rows[::3], rng.integers(0, 40, size=(50, d + 1))))
            asked[:, 1:].sort(axis=1)
            want = [labels.get((d, tuple(r)), -1) for r in asked.tolist()]
            assert table.find(d, asked).tolist() == want
            assert table.find(d, asked, known=np.arange(len(asked)) % 2 == 0).tolist() == [
                w if i % 2 == 0 else -1 for i, w in enumerate(want)]
        assert table.find(6, np.zeros((2, 7), np.int64)).tolist() == [-1, -1]  # a degree no fitted row has
    unsorted = SignatureTable({2: by_degree[2], 1: by_degree[1]}, 40)  # not in label order: per degree
    assert not unsorted.packed and unsorted.find(1, by_degree[1][:3]).tolist() == [300 + i for i in range(3)]


def test_own_labels_agree_with_label_places():
    vocabulary = np.array(["C", "Cl", "N", "O"])
    index = label_index(vocabulary)
    labels = np.array(["O", "S", "C", "S", "Br"])
    ids, fitted = own_labels(labels, vocabulary, index)
    assert ids[1] == ids[3] and len(set(ids.tolist())) == 4
    assert fitted[ids].tolist() == label_places(vocabulary, labels).tolist() == [3, -1, 0, -1, -1]
    ids, fitted = own_labels(labels, vocabulary, None)  # (no index: sorted and searched)
    assert fitted[ids].tolist() == [3, -1, 0, -1, -1]
    numbers = np.array([1, 6, 8])
    assert label_index(numbers) == {1: 0, 6: 1, 8: 2} and label_index(np.array([1.5, 2.0])) is None
    with pytest.raises(TypeError, match="numbers and of the other strings"):
        own_labels(np.array([6, 8]), vocabulary, index)
