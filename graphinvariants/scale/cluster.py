"""Former home of the Zarr feature store: an alias of :mod:`graphinvariants.distributed`.

``features_to_zarr`` and ``read_features`` are those of
:mod:`graphinvariants.distributed`; ``kneighbors`` here is
:func:`graphinvariants.distributed.store_kneighbors`. New code imports
:mod:`graphinvariants.distributed` (or searches with :class:`graphinvariants.NearestGraphs`).
"""

from ..distributed import features_to_zarr, read_features
from ..distributed import store_kneighbors as kneighbors

__all__ = ["features_to_zarr", "kneighbors", "read_features"]
