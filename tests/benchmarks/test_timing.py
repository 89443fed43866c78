"""The benchmark scripts share one timer and one arithmetic floor (benchmarks/timing.py).

Two floors had drifted apart (one divided the covariance by ``n - 1``, the others by
``n``) and nine scripts wrote their own timers. The floor must compute what the
library defines (mean and ``1/n`` covariance of the power summary), and no script may
define its own timer or floor again."""

import ast
import importlib.util
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
#: Names a script's own timer or floor took (each now lives once, in timing.py).
OWN_HELPERS = {"timed", "timer", "median_time", "medians", "floor", "floor_summary", "floor_invariants",
               "timed_once", "interleaved_medians", "median_and_result", "wall_and_cpu"}


def _timing():
    spec = importlib.util.spec_from_file_location("benchmark_timing", BENCHMARKS / "timing.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("G", [nx.barabasi_albert_graph(300, 3, seed=1), nx.gnm_random_graph(200, 500, seed=2)])
def test_the_floor_is_the_library_s_definition(G):
    """Mean and covariance divided by n, within 1e-12 relative (the floor sums in
    another order than the library)."""
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    mean, covariance = _timing().floor_invariants(A, k=5)
    expected = gi.power_invariants(G, k=5)
    np.testing.assert_allclose(mean, expected.mean, rtol=1e-12, atol=0)
    np.testing.assert_allclose(covariance, expected.covariance, rtol=1e-12, atol=0)


def test_one_timer_measures_every_call_and_keeps_the_last_result():
    timing = _timing()
    calls = []
    times, result = timing.timed(lambda: calls.append(1) or len(calls), 3, collect=True)
    assert len(times) == 3 and all(t >= 0 for t in times) and result == 3
    assert timing.median_time(lambda: None, 3) >= 0
    assert timing.interleaved_medians({"a": lambda: None, "b": lambda: None}, 2).keys() == {"a", "b"}


def test_no_script_defines_its_own_timer_or_floor():
    own = []
    for path in sorted(BENCHMARKS.glob("*.py")):
        if path.name == "timing.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in OWN_HELPERS:
                own.append(f"{path.name}: {node.name}")
    assert not own, f"use benchmarks/timing.py instead: {own}"
