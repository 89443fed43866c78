"""Exact k nearest feature rows, in bounded memory.

:class:`ExactIndex` holds the rows of a feature map (sparse, dense or both, as
:class:`~graphinvariants.GraphFeatures` returns them: sparse counts of the exact
members, then the dense Nystroem columns) and answers "the ``k`` rows nearest each
query" exactly: the result is the first ``k`` columns of a stable sort of the full row
of distances (nearest first, ties by the smaller row position; see "Distances" below).

Layout (chosen at :meth:`ExactIndex.fit`, measured on Mutagenicity copies, see
``benchmarks/bench_search.py``):

* the **frequent columns** (held by at least ``dense_share`` of the rows: the walk
  histograms' few labels, the first Weisfeiler-Lehman colours, every Nystroem column)
  are one dense C-ordered float64 matrix, multiplied by the queries with BLAS
  (one thread, a block of ``BLOCK_ROWS`` rows at a time);
* the **rare columns** stay a CSR matrix, multiplied a block of rows at a time with
  the queries' dense columns (scipy's CSR x dense product: every row's sum runs over
  its own non-zeros in column order, whatever the block).

Memory: the index is ``8 n c`` bytes for ``c`` dense columns plus ``12`` bytes per
rare non-zero (float64 value, int32 column); a search holds ``BLOCK_ROWS x b`` scores
(8 bytes each) and ``b`` queries' rare columns as dense rows (``8 d_rare`` bytes each)
for a batch of ``b`` queries, ``b`` chosen so that this stays below ``working_memory``
MiB.

Distances: the answer is ranked by the Euclidean distance of the rows,
``d(q, x) = sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))`` (the kernel-induced distance
``sqrt(K(G, G) + K(H, H) - 2 K(G, H))`` of the kernel the rows realise; ``sqrt(2 - 2K)``
for rows of norm one), ties by the smaller position. Every inner product in it is one
fixed sequence of floating-point operations per pair (:func:`pair_inner_products`: the
products of the row's non-zeros with the query's, summed one at a time in increasing
column order), whatever the block, the batch of queries, ``working_memory``,
``block_rows`` or the part the row sits in. So the answer is the first ``k`` entries of a
stable sort of the full matrix of those distances, a row identical to the query (a
duplicate graph, or the query itself) is at distance exactly 0 (``<q, q> + <q, q> -
2 <q, q>`` is 0 in floating point), leave-one-out equals querying the same row with its
position left out, and a batch of queries equals the queries one at a time. The BLAS
products above only choose the candidates: every row whose BLAS distance is within a
rounding-error bound of the ``k``-th is scored again by :func:`pair_inner_products`.
"""

import numpy as np
import scipy.sparse as sp

from .._blas import one_blas_thread
from .._validation import check_int, check_working_memory

__all__ = ["BLOCK_ROWS", "ExactIndex", "merge_nearest", "pair_inner_products", "split_points"]

#: Rows of the index per product with a batch of queries.
BLOCK_ROWS = 32768

#: Non-zeros of the candidate rows scored at once by :func:`pair_inner_products`.
_PAIR_ENTRIES = 2**21

_EPS = np.finfo(np.float64).eps / 2  # the unit roundoff u


def pair_inner_products(Q, which, R):
    """``<Q[which[p]], R[p]>`` for every pair ``p``, each summed in one fixed order.

    Parameters
    ----------
    Q : scipy.sparse.csr_array, shape (n_queries, d)
        Sorted column indices.
    which : numpy.ndarray of int64, shape (n_pairs,)
        The query of each pair.
    R : scipy.sparse.csr_array, shape (n_pairs, d)
        The row of each pair, sorted column indices.

    Returns
    -------
    numpy.ndarray of float64, shape (n_pairs,)
        For each pair, ``s = 0; s += q[c] * r[c]`` over the stored entries ``c`` of the
        row in increasing column order: products that are zero change no sum, so the
        value depends on the two rows only (not on explicit zeros, on the pairs scored
        with it, or on the machine's BLAS), and ``<x, x>`` of a row computed this way
        equals ``<q, x>`` for any ``q`` equal to it.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphinvariants.search.exact import pair_inner_products
    >>> Q = sp.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    >>> R = sp.csr_array(np.array([[1.0, 5.0, 1.0], [0.0, 1.0, 1.0]]))
    >>> pair_inner_products(Q, np.array([0, 1]), R).tolist()
    [3.0, 3.0]
    """
    n = R.shape[0]
    out = np.zeros(n)
    if n == 0 or R.nnz == 0 or Q.nnz == 0:
        return out
    lengths = np.diff(R.indptr).astype(np.int64)
    width = np.int64(Q.shape[1])
    qkeys = np.repeat(np.arange(Q.shape[0], dtype=np.int64), np.diff(Q.indptr)) * width + Q.indices
    keys = np.repeat(np.asarray(which, dtype=np.int64), lengths) * width + R.indices
    pos = np.minimum(np.searchsorted(qkeys, keys), len(qkeys) - 1)
    products = np.where(qkeys[pos] == keys, Q.data[pos], 0.0) * R.data
    # one add per entry and pair, in column order: the products laid out one pair per
    # row (zeros after the last: they change no sum) and accumulated along the rows,
    # which numpy does strictly left to right (a reduction may sum pairwise)
    longest = int(lengths.max())
    place = np.arange(len(products)) - np.repeat(R.indptr[:-1].astype(np.int64), lengths)
    step = max(1, _PAIR_ENTRIES // longest)  # pairs per layout: bounded memory
    for a in range(0, n, step):
        b = min(n, a + step)
        first, last = int(R.indptr[a]), int(R.indptr[b])
        laid = np.zeros((b - a, longest))
        laid[np.repeat(np.arange(b - a), lengths[a:b]), place[first:last]] = products[first:last]
        np.add.accumulate(laid, axis=1, out=laid)
        out[a:b] = laid[:, -1]
    return out


def merge_nearest(parts, k):
    """The ``k`` nearest of several partial answers ``(positions, distances)`` of the
    same queries: smallest distance first, ties by the smaller position."""
    positions = np.concatenate([p[0] for p in parts], axis=1)
    distances = np.concatenate([p[1] for p in parts], axis=1)
    order = np.lexsort((positions, distances), axis=1)[:, : min(k, positions.shape[1])]
    return np.take_along_axis(positions, order, axis=1), np.take_along_axis(distances, order, axis=1)


def split_points(n_rows, n_parts, block_rows=BLOCK_ROWS):
    """Starts of ``n_parts`` (at most) parts of ``n_rows`` rows, each a multiple of
    ``block_rows`` long but the last, so that every row sits at the same place of
    its block as in one index over all rows.

    Examples
    --------
    >>> from graphinvariants.search.exact import split_points
    >>> split_points(100_000, 3).tolist()  # 4 blocks of 32,768 rows: 2 per part
    [0, 65536, 100000]
    """
    n_rows = check_int(n_rows, "n_rows")
    n_parts = check_int(n_parts, "n_parts", minimum=1)
    block_rows = check_int(block_rows, "block_rows", minimum=1)
    n_blocks = -(-n_rows // block_rows)
    per_part = max(1, -(-n_blocks // n_parts))
    starts = list(range(0, n_blocks, per_part))
    return np.asarray([s * block_rows for s in starts] + [n_rows], dtype=np.int64)


def take_columns(X, lookup, width):
    """Columns of CSR rows ``X`` renumbered by ``lookup`` (old column -> new, -1: dropped),
    as a CSR matrix ``width`` wide; far faster than scipy's column indexing on wide
    matrices (one pass over the non-zeros, the row order kept)."""
    new = lookup[X.indices]
    keep = new >= 0
    # (a zero appended: reduceat refuses a start at the end, which empty last rows have)
    counts = (np.add.reduceat(np.append(keep, False).astype(np.int64), X.indptr[:-1]) if X.nnz
              else np.zeros(X.shape[0], dtype=np.int64))
    counts[np.diff(X.indptr) == 0] = 0  # reduceat repeats the next value on empty rows
    indptr = np.concatenate(([0], np.cumsum(counts)))
    return sp.csr_array((X.data[keep], new[keep], indptr), shape=(X.shape[0], width))


def as_rows(X, what="X"):
    """``X`` as a float64 CSR matrix (sorted columns) or C-ordered 2-D array."""
    if sp.issparse(X):
        X = sp.csr_array(X, dtype=np.float64)
        X.sum_duplicates()
        X.sort_indices()
        return X
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-D matrix of feature rows, got shape {X.shape}")
    return X


class ExactIndex:
    """Exact k nearest rows of a feature matrix (Euclidean distance, ties by position).

    Parameters
    ----------
    dense_share : float, keyword-only, default=0.1
        Columns held by at least this share of the rows are stored dense.
    working_memory : float or None, keyword-only, default=None
        MiB that the scores of one batch of queries and its dense query rows may use
        (None: scikit-learn's ``working_memory``, 1024 by default).
    block_rows : int, keyword-only, default=BLOCK_ROWS
        Rows of the index per product with a batch of queries.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.exact import ExactIndex
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [1.0, 0.0]])
    >>> index = ExactIndex().fit(X)
    >>> indices, distances = index.search(np.array([[1.0, 0.0]]), 3)
    >>> indices.tolist(), distances.round(6).tolist()  # row 3 ties row 0, at distance 0
    ([[0, 3, 1]], [[0.0, 0.0, 0.894427]])
    """

    def __init__(self, *, dense_share=0.1, working_memory=None, block_rows=BLOCK_ROWS):
        self.dense_share = dense_share
        self.working_memory = working_memory
        self.block_rows = block_rows

    # -- building ----------------------------------------------------------------------
    def fit(self, X, *, dense_columns=None):
        """Index the rows of ``X`` (sparse or dense, shape ``(n, d)``).

        ``dense_columns``: the columns stored dense (default: :meth:`frequent_columns`
        of ``X``); the parts of one collection are given the columns of the whole, so
        that every row's inner products are summed alike in every part.
        """
        X = as_rows(X)
        check_int(self.block_rows, "block_rows", minimum=1)
        self.n_features_ = X.shape[1]
        if dense_columns is None:
            dense_columns = self.frequent_columns(X)
        self.dense_columns_ = np.unique(np.asarray(dense_columns, dtype=np.int64))
        rare = np.ones(X.shape[1], dtype=bool)
        rare[self.dense_columns_] = False
        self.sparse_columns_ = np.flatnonzero(rare).astype(np.int64)
        self._dense_lookup = np.full(X.shape[1], -1, dtype=np.int64)
        self._dense_lookup[self.dense_columns_] = np.arange(len(self.dense_columns_))
        self._sparse_lookup = np.full(X.shape[1], -1, dtype=np.int64)
        self._sparse_lookup[self.sparse_columns_] = np.arange(len(self.sparse_columns_))
        self._dense = np.zeros((0, len(self.dense_columns_)))
        self._sparse = sp.csr_array((0, len(self.sparse_columns_)))
        self._norms = np.zeros(0)
        return self.add(X)

    def frequent_columns(self, X):
        """Columns of ``X`` held by at least ``dense_share`` of its rows (all columns of
        dense rows)."""
        X = as_rows(X)
        if not sp.issparse(X):
            return np.arange(X.shape[1], dtype=np.int64)
        df = np.bincount(X.indices, minlength=X.shape[1])
        return np.flatnonzero(df >= max(1.0, self.dense_share * X.shape[0])).astype(np.int64)

    def add(self, X):
        """Append the rows of ``X`` (same columns as at :meth:`fit`); returns self."""
        X = as_rows(X)
        if X.shape[1] != self.n_features_:
            raise ValueError(f"X has {X.shape[1]} features, the index {self.n_features_}")
        dense, rare = self._split(X)
        start = self._dense.shape[0]
        self._dense = np.ascontiguousarray(np.vstack([self._dense, dense])) if len(self._dense) else dense
        if self._sparse.shape[0]:
            rare = sp.vstack([self._sparse, rare], format="csr")
        self._sparse = _int32(sp.csr_array(rare))
        self.n_rows_ = self._dense.shape[0]
        new = np.arange(start, self.n_rows_)
        norms = [pair_inner_products(R, np.arange(R.shape[0]), R) for R in self._take_chunks(new)]
        self._norms = np.concatenate([self._norms, *norms])  # <x, x>, as every search sums it
        self._max_norm = float(np.sqrt(max(float(self._norms.max(initial=0.0)), 0.0)))
        return self

    def _split(self, X):
        """Dense block and rare CSR of rows ``X``."""
        if sp.issparse(X):
            dense = take_columns(X, self._dense_lookup, len(self.dense_columns_)).toarray()
            rare = take_columns(X, self._sparse_lookup, len(self.sparse_columns_))
        else:
            dense = np.ascontiguousarray(X[:, self.dense_columns_])
            rare = sp.csr_array(X[:, self.sparse_columns_])
        return dense, rare

    def rows(self, start, stop):
        """Rows ``start:stop`` as they were given (CSR, the original columns)."""
        return self._take(np.arange(start, min(stop, self.n_rows_)))

    def _take(self, positions):
        """Rows at ``positions`` (CSR, the original columns, sorted; zeros not stored)."""
        dense = sp.csr_array(self._dense[positions])
        rare = sp.csr_array(self._sparse[positions])
        columns = np.concatenate((self.dense_columns_, self.sparse_columns_))
        out = sp.csr_array(sp.hstack([dense, rare], format="csr"))
        out = sp.csr_array((out.data, columns[out.indices], out.indptr), shape=(len(positions), self.n_features_))
        out.sort_indices()
        return out

    def _take_chunks(self, positions):
        """:meth:`_take` of ``positions`` a bounded number of non-zeros at a time."""
        per_row = max(1, len(self.dense_columns_) + (self._sparse.nnz // max(self._sparse.shape[0], 1)))
        step = max(1, _PAIR_ENTRIES // per_row)
        for a in range(0, len(positions), step):
            yield self._take(positions[a : a + step])

    @property
    def nbytes(self):
        """Bytes the index holds."""
        return int(self._dense.nbytes + self._sparse.data.nbytes + self._sparse.indices.nbytes
                   + self._sparse.indptr.nbytes)

    # -- searching ---------------------------------------------------------------------
    def search(self, Q, k, *, exclude=None, offset=0):
        """The ``k`` rows nearest each row of ``Q``.

        Parameters
        ----------
        Q : sparse or dense matrix of shape (n_queries, n_features)
        k : int
            At most the number of rows (less one with ``exclude``).
        exclude : numpy.ndarray of int64, shape (n_queries,), optional
            A row (global position) left out of each query's answer (-1: none); a row
            left out comes last, at distance infinity, if ``k`` reaches it.
        offset : int, keyword-only
            Added to the row positions (the place of this index among others).

        Returns
        -------
        indices : numpy.ndarray of int64, shape (n_queries, min(k, n_rows))
        distances : numpy.ndarray of float64, same shape
            ``sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))``, ascending; ties by the
            smaller position. Each inner product is :func:`pair_inner_products`'
            sum, the same bits whatever the batch or block.
        """
        Q = as_rows(Q, "Q")
        if Q.shape[1] != self.n_features_:
            raise ValueError(f"queries have {Q.shape[1]} features, the index {self.n_features_}")
        n_q = Q.shape[0]
        width = min(k, self.n_rows_)
        indices = np.empty((n_q, width), dtype=np.int64)
        distances = np.empty((n_q, width))
        if n_q == 0 or width == 0:
            return indices, distances
        budget = check_working_memory(self.working_memory) * 2**20
        per_query = 8 * (2 * self.block_rows + len(self.sparse_columns_) + len(self.dense_columns_))
        batch = int(max(1, min(n_q, budget // per_query)))
        for start in range(0, n_q, batch):
            stop = min(n_q, start + batch)
            ex = None if exclude is None else np.asarray(exclude[start:stop], dtype=np.int64)
            indices[start:stop], distances[start:stop] = self._search_batch(Q[start:stop], width, ex, offset)
        return indices, distances

    def _search_batch(self, Q, k, exclude, offset):
        Qs = sp.csr_array(Q)
        Qs.sort_indices()
        own = pair_inner_products(Qs, np.arange(Qs.shape[0]), Qs)  # <q, q>
        # a bound on how far the BLAS distances below may be from the exact ones (the
        # sums' rounding errors, gamma_m |q| |x| each, and the few operations around them)
        m = self.n_features_ + 2
        gamma = m * _EPS / (1 - m * _EPS)
        margin = 8 * (gamma + _EPS) * (np.sqrt(np.maximum(own, 0.0)) + self._max_norm) ** 2
        qd, qs = self._split(Q)
        qs_dense = np.ascontiguousarray(qs.toarray().T)  # (d_rare, b)
        qd_t = np.ascontiguousarray(qd.T)  # (c, b)
        best = None
        rows = np.arange(Q.shape[0])
        with one_blas_thread():
            for start in range(0, self.n_rows_, self.block_rows):
                stop = min(self.n_rows_, start + self.block_rows)
                scores = self._dense[start:stop] @ qd_t
                if self._sparse.nnz:
                    scores += self._sparse[start:stop] @ qs_dense
                scores = np.ascontiguousarray(scores.T)  # (b, block)
                rough = (own[:, None] + self._norms[None, start:stop]) - 2.0 * scores
                if exclude is not None:
                    inside = (exclude >= offset + start) & (exclude < offset + stop)
                    rough[rows[inside], exclude[inside] - offset - start] = np.inf
                kk = min(k, stop - start)
                kth = np.partition(rough, kk - 1, axis=1)[:, kk - 1]
                # every row that may be among the k nearest once scored exactly (ties
                # at zero included: a negative square is a distance 0)
                threshold = np.maximum(kth, 0.0) + margin
                which, column = np.nonzero(rough <= threshold[:, None])
                part = self._exact_distances(Qs, own, which, start + column)
                if exclude is not None:
                    part[(start + column + offset) == exclude[which]] = np.inf
                part = _top_per_query(which, start + column + offset, part, Q.shape[0], kk)
                best = part if best is None else merge_nearest([best, part], k)
        return best

    def _exact_distances(self, Qs, own, which, positions):
        """``sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))`` of the pairs (query ``which``,
        row at ``positions``), every inner product by :func:`pair_inner_products`."""
        inner = np.empty(len(positions))
        done = 0
        for R in self._take_chunks(positions):
            inner[done : done + R.shape[0]] = pair_inner_products(Qs, which[done : done + R.shape[0]], R)
            done += R.shape[0]
        return np.sqrt(np.maximum((own[which] + self._norms[positions]) - 2.0 * inner, 0.0))


def _top_per_query(which, positions, distances, n_queries, k):
    """``(positions, distances)`` of shape (n_queries, k): the ``k`` nearest of each
    query's scored rows (every query has at least ``k``), ties by position."""
    order = np.lexsort((positions, distances, which))
    which, positions, distances = which[order], positions[order], distances[order]
    first = np.searchsorted(which, np.arange(n_queries))
    take = first[:, None] + np.arange(k)[None, :]
    return positions[take], distances[take]


def _int32(matrix):
    """CSR with int32 indices (half the memory of int64) where they fit."""
    limit = np.iinfo(np.int32).max
    if matrix.nnz <= limit and max(matrix.shape) <= limit:
        matrix.indices = matrix.indices.astype(np.int32, copy=False)
        matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix


def brute_force(X, Q, k, exclude=None):
    """Exhaustive k nearest (the reference of the tests): the full matrix of distances
    ``sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))``, every inner product summed one column
    at a time in increasing column order (the order :func:`pair_inner_products`
    documents, written out over dense matrices: zero products change no sum), sorted
    stably (ties by position); ``exclude`` puts a row at distance infinity."""
    Q = np.asarray(Q.toarray() if sp.issparse(Q) else Q, dtype=np.float64)
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    S = np.zeros((Q.shape[0], X.shape[0]))
    qq = np.zeros(Q.shape[0])
    xx = np.zeros(X.shape[0])
    for c in range(X.shape[1]):
        S += Q[:, c][:, None] * X[:, c][None, :]
        qq += Q[:, c] * Q[:, c]
        xx += X[:, c] * X[:, c]
    D = np.sqrt(np.maximum((qq[:, None] + xx[None, :]) - 2.0 * S, 0.0))
    if exclude is not None:
        D[np.arange(len(exclude)), exclude] = np.inf
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    return order.astype(np.int64), np.take_along_axis(D, order, axis=1)
