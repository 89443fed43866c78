"""Root conftest: applies to the doctests in graphinvariants/ and to tests/."""

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")  # no test opens a window

_TU = Path(__file__).resolve().parent.parent / "shared" / "data" / "TU"
if _TU.is_dir():
    os.environ.setdefault("GRAPHINVARIANTS_DATA", str(_TU))


#: How many tests the session collected, before -k, -m or --deselect chose among them
#: (tests/test_readme.py checks docs/getting_started.rst's count against it).
COLLECTED = pytest.StashKey[int]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    config.stash[COLLECTED] = len(items)
