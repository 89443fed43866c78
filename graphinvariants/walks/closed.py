"""Closed walks: the number ``(A^t)_ii`` of walks of length ``t`` from node ``i`` back to itself.

Algorithm 1 counts the walks that *start* at a node (``A^t 1``); those counts see no
more than colour refinement does. The walks that also *end* there see cycles: ``(A^3)_ii``
is twice the number of triangles through ``i``, and the closed-walk profile
``((A)_ii, (A^2)_ii, ..., (A^k)_ii)`` separates graphs that the 1-WL test confuses.

A closed walk of length ``t = a + b`` at ``i`` splits at its ``a``-th step, so

    ``(A^t)_ii = sum_j (A^a)_ij (A^b)_ji = <(A^T)^a e_i, A^b e_i>``,

and both vectors live on the ball of radius ``max(a, b)`` around ``i``. With
``a = floor(t/2)`` and ``b = ceil(t/2)`` every length up to ``k`` needs only the columns
``A^b e_i`` for ``b <= ceil(k/2)``. :func:`closed_walk_counts` computes them for blocks of
nodes at once, as sparse columns while the balls are small and as dense columns of one
graph once they cover a good part of it, so memory stays bounded and no power of a
large adjacency is ever formed. Every count is an exact integer.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_k
from ..graphs import as_adjacency

__all__ = ["closed_walk_counts", "closed_walk_profile"]

#: Largest count (and bound on a count) kept in int64: sums of two such terms still fit.
_INT64_SAFE = 2.0**62

#: Entries of the column blocks (sparse non-zeros or dense cells) per block, ~32 MB each.
_BLOCK_ENTRIES = 2**22

#: Graphs of at most this many nodes go through stacked dense matrix powers.
_SMALL = 96

#: Integers below this are exact in float64, and so are sums of them below it.
_FLOAT_EXACT = 2.0**53

#: A block of one graph's columns turns dense once this fraction of its cells is non-zero.
_DENSE_FRACTION = 0.125


def closed_walk_profile(G, *, k=8, weight=None):
    """Return the closed-walk counts ``(A^t)_ii``, ``t = 1..k``, of every node of a graph.

    Parameters
    ----------
    G : graph
        A NetworkX or igraph graph, a scipy sparse matrix or a square numpy array (see
        :func:`~graphinvariants.graphs.as_adjacency`); directed graphs count directed
        closed walks.
    k : int, keyword-only
        Length of the longest closed walks counted, default 8.
    weight : str or None, keyword-only
        Edge attribute used as weight (integers only: the counts are exact); ``None``
        (default) is the 0/1 adjacency.

    Returns
    -------
    numpy.ndarray of int64, shape (n_nodes, k)
        Row ``i`` is node ``i``'s profile, in the node order of ``as_adjacency(G).nodes``.

    Raises
    ------
    ValueError
        If the graph has no nodes, a weight is not an integer, or a count exceeds the
        int64 range (use a smaller ``k``).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> gi.closed_walk_profile(nx.complete_graph(3), k=4)  # (A^3)_ii: 2 per triangle
    array([[0, 2, 2, 6],
           [0, 2, 2, 6],
           [0, 2, 2, 6]])
    >>> gi.closed_walk_profile(nx.cycle_graph(4), k=4)[0]  # bipartite: odd lengths are 0
    array([0, 2, 0, 8])
    """
    k = check_k(k)
    adjacency = as_adjacency(G, weight=weight)
    if adjacency.n_nodes == 0:
        raise ValueError("the graph has no nodes; its closed-walk profile is undefined")
    return closed_walk_counts(adjacency.matrix, np.array([0, adjacency.n_nodes]), k)


def closed_walk_counts(A, offsets, k, *, block_entries=_BLOCK_ENTRIES):
    """``(A^t)_ii`` for ``t = 1..k`` and every node of one graph or a block-diagonal batch.

    Parameters
    ----------
    A : scipy.sparse matrix of shape (n, n)
        Adjacency of one graph, or block-diagonal adjacency of many; integer weights.
    offsets : array_like of int, shape (n_graphs + 1,)
        Graph ``g`` owns rows and columns ``offsets[g]:offsets[g + 1]``.
    k : int
    block_entries : int, keyword-only
        Memory bound: entries held per block of work (sparse non-zeros, or dense
        cells), 8 bytes each per power kept.

    Returns
    -------
    numpy.ndarray of int64, shape (n, k)

    Notes
    -----
    Three ways, chosen graph by graph, all exact:

    * graphs of at most ``_SMALL`` nodes: matrix powers of all graphs of one size at
      once (a stack of small dense matrices), ``O(k n^3)`` each;
    * larger graphs whose balls of radius ``ceil(k/2)`` are small: sparse columns
      ``A^b e_i`` for blocks of nodes, ``O(ball size x degree)`` per node and power;
    * larger graphs whose balls cover much of them (a star, a dense graph): dense
      blocks of columns of that graph alone, ``O(m n)`` per power for ``m`` edges.

    Never is a power of a large ``n x n`` matrix formed. Counts are computed in
    float64 while every value (and so every partial sum) is an integer below ``2**53``,
    which is exact; a graph beyond that is recomputed in int64, and a count beyond the
    int64 range is a ValueError.
    """
    k = check_k(k)
    A = sp.csr_array(A)
    n = A.shape[0]
    offsets = np.asarray(offsets, dtype=np.int64)
    out = np.zeros((n, k), dtype=np.int64)
    if n == 0:
        return out
    data = A.data
    if not np.all(data == np.round(data)):
        raise ValueError("exact closed-walk counts need integer edge weights")
    if data.size and data.min() < 0:
        raise ValueError("exact closed-walk counts need non-negative edge weights")
    if data.size and data.max() >= _FLOAT_EXACT:
        raise ValueError("edge weights of 2**53 or more: closed-walk counts need smaller weights")
    A = sp.csr_array((data.astype(np.float64), A.indices, A.indptr), shape=A.shape)
    A.sum_duplicates()
    symmetric = (A != A.T).nnz == 0
    sizes = np.diff(offsets)
    small = sizes <= _SMALL
    if small.any():
        _small_graphs(A, offsets, sizes, small, symmetric, k, out)
    top = (k + 1) // 2
    for g in np.flatnonzero(~small).tolist():
        rows = slice(int(offsets[g]), int(offsets[g + 1]))
        M = sp.csr_array(A[rows][:, rows])
        out[rows] = _one_graph(M, symmetric, k, top, block_entries)
    return out


def _small_graphs(A, offsets, sizes, small, symmetric, k, out):
    """Closed-walk counts of the graphs ``small``: dense powers of all graphs of one
    size at once, as a stack of matrices."""
    owner = np.repeat(np.arange(len(sizes)), sizes)
    coo = A.tocoo()
    graph = owner[coo.row]
    keep = small[graph]
    row, col, value, graph = coo.row[keep], coo.col[keep], coo.data[keep], graph[keep]
    slot = np.zeros(len(sizes), dtype=np.int64)  # place of each graph among those of its size
    for size in np.unique(sizes[small]).tolist():
        graphs = np.flatnonzero(small & (sizes == size))
        slot[graphs] = np.arange(len(graphs))
        if not size:
            continue
        stack = np.zeros((len(graphs), size, size))
        here = sizes[graph] == size
        start = offsets[graph[here]]
        stack[slot[graph[here]], row[here] - start, col[here] - start] = value[here]
        counts = _stacked_diagonals(stack, symmetric, k, _FLOAT_EXACT)
        if counts is None:  # beyond 2**53: again in int64
            counts = _stacked_diagonals(stack.astype(np.int64), symmetric, k, _INT64_SAFE)
        if counts is None:
            raise ValueError(f"closed-walk counts exceed the int64 range at k={k}; use a smaller k")
        nodes = (offsets[graphs][:, None] + np.arange(size)).reshape(-1)
        out[nodes] = counts.reshape(-1, k)


def _stacked_diagonals(stack, symmetric, k, limit):
    """Diagonals of the powers 1..k of a stack of matrices, or None past ``limit``:
    ``diag(M^t) = diag(M^a M^b)`` from the powers up to ``ceil(k/2)`` only."""
    growth = float(stack.sum(axis=2).max(initial=0))
    powers = [None, stack]
    for _ in range(2, (k + 1) // 2 + 1):
        if growth * float(powers[-1].max(initial=0)) >= limit:
            return None
        powers.append(np.matmul(powers[-1], stack))
    n_graphs, size = stack.shape[:2]
    diagonals = np.empty((n_graphs, size, k), dtype=np.int64)
    for t in range(1, k + 1):
        a, b = t // 2, t - t // 2
        if a == 0:
            diagonal = np.diagonal(powers[b], axis1=1, axis2=2)
        else:  # (M^a M^b)_ii = sum_j (M^a)_ij (M^b)_ji
            right = powers[b] if symmetric else powers[b].transpose(0, 2, 1)
            diagonal = np.einsum("gij,gij->gi", powers[a], right)
        # non-negative terms: the total (in float64, which cannot wrap) bounds every partial sum
        bound = diagonal if diagonal.dtype == np.float64 else np.einsum(
            "gij,gij->gi", powers[a].astype(np.float64), right.astype(np.float64)) if a else diagonal
        if bound.max(initial=0) >= limit:
            return None
        diagonals[:, :, t - 1] = diagonal
    return diagonals


def _one_graph(M, symmetric, k, top, block_entries):
    """Closed-walk counts of one larger graph, in float64 if exact, else int64."""
    for dtype, limit in ((np.float64, _FLOAT_EXACT), (np.int64, _INT64_SAFE)):
        try:
            return _ball_counts(M.astype(dtype), symmetric, k, top, block_entries, limit)
        except _Inexact:
            continue
    raise ValueError(f"closed-walk counts exceed the int64 range at k={k}; use a smaller k")


class _Inexact(Exception):
    """A value reached the limit of exact arithmetic in the current dtype."""


def _ball_counts(M, symmetric, k, top, block_entries, limit):
    n = M.shape[0]
    MT = M if symmetric else sp.csr_array(M.T)
    growth = float(M.sum(axis=1).max(initial=0))
    # a column has at most n non-zeros, so block_entries / n columns always fit; on a
    # large graph with small balls, more: walks of length ``top`` bound the ball sizes
    width = max(1, block_entries // n)
    if width < n:
        walks = np.ones(n)
        for _ in range(top):
            walks = np.asarray(M.astype(np.float64) @ walks)
        width = int(min(n, max(width, block_entries // max(1.0, np.ceil(walks.mean())))))
    out = np.empty((n, k), dtype=np.int64)
    for c in range(0, n, width):
        cols = slice(c, min(n, c + width))
        forward = _column_powers(M, cols, top, growth, block_entries, limit)
        backward = forward if symmetric else _column_powers(MT, cols, k // 2, growth, block_entries, limit)
        for t in range(1, k + 1):
            out[cols, t - 1] = _column_dots(backward[t // 2], forward[t - t // 2], limit)
    return out


def _column_powers(M, cols, top, growth, block_entries, limit):
    """``[M^b E for b in 0..top]`` with ``E`` the indicator columns ``cols``: sparse
    columns that turn dense once a good share of their cells are non-zero."""
    n = M.shape[0]
    width = cols.stop - cols.start
    X = sp.csr_array(
        (np.ones(width, dtype=M.dtype), (np.arange(cols.start, cols.stop), np.arange(width))), shape=(n, width)
    )
    powers = [X]
    for _ in range(top):
        largest = float(X.max()) if (X.nnz if sp.issparse(X) else X.size) else 0.0
        if growth * largest >= limit:
            raise _Inexact
        X = M @ X
        if sp.issparse(X):
            X = sp.csr_array(X)
            if X.nnz > _DENSE_FRACTION * n * width and n * width <= block_entries:
                X = X.toarray()
        powers.append(X)
    return powers


def _column_dots(Y, X, limit):
    """Column-wise inner products ``<Y[:, j], X[:, j]>`` (non-negative terms), exact,
    or _Inexact when a sum, and so possibly a partial sum, reaches ``limit``."""
    if sp.issparse(Y) and sp.issparse(X):
        sums = np.asarray(sp.csr_array(Y.multiply(X)).sum(axis=0)).reshape(-1)
        if sums.dtype != np.float64:  # a bound that cannot wrap around
            bound = np.asarray(sp.csr_array(Y.astype(np.float64).multiply(X.astype(np.float64))).sum(axis=0)).reshape(-1)
    else:
        Y = Y.toarray() if sp.issparse(Y) else Y
        X = X.toarray() if sp.issparse(X) else X
        sums = np.einsum("ij,ij->j", Y, X)
        if sums.dtype != np.float64:
            bound = np.einsum("ij,ij->j", Y.astype(np.float64), X.astype(np.float64))
    if sums.dtype == np.float64:
        bound = sums
    if bound.size and float(bound.max()) >= limit:
        raise _Inexact
    return sums.astype(np.int64)
