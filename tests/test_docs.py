"""Every public name is in the API reference and shows a runnable example; the built
site needs no internet (math) and keeps long code lines inside the page."""

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import graphinvariants as gi

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API = (DOCS / "api.rst").read_text()
CONSTANTS = {"DEFAULT_RIDGE", "KERNELS", "PERTURBATIONS"}


@pytest.mark.parametrize("name", sorted(set(gi.__all__) - CONSTANTS))
def test_public_name_is_in_the_api_reference(name):
    assert f"\n   {name}\n" in API


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_constants_have_their_own_description(name):
    """autosummary would show the docstring of the constant's type (float, dict)."""
    assert f"\n.. data:: {name}\n\n   " in API


@pytest.mark.parametrize("name", sorted(set(gi.__all__) - CONSTANTS))
def test_public_object_has_an_examples_section(name):
    doc = inspect.getdoc(getattr(gi, name))
    assert doc and "Examples\n--------" in doc and ">>>" in doc


def _conf_values():
    """The literal assignments of docs/conf.py, read without running it."""
    values = {}
    for node in ast.parse((DOCS / "conf.py").read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass  # not a literal
    return values


ONLINE_MATHJAX = re.compile(r"""https?://[^\s"'<>]*mathjax""", re.IGNORECASE)


def test_conf_bundles_mathjax_instead_of_loading_it_from_a_cdn():
    conf = _conf_values()
    extensions = conf["extensions"]
    assert "sphinx.ext.mathjax" in extensions and "sphinx-mathjax-offline" in extensions
    assert extensions.index("sphinx-mathjax-offline") > extensions.index("sphinx.ext.mathjax")
    assert "sphinx.ext.imgmath" not in extensions
    assert not ONLINE_MATHJAX.search(str(conf.get("mathjax_path", "")))


def test_docs_extra_installs_the_bundled_mathjax():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("sphinx-mathjax-offline") for req in extras["docs"])


def test_a_page_with_math_loads_mathjax_from_the_site(tmp_path):
    """A small build with the math extensions of conf.py: the page points at the copy in
    _static/mathjax, which is there, and at no http(s) MathJax."""
    pytest.importorskip("sphinx")
    if importlib.util.find_spec("sphinx-mathjax-offline") is None:
        pytest.skip("sphinx-mathjax-offline is not installed (pip install -e '.[docs]')")
    from sphinx.cmd.build import build_main

    math_extensions = [e for e in _conf_values()["extensions"] if "math" in e]
    src, out = tmp_path / "src", tmp_path / "html"
    src.mkdir()
    (src / "conf.py").write_text(f"extensions = {math_extensions!r}\n")
    (src / "index.rst").write_text("Math\n====\n\n.. math:: K(A, B) = \\int \\sqrt{p_A p_B}\n")
    assert build_main(["-q", "-W", "-b", "html", str(src), str(out)]) == 0
    page = (out / "index.html").read_text()
    assert not ONLINE_MATHJAX.findall(page)
    scripts = re.findall(r'<script[^>]*src="([^"]*tex-chtml[^"]*)"', page)
    assert scripts and all(s.startswith("_static/mathjax/") for s in scripts)
    assert (out / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert (out / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


def test_long_code_lines_scroll_inside_the_page():
    conf = _conf_values()
    assert "_static" in conf["html_static_path"]
    css_files = conf["html_css_files"]
    rules = "".join((DOCS / "_static" / name).read_text() for name in css_files)
    pre = re.search(r"(?:^|\n)pre\s*\{([^}]*)\}", rules)
    assert pre, "a rule for pre in the docs' CSS"
    assert re.search(r"overflow(-x)?\s*:\s*auto", pre[1]) or re.search(r"white-space\s*:\s*pre-wrap", pre[1])
