"""``import graphinvariants`` is cheap, and every public name is still where it was.

The heavy dependencies load when a function that needs them is first called (module
``__getattr__``, SPEC 1); each check runs in a fresh interpreter, since this test
session has long imported them all.
"""

import json
import subprocess
import sys

import pytest

import graphinvariants as gi

FORBIDDEN = ["sklearn", "igraph", "matplotlib", "pandas", "numba", "dask", "scipy.stats", "joblib"]


def loaded_after(*steps):
    """The forbidden modules in ``sys.modules`` of one fresh interpreter after each of
    ``steps`` (code run one after the other), a list per step."""
    check = f"print(json.dumps(sorted(m for m in {FORBIDDEN!r} if m in sys.modules)))"
    script = "\n".join(["import json, sys"] + [line for step in steps for line in (step, check)])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()[-len(steps):]]


def test_the_import_and_the_command_line_parser_load_no_heavy_dependency():
    *light, everything = loaded_after(
        "import graphinvariants",
        "import graphinvariants.cli._main; graphinvariants.cli._main.build_parser().format_help()",
        "import networkx as nx; graphinvariants.power_kernel(nx.path_graph(4), nx.cycle_graph(5))",
        f"from graphinvariants import {', '.join(gi.__all__)}",  # every public name, the estimators too
    )
    assert light == [[], [], []]
    assert "sklearn" in everything


def test_the_heavy_dependencies_load_on_first_use():
    # the check above could pass by looking in the wrong place: here they do load
    graph_kernel, rooted = loaded_after(
        "import graphinvariants as gi; gi.GraphKernel",
        "import networkx as nx; gi.kernel_matrix([nx.path_graph(3)], kernel='rooted_subgraph')",
    )
    assert "sklearn" in graph_kernel and "igraph" not in graph_kernel and "igraph" in rooted


def test_every_public_name_resolves_and_is_listed():
    for name in gi.__all__:
        assert getattr(gi, name) is not None, name
    assert set(gi.__all__) <= set(dir(gi))
    for module in ("datasets", "embeddings", "graphs", "kernels", "perturbation", "estimator", "evaluation",
                   "explanations", "features", "search", "cli", "walks", "distributed",
                   "networkx_backend"):
        assert getattr(gi, module).__name__ == f"graphinvariants.{module}"
    assert gi.kernels.learned.__name__ == "graphinvariants.kernels.learned"
    assert gi.GraphKernel is gi.estimator.GraphKernel
    from graphinvariants.features import deprecated

    with pytest.warns(FutureWarning, match="deprecated since 0.3.0"):
        assert gi.LearnedFeatures is deprecated.LearnedFeatures
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        gi.no_such_name
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        gi.kernels.no_such_name
