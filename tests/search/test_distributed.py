"""NearestGraphs on Dask (client=) and over a Zarr store (store=) equal in-process search."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi

pytest.importorskip("dask")
pytest.importorskip("zarr")
pytest.importorskip("distributed")
from graphinvariants.search._parts import DaskParts, StoreParts  # noqa: E402


@pytest.fixture(scope="module")
def client(dask_client):
    """The module's cluster (tests/conftest.py's ``dask_client``, closed with the module)."""
    return dask_client


@pytest.fixture(scope="module")
def data():
    graphs = ([nx.gnp_random_graph(n, 0.3, seed=n) for n in range(8, 48)]
              + [nx.barabasi_albert_graph(n, 1, seed=n) for n in range(8, 48)])
    graphs = graphs + graphs[:30]  # copies: ties at equal values, by position
    y = [0] * 40 + [1] * 40 + [0] * 30
    features = gi.GraphFeatures(n_landmarks=20, seed=0).fit(graphs, y)
    queries = [nx.gnp_random_graph(30, 0.2, seed=99), nx.star_graph(20), graphs[3]]
    return graphs, features, queries


def test_client_equals_in_process_bit_for_bit(client, data):
    graphs, features, queries = data
    params = {"block_rows": 16}  # several blocks per part, parts at multiples of 16 rows
    local = gi.NearestGraphs(kernel=features, n_neighbors=6, index_params=params).fit(graphs, ids=np.arange(110) * 2)
    remote = gi.NearestGraphs(kernel=features, n_neighbors=6, index_params=params, client=client,
                              n_partitions=3).fit(graphs, ids=np.arange(110) * 2)
    assert isinstance(remote.index_, DaskParts) and len(remote.index_.parts) == 3  # one index per part, on the workers
    for q in (queries, None):
        a, b = local.kneighbors(q, return_ids=True), remote.kneighbors(q, return_ids=True)
        for x, z in zip(a, b):
            np.testing.assert_array_equal(x, z)


def test_store_equals_in_process(client, data, tmp_path):
    graphs, features, queries = data
    local = gi.NearestGraphs(kernel=features, n_neighbors=5).fit(graphs)
    stored = gi.NearestGraphs(kernel=features, n_neighbors=5, store=str(tmp_path / "f.zarr"), n_partitions=3).fit(graphs)
    assert isinstance(stored.index_, StoreParts) and stored.n_samples_fit_ == len(graphs)
    # each part is its own index, and every distance the same sum per pair: bit for bit
    for q in (queries, None):
        (da, ia), (db, ib) = local.kneighbors(q), stored.kneighbors(q)
        np.testing.assert_array_equal(ia, ib)
        np.testing.assert_array_equal(da, db)
    # an existing store searched as it is, on the cluster
    again = gi.NearestGraphs(kernel=features, n_neighbors=5, store=str(tmp_path / "f.zarr"), client=client).fit()
    np.testing.assert_array_equal(again.kneighbors(queries)[1], local.kneighbors(queries)[1])


def test_store_refuses_what_it_cannot_hold(tmp_path):
    graphs = [nx.cycle_graph(n) for n in range(5, 15)]
    with pytest.raises(ValueError, match="no feature rows to store"):
        gi.NearestGraphs(kernel="power", store=str(tmp_path / "s")).fit(graphs)
    with pytest.raises(ValueError, match=r"give GraphFeatures\('wl'\) as kernel"):  # rows, searched in process
        gi.NearestGraphs(kernel="wl", store=str(tmp_path / "s")).fit(graphs)
    with pytest.raises(ValueError, match="holds no features"):
        gi.NearestGraphs(kernel=gi.GraphFeatures(), store=str(tmp_path / "empty")).fit()


def test_store_needs_the_fitted_map(data, tmp_path):
    graphs, features, _ = data
    store = str(tmp_path / "g.zarr")
    gi.NearestGraphs(kernel=features, store=store).fit(graphs)
    with pytest.raises(ValueError, match="fitted GraphFeatures that wrote it"):
        gi.NearestGraphs(kernel=gi.GraphFeatures(), store=store).fit()


def test_client_approximate_merges_parts(client, data):
    pytest.importorskip("faiss")
    graphs, features, queries = data
    exact = gi.NearestGraphs(kernel=features, n_neighbors=4).fit(graphs)
    remote = gi.NearestGraphs(kernel=features, n_neighbors=4, index="approximate", seed=0, client=client,
                              n_partitions=2, index_params={"n_dims": 16}).fit(graphs)
    d, i = remote.kneighbors(queries)
    d_e, i_e = exact.kneighbors(queries)
    assert np.mean([len(set(a) & set(b)) / 4 for a, b in zip(i, i_e)]) >= 0.9
    same = i == i_e
    np.testing.assert_allclose(d[same], d_e[same], atol=1e-7)  # reranked: exact values
    d, i = remote.kneighbors(n_neighbors=2)
    assert not (i == np.arange(len(graphs))[:, None]).any()


def test_store_refuses_another_feature_map(data, tmp_path):
    # issue 38, defect 2: a map of the same width and another seed answered silently
    graphs, features, queries = data
    store = str(tmp_path / "f.zarr")
    gi.NearestGraphs(kernel=features, n_neighbors=3, store=store).fit(graphs)
    other = gi.GraphFeatures(n_landmarks=20, seed=1).fit(graphs, [0] * 40 + [1] * 40 + [0] * 30)
    with pytest.raises(ValueError, match="written by another feature map"):
        gi.NearestGraphs(kernel=other, n_neighbors=3, store=store).fit()
    wl = gi.GraphFeatures("wl").fit(graphs)
    with pytest.raises(ValueError, match="written by another feature map"):
        gi.NearestGraphs(kernel=wl, n_neighbors=3, store=store).fit()
    # the map that wrote it, or an equal one (fitted alike, or unpickled), is accepted
    same = gi.GraphFeatures(n_landmarks=20, seed=0).fit(graphs, [0] * 40 + [1] * 40 + [0] * 30)
    assert same.digest() == features.digest() != other.digest()
    found = gi.NearestGraphs(kernel=same, n_neighbors=3, store=store).fit().kneighbors(queries)[1]
    np.testing.assert_array_equal(found, gi.NearestGraphs(kernel=features, n_neighbors=3).fit(graphs).kneighbors(queries)[1])


def test_refit_onto_a_store(data, tmp_path):
    # issue 38, defect 6: "pass overwrite=True", which NearestGraphs did not take
    graphs, features, _ = data
    store = str(tmp_path / "f.zarr")
    gi.NearestGraphs(kernel=features, store=store).fit(graphs)
    with pytest.raises(ValueError, match=r"NearestGraphs\(\.\.\., overwrite=True\)"):
        gi.NearestGraphs(kernel=features, store=store).fit(graphs[:20])
    search = gi.NearestGraphs(kernel=features, store=store, n_neighbors=2, overwrite=True).fit(graphs[:20])
    assert search.n_samples_fit_ == 20


def test_a_zarr_group_keeps_its_attributes(data, tmp_path):
    import zarr

    graphs, features, _ = data
    group = zarr.open_group(str(tmp_path / "mine.zarr"), mode="w")
    group.attrs["project"] = "solubility"
    gi.NearestGraphs(kernel=features, store=str(tmp_path / "mine.zarr")).fit(graphs[:10])
    gi.NearestGraphs(kernel=features, store=str(tmp_path / "mine.zarr"), overwrite=True).fit(graphs[:12])
    attrs = dict(zarr.open_group(str(tmp_path / "mine.zarr"), mode="r").attrs)
    assert attrs["project"] == "solubility" and attrs["status"] == "complete" and attrs["rows"] == [12]


def test_a_plain_folder_is_not_written_into(data, tmp_path):
    graphs, features, _ = data
    folder = tmp_path / "my documents"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a Zarr group"):
        gi.NearestGraphs(kernel=features, store=str(folder)).fit(graphs[:10])
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert gi.NearestGraphs(kernel=features, store=str(empty)).fit(graphs[:10]).n_samples_fit_ == 10


def test_store_fits_an_unfitted_map_streaming_over_an_iterator_and_a_smiles_file(tmp_path):
    # issue 51 item 4: the rows made a block at a time as the map is fitted, then written
    graphs = [nx.gnp_random_graph(n, 0.3, seed=n) for n in range(8, 60)] + [nx.cycle_graph(7)] * 3
    features = gi.GraphFeatures("wl", block_size=16)
    local = gi.NearestGraphs(kernel=features, n_neighbors=4).fit(graphs)
    stored = gi.NearestGraphs(kernel=features, n_neighbors=4, store=str(tmp_path / "it.zarr")).fit(iter(graphs))
    assert isinstance(stored.index_, StoreParts) and stored.n_samples_fit_ == len(graphs)
    assert stored.feature_map_.digest() == local.feature_map_.digest()
    for q in (graphs[::7], None):
        for x, z in zip(local.kneighbors(q), stored.kneighbors(q)):
            np.testing.assert_array_equal(x, z)
    again = gi.NearestGraphs(kernel=stored.feature_map_, n_neighbors=4, store=str(tmp_path / "it.zarr")).fit()
    np.testing.assert_array_equal(again.kneighbors(graphs[:5])[1], local.kneighbors(graphs[:5])[1])
    pytest.importorskip("rdkit")
    from pathlib import Path

    smiles = ["CCO", "c1ccccc1", "CC(=O)O", "CCN", "c1ccncc1", "CCO", "OCC(O)CO", "CC(C)C"]
    path = tmp_path / "m.smi"
    path.write_text("\n".join(smiles) + "\n")
    features = gi.GraphFeatures("wl", block_size=3)
    local = gi.NearestGraphs(kernel=features, n_neighbors=3).fit(smiles)
    stored = gi.NearestGraphs(kernel=features, n_neighbors=3, store=str(tmp_path / "m.zarr")).fit(Path(path))
    for x, z in zip(local.kneighbors(["CCO", "c1ccccc1O"]), stored.kneighbors(["CCO", "c1ccccc1O"])):
        np.testing.assert_array_equal(x, z)
