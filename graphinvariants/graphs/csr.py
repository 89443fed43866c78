"""The one place where edges become a CSR adjacency matrix (private to the package).

:func:`edges_to_csr` turns edge arrays into a canonical ``csr_array`` (sorted indices,
no duplicates, no explicit zeros); :func:`stack_csr` puts many canonical CSR matrices
on one block diagonal without going through COO, which is what makes a
:class:`~graphinvariants.graphs.GraphBatch` cheap to build from thousands of graphs.
"""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

__all__ = []


class CSRArrays(NamedTuple):
    """Unweighted graphs as the arrays of their block-diagonal 0/1 adjacency in canonical
    CSR, with their labels: what a :class:`~graphinvariants.graphs.GraphBatch` holds,
    before a scipy matrix is made of them (for one small molecule, scipy's checks of
    that matrix cost a third of reading the molecule; a query of a few graphs reads
    these arrays only). ``edge_labels`` holds one label per stored entry."""

    indptr: np.ndarray
    indices: np.ndarray
    offsets: np.ndarray
    node_labels: np.ndarray = None
    edge_labels: np.ndarray = None

    @classmethod
    def of(cls, batch):
        """The arrays of a :class:`~graphinvariants.graphs.GraphBatch`."""
        matrix = batch.matrix
        return cls(matrix.indptr, matrix.indices, batch.offsets, batch.node_labels, batch.edge_labels)

    def matrix(self):
        """The 0/1 adjacency as a float64 ``csr_array``."""
        n = len(self.indptr) - 1
        return sp.csr_array((np.ones(len(self.indices)), self.indices, self.indptr), shape=(n, n))


def index_dtype(n):
    """Smallest index type scipy accepts for an ``n x n`` matrix with any nnz."""
    return np.int32 if n < 2**31 - 1 else np.int64


def _mirrored(rows, cols, data, directed, origin=None):
    """The entries of edge arrays: each undirected edge ``(u, v)`` also as ``(v, u)``
    (a loop once). Returns ``rows, cols, data`` (float64, or None) and ``origin`` (per
    edge, e.g. its position; None stays None) extended alike."""
    if data is not None:
        data = np.asarray(data, dtype=np.float64)
    undirected = ~np.asarray(directed, dtype=bool)
    if undirected.any():
        keep = (rows != cols) & undirected
        rows, cols = np.concatenate((rows, cols[keep])), np.concatenate((cols, rows[keep]))
        origin = None if origin is None else np.concatenate((origin, origin[keep]))
        data = None if data is None else np.concatenate((data, data[keep]))
    return rows, cols, data, origin


def edges_to_csr(n, rows, cols, data=None, *, directed, weighted, nodes=None):
    """CSR from edge arrays; undirected edges are mirrored, loops stored once.

    Parameters
    ----------
    n : int
        Number of nodes.
    rows, cols : array_like of int
        Edge end points, ``0 <= rows, cols < n``.
    data : array_like of float, optional
        Edge weights (finite, non-negative, already checked); ``None`` means 1.
    directed : bool or array_like of bool
        If False, every edge ``(u, v)`` also gives ``(v, u)``; an array says it edge by
        edge (a batch of directed and undirected graphs).
    weighted : bool
        If True, parallel edges add their weights and zero weights are dropped;
        otherwise every stored entry is 1.
    nodes : sequence, optional
        The nodes' names, for the message of weights that add up to infinity.

    Raises
    ------
    ValueError
        If ``weighted`` and the weights of parallel edges add up to infinity
        (:func:`check_summed_weights`).
    """
    itype = index_dtype(n)
    rows, cols, data, _ = _mirrored(np.asarray(rows).astype(itype, copy=False),
                                    np.asarray(cols).astype(itype, copy=False), data, directed)
    values = np.ones(rows.size) if data is None else data
    A = sp.csr_array((values, (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    if weighted:
        check_summed_weights(A, nodes)
        A.eliminate_zeros()
    else:
        A.data[:] = 1.0
    return A


#: Nodes plus stored entries from which an unweighted CSR built here holds no data
#: array (2**20, the size from which one graph takes graphinvariants.walks.large).
PATTERN_ONLY = 2**20


def pattern_only(A):
    """``A`` (canonical, every stored value 1) with its data array replaced by a read-only
    broadcast of ``1.0``: no memory per stored entry. scipy reads it as any array; the
    large-graph products read only ``indptr`` and ``indices``. Graphs below
    :data:`PATTERN_ONLY` are returned as they are (small graphs' arrays stay writable)."""
    if A.shape[0] + A.nnz < PATTERN_ONLY:
        return A
    out = sp.csr_array((np.broadcast_to(np.float64(1.0), (A.nnz,)), A.indices, A.indptr), shape=A.shape, copy=False)
    out.has_sorted_indices = True
    out.has_canonical_format = True
    return out


def is_symmetric(A):
    """Whether a canonical CSR equals its transpose: the same stored entries with the
    same values (one transpose of the pattern, ``O(nnz)``; the values compared only
    if they are not all ones)."""
    n, nnz = A.shape[0], A.nnz
    order = np.arange(nnz, dtype=index_dtype(max(n, nnz)))
    T = sp.csr_array((order, A.indices, A.indptr), shape=A.shape).T.tocsr()  # T.data: where each entry came from
    T.sort_indices()
    if not (np.array_equal(T.indptr, A.indptr) and np.array_equal(T.indices, A.indices)):
        return False
    data = A.data
    return data.strides == (0,) or bool(np.array_equal(data[T.data], data))


def check_summed_weights(A, nodes=None, where=None):
    """Refuse a canonical CSR whose summed weights overflowed to infinity (finite
    weights of parallel edges, or of an undirected edge listed both ways, whose sum
    does not fit in a float64), naming the first such edge by ``nodes`` (positions
    when None); ``where`` (a file name) starts the message."""
    data = A.data
    if data.size == 0 or np.isfinite(data).all():
        return
    e = int(np.flatnonzero(~np.isfinite(data))[0])
    i, j = int(np.searchsorted(A.indptr, e, side="right")) - 1, int(A.indices[e])
    edge = (i, j) if nodes is None else (nodes[i], nodes[j])
    raise ValueError(f"{where + ': ' if where else ''}the weights of the edge {edge!r} add up to {float(data[e])} "
                     "(parallel edges, or an edge listed in both directions of an undirected graph, whose finite "
                     "weights sum beyond the largest float64): rescale the weights")


def compress_entries(n, entries, *, weighted, nodes=None, where=None):
    """Canonical CSR of stored entries, releasing the inputs as soon as they are used.

    Parameters
    ----------
    n : int
        Number of nodes.
    entries : list of [rows, cols, data]
        The stored entries, undirected edges already mirrored (``data`` None means 1).
        The list is emptied: when the caller holds no other reference to the arrays,
        the peak is the entries plus one CSR, not two copies of the entries.
    weighted : bool
        As in :func:`edges_to_csr`.
    nodes, where : optional
        The nodes' names and the file, for the message of weights that add up to
        infinity (:func:`check_summed_weights`).

    Returns
    -------
    scipy.sparse.csr_array
        The matrix :func:`edges_to_csr` gives for the same entries, to the bit: the same
        conversion, with one byte per entry for the values of an unweighted graph until
        its ones, which are, as :func:`pattern_only` makes them, a read-only broadcast
        (no memory) from :data:`PATTERN_ONLY` nodes plus entries on (scipy's ``coo -> csr``, a counting sort by row, then each row sorted
        and its duplicates summed). Two counting sorts (by column, then by row) would
        avoid the sorts but were 1.4x slower at 10^7 edges (two random scatters of the
        entries against one scatter and short sorts).
    """
    rows, cols, data = entries
    entries.clear()
    if data is None:  # one byte per entry until the end (duplicates may wrap: all set to 1 below)
        data = np.ones(rows.size, dtype=np.uint8)
    coo = sp.coo_array((data, (rows, cols)), shape=(n, n))
    del rows, cols, data
    A = coo.tocsr()
    del coo
    if weighted:
        check_summed_weights(A, nodes, where)
        A.eliminate_zeros()
    else:  # as pattern_only: no data array from PATTERN_ONLY nodes plus entries on
        small = n + A.nnz < PATTERN_ONLY
        ones = np.ones(A.nnz) if small else np.broadcast_to(np.float64(1.0), (A.nnz,))
        A = sp.csr_array((ones, A.indices, A.indptr), shape=(n, n), copy=False)
        A.has_sorted_indices = True
        A.has_canonical_format = True
    return sp.csr_array(A, copy=False)


def concatenated_ranges(starts, lengths):
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])``, vectorised."""
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.arange(total, dtype=np.int64) + np.repeat(starts - first, lengths)


def entry_values(n, rows, cols, values, data=None, *, directed, weighted):
    """Values given per edge, aligned with the stored entries of :func:`edges_to_csr`.

    Called with the arguments given to :func:`edges_to_csr` plus ``values`` (one
    label, or one row of attributes, per edge), it returns one value per stored entry
    of that matrix, in CSR order: an undirected edge gives its value to both of its
    entries, and edges that land on the same entry (parallel edges, an edge listed in
    both directions) must carry equal values.

    Returns
    -------
    aligned : numpy.ndarray
        ``values`` reordered (and repeated) to one per stored entry.
    conflict : tuple of two ints, or None
        Positions in ``rows`` of two edges on the same entry with different values.
    """
    values = np.asarray(values)
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    rows, cols, data, origin = _mirrored(rows, cols, data, directed, np.arange(rows.size))
    if weighted and data is not None:  # a zero weight stores nothing (weights are >= 0)
        nonzero = data > 0
        rows, cols, origin = rows[nonzero], cols[nonzero], origin[nonzero]
    if rows.size == 0:
        return values[:0], None
    order = np.argsort(rows * n + cols, kind="stable")
    keys = (rows * n + cols)[order]
    first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    sorted_values = values[origin[order]]
    leader = np.repeat(first, np.diff(np.concatenate((first, [keys.size]))))
    differs = sorted_values != sorted_values[leader]
    if differs.ndim > 1:
        differs = differs.any(axis=tuple(range(1, differs.ndim)))
    if differs.any():
        p = int(np.flatnonzero(differs)[0])
        return None, (int(origin[order][leader[p]]), int(origin[order][p]))
    return sorted_values[first], None


def block_entries(A, offsets, indices):
    """Positions, in ``A.data``, of the stored entries of the blocks ``indices`` (in
    that order, repeats allowed): the entries :func:`take_blocks` copies."""
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    entry_start = A.indptr[offsets[indices]].astype(np.int64)
    nnz = A.indptr[offsets[indices + 1]].astype(np.int64) - entry_start
    return concatenated_ranges(entry_start, nnz)


def take_blocks(A, offsets, indices):
    """Block-diagonal CSR of the blocks ``indices`` of ``A`` (in that order, repeats
    allowed), and its offsets; entries are copied, never sliced block by block."""
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    starts, stops = offsets[indices], offsets[indices + 1]
    sizes = stops - starts
    new_offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = int(new_offsets[-1])
    itype = index_dtype(n)
    entry_start = A.indptr[starts].astype(np.int64)
    nnz = A.indptr[stops].astype(np.int64) - entry_start
    entries = concatenated_ranges(entry_start, nnz)
    new_indices = (A.indices[entries] + np.repeat(new_offsets[:-1] - starts, nnz)).astype(itype)
    row_counts = np.diff(A.indptr)[concatenated_ranges(starts, sizes)]
    indptr = np.zeros(n + 1, dtype=itype)
    np.cumsum(row_counts, out=indptr[1:])
    out = sp.csr_array((A.data[entries], new_indices, indptr), shape=(n, n))
    out.has_sorted_indices = True
    out.has_canonical_format = True
    return out, new_offsets


def stack_csr(parts, sizes):
    """Block-diagonal CSR of canonical CSR blocks given as ``(indptr, indices, data)``.

    Parameters
    ----------
    parts : sequence of (indptr, indices, data)
        Each block's arrays; blocks must be canonical (sorted, no duplicates).
    sizes : numpy.ndarray of int
        Number of rows (= columns) of each block.

    Returns
    -------
    scipy.sparse.csr_array
        Canonical, float64.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    n = int(sizes.sum())
    itype = index_dtype(n)
    if not len(parts):
        return sp.csr_array((n, n))
    nnz = np.fromiter((len(p[1]) for p in parts), dtype=np.int64, count=len(parts))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    indices = np.concatenate([p[1] for p in parts]).astype(itype, copy=False)
    indices += np.repeat(starts, nnz).astype(itype, copy=False)
    data = np.concatenate([p[2] for p in parts]).astype(np.float64, copy=False)
    row_counts = np.concatenate([np.diff(p[0]) for p in parts])
    indptr = np.zeros(n + 1, dtype=itype)
    np.cumsum(row_counts, out=indptr[1:])
    A = sp.csr_array((data, indices, indptr), shape=(n, n))
    A.has_sorted_indices = True
    A.has_canonical_format = True
    return A
