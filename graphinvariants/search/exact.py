"""Exact top-k by inner product over feature rows, in bounded memory.

:class:`ExactIndex` holds the rows of a feature map (sparse, dense or both, as
:class:`~graphinvariants.GraphFeatures` returns them: sparse counts of the exact
members, then the dense Nystroem columns) and answers "the ``k`` rows with the largest
inner product with each query" exactly: the result is the first ``k`` columns of a
stable sort of the full row of inner products (largest first, ties by the smaller row
position), as :func:`graphinvariants.kneighbors` orders its answers.

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

A row's inner product does not depend on the other rows of its block as long as the
block starts at the same multiple of ``BLOCK_ROWS`` (BLAS may take another path for a
row at another offset in a block), so an index split into parts whose sizes are
multiples of ``BLOCK_ROWS`` (:func:`split_points`) gives the same values, bit for bit,
and the merged top-k of its parts is the top-k of the whole.
"""

import numpy as np
import scipy.sparse as sp

from .._blas import one_blas_thread
from .._validation import check_int, check_working_memory
from ..kernels.neighbors import merge_top_k, top_k

__all__ = ["BLOCK_ROWS", "ExactIndex", "split_points"]

#: Rows of the index per product with a batch of queries.
BLOCK_ROWS = 32768


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
    counts = np.add.reduceat(keep, X.indptr[:-1]) if X.nnz else np.zeros(X.shape[0], dtype=np.int64)
    counts[np.diff(X.indptr) == 0] = 0  # reduceat repeats the next value on empty rows
    indptr = np.concatenate(([0], np.cumsum(counts)))
    return sp.csr_array((X.data[keep], new[keep], indptr), shape=(X.shape[0], width))


def as_rows(X, what="X"):
    """``X`` as a float64 CSR matrix or C-ordered 2-D array."""
    if sp.issparse(X):
        X = sp.csr_array(X, dtype=np.float64)
        X.sum_duplicates()
        return X
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-D matrix of feature rows, got shape {X.shape}")
    return X


class ExactIndex:
    """Exact top-k by inner product over the rows of a feature matrix.

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
    >>> indices, values = index.search(np.array([[1.0, 0.0]]), 3)
    >>> indices.tolist(), values.tolist()
    ([[0, 3, 1]], [[1.0, 1.0, 0.6]])
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
        self._dense = np.ascontiguousarray(np.vstack([self._dense, dense])) if len(self._dense) else dense
        if self._sparse.shape[0]:
            rare = sp.vstack([self._sparse, rare], format="csr")
        self._sparse = _int32(sp.csr_array(rare))
        self.n_rows_ = self._dense.shape[0]
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
        dense = sp.csr_array(self._dense[start:stop])
        rare = sp.csr_array(self._sparse[start:stop])
        columns = np.concatenate((self.dense_columns_, self.sparse_columns_))
        out = sp.csr_array(sp.hstack([dense, rare], format="csr"))
        out = sp.csr_array((out.data, columns[out.indices], out.indptr), shape=(stop - start, self.n_features_))
        out.sort_indices()
        return out

    @property
    def nbytes(self):
        """Bytes the index holds."""
        return int(self._dense.nbytes + self._sparse.data.nbytes + self._sparse.indices.nbytes
                   + self._sparse.indptr.nbytes)

    # -- searching ---------------------------------------------------------------------
    def search(self, Q, k, *, exclude=None, offset=0):
        """The ``k`` rows with the largest inner products with each row of ``Q``.

        Parameters
        ----------
        Q : sparse or dense matrix of shape (n_queries, n_features)
        k : int
            At most the number of rows (less one with ``exclude``).
        exclude : numpy.ndarray of int64, shape (n_queries,), optional
            A row (global position) left out of each query's answer (-1: none).
        offset : int, keyword-only
            Added to the row positions (the place of this index among others).

        Returns
        -------
        indices : numpy.ndarray of int64, shape (n_queries, min(k, n_rows))
        values : numpy.ndarray of float64, same shape
            Largest first; ties by the smaller position.
        """
        Q = as_rows(Q, "Q")
        if Q.shape[1] != self.n_features_:
            raise ValueError(f"queries have {Q.shape[1]} features, the index {self.n_features_}")
        n_q = Q.shape[0]
        width = min(k, self.n_rows_)
        indices = np.empty((n_q, width), dtype=np.int64)
        values = np.empty((n_q, width))
        if n_q == 0 or width == 0:
            return indices, values
        budget = check_working_memory(self.working_memory) * 2**20
        per_query = 8 * (2 * self.block_rows + len(self.sparse_columns_) + len(self.dense_columns_))
        batch = int(max(1, min(n_q, budget // per_query)))
        for start in range(0, n_q, batch):
            stop = min(n_q, start + batch)
            ex = None if exclude is None else np.asarray(exclude[start:stop], dtype=np.int64)
            indices[start:stop], values[start:stop] = self._search_batch(Q[start:stop], width, ex, offset)
        return indices, values

    def _search_batch(self, Q, k, exclude, offset):
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
                if exclude is not None:
                    inside = (exclude >= offset + start) & (exclude < offset + stop)
                    scores[rows[inside], exclude[inside] - offset - start] = -np.inf
                part = top_k(scores, min(k, stop - start), np.arange(offset + start, offset + stop))
                best = part if best is None else merge_top_k([best, part], k)
        return best


def _int32(matrix):
    """CSR with int32 indices (half the memory of int64) where they fit."""
    limit = np.iinfo(np.int32).max
    if matrix.nnz <= limit and max(matrix.shape) <= limit:
        matrix.indices = matrix.indices.astype(np.int32, copy=False)
        matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix


def brute_force(X, Q, k, exclude=None):
    """Exhaustive top-k by inner product (the reference of the tests): the full matrix
    of inner products, sorted stably by decreasing value."""
    S = Q @ X.T
    S = np.asarray(S.toarray() if sp.issparse(S) else S, dtype=np.float64)
    if exclude is not None:
        S[np.arange(len(exclude)), exclude] = -np.inf
    order = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return order.astype(np.int64), np.take_along_axis(S, order, axis=1)
