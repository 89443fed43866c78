"""A missing TU data folder skips the tests that need it on a developer's machine, and
fails the run, loudly, under ``CI=true`` (where a lost ``../shared`` would otherwise pass
with a fraction of the suite). Each case runs pytest in a fresh process on a one-test
file that takes the ``tu_dir`` fixture of ``tests/conftest.py``, with
``GRAPHINVARIANTS_DATA`` pointing to a folder that does not exist."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path, ci):
    test = tmp_path / "test_needs_data.py"
    test.write_text("def test_needs_data(tu_dir):\n    assert tu_dir.is_dir()\n")
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTEST_ADDOPTS")}
    env["GRAPHINVARIANTS_DATA"] = str(tmp_path / "missing")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-q", "-rs", "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", str(test)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )


def test_missing_data_fails_the_run_under_ci(tmp_path):
    result = _run(tmp_path, "true")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 error" in result.stdout
    assert "TU data not found" in result.stdout and "CI" in result.stdout


def test_missing_data_skips_outside_ci(tmp_path):
    result = _run(tmp_path, None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout and "TU data not found" in result.stdout


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("True", True), ("1", True), ("yes", True), ("false", False), ("0", False), ("", False)],
)
def test_which_values_of_ci_mean_a_ci_run(value, expected):
    assert in_ci({"CI": value}) is expected
    assert in_ci({}) is False


def test_ci_script_runs_the_suite_as_ci():
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    exported = lines.index("export CI=true")
    suite = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    assert exported < suite
