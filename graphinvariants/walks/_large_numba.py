"""Compiled loops of the large-graph path (private; needs numba, imported lazily).

Every loop runs over fixed blocks of :data:`BLOCK` rows, the blocks shared among
threads by ``numba.prange``; inside a block the rows, and inside a row its stored
entries, are taken in order, and each block writes its own partial sums. The caller
adds the partial sums in block order. So no result depends on the number of threads:
one thread and sixty-four give the same bits.
"""

import numba
import numpy as np

#: Rows per block: the unit of work a thread takes, and of every partial sum.
BLOCK = 4096


def threads():
    """``(current, largest)``: numba's thread count now, and ``NUMBA_NUM_THREADS``."""
    return numba.get_num_threads(), numba.config.NUMBA_NUM_THREADS


def set_threads(n):
    """Set numba's thread count (of the calling thread) for the next parallel loops."""
    numba.set_num_threads(n)


@numba.njit(parallel=True, cache=True, nogil=True)
def pattern_product(indptr, indices, x, total, out, block_sums):  # pragma: no cover - compiled
    """``out = (A @ x) / total`` for a 0/1 matrix given by its pattern; per-block sums of ``out``."""
    n = out.shape[0]
    for b in numba.prange(block_sums.shape[0]):
        start = b * BLOCK
        stop = min(start + BLOCK, n)
        acc = 0.0
        for i in range(start, stop):
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += x[indices[p]]
            value = s / total
            out[i] = value
            acc += value
        block_sums[b] = acc


@numba.njit(parallel=True, cache=True, nogil=True)
def weighted_product(indptr, indices, data, x, total, out, block_sums):  # pragma: no cover - compiled
    """``out = (A @ x) / total`` with the stored weights; per-block sums of ``out``."""
    n = out.shape[0]
    for b in numba.prange(block_sums.shape[0]):
        start = b * BLOCK
        stop = min(start + BLOCK, n)
        acc = 0.0
        for i in range(start, stop):
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * x[indices[p]]
            value = s / total
            out[i] = value
            acc += value
        block_sums[b] = acc


@numba.njit(parallel=True, cache=True, nogil=True)
def centred_sums(columns, mean, out):  # pragma: no cover - compiled
    """Per block: sums of ``d`` and of ``d_a d_b`` (``a <= b``) over its rows, ``d = row - mean``.

    ``columns`` is ``(k, n)`` (column ``t`` of the summary is ``columns[t]``); ``out``
    is ``(n_blocks, k + k * (k + 1) / 2)``: the ``k`` sums, then the upper triangle
    row by row.
    """
    k, n = columns.shape
    for b in numba.prange(out.shape[0]):
        start = b * BLOCK
        stop = min(start + BLOCK, n)
        acc = np.zeros(out.shape[1])
        d = np.empty(k)
        for i in range(start, stop):
            for a in range(k):
                d[a] = columns[a, i] - mean[a]
            q = k
            for a in range(k):
                acc[a] += d[a]
                for c in range(a, k):
                    acc[q] += d[a] * d[c]
                    q += 1
        out[b] = acc


@numba.njit(parallel=True, cache=True, nogil=True)
def block_sums(values, out):  # pragma: no cover - compiled
    """Per block of ``values``, its sum in row order, as the product loops add them."""
    n = values.shape[0]
    for b in numba.prange(out.shape[0]):
        start = b * BLOCK
        stop = min(start + BLOCK, n)
        acc = 0.0
        for i in range(start, stop):
            acc += values[i]
        out[b] = acc
