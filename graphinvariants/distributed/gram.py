"""Kernel matrices on Dask, a block of rows by a block of columns at a time.

Part of :mod:`graphinvariants.distributed` (the ``[dask]`` extra).
:func:`kernel_matrix` returns the kernel matrix as a chunked ``dask.array``, every block
computed on a worker by the pair engine on two blocks of embeddings
(:func:`~graphinvariants.distributed.inputs.blocks_of`); write it with ``to_zarr``. The
values equal :func:`graphinvariants.kernel_matrix`'s bit for bit, however the graphs
are split into partitions.
"""

import numbers

import dask
import dask.array as da
import numpy as np

from ..kernels import pairwise_kernels
from ..kernels.engine import check_not_same_iterator
from .inputs import batch_of, blocks_of, check_chunk, embed_with, functional_of, layout_of

__all__ = ["kernel_matrix"]

#: Rows per block of :func:`kernel_matrix` by default: 2048 x 2048 float64 is 32 MiB.
DEFAULT_CHUNKS = 2048


# -- kernel matrix ---------------------------------------------------------------------
def _embedded_block(frame, functional, layout):
    batch = batch_of(functional, layout, frame)
    functional.prepare(batch, "block")  # cached on the batch, shared by its blocks
    return batch


def _cross_block(left, right, functional):
    return pairwise_kernels(left, right, functional=functional)


def _gram_block(batch, functional):
    return pairwise_kernels(batch, functional=functional)


def _transposed_cross_block(left, right, functional):
    return np.ascontiguousarray(pairwise_kernels(left, right, functional=functional).T)


def _check_chunks(chunks, symmetric):
    if chunks is None or isinstance(chunks, numbers.Integral):
        row = col = check_chunk(chunks, "chunks")
    elif isinstance(chunks, tuple) and len(chunks) == 2:
        row, col = check_chunk(chunks[0], "chunks[0]"), check_chunk(chunks[1], "chunks[1]")
    else:
        raise TypeError(f"chunks must be None, an int or a pair of them, got {chunks!r}")
    if symmetric and row != col:
        raise ValueError(f"the square matrix (b=None) needs the same chunks for rows and columns, got {chunks!r}")
    return row, col


def kernel_matrix(a, b=None, *, kernel="power", chunks=DEFAULT_CHUNKS, **params):
    """Kernel matrix of collections held by Dask, as a chunked ``dask.array``.

    Every block is computed, on a worker, by the pair engine
    (:func:`~graphinvariants.kernels.pairwise_kernels`) from the embeddings of its
    row block and its column block; nothing is gathered to the client.

    Parameters
    ----------
    a : dask.dataframe.DataFrame, dask.bag.Bag, pandas.DataFrame or in-memory collection
        Embeddings from :func:`embed` (or read back from its Parquet files), anything
        :func:`embed` takes (a Bag of graphs or an edge table: embedded here, with
        the same kernel and parameters), a frame from :func:`to_frame`, or graphs or
        embeddings in memory (embedded here and sent to the workers with the task
        graph: fine for small collections).
    b : same as ``a``, optional
        The other side; ``None`` gives the square, symmetric matrix of ``a``, with a
        unit diagonal; a block below the diagonal is the transpose of its mirror
        image, computed again rather than kept in memory until it is written.
    kernel : str, keyword-only
        One of :data:`~graphinvariants.KERNELS` whose functional has ``to_arrays``.
    chunks : int, None or (int or None, int or None), keyword-only
        Rows (and columns) per block, default 2048 (32 MiB blocks). Regular chunks
        are what Zarr needs. ``None`` makes one block per partition (irregular; use
        ``.rechunk`` before ``to_zarr``).
    **params
        Parameters of the kernel (``k``, ``ridge``): the same as for :func:`embed`.

    Returns
    -------
    dask.array.Array of float64, shape (len(a), len(b))
        Rows in the order of ``a``'s partitions, columns in ``b``'s.

    Notes
    -----
    The shape must be known before anything is computed, so the number of rows of
    every partition is counted when this function is called. To that end the
    embeddings of a Dask dataframe (or Bag, or edge table) are persisted first: they
    are computed once, when this function is called, and held in the cluster's
    memory (32 numbers per graph for ``"power"`` with ``k=5``, little next to the
    ``n x n`` matrix) for as long as the returned array lives. The count and every
    block then use the same computed partitions, so no task is ever submitted twice,
    however Dask optimises the array's graph.

    Examples
    --------
    >>> import dask.bag as db
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> from graphinvariants import distributed as gid
    >>> graphs = [nx.gnp_random_graph(20, 0.2, seed=s) for s in range(10)]
    >>> embeddings = gid.embed(db.from_sequence(graphs, npartitions=3)).persist()
    >>> K = gid.kernel_matrix(embeddings, chunks=4)
    >>> K
    dask.array<concatenate, shape=(10, 10), dtype=float64, chunksize=(4, 4), chunktype=numpy.ndarray>
    >>> bool((K.compute() == gi.kernel_matrix(graphs)).all())
    True
    """
    functional = functional_of(kernel, params)
    layout = layout_of(functional, kernel)
    check_not_same_iterator(a, b, ("a", "b"), hint="or b=None for the square matrix")
    symmetric = b is None
    row_chunk, col_chunk = _check_chunks(chunks, symmetric)

    def embed_graphs(graphs, functional=functional):  # one functional for every side
        return embed_with(graphs, functional, layout)

    left = blocks_of(a, functional, layout, row_chunk, "a", embed_graphs=embed_graphs, persist=True)
    right = left if symmetric else blocks_of(b, functional, layout, col_chunk, "b", embed_graphs=embed_graphs, persist=True)
    functional = functional.for_pairs(sum(left.lengths) * sum(right.lengths))  # as the whole matrix would
    A = [dask.delayed(_embedded_block)(f, functional, layout) for f in left.frames]
    B = A if symmetric else [dask.delayed(_embedded_block)(f, functional, layout) for f in right.frames]
    rows = []
    for i, n_i in enumerate(left.lengths):
        row = []
        for j, m_j in enumerate(right.lengths):
            if symmetric and i == j:
                block = dask.delayed(_gram_block)(A[i], functional)
            elif symmetric and i > j:
                # block (j, i) again, transposed: the same numbers as its mirror image, to
                # the last bit, with no task depending on another block. (Depending on the
                # block above the diagonal made Dask keep it in memory until its own store
                # ran, which its ordering puts late: 2.7 GB per worker for 50,000 graphs.)
                block = dask.delayed(_transposed_cross_block)(A[j], A[i], functional)
            else:
                block = dask.delayed(_cross_block)(A[i], B[j], functional)
            row.append(da.from_delayed(block, shape=(n_i, m_j), dtype=np.float64))
        rows.append(row)
    return da.block(rows)
