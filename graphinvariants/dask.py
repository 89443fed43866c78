"""Former home of the Dask functions for embeddings: an alias of :mod:`graphinvariants.distributed`.

``import graphinvariants.dask`` (or ``gi.dask``) keeps working and gives the same
functions; new code imports :mod:`graphinvariants.distributed`.
"""

from .distributed import (
    DEFAULT_CHUNKS,
    edge_table_batch,
    embed,
    embedding_columns,
    from_frame,
    kernel_matrix,
    kneighbors,
    to_frame,
)

__all__ = ["embed", "embedding_columns", "from_frame", "kernel_matrix", "kneighbors", "to_frame"]
