"""Every Python code block of the documentation runs.

The blocks come from every ``.rst`` file under ``docs/`` (``.. code-block:: python``
directives and ``::`` literal blocks, which Sphinx highlights as Python) and from the
```` ```python ```` fences of ``README.md``. Each block runs on its own, in a fresh
namespace, with matplotlib on Agg and a temporary working directory, so a block must
import what it uses and nothing is written into the clone.

A block that is not Python must say so (``.. code-block:: console``, ``text``, ``bash``,
...; a labelled fence in the README): the language of every block is checked against
two explicit lists, so no Python block is left out without a test failing.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: What Sphinx and sphinx-gallery generate under docs/: not ours to check.
GENERATED = {"_build", "auto_examples", "generated", "sg_execution_times.rst"}

PYTHON = {"python", "python3", "py", "default"}
NOT_PYTHON = {"text", "none", "console", "bash", "shell", "sh", "bibtex", "ini", "toml"}

_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\.\s+(?P<name>[\w:-]+)::\s*(?P<arg>.*)$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.|#\.)\s+")
_FENCE = re.compile(r"^```(?P<lang>[\w+-]*)\s*$")


def _indent(line):
    return len(line) - len(line.lstrip())


def _body(lines, start, indent):
    """The indented body after line ``start - 1``: (first line index, dedented text, end)."""
    j = start
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
        j += 1
    body = lines[start:j]
    while body and not body[-1].strip():
        body.pop()
    first = next((i for i, line in enumerate(body) if line.strip()), None)
    if first is None:
        return None, "", j
    body = body[first:]
    margin = min(_indent(line) for line in body if line.strip())
    return start + first, "\n".join(line[margin:] for line in body) + "\n", j


def rst_blocks(path):
    """``(language, line number, code)`` of every code block of an .rst file."""
    lines = path.read_text().splitlines()
    default = "default"  # Sphinx's highlight_language: Python
    blocks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _DIRECTIVE.match(line)
        if match:
            name, indent = match["name"], len(match["indent"])
            if name == "highlight":
                default = match["arg"].strip()
            elif name in ("code-block", "code", "sourcecode"):
                j = i + 1
                while j < len(lines) and lines[j].strip().startswith(":") and _indent(lines[j]) > indent:
                    j += 1  # options such as :caption:
                first, code, end = _body(lines, j, indent)
                if first is not None:
                    blocks.append((match["arg"].strip() or default, first + 1, code))
                i = end
                continue
            i += 1  # other directives: their content is scanned like the rest
            continue
        if line.rstrip().endswith("::"):  # a paragraph that introduces a literal block
            item = _LIST_ITEM.match(line)  # in a list item the text starts after the marker
            first, code, end = _body(lines, i + 1, len(item[0]) if item else _indent(line))
            if first is not None:
                blocks.append((default, first + 1, code))
                i = end
                continue
        i += 1
    return blocks


def markdown_blocks(path):
    """``(language, line number, code)`` of every fenced block of a Markdown file."""
    lines = path.read_text().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            blocks.append((match["lang"] or "<unlabelled>", i + 2, "\n".join(lines[i + 1 : j]) + "\n"))
            i = j + 1
        else:
            i += 1
    return blocks


def documentation_files():
    rst = [p for p in sorted(DOCS.rglob("*.rst")) if not GENERATED & set(p.relative_to(DOCS).parts)]
    return rst + [ROOT / "README.md"]


def all_blocks():
    for path in documentation_files():
        for lang, line, code in (markdown_blocks if path.suffix == ".md" else rst_blocks)(path):
            yield path.relative_to(ROOT).as_posix(), line, lang.lower(), code


BLOCKS = list(all_blocks())
#: A block that runs the paper's whole protocol (10 x 10 folds) is a long reproduction: it
#: runs with the slow set (``-m slow``), the others with every run.
PAPER_PROTOCOL = "n_repeats=10"
PYTHON_BLOCKS = [pytest.param(code, id=f"{path}:{line}", marks=[pytest.mark.slow] if PAPER_PROTOCOL in code else [])
                 for path, line, lang, code in BLOCKS if lang in PYTHON]


def test_the_parser_finds_the_blocks_we_know_of():
    found = {(path, lang) for path, _, lang, _ in BLOCKS}
    assert ("docs/getting_started.rst", "python") in found
    assert ("docs/index.rst", "python") in found
    assert ("README.md", "python") in found
    assert ("README.md", "bash") in found
    assert len(PYTHON_BLOCKS) >= 5


def test_the_parser_on_every_kind_of_block(tmp_path):
    rst = tmp_path / "page.rst"
    rst.write_text(
        "Title\n=====\n\nA literal block::\n\n   x = 1\n\n   y = 2\n\nBack to text.\n\n"
        ".. math:: a^2\n\n.. code-block:: console\n\n   $ ls\n\n"
        ".. note::\n\n   Nested\n\n   .. code-block:: python\n      :caption: c\n\n      z = 3\n\n"
        "Expanded form ::\n\n    w = 4\n\n"
        "* an item::\n\n    v = 5\n\n  the item goes on\n"
    )
    assert rst_blocks(rst) == [
        ("default", 6, "x = 1\n\ny = 2\n"),
        ("console", 16, "$ ls\n"),
        ("python", 25, "z = 3\n"),
        ("default", 29, "w = 4\n"),
        ("default", 33, "v = 5\n"),
    ]
    md = tmp_path / "page.md"
    md.write_text("# T\n\n```python\nprint(1)\n```\n\n```\nplain\n```\n")
    assert markdown_blocks(md) == [("python", 4, "print(1)\n"), ("<unlabelled>", 8, "plain\n")]


@pytest.mark.parametrize("path, line, lang", [(p, n, lang) for p, n, lang, _ in BLOCKS], ids=lambda v: str(v))
def test_every_block_declares_whether_it_is_python(path, line, lang):
    assert lang in PYTHON | NOT_PYTHON, (
        f"{path}:{line}: code block in language {lang!r}; label it python (it is then run) "
        f"or one of {sorted(NOT_PYTHON)}, or add the language to one of the lists"
    )


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A temporary working directory, matplotlib on Agg, no downloads, figures closed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from graphinvariants.datasets import tu

    def no_download(name, home):
        raise RuntimeError(f"a documentation block tried to download {name!r}")

    monkeypatch.setattr(tu, "_download", no_download)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    plt.close("all")


@pytest.mark.parametrize("code", PYTHON_BLOCKS)
def test_python_block_runs(code, request, sandbox):
    if "load_tu" in code:
        tu_dir = request.getfixturevalue("tu_dir")  # skipped, with the reason, when the TU data is absent
        (sandbox / "data").symlink_to(tu_dir, target_is_directory=True)  # data_home="data" holds the data sets
    name = request.node.callspec.id
    exec(compile(code, name, "exec"), {"__name__": "__main__"})
