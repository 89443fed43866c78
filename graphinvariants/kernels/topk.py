"""Nearest neighbours by kernel value, in bounded memory.

:func:`kneighbors` finds, for every query graph, the corpus graphs with the largest
kernel values. The cross matrix is computed a block of rows at a time by the pair engine
(:func:`~graphinvariants.kernels.kernel_row_chunks`) and reduced to its top ``k`` at
once, so memory is bounded by ``working_memory`` (as in
:func:`sklearn.metrics.pairwise_distances_chunked`) and the full matrix is never formed.

Order: largest kernel value first; equal values in increasing corpus index. This is a
total order, so the answer is unique, and a top-``k`` of top-``k``\\ s (the Dask version,
:func:`graphinvariants.distributed.kneighbors`) gives exactly the same answer.

:class:`graphinvariants.NearestGraphs` is the one search surface (any kernel, in
process, over Zarr or on Dask, kernel-induced distances, scikit-learn's ``(distances,
indices)``); this module is the engine it calls for a kernel name
(:func:`kneighbors_of_embeddings`). :func:`kneighbors`, which returned ``(indices,
kernel values)``, a second door with another convention, is deprecated since 0.3.0
and goes in 0.4.0: ``NearestGraphs(kernel=name, n_neighbors=k).fit(corpus)
.kneighbors(queries)`` gives the same indices, and the kernel values are
``1 - distances**2 / 2``.

Leave-one-out search follows scikit-learn's convention for
:meth:`sklearn.neighbors.NearestNeighbors.kneighbors`: ``queries=None`` makes every
corpus graph a query that is not its own neighbour.
"""

import numbers
import warnings

import numpy as np

from .._utils.validation import check_int, check_n_jobs, check_working_memory
from .engine import check_not_same_iterator, kernel_row_chunks
from ..graphs.smiles import is_smiles
from .registry import DEFAULT_KERNEL, make_functional, molecule_parameters

__all__ = ["kneighbors"]

#: Bytes per pair of a chunk: the kernel values (8), the argpartition indices (8) and
#: the mask of candidates (1); rows with ties at the k-th value take no more.
_BYTES_PER_PAIR = 17


def kneighbors(queries, corpus, *, n_neighbors=10, kernel=DEFAULT_KERNEL, n_jobs=None, working_memory=None, **params):
    """Deprecated: most similar corpus graphs of every query graph, by kernel value.

    .. deprecated:: 0.3.0
       :class:`~graphinvariants.NearestGraphs` is the one door:
       ``NearestGraphs(kernel=name, n_neighbors=k, working_memory=...).fit(corpus)
       .kneighbors(queries)`` returns ``(distances, indices)`` as scikit-learn does, the
       same indices, and ``distances = sqrt(max(0, 2 - 2 K))`` (so ``K = 1 -
       distances**2 / 2``); ``kneighbors()`` with no queries is the leave-one-out
       search. This function warns with :class:`FutureWarning` and goes in 0.4.0.

    Parameters
    ----------
    queries : collection of graphs or None
        Any collection the pair engine accepts: a sequence of graphs, a
        :class:`~graphinvariants.GraphBatch`, a :class:`~graphinvariants.TUDataset`,
        or precomputed embeddings of the kernel's functional (for ``"power"``, a
        :class:`~graphinvariants.GaussianBatch`). ``None``: leave-one-out search,
        as scikit-learn's ``NearestNeighbors.kneighbors(X=None)``; every corpus graph
        is a query, and its own position is never among its neighbours (other
        positions holding an identical graph are, with the kernel value they have).
    corpus : collection of graphs
        The graphs searched, in the same forms.
    n_neighbors : int, keyword-only
        Neighbours per query (default 10), at most ``len(corpus)`` (``len(corpus) - 1``
        when ``queries`` is None).
    kernel : str, keyword-only
        A kernel name as for :func:`~graphinvariants.kernel_matrix` (default
        ``"power"``; combinations such as ``"power*histogram"`` too).
    n_jobs : int or None, keyword-only
        Worker threads over tiles of pairs (``None``: 1, ``-1``: all cores).
    working_memory : float or None, keyword-only
        Memory in MiB that one chunk of kernel values and its selection may use; the
        number of query rows per chunk follows from it (at least one). ``None`` uses
        scikit-learn's global setting, ``sklearn.get_config()["working_memory"]``
        (1024 MiB by default). The embeddings and the engine's tiles come on top.
    **params
        Parameters of the kernel (for example ``k``, ``ridge``).

    Returns
    -------
    indices : numpy.ndarray of int64, shape (n_queries, n_neighbors)
        Corpus positions, most similar first; equal kernel values are ordered by
        increasing corpus position. With ``queries=None``, row ``i`` is corpus graph
        ``i``'s neighbours, ``i`` itself left out.
    values : numpy.ndarray of float64, shape (n_queries, n_neighbors)
        The kernel values, non-increasing along each row.

    Raises
    ------
    ValueError
        If ``n_neighbors`` is larger than the corpus (than the corpus less one graph
        when ``queries`` is None), ``working_memory`` is not positive, or the kernel or
        a parameter is unknown.

    Warns
    -----
    UserWarning
        If one row of kernel values alone exceeds ``working_memory`` (one row per
        chunk is then used, as in scikit-learn).

    Notes
    -----
    :class:`graphinvariants.NearestGraphs` is the one search surface: ``NearestGraphs(
    kernel=name).fit(corpus).kneighbors(queries)`` gives these indices, with the
    distances ``sqrt(max(0, 2 - 2 K))`` instead of the values, and the same search over
    feature rows, a Zarr store or Dask. This function is the engine it calls for a
    kernel name, kept as the lower-level call that returns kernel values.

    Each chunk of rows is reduced with :func:`numpy.argpartition`, whose choice
    among values equal to the ``k``-th largest is arbitrary; all such ties are then
    collected and the candidates sorted by (decreasing value, increasing index), so
    the result is exactly the first ``n_neighbors`` columns of a stable sort of each
    full row.

    ``kneighbors(corpus, corpus)`` searches the corpus for each of its graphs, itself
    included: a graph's own position comes first only if no smaller position holds a
    graph with the same kernel value 1 (an isomorphic copy, or a graph the kernel does
    not tell apart from it). ``kneighbors(None, corpus)`` leaves the position out.

    Examples
    --------
    >>> import warnings
    >>> import networkx as nx
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(20, 0.2, seed=s) for s in range(8)]
    >>> corpus = graphs + graphs  # every graph twice, so kernel values tie
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     indices, values = gi.kneighbors(graphs[:2], corpus, n_neighbors=4)
    >>> caught[0].category.__name__
    'FutureWarning'
    >>> indices  # equal values: the smaller corpus position first
    array([[ 0,  8,  1,  9],
           [ 1,  9,  5, 13]])

    The one door, with scikit-learn's convention:

    >>> search = gi.NearestGraphs(kernel="power", n_neighbors=4).fit(corpus)
    >>> distances, same = search.kneighbors(graphs[:2])
    >>> bool((same == indices).all()), bool(np.allclose(1 - distances**2 / 2, values))
    (True, True)
    """
    warnings.warn("graphinvariants.kneighbors is deprecated since 0.3.0 and goes in 0.4.0: use "
                  "NearestGraphs(kernel=name, n_neighbors=k).fit(corpus).kneighbors(queries), which returns "
                  "(distances, indices) as scikit-learn does; the kernel values are 1 - distances**2 / 2",
                  FutureWarning, stacklevel=2)
    return _kneighbors(queries, corpus, n_neighbors=n_neighbors, kernel=kernel, n_jobs=n_jobs,
                       working_memory=working_memory, **params)


def _kneighbors(queries, corpus, *, n_neighbors=10, kernel=DEFAULT_KERNEL, n_jobs=None, working_memory=None,
                **params):
    """:func:`kneighbors` without its deprecation warning: the engine the tests and
    benchmarks measure (and compare the Dask engine with)."""
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1)
    n_jobs = check_n_jobs(n_jobs)
    working_memory = check_working_memory(working_memory)
    if is_smiles(queries) or is_smiles(corpus):
        params = molecule_parameters(kernel, params)
    functional = make_functional(kernel, **params)
    if corpus is None:
        raise TypeError("corpus must be a collection of graphs, got None")
    check_not_same_iterator(queries, corpus, ("queries", "corpus"), hint=None)
    right = functional.as_embeddings(corpus, what="corpus")
    n_corpus = len(right)
    if queries is None:
        if n_neighbors > n_corpus - 1:
            raise ValueError(
                f"n_neighbors={n_neighbors}, but with queries=None each of the {n_corpus} corpus graphs "
                f"has only {n_corpus - 1} others"
            )
        return kneighbors_of_embeddings(right, None, functional, n_neighbors, n_jobs, working_memory)
    left = functional.as_embeddings(queries, what="queries")
    if n_neighbors > n_corpus:
        raise ValueError(f"n_neighbors={n_neighbors} is larger than the corpus, which has {n_corpus} graphs")
    return kneighbors_of_embeddings(left, right, functional, n_neighbors, n_jobs, working_memory)


def kneighbors_of_embeddings(left, right, functional, n_neighbors, n_jobs=1, working_memory=None):
    """:func:`kneighbors` on embeddings of ``functional``, arguments already checked
    (``n_neighbors <= len(right)``); also the per-partition step of the Dask version.
    ``right=None``: leave-one-out search of ``left`` in itself."""
    if working_memory is None:
        working_memory = check_working_memory(None)
    leave_one_out = right is None
    n_corpus = len(left if leave_one_out else right)
    n_queries = len(left)
    indices = np.empty((n_queries, n_neighbors), dtype=np.int64)
    values = np.empty((n_queries, n_neighbors))
    if n_queries == 0:
        return indices, values
    n_rows = chunk_n_rows(_BYTES_PER_PAIR * n_corpus, working_memory)
    for rows, block in kernel_row_chunks(left, right, functional=functional, n_rows=n_rows, n_jobs=n_jobs):
        if leave_one_out:
            block[np.arange(len(rows)), rows] = -np.inf  # below every kernel value: never chosen
        indices[rows], values[rows] = top_k(block, n_neighbors)
    return indices, values


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


def top_k(block, k, columns=None):
    """The ``k`` largest values of each row of ``block`` and their column labels.

    Parameters
    ----------
    block : numpy.ndarray of shape (n_rows, n_columns)
        ``n_columns >= k``.
    k : int
    columns : numpy.ndarray of int64, shape (n_columns,) or (n_rows, n_columns), optional
        Label of each column (default: its position); ties are broken by the
        smaller label.

    Returns
    -------
    labels, values : numpy.ndarray of shape (n_rows, k)
    """
    block = np.asarray(block, dtype=np.float64)
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


def merge_top_k(parts, k):
    """Top ``k`` of several partial top-``k`` results ``(labels, values[, extra])``.

    Every part covers the same rows; labels are comparable across parts (global
    positions), so ties keep being broken by the smaller label. ``extra`` (optional,
    same shape) travels with the labels.
    """
    labels = np.concatenate([p[0] for p in parts], axis=1)
    values = np.concatenate([p[1] for p in parts], axis=1)
    width = min(k, labels.shape[1])
    order = np.lexsort((labels, -values), axis=1)[:, :width]
    out = [np.take_along_axis(labels, order, axis=1), np.take_along_axis(values, order, axis=1)]
    if len(parts[0]) > 2:
        extra = np.concatenate([p[2] for p in parts], axis=1)
        out.append(np.take_along_axis(extra, order, axis=1))
    return tuple(out)
