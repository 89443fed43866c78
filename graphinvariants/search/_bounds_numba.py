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


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dots(C, start, stop, w, out):  # pragma: no cover - compiled
    """``out[i - start] = <C[i], w>`` for rows ``start:stop``: int8 codes by float32
    weights, summed in float32 in any order (the caller's margin bounds any order's
    error, ``gamma_d`` relative); the only loop compiled with reassociation."""
    for i in range(start, stop):
        s = np.float32(0.0)
        for t in range(w.shape[0]):
            s += np.float32(C[i, t]) * w[t]
        out[i - start] = s


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
    dots = np.empty(BLOCK, dtype=np.float32)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        for j in range(b):
            _dots(C, start, stop, W[j], dots)
            row = lb[j]
            for i in range(start, stop):
                both = own_q[j] + np.float64(own_x[i])
                ub = np.float64(dots[i - start]) + pnorm_q[j] * np.float64(err_x[i]) + res_q[j] * np.float64(res_x[i])
                value = (both - 2.0 * ub) - (relative * norm_q[j] * np.float64(norm_x[i]) + absolute * both)
                row[i] = value
            if exclude[j] >= start and exclude[j] < stop:
                row[exclude[j]] = np.inf
            for i in range(start, stop):
                if row[i] < heap_val[j, 0]:
                    _keep(heap_val, heap_idx, j, row[i], i)


@numba.njit(cache=True, nogil=True)
def rescore(q, q_dense, dense_columns, dense_values, indptr, indices, data, scales, rows,
            out):  # pragma: no cover - compiled
    """``out[p] = <q, x_rows[p]>``, ``q`` a dense query (``q_dense``: its values at the
    dense columns); a row's values are its stored numbers times its scale (``fl(c s)``:
    the compact form's counts rebuilt to the bit; 1.0 for values stored as they are,
    exact); the row's entries (its dense columns and its sparse ones, merged) in
    increasing column order, every product added: a zero product changes no sum (a sum
    is never -0: it starts at +0, and +0 + -0 is +0), so this is
    :func:`~graphinvariants.search.exact.pair_inner_products`' value, bit for bit."""
    c = dense_columns.shape[0]
    for p in range(rows.shape[0]):
        i = rows[p]
        scale = scales[i]
        s = 0.0
        a = 0
        for e in range(indptr[i], indptr[i + 1]):
            column = indices[e]
            while a < c and dense_columns[a] < column:  # the dense run before it
                s += q_dense[a] * (np.float64(dense_values[i, a]) * scale)
                a += 1
            s += q[column] * (np.float64(data[e]) * scale)
        while a < c:
            s += q_dense[a] * (np.float64(dense_values[i, a]) * scale)
            a += 1
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


@numba.njit(cache=True, nogil=True)
def add_postings(q_indptr, q_columns, q_values, colptr, rows, data, scales, cursor, start, stop,
                 out):  # pragma: no cover - compiled
    """``out[j, i - start] += q_j[c] * x_i[c]`` (``x_i[c]``: the stored number times
    ``scales[i]``, as :func:`rescore` rebuilds it) for every query ``j``, every column ``c``
    of its sparse part (``q_columns``, ``q_values`` by ``q_indptr``) and every row
    ``start <= i < stop`` holding ``c`` (the column's posting list ``rows``, ``data``
    from ``colptr``, rows increasing); ``cursor[t]``: where entry ``t``'s list resumes
    (set by the caller to the list's start, moved past ``stop``: blocks in order)."""
    for j in range(q_indptr.shape[0] - 1):
        for t in range(q_indptr[j], q_indptr[j + 1]):
            v = q_values[t]
            p = cursor[t]
            end = colptr[q_columns[t] + 1]
            while p < end and rows[p] < stop:
                out[j, rows[p] - start] += v * (np.float64(data[p]) * scales[rows[p]])
                p += 1
            cursor[t] = p


@numba.njit(cache=True, nogil=True)
def row_squares(indptr, data, out):  # pragma: no cover - compiled
    """``out[i] = <x_i, x_i>``, the products of row ``i``'s stored entries added one at
    a time in order from +0: :func:`~graphinvariants.search.exact.pair_inner_products`'
    value of a row with itself, bit for bit."""
    for i in range(indptr.shape[0] - 1):
        s = 0.0
        for e in range(indptr[i], indptr[i + 1]):
            s += data[e] * data[e]
        out[i] = s


@numba.njit(cache=True, nogil=True)
def dense_scores(values, scales, start, stop, q_t, out):  # pragma: no cover - compiled
    """``out[j, i - start] = <x_i, q_j>`` over the dense columns for rows ``start:stop``:
    each stored number times its row's scale (:func:`rescore`'s values), by the
    queries' dense parts ``q_t`` (column by query); for a few queries, without the
    float64 copy of the block that BLAS needs (the rough scores of the scan)."""
    c = values.shape[1]
    for i in range(start, stop):
        scale = scales[i]
        for j in range(q_t.shape[1]):
            s = 0.0
            for a in range(c):
                s += (np.float64(values[i, a]) * scale) * q_t[a, j]
            out[j, i - start] = s
