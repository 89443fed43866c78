import os
import re
import zipfile

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import DataNotFoundError, default_data_home, load_tu, safe_extract

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
    _serve(monkeypatch, _zip_folder(_write(tmp_path / "src", "TINY"), tmp_path / "TINY.zip"))
    home = tmp_path / "home"
    ds = load_tu("TINY", data_home=home, download=True)
    assert ds.n_graphs == 2 and ds.path == home / "TINY"
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
