"""Dask and Zarr, one layer for every kernel: collections larger than memory (optional).

Install with ``pip install "graphinvariants[dask]"`` (Dask with its array, dataframe
and distributed parts, pyarrow and zarr). ``import graphinvariants`` never imports
Dask; this package does. It is split by role, and its modules import one way
(inputs -> features -> gram, search; network stands alone):

* :mod:`~graphinvariants.distributed.inputs`: Bags of graphs, edge tables and frames
  of embeddings -> partitions (:func:`embed`, :func:`to_frame`, :func:`from_frame`,
  :func:`embedding_columns`, :func:`edge_table_batch`).
* :mod:`~graphinvariants.distributed.features`: any fitted
  :class:`~graphinvariants.GraphFeatures` (fixed members and the learned default)
  mapped a partition per task and written to Zarr (:func:`features_to_zarr`,
  :func:`read_features`).
* :mod:`~graphinvariants.distributed.gram`: blockwise kernel matrices
  (:func:`kernel_matrix`).
* :mod:`~graphinvariants.distributed.network`: one graph too large for one machine,
  as an edge table: its power invariants as ``k`` map/reduce passes over the edge
  partitions (:func:`power_invariants`, :func:`power_kernel`).
* :mod:`~graphinvariants.distributed.search`: top-k per block merged in a tree
  (:func:`kneighbors` over embeddings on Dask, :func:`store_kneighbors` over a Zarr
  store). :class:`graphinvariants.NearestGraphs` is the search surface; it uses these.

Every number equals the in-process result bit for bit: embeddings, features, kernel
values and neighbours do not depend on how the graphs are split into partitions.

To run :func:`graphinvariants.evaluate_kernel` on a cluster, no function is needed:
``with joblib.parallel_config(backend="dask"): gi.evaluate_kernel(K, y, n_jobs=...)``
sends its outer folds to the workers of the active ``distributed.Client``.
"""

try:
    import dask  # noqa: F401
    import dask.array  # noqa: F401
    import dask.bag  # noqa: F401
    import dask.dataframe  # noqa: F401
    import pandas  # noqa: F401
    import zarr  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised by a test with dask hidden
    raise ImportError(
        f"graphinvariants.distributed needs Dask, pandas and Zarr ({err}); install them with: "
        'pip install "graphinvariants[dask]"'
    ) from err

from .features import features_to_zarr, read_features, rows_to_zarr
from .gram import DEFAULT_CHUNKS, kernel_matrix
from .inputs import edge_table_batch, embed, embedding_columns, from_frame, to_frame
from .network import power_invariants, power_kernel
from .search import kneighbors, store_kneighbors

__all__ = [
    "DEFAULT_CHUNKS",
    "edge_table_batch",
    "embed",
    "embedding_columns",
    "features_to_zarr",
    "from_frame",
    "kernel_matrix",
    "kneighbors",
    "power_invariants",
    "power_kernel",
    "read_features",
    "rows_to_zarr",
    "store_kneighbors",
    "to_frame",
]
