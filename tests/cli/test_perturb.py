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
