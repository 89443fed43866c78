"""One large graph at the arithmetic floor: Algorithm 1 and its moments in a single pass each.

Collections of small graphs go through :func:`graphinvariants.walks.summary.power_iteration`,
which keeps walk counts exact and sums in sorted order so that every bit of a small
graph's invariants is independent of node order. On one graph of millions of edges
that bookkeeping costs several times the arithmetic, so a graph with at least
:data:`LARGE_GRAPH` nodes plus stored entries takes this path instead:

* **Products.** ``k`` sparse products ``x_t = A x_{t-1} / ||x_{t-1}||_1`` straight
  from the CSR arrays. With numba (the ``[fast]`` extra) a compiled loop reads only
  ``indptr`` and ``indices`` of a 0/1 matrix (a third of the bytes of scipy's
  product; an unweighted graph built by the library holds no data array at all, see
  :func:`graphinvariants.graphs.csr.pattern_only`) on every core; without numba,
  scipy's product on one core (with one temporary array of ones for a graph without
  a data array).
* **Moments, two passes.** The column sums (the L1 norms the iteration needs anyway)
  give the mean; a second pass adds ``d d^T`` and ``d`` over the centred rows
  ``d = x - mean``, and ``Sigma = (sum d d^T - (sum d)(sum d)^T / n) / n`` (the
  corrected two-pass formula: the second term removes the rounding left in the mean).
* **The same bits on 1 or 64 threads.** Rows are cut into fixed blocks of 4,096; a
  row's products are added in storage order and each block's sums in row order, the
  blocks' sums then in block order. The thread count only decides who computes a
  block.

Memory beyond the input: the ``n x k`` summary (held column by column) and a few
numbers per block, nothing per stored entry. Renumbering the nodes changes the order
of the additions, so the invariants change in their last bits only (about ``1e-15``
relative; the tests bound it), where the small-graph path gives identical bits.
"""

import threading

import numpy as np
import scipy.sparse as sp

from .._utils.optional import compiled
from .._utils.validation import check_n_jobs
from ..graphs.adjacency import graph_library

__all__ = ["LARGE_GRAPH", "column_sums", "is_large", "is_large_graph", "power_columns", "summary_moments"]

#: Nodes plus stored entries from which one graph takes this path (2**20).
LARGE_GRAPH = 2**20

#: Rows per block (the compiled module's ``BLOCK``, repeated so numba is not imported).
BLOCK = 4096

#: Why a covariance that is not finite is refused (here and for collections).
COVARIANCE_OVERFLOW = (
    "the covariance of the power summary overflows: edge weights are too large for double precision; "
    "divide all weights by a common factor (the kernel between graphs scaled alike does not change)"
)

#: Largest row sum (and inverse of the smallest non-zero one) accepted, as in walks.py.
_MAX_ROW_SUM = 1e150

#: The compiled loops (None without numba: scipy and numpy then do the work).
LOOPS = "graphinvariants.walks._large_numba"


def is_large(n_nodes, n_entries):
    """Whether a graph of ``n_nodes`` nodes and ``n_entries`` stored entries takes this path."""
    return n_nodes + n_entries >= LARGE_GRAPH


def is_large_graph(G):
    """Whether a graph object (NetworkX, igraph, scipy, GraphAdjacency, a pair of edge
    arrays) takes this path, judged from its sizes without reading its edges (anything
    else: False)."""
    library = graph_library(G)
    if library == "networkx":
        # below 1,024 nodes even a complete graph with loops stays under 2**20 entries,
        # and NetworkX counts edges by a pass over the nodes: small graphs skip it
        return len(G) >= 1024 and is_large(len(G), 2 * G.number_of_edges())
    if library == "igraph":
        return is_large(G.vcount(), 2 * G.ecount())
    if library == "scipy" and G.ndim == 2:
        return is_large(G.shape[0], G.nnz)
    if library == "adjacency":
        return is_large(G.n_nodes, G.matrix.nnz)
    if isinstance(G, tuple) and len(G) == 2 and all(isinstance(a, np.ndarray) and a.ndim == 1 for a in G):
        return is_large(0, 2 * G[0].size)  # a pair of edge arrays (as_adjacency reads it)
    return False


#: One compiled call at a time: numba's default threading layer (workqueue) aborts the
#: process when two Python threads launch parallel loops at once (a threaded Dask
#: worker, joblib threads); each call already uses every core it is given.
_COMPILED_CALLS = threading.Lock()


class _Threads:
    """numba's thread count for the duration of a ``with`` block, one block at a time."""

    def __init__(self, module, n_jobs):
        self.module = module
        self.wanted = None if n_jobs is None else check_n_jobs(n_jobs)  # checked before any lock

    def __enter__(self):
        if self.module is not None:
            _COMPILED_CALLS.acquire()
            self.before, most = self.module.threads()
            self.module.set_threads(max(1, min(most if self.wanted is None else self.wanted, most)))
        return self

    def __exit__(self, *exc):
        if self.module is not None:
            self.module.set_threads(self.before)
            _COMPILED_CALLS.release()


def power_columns(A, k, *, weighted, n_jobs=None):
    """Algorithm 1 on one graph, column by column.

    Parameters
    ----------
    A : scipy.sparse.csr_array
        Canonical CSR adjacency (float64 data; all ones unless ``weighted``).
    k : int
    weighted : bool
        Whether to read the stored weights; if False only the pattern is read.
    n_jobs : int or None
        Threads for the products: None every core numba may use (``NUMBA_NUM_THREADS``),
        else the scikit-learn convention (``-1`` all). Without numba, one.

    Returns
    -------
    columns : numpy.ndarray of shape (k, n)
        Row ``t`` is the iterate ``x_{t+1}``; ``columns.T`` is the power summary.
    sums : numpy.ndarray of shape (k,)
        The sum of each iterate, added block by block.

    Raises
    ------
    ValueError
        If the weights are too large or too small for double precision.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.walks.large import power_columns
    >>> A = nx.to_scipy_sparse_array(nx.path_graph(3), format="csr", dtype=float)
    >>> columns, sums = power_columns(A, 2, weighted=False)
    >>> columns.T
    array([[0.33333333, 0.5       ],
           [0.66666667, 0.5       ],
           [0.33333333, 0.5       ]])
    >>> sums
    array([1.33333333, 1.5       ])
    """
    n = A.shape[0]
    module = compiled(LOOPS)
    columns = np.zeros((k, n))
    sums = np.zeros(k)
    n_blocks = -(-n // BLOCK)
    block_sums = np.empty(n_blocks)
    x, total = np.ones(n), float(n)
    # unsigned views of the (non-negative) indices: numba then indexes without the
    # check for negative indices, which halves the speed of the gather (measured)
    indptr, indices = _unsigned(A.indptr), _unsigned(A.indices)
    if module is None and A.data.strides == (0,):
        # a pattern-only CSR (graphs.csr.pattern_only): scipy would copy its broadcast
        # data for every product; one array of ones for all k products instead
        A = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape, copy=False)
    with _Threads(module, n_jobs):
        for t in range(k):
            out = columns[t]
            if module is None:
                np.divide(A @ x, total, out=out)
                block_sums[:] = _plain_block_sums(out)
            elif weighted:
                module.weighted_product(indptr, indices, A.data, x, total, out, block_sums)
            else:
                module.pattern_product(indptr, indices, x, total, out, block_sums)
            if t == 0 and weighted:
                top = float(out.max(initial=0.0)) * n
                if top > _MAX_ROW_SUM or 0 < top < 1 / _MAX_ROW_SUM:
                    raise ValueError(
                        f"edge weights are too large or too small for double precision (largest row sum "
                        f"{top:.3g}; squares of the power summary must stay finite): divide or multiply all "
                        "weights by a common factor, which changes no kernel between graphs scaled alike"
                    )
            sums[t] = _in_order(block_sums)
            if sums[t] == 0:  # the zero vector: the remaining columns stay zero
                break
            x, total = out, sums[t]
    return columns, sums


def _unsigned(index):
    return index.view(np.uint32 if index.dtype.itemsize == 4 else np.uint64)


def column_sums(columns, *, n_jobs=None):
    """Each column's sum added as :func:`power_columns` adds it (blocks, then blocks in
    order), for a summary given without its sums.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.walks.large import column_sums
    >>> column_sums(np.array([[0.5, 0.25, 0.25], [1.0, 2.0, 3.0]]))
    array([1., 6.])
    """
    module = compiled(LOOPS)
    k, n = columns.shape
    block_sums = np.empty(-(-n // BLOCK))
    out = np.zeros(k)
    with _Threads(module, n_jobs):
        for t in range(k):
            if module is None:
                block_sums[:] = _plain_block_sums(columns[t])
            else:
                module.block_sums(np.ascontiguousarray(columns[t]), block_sums)
            out[t] = _in_order(block_sums)
    return out


def _plain_block_sums(values):
    """Each block's sum in row order, as the compiled loops add it (a running sum:
    ``numpy.cumsum`` adds in order, where ``numpy.sum`` adds pairwise)."""
    n = values.shape[0]
    padded = np.zeros(-(-n // BLOCK) * BLOCK)
    padded[:n] = values
    return np.cumsum(padded.reshape(-1, BLOCK), axis=1)[:, -1]


def _in_order(values):
    """Sum of a short array, added left to right (the same bits on every numpy)."""
    total = 0.0
    for value in values.tolist():
        total += value
    return total


def summary_moments(columns, sums, *, n_jobs=None):
    """Mean and (1/n) covariance of a power summary held column by column.

    Parameters
    ----------
    columns : numpy.ndarray of shape (k, n)
    sums : numpy.ndarray of shape (k,)
        Each column's sum (as :func:`power_columns` returns them).
    n_jobs : int or None
        As in :func:`power_columns`.

    Returns
    -------
    mean : numpy.ndarray of shape (k,)
    covariance : numpy.ndarray of shape (k, k)
        Symmetric; the corrected two-pass formula over fixed blocks of rows.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.walks.large import summary_moments
    >>> columns = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    >>> mean, cov = summary_moments(columns, columns.sum(axis=1))
    >>> mean, cov
    (array([2., 2.]), array([[0.66666667, 0.        ],
           [0.        , 0.        ]]))
    """
    k, n = columns.shape
    mean = np.asarray(sums, dtype=np.float64) / n
    module = compiled(LOOPS)
    n_blocks = -(-n // BLOCK)
    upper = np.triu_indices(k)
    if module is not None:
        parts = np.empty((n_blocks, k + len(upper[0])))
        with _Threads(module, n_jobs):
            module.centred_sums(columns, mean, parts)
        d_sums, products = np.zeros(k), np.zeros(len(upper[0]))
        for part in parts:  # in block order
            d_sums += part[:k]
            products += part[k:]
    else:
        d_sums, products = np.zeros(k), np.zeros(len(upper[0]))
        for start in range(0, n, BLOCK):
            d = columns[:, start : start + BLOCK].T - mean
            d_sums += d.sum(axis=0)
            products += (d.T @ d)[upper]
    P = np.zeros((k, k))
    P[upper] = products
    P = P + np.triu(P, 1).T
    cov = (P - np.outer(d_sums, d_sums) / n) / n
    cov = (cov + cov.T) / 2
    np.fill_diagonal(cov, np.maximum(np.diag(cov), 0.0))  # a regular graph's rounding, never below 0
    if not np.all(np.isfinite(cov)):
        raise ValueError(COVARIANCE_OVERFLOW)
    return mean, cov
