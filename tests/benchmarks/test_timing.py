"""The benchmarks time one way: asv suites (benchmarks/benchmarks/) and studies on one
runner (benchmarks/studies/runner.py), sharing one arithmetic floor and one GraKeL
adapter (benchmarks/benchmarks/common.py).

Two floors had drifted apart (one divided the covariance by ``n - 1``, the others by
``n``), nine scripts wrote their own timers, 40 their own command line and four their
own GraKeL converter. The floor must compute what the library defines (mean and ``1/n``
covariance of the power summary), and no script may define its own timer, floor,
command line or converter again."""

import ast
import importlib.util
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.rglob("*.py"))
#: Names a script's own timer or floor took (each now lives once: the runner, common.py).
OWN_HELPERS = {"timed", "timer", "median_time", "medians", "floor", "floor_summary", "floor_invariants",
               "timed_once", "interleaved_medians", "median_and_result", "wall_and_cpu", "grakel_graphs"}
RUNNER, COMMON = BENCHMARKS / "studies" / "runner.py", BENCHMARKS / "benchmarks" / "common.py"


def _load(path):
    spec = importlib.util.spec_from_file_location(f"benchmark_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("G", [nx.barabasi_albert_graph(300, 3, seed=1), nx.gnm_random_graph(200, 500, seed=2)])
def test_the_floor_is_the_library_s_definition(G):
    """Mean and covariance divided by n, within 1e-12 relative (the floor sums in
    another order than the library)."""
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    mean, covariance = _load(COMMON).floor_invariants(A, k=5)
    expected = gi.power_invariants(G, k=5)
    np.testing.assert_allclose(mean, expected.mean, rtol=1e-12, atol=0)
    np.testing.assert_allclose(covariance, expected.covariance, rtol=1e-12, atol=0)


def test_one_timer_measures_every_call_and_keeps_the_last_result():
    runner = _load(RUNNER)
    calls = []
    times, result = runner.timed(lambda: calls.append(1) or len(calls), 3, collect=True)
    assert len(times) == 3 and all(t >= 0 for t in times) and result == 3
    seconds = {}
    with runner.section("block", seconds):
        pass
    assert seconds["block"] >= 0


def test_the_runner_s_command_line_and_stamp(tmp_path, capsys):
    runner = _load(RUNNER)
    args = runner.parse(runner.parser("doc", data=True, repeat=3, n_iter=5, sets=["MUTAG"], quick=False),
                        ["--n-iter", "7", "--sets", "A", "B", "--quick"])
    assert (args.repeat, args.n_iter, args.sets, args.quick, args.record) == (3, 7, ["A", "B"], True, None)
    stamp = capsys.readouterr().out.splitlines()[0]
    assert stamp.startswith("# {") and {"commit", "machine", "python", "numpy"} <= set(eval(stamp[2:]))


def test_no_script_defines_its_own_timer_floor_or_converter():
    own = []
    for path in SCRIPTS:
        if path in (RUNNER, COMMON):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in OWN_HELPERS:
                own.append(f"{path.name}: {node.name}")
    assert not own, f"use the runner or common.py instead: {own}"


def test_one_clock_one_command_line_one_grakel_adapter():
    """``perf_counter`` only in the studies' runner, ``ArgumentParser`` only there, and
    GraKeL graphs only from the library's ``to_grakel`` (through common.py)."""
    for path in SCRIPTS:
        text = path.read_text()
        if path != RUNNER:
            assert "perf_counter" not in text and "ArgumentParser(" not in text, path
        assert "grakel.Graph(" not in text and "from grakel import Graph" not in text, path
    assert "to_grakel" in COMMON.read_text()


#: Issue 50's budget is 30 files and 4,500 lines. The tree went from 48 files and 7,410
#: lines to 22 files and about 4,700 in eight passes that kept every measurement; the
#: last 200 lines are not met (the closing note of 2026-12-05 says so). Until they are,
#: this ceiling keeps the tree from growing: lower it with every cut, never raise it.
MAX_FILES, MAX_LINES, TARGET_LINES = 30, 4750, 4500


def test_the_benchmarks_stay_small():
    """At most :data:`MAX_FILES` files and :data:`MAX_LINES` lines under benchmarks/
    (every file, as ``git ls-files benchmarks | xargs wc -l`` counts them)."""
    files = [p for p in BENCHMARKS.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    assert len(files) <= MAX_FILES, len(files)
    assert lines <= MAX_LINES, f"{lines} lines under benchmarks/ (issue 50's target: {TARGET_LINES})"


def test_the_asv_suites_import_and_name_their_benchmarks():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        modules = [importlib.import_module(f"benchmarks.{p.stem}") for p in (BENCHMARKS / "benchmarks").glob("*.py")
                   if p.stem not in ("__init__", "common")]
    finally:
        sys.path.remove(str(BENCHMARKS))
    prefixes = ("time_", "peakmem_", "timeraw_", "track_")
    for module in modules:
        classes = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
        names = [n for c in classes for n in vars(c) if n.startswith(prefixes)]
        assert names, module.__name__
        for c in classes:
            if any(n.startswith(prefixes) for n in vars(c)) and hasattr(c, "params"):
                params = c.params if isinstance(c.params[0], list) else [c.params]
                assert len(getattr(c, "param_names", [])) == len(params), c
