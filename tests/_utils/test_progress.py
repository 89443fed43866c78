"""Progress bars written to a file or a pipe are plain lines, or nothing."""

import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi

ROOT = Path(__file__).resolve().parents[2]


def _graphs():
    return [nx.cycle_graph(n) for n in range(5, 13)] + [nx.star_graph(n) for n in range(4, 12)]


def _runs_with_progress(progress):
    graphs, y = _graphs(), [0] * 8 + [1] * 8
    gi.perturbation_study(graphs, n_graphs=4, n_steps=2, seed=0, progress=progress)
    gi.evaluate_kernel(gi.kernel_matrix(graphs, kernel="wl"), y, n_repeats=1, n_folds=2, progress=progress)
    gi.GraphFeatures(n_landmarks=4, seed=0, progress=bool(progress)).fit(graphs, y)


def test_bars_asked_for_on_a_pipe_are_plain_lines(capsys):
    """Was: one line of carriage-return frames ("\\router folds:  50%|#####  | 1/2 ...\\r...")."""
    _runs_with_progress(True)
    err = capsys.readouterr().err  # not a terminal
    assert "\r" not in err
    lines = err.splitlines()
    for desc in ("perturbation study", "outer folds", "fit"):
        assert any(line.startswith(desc) and "100%" in line for line in lines), (desc, lines)


def test_bars_wanted_on_a_terminal_print_nothing_on_a_pipe(capsys):
    gi.perturbation_study(_graphs(), n_graphs=4, n_steps=2, seed=0, progress=None)
    assert capsys.readouterr().err == ""


def test_every_bar_is_made_by_the_one_helper():
    """No module but graphinvariants/_utils/progress.py calls tqdm itself."""
    for path in sorted((ROOT / "graphinvariants").rglob("*.py")):
        if path.relative_to(ROOT).as_posix() == "graphinvariants/_utils/progress.py":
            continue
        code = path.read_text()
        assert not re.search(r"^\s*(from tqdm|import tqdm)", code, flags=re.M), path
