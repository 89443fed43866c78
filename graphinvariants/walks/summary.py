"""Algorithm 1 of the paper: the power summary of one graph or of a whole batch.

Starting from the all-ones vector, ``k`` steps of ``x_t = A x_{t-1} / ||x_{t-1}||_1``
give the ``n x k`` matrix whose row ``i`` is node ``i``'s walk-count profile. Because
every entry is non-negative, ``||x||_1`` is the sum of ``x``, and the recursion has the
closed form ``x_t = A^t 1 / sum(A^{t-1} 1)``: column ``t`` is the number of walks of
length ``t`` from each node, divided by the number of all walks of length ``t - 1``.

If the iteration reaches the zero vector (a graph with no edges, or a directed graph
in which no walk is long enough), the remaining columns are zero: ``A 0 = 0`` and the
normalisation of a zero vector is taken to be the zero vector.

Everything here works on a :class:`~graphinvariants.graphs.GraphBatch`: one sparse
product per step serves every graph of the batch.
"""

from functools import cached_property

import numpy as np

from .._utils.validation import check_k
from ..graphs import as_adjacency
from .counts import exact_walk_counts
from .large import is_large, power_columns

__all__ = ["NORMALIZATIONS", "PowerSummary", "batch_power_summary", "power_iteration", "power_summary"]

#: Largest row sum of the adjacency (and inverse of the smallest non-zero one) that the
#: power iteration accepts: squares of the summary's entries must stay finite.
_MAX_ROW_SUM = 1e150


class PowerSummary:
    """The ``n x k`` power summary of a graph, with its node order.

    Build it with :func:`power_summary`; the attributes are read-only.

    Attributes
    ----------
    matrix : numpy.ndarray of shape (n_nodes, k)
        Column ``t - 1`` is the ``t``-th iterate ``x_t`` of Algorithm 1.
    nodes : tuple
        Node names, in the order of the rows of :attr:`matrix`.
    adjacency : GraphAdjacency
        The adjacency the summary was computed from.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> s = gi.power_summary(nx.star_graph(3), k=2)
    >>> s
    <PowerSummary: 4 nodes, k=2>
    >>> s.profile(0)  # the hub: 3 neighbours, out of 4 starting nodes
    array([0.75, 0.5 ])
    >>> s.walk_counts()  # A 1 and A^2 1
    array([[3, 3],
           [1, 3],
           [1, 3],
           [1, 3]])
    """

    def __init__(self, matrix, adjacency):
        matrix = np.asarray(matrix, dtype=np.float64)
        matrix.setflags(write=False)
        self.matrix = matrix
        self.adjacency = adjacency

    @property
    def nodes(self):
        return self.adjacency.nodes

    @property
    def n_nodes(self):
        """Number of nodes (int)."""
        return self.matrix.shape[0]

    @property
    def k(self):
        """Number of power iterations (int)."""
        return self.matrix.shape[1]

    @cached_property
    def _index(self):
        return {node: i for i, node in enumerate(self.nodes)}

    def profile(self, node):
        """Return the walk-count profile (row of :attr:`matrix`) of one node.

        Parameters
        ----------
        node : hashable
            A node name as given by the input graph.

        Returns
        -------
        numpy.ndarray of shape (k,)

        Raises
        ------
        KeyError
            If the node is not in the graph.
        """
        try:
            return self.matrix[self._index[node]]
        except KeyError:
            raise KeyError(f"node {node!r} is not in the graph") from None

    def walk_counts(self):
        """Return the exact, unnormalised walk counts ``A^t 1`` for ``t = 1..k``.

        Entry ``[i, t - 1]`` is the number of walks of length ``t`` that start at node
        ``i`` (for a weighted graph: the sum over those walks of the product of their
        weights, which must then be integers).

        Returns
        -------
        numpy.ndarray of shape (n_nodes, k)
            ``int64`` when every count fits, otherwise an ``object`` array of Python
            ints: counts never overflow silently.

        Raises
        ------
        ValueError
            If the graph has non-integer weights.
        """
        return exact_walk_counts(self.adjacency.matrix, self.k)

    def __repr__(self):
        return f"<PowerSummary: {self.n_nodes} nodes, k={self.k}>"


def power_summary(G, *, k=5, weight=None, n_jobs=None):
    """Return the power summary (Algorithm 1 of the paper) of a graph.

    Parameters
    ----------
    G : graph
        A NetworkX or igraph graph, a scipy sparse matrix or a square numpy array
        (see :func:`as_adjacency`).
    k : int, keyword-only
        Number of power iterations (columns), default 5 as in the paper.
    weight : str or None, keyword-only
        Edge attribute to use as weight; ``None`` (default) is the 0/1 adjacency.
    n_jobs : int or None, keyword-only
        Threads for the sparse products of a large graph (see Notes): ``None``
        (default) every core numba may use, as BLAS does; ``1`` one; ``-1`` all. The
        result does not depend on it. Smaller graphs use one thread.

    Returns
    -------
    PowerSummary

    Raises
    ------
    ValueError
        If the graph has no nodes, or ``k`` is not a positive integer.

    Notes
    -----
    Cost: ``k`` sparse matrix-vector products, ``O(k (n + m))`` time for ``n`` nodes
    and ``m`` edges.

    A graph with at least ``2**20`` nodes plus stored entries
    (:data:`graphinvariants.walks.large.LARGE_GRAPH`) is summarised by
    :mod:`graphinvariants.walks.large`: the products straight from the CSR arrays, on
    every core with numba (``pip install graphinvariants[fast]``), the same bits
    whatever the thread count. Memory beyond the graph's CSR: the ``n x k`` summary.
    There, renumbering the nodes changes entries in their last bits only; smaller
    graphs give the same bits in any node order.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> gi.power_summary(nx.path_graph(3), k=3).matrix
    array([[0.33333333, 0.5       , 0.33333333],
           [0.66666667, 0.5       , 0.66666667],
           [0.33333333, 0.5       , 0.33333333]])
    """
    k = check_k(k)
    adjacency = as_adjacency(G, weight=weight)
    if adjacency.n_nodes == 0:
        raise ValueError("the graph has no nodes; its power summary is undefined")
    n = adjacency.n_nodes
    if is_large(n, adjacency.matrix.nnz):
        columns, _ = power_columns(adjacency.matrix, k, weighted=adjacency.weighted, n_jobs=n_jobs)
        return PowerSummary(columns.T, adjacency)
    return PowerSummary(power_iteration(adjacency.matrix, np.array([0, n]), k), adjacency)


#: Normalisations of the iterates: Algorithm 1's L1 norm (as printed), the L2 norm, or
#: none (the raw walk counts ``A^t 1``).
NORMALIZATIONS = ("l1", "l2", "none")


def batch_power_summary(batch, k, normalization="l1"):
    """Algorithm 1 on every graph of a GraphBatch: the stacked ``(n_nodes, k)`` summary."""
    return power_iteration(batch.matrix, batch.offsets, k, normalization)


def power_iteration(A, offsets, k, normalization="l1"):
    """Algorithm 1 on one or many graphs at once.

    Parameters
    ----------
    A : scipy.sparse.csr_array
        Adjacency of one graph, or block-diagonal adjacency of many (canonical CSR).
    offsets : numpy.ndarray of int, shape (n_graphs + 1,)
        Graph ``g`` owns rows ``offsets[g]:offsets[g + 1]``; every graph has a node.
    k : int
    normalization : {"l1", "l2", "none"}
        Norm that divides each iterate: the paper's L1 norm (default), the L2 norm, or
        none (column ``t`` is then ``A^t 1`` itself).

    Returns
    -------
    numpy.ndarray of shape (total_nodes, k)
        The power summaries stacked in graph order, each graph normalised by its own
        L1 norm.

    Notes
    -----
    ``x_{t+1} = A v / sum(v)`` for any positive multiple ``v`` of ``x_t``. While the
    walk counts ``A^t 1`` are integers below ``2**53`` (always, for unweighted graphs
    of moderate degree) ``v`` is kept as those exact counts, so every entry of the
    summary is one correctly rounded division ``A^t 1 / sum(A^(t-1) 1)``: the result
    does not depend on node order to the last bit.

    Beyond that, and for non-integer weights, ``v`` is the normalised iterate itself,
    (decided graph by graph, so a graph's summary does not depend on the other graphs
    of the batch) and every floating-point sum (a node's sum over its neighbours, a graph's sum over
    its nodes) adds its terms in sorted order, so that it too is the same to the last
    bit whatever the node order.
    """
    n = A.shape[0]
    offsets = np.asarray(offsets, dtype=np.int64)
    starts = offsets[:-1]
    sizes = np.diff(offsets)
    owner = None  # node -> graph, made when a graph leaves the exact path
    exact = _graphs_with_integer_weights(A, offsets)
    growth = np.maximum.reduceat(np.asarray(A.sum(axis=1)).reshape(-1), starts) if n else np.zeros(0)
    top = float(growth.max(initial=0.0))
    if top > _MAX_ROW_SUM or 0 < top < 1 / _MAX_ROW_SUM:
        raise ValueError(
            f"edge weights are too large or too small for double precision (largest row sum "
            f"{top:.3g}; squares of the power summary must stay finite): divide or multiply all "
            "weights by a common factor, which changes no kernel between graphs scaled alike"
        )
    bound = np.maximum(growth, sizes.astype(np.float64))
    out = np.empty((k, n))
    v = np.ones(n)
    for t in range(k):
        if exact.all():
            nxt = A @ v
        else:  # sums of integers below 2**53 are exact in any order, so this changes no exact graph
            nxt = _sorted_matvec(A, v)
        if owner is None and (normalization == "l2" or not exact.all()):
            owner = np.repeat(np.arange(len(sizes)), sizes)
        if normalization == "l1":
            totals = _sums(v, owner, starts, exact.all())
        elif normalization == "l2":
            totals = np.sqrt(_sorted_segment_sums(v * v, owner, starts))
        else:
            totals = np.ones(len(starts))
        totals = np.repeat(totals, sizes)
        x = np.divide(nxt, totals, out=np.zeros(n), where=totals > 0)
        out[t] = x
        with np.errstate(over="ignore"):  # inf (overflow) compares as "not exact", as it should
            exact &= np.maximum.reduceat(nxt, starts) * bound < 2.0**53
        if exact.all():
            v = nxt
        elif not exact.any():
            v = x
        else:
            if owner is None:
                owner = np.repeat(np.arange(len(sizes)), sizes)
            v = np.where(exact[owner], nxt, x)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"the walk counts overflow double precision at k={k}; use normalization='l1' or a smaller k")
    return out.T


def _sums(v, owner, starts, exact):
    """Per-graph sums of ``v``: plain when every entry is an exact integer, else sorted."""
    return np.add.reduceat(v, starts) if exact else _sorted_segment_sums(v, owner, starts)


def _graphs_with_integer_weights(A, offsets):
    """Per graph of a block-diagonal matrix: are all its weights integers?"""
    integral = A.data == np.floor(A.data)
    bounds = A.indptr[offsets]
    out = np.ones(len(offsets) - 1, dtype=bool)
    nonempty = np.flatnonzero(np.diff(bounds) > 0)
    if nonempty.size:
        out[nonempty] = np.logical_and.reduceat(integral, bounds[nonempty])
    return out


def _sorted_segment_sums(values, owner, starts):
    """Sum of ``values`` per segment, each segment's terms added in sorted order."""
    order = np.lexsort((values, owner))
    return np.add.reduceat(values[order], starts)


def _sorted_matvec(A, v):
    """``A @ v`` with each row's products added in sorted order (order-independent)."""
    products = A.data * v[A.indices]
    n = A.shape[0]
    counts = np.diff(A.indptr)
    row = np.repeat(np.arange(n), counts)
    products = products[np.lexsort((products, row))]
    out = np.zeros(n)
    nonempty = counts > 0
    if products.size:
        out[nonempty] = np.add.reduceat(products, A.indptr[:-1][nonempty])
    return out
