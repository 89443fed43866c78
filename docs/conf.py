"""Sphinx configuration for graphinvariants.

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (what CI runs).
The build needs no network, and neither does reading the result: intersphinx reads small
local inventories written by ``_inventories.py`` (set ``GRAPHINVARIANTS_DOCS_ONLINE=1``
to use the projects' full online inventories instead), and MathJax 3 is copied into
``_static/mathjax`` from the ``sphinx-mathjax-offline`` package instead of being loaded
from a CDN. After an HTML build, :func:`_check_html` warns (an error under ``-W``) if a
page still points at an online MathJax or any other script or style sheet on the
internet (sphinx-gallery's ``sg_execution_times`` pages did: they are not written), or a
gallery example drew no figure.
"""

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import graphinvariants  # noqa: E402
from _inventories import write_inventories  # noqa: E402

_TU = HERE.parent.parent / "shared" / "data" / "TU"
if _TU.is_dir():  # examples read the TU data through the loader; never download in CI
    os.environ.setdefault("GRAPHINVARIANTS_DATA", str(_TU))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "graphinvariants"
author = "graphinvariants developers"
copyright = "2026, graphinvariants developers"
release = version = graphinvariants.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 from the package, served from _static/mathjax
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
templates_path = ["_templates"]
exclude_patterns = ["_build", "generated/cli", "table1.rst", "sg_execution_times.rst", "**/sg_execution_times.rst"]
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["graphinvariants.css"]  # long code lines scroll instead of overflowing

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_validation_checks = set()

_ONLINE = os.environ.get("GRAPHINVARIANTS_DOCS_ONLINE") == "1"
_SITES = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "networkx": "https://networkx.org/documentation/stable/",
    "igraph": "https://python.igraph.org/en/stable/api/",
    "sklearn": "https://scikit-learn.org/stable/",
    "matplotlib": "https://matplotlib.org/stable/",
}
_LOCAL = write_inventories(HERE / "_build" / "inventories")
intersphinx_mapping = {
    name: (url, (None,) if _ONLINE else (str(_LOCAL[name]),)) for name, url in _SITES.items()
}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # the sg_execution_times pages load jQuery, DataTables and Bootstrap from CDNs: the
    # site must work offline, so they are not written (the times are in each example)
    "write_computation_times": False,
    # no repr of a cell's last expression: the examples print what they mean to show,
    # and a last ax.legend() or display.plot() printed "<... object at 0x...>"
    "capture_repr": (),
}


def _write_cli_help(app):
    """Write the --help text of every subcommand for docs/cli.rst to include."""
    from graphinvariants.cli._main import build_parser

    out = HERE / "generated" / "cli"
    out.mkdir(parents=True, exist_ok=True)
    parser = build_parser()
    (out / "main.txt").write_text(parser.format_help())
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        (out / f"{name}.txt").write_text(sub.format_help())


_ONLINE_MATHJAX = re.compile(r"""https?://[^\s"'<>]*mathjax""", re.IGNORECASE)
#: A script or style sheet loaded from the internet (a CDN): the site must work offline.
_ONLINE_ASSET = re.compile(r"""<(?:script[^>]*\ssrc|link[^>]*\shref)\s*=\s*["'](?:https?:)?//[^"']+""", re.IGNORECASE)


def _check_html(app, exc):
    """Warn when the HTML needs the internet for math, or an example has no figure."""
    if exc is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    logger = logging.getLogger("graphinvariants.docs")
    out = Path(app.outdir)
    uses_mathjax = False
    for page in sorted(out.rglob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        uses_mathjax = uses_mathjax or "_static/mathjax/" in text
        for url in sorted(set(_ONLINE_MATHJAX.findall(text))):
            logger.warning("%s loads MathJax from the internet (%s)", page.relative_to(out), url)
        for tag in sorted(set(_ONLINE_ASSET.findall(text))):
            logger.warning("%s loads a script or style from the internet (%s)", page.relative_to(out), tag)
    if uses_mathjax and not (out / "_static" / "mathjax" / "tex-chtml.js").is_file():
        logger.warning("pages load _static/mathjax/tex-chtml.js, which the build did not copy")
    images = HERE / sphinx_gallery_conf["gallery_dirs"] / "images"
    for example in sorted((HERE / sphinx_gallery_conf["examples_dirs"]).glob("plot_*.py")):
        if not (images / f"sphx_glr_{example.stem}_001.png").is_file():
            logger.warning("examples/%s draws no figure: its gallery thumbnail is a placeholder", example.name)


def setup(app):
    app.connect("builder-inited", _write_cli_help)
    app.connect("build-finished", _check_html, priority=900)  # after MathJax is copied
