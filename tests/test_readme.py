"""The README's two commands are the project's front door: keep CI on them."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _section(text, title):
    """The text of the README section ``## title`` up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert match, f"README.md has no section '## {title}'"
    return match[1]


def _commands(markdown):
    blocks = re.findall(r"```bash\n(.*?)```", markdown, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


def _readme_commands():
    return _commands(_section((ROOT / "README.md").read_text(), "Two commands"))


def test_ci_runs_the_readme_test_command():
    main_job, test_command = _readme_commands()
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text().splitlines()
    assert "graphinvariants" in main_job
    # CI runs the main job too, into a temporary folder
    job = main_job.split("&&")[-1].split("--out")[0].strip()
    assert job.startswith(".venv/bin/graphinvariants") and job in (ROOT / ".ci" / "run").read_text()


def test_the_readme_command_leaves_the_slow_set_to_a_second_ci_command():
    """The README's command runs the fast set (pyproject.toml deselects the slow marker);
    .ci/run runs the slow set right after it, so CI still runs every test."""
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "-m 'not slow'" in options["addopts"] and "--strict-markers" in options["addopts"]
    assert any(marker.startswith("slow:") for marker in options["markers"])
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    (test_line,) = [i for i, line in enumerate(ci) if line == _readme_commands()[1]]
    slow = [i for i, line in enumerate(ci) if line.startswith(".venv/bin/python -m pytest -m slow")]
    assert slow and slow[0] > test_line, ".ci/run runs the slow set after the README's test command"


def test_getting_started_shows_the_same_two_commands():
    page = (ROOT / "docs" / "getting_started.rst").read_text()
    for command in _readme_commands():
        assert f"\n   {command}\n" in page


def test_ci_builds_the_docs_as_the_readme_says():
    (docs_command,) = [c for c in _commands(_section((ROOT / "README.md").read_text(), "Documentation")) if "sphinx-build" in c]
    build = docs_command.split("&&")[-1].split()
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "sphinx-build" in line]
    assert ci, ".ci/run builds the docs"
    ci_build = ci[0].split("&&")[-1].split()
    assert "-W" in ci_build  # warnings are errors in CI
    assert [a for a in build if a != "-q"] == [a for a in ci_build if a != "-q"]


def test_the_readme_is_read_in_five_minutes():
    """At most 120 non-blank lines (issue 30): what it is, the two commands, ten lines, the
    learned default, large collections, links; measured figures live on the docs pages."""
    lines = [line for line in (ROOT / "README.md").read_text().splitlines() if line.strip()]
    assert len(lines) <= 120, f"README.md has {len(lines)} non-blank lines"


def test_the_readme_says_where_its_data_come_from_before_it_loads_any():
    """Was: a snippet called gi.load_tu("MUTAG") with no word of where the files are read
    from or downloaded, and failed offline."""
    import re as _re

    from graphinvariants.datasets.tu import _TU_URL

    text = (ROOT / "README.md").read_text()
    block = next(m for m in _re.finditer(r"```python\n(.*?)```", text, flags=_re.S) if "load_tu(" in m[1])
    prose = text[:block.start()]
    for needed in ("data_home=", "$GRAPHINVARIANTS_DATA", "download", _TU_URL.split("{name}")[0].rstrip("/")):
        assert needed in prose, f"the README says nothing of {needed!r} before it loads a TU data set"
    assert _re.search(r"offline", prose)


def _stated_test_count():
    page = (ROOT / "docs" / "getting_started.rst").read_text()
    match = re.search(r"about ([\d,]+) tests", page)
    assert match, "docs/getting_started.rst states how many tests the README's command runs"
    return int(match[1].replace(",", ""))


#: How far the collected count may drift from the stated one before the page is updated.
COUNT_MARGIN = 0.15


def test_getting_started_states_how_many_tests_run(request):
    """Was: "about 1,050 tests", when a fresh clone ran 1,226. Checked when the whole suite
    is collected (the README's command, CI; -k may choose this test alone), against the
    tests the session collected."""
    from conftest import COLLECTED

    config = request.config
    chosen = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    if not chosen >= {ROOT / path for path in config.getini("testpaths")} or COLLECTED not in config.stash:
        pytest.skip("the count is checked when the whole suite is collected, as the README's command does")
    stated, collected = _stated_test_count(), config.stash[COLLECTED]
    assert abs(collected - stated) <= COUNT_MARGIN * stated, (
        f"docs/getting_started.rst says about {stated:,} tests; {collected:,} were collected")


def test_every_readme_block_that_loads_a_tu_data_set_says_where_from():
    """Issue 44 item 21: the block of "Large collections" called gi.load_tu("MUTAG") with
    no data_home=, so a fresh clone downloaded into the user cache unasked."""
    text = (ROOT / "README.md").read_text()
    blocks = [m[1] for m in re.finditer(r"```python\n(.*?)```", text, flags=re.S)]
    calls = [call for block in blocks for call in re.findall(r"load_tu\([^)]*\)", block)]
    assert calls, "the README loads no TU data set: this test has nothing to check"
    for call in calls:
        assert "data_home=" in call, f"README.md: {call} does not say where the data set is read from"


def test_docs_name_no_absolute_path_of_one_machine():
    """Issue 44 item 21: explanations.rst told readers --data-home /work/shared/data/TU."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst"))]
    for page in pages:
        for number, line in enumerate(page.read_text().splitlines(), 1):
            assert not re.search(r"(?<![\w.])/(work|home|Users)/", line), f"{page.name}:{number}: {line.strip()}"
