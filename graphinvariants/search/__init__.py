"""Nearest graphs: :class:`NearestGraphs`, exact and approximate, in process, over Zarr, on Dask.

* :mod:`~graphinvariants.search.nearest`: the estimator.
* :mod:`~graphinvariants.search.exact`: exact top-k by inner product over feature rows.
* :mod:`~graphinvariants.search.approximate`: a graph of neighbours over a dense
  embedding of the rows (the ``[search]`` extra, imported on first use).
"""

from .exact import ExactIndex
from .nearest import NearestGraphs

__all__ = ["ExactIndex", "NearestGraphs"]
