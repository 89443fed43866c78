"""The one loader of optional code (graphinvariants/_utils/optional.py)."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import graphinvariants as gi
from graphinvariants._utils.optional import EXTRAS, MissingExtraError, compiled, compiled_available, import_extra

PACKAGE = Path(__file__).resolve().parents[2] / "graphinvariants"
COMPILED = sorted(".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts) for p in PACKAGE.rglob("*_numba.py"))


def test_a_missing_extra_says_what_needs_it_and_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "faiss", None)  # "import faiss" now raises ImportError
    with pytest.raises(MissingExtraError, match=r'index="approximate" needs FAISS .*pip install "graphinvariants\[search\]"'):
        import_extra("faiss", needs='index="approximate" needs FAISS')
    assert issubclass(MissingExtraError, ImportError)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r'pyarrow is needed .*pip install "graphinvariants\[io\]"'):
        import_extra("pyarrow.parquet")


def test_an_installed_extra_is_the_module_and_an_unknown_package_is_refused():
    pytest.importorskip("pandas")
    assert import_extra("pandas") is sys.modules["pandas"]
    with pytest.raises(ValueError, match="'os' is not the dependency of an extra"):
        import_extra("os")


def test_every_package_is_brought_by_the_extra_named_for_it():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for package, extra in EXTRAS.items():
        requirements = " ".join(extras[extra])
        distribution = {"faiss": "faiss-cpu", "distributed": "dask[array,dataframe,distributed]"}.get(package, package)
        assert re.search(rf"(^| ){re.escape(distribution)}([<>=\[]|$)", requirements), (package, extra)


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_is_none_when_numba_is_switched_off(monkeypatch, name):
    loaded = compiled(name)  # loaded first if numba is here: switching off still holds
    assert loaded is None or loaded.__name__ == name
    monkeypatch.setitem(sys.modules, "numba", None)
    assert not compiled_available()
    assert compiled(name) is None


def test_compiled_is_none_when_the_module_itself_is_switched_off(monkeypatch):
    pytest.importorskip("numba")
    name = "graphinvariants.walks._large_numba"
    assert compiled(name).BLOCK == 4096
    monkeypatch.setitem(sys.modules, name, None)
    assert compiled(name) is None


def test_compiled_only_loads_compiled_modules():
    with pytest.raises(ValueError, match=r"\*_numba.py"):
        compiled("graphinvariants.walks.large")


GRAPH = "import graphinvariants as gi, numpy as np\nA = gi.from_edge_arrays(np.arange(2**20) % 1000, np.arange(2**20) % 997, n_nodes=2**20)"


def test_a_numba_that_cannot_be_imported_is_no_numba(tmp_path):
    """A numba installed beside a numpy it refuses raises ImportError at import: the
    numpy path does the work, and the power summary of a large graph is the same."""
    (tmp_path / "numba").mkdir()
    (tmp_path / "numba" / "__init__.py").write_text('raise ImportError("Numba needs NumPy 0.1 or less")\n')
    script = (
        "import graphinvariants as gi, numpy as np\n"
        "from graphinvariants._utils.optional import compiled, compiled_available\n"
        "from graphinvariants.walks import large\n"
        "assert compiled_available() and compiled(large.LOOPS) is None\n"
        "assert compiled(large.LOOPS) is None\n"  # asked again: no second attempt, no error
        f"{GRAPH}\n"
        "print(gi.power_summary(A, k=2).matrix.sum(axis=0).tolist())\n"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{PACKAGE.parent}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    namespace = {}
    exec(GRAPH, namespace)  # here, with numba if it is installed: the same bits
    assert out.stdout.strip() == str(gi.power_summary(namespace["A"], k=2).matrix.sum(axis=0).tolist())


def test_numba_is_imported_only_by_compiled_modules_and_the_loader():
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "numba" or n.startswith("numba.") for n in names):
                importers.add(path.relative_to(PACKAGE).as_posix())
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value == "numba" for a in node.args):
                importers.add(path.relative_to(PACKAGE).as_posix())  # importlib.import_module("numba")
    assert importers - {"_utils/optional.py"} == {p for p in importers if p.endswith("_numba.py")}
    assert len(importers) == len(COMPILED) + 1
