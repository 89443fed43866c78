"""The README's two commands are the project's front door: keep CI on them."""

import re
from pathlib import Path

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
