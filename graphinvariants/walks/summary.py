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
from .large import is_large, power_columns

__all__ = ["PowerSummary", "power_summary"]

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


#: Walk counts that may leave the int64 range are held as digits ("limbs") in base
#: ``2**LIMB_BITS``: a product of a digit and a row sum below ``2**31`` stays below
#: ``2**62``, so ``A @ digits`` is exact in int64 and one carry pass normalises it.
LIMB_BITS = 31
_LIMB_MASK = (1 << LIMB_BITS) - 1
#: A column of counts is plain int64 while ``largest row sum * largest count`` (a bound
#: on the next column) stays below this.
_PLAIN_BOUND = 2.0**62


def walk_count_columns(A, k):
    """Yield the exact walk counts ``A^t 1`` for ``t = 1..k``, one column at a time.

    Works on one graph or a block-diagonal batch alike (rows are nodes). A column is
    an int64 array of shape ``(n,)`` while every count is sure to stay below ``2**62``
    (the counts as computed since the first version, bit for bit). From the first
    column that could cross that bound on, a column is an int64 array of shape
    ``(n, L)``: each count's digits in base ``2**31`` (:data:`LIMB_BITS`), least
    significant first, every digit in ``[0, 2**31)`` and the top digit of some row
    non-zero. Equal counts have equal digit rows, and digit rows compare (most
    significant first) as the counts do; :func:`limbs_to_ints`,
    :func:`limbs_to_float` and :func:`limbs_log1p` read them.

    The product ``A @ digits`` is exact in int64 when every row sum of ``A`` is at
    most ``2**31`` (any 0/1 adjacency of fewer than ``2**31`` nodes); larger integer
    weights are themselves split into digits and multiplied digit by digit.

    Raises
    ------
    ValueError
        If ``A`` has non-integer weights.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.walks.summary import limbs_to_ints, walk_count_columns
    >>> A = nx.to_scipy_sparse_array(nx.complete_graph(120), format="csr")
    >>> columns = list(walk_count_columns(A, 9))
    >>> [c.shape for c in columns[-3:]]  # 119**9 > 2**62: digits from length 9 on
    [(120,), (120,), (120, 3)]
    >>> columns[-1][0].tolist(), bool(limbs_to_ints(columns[-1])[0] == 119**9)
    ([535827255, 80914490, 1], True)
    """
    data = A.data
    if not np.all(data == np.round(data)):
        raise ValueError("exact walk counts need integer edge weights")
    big = bool(data.size) and data.max() >= 2**62
    max_row_sum = float(A.sum(axis=1).max()) if A.nnz else 0.0
    int_matrix = None if big else A.astype(np.int64)
    counts = np.ones(A.shape[0], dtype=np.int64)
    for _ in range(k):
        if counts.ndim == 1 and (big or max_row_sum * float(counts.max(initial=0)) >= _PLAIN_BOUND):
            counts = to_limbs(counts)
        if counts.ndim == 1:
            counts = int_matrix @ counts
        elif int_matrix is not None and max_row_sum <= 2.0**31:
            counts = carry_limbs(int_matrix @ counts)
        else:
            counts = _weighted_limb_matvec(A, counts)
        yield counts


def exact_walk_counts(A, k):
    """``A^t 1`` for ``t = 1..k`` in exact integer arithmetic (rows are nodes).

    An int64 array when every count fits (see :func:`walk_count_columns`), otherwise
    an object array of Python ints: counts never overflow silently.
    """
    columns = list(walk_count_columns(A, k))
    if all(c.ndim == 1 for c in columns):
        return np.column_stack(columns) if columns else np.zeros((A.shape[0], 0), np.int64)
    return np.column_stack([c.astype(object) if c.ndim == 1 else limbs_to_ints(c) for c in columns])


def float_walk_counts(A, k, *, log=False):
    """``A^t 1`` (or ``log(1 + A^t 1)`` with ``log``) for ``t = 1..k`` as float64.

    Each count is computed exactly and rounded once to the nearest double (as
    ``float(int)`` does); with ``log``, the logarithm of that double is taken by
    :func:`numpy.log1p`, and of counts beyond the double range by :func:`limbs_log1p`
    (a few units in the last place). Counts that fit int64 give the same bits as
    ``exact_walk_counts(A, k).astype(float)``.

    Raises
    ------
    ValueError
        If ``A`` has non-integer weights, or (without ``log``) a count exceeds the
        double-precision range.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.walks.summary import float_walk_counts
    >>> A = nx.to_scipy_sparse_array(nx.complete_graph(120), format="csr")
    >>> float(float_walk_counts(A, 9)[0, -1]) == float(119**9)
    True
    >>> float_walk_counts(A, 9, log=True)[0, -1].round(6)
    np.float64(43.012111)
    """
    out = np.empty((A.shape[0], k))
    for t, column in enumerate(walk_count_columns(A, k)):
        if column.ndim == 1:
            values = column.astype(np.float64)
            out[:, t] = np.log1p(values) if log else values
        elif log:
            out[:, t] = limbs_log1p(column)
        else:
            values = limbs_to_float(column)
            if not np.all(np.isfinite(values)):
                shorter = f" or k <= {t}" if t else ""
                raise ValueError(f"walk counts of length {t + 1} exceed the double-precision range (about 1.8e308); "
                                 f"use their logarithms{shorter}")
            out[:, t] = values
    return out


def to_limbs(values, n_limbs=None):
    """Base-``2**31`` digits (least significant first) of non-negative int64 values;
    ``n_limbs`` pads with leading zero digits (default: as few as the largest needs)."""
    values = np.asarray(values, dtype=np.int64)
    limbs = [values & _LIMB_MASK, (values >> LIMB_BITS) & _LIMB_MASK, values >> (2 * LIMB_BITS)]
    out = _trimmed(np.stack(limbs, axis=-1))
    return out if n_limbs is None else pad_limbs(out, n_limbs)


def pad_limbs(limbs, n_limbs):
    """The digits with leading zero digits up to ``n_limbs`` (last axis)."""
    extra = n_limbs - limbs.shape[-1]
    if extra < 0:
        raise ValueError(f"cannot hold {limbs.shape[-1]} digits in {n_limbs}")
    if extra == 0:
        return limbs
    return np.concatenate((limbs, np.zeros(limbs.shape[:-1] + (extra,), np.int64)), axis=-1)


def limbs_to_ints(limbs):
    """Python ints (object array) of base-``2**31`` digit rows."""
    out = np.zeros(limbs.shape[0], dtype=object)
    for j in reversed(range(limbs.shape[1])):
        out = out * (1 << LIMB_BITS) + limbs[:, j].astype(object)
    return out


def _head(limbs):
    """``(head, shift)`` with ``float(head) * 2**shift`` the correctly rounded value.

    ``head`` holds the top 62 bits of each count (all of it below ``2**62``) with a
    sticky bit for any non-zero bit below them, so that the one rounding of the int64
    ``head`` to a double is the rounding of the count itself.
    """
    n, L = limbs.shape
    rows = np.arange(n)
    nonzero = limbs != 0
    top = np.where(nonzero.any(axis=1), L - 1 - np.argmax(nonzero[:, ::-1], axis=1), 0)
    bits = np.frexp(limbs[rows, top].astype(np.float64))[1].astype(np.int64)  # exact below 2**31
    shift = np.maximum(LIMB_BITS * top + bits - 62, 0)
    q, r = np.divmod(shift, LIMB_BITS)
    padded = pad_limbs(limbs, L + 2)
    head = (
        (padded[rows, q + 2] << (62 - r))
        | (padded[rows, q + 1] << (LIMB_BITS - r))
        | (padded[rows, q] >> r)
    )
    below = np.concatenate((np.zeros((n, 1), np.int64), np.cumsum(nonzero, axis=1)), axis=1)[rows, q] > 0
    sticky = ((padded[rows, q] & ((1 << r) - 1)) != 0) | below
    return head | sticky.astype(np.int64), shift


def limbs_to_float(limbs):
    """Each count of base-``2**31`` digit rows rounded once to the nearest double
    (``inf`` beyond the double range), as ``float(int)`` rounds."""
    head, shift = _head(limbs)
    with np.errstate(over="ignore"):
        return np.ldexp(head.astype(np.float64), shift)


def limbs_log1p(limbs):
    """``log(1 + count)`` of base-``2**31`` digit rows: :func:`numpy.log1p` of the
    correctly rounded double where that is finite; beyond the double range
    ``log(head) + shift * log(2)``, within a few units in the last place (the ``1 +``
    is below the last place there)."""
    head, shift = _head(limbs)
    with np.errstate(over="ignore"):
        values = np.ldexp(head.astype(np.float64), shift)
    out = np.log1p(values)
    huge = ~np.isfinite(values)
    if huge.any():
        out[huge] = np.log(head[huge].astype(np.float64)) + shift[huge] * np.log(2.0)
    return out


def _trimmed(limbs):
    """Digits (last axis) without the leading digits that are zero everywhere (one kept)."""
    used = np.flatnonzero(limbs.reshape(-1, limbs.shape[-1]).any(axis=0))
    return limbs[..., : int(used[-1]) + 1 if used.size else 1]


def carry_limbs(sums):
    """Normalised base-``2**31`` digits (least significant first, leading zero digits
    dropped) of the values ``sum_j sums[:, j] * 2**(31 j)``, each entry of ``sums``
    non-negative and below ``2**62``."""
    n, L = sums.shape
    out = np.empty((n, L + 2), dtype=np.int64)
    carry = np.zeros(n, dtype=np.int64)
    for j in range(L + 2):
        value = sums[:, j] + carry if j < L else carry
        out[:, j] = value & _LIMB_MASK
        carry = value >> LIMB_BITS
    return _trimmed(out)


def _weighted_limb_matvec(A, limbs):
    """``A @ counts`` for digit rows and integer weights too large for one product:
    weights are split into base-``2**31`` digits, each product of two digits (below
    ``2**62``) into its low and high digit, and those summed along rows."""
    n = A.shape[0]
    data = A.data
    n_weight = max(1, -(-int(np.frexp(float(data.max(initial=1.0)))[1]) // LIMB_BITS))
    weight = np.stack(
        [np.fmod(np.floor(np.ldexp(data, -LIMB_BITS * i)), 2.0**LIMB_BITS) for i in range(n_weight)], axis=1
    ).astype(np.int64)
    per_row = np.diff(A.indptr)
    nonempty = per_row > 0
    starts = A.indptr[:-1][nonempty]
    gathered = limbs[A.indices]
    L = limbs.shape[1]
    acc = np.zeros((n, n_weight + L + 1), dtype=np.int64)

    def row_sums(values):
        out = np.zeros((n, values.shape[1]), dtype=np.int64)
        if values.size:
            out[nonempty] = np.add.reduceat(values, starts, axis=0)
        return out

    for i in range(n_weight):
        products = weight[:, i : i + 1] * gathered
        acc[:, i : i + L] += row_sums(products & _LIMB_MASK)
        acc[:, i + 1 : i + 1 + L] += row_sums(products >> LIMB_BITS)
        acc = carry_limbs(acc)
        acc = pad_limbs(acc, max(acc.shape[1], n_weight + L + 1))
    return _trimmed(acc)


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
