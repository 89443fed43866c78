"""Compiled loop of the sparse-column candidate stage (private; needs numba, imported
lazily): :func:`accumulate` adds a query's products over its columns' posting lists, the
rarest columns first, within a budget of entries read."""

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def accumulate(columns, values, colptr, rows, data, scales, budget, want, skip, exclude, acc, mark,
               touched):  # pragma: no cover - compiled
    """``acc[i] += values[t] * x_i[c]`` (``x_i[c]``: the stored number ``data[p]`` times
    ``scales[i]``, the float64 value bit for bit) over the posting list of each of ``columns`` in
    order (``rows[p] = i``, rows ``skip`` marks and ``exclude`` left out), stopping before
    a column that would take the entries read past ``budget`` once ``want`` rows are
    touched. The rows touched are listed in ``touched`` (in order of first touch) and
    marked in ``mark``; returns ``(rows touched, entries read)``. Each sum is added in
    the order of the columns, then of the list: the numpy path's ``bincount`` order."""
    m = 0
    read = 0
    for t in range(columns.shape[0]):
        c = columns[t]
        start, stop = colptr[c], colptr[c + 1]
        if m >= want and read + (stop - start) > budget:
            break
        v = values[t]
        for p in range(start, stop):
            i = rows[p]
            if skip[i] or i == exclude:
                continue
            if not mark[i]:
                mark[i] = True
                touched[m] = i
                m += 1
            acc[i] += v * (np.float64(data[p]) * scales[i])
        read += stop - start
    return m, read
