"""Compiled double sums of the exact mean map (numba, the ``[fast]`` extra; private).

:func:`cross_sums` computes what :func:`graphinvariants.embeddings.meanmap._cross_sums`
computes with numpy, in the same floating-point operations and order, so the two agree
to the last bit (tested):

* ``sum_t (x_t - y_t)^2`` in column order, each square and sum rounded (no FMA, no
  fast-math flags: nothing is fused or reassociated);
* times ``-0.5``, clamped at ``-700``, and fdlibm's exponential
  (:func:`._bhattacharyya_numba._exp`, branch-free; the numpy path writes the same
  operations out over arrays, ``meanmap._exp_nonpositive``);
* rounded to a multiple of ``2**-52`` and summed as two 26-bit halves in int64, exact
  in any order.

How it is fast: for one node of the left side, the squared distances to every node of
the tile's right side are accumulated column by column over a contiguous, transposed
copy of the right side, a loop LLVM vectorises (four pairs per AVX2 instruction, the
exponential included), then summed per right-hand graph in integers. No array of node
pairs is ever allocated: memory is that of the two sides. Cached on disk
(``cache=True``); the GIL is released.
"""

import numpy as np
from numba import njit

from ._bhattacharyya_numba import _exp

__all__ = ["cross_sums", "self_sums", "squared_distances_upper"]

_SCALE = 4503599627370496.0  # 2**52
_HALF_BITS = 26
_MASK = (1 << _HALF_BITS) - 1


@njit(nogil=True, cache=True)
def cross_sums(XA, starts_a, XBt, starts_b):  # pragma: no cover - compiled
    """``(high, low)`` int64 sums, shape ``(len(starts_a) - 1, len(starts_b) - 1)``.

    ``XA`` holds the left nodes (rows), graph ``r`` owning rows
    ``starts_a[r]:starts_a[r + 1]``; ``XBt`` the right nodes as columns (transposed),
    graph ``c`` owning columns ``starts_b[c]:starts_b[c + 1]``. Entry ``[r, c]`` is the
    sum over node pairs of ``rint(exp(-|x - y|^2 / 2) * 2**52)``, split at bit 26.
    """
    n_rows, n_cols = len(starts_a) - 1, len(starts_b) - 1
    w, nb = XBt.shape
    high = np.zeros((n_rows, n_cols), dtype=np.int64)
    low = np.zeros((n_rows, n_cols), dtype=np.int64)
    squared = np.empty(nb)
    fixed = np.empty(nb, dtype=np.int64)
    for r in range(n_rows):
        for i in range(starts_a[r], starts_a[r + 1]):
            squared[:] = 0.0
            for t in range(w):
                x = XA[i, t]
                for j in range(nb):
                    difference = x - XBt[t, j]
                    squared[j] += difference * difference
            for j in range(nb):
                fixed[j] = np.int64(np.rint(_exp(max(squared[j] * -0.5, -700.0)) * _SCALE))
            for c in range(n_cols):
                h = 0
                lo = 0
                for j in range(starts_b[c], starts_b[c + 1]):
                    h += fixed[j] >> _HALF_BITS
                    lo += fixed[j] & _MASK
                high[r, c] += h
                low[r, c] += lo
    return high, low


@njit(nogil=True, cache=True)
def squared_distances_upper(S):  # pragma: no cover - compiled
    """Squared Euclidean distances of the pairs of rows ``i < j`` of ``S`` (row-major
    order of the upper triangle), each summed in column order as numpy's loop does."""
    n, w = S.shape
    St = np.ascontiguousarray(S.T)
    out = np.empty(n * (n - 1) // 2)
    position = 0
    for i in range(n):
        m = n - i - 1
        row = out[position : position + m]
        row[:] = 0.0
        for t in range(w):
            x = St[t, i]
            for j in range(m):
                difference = x - St[t, i + 1 + j]
                row[j] += difference * difference
        position += m
    return out


@njit(nogil=True, cache=True)
def self_sums(X, offsets, graphs):  # pragma: no cover - compiled
    """``(high, low)`` of :func:`cross_sums` of each graph in ``graphs`` with itself."""
    high = np.empty(len(graphs), dtype=np.int64)
    low = np.empty(len(graphs), dtype=np.int64)
    for p in range(len(graphs)):
        a, b = offsets[graphs[p]], offsets[graphs[p] + 1]
        block = np.ascontiguousarray(X[a:b])
        starts = np.array([0, b - a], dtype=np.int64)
        h, lo = cross_sums(block, starts, np.ascontiguousarray(block.T), starts)
        high[p], low[p] = h[0, 0], lo[0, 0]
    return high, low
