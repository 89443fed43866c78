import zipfile

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import load_tu, safe_extract

from tests.conftest import TU_COUNTS


@pytest.mark.parametrize("name", list(TU_COUNTS))
def test_counts_match_the_data_readme(tu_datasets, name):
    ds = tu_datasets[name]
    n_graphs, n_classes, n_nodes, edge_lines = TU_COUNTS[name]
    assert (ds.n_graphs, len(ds.classes), ds.n_nodes) == (n_graphs, n_classes, n_nodes)
    assert ds.matrix.nnz == edge_lines  # every edge listed twice, no self-loops
    assert ds.y.shape == (n_graphs,) and ds.node_labels.shape == (n_nodes,)
    assert sum(a.n_nodes for a in ds.adjacencies) == n_nodes


def test_networkx_view_and_compact_view_agree(tu_datasets):
    ds = tu_datasets["MUTAG"]
    graphs = ds.graphs
    assert len(graphs) == 188
    assert sum(G.number_of_nodes() for G in graphs) == 3371
    assert sum(G.number_of_edges() for G in graphs) == 7442 // 2
    assert graphs[0].nodes[0]["label"] == ds.node_labels[0]
    batched = gi.batch_power_invariants(ds, k=5)
    for i in (0, 17, 187):
        single = gi.power_invariants(graphs[i])
        np.testing.assert_array_equal(single.mean, batched[i].mean)
        np.testing.assert_array_equal(single.covariance, batched[i].covariance)
        np.testing.assert_array_equal(ds.adjacencies[i].matrix.toarray(), nx.to_numpy_array(graphs[i]))


def test_isolated_nodes_are_kept(tu_datasets):
    ds = tu_datasets["NCI1"]
    degrees = np.diff(ds.matrix.indptr)
    assert (degrees == 0).sum() > 0  # NCI1 has isolated nodes; they stay in their graphs
    g = int(np.searchsorted(ds.offsets, np.flatnonzero(degrees == 0)[0], side="right") - 1)
    assert ds.graphs[g].number_of_nodes() == ds.offsets[g + 1] - ds.offsets[g]


def _write(folder, name, a="1, 2\n2, 1\n2, 3\n3, 2\n", indicator="1\n1\n1\n2\n", labels="1\n-1\n", nodes=None):
    folder = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_A.txt").write_text(a)
    (folder / f"{name}_graph_indicator.txt").write_text(indicator)
    (folder / f"{name}_graph_labels.txt").write_text(labels)
    if nodes is not None:
        (folder / f"{name}_node_labels.txt").write_text(nodes)
    return folder


def test_small_fixture_loads(tmp_path):
    _write(tmp_path, "TINY", a="1, 2\r\n2, 3\r\n", nodes="0\n0\n1\n2\n")  # edges listed once, CRLF
    ds = load_tu("TINY", data_home=tmp_path, download=False)
    assert ds.n_graphs == 2 and ds.y.tolist() == [1, -1]
    assert [G.number_of_edges() for G in ds.graphs] == [2, 0]
    assert ds.graphs[1].number_of_nodes() == 1  # isolated node of graph 2
    assert "TINY: 2 graphs" in repr(ds)


@pytest.mark.parametrize(
    "files, message",
    [
        ({"a": "1, 2\n2, x\n"}, r"TINY_A.txt, line 2: not an integer: 'x'"),
        ({"a": "1, 2\n2\n"}, r"TINY_A.txt, line 2: expected 2 comma-separated"),
        ({"a": "1, 9\n"}, r"TINY_A.txt, line 1: node id out of range"),
        ({"a": "1, 2\n3, 4\n"}, r"TINY_A.txt, line 2: edge \(3, 4\) joins graphs 1 and 2"),
        ({"labels": "1\n"}, r"TINY_graph_labels.txt: 1 lines, but .* names 2 graphs"),
        ({"indicator": "1\n2\n1\n2\n"}, r"graph_indicator.txt, line 3: graph ids must be non-decreasing"),
        ({"indicator": "1\n1\n1\n3\n", "labels": "1\n1\n1\n"}, r"line 4: graph id 2 has no node"),
        ({"indicator": ""}, r"graph_indicator.txt: the file is empty"),
        ({"nodes": "1\n2\n"}, r"TINY_node_labels.txt: 2 lines, but"),
    ],
)
def test_malformed_files_raise_with_file_and_line(tmp_path, files, message):
    _write(tmp_path, "TINY", **files)
    with pytest.raises(ValueError, match=message):
        load_tu("TINY", data_home=tmp_path, download=False)


def test_missing_files_say_where_to_put_them(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"MUTAG_A.txt.*missing in .*MUTAG.*GRAPHINVARIANTS_DATA"):
        load_tu("MUTAG", data_home=tmp_path, download=False)


def test_environment_variable_is_the_default_home(tmp_path, monkeypatch):
    _write(tmp_path, "TINY")
    monkeypatch.setenv("GRAPHINVARIANTS_DATA", str(tmp_path))
    assert load_tu("TINY", download=False).n_graphs == 2


def test_offline_download_fails_cleanly(tmp_path, monkeypatch):
    import pooch

    def refuse(*args, **kwargs):
        raise OSError("network is closed")

    monkeypatch.setattr(pooch, "retrieve", refuse)
    with pytest.raises(FileNotFoundError, match="download failed: network is closed"):
        load_tu("MUTAG", data_home=tmp_path, download=True)


def test_download_path_extracts_the_archive(tmp_path, monkeypatch):
    import pooch

    src = _write(tmp_path / "src", "TINY")
    archive = tmp_path / "TINY.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in src.iterdir():
            zf.write(f, f"TINY/{f.name}")
    monkeypatch.setattr(pooch, "retrieve", lambda *a, **k: str(archive))
    ds = load_tu("TINY", data_home=tmp_path / "home", download=True)
    assert ds.n_graphs == 2


def test_zip_path_traversal_is_refused(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../outside.txt", "x")
    with pytest.raises(ValueError, match="outside"):
        safe_extract(archive, tmp_path / "target")
    assert not (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize("name", ["", "../MUTAG", ".hidden", 3])
def test_bad_names(name, tmp_path):
    with pytest.raises(ValueError, match="not a data set name"):
        load_tu(name, data_home=tmp_path, download=False)
