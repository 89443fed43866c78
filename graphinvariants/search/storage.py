"""How the exact index stores its rows: integer counts times one scale per row, rebuilt to the last bit.

The rows of a count kernel (``"wl"`` and the other exact members of
:class:`~graphinvariants.GraphFeatures`) are integer label counts, each row multiplied
by one float64: ``x_i = fl(c_i * s)``. Stored that way, a row costs one narrow integer
per entry (``uint8`` where every count is below 256) and one float64, instead of a
float64 per entry; :func:`decompose` finds such a form from the float rows alone and
proves it (every entry of ``fl(c * s)`` is compared bit for bit with the row it
replaces), and :func:`rebuild` gives the float64 values back with one multiplication
each: the values searched are the rows given, so every distance is the same number.

A row that is not of that form (a Nystroem part, a column of what a graph lacks of
``K(G, G)``) has no such decomposition: :func:`decompose` then returns None and the
caller keeps float64 values.

:func:`stored_blocks` splits rows into the index's two parts (the frequent columns
dense, the rest CSR on their original columns) in either form, :func:`stored_values`
gives stored rows back as float64 CSR, and :func:`as_values` turns a compact store into
values (rows that are not counts joined it).
"""

import numpy as np
import scipy.sparse as sp

from .rows import take_columns

__all__ = ["DECOMPOSE_ROWS", "MAX_MULTIPLIER", "as_values", "decompose", "int32_indices", "narrowest", "rebuild", "stored_blocks",
           "stored_values"]

#: The largest smallest count per row tried (the multiplier of the row's smallest value).
MAX_MULTIPLIER = 1024

#: Rows decomposed at a time by :func:`decompose` (its work arrays: ~60 bytes an entry).
DECOMPOSE_ROWS = 4096

#: A row's ratios to its smallest value are integers after multiplication by ``m`` when
#: within this (relative) of one.
_NEAR = 1e-9

#: Scales tried on either side of the first guess, in units in the last place.
_ULPS = 4

_INTEGER_TYPES = (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.int64)


def narrowest(low, high):
    """The narrowest integer dtype holding every integer of ``[low, high]``.

    Examples
    --------
    >>> from graphinvariants.search.storage import narrowest
    >>> narrowest(0, 200), narrowest(-3, 200), narrowest(0, 70000)
    (dtype('uint8'), dtype('int16'), dtype('uint32'))
    """
    for kind in _INTEGER_TYPES:
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return np.dtype(kind)
    raise ValueError(f"counts from {low} to {high} do not fit 64 bits")


def rebuild(counts, scales):
    """``fl(counts * scales)``: the float64 values of compact entries (``scales`` one
    per entry, or broadcast against ``counts``).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.storage import rebuild
    >>> rebuild(np.array([1, 3], dtype=np.uint8), 0.5).tolist()
    [0.5, 1.5]
    """
    out = np.array(counts, dtype=np.float64)  # (a cast, then one multiplication: numpy's
    out *= scales  # mixed-type multiply gives the same bits, a third slower)
    return out


def decompose(indptr, data):
    """``(counts, scales)`` with ``fl(counts[e] * scales[row of e]) == data[e]`` bit for
    bit for every stored entry ``e`` of the CSR rows ``(indptr, data)``, or None.

    Parameters
    ----------
    indptr : numpy.ndarray of int, shape (n_rows + 1,)
    data : numpy.ndarray of float64, shape (nnz,)
        The rows' stored values (finite; zeros stored are allowed).

    Returns
    -------
    (counts, scales) or None
        ``counts``: the integers, in the narrowest dtype that holds them
        (:func:`narrowest`); ``scales``: float64, one per row (1.0 for an empty row).
        None where a row has no such form with a smallest count of at most
        :data:`MAX_MULTIPLIER`.

    Notes
    -----
    For a row whose smallest absolute value is ``a``, each ``m = 1, 2, ...`` is tried
    until every ``m v / a`` is an integer up to rounding; the counts are those integers
    and the scale is the float64 within a few units in the last place of ``a / m`` that
    gives back every value exactly (a row ``fl(c * s)`` whose counts have a common
    divisor ``g`` that is not a power of 2 is found at ``m`` its smallest count, where
    ``s`` itself is among the scales tried). The answer is checked entry by entry, so a
    row is never stored other than as given.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.storage import decompose
    >>> s = 1 / np.sqrt(14.0)
    >>> data = np.array([1.0, 2.0, 3.0]) * s  # counts 1, 2, 3 of a row of norm 1
    >>> counts, scales = decompose(np.array([0, 3]), data)
    >>> counts.tolist(), counts.dtype.name, bool((counts * scales[0] == data).all())
    ([1, 2, 3], 'uint8', True)
    >>> decompose(np.array([0, 2]), np.array([1.0, np.sqrt(2.0)])) is None
    True
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    data = np.asarray(data, dtype=np.float64)
    n = len(indptr) - 1
    if n > DECOMPOSE_ROWS:  # a bounded block of rows at a time (the work arrays take ~60 bytes an entry)
        counts, scales = [], []
        for a in range(0, n, DECOMPOSE_ROWS):
            b = min(n, a + DECOMPOSE_ROWS)
            found = decompose(indptr[a : b + 1] - indptr[a], data[indptr[a] : indptr[b]])
            if found is None:
                return None
            counts.append(found[0])
            scales.append(found[1])
        counts = np.concatenate(counts)
        return counts.astype(narrowest(int(counts.min(initial=0)), int(counts.max(initial=0))), copy=False), (
            np.concatenate(scales))
    lengths = np.diff(indptr)
    scales = np.ones(n)
    counts = np.zeros(len(data), dtype=np.int64)
    if not len(data):
        return counts.astype(np.uint8), scales
    row_of = np.repeat(np.arange(n), lengths)
    magnitude = np.abs(data)
    held = magnitude > 0
    smallest = np.full(n, np.inf)
    np.minimum.at(smallest, row_of[held], magnitude[held])
    ratio = magnitude / smallest[row_of]  # c / c_min (0 for a stored zero; a row of zeros: counts 0)
    # the smallest count of each row: the least common multiple of the denominators of
    # its ratios in lowest terms
    denominators = _denominators(np.where(held, ratio, 0.0))
    if (denominators == 0).any():
        return None
    starts = indptr[:-1][lengths > 0]
    multiplier = np.ones(n, dtype=np.int64)
    multiplier[lengths > 0] = np.lcm.reduceat(denominators, starts)
    open_rows = np.flatnonzero((lengths > 0) & np.isfinite(smallest))
    times = np.ones(n, dtype=np.int64)
    while len(open_rows):
        # a row whose counts share a divisor g (not a power of 2) is found at g times
        # its first multiplier: try the multiples until one gives the row back
        m = multiplier[open_rows] * times[open_rows]
        if (m > MAX_MULTIPLIER).any():
            return None

        entries = _entries(indptr, open_rows)
        owner = np.repeat(np.arange(len(open_rows)), lengths[open_rows])
        whole = np.rint(data[entries] / smallest[open_rows][owner] * m[owner])
        guess = smallest[open_rows] / m
        solved = np.zeros(len(open_rows), dtype=bool)
        for step in _steps():
            trial = _moved(guess, step)
            exact = np.multiply(whole, trial[owner]) == data[entries]
            ok = np.ones(len(open_rows), dtype=bool)
            np.logical_and.at(ok, owner, exact)
            ok &= ~solved
            if ok.any():
                scales[open_rows[ok]] = trial[ok]
                pick = ok[owner]
                counts[entries[pick]] = whole[pick].astype(np.int64)
                solved |= ok
            if solved.all():
                break
        open_rows = open_rows[~solved]
        times[open_rows] += 1
    if len(open_rows):  # (rows left when their multiples pass MAX_MULTIPLIER)
        return None
    return counts.astype(narrowest(int(counts.min()), int(counts.max()))), scales


def _denominators(x):
    """For each ``x >= 0``, the smallest ``q <= MAX_MULTIPLIER`` with ``q x`` an integer up
    to rounding (the continued fraction's convergents; 1 for 0), 0 where there is none."""
    whole = np.floor(x)
    frac = x - whole
    k0, k1 = np.zeros(len(x), dtype=np.int64), np.ones(len(x), dtype=np.int64)
    out = np.zeros(len(x), dtype=np.int64)
    close = np.abs(x - np.rint(x)) <= _NEAR * np.maximum(x, 1.0)
    out[close] = 1
    todo = np.flatnonzero(~close)
    for _ in range(64):
        if not len(todo):
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            y = 1.0 / frac[todo]
        a = np.floor(y)
        frac[todo] = y - a
        k0[todo], k1[todo] = k1[todo], np.minimum(a, 2 * MAX_MULTIPLIER).astype(np.int64) * k1[todo] + k0[todo]
        q = k1[todo]
        v = q * x[todo]
        found = np.abs(v - np.rint(v)) <= _NEAR * np.maximum(v, 1.0)
        out[todo[found & (q <= MAX_MULTIPLIER)]] = q[found & (q <= MAX_MULTIPLIER)]
        todo = todo[~found & (q <= MAX_MULTIPLIER) & np.isfinite(frac[todo])]
    return out


def _entries(indptr, rows):
    """The stored entries of ``rows`` of CSR ``indptr``, row after row."""
    lengths = indptr[rows + 1] - indptr[rows]
    starts = np.repeat(indptr[rows] - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return starts + np.arange(int(lengths.sum()))


def _steps():
    """0, +1, -1, +2, -2, ... units in the last place."""
    yield 0
    for u in range(1, _ULPS + 1):
        yield u
        yield -u


def _moved(values, ulps):
    """``values`` moved ``ulps`` units in the last place (NaN stays NaN)."""
    out = values.copy()
    toward = np.inf if ulps > 0 else -np.inf
    for _ in range(abs(ulps)):
        out = np.nextafter(out, toward)
    return out


def stored_blocks(X, dense_lookup, n_dense, dtype, block_rows):
    """The rows of ``X`` as an index stores them, ``block_rows`` at a time.

    Parameters
    ----------
    X : CSR or 2-D array of float64
    dense_lookup : numpy.ndarray of int
        Per column, its place among the dense columns (-1: a sparse column).
    n_dense : int
        Dense columns.
    dtype : numpy.dtype or None
        The values' type (float64 or float32); None: the compact form
        (:func:`decompose`).
    block_rows : int
        Rows split at a time.

    Returns
    -------
    list of (dense, scales, (data, indices, lengths)) or None
        Per block, the dense part (``(rows, n_dense)``), the scales (ones for values)
        and the sparse part's CSR arrays (original columns as int32 where they fit,
        zeros dropped: 5 bytes an entry for ``uint8`` counts); None where
        ``dtype`` is None and a row has no compact form.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.storage import stored_blocks
    >>> X = np.array([[0.5, 1.0, 0.0], [1.5, 0.0, 0.5]])
    >>> (dense, scales, (data, _, _)), = stored_blocks(X, np.array([0, -1, -1]), 1, None, 10)
    >>> dense.ravel().tolist(), scales.tolist(), data.tolist(), data.dtype.name
    ([1, 3], [0.5, 0.5], [2, 1], 'uint8')
    """
    out = []
    for a in range(0, X.shape[0], block_rows):
        block = sp.csr_array(X[a : a + block_rows])
        scales = np.ones(block.shape[0])
        kind = dtype
        if dtype is None:
            found = decompose(block.indptr, block.data)
            if found is None:
                return None
            block = sp.csr_array((found[0], block.indices, block.indptr), shape=block.shape)
            scales, kind = found[1], found[0].dtype
        dense = take_columns(block, dense_lookup, n_dense).toarray()
        rare = take_columns(block, np.where(dense_lookup[: block.shape[1]] < 0, np.arange(block.shape[1]), -1),
                            block.shape[1])
        rare = sp.csr_array((rare.data.astype(kind), rare.indices, rare.indptr), shape=rare.shape)
        rare.eliminate_zeros()
        columns = rare.indices.astype(np.int32 if X.shape[1] <= np.iinfo(np.int32).max else np.int64, copy=False)
        out.append((np.ascontiguousarray(dense, dtype=kind), scales, (rare.data, columns, np.diff(rare.indptr))))
    return out


def stored_values(dense, sparse, scales, positions, dense_columns):
    """Stored rows at ``positions`` as float64 CSR (original columns, sorted, zeros not
    stored): ``dense`` (the dense part), ``sparse`` (CSR) and ``scales`` as an index holds
    them, each value rebuilt by :func:`rebuild`.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphinvariants.search.storage import stored_values
    >>> dense = np.array([[1], [3]], dtype=np.uint8)
    >>> sparse = sp.csr_array(np.array([[0, 2, 0], [0, 0, 1]], dtype=np.uint8))
    >>> stored_values(dense, sparse, np.array([0.5, 0.5]), np.array([1, 0]), np.array([0])).toarray().tolist()
    [[1.5, 0.0, 0.5], [0.5, 1.0, 0.0]]
    """
    scales = scales[positions]
    values = sp.csr_array(rebuild(dense[positions], scales[:, None]))
    values = sp.csr_array((values.data, dense_columns[values.indices], values.indptr),
                          shape=(len(positions), sparse.shape[1]))
    rare = sp.csr_array(sparse[positions])
    rare = sp.csr_array((rebuild(rare.data, np.repeat(scales, np.diff(rare.indptr))), rare.indices, rare.indptr),
                        shape=rare.shape)
    out = sp.csr_array(values + rare)
    out.sort_indices()
    return out


def as_values(dense, sparse, scales):
    """``(dense, sparse, ones)``: compact parts as float64 values (:func:`rebuild`)."""
    data = rebuild(sparse.data, np.repeat(scales, np.diff(sparse.indptr)))
    return (rebuild(dense, scales[:, None]), sp.csr_array((data, sparse.indices, sparse.indptr), shape=sparse.shape),
            np.ones(len(scales)))


def int32_indices(matrix):
    """CSR (or CSC) ``matrix`` with int32 indices (half the memory of int64) where they fit."""
    limit = np.iinfo(np.int32).max
    if matrix.nnz <= limit and max(matrix.shape) <= limit:
        matrix.indices = matrix.indices.astype(np.int32, copy=False)
        matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix
