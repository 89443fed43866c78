"""Root conftest: applies to the doctests in graphinvariants/ and to tests/."""

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no test opens a window

_TU = Path(__file__).resolve().parent.parent / "shared" / "data" / "TU"
if _TU.is_dir():
    os.environ.setdefault("GRAPHINVARIANTS_DATA", str(_TU))
