"""Compiled loops of the exact search (private; needs numba, imported lazily).

:func:`scan_codes` computes every row's lower bound on its squared distance to each
query from int8 codes of the projections (48 bytes a row at 32 directions) and keeps
the ``h`` smallest per query; :func:`rescore` sums the inner products of
candidate rows with one query in the fixed order of
:func:`~graphinvariants.search.exact.pair_inner_products` (increasing column, one add
per stored product), so it gives the same bits.
"""

import numba
import numpy as np

#: Rows per block of :func:`scan`: their projections stay in cache across the queries.
BLOCK = 2048


@numba.njit(cache=True, nogil=True, inline="always")
def _keep(heap_val, heap_idx, j, value, i):  # pragma: no cover - compiled
    """Keep row ``i`` among query ``j``'s ``h`` smallest bounds (a max-heap, root first)."""
    h = heap_val.shape[1]
    if value < heap_val[j, 0]:  # replace the root (the largest kept) and sift it down
        pos = 0
        while True:
            child = 2 * pos + 1
            if child >= h:
                break
            if child + 1 < h and heap_val[j, child + 1] > heap_val[j, child]:
                child += 1
            if heap_val[j, child] <= value:
                break
            heap_val[j, pos] = heap_val[j, child]
            heap_idx[j, pos] = heap_idx[j, child]
            pos = child
        heap_val[j, pos] = value
        heap_idx[j, pos] = i


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"}, inline="always")
def _dot8(C, i, w):  # pragma: no cover - compiled
    """``<C[i], w>`` of int8 codes and float32 weights, in float32, in any order."""
    s = np.float32(0.0)
    for t in range(w.shape[0]):
        s += np.float32(C[i, t]) * w[t]
    return s


@numba.njit(cache=True, nogil=True)
def scan_codes(C, W, own_x, err_x, res_x, norm_x, own_q, pnorm_q, norm_q, res_q, relative, absolute, exclude, lb,
               heap_val, heap_idx):  # pragma: no cover - compiled
    """``lb[j, i]``: a lower bound on ``|q_j|^2 + |x_i|^2 - 2 <q_j, x_i>`` as computed,
    from int8 codes ``C`` of the projections (``<p_q, p_x> <= <W_q, C_x> + |p_q| err_x``,
    ``W_q = p_q * scale``, ``err_x`` the norm of the code's error); the per-row numbers
    are float32 rounded to the safe side (``own_x`` down, the others up). ``heap_*[j]``:
    the ``h`` rows of smallest bound."""
    n = C.shape[0]
    b = W.shape[0]
    for j in range(b):
        for a in range(heap_val.shape[1]):
            heap_val[j, a] = np.inf
            heap_idx[j, a] = -1
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        for j in range(b):
            for i in range(start, stop):
                s = np.float64(_dot8(C, i, W[j]))
                both = own_q[j] + np.float64(own_x[i])
                ub = s + pnorm_q[j] * np.float64(err_x[i]) + res_q[j] * np.float64(res_x[i])
                value = (both - 2.0 * ub) - (relative * norm_q[j] * np.float64(norm_x[i]) + absolute * both)
                if i == exclude[j]:
                    value = np.inf
                lb[j, i] = value
                _keep(heap_val, heap_idx, j, value, i)


@numba.njit(cache=True, nogil=True)
def rescore(q, dense_columns, dense_values, indptr, indices, data, rows, out):  # pragma: no cover - compiled
    """``out[p] = <q, x_rows[p]>``, ``q`` a dense query; the row's stored entries (its
    dense columns and its sparse ones, merged) in increasing column order."""
    c = dense_columns.shape[0]
    for p in range(rows.shape[0]):
        i = rows[p]
        s = 0.0
        a = 0
        e = indptr[i]
        end = indptr[i + 1]
        while a < c or e < end:
            if e >= end or (a < c and dense_columns[a] < indices[e]):
                v = np.float64(dense_values[i, a])
                column = dense_columns[a]
                a += 1
            else:
                v = np.float64(data[e])
                column = indices[e]
                e += 1
            if v != 0.0:
                w = q[column]
                if w != 0.0:  # a zero product changes no sum (never -0: see the module)
                    s += w * v
        out[p] = s


@numba.njit(cache=True, nogil=True)
def below(lb, threshold, out):  # pragma: no cover - compiled
    """Positions ``i`` with ``lb[i] <= threshold`` into ``out``; returns how many."""
    m = 0
    for i in range(lb.shape[0]):
        if lb[i] <= threshold:
            out[m] = i
            m += 1
    return m
