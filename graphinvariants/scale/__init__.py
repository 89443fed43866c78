"""Large collections on Dask.

* :mod:`graphinvariants.scale.cluster` (needs Dask and Zarr, imported on first use):
  an alias of :mod:`graphinvariants.distributed`, where the Zarr feature store now
  lives.
* ``LearnedFeatures`` and ``subset`` are re-exported from
  :mod:`graphinvariants.features`, where they now live.
"""

from ..features import LearnedFeatures, subset

__all__ = ["LearnedFeatures", "subset"]
