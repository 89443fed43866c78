"""Candidates by sparse-column score: a query's rarest columns' posting lists.

The rows that share a query's rare labels are the rows near it: on distinct molecules
(``wl`` count rows, 10^4 MOSES molecules) the 500 rows of largest inner product with
the query over the columns read from the rarest on, within a budget of ``n_rows / 2``
posting entries, hold 95% of the exact ten nearest, where the exact scan reads every
posting list of the query's columns (about ``11 n_rows`` entries: the common columns'
lists are long and tell rows apart little).

:class:`ColumnCandidates` reads the inverted index of an
:class:`~graphinvariants.search.exact.ExactIndex` (its sparse part by column,
:meth:`~graphinvariants.search.exact.ExactIndex.postings`; the columns it stores dense,
held by half the rows or more, are never read): a query's columns in increasing order of
their list's length (ties by column), each list whole, until the next list would take
the entries read past ``budget`` (but at least until ``count`` rows are touched), then
the touched rows' dense columns (a few, held by half the rows or more, stored dense), and
the ``count`` touched rows of largest score: ``s / |x|`` for the ``"cosine"`` metric,
``2 s - |x|^2`` for the ``"euclidean"`` one (``s`` the partial inner product; ties by
position). Their exact distances are the caller's (the exact index's scorer). Count
rows stored compact (:mod:`~graphinvariants.search.storage`) are read as their float64
values, ``count * scale``, bit for bit: the candidates are those of the float64 rows.
"""

import threading

import numpy as np

from .._utils.optional import compiled
from .storage import rebuild

__all__ = ["ColumnCandidates"]

LOOP = "graphinvariants.search._columns_numba"

#: Per thread, the zeroed work arrays of :meth:`ColumnCandidates.top` (by row count).
_WORK = threading.local()


def _work(n):
    """``(acc, mark, touched)`` for ``n`` rows: zero, False (each call leaves them so)."""
    store = _WORK.__dict__
    if store.get("n") != n:
        store.clear()
        store.update(n=n, acc=np.zeros(n), mark=np.zeros(n, dtype=np.bool_), touched=np.empty(n, dtype=np.int64))
    return store["acc"], store["mark"], store["touched"]


class ColumnCandidates:
    """Candidate rows of a query from the posting lists of its rarest sparse columns.

    Parameters
    ----------
    index : ExactIndex
        The fitted exact index whose rows are searched (its sparse part's posting lists
        are read; made on first use, then kept by the index).
    skip : numpy.ndarray of bool or None
        Rows left out of every answer (held out of the structure: the calibration's
        queries), their entries left out of the lists' lengths too.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphinvariants.search.exact import ExactIndex
    >>> from graphinvariants.search.columns import ColumnCandidates
    >>> X = sp.csr_array(np.eye(6) + np.eye(6, k=1))  # row i holds columns i and i + 1
    >>> stage = ColumnCandidates(ExactIndex(seed=0).fit(X))
    >>> Q = sp.csr_array(np.array([[0.0, 0, 0, 1, 1, 0]]))
    >>> positions, read = stage.top(stage.prepare(Q), 0, budget=4, count=2)
    >>> positions.tolist(), read  # row 3 holds both columns, rows 2 and 4 one
    ([3, 2], 4)
    """

    def __init__(self, index, skip=None):
        self.index = index
        self.postings = index.postings()
        lengths = np.diff(self.postings.indptr).astype(np.int64)
        n = index.n_rows_
        self.skip = np.zeros(n, dtype=np.bool_) if skip is None else np.asarray(skip, dtype=np.bool_)
        if skip is not None and self.skip.any():
            held = index._sparse[np.flatnonzero(self.skip)]
            lengths = lengths - np.bincount(held.indices, minlength=len(lengths))
        self.lengths = lengths
        cosine = getattr(index, "metric", "euclidean") == "cosine"
        with np.errstate(divide="ignore"):
            self._scale = np.where(index._root_norms > 0, 1.0 / index._root_norms, 0.0) if cosine else None

    def prepare(self, Qs):
        """Per query of sorted CSR ``Qs``: its sparse columns (those not stored dense)
        in the order they are read, and its values there."""
        out = []
        dense = self.index._dense_lookup
        for j in range(Qs.shape[0]):
            a, b = Qs.indptr[j], Qs.indptr[j + 1]
            columns, values = Qs.indices[a:b].astype(np.int64), Qs.data[a:b]
            keep = dense[columns] < 0
            q_dense = np.zeros(len(self.index.dense_columns_))
            q_dense[dense[columns[~keep]]] = values[~keep]
            columns, values = columns[keep], values[keep]
            order = np.lexsort((columns, self.lengths[columns]))
            out.append((columns[order], np.ascontiguousarray(values[order], dtype=np.float64), q_dense))
        return out

    def top(self, prepared, j, *, budget, count, exclude=-1):
        """The ``count`` (at most) candidate rows of query ``j`` of ``prepared``, best
        first, and the posting entries read; ``exclude``: a row left out."""
        columns, values, q_dense = prepared[j]
        P = self.postings
        module = compiled(LOOP)
        if module is not None:
            acc, mark, touched = _work(self.index.n_rows_)
            m, read = module.accumulate(columns, values, P.indptr, P.indices, P.data, self.index._scales, budget,
                                        count, self.skip, exclude, acc, mark, touched)
            rows = touched[:m].copy()
            sums = acc[rows]
            acc[rows] = 0.0
            mark[rows] = False
        else:
            rows, sums, read = self._accumulate(columns, values, budget, count, exclude)
        if len(q_dense) and len(rows):  # the touched rows' dense columns: their whole inner product
            block = self.index._dense[rows]
            if self.index._compact:  # counts: their float64 values rebuilt, bit for bit
                sums = sums + rebuild(block, self.index._scales[rows, None]) @ q_dense
            else:
                sums = sums + block @ q_dense.astype(block.dtype)
        if self._scale is not None:
            scores = sums * self._scale[rows]
        else:
            scores = 2.0 * sums - self.index._norms[rows]
        if len(rows) > count:  # the count largest (the boundary's ties by position, as the sort's)
            kth = -np.partition(-scores, count - 1)[count - 1]
            keep = np.flatnonzero(scores >= kth)
            rows, scores = rows[keep], scores[keep]
        order = np.lexsort((rows, -scores))[:count]
        return rows[order], int(read)

    def _accumulate(self, columns, values, budget, count, exclude):
        """numpy's :func:`~graphinvariants.search._columns_numba.accumulate`: the same
        sums (``bincount`` adds in the order given)."""
        P = self.postings
        starts, stops = P.indptr[columns].astype(np.int64), P.indptr[columns + 1].astype(np.int64)
        lengths = stops - starts
        read, taken, seen = 0, 0, np.zeros(0, dtype=np.int64)
        for t in range(len(columns)):
            if len(seen) >= count and read + lengths[t] > budget:
                break
            rows = P.indices[starts[t] : stops[t]].astype(np.int64)
            rows = rows[~self.skip[rows] & (rows != exclude)]
            seen = np.union1d(seen, rows) if len(seen) < count else seen
            read += int(lengths[t])
            taken = t + 1
        pieces = [np.arange(starts[t], stops[t]) for t in range(taken)]
        entries = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        rows = P.indices[entries].astype(np.int64)
        products = np.repeat(values[:taken], lengths[:taken]) * rebuild(P.data[entries], self.index._scales[rows])
        keep = ~self.skip[rows] & (rows != exclude)
        rows, products = rows[keep], products[keep]
        unique, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        sums = np.bincount(inverse, weights=products, minlength=len(unique))
        order = np.argsort(first, kind="stable")  # in order of first touch, as the loop lists them
        return unique[order], sums[order], read
