import json

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.cli import main


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_kernel_decay_display_plots_the_study_data():
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(12)]
    study = gi.perturbation_study(graphs, n_graphs=10, n_steps=4, seed=0, name="ER")
    display = study.plot()
    line = display.lines_["ER"]
    np.testing.assert_array_equal(line.get_xdata(), np.arange(5))
    np.testing.assert_allclose(line.get_ydata(), study.mean)
    assert display.ax_.get_ylabel() == "power kernel with the original graph"
    assert display.ax_.get_xlabel() == "number of edge flips"
    assert display.figure_ is display.ax_.figure


def test_kernel_matrix_display_groups_rows_by_class():
    K = np.array([[1.0, 0.2, 0.9], [0.2, 1.0, 0.1], [0.9, 0.1, 1.0]])
    display = gi.plot_kernel_matrix(K, ["b", "a", "b"])
    np.testing.assert_array_equal(display.order, [1, 0, 2])
    np.testing.assert_array_equal(display.image_.get_array(), K[np.ix_([1, 0, 2], [1, 0, 2])])
    with pytest.raises(ValueError, match="square"):
        gi.plot_kernel_matrix(np.ones((2, 3)))


def test_invariants_display_and_png(tmp_path):
    inv = gi.power_invariants(nx.karate_club_graph())
    display = gi.plot_invariants(inv)
    mean_line = display.axes_[0].lines[0]
    np.testing.assert_allclose(mean_line.get_ydata(), inv.mean)
    np.testing.assert_array_equal(display.axes_[1].images[0].get_array(), inv.covariance)
    display.figure_.savefig(tmp_path / "inv.png")
    assert (tmp_path / "inv.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_perturb_on_generated_graphs(tmp_path, capsys):
    out = tmp_path / "fig" / "p.png"
    assert main(["perturb", "--graphs", "5", "--flips", "3", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "generated on the spot" in text and "Watts-Strogatz" in text
    assert out.read_bytes()[:4] == b"\x89PNG"
    lines = (tmp_path / "fig" / "p.csv").read_text().splitlines()
    assert lines[0] == "collection,step,mean,std,stderr" and len(lines) == 1 + 3 * 4
    assert len(json.loads((tmp_path / "fig" / "p.json").read_text())) == 3


def test_cli_perturb_falls_back_when_data_is_missing(tmp_path, capsys):
    assert main(["perturb", "NOPE", "--graphs", "3", "--flips", "2", "--no-download",
                 "--data-home", str(tmp_path), "--out", str(tmp_path / "p.png")]) == 0
    captured = capsys.readouterr()
    assert "no TU data found" in captured.out and "not found" in captured.err


def test_cli_perturb_on_tu_data(tu_dir, tmp_path, capsys):
    assert main(["perturb", "MUTAG", "--graphs", "20", "--flips", "4", "--data-home", str(tu_dir),
                 "--no-download", "--out", str(tmp_path / "p.png")]) == 0
    assert "MUTAG" in capsys.readouterr().out


def test_cli_demo_and_evaluate(tu_dir, tmp_path, capsys):
    assert main(["demo"]) == 0
    assert "K = 1.000000000000" in capsys.readouterr().out
    assert main(["evaluate", "MUTAG", "--reps", "1", "--folds", "3", "--data-home", str(tu_dir),
                 "--no-download", "--out", str(tmp_path), "--quiet"]) == 0
    assert "83.22 (0.47)" in capsys.readouterr().out
    rows = json.loads((tmp_path / "evaluation.json").read_text())["rows"]
    assert rows[0]["dataset"] == "MUTAG" and 60 < rows[0]["accuracy"] <= 100


def test_cli_errors_are_clean(tmp_path, capsys):
    assert main(["evaluate", "NOPE", "--no-download", "--data-home", str(tmp_path), "--quiet"]) == 2
    assert "graphinvariants: error: TU data set 'NOPE' not found" in capsys.readouterr().err
