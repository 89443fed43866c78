"""Exact walk counts ``A^t 1``: the numbers Algorithm 1 normalises.

Entry ``[i, t - 1]`` is the number of walks of length ``t`` that start at node ``i``
(for integer weights: the sum over those walks of the products of their weights). The
counts are exact whatever their size: int64 while they are sure to fit, digits in base
``2**31`` (:mod:`graphinvariants.walks._limbs`) beyond, and Python ints or correctly
rounded doubles on the way out. Rows are nodes, so one call serves a single graph or a
block-diagonal batch.

Examples
--------
>>> import networkx as nx
>>> import scipy.sparse as sp
>>> from graphinvariants.walks.counts import exact_walk_counts
>>> star, edge = (nx.to_scipy_sparse_array(G, format="csr") for G in (nx.star_graph(3), nx.path_graph(2)))
>>> exact_walk_counts(sp.block_diag([star, edge], format="csr"), 3)  # two graphs, one call
array([[3, 3, 9],
       [1, 3, 3],
       [1, 3, 3],
       [1, 3, 3],
       [1, 1, 1],
       [1, 1, 1]])
"""

import numpy as np

from ._limbs import (
    LIMB_BITS,
    LIMB_MASK,
    carry_limbs,
    limbs_log1p,
    limbs_to_float,
    limbs_to_ints,
    pad_limbs,
    to_limbs,
    trim_limbs,
)

__all__ = ["exact_walk_counts", "float_walk_counts", "walk_count_columns"]

#: A column of counts is plain int64 while ``largest row sum * largest count`` (a bound
#: on the next column) stays below this.
_PLAIN_BOUND = 2.0**62


def walk_count_columns(A, k):
    """Yield the exact walk counts ``A^t 1`` for ``t = 1..k``, one column at a time.

    Works on one graph or a block-diagonal batch alike (rows are nodes). A column is
    an int64 array of shape ``(n,)`` while every count is sure to stay below ``2**62``
    (the counts as computed since the first version, bit for bit). From the first
    column that could cross that bound on, a column is an int64 array of shape
    ``(n, L)``: each count's digits in base ``2**31``
    (:data:`~graphinvariants.walks._limbs.LIMB_BITS`), least significant first, every
    digit in ``[0, 2**31)`` and the top digit of some row non-zero. Equal counts have
    equal digit rows, and digit rows compare (most significant first) as the counts do;
    :mod:`graphinvariants.walks._limbs` reads them (``limbs_to_ints``,
    ``limbs_to_float``, ``limbs_log1p``).

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
    >>> from graphinvariants.walks._limbs import limbs_to_ints
    >>> from graphinvariants.walks.counts import walk_count_columns
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
    :func:`numpy.log1p`, and of counts beyond the double range by
    :func:`~graphinvariants.walks._limbs.limbs_log1p` (a few units in the last place).
    Counts that fit int64 give the same bits as ``exact_walk_counts(A, k).astype(float)``.

    Raises
    ------
    ValueError
        If ``A`` has non-integer weights, or (without ``log``) a count exceeds the
        double-precision range.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.walks.counts import float_walk_counts
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
        acc[:, i : i + L] += row_sums(products & LIMB_MASK)
        acc[:, i + 1 : i + 1 + L] += row_sums(products >> LIMB_BITS)
        acc = carry_limbs(acc)
        acc = pad_limbs(acc, max(acc.shape[1], n_weight + L + 1))
    return trim_limbs(acc)
