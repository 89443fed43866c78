"""Nearest graphs on Dask: the top-k of every block, merged in a tree.

Part of :mod:`graphinvariants.distributed` (the ``[dask]`` extra).
:class:`graphinvariants.NearestGraphs` is the one search surface; these functions are
the engines below it for data held by Dask or Zarr:

* :func:`kneighbors`: the top-``k`` corpus graphs of each query by a fixed member's
  kernel values, the corpus a Dask frame of embeddings (or a Bag, or an edge table),
  per corpus block and then merged by a tree reduction; equal to the in-process
  kernel index of :class:`~graphinvariants.NearestGraphs` bit for bit.
* :func:`store_kneighbors`: the stored graphs whose feature rows (written by
  :func:`~graphinvariants.distributed.features.features_to_zarr`) have the largest
  inner products with each query's, a part per task; ties go to the smaller position.

Both select and merge by :mod:`graphinvariants.kernels.topk`, the top-k every search shares.
"""

import dask
import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_int
from ..kernels.engine import check_not_same_iterator
from ..kernels.topk import kernel_top_k, merge_top_k, top_k
from .features import store_layout, store_part
from .inputs import batch_of, blocks_of, check_chunk, embed_with, functional_of, layout_of

__all__ = ["kneighbors", "store_kneighbors"]

#: Block labels of :func:`kneighbors`: ``block << _SHIFT | position in the block``.
_SHIFT = 40


# -- fixed members: embeddings held by Dask --------------------------------------------
def _leaf(queries, frame, block, functional, layout, n_neighbors):
    """Top-k of one corpus block: labels ``block << _SHIFT | position``, values, ids."""
    corpus = batch_of(functional, layout, frame)
    m = len(corpus)
    graph_ids = frame["graph_id"].to_numpy()
    if m == 0:
        empty = np.zeros((len(queries), 0), dtype=np.int64)
        return empty, empty.astype(np.float64), graph_ids[empty]
    idx, val = kernel_top_k(queries, corpus, functional, min(n_neighbors, m))
    return (np.int64(block) << _SHIFT) | idx, val, graph_ids[idx]


def _query_embeddings(frame, functional, layout):
    batch = batch_of(functional, layout, frame)
    functional.prepare(batch, "queries")
    return batch


def _finish(roots, lengths):
    """Global positions from block labels, rows of all query blocks stacked."""
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    labels = np.concatenate([r[0] for r in roots])
    values = np.concatenate([r[1] for r in roots])
    ids = np.concatenate([r[2] for r in roots])
    positions = offsets[labels >> _SHIFT] + (labels & ((1 << _SHIFT) - 1))
    return positions, values, ids


def kneighbors(queries, corpus, *, n_neighbors=10, kernel="power", chunks=None, split_every=8, return_graph_ids=False, **params):
    """Most similar corpus graphs of every query, the corpus held by Dask.

    The top ``n_neighbors`` of each corpus block are found on the workers (by
    :func:`~graphinvariants.kernels.topk.kernel_top_k`, as in process), then merged in
    a tree of ``split_every`` blocks at a time
    (:func:`~graphinvariants.kernels.topk.merge_top_k`); only the final ``(n_queries,
    n_neighbors)`` arrays come back to the client. The order is that of the in-process
    search: largest kernel value first, ties by the smaller global corpus position, so
    the answer is the same bit for bit.

    Parameters
    ----------
    queries : dask.dataframe.DataFrame, dask.bag.Bag, pandas.DataFrame or in-memory collection
        As ``a`` of :func:`kernel_matrix`; rows of the result follow its order.
    corpus : dask.dataframe.DataFrame, dask.bag.Bag, pandas.DataFrame or in-memory collection
        The graphs searched: the output of :func:`embed` (or its Parquet files), or
        anything :func:`embed` takes (a Bag of graphs, an edge table), embedded here
        with the same kernel and parameters.
    n_neighbors : int, keyword-only
        Neighbours per query (default 10), at most the size of the corpus.
    kernel : str, keyword-only
        One of :data:`~graphinvariants.KERNELS` whose functional has ``to_arrays``.
    chunks : int or None, keyword-only
        Corpus rows per block; ``None`` (default) uses the partitions.
    split_every : int, keyword-only
        Blocks merged per node of the reduction tree (default 8, at least 2).
    return_graph_ids : bool, keyword-only
        Also return the ``graph_id`` of every neighbour.
    **params
        Parameters of the kernel.

    Returns
    -------
    indices : numpy.ndarray of int64, shape (n_queries, n_neighbors)
        Global row positions in the corpus (its partitions in order).
    values : numpy.ndarray of float64, shape (n_queries, n_neighbors)
    graph_ids : numpy.ndarray, shape (n_queries, n_neighbors)
        Only with ``return_graph_ids``.

    Raises
    ------
    ValueError
        If ``n_neighbors`` is larger than the corpus.

    Notes
    -----
    :class:`graphinvariants.NearestGraphs` is the one search surface (``fit``,
    ``kneighbors`` with kernel-induced distances, in process, over Zarr or on Dask).
    This function stays, as the engine for a case NearestGraphs does not cover: a fixed
    member's embeddings held by Dask (frames from :func:`embed`, Bags, edge tables);
    NearestGraphs searches a kernel name in process, and on a ``client`` only feature
    rows. It returns kernel values, not distances.

    The rows of every partition of a Dask dataframe (queries and corpus) are counted
    first, as :func:`kernel_matrix` does: every block then uses the engine the whole query x corpus matrix
    would (:meth:`~graphinvariants.embeddings.Functional.for_pairs`), so values equal
    the in-process ones to the last bit, and ``n_neighbors`` is
    checked before any work. Unlike :func:`kernel_matrix`, the corpus is not
    persisted (it may be larger than the cluster's memory): on a lazy :func:`embed`
    output, a Bag of graphs or an edge table, the count computes the embeddings once
    more. Persist it, or write it to Parquet, first to embed it once.

    Examples
    --------
    >>> import dask.bag as db, networkx as nx, numpy as np
    >>> import graphinvariants as gi
    >>> from graphinvariants import distributed as gid
    >>> graphs = [nx.gnp_random_graph(20, 0.2, seed=s) for s in range(12)]
    >>> corpus = gid.embed(db.from_sequence(graphs, npartitions=4))
    >>> indices, values = gid.kneighbors(graphs[:3], corpus, n_neighbors=2)
    >>> distances, expected = gi.NearestGraphs(kernel="power", n_neighbors=2).fit(graphs).kneighbors(graphs[:3])
    >>> bool((indices == expected).all()), bool(np.allclose(values, 1 - distances**2 / 2))
    (True, True)
    >>> bag = db.from_sequence(graphs, npartitions=4)  # embedded here, as embed would
    >>> bool((gid.kneighbors(graphs[:3], bag, n_neighbors=2)[0] == expected).all())
    True
    """
    functional = functional_of(kernel, params)
    layout = layout_of(functional, kernel)
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1)
    split_every = check_int(split_every, "split_every", minimum=2)
    chunk = check_chunk(chunks, "chunks")
    check_not_same_iterator(queries, corpus, ("queries", "corpus"), hint=None)

    def embed_graphs(graphs, functional=functional):  # one functional for every side
        return embed_with(graphs, functional, layout)

    query_blocks = blocks_of(queries, functional, layout, None, "queries", embed_graphs=embed_graphs)
    corpus_blocks = blocks_of(corpus, functional, layout, chunk, "corpus", embed_graphs=embed_graphs)
    lengths = corpus_blocks.lengths
    if n_neighbors > sum(lengths):
        raise ValueError(f"n_neighbors={n_neighbors} is larger than the corpus, which has {sum(lengths)} graphs")
    functional = functional.for_pairs(sum(query_blocks.lengths) * sum(lengths))  # as gi.kneighbors would
    Q = [dask.delayed(_query_embeddings)(f, functional, layout) for f in query_blocks.frames]
    roots = []
    for q in Q:
        level = [
            dask.delayed(_leaf)(q, frame, p, functional, layout, n_neighbors)
            for p, frame in enumerate(corpus_blocks.frames)
        ]
        while len(level) > 1:
            level = [dask.delayed(merge_top_k)(level[s : s + split_every], n_neighbors) for s in range(0, len(level), split_every)]
        roots.append(level[0])
    indices, values, ids = dask.delayed(_finish)(roots, lengths).compute()
    if return_graph_ids:
        return indices, values, ids
    return indices, values


# -- feature rows in a Zarr store -------------------------------------------------------
def _top_of_part(queries, store, run, i, start, n_neighbors):
    group, _, n_features, _ = store_layout(store, run)
    values = (queries @ store_part(group, store, i, run, n_features).T)
    values = values.toarray() if sp.issparse(values) else np.asarray(values)
    return top_k(values, min(n_neighbors, values.shape[1]), np.arange(start, start + values.shape[1]))


def store_kneighbors(queries, store, *, n_neighbors=10):
    """The stored graphs nearest each query under the features' inner product.

    Parameters
    ----------
    queries : sparse or dense matrix of shape (n_queries, n_features)
        Features of the queries (``GraphFeatures.transform``).
    store : str or path-like or zarr store
        Written by :func:`features_to_zarr`.
    n_neighbors : int, keyword-only, default=10
        At most the number of stored graphs.

    Returns
    -------
    indices : numpy.ndarray of int64, shape (n_queries, n_neighbors)
        Positions among the stored graphs, largest inner product first (ties: smaller
        position first).
    values : numpy.ndarray of shape (n_queries, n_neighbors)
        The inner products (the learned kernel, as the features approximate it).

    Notes
    -----
    :class:`graphinvariants.NearestGraphs` is the one search surface:
    ``NearestGraphs(kernel=features, store=store).fit().kneighbors(graphs)`` searches the
    same store from graphs (a part at a time, on a ``client`` if given) and returns
    kernel-induced distances. This function is the lower level: it takes feature rows
    and returns the inner products themselves.

    Raises
    ------
    ValueError
        If ``n_neighbors`` is larger than the number of stored graphs (as scikit-learn's
        ``NearestNeighbors.kneighbors`` does), or the
        store holds no finished write of :func:`features_to_zarr`.

    Examples
    --------
    >>> import dask, tempfile
    >>> import dask.bag as db, networkx as nx
    >>> from graphinvariants import GraphFeatures
    >>> from graphinvariants.distributed import features_to_zarr, store_kneighbors
    >>> cycles, stars = [nx.cycle_graph(n) for n in range(6, 26)], [nx.star_graph(n) for n in range(5, 25)]
    >>> features = GraphFeatures(n_landmarks=10, seed=0).fit(cycles + stars, [0] * 20 + [1] * 20)
    >>> store = tempfile.mkdtemp()
    >>> with dask.config.set(scheduler="sync"):
    ...     rows = features_to_zarr(features, db.from_sequence(cycles + stars, npartitions=3), store)
    ...     indices, values = store_kneighbors(features.transform([nx.star_graph(20)]), store, n_neighbors=3)
    >>> bool(all(i >= 20 for i in indices[0]))  # the nearest graphs are stars
    True
    """
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1)
    _, rows, n_features, run = store_layout(store)
    if queries.shape[1] != n_features:
        raise ValueError(f"queries have {queries.shape[1]} features, the store {n_features}")
    if sum(rows) == 0:
        raise ValueError("the store holds no graphs")
    if n_neighbors > sum(rows):
        raise ValueError(f"n_neighbors={n_neighbors} is larger than the store, which has {sum(rows)} graphs")
    starts = np.concatenate(([0], np.cumsum(rows)[:-1]))
    shared = dask.delayed(queries, pure=True)
    tops = [dask.delayed(_top_of_part)(shared, store, run, i, int(s), n_neighbors) for i, s in enumerate(starts) if rows[i]]
    positions, values = dask.delayed(merge_top_k)(tops, n_neighbors).compute()
    return positions, values
