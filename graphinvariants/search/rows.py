"""Feature rows as the indexes take them: float64, finite, CSR with sorted columns or a
C-ordered 2-D array; a fast column selection of wide CSR rows; the column that holds
what a row lacks of ``K(G, G)``; and the kernel-induced distance."""

import numpy as np
import scipy.sparse as sp

__all__ = ["as_rows", "kernel_distances", "split_missing", "take_columns", "widened", "with_missing"]


def take_columns(X, lookup, width):
    """Columns of CSR rows ``X`` renumbered by ``lookup`` (old column -> new, -1: dropped),
    as a CSR matrix ``width`` wide; far faster than scipy's column indexing on wide
    matrices (one pass over the non-zeros, the row order kept).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphinvariants.search.rows import take_columns
    >>> X = sp.csr_array(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 4.0]]))
    >>> take_columns(X, np.array([-1, 0, 1]), 2).toarray().tolist()
    [[2.0, 3.0], [0.0, 4.0]]
    """
    new = lookup[X.indices]
    keep = new >= 0
    # (a zero appended: reduceat refuses a start at the end, which empty last rows have)
    counts = (np.add.reduceat(np.append(keep, False).astype(np.int64), X.indptr[:-1]) if X.nnz
              else np.zeros(X.shape[0], dtype=np.int64))
    counts[np.diff(X.indptr) == 0] = 0  # reduceat repeats the next value on empty rows
    indptr = np.concatenate(([0], np.cumsum(counts)))
    return sp.csr_array((X.data[keep], new[keep], indptr), shape=(X.shape[0], width))


def as_rows(X, what="X"):
    """``X`` as a float64 CSR matrix (sorted columns) or C-ordered 2-D array; a value
    that is not finite is refused (a distance to it would be NaN)."""
    if sp.issparse(X):
        X = sp.csr_array(X, dtype=np.float64)
        X.sum_duplicates()
        X.sort_indices()
        values = X.data
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"{what} must be a 2-D matrix of feature rows, got shape {X.shape}")
        values = X
    if not np.isfinite(values).all():
        if sp.issparse(X):
            entry = int(np.flatnonzero(~np.isfinite(values))[0])
            bad = (int(np.searchsorted(X.indptr, entry, side="right")) - 1, int(X.indices[entry]))
        else:
            bad = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(f"{what} holds a value that is not finite (row {bad[0]}, column {bad[1]}): feature rows "
                         "must be finite numbers")
    return X


def kernel_distances(values):
    """``sqrt(max(0, 2 - 2 K))`` of kernel values ``K`` (``K(G, G) = 1``).

    Examples
    --------
    >>> from graphinvariants.search.rows import kernel_distances
    >>> kernel_distances([1.0, 0.5, 0.0, 1.0 + 2**-52]).round(6).tolist()
    [0.0, 1.0, 1.414214, 0.0]
    """
    return np.sqrt(np.maximum(0.0, 2.0 - 2.0 * np.asarray(values, dtype=np.float64)))


def widened(X, extra):
    """CSR rows ``X`` with ``extra`` empty columns after its own.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.rows import widened
    >>> widened(np.eye(2), 1).shape
    (2, 3)
    """
    X = sp.csr_array(X)
    return sp.csr_array((X.data, X.indices, X.indptr), shape=(X.shape[0], X.shape[1] + extra))


def with_missing(X, missing, column):
    """CSR rows ``X`` (already :func:`widened`) with ``sqrt(missing)`` stored in
    ``column`` where it is positive: the part of ``K(G, G)`` a row lacks (labels no
    fitted graph has), on a column no fitted row has, so that the row has the norm of
    the kernel and its inner products are unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.rows import widened, with_missing
    >>> X = with_missing(widened(np.array([[0.6, 0.0], [1.0, 0.0]]), 1), [0.64, 0.0], 2)
    >>> X.toarray().tolist()
    [[0.6, 0.0, 0.8], [1.0, 0.0, 0.0]]
    """
    X = sp.csr_array(X)
    n = X.shape[0]
    values = np.sqrt(np.maximum(np.asarray(missing, dtype=np.float64), 0.0))
    extra = sp.csr_array((values, (np.arange(n), np.full(n, column))), shape=X.shape)
    out = sp.csr_array(X + extra)
    out.eliminate_zeros()
    out.sort_indices()
    return out


def split_missing(X, column):
    """``(rows, lost)``: CSR rows ``X`` without ``column`` (:func:`with_missing`) and,
    per row, the square of what that column held (a stored row asked as a query: its
    missing part goes to the index's ``lost``).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.rows import split_missing
    >>> rows, lost = split_missing(np.array([[0.6, 0.0, 0.8], [1.0, 0.0, 0.0]]), 2)
    >>> rows.toarray().tolist(), lost.round(12).tolist()
    ([[0.6, 0.0, 0.0], [1.0, 0.0, 0.0]], [0.64, 0.0])
    """
    X = sp.csr_array(X)
    held = X.indices == column
    lost = np.zeros(X.shape[0])
    rows_of = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    lost[rows_of[held]] = X.data[held] ** 2
    keep = ~held
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows_of[keep], minlength=X.shape[0]))))
    return sp.csr_array((X.data[keep], X.indices[keep], indptr), shape=X.shape), lost

