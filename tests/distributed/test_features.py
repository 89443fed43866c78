"""GraphFeatures on Dask: the same rows as in process, written to Zarr; kneighbors over them."""

import networkx as nx
import numpy as np
import pytest

dask = pytest.importorskip("dask")
db = pytest.importorskip("dask.bag")
zarr = pytest.importorskip("zarr")

from graphinvariants.datasets import perturbed_copies  # noqa: E402
from graphinvariants.features import GraphFeatures  # noqa: E402
from graphinvariants.distributed import features_to_zarr, read_features
from graphinvariants.distributed import store_kneighbors as kneighbors  # noqa: E402


@pytest.fixture(scope="module")
def client(dask_client):
    """The module's cluster (tests/conftest.py's ``dask_client``)."""
    return dask_client


@pytest.fixture(scope="module")
def fitted(tu_load):
    mutag = tu_load("MUTAG")
    features = GraphFeatures(n_landmarks=40, max_samples=100, seed=0).fit(mutag, mutag.y)
    graphs = list(perturbed_copies(mutag, 300, seed=0))
    return features, graphs


def test_zarr_features_equal_in_process(client, fitted, tmp_path):
    features, graphs = fitted
    assert features.approximate_ and features.exact_  # both parts are exercised
    rows = features_to_zarr(features, db.from_sequence(graphs, npartitions=7), tmp_path / "f.zarr")
    assert rows.sum() == len(graphs) and len(rows) == db.from_sequence(graphs, npartitions=7).npartitions
    stored = read_features(tmp_path / "f.zarr")
    assert (stored != features.transform(graphs)).nnz == 0  # bit for bit
    # a second, shorter write replaces the first whole
    features_to_zarr(features, db.from_sequence(graphs[:50], npartitions=2), tmp_path / "f.zarr", overwrite=True)
    assert read_features(tmp_path / "f.zarr").shape[0] == 50


@pytest.mark.parametrize("kernel", ["wl:n_iter=3", "power*histogram", "meanmap:n_features=32,seed=1"])
def test_fixed_kernels_go_through_the_same_path(client, tu_load, kernel, tmp_path):
    """One transform_block for every kernel: a fixed member's rows (exact, Nystroem or
    random features) written from Dask equal the in-process rows bit for bit."""
    mutag = tu_load("MUTAG")
    features = GraphFeatures(kernel, n_landmarks=20, max_samples=100, seed=0).fit(mutag)
    graphs = list(perturbed_copies(mutag, 60, seed=1))
    features_to_zarr(features, db.from_sequence(graphs, npartitions=3), tmp_path / "fixed.zarr")
    assert (read_features(tmp_path / "fixed.zarr") != features.transform(graphs)).nnz == 0


def test_kneighbors_is_the_brute_force(client, fitted, tmp_path):
    features, graphs = fitted
    features_to_zarr(features, db.from_sequence(graphs, npartitions=5), tmp_path / "g.zarr")
    F = features.transform(graphs)
    queries = F[:12]
    indices, values = kneighbors(queries, tmp_path / "g.zarr", n_neighbors=4)
    S = (queries @ F.T).toarray()
    order = np.lexsort((np.broadcast_to(np.arange(S.shape[1]), S.shape), -S), axis=1)[:, :4]
    np.testing.assert_array_equal(indices, order)
    # sparse products of the same rows in the same order: equal values
    np.testing.assert_array_equal(values, np.take_along_axis(S, order, axis=1))
    assert np.all(np.diff(values, axis=1) <= 0)


def test_bad_input(fitted, tmp_path):
    features, graphs = fitted
    with pytest.raises(TypeError, match="dask.bag.Bag"):
        features_to_zarr(features, graphs, tmp_path / "h.zarr")
    with pytest.raises(ValueError, match="no features"):
        kneighbors(features.transform(graphs[:2]), tmp_path / "nothing.zarr")


def test_partitions_that_are_datasets(client, fitted, tmp_path, tu_load):
    features, _ = fitted
    mutag = tu_load("MUTAG")
    parts = [dask.delayed(perturbed_copies)(mutag, 100, seed=0, start=s) for s in (0, 100, 200)]
    features_to_zarr(features, db.from_delayed(parts), tmp_path / "d.zarr")
    expected = features.transform(perturbed_copies(mutag, 300, seed=0))
    assert (read_features(tmp_path / "d.zarr") != expected).nnz == 0


def test_an_empty_partition(client, fitted, tmp_path):
    features, graphs = fitted
    bag = db.from_delayed([dask.delayed(list)(graphs[:5]), dask.delayed(list)([]), dask.delayed(list)(graphs[5:9])])
    rows = features_to_zarr(features, bag, tmp_path / "e.zarr")
    assert rows.tolist() == [5, 0, 4]
    assert (read_features(tmp_path / "e.zarr") != features.transform(graphs[:9])).nnz == 0


@pytest.mark.slow
def test_attributes_member_equal_in_process(client, tmp_path, tu_load):
    # node attributes (BZR's 3-d coordinates): the attributes member, a Gaussian kernel
    # on them, goes through the Nystroem part; its rows on the workers must be the
    # in-process bits too, for partitions of graphs and partitions that are TUDatasets
    bzr = tu_load("BZR")
    features = GraphFeatures(n_landmarks=30, max_samples=150, seed=0).fit(bzr[:150], bzr.y[:150])
    assert any(label.startswith("attributes") for label in features.approximate_)
    expected = features.transform(bzr)
    features_to_zarr(features, db.from_sequence(list(bzr), npartitions=4), tmp_path / "a.zarr")
    assert (read_features(tmp_path / "a.zarr") != expected).nnz == 0
    parts = [dask.delayed(bzr.__getitem__)(slice(s, min(s + 100, len(bzr)))) for s in range(0, len(bzr), 100)]
    features_to_zarr(features, db.from_delayed(parts), tmp_path / "b.zarr")
    assert (read_features(tmp_path / "b.zarr") != expected).nnz == 0


def _unlabelled(G):
    H = nx.Graph(G)
    for v in H:
        H.nodes[v].clear()
    return H


def test_a_failed_write_leaves_a_store_every_reader_refuses(client, fitted, tmp_path):
    # issue 29, defect 1: run A (4 partitions), then run B of other graphs into the same
    # store, one of them without node labels: B raised, but the store read as whole (94
    # rows of MUTAG: parts 0-2 from B, part 3 from A) and kneighbors answered from it
    features, graphs = fitted
    store = tmp_path / "s.zarr"
    features_to_zarr(features, db.from_sequence(graphs[:100], npartitions=4), store)
    run_a = dict(zarr.open_group(store, mode="r").attrs)
    assert run_a["status"] == "complete" and run_a["rows"] == [25, 25, 25, 25]
    B = graphs[100:187] + [_unlabelled(graphs[187])]
    # into a store that holds features: refused unless asked, before anything is written
    with pytest.raises(ValueError, match="already holds features.*overwrite=True"):
        features_to_zarr(features, db.from_sequence(B, npartitions=4), store)
    assert dict(zarr.open_group(store, mode="r").attrs) == run_a
    assert (read_features(store) != features.transform(graphs[:100])).nnz == 0
    with pytest.raises(ValueError, match="label"):
        features_to_zarr(features, db.from_sequence(B, npartitions=4), store, overwrite=True)
    for read in (lambda: read_features(store), lambda: read_features(store, [0]),
                 lambda: kneighbors(features.transform(graphs[:2]), store, n_neighbors=3)):
        with pytest.raises(ValueError, match="unfinished: its last write .* did not complete"):
            read()
    # a new write into it must say so too; with overwrite=True it is whole again
    with pytest.raises(ValueError, match="unfinished write.*overwrite=True"):
        features_to_zarr(features, db.from_sequence(graphs[:10], npartitions=2), store)
    rows = features_to_zarr(features, db.from_sequence(B[:-1], npartitions=3), store, overwrite=True)
    assert rows.tolist() == [29, 29, 29]
    assert (read_features(store) != features.transform(B[:-1])).nnz == 0
    assert zarr.open_group(store, mode="r").attrs["run"] != run_a["run"]


def test_a_part_of_another_write_is_refused(client, fitted, tmp_path):
    features, graphs = fitted
    store = tmp_path / "p.zarr"
    features_to_zarr(features, db.from_sequence(graphs[:20], npartitions=2), store)
    zarr.open_group(store, mode="a")["part_1"].attrs["run"] = "another"
    with pytest.raises(ValueError, match="part 1 .* is not of its write"):
        read_features(store)
    assert read_features(store, [0]).shape[0] == 10
    with pytest.raises(ValueError, match="part 1 .* is not of its write"):
        kneighbors(features.transform(graphs[:2]), store, n_neighbors=3)


def test_a_delayed_write_touches_the_store_when_it_runs(client, fitted, tmp_path):
    features, graphs = fitted
    store = tmp_path / "l.zarr"
    features_to_zarr(features, db.from_sequence(graphs[:20], npartitions=2), store)
    later = features_to_zarr(features, db.from_sequence(graphs[20:50], npartitions=3), store, overwrite=True,
                             compute=False)
    assert read_features(store).shape[0] == 20  # not yet touched
    assert later.compute().tolist() == [10, 10, 10]
    assert (read_features(store) != features.transform(graphs[20:50])).nnz == 0
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        features_to_zarr(features, db.from_sequence(graphs[:2]), store, overwrite="yes")


def test_parts_and_n_neighbors_beyond_the_store(client, fitted, tmp_path):
    # issue 29, friction 12: read_features(store, [5]) on 3 parts raised a bare
    # KeyError 'part_5'; kneighbors(n_neighbors=10) on 3 graphs returned 3 columns
    features, graphs = fitted
    store = tmp_path / "k.zarr"
    features_to_zarr(features, db.from_sequence(graphs[:3], npartitions=3), store)
    with pytest.raises(ValueError, match=r"has 3 parts, numbered 0 to 2; parts asks for \[5\]"):
        read_features(store, [5])
    with pytest.raises(ValueError, match="a part number must be an integer >= 0"):
        read_features(store, [-1])
    with pytest.raises(TypeError, match="parts must be a sequence of part numbers"):
        read_features(store, 1)
    assert (read_features(store, [2, 0]) != features.transform([graphs[2], graphs[0]])).nnz == 0
    queries = features.transform(graphs[:2])
    with pytest.raises(ValueError, match="n_neighbors=10 is larger than the store, which has 3 graphs"):
        kneighbors(queries, store, n_neighbors=10)
    assert kneighbors(queries, store, n_neighbors=3)[0].shape == (2, 3)
