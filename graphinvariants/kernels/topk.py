"""The top-k and its merge: the one selection every search shares.

Order: the largest value first (``largest=False``: the smallest), equal values by the
smaller label (a row's position among the graphs searched). This is a total order, so
the answer is unique, and a top-``k`` of top-``k``\\ s over any split of the columns
(blocks of a cluster, parts of a Zarr store, chunks of rows) gives exactly the same
answer as one top-``k`` of the whole row.

* :func:`top_k`: the ``k`` largest values of each row of a block, in the block's memory.
* :func:`merge_top_k`: the top ``k`` of partial answers over the same rows.
* :func:`kernel_top_k`: the top ``k`` of kernel rows computed by the pair engine
  (:func:`~graphinvariants.kernels.kernel_row_chunks`) a bounded block of rows at a time
  (``working_memory``, as :func:`sklearn.metrics.pairwise_distances_chunked`), by kernel
  value or by the kernel-induced distance ``sqrt(max(0, 2 - 2 K))``.

Used by :class:`graphinvariants.NearestGraphs` (its kernel index and the merge of its
parts), by :class:`~graphinvariants.search.exact.ExactIndex` and by
:mod:`graphinvariants.distributed.search`.
"""

import warnings

import numpy as np

from .._utils.validation import check_working_memory
from .engine import kernel_row_chunks

__all__ = ["BYTES_PER_PAIR", "chunk_n_rows", "kernel_top_k", "merge_top_k", "top_k"]

#: Bytes per pair of a chunk: the kernel values (8), the argpartition indices (8) and
#: the mask of candidates (1); rows with ties at the k-th value take no more.
BYTES_PER_PAIR = 17


def top_k(block, k, columns=None, *, largest=True):
    """The ``k`` largest (or smallest) values of each row of ``block`` and their labels.

    Parameters
    ----------
    block : numpy.ndarray of shape (n_rows, n_columns)
        ``n_columns >= k``.
    k : int
    columns : numpy.ndarray of int64, shape (n_columns,) or (n_rows, n_columns), optional
        Label of each column (default: its position); ties are broken by the
        smaller label.
    largest : bool, keyword-only, default=True
        False: the ``k`` smallest values, smallest first (on a negated copy of ``block``).

    Returns
    -------
    labels, values : numpy.ndarray of shape (n_rows, k)
        The first ``k`` entries of a stable sort of each row (by label among equal values).

    Notes
    -----
    Each row is reduced with :func:`numpy.argpartition`, whose choice among values equal
    to the ``k``-th is arbitrary; all such ties are then collected (one row at a time, so
    that memory stays that of the block) and the candidates sorted by (value, label).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.topk import top_k
    >>> labels, values = top_k(np.array([[0.5, 0.9, 0.9, 0.1]]), 2)
    >>> labels.tolist(), values.tolist()  # equal values: the smaller label first
    ([[1, 2]], [[0.9, 0.9]])
    >>> top_k(np.array([[3.0, 1.0, 2.0, 1.0]]), 2, largest=False)[0].tolist()
    [[1, 3]]
    """
    block = np.asarray(block)
    if block.dtype.kind != "f":
        block = block.astype(np.float64)
    if not largest:
        labels, values = top_k(-block, k, columns)
        return labels, -values + 0.0  # (+ 0.0: no negative zeros)
    n_rows, m = block.shape
    if columns is None:
        labels = np.broadcast_to(np.arange(m, dtype=np.int64), (n_rows, m))
    else:
        labels = np.broadcast_to(np.asarray(columns, dtype=np.int64), (n_rows, m))
    if k < m:
        part = np.argpartition(block, m - k, axis=1)
        kth = np.take_along_axis(block, part[:, m - k : m - k + 1], axis=1)  # k-th largest value
        candidates = block >= kth
        counts = candidates.sum(axis=1)
        tied = np.flatnonzero(counts > k)  # more candidates than k: ties at the k-th value
        candidates[tied] = False
        pos = np.empty((n_rows, k), dtype=np.int64)
        pos[counts == k] = np.nonzero(candidates)[1].reshape(-1, k)
        for r in tied:  # one row at a time, so that memory stays that of the block
            above = np.flatnonzero(block[r] > kth[r, 0])
            equal = np.flatnonzero(block[r] == kth[r, 0])
            first = equal[np.argsort(labels[r, equal], kind="stable")[: k - above.size]]
            pos[r] = np.concatenate((above, first))
        cand_values = np.take_along_axis(block, pos, axis=1)
        cand_labels = np.take_along_axis(labels, pos, axis=1)
    else:
        cand_values, cand_labels = block, np.array(labels)
    order = np.lexsort((cand_labels, -cand_values), axis=1)[:, :k]
    return np.take_along_axis(cand_labels, order, axis=1), np.take_along_axis(cand_values, order, axis=1)


def merge_top_k(parts, k, *, largest=True):
    """Top ``k`` of several partial answers ``(labels, values[, extra])`` of the same rows.

    Labels are comparable across parts (global positions), so ties keep being broken by
    the smaller label; ``extra`` (optional, same shape) travels with the labels.
    ``largest=False``: the smallest values first (distances).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.topk import merge_top_k
    >>> a = (np.array([[0, 2]]), np.array([[0.1, 0.5]]))
    >>> b = (np.array([[1, 3]]), np.array([[0.1, 0.2]]))
    >>> merge_top_k([a, b], 3, largest=False)[0].tolist()  # 0.1 twice: position 0 first
    [[0, 1, 3]]
    """
    labels = np.concatenate([p[0] for p in parts], axis=1)
    values = np.concatenate([p[1] for p in parts], axis=1)
    width = min(k, labels.shape[1])
    order = np.lexsort((labels, -values if largest else values), axis=1)[:, :width]
    out = [np.take_along_axis(labels, order, axis=1), np.take_along_axis(values, order, axis=1)]
    if len(parts[0]) > 2:
        extra = np.concatenate([p[2] for p in parts], axis=1)
        out.append(np.take_along_axis(extra, order, axis=1))
    return tuple(out)


def chunk_n_rows(row_bytes, working_memory):
    """Rows that fit in ``working_memory`` MiB (at least 1, with a warning), as
    :func:`sklearn.utils.get_chunk_n_rows` computes it."""
    n_rows = int(working_memory * 2**20 // max(row_bytes, 1))
    if n_rows < 1:
        warnings.warn(
            f"Could not adhere to working_memory config. Currently {working_memory:.0f}MiB, "
            f"{np.ceil(row_bytes * 2**-20):.0f}MiB required.",
            UserWarning,
            stacklevel=4,
        )
        n_rows = 1
    return n_rows


def kernel_top_k(left, right, functional, k, *, by="value", exclude=None, rows=None, n_jobs=1, working_memory=None):
    """The ``k`` graphs of ``right`` nearest each graph of ``left`` by a kernel, in
    bounded memory.

    Parameters
    ----------
    left, right : embeddings of ``functional``
        The queries and the graphs searched (``k <= len(right)``, checked by the
        caller); ``right=None``: ``left`` searched in itself (the square matrix, its
        diagonal exactly 1), each graph's own position left out.
    functional : Functional
    k : int
    by : {"value", "distance"}, keyword-only, default="value"
        Rank by kernel value, largest first, or by ``sqrt(max(0, 2 - 2 K))``, smallest
        first (the same order but where rounding makes two distances equal: then by
        position); returned are the values ranked by.
    exclude : numpy.ndarray of int64, shape (n_queries,), optional
        A position of ``right`` left out of each query's answer (-1: none); it comes
        last if ``k`` reaches it (value ``-inf``, distance ``inf``).
    rows : range, optional
        With ``right=None``: only these graphs of ``left`` as queries (default: all).
    n_jobs : int, keyword-only
        Threads of the pair engine.
    working_memory : float or None, keyword-only
        MiB for one chunk of kernel values and its selection (None: scikit-learn's).

    Returns
    -------
    indices : numpy.ndarray of int64, shape (n_queries, k)
    values : numpy.ndarray of float64, shape (n_queries, k)

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.kernels import make_functional
    >>> from graphinvariants.kernels.topk import kernel_top_k
    >>> functional = make_functional("wl")
    >>> graphs = functional.as_embeddings([nx.path_graph(4), nx.star_graph(3), nx.path_graph(4)])
    >>> indices, distances = kernel_top_k(graphs, None, functional, 1, by="distance")
    >>> indices.ravel().tolist(), distances.round(6).ravel().tolist()  # the copies find each other
    ([2, 0, 0], [0.0, 1.332814, 0.0])
    """
    working_memory = check_working_memory(working_memory)
    n_corpus = len(left if right is None else right)
    span = range(len(left)) if rows is None or right is not None else range(rows.start, min(rows.stop, len(left)))
    if right is None and exclude is None:
        exclude = np.arange(span.start, span.stop, dtype=np.int64)
    indices = np.empty((len(span), k), dtype=np.int64)
    values = np.empty((len(span), k))
    if len(span) == 0:
        return indices, values
    n_rows = chunk_n_rows(BYTES_PER_PAIR * n_corpus, working_memory)
    for rows, block in kernel_row_chunks(left, right, functional=functional, n_rows=n_rows, n_jobs=n_jobs,
                                         rows=span):
        rows = rows - span.start  # (the queries' own places)
        if by == "distance":  # -sqrt(max(0, 2 - 2 K)), in place: the largest is the nearest
            block *= -2.0
            block += 2.0
            np.maximum(block, 0.0, out=block)
            np.sqrt(block, out=block)
            np.negative(block, out=block)
        if exclude is not None:
            ex = exclude[rows]
            inside = ex >= 0
            block[np.flatnonzero(inside), ex[inside]] = -np.inf  # below every value: never chosen
        indices[rows], values[rows] = top_k(block, k)
    if by == "distance":
        values = -values + 0.0  # (+ 0.0: no negative zeros)
    return indices, values
