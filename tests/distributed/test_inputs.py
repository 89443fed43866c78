"""graphinvariants.dask on a two-worker in-process cluster: every result must equal the
in-process one exactly."""

import contextlib
import importlib
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import dask
import dask.bag as db
import dask.dataframe as dd
import igraph as ig
import joblib
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import zarr
from distributed import get_task_stream

import graphinvariants as gi
from graphinvariants.search._kernel_index import kernel_neighbors as _kneighbors  # the kernel index (gi.kneighbors is deprecated)
from graphinvariants import distributed as gid

from ..test_docs_code import rst_blocks


@pytest.fixture(scope="module")
def client(dask_client):
    """The module's cluster (tests/conftest.py's ``dask_client``)."""
    return dask_client


def _molecule(n, seed):
    """A connected sparse graph (a tree plus a few ring-closing edges)."""
    rng = np.random.default_rng(seed)
    G = nx.barabasi_albert_graph(n, 1, seed=seed)  # a random tree
    for _ in range(max(1, n // 12)):
        u, v = rng.integers(0, n, 2)
        if u != v:
            G.add_edge(int(u), int(v))
    return G


@pytest.fixture(scope="module")
def graphs():
    """Varied graphs, with node names of several kinds, and exact duplicates (ties)."""
    out = []
    for i in range(40):
        G = _molecule(8 + (7 * i) % 23, seed=i)
        if i % 3 == 1:  # string node names
            G = nx.relabel_nodes(G, {u: f"atom-{u}" for u in G})
        elif i % 3 == 2:  # large, scattered integer names
            G = nx.relabel_nodes(G, {u: 10**12 + 7919 * u for u in G})
        out.append(G)
    out += [out[3].copy(), out[17].copy(), out[3].copy()]
    return out


def _edge_table(graphs, seed, *, weight=None):
    """Edge rows of all graphs, shuffled so every graph straddles partitions."""
    rows = []
    for gid_, G in enumerate(graphs):
        for u, v, data in G.edges(data=True):
            rows.append((1000 + gid_, u, v, data.get(weight, 1.0)))
    rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
    frame = pd.DataFrame(rows, columns=["graph_id", "source", "target", "w"]).astype({"source": object, "target": object})
    return frame if weight else frame.drop(columns="w")


def _sorted_batch(frame, k=5, **params):
    frame = frame.sort_values("graph_id")
    return frame["graph_id"].to_numpy(), gid.from_frame(frame, k=k, **params)


def _assert_same_embeddings(batch, expected):
    # exact (documented bit for bit): a graph's invariants depend on neither its partition nor its node order
    np.testing.assert_array_equal(batch.means, expected.means)
    np.testing.assert_array_equal(batch.covariances, expected.covariances)
    np.testing.assert_array_equal(batch.n_nodes, expected.n_nodes)


def test_import_graphinvariants_does_not_import_dask():
    code = "import sys, graphinvariants; assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_gi_distributed_is_the_module_imported_on_first_use():
    assert gi.distributed is gid
    with pytest.raises(AttributeError, match="has no attribute 'dusk'"):
        gi.dusk


def test_old_homes_are_gone():
    # graphinvariants.dask and graphinvariants.scale were removed in 0.3.0 (the changelog)
    for module in ("graphinvariants.dask", "graphinvariants.scale", "graphinvariants.scale.cluster"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(module)
    assert gid.DEFAULT_CHUNKS == 2048


def test_missing_dask_gives_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)  # "import dask" now raises ImportError
    for name in [m for m in sys.modules if m.startswith("graphinvariants.distributed")]:
        monkeypatch.delitem(sys.modules, name)
    for module in ("graphinvariants.distributed",):
        with pytest.raises(ImportError, match=r'pip install "graphinvariants\[dask\]"'):
            importlib.import_module(module)


def test_embed_bag_equals_the_batch_path(client, graphs):
    mixed = list(graphs)
    mixed[5] = ig.Graph.from_networkx(mixed[5])
    mixed[6] = nx.to_scipy_sparse_array(mixed[6], format="csr")
    frame = gid.embed(db.from_sequence(mixed, npartitions=5), k=4)
    assert list(frame.columns) == ["graph_id"] + gid.embedding_columns(k=4)
    assert frame.npartitions == 5
    computed = frame.compute()
    np.testing.assert_array_equal(computed["graph_id"].to_numpy(), np.arange(len(graphs)))
    _assert_same_embeddings(gid.from_frame(computed, k=4), gi.batch_power_invariants(graphs, k=4))


def test_embed_edge_table_straddling_partitions_equals_the_batch_path(client, graphs):
    table = _edge_table(graphs, seed=0)
    edges = dd.from_pandas(table, npartitions=4, sort=False)
    parts = [set(edges.get_partition(i).compute()["graph_id"]) for i in range(4)]
    straddling = {g for i, p in enumerate(parts) for q in parts[i + 1 :] for g in p & q}
    assert len(straddling) > len(graphs) / 2  # most graphs do straddle partitions
    frame = gid.embed(edges, npartitions=3)
    assert frame.npartitions == 3
    ids, batch = _sorted_batch(frame.compute())
    np.testing.assert_array_equal(ids, 1000 + np.arange(len(graphs)))
    _assert_same_embeddings(batch, gi.batch_power_invariants(graphs))
    # another order of the edge rows, both directions listed: the same numbers
    table2 = _edge_table(graphs, seed=1)
    table2 = pd.concat([table2, table2.rename(columns={"source": "target", "target": "source"})], ignore_index=True)
    _, batch2 = _sorted_batch(gid.embed(dd.from_pandas(table2.sample(frac=1, random_state=2), npartitions=3, sort=False)).compute())
    _assert_same_embeddings(batch2, batch)


def test_node_table_adds_isolated_nodes_and_edgeless_graphs(client, graphs):
    with_isolated = [G.copy() for G in graphs[:6]]
    with_isolated[0].add_nodes_from(["lonely", "alone"])
    with_isolated[4].add_node(-1)
    edgeless = nx.empty_graph(["p", "q", "r"])
    all_graphs = with_isolated + [edgeless]
    edges = _edge_table(with_isolated, seed=3)
    nodes = pd.DataFrame(
        [(1000 + g, u) for g, G in enumerate(all_graphs) for u in G], columns=["graph_id", "node"]
    ).astype({"node": object})
    frame = gid.embed(dd.from_pandas(edges, npartitions=2, sort=False), nodes=dd.from_pandas(nodes, npartitions=3), k=3)
    _, batch = _sorted_batch(frame.compute(), k=3)
    _assert_same_embeddings(batch, gi.batch_power_invariants(all_graphs, k=3))
    # without the node table the isolated nodes and the edgeless graph are missing
    _, without = _sorted_batch(gid.embed(dd.from_pandas(edges, npartitions=2, sort=False), k=3).compute(), k=3)
    assert len(without) == 6 and without.n_nodes[0] == batch.n_nodes[0] - 2


def test_node_table_ids_of_another_integer_type_are_cast_and_others_refused(client, graphs):
    edges = _edge_table(graphs[:4], seed=4)
    nodes = pd.DataFrame([(1000 + g, u) for g, G in enumerate(graphs[:4]) for u in G], columns=["graph_id", "node"])
    expected = gid.embed(dd.from_pandas(edges, npartitions=2, sort=False), nodes=dd.from_pandas(nodes, npartitions=2))
    narrow = nodes.astype({"graph_id": np.int32})
    got = gid.embed(dd.from_pandas(edges, npartitions=2, sort=False), nodes=dd.from_pandas(narrow, npartitions=3))
    def rows(frame):
        return frame.compute().sort_values("graph_id").reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(got), rows(expected))
    as_text = nodes.astype({"graph_id": str})
    with pytest.raises(TypeError, match=r"graph_id of the node table is \w+ and graph_id of the edge table int64"):
        gid.embed(dd.from_pandas(edges, npartitions=2, sort=False), nodes=dd.from_pandas(as_text, npartitions=2))


def test_weighted_and_directed_edge_tables(client):
    rng = np.random.default_rng(5)
    graphs = []
    for i in range(8):
        G = nx.DiGraph() if i % 2 else nx.Graph()
        G.add_weighted_edges_from(((int(u), int(v), float(w)) for u, v, w in
                                   zip(rng.integers(0, 9, 20), rng.integers(0, 9, 20), rng.uniform(0.1, 3, 20))), weight="w")
        graphs.append(G)
    undirected, directed = graphs[0::2], graphs[1::2]
    for group, is_directed in ((undirected, False), (directed, True)):
        table = _edge_table(group, seed=7, weight="w")
        # NetworkX keeps the last weight of a repeated edge: keep one row per edge
        frame = gid.embed(dd.from_pandas(table, npartitions=2, sort=False), weight="w", directed=is_directed, k=4)
        _, batch = _sorted_batch(frame.compute(), k=4, weight="w")
        _assert_same_embeddings(batch, gi.batch_power_invariants(group, weight="w", k=4))


def test_parquet_round_trip_and_kernel_blocks(client, graphs, tmp_path):
    frame = gid.embed(dd.from_pandas(_edge_table(graphs, seed=0), npartitions=4, sort=False), npartitions=3)
    frame.to_parquet(tmp_path / "embeddings")
    stored = dd.read_parquet(tmp_path / "embeddings")
    order = stored["graph_id"].compute().to_numpy() - 1000
    in_order = [graphs[i] for i in order]
    expected = gi.kernel_matrix(in_order)
    for chunks in (None, 7, 64):
        K = gid.kernel_matrix(stored, chunks=chunks)
        assert K.shape == (len(graphs), len(graphs))
        if chunks is None:
            assert K.numblocks == (3, 3)
        else:
            assert K.chunks[0][0] == min(chunks, len(graphs))
        # exact: each block is computed per pair as the whole matrix is (K[i, j] and K[j, i] take the same operations)
        np.testing.assert_array_equal(K.compute(), expected)
    # Zarr, blockwise, from the workers
    K = gid.kernel_matrix(stored, chunks=10)
    K.to_zarr(str(tmp_path / "K.zarr"))
    # the embeddings themselves as one Zarr array, graph_id in column 0 (as the docs say)
    stored.to_dask_array(lengths=True).to_zarr(str(tmp_path / "embeddings.zarr"))
    table = zarr.open_array(str(tmp_path / "embeddings.zarr"), mode="r")[:]
    back = gid.from_frame(pd.DataFrame(table, columns=stored.columns).astype({"graph_id": np.int64}))
    np.testing.assert_array_equal(table[:, 0], stored["graph_id"].compute().to_numpy())
    # exact: float64 Zarr arrays copy the embeddings
    np.testing.assert_array_equal(back.means, gid.from_frame(stored.compute()).means)
    np.testing.assert_array_equal(back.covariances, gid.from_frame(stored.compute()).covariances)
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "K.zarr"), mode="r")[:], expected)


def test_cross_kernel_blocks_and_in_memory_sides(client, graphs):
    corpus = gid.embed(db.from_sequence(graphs, npartitions=4), k=3).persist()
    queries = graphs[::5]
    expected = gi.kernel_matrix(queries, graphs, k=3)
    for a in (queries, gi.batch_power_invariants(queries, k=3), gid.to_frame(queries, k=3),
              dd.from_pandas(gid.to_frame(queries, k=3), npartitions=2)):
        K = gid.kernel_matrix(a, corpus, k=3, chunks=(3, 11))
        np.testing.assert_array_equal(K.compute(), expected)
    K = gid.kernel_matrix(corpus, queries, k=3, chunks=None)
    np.testing.assert_array_equal(K.compute(), expected.T)


def test_kneighbors_equals_in_process(client, graphs):
    frame = gid.embed(dd.from_pandas(_edge_table(graphs, seed=0), npartitions=4, sort=False), npartitions=4).persist()
    ids = frame["graph_id"].compute().to_numpy()
    corpus = [graphs[i - 1000] for i in ids]
    queries = graphs[::4] + [graphs[3]]
    expected = _kneighbors(queries, corpus, n_neighbors=6)
    assert len(set(expected[0][0].tolist())) == 6
    for kw in ({}, {"split_every": 2}, {"chunks": 5, "split_every": 3}, {"chunks": 1000}):
        idx, val, graph_ids = gid.kneighbors(queries, frame, n_neighbors=6, return_graph_ids=True, **kw)
        # exact: every block copies its values from tiles computed per pair, as in process
        np.testing.assert_array_equal(idx, expected[0])
        np.testing.assert_array_equal(val, expected[1])
        np.testing.assert_array_equal(graph_ids, ids[expected[0]])
    # the duplicates of graph 3 tie at 1.0 and come in corpus order
    dupes = np.flatnonzero(np.isin(ids, [1003, 1040, 1042]))
    np.testing.assert_array_equal(idx[-1, :3], dupes)
    # queries held by Dask too, and every corpus graph its own neighbour
    idx, val = gid.kneighbors(frame, frame, n_neighbors=len(corpus), split_every=2)
    full = _kneighbors(corpus, corpus, n_neighbors=len(corpus))
    np.testing.assert_array_equal(idx, full[0])
    np.testing.assert_array_equal(val, full[1])
    with pytest.raises(ValueError, match="larger than the corpus, which has 43 graphs"):
        gid.kneighbors(queries, frame, n_neighbors=44)


def test_evaluation_on_the_cluster_equals_the_local_run(client):
    graphs = [nx.gnp_random_graph(25, 0.12, seed=i) for i in range(30)]
    graphs += [nx.barabasi_albert_graph(25, 2, seed=i) for i in range(30)]
    y = np.array([0] * 30 + [1] * 30)
    K = gi.kernel_matrix(graphs)
    kw = dict(n_repeats=2, n_folds=5, C_grid=(0.01, 1.0, 100.0), seed=3)
    local = gi.evaluate_kernel(K, y, n_jobs=2, **kw)
    with get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        remote = gi.evaluate_kernel(K, y, n_jobs=2, **kw)
    assert stream.data and {task["worker"] for task in stream.data} <= set(client.scheduler_info()["workers"])
    # exact: the same fits on the same data in other processes; accuracies are counts / n
    np.testing.assert_array_equal(remote.accuracies, local.accuracies)
    np.testing.assert_array_equal(remote.chosen_C, local.chosen_C)
    np.testing.assert_array_equal(remote.validation_accuracies, local.validation_accuracies)
    assert remote.n_fits == local.n_fits


def test_errors_are_clear(client, graphs):
    bag = db.from_sequence(graphs[:4], npartitions=2)
    with pytest.raises(TypeError, match="to_arrays"):
        gid.embed(bag, kernel="histogram")
    with pytest.raises(TypeError, match="to_arrays"):
        gid.kernel_matrix(graphs[:3], kernel="histogram")
    with pytest.raises(TypeError, match="dask.bag.from_sequence"):
        gid.embed(graphs[:4])
    with pytest.raises(TypeError, match="from_pandas"):
        gid.embed(_edge_table(graphs[:2], seed=0))
    with pytest.raises(ValueError, match="no column 'target'"):
        gid.embed(dd.from_pandas(pd.DataFrame({"graph_id": [0], "source": [1], "dst": [2]}), npartitions=1))
    with pytest.raises(ValueError, match="no column 'w'"):
        gid.embed(dd.from_pandas(_edge_table(graphs[:2], seed=0), npartitions=1), weight="w")
    with pytest.raises(ValueError, match="missing values"):
        bad = pd.DataFrame({"graph_id": [0, 0], "source": [1.0, np.nan], "target": [2.0, 3.0]})
        gid.embed(dd.from_pandas(bad, npartitions=1)).compute()
    with pytest.raises(ValueError, match="negative"):
        bad = pd.DataFrame({"graph_id": [0, 0], "source": [1, 2], "target": [2, 3], "w": [1.0, -1.0]})
        gid.embed(dd.from_pandas(bad, npartitions=1), weight="w").compute()
    with pytest.raises(TypeError, match="nodes, directed"):
        gid.embed(bag, directed=True)
    frame = gid.embed(bag)
    with pytest.raises(TypeError, match="map_partitions"):
        gid.from_frame(frame)
    with pytest.raises(ValueError, match="another k"):
        gid.from_frame(frame.compute(), k=3)
    with pytest.raises(ValueError, match="has no column 'n_nodes'"):
        gid.from_frame(frame.compute().drop(columns="n_nodes"))
    with pytest.raises(ValueError, match="same chunks"):
        gid.kernel_matrix(frame, chunks=(2, 3))
    with pytest.raises(ValueError, match="chunks"):
        gid.kernel_matrix(frame, chunks=0)
    with pytest.raises(ValueError, match="split_every"):
        gid.kneighbors(graphs[:2], frame, split_every=1)
    with pytest.raises(ValueError, match="unknown kernel"):
        gid.kneighbors(graphs[:2], frame, kernel="rbf")
    with pytest.raises(ValueError, match="has no column 'mean_0'"):
        gid.kernel_matrix(dd.from_pandas(pd.DataFrame({"graph_id": [1]}), npartitions=1))
    # embeddings made with another k are refused when the matrix or search is set up
    with pytest.raises(ValueError, match=r"a has 5 columns mean_\.\.\., but GaussianEmbedding\(k=3.* has 3: .*another k"):
        gid.kernel_matrix(frame.compute(), k=3)
    with pytest.raises(ValueError, match="another k"):
        gid.kneighbors(graphs[:2], frame, k=3)
    with pytest.raises(ValueError, match="another k"):
        gid.kneighbors(graphs[:2], gid.embed(bag, k=3))
    # a one-shot iterator as both sides, graph ids that are not a sequence
    with pytest.raises(ValueError, match="same one-shot iterator"):
        g = iter(graphs[:3])
        gid.kernel_matrix(g, g)
    with pytest.raises(ValueError, match="same one-shot iterator"):
        g = iter(graphs[:3])
        gid.kneighbors(g, g, n_neighbors=1)
    with pytest.raises(TypeError, match="sequence of ids"):
        gid.to_frame(graphs[:2], "ab")
    assert gid.to_frame(graphs[:2], (f"g{i}" for i in range(2)))["graph_id"].tolist() == ["g0", "g1"]
    # node ids of another type than the edge table's would be other nodes
    edges = pd.DataFrame({"graph_id": [0, 0], "source": [0, 1], "target": [1, 2]})
    with pytest.raises(TypeError, match=r"node of the node table is \w+ and source of the edge table int64"):
        gid.embed(dd.from_pandas(edges, npartitions=1), nodes=pd.DataFrame({"graph_id": [0], "node": ["0"]}))
    with pytest.raises(ValueError, match="bag partition that starts at graph 2"):
        gid.embed(db.from_sequence([nx.path_graph(3)] * 2 + [nx.empty_graph(0)], npartitions=2)).compute()


def test_lazy_inputs_without_a_cluster(graphs):
    """No distributed client needed, and embeddings need not be persisted first."""
    graphs = graphs[:12]
    edges = dd.from_pandas(_edge_table(graphs, seed=4), npartitions=3, sort=False)
    # p2p shuffles (the default while a distributed client exists) need the cluster
    with dask.config.set({"scheduler": "sync", "dataframe.shuffle.method": "tasks"}):
        for frame in (gid.embed(db.from_sequence(graphs, npartitions=2)), gid.embed(edges, npartitions=2)):
            ids = frame["graph_id"].compute().to_numpy() % 1000
            in_order = [graphs[i] for i in ids]
            K = gid.kernel_matrix(frame, chunks=5).compute()
            np.testing.assert_array_equal(K, gi.kernel_matrix(in_order))
            idx, val = gid.kneighbors(graphs[:3], frame, n_neighbors=4)
            expected = _kneighbors(graphs[:3], in_order, n_neighbors=4)
            np.testing.assert_array_equal(idx, expected[0])
            np.testing.assert_array_equal(val, expected[1])


def test_blocks_use_the_engine_the_whole_matrix_would(client):
    """Above the compiled engine's threshold the whole matrix uses numba (when installed);
    every block must then use it too, or blocks would differ from it in the last bits."""
    graphs = [nx.gnp_random_graph(8 + i % 9, 0.3, seed=i) for i in range(2100)]  # 4.4 M pairs
    invariants = gi.batch_power_invariants(graphs)
    K = gid.kernel_matrix(invariants, chunks=700).compute()
    np.testing.assert_array_equal(K, gi.power_kernel_matrix(invariants))


def test_top_k_blocks_use_the_engine_the_whole_matrix_would(client):
    """2100 queries x 2000 graphs is above the compiled engine's threshold, its
    partitions of 100 graphs are not: every block must use the whole matrix's engine."""
    graphs = [nx.gnp_random_graph(8 + i % 9, 0.3, seed=i) for i in range(2100)]
    invariants = gi.batch_power_invariants(graphs)
    corpus = dd.from_pandas(gid.to_frame(invariants[:2000]), npartitions=20)
    idx, val = gid.kneighbors(invariants, corpus, n_neighbors=3)
    expected = _kneighbors(invariants, invariants[:2000], n_neighbors=3)
    np.testing.assert_array_equal(idx, expected[0])
    np.testing.assert_array_equal(val, expected[1])
    with pytest.raises(ValueError, match="larger than the corpus, which has 2000 graphs"):
        gid.kneighbors(invariants[:2], corpus, n_neighbors=2001)


def test_meanmap_random_features_equal_in_process_bit_for_bit(client, graphs):
    params = dict(kernel="meanmap", n_features=200)
    expected = gi.kernel_matrix(graphs, **params)
    bag = gid.embed(db.from_sequence(graphs, npartitions=4), **params).persist()
    # exact, as the issue demands: the mean map's sums do not depend on blocks (integer
    # sums of rounded values) and the embeddings read back are C-ordered, as in process
    for chunks in (None, 7):
        np.testing.assert_array_equal(gid.kernel_matrix(bag, chunks=chunks, **params).compute(), expected)
    queries = graphs[::6]
    np.testing.assert_array_equal(gid.kernel_matrix(queries, bag, chunks=(3, 11), **params).compute(),
                                  gi.kernel_matrix(queries, graphs, **params))
    idx, val = gid.kneighbors(queries, bag, n_neighbors=5, chunks=9, **params)
    top = _kneighbors(queries, graphs, n_neighbors=5, **params)
    np.testing.assert_array_equal(idx, top[0])
    np.testing.assert_array_equal(val, top[1])


@pytest.mark.parametrize("seed", [None, np.random.default_rng(3)])
def test_a_bag_is_embedded_with_the_calls_own_random_map(client, graphs, seed):
    # seed None (or a Generator) draws one map per functional: the Bag must be
    # embedded with the call's functional, not a second one with another map
    params = dict(kernel="meanmap", n_features=64, seed=seed)
    bag = db.from_sequence(graphs, npartitions=3)
    K = gid.kernel_matrix(bag, chunks=7, **params).compute()
    assert K.shape == (len(graphs), len(graphs))
    # exact: unit diagonal by construction (each row normalised, then the diagonal set to 1)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)  # exact: blocks below the diagonal are transposed copies
    idx, val = gid.kneighbors(graphs[:3], bag, n_neighbors=2, **params)
    # the nearest graph of each query is itself (a kernel of 1 with its own copy)
    np.testing.assert_array_equal(idx[:, 0], [0, 1, 2])


def test_exact_meanmap_is_refused_clearly(client, graphs):
    """The exact form's embeddings are node profiles of every graph (no fixed shape):
    Dask refuses it, rather than give other numbers."""
    with pytest.raises(TypeError, match=r"kernel 'meanmap': MeanMap embeddings have no fixed shape"):
        gid.kernel_matrix(graphs[:3], kernel="meanmap")
    with pytest.raises(TypeError, match="no fixed shape"):
        gid.embed(db.from_sequence(graphs[:3]), kernel="meanmap")


def test_mixed_id_types_are_refused_under_string_conversion_and_kept_apart_without(client):
    """Graph ids 0 and "0", node ids 1 and "1": two graphs, two nodes; never merged."""
    by_graph = pd.DataFrame({"graph_id": [0, "0", 0, "0"], "source": [1, 1, 2, 2], "target": [2, 3, 3, 4]})
    by_node = pd.DataFrame({"graph_id": [7, 7, 7], "source": [1, "1", 2], "target": [2, 2, 3]})
    by_node_across_columns = pd.DataFrame({"graph_id": [7, 7], "source": [1, 2], "target": ["1", 3]})
    tables = [t.astype({"source": object, "target": object}) for t in (by_graph, by_node, by_node_across_columns)]
    nodes = pd.DataFrame({"graph_id": [7, 7], "node": [5, "5"]}).astype({"node": object})
    edges7 = pd.DataFrame({"graph_id": [7], "source": [1], "target": [2]}).astype({"source": object, "target": object})
    with dask.config.set({"dataframe.convert-string": True}):
        for table, kind in zip(tables, ("graph", "node of one graph", "node of one graph")):
            with pytest.raises(TypeError, match=rf"dataframe\.convert-string.*would be one {kind}"):
                gid.embed(dd.from_pandas(table, npartitions=2), k=3)
        with pytest.raises(TypeError, match=r"the node table: column 'node' .* 5, '5' would be one node"):
            gid.embed(dd.from_pandas(edges7, npartitions=1), nodes=nodes, k=3)
        # an object column of numbers becomes strings, its neighbour stays numeric: "2" != 2
        numbers = pd.DataFrame({"graph_id": [0, 0], "source": [1, 2], "target": [2, 3]}).astype({"source": object})
        with pytest.raises(TypeError, match=r"'source' is string and 'target' int64.*two nodes"):
            gid.embed(dd.from_pandas(numbers, npartitions=1), k=3)
        # one type per column, strings and numbers in different graphs: nothing merges
        fine = pd.DataFrame({"graph_id": [0, 0, 1], "source": [1, 2, "1"], "target": [2, 3, "2"]}).astype(object)
        ids, batch = _sorted_batch(gid.embed(dd.from_pandas(fine, npartitions=2), k=3).compute(), k=3)
        _assert_same_embeddings(batch, gi.batch_power_invariants([nx.path_graph(3), nx.path_graph(2)], k=3))
    with dask.config.set({"dataframe.convert-string": False}):
        expected = {
            0: [nx.Graph([(1, 2), (2, 3)]), nx.Graph([(1, 3), (2, 4)])],  # graphs 0 and "0"
            1: [nx.Graph([(1, 2), ("1", 2), (2, 3)])],  # nodes 1 and "1"
            2: [nx.Graph([(1, "1"), (2, 3)])],
        }
        for t, table in enumerate(tables):
            frame = gid.embed(dd.from_pandas(table, npartitions=2), k=3).compute()
            order = sorted(range(len(frame)), key=lambda i: str(type(frame["graph_id"].iloc[i])))  # int 0 before "0"
            batch = gid.from_frame(frame.iloc[order], k=3)
            _assert_same_embeddings(batch, gi.batch_power_invariants(expected[t], k=3))
        frame = gid.embed(dd.from_pandas(edges7, npartitions=1), nodes=nodes, k=3).compute()
        assert frame["n_nodes"].tolist() == [4]  # 1, 2, 5 and "5"


@contextlib.contextmanager
def distributed_log():
    """Records of the ``distributed`` loggers (scheduler, shuffle) at WARNING or above.
    They have their own handler and do not propagate to the root logger, so pytest's
    ``caplog`` does not see them; with ``processes=False`` the scheduler logs here."""
    records = []
    handler = logging.Handler(level=logging.WARNING)
    handler.emit = records.append
    logger = logging.getLogger("distributed")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


def _messages(records):
    return [record.getMessage()[:200] for record in records]


def test_kneighbors_and_kernel_matrix_take_what_embed_takes(client, graphs):
    """A Bag of graphs or an edge table is embedded by the call, as embed would."""
    bag = db.from_sequence(graphs, npartitions=3)
    queries = db.from_sequence(graphs[:5], npartitions=2)
    expected = _kneighbors(graphs[:5], graphs, n_neighbors=4, k=4)
    # exact: the same embeddings and tiles as in process (see test_kneighbors_equals_in_process)
    for q in (queries, graphs[:5]):
        idx, val = gid.kneighbors(q, bag, n_neighbors=4, k=4)
        np.testing.assert_array_equal(idx, expected[0])
        np.testing.assert_array_equal(val, expected[1])
    edges = dd.from_pandas(_edge_table(graphs, seed=0), npartitions=3, sort=False)
    idx, val, ids = gid.kneighbors(graphs[:5], edges, n_neighbors=4, k=4, return_graph_ids=True)
    order = gid.embed(edges, k=4)["graph_id"].compute().to_numpy() - 1000  # rows follow id hashes
    in_order = _kneighbors(graphs[:5], [graphs[i] for i in order], n_neighbors=4, k=4)
    np.testing.assert_array_equal(idx, in_order[0])
    np.testing.assert_array_equal(val, in_order[1])
    np.testing.assert_array_equal(ids, 1000 + order[idx])
    np.testing.assert_array_equal(gid.kernel_matrix(bag, queries, k=4, chunks=7).compute(),
                                  gi.kernel_matrix(graphs, graphs[:5], k=4))


def test_edge_table_shuffle_logs_nothing(client, graphs):
    """The shuffle of an edge table: no "Shuffle ... initialized by task" and
    "... deactivated" warnings (the peer-to-peer shuffle logs them on every run)."""
    edges = dd.from_pandas(_edge_table(graphs, seed=0), npartitions=4, sort=False)
    with distributed_log() as records:
        _, batch = _sorted_batch(gid.embed(edges, npartitions=3).compute())
    _assert_same_embeddings(batch, gi.batch_power_invariants(graphs))
    assert _messages(records) == []


def test_lazy_embeddings_submit_no_key_twice(client, graphs):
    """kernel_matrix and kneighbors on lazy embed output (an edge table and a Bag):
    the scheduler never sees a key again with another task ("Detected different
    `run_spec`"), whatever the chunks."""
    edges = dd.from_pandas(_edge_table(graphs, seed=0), npartitions=4, sort=False)
    with distributed_log() as records:
        for lazy in (gid.embed(edges, npartitions=3), gid.embed(db.from_sequence(graphs, npartitions=3))):
            ids = lazy["graph_id"].compute().to_numpy() % 1000
            expected = gi.kernel_matrix([graphs[i] for i in ids])
            for chunks in (None, 2048):  # exact: blocks computed per pair as the whole matrix is
                np.testing.assert_array_equal(gid.kernel_matrix(lazy, chunks=chunks).compute(), expected)
            idx, _ = gid.kneighbors(graphs[:3], lazy, n_neighbors=2)
            np.testing.assert_array_equal(ids[idx[:, 0]], [0, 1, 2])
    assert [m for m in _messages(records) if "run_spec" in m] == []
    assert _messages(records) == []  # nothing else either


@pytest.mark.slow
def test_walk_through_reruns_over_its_outputs_and_logs_nothing(tmp_path):
    """docs/large_collections.rst's walk-through, run as a script in a folder where a
    previous run left its outputs (here stale ones: a Zarr array of another shape and
    Parquet files of other graphs), as a user runs it twice: it replaces them, and the
    cluster logs no warning (shuffle, run_spec; distributed's handler writes its
    records to stderr as "- distributed.<module> - WARNING -")."""
    root = Path(__file__).resolve().parents[2]
    (code,) = [code for lang, _, code in rst_blocks(root / "docs" / "large_collections.rst") if "LocalCluster" in code]
    zarr.open_array(str(tmp_path / "kernel.zarr"), mode="w", shape=(3, 3), dtype="f8")[:] = 7.0
    stale = pd.DataFrame({"graph_id": [999], "source": ["atom0"], "target": ["atom1"]})
    for folder in ("edges", "embeddings"):
        (tmp_path / folder).mkdir()
        stale.to_parquet(tmp_path / folder / "part.9.parquet")
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[0 1 2]"
    logged = [line for line in done.stderr.splitlines() if re.search(r"- distributed\.\S+ - (WARNING|ERROR|CRITICAL) -", line)]
    assert logged == []
    assert zarr.open_array(str(tmp_path / "kernel.zarr"), mode="r").shape == (300, 300)
    assert not (tmp_path / "edges" / "part.9.parquet").exists()


@pytest.mark.slow
def test_clusters_of_one_module_are_closed_before_the_next_starts_its_own():
    """A run of a module that uses the shared cluster, then a test that starts and closes
    a cluster of its own (the walk-through of docs/large_collections.rst), ends quietly:
    a shared cluster kept for the whole session made its client print Dask's shutdown
    tracebacks at exit ("ConnectionPool is closed", CommClosedError), all tests passing."""
    root = Path(__file__).resolve().parents[2]
    # the walk-through: the block that starts its own LocalCluster (found, not numbered)
    walk = next(line for language, line, code in rst_blocks(root / "docs" / "large_collections.rst")
                if "LocalCluster(" in code)
    ids = ["tests/search/test_distributed.py::test_client_equals_in_process_bit_for_bit",
           f"tests/test_docs_code.py::test_python_block_runs[docs/large_collections.rst:{walk}]"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *ids],
                          cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "2 passed" in done.stdout
    assert "Traceback" not in done.stderr and "ConnectionPool is closed" not in done.stderr, done.stderr[-2000:]


def _network_table(G, npartitions=3):
    return dd.from_pandas(pd.DataFrame(list(G.edges()), columns=["u", "v"]), npartitions=npartitions)


def test_network_moments_agree_relative_to_their_scale_not_entry_by_entry(client):
    """The promise is relative to the scale (the mean entry by entry, the covariance
    against its largest entry): a covariance of rank one has entries that are rounding
    noise in both paths, which no per-entry tolerance can hold (here, measured: 2.1e3
    relative on the smallest entries, 2.8e-14 of the largest entry)."""
    G = nx.complete_bipartite_graph(3, 6000)
    got = gid.power_invariants(_network_table(G), k=6)
    want = gi.power_invariants(G, k=6)
    covariance, scale = want.covariance, np.abs(want.covariance).max()
    assert np.max(np.abs(got.mean - want.mean) / np.abs(want.mean)) <= 1e-12
    assert np.max(np.abs(got.covariance - covariance)) <= 1e-12 * scale
    # the entries that are noise: per entry they do not agree, and need not
    noise = np.abs(covariance) < 1e-12 * scale
    assert noise.any()
    assert not np.allclose(got.covariance[noise], covariance[noise], rtol=1e-12, atol=0)
