"""Large collections on Dask.

* :mod:`graphinvariants.scale.cluster` (needs Dask and Zarr, imported on first use):
  the features of :class:`~graphinvariants.GraphFeatures` for a ``dask.bag.Bag`` of
  graphs written to Zarr, and nearest neighbours over them.
* ``LearnedFeatures`` and ``subset`` are re-exported from
  :mod:`graphinvariants.features`, where they now live.
"""

from ..features import LearnedFeatures, subset

__all__ = ["LearnedFeatures", "subset"]
