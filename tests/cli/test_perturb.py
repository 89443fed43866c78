"""``graphinvariants perturb edges.txt``: the study of one network read from a file."""

import json

import networkx as nx
import numpy as np
import pytest

from graphinvariants.cli._main import main


def run(capsys, *argv):
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


def write_grid(path):
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(15, 15))
    with open(path, "w") as fh:
        fh.write("# a 15 x 15 grid\n")
        for u, v in G.edges():
            fh.write(f"{u + 100}\t{v + 100}\n")  # ids that are not 0..n-1
    return G


def test_perturb_a_network_file(tmp_path, capsys):
    pytest.importorskip("graphinvariants.graphs.edgelist")
    import graphinvariants as gi

    edges = tmp_path / "edges.txt"
    G = write_grid(edges)
    figure = tmp_path / "out" / "decay.png"
    status, out, err = run(capsys, "perturb", edges, "--sequences", "6", "--steps", "4", "--out", figure, "--quiet")
    assert status == 0, err
    assert "225 nodes" in out and "6 sequences of 4 flip steps" in out
    assert figure.stat().st_size > 0
    saved = json.loads(figure.with_suffix(".json").read_text())["edges.txt"]
    expected = gi.perturbation_study(G, n_sequences=6, n_steps=4, seed=0)
    # the file's ids are mapped to rows in another order than the grid's: the random
    # choices differ, but the study has the same shape and starts at exactly 1
    assert np.array(saved["curves"]).shape == expected.curves.shape == (6, 5)
    assert saved["mean"][0] == 1.0 and saved["params"]["n_sequences"] == 6


def test_perturb_a_missing_file_or_another_kernel_is_an_error(tmp_path, capsys):
    status, _, err = run(capsys, "perturb", tmp_path / "nope.txt", "--out", tmp_path / "p.png")
    assert status == 2 and "the edge-list file" in err and "does not exist" in err
    pytest.importorskip("graphinvariants.graphs.edgelist")
    edges = tmp_path / "edges.txt"
    write_grid(edges)
    status, _, err = run(capsys, "perturb", edges, "--kernel", "wl", "--out", tmp_path / "p.png")
    assert status == 2 and "runs the power kernel" in err


def test_perturb_a_directed_network_file(tmp_path, capsys):
    pytest.importorskip("graphinvariants.graphs.edgelist")
    edges = tmp_path / "arcs.csv"
    G = nx.gnp_random_graph(120, 0.05, seed=0, directed=True)
    edges.write_text("u,v\n" + "".join(f"{u},{v}\n" for u, v in G.edges()))
    figure = tmp_path / "decay.svg"
    status, out, err = run(capsys, "perturb", edges, "--directed", "--sequences", "3", "--steps", "2",
                           "--out", figure, "--quiet")
    assert status == 0, err
    assert f"{G.number_of_edges()} stored entries" in out


def test_perturb_a_file_with_a_count_line_and_a_terminator(tmp_path, capsys):
    # issue 44 item 14: --skiprows and --skipfooter reach read_edgelist
    pytest.importorskip("graphinvariants.graphs.edgelist")
    edges = tmp_path / "course.txt"
    G = nx.cycle_graph(30)
    edges.write_text("30\n" + "".join(f"{u} {v}\n" for u, v in G.edges()) + "-1\n")
    figure = tmp_path / "decay.png"
    status, _, err = run(capsys, "perturb", edges, "--sequences", "2", "--steps", "2", "--out", figure, "--quiet")
    assert status == 2 and "line 1" in err and "--skiprows" in err
    status, out, err = run(capsys, "perturb", edges, "--skiprows", "1", "--skipfooter", "1", "--sequences", "2",
                           "--steps", "2", "--out", figure, "--quiet")
    assert status == 0, err
    assert "30 nodes, 30 edges" in out


def test_perturb_a_file_without_pandas_is_an_error_saying_what_to_install(tmp_path, capsys, monkeypatch):
    # issue 44 item 18: no traceback, status 2, as cli.rst promises
    import sys

    edges = tmp_path / "edges.txt"
    write_grid(edges)
    monkeypatch.setitem(sys.modules, "pandas", None)  # "import pandas" now raises ImportError
    status, out, err = run(capsys, "perturb", edges, "--sequences", "2", "--steps", "2", "--out",
                           tmp_path / "p.png", "--quiet")
    assert status == 2
    assert err.startswith("graphinvariants: error: ") and "Traceback" not in err
    assert 'pip install "graphinvariants[io]"' in err


@pytest.mark.parametrize("option", ["--graphs", "--sequences"])
def test_an_option_that_does_not_apply_is_refused_not_ignored(tmp_path, capsys, option):
    # issue 44 item 21: --graphs with only a network file, --sequences without one
    edges = tmp_path / "edges.txt"
    write_grid(edges)
    argv = [edges] if option == "--graphs" else []
    status, _, err = run(capsys, "perturb", *argv, option, "5", "--steps", "2", "--out", tmp_path / "p.png",
                         "--quiet")
    assert status == 2
    assert f"{option} 5" in err and ("--sequences" if option == "--graphs" else "--graphs") in err


@pytest.mark.parametrize("option", [["--skiprows", "1"], ["--skipfooter", "1"], ["--comments", "%"],
                                    ["--comments", "#"], ["--directed"], ["--format", "text"]])
def test_a_file_option_without_a_network_file_is_refused(tmp_path, capsys, option):
    # issue 52 item 4: exited 0, the option ignored
    status, _, err = run(capsys, "perturb", "--graphs", "3", "--steps", "1", *option, "--out", tmp_path / "p.png",
                         "--quiet")
    assert status == 2 and option[0] in err and "network file" in err
    assert not (tmp_path / "p.png").exists()


def test_matrix_market_and_konect_files_by_their_names_and_by_format(tmp_path, capsys):
    # issue 52 item 12: --format, and the usual names recognised
    pytest.importorskip("graphinvariants.graphs.edgelist")
    G = nx.cycle_graph(30)
    lines = "".join(f"{u + 1} {v + 1}\n" for u, v in G.edges())
    files = {"net.mtx": "%%MatrixMarket matrix coordinate pattern symmetric\n% by hand\n30 30 30\n" + lines,
             "out.cycle": "% sym unweighted\n% 30 30 30\n" + lines}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        status, out, err = run(capsys, "perturb", tmp_path / name, "--sequences", "2", "--steps", "2",
                               "--out", tmp_path / "p.png", "--quiet")
        assert status == 0, err
        assert "30 nodes, 30 edges" in out
    (tmp_path / "cycle.dat").write_text(files["out.cycle"])
    status, _, err = run(capsys, "perturb", tmp_path / "cycle.dat", "--sequences", "2", "--steps", "2",
                         "--out", tmp_path / "p.png", "--quiet")
    assert status == 2 and "--format" in err and "format=" not in err
    status, out, err = run(capsys, "perturb", tmp_path / "cycle.dat", "--format", "konect", "--sequences", "2",
                           "--steps", "2", "--out", tmp_path / "p.png", "--quiet")
    assert status == 0 and "30 nodes, 30 edges" in out, err
    status, _, err = run(capsys, "perturb", tmp_path / "cycle.dat", "--format", "excel")
    assert status == 2 and "--format" in err and "konect" in err


def test_a_counts_line_read_as_an_edge_is_warned_of_with_the_option(tmp_path, capsys):
    # issue 52 item 13: the reader's warning names the command's option
    pytest.importorskip("graphinvariants.graphs.edgelist")
    G = nx.cycle_graph(30)
    path = tmp_path / "course.txt"
    path.write_text("30 30\n" + "".join(f"{u} {v}\n" for u, v in G.edges()))
    status, _, err = run(capsys, "perturb", path, "--sequences", "2", "--steps", "2", "--out", tmp_path / "p.png",
                         "--quiet")
    assert status == 0
    assert "graphinvariants: warning: " in err and "--skiprows 1" in err and "skiprows=" not in err
    status, _, err = run(capsys, "perturb", path, "--skiprows", "1", "--sequences", "2", "--steps", "2",
                         "--out", tmp_path / "p.png", "--quiet")
    assert status == 0 and "warning" not in err


def test_several_network_files_are_titled_by_what_ran(tmp_path, capsys):
    # issue 52 item 18: three network files were titled "100 sequences of one network"
    pytest.importorskip("graphinvariants.graphs.edgelist")
    files = []
    for name, G in (("a.txt", nx.cycle_graph(30)), ("b.txt", nx.path_graph(25)), ("c.txt", nx.star_graph(20))):
        files.append(tmp_path / name)
        files[-1].write_text("".join(f"{u} {v}\n" for u, v in G.edges()))
    figure = tmp_path / "decay.svg"  # matplotlib writes each text as a comment beside its glyphs
    status, _, err = run(capsys, "perturb", *files, "--sequences", "3", "--steps", "2", "--out", figure, "--quiet")
    assert status == 0, err
    svg = figure.read_text()
    assert "one network" not in svg
    assert "3 sequences of each of 3 networks" in svg and "power (k=5) after random flip steps" in svg
