"""One version: the package's constant is what pyproject.toml builds, the changelog's
newest release, and no deprecation says it happened in a later one (issue 38, item 11)."""

import re
import sys
from pathlib import Path

import pytest

import graphinvariants as gi

ROOT = Path(__file__).resolve().parents[1]


def _version(text):
    return tuple(int(part) for part in text.split("."))


def test_pyproject_builds_the_package_version():
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "graphinvariants.__version__"}


def test_the_changelog_and_deprecations_agree_with_the_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", gi.__version__)
    newest = re.search(r"^(\d+\.\d+\.\d+)( \(unreleased\))?\n-+$", (ROOT / "docs" / "changelog.rst").read_text(), re.M)
    assert newest.group(1) == gi.__version__
    sources = "\n".join(p.read_text() for p in (ROOT / "graphinvariants").rglob("*.py"))
    since = re.findall(r"deprecated since (\d+\.\d+\.\d+)", sources)
    assert since and max(map(_version, since)) <= _version(gi.__version__)
