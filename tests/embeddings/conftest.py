"""Fixtures of the embedding tests."""

import numpy as np
import pytest


@pytest.fixture(params=["numpy", "numba"])
def mean_map_engine(request, monkeypatch):
    """The exact mean map's double sums on the numpy path or compiled (numba; skipped
    when it is missing), whatever the size of the call."""
    from graphinvariants.embeddings import meanmap

    if request.param == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(meanmap, "COMPILED_PAIRS", 0)
    else:
        monkeypatch.setattr(meanmap, "COMPILED_PAIRS", np.inf)
    return request.param
