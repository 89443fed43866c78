"""The learned default at scale: explicit features for linear models, in process and on Dask.

* :class:`LearnedFeatures`: features whose inner products are the learned kernel
  (exact for the count members, Nystroem for the rest), a block of graphs at a time.
* :mod:`graphinvariants.scale.cluster` (needs Dask and Zarr, imported on first use):
  the same features of a ``dask.bag.Bag`` of graphs written to Zarr, and nearest
  neighbours under the learned kernel over them.
"""

from .features import LearnedFeatures, subset

__all__ = ["LearnedFeatures", "subset"]
