import os
import re
import zipfile

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import DataNotFoundError, default_data_home, load_tu, safe_extract

from tests.conftest import TU_COUNTS


#: Published TU statistics (https://chrsmrrs.github.io/datasets/docs/datasets/): mean
#: nodes and mean edges per graph, and what each data set's files hold.
TU_PUBLISHED = {
    "MUTAG": (17.93, 19.79, ("node labels", "edge labels")),
    "ENZYMES": (32.63, 62.14, ("node labels", "18 node attributes")),
    "NCI1": (29.87, 32.30, ("node labels",)),
    "NCI109": (29.68, 32.13, ("node labels",)),
    "Mutagenicity": (30.32, 30.77, ("node labels", "edge labels")),
    "AIDS": (15.69, 16.20, ("node labels", "edge labels", "4 node attributes")),
    "BZR": (35.75, 38.36, ("node labels", "3 node attributes")),
    "COX2": (41.22, 43.45, ("node labels", "3 node attributes")),
    "DD": (284.32, 715.66, ("node labels",)),
    "IMDB-BINARY": (19.77, 96.53, ()),
    "REDDIT-BINARY": (429.63, 497.75, ()),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in ("DD", "REDDIT-BINARY") else name
                                  for name in TU_COUNTS])  # the two largest sets take seconds to read
def test_counts_match_the_data_readme_and_the_published_statistics(tu_load, name):
    ds = tu_load(name)
    n_graphs, n_classes, n_nodes, edge_lines = TU_COUNTS[name]
    assert (ds.n_graphs, len(ds.classes), ds.n_nodes) == (n_graphs, n_classes, n_nodes)
    # every edge listed twice, no self-loops; IMDB-BINARY lists every edge twice in each direction
    assert ds.matrix.nnz == (edge_lines // 2 if name == "IMDB-BINARY" else edge_lines)
    mean_nodes, mean_edges, carries = TU_PUBLISHED[name]
    assert (round(n_nodes / n_graphs, 2), round(ds.n_edges / n_graphs, 2)) == (mean_nodes, mean_edges)
    assert ds.carries == carries and (", ".join(carries) or "unlabelled") in repr(ds)
    assert ds.y.shape == (n_graphs,) and sum(ds.batch.sizes) == n_nodes
    if "node labels" in carries:
        assert ds.node_labels.shape == (n_nodes,) and ds.node_labels.dtype == np.int64
    if "edge labels" in carries:
        assert ds.edge_labels.shape == (ds.matrix.nnz,) and ds.edge_labels.dtype == np.int64
    if ds.node_attributes is not None:
        assert ds.node_attributes.shape == (n_nodes, int(carries[-1].split()[0]))
        assert ds.node_attributes.dtype == np.float64 and np.isfinite(ds.node_attributes).all()
    if n_graphs < 1000:
        assert sum(a.n_nodes for a in ds.adjacencies) == n_nodes


def _file_rows(path, dtype):
    return np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2)


@pytest.mark.parametrize("name", ["MUTAG", "AIDS", "ENZYMES", "BZR"])
def test_every_file_kind_is_read_where_it_belongs(tu_load, tu_dir, name):
    """Brute force against the files: each line's edge label sits on both entries of its
    edge, each node's attribute row on its node."""
    ds = tu_load(name)
    folder = tu_dir / name
    edges = _file_rows(folder / f"{name}_A.txt", np.int64) - 1
    if (folder / f"{name}_edge_labels.txt").is_file():
        labels = _file_rows(folder / f"{name}_edge_labels.txt", np.int64)[:, 0]
        position = {}
        rows = np.repeat(np.arange(ds.n_nodes), np.diff(ds.matrix.indptr))
        for e, (i, j) in enumerate(zip(rows.tolist(), ds.matrix.indices.tolist())):
            position[(i, j)] = e
        for (u, v), label in zip(edges.tolist(), labels.tolist()):
            assert ds.edge_labels[position[(u, v)]] == label and ds.edge_labels[position[(v, u)]] == label
    if (folder / f"{name}_node_attributes.txt").is_file():
        # both sides parse the same decimal text with correctly rounded float(): equal by construction
        np.testing.assert_array_equal(ds.node_attributes, _file_rows(folder / f"{name}_node_attributes.txt", float))
    node_labels = _file_rows(folder / f"{name}_node_labels.txt", np.int64)[:, 0]
    np.testing.assert_array_equal(ds.node_labels, node_labels)


@pytest.mark.parametrize("name", ["MUTAG", "AIDS", "ENZYMES"])
def test_networkx_graphs_carry_everything_and_read_back_to_the_same_batch(tu_load, name):
    ds = tu_load(name)[::7]
    graphs = ds.graphs
    options = {"node_label": "label"}
    if ds.edge_labels is not None:
        options["edge_label"] = "label"
        u, v, data = next(iter(graphs[0].edges(data=True)))
        assert type(data["label"]) is int
    if ds.node_attributes is not None:
        options["node_attributes"] = "attributes"
        assert isinstance(graphs[0].nodes[0]["attributes"], tuple)
    batch = gi.as_graph_batch(graphs, **options)
    assert (batch.matrix != ds.matrix).nnz == 0
    for field in ("node_labels", "edge_labels", "node_attributes"):
        # copied values (floats through tuples of Python floats and back): exact by construction
        np.testing.assert_array_equal(getattr(batch, field), getattr(ds.batch, field))
    again = gi.as_graph_batch([ig.Graph.from_networkx(G) for G in graphs[:20]], **options)
    np.testing.assert_array_equal(again.edge_labels, ds[:20].edge_labels)
    with pytest.raises(ValueError, match="edge_label='label' was asked for, but graphs are a batch without edge labels"):
        gi.as_graph_batch(tu_load("NCI1"), edge_label="label")


def test_imdb_edges_listed_twice_in_each_direction_are_merged(tu_load, tu_dir):
    ds = tu_load("IMDB-BINARY")
    assert round(ds.n_edges / ds.n_graphs, 2) == 96.53  # the published mean
    assert ds.matrix.data.max() == 1.0  # merged, not counted twice (stored entries are 1.0 or 2.0 exactly)
    edges = _file_rows(tu_dir / "IMDB-BINARY" / "IMDB-BINARY_A.txt", np.int64) - 1
    first = edges[edges.max(axis=1) < ds.offsets[1]]
    assert ds[0].number_of_edges() == len({frozenset(e) for e in first.tolist()}) == len(first) // 4


_EXTRA = {  # a triangle (graph 1) and a single node (graph 2), every edge listed twice
    "edge_labels": "1\n1\n2\n2\n3\n3\n",
    "edge_attributes": "0.5, 1\n0.5, 1\n1.5, 2\n1.5, 2\n-2e-3, 3\n-2e-3, 3\n",
    "node_attributes": "1.0\n2.0\n3.0\n4.5\n",
}
_TRIANGLE = "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n"


def _write_extra(folder, **files):
    for part, text in files.items():
        (folder / f"{folder.name}_{part}.txt").write_text(text)


def test_edge_and_node_attributes_and_edge_labels_of_a_small_fixture(tmp_path):
    folder = _write(tmp_path, "TINY", a=_TRIANGLE, nodes="0\n0\n1\n2\n")
    _write_extra(folder, **_EXTRA)
    ds = load_tu("TINY", data_home=tmp_path, download=False)
    assert ds.carries == ("node labels", "edge labels", "1 node attributes", "2 edge attributes")
    assert repr(ds).endswith("; node labels, edge labels, 1 node attributes, 2 edge attributes>")
    G = ds[0]
    assert G.edges[0, 1] == {"label": 1, "attributes": (0.5, 1.0)}
    assert G.edges[2, 1] == {"label": 2, "attributes": (1.5, 2.0)}
    assert G.edges[0, 2] == {"label": 3, "attributes": (-0.002, 3.0)}
    assert G.nodes[2] == {"label": 1, "attributes": (3.0,)}
    assert ds[1].nodes[0] == {"label": 2, "attributes": (4.5,)}
    # the entries of the matrix in CSR order: (0,1) (0,2) (1,0) (1,2) (2,0) (2,1)
    assert ds.edge_labels.tolist() == [1, 3, 1, 2, 3, 2]
    assert ds.edge_attributes[:, 1].tolist() == [1, 3, 1, 2, 3, 2]
    sub = ds[[1, 0]]  # sub-sets carry everything, aligned with their own entries
    assert sub.edge_labels.tolist() == [1, 3, 1, 2, 3, 2] and sub.edge_attributes[:, 1].tolist() == [1, 3, 1, 2, 3, 2]
    assert sub.node_attributes[:, 0].tolist() == [4.5, 1.0, 2.0, 3.0]
    assert sub[1].edges[0, 2] == G.edges[0, 2]
    assert ds[1:].carries == ds.carries


def test_an_edge_listed_any_number_of_times_is_one_edge(tmp_path):
    once = _write(tmp_path / "once", "TINY", a="1, 2\n2, 3\n")
    _write_extra(once, edge_labels="7\n8\n")
    four = _write(tmp_path / "four", "TINY", a="1, 2\n2, 1\n2, 3\n1, 2\n3, 2\n2, 1\n")
    _write_extra(four, edge_labels="7\n7\n8\n7\n8\n7\n")
    a, b = (load_tu("TINY", data_home=tmp_path / d, download=False) for d in ("once", "four"))
    assert (a.matrix != b.matrix).nnz == 0 and a.n_edges == b.n_edges == 2 and b.matrix.data.max() == 1
    assert a.edge_labels.tolist() == b.edge_labels.tolist() == [7, 7, 8, 8]


@pytest.mark.parametrize(
    "files, message",
    [
        ({"edge_labels": "1\n1\n2\n2\n3\n"}, r"TINY_edge_labels.txt: 5 lines, but .*TINY_A.txt has 6"),
        ({"edge_labels": "1\n1\n2\n9\n3\n3\n"},
         r"TINY_edge_labels.txt, lines 3 and 4: edge \(2, 3\) is listed twice in TINY_A.txt with different values "
         r"\(2 and 9\)"),
        ({"edge_labels": "1\n1\n2\n2.5\n3\n3\n"}, r"TINY_edge_labels.txt, line 4: not an integer: '2.5'"),
        ({"edge_attributes": "1\n1\n2\n2\n3\n3, 4\n"},
         r"TINY_edge_attributes.txt, line 6: expected 1 comma-separated numbers \(as on line 1\), got 2"),
        ({"edge_attributes": "1\n1\n2\n2.5\n3\n3\n"},
         r"TINY_edge_attributes.txt, lines 3 and 4: edge \(2, 3\) .* different values \(2 and 2.5\)"),
        ({"node_attributes": "1\n2\n3\n"}, r"TINY_node_attributes.txt: 3 lines, but .* has 4"),
        ({"node_attributes": "1\n2\nnan\n4\n"}, r"TINY_node_attributes.txt, line 3: not a number: 'nan'"),
        ({"node_attributes": "1\n2\ninf\n4\n"}, r"line 3: not a number: 'inf'"),
        ({"node_attributes": "1\n2\n1e999\n4\n"}, r"line 3: number out of range for float64"),
        ({"node_attributes": "1\n2\n1_0\n4\n"}, r"line 3: not a number: '1_0'"),
        ({"node_attributes": "1\n\n3\n4\n"}, r"TINY_node_attributes.txt, line 2: blank line"),
        ({"node_attributes": "1, 2\n3, 4\n5,\n6, 7\n"}, r"line 3: not a number: ''"),
        ({"node_attributes": ""}, r"TINY_node_attributes.txt: the file is empty"),
    ],
)
def test_malformed_label_and_attribute_files_name_the_file_and_line(tmp_path, files, message):
    _write_extra(_write(tmp_path, "TINY", a=_TRIANGLE), **files)
    with pytest.raises(ValueError, match=message):
        load_tu("TINY", data_home=tmp_path, download=False)


def test_hand_built_data_set_checks_its_edge_attributes(tu_load):
    mutag = tu_load("MUTAG")[:3]
    with pytest.raises(ValueError, match=r"edge_attributes must have shape \(\d+, n_attributes\)"):
        gi.TUDataset("X", mutag.batch, mutag.y, edge_attributes=np.zeros(3))
    with pytest.raises(ValueError, match="edge_attributes contains NaN"):
        gi.TUDataset("X", mutag.batch, mutag.y, edge_attributes=np.full((mutag.matrix.nnz, 1), np.nan))


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
        # exact: a graph's invariants do not depend on the other graphs of its batch
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
        ({"a": "0, 1\n"}, r"TINY_A.txt, line 1: node id out of range"),
        ({"a": "1, 2\n2, 99999999999999999999\n"}, r"TINY_A.txt, line 2: integer out of range .*'99999999999999999999'"),
        ({"a": "1, 2\n4,\n"}, r"TINY_A.txt, line 2: empty field in '4,'"),
        ({"a": "1, 2\n, 2\n"}, r"TINY_A.txt, line 2: empty field in ', 2'"),
        ({"a": "1, 2\n\n2, 3\n"}, r"TINY_A.txt, line 2: blank line"),
        ({"indicator": "1\n1\n   \n1\n2\n"}, r"TINY_graph_indicator.txt, line 3: blank line"),
        ({"labels": "1\n1_0\n"}, r"TINY_graph_labels.txt, line 2: not an integer: '1_0'"),
        ({"labels": "1\n\u0662\n"}, r"TINY_graph_labels.txt, line 2: not an integer"),  # Arabic-Indic digit 2
    ],
)
def test_malformed_files_raise_with_file_and_line(tmp_path, files, message):
    _write(tmp_path, "TINY", **files)
    with pytest.raises(ValueError, match=message):
        load_tu("TINY", data_home=tmp_path, download=False)


def test_blank_lines_at_the_end_are_allowed(tmp_path):
    _write(tmp_path, "TINY", a="1, 2\n2, 3\n\n\n", labels="1\n-1\n  \n")
    assert load_tu("TINY", data_home=tmp_path, download=False).n_edges == 2


def test_non_utf8_bytes_name_the_file_and_line(tmp_path):
    folder = _write(tmp_path, "TINY")
    (folder / "TINY_A.txt").write_bytes(b"1, 2\n2, 3\n3, \xff2\n")
    with pytest.raises(ValueError, match=r"TINY_A.txt, line 3: not UTF-8 text"):
        load_tu("TINY", data_home=tmp_path, download=False)


def test_missing_files_say_where_to_put_them(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"MUTAG_A.txt.*missing in .*MUTAG.*GRAPHINVARIANTS_DATA"):
        load_tu("MUTAG", data_home=tmp_path, download=False)


def test_environment_variable_is_the_default_home(tmp_path, monkeypatch):
    _write(tmp_path, "TINY")
    monkeypatch.setenv("GRAPHINVARIANTS_DATA", str(tmp_path))
    assert default_data_home() == tmp_path
    assert load_tu("TINY", download=False).n_graphs == 2


def _refuse_downloads(monkeypatch):
    """Make every download fail; return the list of URLs that were tried."""
    import pooch

    tried = []

    def refuse(url, *args, **kwargs):
        tried.append(url)
        raise OSError("network is closed")

    monkeypatch.setattr(pooch, "retrieve", refuse)
    return tried


def test_offline_download_fails_with_one_clear_sentence(tmp_path, monkeypatch):
    tried = _refuse_downloads(monkeypatch)
    with pytest.raises(FileNotFoundError) as excinfo:
        load_tu("MUTAG", data_home=tmp_path, download=True)
    message = str(excinfo.value)
    assert tried == ["https://www.chrsmrrs.com/graphkerneldatasets/MUTAG.zip"]
    assert re.fullmatch(r"could not download TU data set 'MUTAG' from \S+MUTAG\.zip \(OSError\): put its "
                        r"unzipped files in \S+MUTAG, or pass data_home= / set \$GRAPHINVARIANTS_DATA to the folder "
                        r"that contains MUTAG/\.", message), message


class _HTTPError(OSError):
    """Shaped like requests.HTTPError: a long text and a response with a status code."""

    def __init__(self, status):
        super().__init__("Traceback (most recent call last):\n  urllib3.exceptions.MaxRetryError: ...")
        self.response = type("Response", (), {"status_code": status})()


def test_failed_download_message_has_no_nested_traceback(tmp_path, monkeypatch):
    import pooch

    def not_found(*args, **kwargs):
        raise _HTTPError(404)

    monkeypatch.setattr(pooch, "retrieve", not_found)
    with pytest.raises(DataNotFoundError) as excinfo:
        load_tu("COLLAB", data_home=tmp_path)
    message = str(excinfo.value)
    assert "(HTTP 404)" in message and "Traceback" not in message and "urllib3" not in message
    assert "\n" not in message


def test_messages_can_name_the_command_line_option(tmp_path):
    with pytest.raises(DataNotFoundError) as excinfo:
        load_tu("MUTAG", data_home=tmp_path, download=False)
    assert "data_home=" in str(excinfo.value)
    reworded = excinfo.value.message(data_home_option="--data-home")
    assert "--data-home / set $GRAPHINVARIANTS_DATA" in reworded and "data_home=" not in reworded


def test_name_in_another_case_finds_the_one_local_folder(tu_dir, monkeypatch):
    tried = _refuse_downloads(monkeypatch)
    ds = load_tu("mutag", data_home=tu_dir)
    assert (ds.name, ds.n_graphs, tried) == ("MUTAG", 188, [])


def test_name_matching_two_local_folders_in_another_case_is_not_guessed(tmp_path, monkeypatch):
    _write(tmp_path, "TINY")
    if (tmp_path / "Tiny").exists():
        pytest.skip("case-insensitive file system")
    _write(tmp_path, "Tiny")
    tried = _refuse_downloads(monkeypatch)
    with pytest.raises(FileNotFoundError, match=r"'tiny' not found in .*did you mean 'TINY'"):
        load_tu("tiny", data_home=tmp_path)
    assert tried == []


def test_typo_suggests_the_close_local_name_without_downloading(tu_dir, monkeypatch):
    tried = _refuse_downloads(monkeypatch)
    with pytest.raises(FileNotFoundError) as excinfo:
        load_tu("MUTAGG", data_home=tu_dir)
    # the shared folder grows (4 data sets, then 11): the message lists what is there
    found = ", ".join(sorted(p.name for p in tu_dir.iterdir() if p.is_dir()))
    assert re.fullmatch(r"TU data set 'MUTAGG' not found in \S+TU: did you mean 'MUTAG'\? Data sets found there: "
                        + re.escape(found) + r"\.", str(excinfo.value)), str(excinfo.value)
    assert tried == []


def test_known_name_close_to_a_local_one_is_still_downloaded(tmp_path, monkeypatch):
    _write(tmp_path, "NCI109")
    tried = _refuse_downloads(monkeypatch)
    with pytest.raises(FileNotFoundError, match="could not download TU data set 'NCI1'"):
        load_tu("NCI1", data_home=tmp_path)
    assert tried == ["https://www.chrsmrrs.com/graphkerneldatasets/NCI1.zip"]


def _zip_folder(folder, archive):
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(folder.iterdir()):
            zf.write(f, f"{folder.name}/{f.name}")
    return archive


def _serve(monkeypatch, archive):
    """Make the download return ``archive`` (a local file: the network is closed)."""
    import pooch

    monkeypatch.setattr(pooch, "retrieve", lambda *args, **kwargs: str(archive))


def test_download_path_extracts_the_archive(tmp_path, monkeypatch):
    src = _write(tmp_path / "src", "TINY", a=_TRIANGLE, nodes="0\n0\n1\n2\n")
    _write_extra(src, **_EXTRA)  # the archive's optional files come with it
    _serve(monkeypatch, _zip_folder(src, tmp_path / "TINY.zip"))
    home = tmp_path / "home"
    ds = load_tu("TINY", data_home=home, download=True)
    assert ds.n_graphs == 2 and ds.path == home / "TINY"
    assert ds.carries == ("node labels", "edge labels", "1 node attributes", "2 edge attributes")
    assert sorted(os.listdir(home)) == ["TINY"]  # no temporary folder left behind


def _flip_a_compressed_byte(archive):
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        member = zf.infolist()[0]
    start = member.header_offset + 30 + len(member.filename.encode()) + len(member.extra)
    data[start + member.compress_size // 2] ^= 0xFF
    damaged = archive.with_name("flipped.zip")
    damaged.write_bytes(bytes(data))
    return damaged


def _truncate(archive):
    data = archive.read_bytes()
    damaged = archive.with_name("truncated.zip")
    damaged.write_bytes(data[: len(data) // 2])
    return damaged


@pytest.mark.parametrize("damage", [_flip_a_compressed_byte, _truncate])
def test_damaged_archive_is_refused_every_time_and_leaves_nothing(tmp_path, damage, monkeypatch):
    edges = "".join(f"{i}, {i + 1}\n{i + 1}, {i}\n" for i in range(1, 300))
    src = _write(tmp_path / "src", "TINY", a=edges, indicator="1\n" * 300, labels="1\n")
    archive = damage(_zip_folder(src, tmp_path / "TINY.zip"))
    _serve(monkeypatch, archive)
    home = tmp_path / "home"
    for _ in range(2):
        with pytest.raises(ValueError, match=rf"{re.escape(str(archive))} is damaged or truncated .*: delete it"):
            load_tu("TINY", data_home=home)
        assert os.listdir(home) == []  # neither home/TINY nor a temporary folder


def test_archive_without_the_data_set_folder_is_refused(tmp_path, monkeypatch):
    archive = _zip_folder(_write(tmp_path / "src", "OTHER"), tmp_path / "TINY.zip")
    _serve(monkeypatch, archive)
    with pytest.raises(ValueError, match=rf"{re.escape(str(archive))} does not hold TINY/TINY_A.txt"):
        load_tu("TINY", data_home=tmp_path / "home")
    assert os.listdir(tmp_path / "home") == []


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


@pytest.mark.parametrize("download", ["no", "False", 0.0, None])
def test_download_must_be_a_bool_so_that_no_text_turns_it_on(tmp_path, download):
    # download="no" used to count as true: with the files missing it would download
    with pytest.raises(TypeError, match="download must be True or False"):
        gi.load_tu("MUTAG", data_home=tmp_path, download=download)
    assert list(tmp_path.iterdir()) == []


def test_a_data_home_that_is_not_a_path_is_named():
    with pytest.raises(TypeError, match="data_home must be a folder"):
        gi.load_tu("MUTAG", data_home=3, download=False)
