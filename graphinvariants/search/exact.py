"""Exact k nearest feature rows that scores only the rows it cannot rule out.

:class:`ExactIndex` holds the rows of a feature map (sparse, dense or both, as
:class:`~graphinvariants.GraphFeatures` returns them: sparse counts of the exact
members, then the dense Nystroem columns) and answers "the ``k`` rows nearest each
query" exactly: the result is the first ``k`` columns of a stable sort of the full row
of distances (nearest first, ties by the smaller row position; see "Distances" below).

How a query is answered (``method``; measured by the asv benchmark ``search.Copies`` and
``benchmarks/studies/search_quality.py moses``):

1. **Bounds** (``method="bounds"``). At :meth:`~ExactIndex.fit` the rows are projected
   on their first ``n_dims`` singular directions (:class:`~.projection.Projection`,
   fitted on a sample; float32, ``4 n_dims`` bytes a row) and each row keeps a proven
   upper bound on the norm of what the projection misses. By Cauchy-Schwarz,
   ``<q, x> <= <p_q, p_x> + |r_q| |r_x|``, so every row's squared distance to the
   query is at least ``|p_q - p_x|^2 + (|r_q| - |r_x|)^2``, less a margin that covers
   every rounding of the float32 coordinates and of the float64 sums. The rows of the
   smallest bounds are scored exactly first; their ``k``-th distance is a threshold,
   and then every row whose bound is at most that threshold is scored too. A row whose
   bound is above it is farther than ``k`` rows already scored: it is skipped with
   proof. Where the bounds leave more than :data:`FULL_PASS_SHARE` (1/8) of the rows,
   the query scores every row by one BLAS product instead and sums again exactly the
   rows within a rounding-error bound of the ``k``-th: the same answer.
2. **Scan** (``method="scan"``). Every row gets a rough inner product with the query
   from the dense columns (BLAS) and the query's posting lists (an inverted index of
   the sparse columns, column by column); only the rows within a proven rounding
   bound of the ``k``-th rough score are summed exactly. On distinct molecules, whose
   count rows a global projection keeps little of, this scores about 10 of 10^5 rows
   exactly.
3. ``method="auto"`` (the default) takes the scan where its multiply-adds per row cost
   no more than the bounds' pass (count rows of molecules), else the bounds.

:attr:`ExactIndex.scored_` and ``rescored_`` say how many rows each query scored.
The search page gives the shares on the shared data sets and on MOSES molecules.

Storage: the columns held by at least ``dense_share`` of the rows are one dense matrix,
the rest CSR (original column numbers, int32). ``dtype="float64"`` keeps the rows as
given: rows that are integer counts times one float64 per row (a count kernel's, as
:class:`~graphinvariants.GraphFeatures` makes them) are held as those counts, in the
narrowest integer type that holds them, and one scale per row, each value rebuilt as
``fl(count * scale)``, the float64 given, bit for bit (:mod:`~.storage`: ``1`` byte a
dense entry and ``5`` a sparse one for counts below 256, against ``8`` and ``12``);
other rows are held as float64 values. ``"float32"`` stores the rows rounded to float32
(``4`` bytes a dense entry, ``8`` a sparse one), and every
distance is still summed in float64 from the stored values, so the answer is exact for
the stored rows. The queries are rounded as the rows are, so that a copy of a stored
row is at distance exactly 0. A search holds one bound per row and query (``8 n`` bytes a query) for a
batch of queries whose size ``working_memory`` bounds.

Distances: the answer is ranked by the Euclidean distance of the rows,
``d(q, x) = sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))`` (the kernel-induced distance
``sqrt(K(G, G) + K(H, H) - 2 K(G, H))`` of the kernel the rows realise; ``sqrt(2 - 2K)``
for rows of norm one), ties by the smaller position. Every inner product in it is one
fixed sequence of floating-point operations per pair (:func:`pair_inner_products`: the
products of the row's non-zeros with the query's, summed one at a time in increasing
column order), whatever the batch of queries, ``working_memory``, ``n_dims``, the seed
of the projection or the part the row sits in. So the answer is the first ``k`` entries
of a stable sort of the full matrix of those distances, a row identical to the query
(a duplicate graph, or the query itself) is at distance exactly 0 (``<q, q> + <q, q> -
2 <q, q>`` is 0 in floating point), leave-one-out equals querying the same row with its
position left out, and a batch of queries equals the queries one at a time.

With numba (the ``[fast]`` extra) the pass over the bounds and the exact scores are
compiled loops; without it BLAS (float32) and numpy do them, slower, with the same
answers.
"""

import threading

import numpy as np
import scipy.sparse as sp

from .._utils.blas import one_blas_thread
from .._utils.optional import compiled
from .._utils.validation import check_choice, check_int, check_seed, check_working_memory
from .projection import Projection, rounding_margin
from .rows import as_rows, take_columns
from .storage import as_values, int32_indices, rebuild, stored_blocks, stored_values

__all__ = ["BLOCK_ROWS", "FULL_PASS_SHARE", "METHODS", "METRICS", "ExactIndex", "check_lost",
           "pair_inner_products", "self_products", "split_points"]

#: Rows of the index per product with a batch of queries (numpy's pass over the bounds),
#: and the unit the parts of a collection are cut in (:func:`split_points`).
BLOCK_ROWS = 32768

#: Rows split into dense and sparse parts at a time by :meth:`ExactIndex.add`.
ADD_ROWS = 65536

#: Non-zeros of the candidate rows scored at once by :func:`pair_inner_products`.
_PAIR_ENTRIES = 2**21

_EPS = np.finfo(np.float64).eps / 2  # the unit roundoff u

#: A query whose bounds leave more than this share of the rows to score has every row
#: scored by BLAS instead (one product over the rows beats many exact sums).
FULL_PASS_SHARE = 0.125

#: How a query is answered: ``"bounds"`` (rows in order of their projection bound),
#: ``"scan"`` (every row's rough score from the dense columns and the posting lists),
#: ``"auto"`` (the scan where it costs no more per row than the bounds' pass).
METHODS = ("auto", "bounds", "scan")

#: What the rows are ranked by: ``"euclidean"``, ``sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))``;
#: ``"cosine"``, ``sqrt(max(0, 2 - 2 <q, x> / sqrt(<q, q> <x, x>)))``, the distance of the
#: rows' directions (for rows of norm one up to rounding, a normalised kernel's: an
#: identical row at exactly 0, an orthogonal one at exactly ``sqrt(2)``, whatever the last
#: bits of the norms).
METRICS = ("euclidean", "cosine")

#: Rows of smallest bound scored before a query whose bounds leave many rows is sent to
#: the full pass (at least; ``n_rows / 256`` on larger indexes).
FIRST_BUDGET = 256

#: Rows of smallest bound scored first, beyond ``k`` (their ``k``-th distance is the threshold).
FIRST_EXTRA = 16

#: Queries up to which the scan's dense part of compact rows is a compiled loop (BLAS beyond).
FEW_QUERIES = 8

#: The compiled loops (None without numba: numpy and BLAS then do the work).
LOOPS = "graphinvariants.search._bounds_numba"

#: Per thread, the zero vector a query is scattered into for its exact scores.
_SCATTERED = threading.local()


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


def self_products(Q):
    """``<q, q>`` of every row of sorted CSR ``Q``, the bits of
    :func:`pair_inner_products` (``Q``, every row with itself), compiled where numba is."""
    module = compiled(LOOPS)
    if module is None:
        return pair_inner_products(Q, np.arange(Q.shape[0]), Q)
    out = np.empty(Q.shape[0])
    module.row_squares(Q.indptr, Q.data, out)
    return out


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


class ExactIndex:
    """Exact k nearest rows of a feature matrix (Euclidean distance, ties by position),
    scoring only the rows that a projection bound cannot rule out.

    Parameters
    ----------
    n_dims : int, keyword-only, default=32
        Singular directions of the bounds (0: every row is scored; more: tighter bounds,
        ``4 n_dims`` more bytes a row and a longer pass).
    dtype : {"float64", "float32"}, keyword-only, default="float64"
        How the rows are stored: ``"float64"``, as given (count rows as their integer
        counts and one scale per row, the same values to the bit); ``"float32"``:
        rounded to float32, the answer exact for the rounded rows (distances still
        summed in float64).
    dense_share : float, keyword-only, default=0.5
        Columns held by at least this share of the rows are stored dense.
    working_memory : float or None, keyword-only, default=None
        MiB that the bounds of one batch of queries may use (None: scikit-learn's
        ``working_memory``, 1024 by default).
    block_rows : int, keyword-only, default=BLOCK_ROWS
        Rows per product of numpy's pass over the bounds (without numba).
    svd_samples : int, keyword-only, default=8192
        Rows the projection is fitted on.
    method : {"auto", "bounds", "scan"}, keyword-only, default="auto"
        ``"bounds"``: rows scored in order of their projection bound, those it rules
        out skipped (the full pass where it rules out few); ``"scan"``: every row gets
        a rough score from the dense columns (BLAS) and the query's posting lists (the
        sparse part by column, :meth:`postings`), and only the rows within a rounding
        bound of the ``k``-th are scored exactly; ``"auto"``: the scan where its
        multiply-adds per row (dense columns, plus the query's postings over the rows)
        are at most ``n_dims``, else the bounds. The same answer, bit for bit, whichever.
    metric : {"euclidean", "cosine"}, keyword-only, default="euclidean"
        The distance ranked (:data:`METRICS`): the rows' Euclidean distance, or that of
        their directions, ``sqrt(max(0, 2 - 2 <q, x> / sqrt(<q, q> <x, x>)))``, for rows
        of norm one up to rounding (``K(G, G) = 1``): equal kernel values then give
        equal distances (``K = 0``: exactly ``sqrt(2)``, ties by position), where the
        Euclidean formula orders them by the last bits of the rows' norms. The bounds
        hold for either (the gap between the two is bounded by the norms).
    seed : None, int or Generator, keyword-only, default=None
        Draws the projection's sample (the answer does not depend on it; the number of
        rows scored does, a little).

    Attributes
    ----------
    scored_ : numpy.ndarray of int64, shape (n_queries,)
        Rows scored for each query of the last :meth:`search`: exactly, in order of
        bound; or all of them (``n_rows_``) by the scan, where the bounds left more
        than :data:`FULL_PASS_SHARE` of the rows to score or ``method`` chose it.
    rescored_ : numpy.ndarray of int64, shape (n_queries,)
        Rows whose exact distance each query of the last :meth:`search` summed (those
        of the bound path, or the scan's rows within its rounding bound of the ``k``-th).
    projection_ : Projection
        The basis of the bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.exact import ExactIndex
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [1.0, 0.0]])
    >>> index = ExactIndex(seed=0).fit(X)
    >>> indices, distances = index.search(np.array([[1.0, 0.0]]), 3)
    >>> indices.tolist(), distances.round(6).tolist()  # row 3 ties row 0, at distance 0
    ([[0, 3, 1]], [[0.0, 0.0, 0.894427]])
    """

    def __init__(self, *, n_dims=32, dtype="float64", dense_share=0.5, working_memory=None, block_rows=BLOCK_ROWS,
                 svd_samples=8192, method="auto", metric="euclidean", seed=None):
        self.n_dims = n_dims
        self.dtype = dtype
        self.dense_share = dense_share
        self.working_memory = working_memory
        self.block_rows = block_rows
        self.svd_samples = svd_samples
        self.method = method
        self.metric = metric
        self.seed = seed

    # -- building ----------------------------------------------------------------------
    def fit(self, X, *, dense_columns=None, projection=None):
        """Index the rows of ``X`` (sparse or dense, shape ``(n, d)``).

        ``dense_columns``: the columns stored dense (default: :meth:`frequent_columns`
        of ``X``); ``projection``: a fitted :class:`~.projection.Projection` of the
        same columns (default: fitted on a sample of ``X``). Neither changes an answer;
        the parts of one collection may share them to save work.
        """
        check_choice(self.dtype, "dtype", ("float64", "float32"))
        check_choice(self.method, "method", METHODS)
        check_choice(self.metric, "metric", METRICS)
        check_int(self.block_rows, "block_rows", minimum=1)
        check_int(self.n_dims, "n_dims", minimum=0)
        X = as_rows(X)
        self.n_features_ = X.shape[1]
        self._type = np.dtype(self.dtype)
        if dense_columns is None:
            dense_columns = self.frequent_columns(X)
        self.dense_columns_ = np.unique(np.asarray(dense_columns, dtype=np.int64))
        if len(self.dense_columns_) and (self.dense_columns_[0] < 0 or self.dense_columns_[-1] >= X.shape[1]):
            raise ValueError(f"dense_columns must be columns of X (0 to {X.shape[1] - 1})")
        # (int32: 4 bytes a column; the sparse columns are those it gives -1)
        self._dense_lookup = np.full(X.shape[1], -1, dtype=np.int32 if X.shape[1] < 2**31 else np.int64)
        self._dense_lookup[self.dense_columns_] = np.arange(len(self.dense_columns_))
        # count rows (float64) are held as integer counts times one scale per row
        self._compact = self._type == np.float64
        self._dense = np.zeros((0, len(self.dense_columns_)), dtype=np.uint8 if self._compact else self._type)
        self._sparse = sp.csr_array((0, X.shape[1]), dtype=np.uint8 if self._compact else self._type)
        self._scales = np.zeros(0)
        self._norms = np.zeros(0)
        self._postings = None
        self._P = np.zeros((0, 0), dtype=np.float32)
        self._residual = np.zeros(0)
        self._max_entries = 0
        self.projection_ = self._fit_projection(X) if projection is None else projection
        self._P = np.zeros((0, self.projection_.n_dims_), dtype=np.float32)
        return self.add(X)

    def fit_projection(self, X):
        """The :class:`~.projection.Projection` of the bounds, fitted on a sample of ``X``
        (``n_dims``, ``svd_samples``, ``seed``); the parts of one collection may share one."""
        check_choice(self.dtype, "dtype", ("float64", "float32"))
        self._type = np.dtype(self.dtype)
        return self._fit_projection(as_rows(X))

    def _fit_projection(self, X):
        """:meth:`fit_projection` of rows already checked by ``as_rows`` (fit's)."""
        check_int(self.svd_samples, "svd_samples", minimum=1)
        rng = check_seed(self.seed)
        # the sample first: rounding a copy of every row as stored would double the input
        sample = np.sort(rng.choice(X.shape[0], size=min(X.shape[0], self.svd_samples), replace=False))
        return Projection(n_dims=self.n_dims, n_samples=self.svd_samples).fit(self._stored(X[sample]), seed=rng)

    def frequent_columns(self, X):
        """Columns of ``X`` held by at least ``dense_share`` of its rows (all columns of
        dense rows)."""
        X = as_rows(X)
        if not sp.issparse(X):
            return np.arange(X.shape[1], dtype=np.int64)
        df = np.bincount(X.indices, minlength=X.shape[1])
        return np.flatnonzero(df >= max(1.0, self.dense_share * X.shape[0])).astype(np.int64)

    def _stored(self, X):
        """Rows ``X`` as the index stores them (values of ``dtype``), CSR, as float64."""
        X = sp.csr_array(X) if not sp.issparse(X) else X.copy()
        X.data = X.data.astype(self._type).astype(np.float64)
        X.eliminate_zeros()  # a value below float32's range is a zero, as stored
        return X

    def add(self, X):
        """Append the rows of ``X`` (same columns as at :meth:`fit`); returns self."""
        X = as_rows(X)
        if X.shape[1] != self.n_features_:
            raise ValueError(f"X has {X.shape[1]} features, the index {self.n_features_}")
        start = self._dense.shape[0]
        blocks = stored_blocks(X, self._dense_lookup, len(self.dense_columns_), None, ADD_ROWS) if (
            self._compact) else None
        if blocks is None:  # rows that are not counts (or float32): every row held as values
            self._expand()
            blocks = stored_blocks(X, self._dense_lookup, len(self.dense_columns_), self._type, ADD_ROWS)
        # split a block at a time (at 10^6 rows the whole renumbering at once held 8
        # bytes per stored entry more), then joined once
        dense, scales, pieces = zip(*blocks) if blocks else ((), (), ())
        del blocks
        self._dense = np.ascontiguousarray(np.concatenate((self._dense, *dense)))
        self._scales = np.concatenate((self._scales, *scales))
        del dense
        index_type = np.int32 if self.n_features_ <= np.iinfo(np.int32).max else np.int64
        pieces = [(self._sparse.data, self._sparse.indices, np.diff(self._sparse.indptr)), *pieces]
        indptr = np.concatenate(([0], np.cumsum(np.concatenate([p[2] for p in pieces])))).astype(np.int64)
        rare = sp.csr_array((np.concatenate([p[0] for p in pieces]),
                             np.concatenate([p[1].astype(index_type, copy=False) for p in pieces]), indptr),
                            shape=(self._dense.shape[0], self.n_features_))
        del pieces
        self._sparse = int32_indices(rare)
        self._postings = None  # made again on the next scan (rows added)
        self.n_rows_ = self._dense.shape[0]
        new = np.arange(start, self.n_rows_)
        norms, projected, residuals = [], [], []
        for R in self._take_chunks(new):
            own = pair_inner_products(R, np.arange(R.shape[0]), R)  # <x, x>, as every search sums it
            P, residual = self.projection_.transform(R, own)
            norms.append(own)
            projected.append(P)
            residuals.append(residual)
            self._max_entries = max(self._max_entries, int(np.diff(R.indptr).max(initial=0)))
        self._norms = np.concatenate([self._norms, *norms])
        self._P = np.ascontiguousarray(np.vstack([self._P, *projected])) if projected else self._P
        self._residual = np.concatenate([self._residual, *residuals])
        self._root_norms = np.sqrt(np.maximum(self._norms, 0.0))
        self._code(start)
        return self

    def _code(self, start):
        """int8 codes of the projections of rows ``start:`` (the compiled pass reads
        them: 48 bytes a row at 32 directions instead of 152), each row with the norm
        of its code's error; the scales per direction set by the rows given to fit."""
        if start == 0:
            top = np.abs(self._P).max(axis=0, initial=0.0).astype(np.float64)
            self._scale = np.where(top > 0, top / 127.0, 1.0)
            self._codes = np.zeros((0, self._P.shape[1]), dtype=np.int8)
            self._row_numbers = tuple(np.zeros(0, dtype=np.float32) for _ in range(4))
        P = self._P[start:].astype(np.float64)
        codes = np.clip(np.rint(P / self._scale), -127, 127)
        error = np.sqrt(((P - codes * self._scale) ** 2).sum(axis=1)) * (1 + 1e-9)
        numbers = (_float32(self._norms[start:], down=True), _float32(error), _float32(self._residual[start:]),
                   _float32(self._root_norms[start:]))
        self._codes = np.ascontiguousarray(np.vstack([self._codes, codes.astype(np.int8)]))
        # <x, x> (rounded down), the code's error, the residual, |x| (rounded up)
        self._row_numbers = tuple(np.concatenate([old, new]) for old, new in zip(self._row_numbers, numbers))

    def _expand(self):
        """The rows held so far as float64 values (rows that are not counts came)."""
        if self._compact:
            self._dense, self._sparse, self._scales = as_values(self._dense, self._sparse, self._scales)
            self._compact = False

    def rows(self, start, stop):
        """Rows ``start:stop`` as stored (CSR, the original columns, float64)."""
        return self._take(np.arange(start, min(stop, self.n_rows_)))

    def _take(self, positions):
        """Rows at ``positions`` (CSR, the original columns, sorted; zeros not stored)."""
        return stored_values(self._dense, self._sparse, self._scales, positions, self.dense_columns_)

    def _take_chunks(self, positions):
        """:meth:`_take` of ``positions`` a bounded number of non-zeros at a time."""
        per_row = max(1, len(self.dense_columns_) + (self._sparse.nnz // max(self._sparse.shape[0], 1)))
        step = max(1, _PAIR_ENTRIES // per_row)
        for a in range(0, len(positions), step):
            yield self._take(positions[a : a + step])

    def __getstate__(self):
        # the scan's postings are a second copy of the sparse part: made again when asked
        return {**self.__dict__, "_postings": None}

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "_scales" not in state and "_dense" in state:  # (pickled before the compact form: values)
            self._scales, self._compact = np.ones(self._dense.shape[0]), False

    @property
    def nbytes(self):
        """Bytes the index holds and pickles (rows, projections, norms); the scan's
        postings (:meth:`postings`, made at its first use, not pickled) are not counted."""
        return int(self._dense.nbytes + self._scales.nbytes + self._sparse.data.nbytes + self._sparse.indices.nbytes
                   + self._sparse.indptr.nbytes + self._P.nbytes + self._norms.nbytes + self._residual.nbytes
                   + self._root_norms.nbytes + self._codes.nbytes + 4 * self._row_numbers[0].nbytes)

    def postings(self):
        """The sparse part by column (CSC: each column's rows, increasing), the inverted
        index of the scan; made on first use and kept (4 bytes a sparse entry for the
        row, and the entry as stored: 1 more for counts below 256, 4 as float32, 8 as
        float64), not pickled."""
        if self._postings is None:
            self._postings = int32_indices(sp.csc_array(self._sparse))
        return self._postings

    def _sparse_part(self, Qs):
        """The sparse part of sorted CSR queries ``Qs`` (the entries of the columns not
        stored dense), as arrays ``indptr``, ``indices``, ``data`` (no scipy matrix: a
        query's fixed cost)."""
        keep = self._dense_lookup[Qs.indices] < 0
        counts = np.add.reduceat(np.append(keep, False).astype(np.int64), Qs.indptr[:-1]) if Qs.nnz else np.zeros(
            Qs.shape[0], dtype=np.int64)
        counts[np.diff(Qs.indptr) == 0] = 0  # reduceat repeats the next value on empty rows
        return _Part(np.concatenate(([0], np.cumsum(counts))).astype(np.int64), Qs.indices[keep].astype(np.int64),
                     Qs.data[keep], Qs.shape[0])

    def _scan_first(self, sparse):
        """Whether queries whose sparse part is ``sparse`` are answered by the scan:
        ``method``, or for "auto" whether the scan's multiply-adds per row (the dense
        columns, and the queries' entries' posting lists spread over the rows) are at
        most the bounds' pass's (``n_dims_``)."""
        if self.method != "auto":
            return self.method == "scan"
        indptr = self.postings().indptr
        lengths = indptr[sparse.indices + 1] - indptr[sparse.indices]
        per_row = float(lengths.sum()) / max(sparse.n_rows, 1) / max(self.n_rows_, 1)
        return len(self.dense_columns_) + per_row <= self.projection_.n_dims_

    # -- searching ---------------------------------------------------------------------
    def search(self, Q, k, *, exclude=None, offset=0, lost=None):
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
        lost : numpy.ndarray of float64, shape (n_queries,), optional
            The part of each query's squared norm that its row lacks, added to its
            ``<q, q>`` (:meth:`GraphFeatures.transform_with_missing
            <graphinvariants.GraphFeatures.transform_with_missing>`: labels no fitted graph
            has count in ``K(G, G)`` but in no column), so that the distance is the
            kernel's; non-negative, 0 for a query its row holds whole.

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
        if self._type != np.float64:  # rounded as the rows are stored: a copy of a stored row is at distance 0
            Q = self._stored(Q)
        n_q = Q.shape[0]
        width = min(check_int(k, "k", minimum=1), self.n_rows_)
        if exclude is not None:
            exclude = np.asarray(exclude)
            if exclude.shape != (n_q,) or not np.issubdtype(exclude.dtype, np.integer):
                raise ValueError(f"exclude must hold one integer position per query ({n_q}), got "
                                 f"{exclude.dtype} of shape {exclude.shape}")
        lost = check_lost(lost, n_q)
        indices = np.empty((n_q, width), dtype=np.int64)
        distances = np.empty((n_q, width))
        self.scored_ = np.zeros(n_q, dtype=np.int64)
        self.rescored_ = np.zeros(n_q, dtype=np.int64)
        if n_q == 0 or width == 0:
            return indices, distances
        budget = check_working_memory(self.working_memory) * 2**20
        per_query = 8 * (self.n_rows_ + 2 * (width + FIRST_EXTRA) + self.projection_.n_dims_ + 8)
        batch = int(max(1, min(n_q, budget // per_query)))
        Q = sp.csr_array(Q)
        for start in range(0, n_q, batch):
            stop = min(n_q, start + batch)
            ex = np.full(stop - start, -1, dtype=np.int64)
            if exclude is not None:
                ex = np.asarray(exclude[start:stop], dtype=np.int64) - offset
                ex[(ex < 0) | (ex >= self.n_rows_)] = -1
            part = Q if (start, stop) == (0, n_q) else Q[start:stop]  # (scipy's slicing: 1 ms a query)
            found, values, scored, rescored = self._search_batch(part, width, ex, lost[start:stop])
            indices[start:stop] = found + offset
            distances[start:stop] = values
            self.scored_[start:stop] = scored
            self.rescored_[start:stop] = rescored
        return indices, distances

    def _bounds(self, Qs, own, exclude, first):
        """Every row's lower bound on its squared distance to each query (as the exact
        sum computes it), and the ``first`` rows of smallest bound per query."""
        PQ, residual = self.projection_.transform(Qs, own)
        norm = np.sqrt(np.maximum(own, 0.0))
        m = self._max_entries + int(np.diff(Qs.indptr).max(initial=0)) + 4
        gamma = m * _EPS / (1 - m * _EPS)
        relative = 2.0 * rounding_margin(self.projection_.n_dims_) + 4.0 * gamma  # of |q| |x|
        absolute = 8.0 * _EPS  # of |q|^2 + |x|^2
        b, n = Qs.shape[0], self.n_rows_
        lb = np.empty((b, n))
        module = compiled(LOOPS)
        if module is not None:
            heap_val = np.empty((b, first))
            heap_idx = np.empty((b, first), dtype=np.int64)
            W = np.ascontiguousarray(PQ.astype(np.float64) * self._scale, dtype=np.float32)
            pnorm = np.sqrt((PQ.astype(np.float64) ** 2).sum(axis=1)) * (1 + 1e-9)
            module.scan_codes(self._codes, W, *self._row_numbers, own, pnorm, norm, residual,
                              1.5 * relative, 2.0 * absolute, exclude, lb, heap_val, heap_idx)
            return lb, heap_idx, (PQ, norm, residual, relative, absolute)
        with one_blas_thread():
            for start in range(0, n, self.block_rows):
                stop = min(n, start + self.block_rows)
                scores = (PQ @ self._P[start:stop].T).astype(np.float64)  # float32 sums, within the margin
                both = own[:, None] + self._norms[None, start:stop]
                lb[:, start:stop] = (both - 2.0 * (scores + residual[:, None] * self._residual[None, start:stop])) - (
                    relative * norm[:, None] * self._root_norms[None, start:stop] + absolute * both)
        inside = exclude >= 0
        lb[np.flatnonzero(inside), exclude[inside]] = np.inf
        heap_idx = np.argpartition(lb, first - 1, axis=1)[:, :first] if first < n else np.tile(np.arange(n), (b, 1))
        return lb, heap_idx, None

    def _refined(self, j, own, context, positions):
        """The bounds of ``positions`` from the float32 projections (tighter than the
        codes'), for query ``j``."""
        PQ, norm, residual, relative, absolute = context
        scores = self._P[positions].astype(np.float64) @ PQ[j].astype(np.float64)
        both = own + self._norms[positions]
        return (both - 2.0 * (scores + residual[j] * self._residual[positions])) - (
            relative * norm[j] * self._root_norms[positions] + absolute * both)

    def _metric_slack(self, own):
        """Per query, a bound on how far the ranked square (``metric``) of any row may
        be below its Euclidean square, which the bounds and rough scores bound: 0 for
        ``"euclidean"``; for ``"cosine"``, with ``a = |q|`` and ``b = |x|``, the cosine
        square is ``(e - (a - b)^2) / (a b)`` of the Euclidean square ``e <= (a + b)^2``,
        so it is within ``(a + b)^2 |1 / (a b) - 1| + (a - b)^2 / (a b)`` of ``e``
        (taken over the rows' smallest and largest norm, plus the rounding of the few
        operations; infinite where a norm is 0: every row is then scored)."""
        if getattr(self, "metric", "euclidean") != "cosine":
            return np.zeros(len(own))
        a = np.sqrt(np.maximum(own, 0.0))
        lo, hi = float(self._root_norms.min(initial=np.inf)), float(self._root_norms.max(initial=0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            low = a * lo
            relative = np.maximum(np.abs(1.0 / low - 1.0), np.abs(1.0 / (a * hi) - 1.0))
            slack = (a + hi) ** 2 * relative + np.maximum((a - lo) ** 2, (a - hi) ** 2) / low
        slack = slack * (1 + 1e-6) + 64 * _EPS * ((a + hi) ** 2 + 1.0)
        return np.where(low > 0, slack, np.inf)

    def _search_batch(self, Q, k, exclude, lost):
        Qs = sp.csr_array(Q)
        Qs.sort_indices()
        own = self_products(Qs) + lost  # <q, q> (+ 0: the same bits)
        first = min(self.n_rows_, k + FIRST_EXTRA)
        b = Qs.shape[0]
        sparse = self._sparse_part(Qs)
        if self._scan_first(sparse):
            found, values, rescored = self._search_all(Qs, own, k, exclude, sparse)
            return found, values, np.full(b, self.n_rows_, dtype=np.int64), rescored
        lb, heads, context = self._bounds(Qs, own, exclude, first)
        found = np.empty((b, k), dtype=np.int64)
        values = np.empty((b, k))
        scored = np.empty(b, dtype=np.int64)
        scorer = _Scorer(self, Qs)
        slack = self._metric_slack(own)
        deferred = []
        for j in range(b):
            bounds = lb[j]
            head = np.unique(heads[j][(heads[j] >= 0)])
            head = head[np.isfinite(bounds[head])]
            positions, squares = head, scorer.squares(j, own[j], head)
            if len(head) >= k:
                # then the rows whose bound is at most the k-th square so far, in order
                # of bound, the threshold falling as nearer rows are scored; a row whose
                # bound is above it is farther than k scored rows (by more than sqrt's
                # rounding, so ties by position stay safe)
                threshold = _threshold(squares, k) + slack[j]
                rest = _below(bounds, threshold)
                rest = rest[~np.isin(rest, head, assume_unique=True)]
                refined = bounds[rest] if context is None else self._refined(j, own[j], context, rest)
                if len(positions) + len(rest) > FULL_PASS_SHARE * self.n_rows_:
                    # many rows left: score the FIRST_BUDGET of smallest bound first (the
                    # threshold falls), then the full pass if still more than the share
                    m = min(len(rest), max(FIRST_BUDGET, self.n_rows_ // 256))
                    pick = np.argpartition(refined, m - 1)[:m] if m < len(rest) else np.arange(len(rest))
                    pick = pick[refined[pick] <= threshold]
                    positions = np.concatenate([positions, rest[pick]])
                    squares = np.concatenate([squares, scorer.squares(j, own[j], rest[pick])])
                    threshold = _threshold(squares, k) + slack[j]
                    keep = refined <= threshold
                    keep[pick] = False
                    rest, refined = rest[keep], refined[keep]
                    if len(positions) + len(rest) > FULL_PASS_SHARE * self.n_rows_:  # the bounds rule out few rows
                        deferred.append(j)
                        continue
                order = np.argsort(refined, kind="stable")
                rest, refined = rest[order], refined[order]
                done, step = 0, 64
                while done < len(rest) and refined[done] <= threshold:
                    chunk = rest[done : done + step]
                    chunk = chunk[refined[done : done + step] <= threshold]
                    positions = np.concatenate([positions, chunk])
                    squares = np.concatenate([squares, scorer.squares(j, own[j], chunk)])
                    threshold = _threshold(squares, k) + slack[j]
                    done += step
                    step = min(2 * step, 4096)
            else:  # fewer than k rows with a finite bound: all of them
                rest = np.flatnonzero(np.isfinite(bounds))
                rest = rest[~np.isin(rest, head, assume_unique=True)]
                positions = np.concatenate([head, rest])
                squares = np.concatenate([squares, scorer.squares(j, own[j], rest)])
            distances = np.sqrt(np.maximum(squares, 0.0))
            if len(positions) < k:  # only the row left out is missing: last, at infinity
                positions = np.append(positions, exclude[j])
                distances = np.append(distances, np.inf)
            order = np.lexsort((positions, distances))[:k]
            found[j], values[j] = positions[order], distances[order]
            scored[j] = len(positions)
        rescored = scored.copy()
        if deferred:
            deferred = np.asarray(deferred, dtype=np.int64)
            found[deferred], values[deferred], rescored[deferred] = self._search_all(
                sp.csr_array(Qs[deferred]), own[deferred], k, exclude[deferred])
            scored[deferred] = self.n_rows_
        return found, values, scored, rescored

    def _search_all(self, Qs, own, k, exclude, sparse=None):
        """The scan: every row given a rough inner product with each query (its dense
        columns by BLAS, a block of rows at a time; its sparse part from the query's
        posting lists with numba, or by one sparse product), and every row within a
        rounding-error bound of the ``k``-th scored again exactly (the same answer as
        scoring every row exactly); returns ``(positions, distances, rows rescored)``."""
        # a bound on how far the rough distances may be from the exact ones (the sums'
        # rounding errors in any order, gamma_m |q| |x| each, and the few operations
        # around them)
        m = self.n_features_ + 2
        gamma = m * _EPS / (1 - m * _EPS)
        max_norm = float(self._root_norms.max(initial=0.0))
        scale = (np.sqrt(np.maximum(own, 0.0)) + max_norm) ** 2
        margin = 8 * (gamma + _EPS) * scale + 2.0 * self._metric_slack(own)
        dense_t = np.zeros((len(self.dense_columns_), Qs.shape[0]))  # the queries' dense part, by column
        place = self._dense_lookup[Qs.indices]
        held = place >= 0
        dense_t[place[held], np.repeat(np.arange(Qs.shape[0]), np.diff(Qs.indptr))[held]] = Qs.data[held]
        if self._type == np.float32:
            # float32 rows: their dense part multiplied in float32 (no float64 copy of
            # the block), the query rounded to float32: within 2 gamma_c + 2 u of
            # |q| |x| (c dense columns, float32's u), doubled with the rest
            c = len(self.dense_columns_) + 2
            u32 = np.finfo(np.float32).eps / 2
            margin = margin + 8 * (c * u32 / (1 - c * u32) + 2 * u32) * scale
            dense_t = dense_t.astype(np.float32)
        n_q, n = Qs.shape[0], self.n_rows_
        if sparse is None:
            sparse = self._sparse_part(Qs)
        module = compiled(LOOPS)
        postings = self.postings() if self._sparse.nnz and sparse.nnz else None
        inner = np.empty((n_q, n))  # the rough <q, x> of every row (working_memory bounds the batch)
        if postings is not None and module is not None:
            q_indptr, q_columns = sparse.indptr, sparse.indices
            cursor = postings.indptr[q_columns].astype(np.int64)
        with one_blas_thread():
            for start in range(0, n, self.block_rows):
                stop = min(n, start + self.block_rows)
                if self._compact and module is not None and n_q < FEW_QUERIES:  # (no float64 copy of the block)
                    module.dense_scores(self._dense, self._scales, start, stop, dense_t, inner[:, start:stop])
                else:  # BLAS (compact: the values rebuilt a block at a time)
                    block = self._dense[start:stop]
                    block = rebuild(block, self._scales[start:stop, None]) if self._compact else block
                    inner[:, start:stop] = (block @ dense_t).T
                if postings is not None and module is not None:
                    module.add_postings(q_indptr, q_columns, sparse.data, postings.indptr, postings.indices,
                                        postings.data, self._scales, cursor, start, stop, inner[:, start:stop])
            if postings is not None and module is None:  # one sparse product over the queries' columns' lists
                held = np.unique(sparse.indices)
                lookup = np.full(self.n_features_, -1, dtype=np.int64)
                lookup[held] = np.arange(len(held))
                rows = sp.csr_array((sparse.data, sparse.indices, sparse.indptr), shape=(n_q, self.n_features_))
                lists = sp.csc_array(postings[:, held])
                lists = sp.csc_array((rebuild(lists.data, self._scales[lists.indices]), lists.indices, lists.indptr),
                                     shape=lists.shape)
                inner += (lists @ take_columns(rows, lookup, len(held)).T).T.toarray()
        rough = inner  # (<q, q> + <x, x>) - 2 <q, x>, in place
        rough *= -2.0
        rough += self._norms[None, :]
        rough += own[:, None]
        inside = exclude >= 0
        rough[np.flatnonzero(inside), exclude[inside]] = np.inf
        scorer = _Scorer(self, Qs)
        found = np.empty((n_q, k), dtype=np.int64)
        values = np.empty((n_q, k))
        rescored = np.empty(n_q, dtype=np.int64)
        for j in range(n_q):
            kth = np.partition(rough[j], k - 1)[k - 1]
            # every row that may be among the k nearest once scored exactly (ties at
            # zero included: a negative square is a distance 0)
            positions = _below(rough[j], max(kth, 0.0) + margin[j])
            distances = np.sqrt(np.maximum(scorer.squares(j, own[j], positions), 0.0))
            distances[positions == exclude[j]] = np.inf
            order = np.lexsort((positions, distances))[:k]
            found[j], values[j], rescored[j] = positions[order], distances[order], len(positions)
        return found, values, rescored


class _Part:
    """Rows of CSR arrays without a scipy matrix: ``indptr``, ``indices``, ``data``."""

    def __init__(self, indptr, indices, data, n_rows):
        self.indptr, self.indices, self.data, self.n_rows = indptr, indices, data, n_rows
        self.nnz = len(data)


class _Scorer:
    """Exact squared distances ``(<q, q> + <x, x>) - 2 <q, x>`` of one query's candidate
    rows, every inner product summed as :func:`pair_inner_products` sums it."""

    def __init__(self, index, Qs):
        self.index = index
        self.Qs = Qs
        self.module = compiled(LOOPS)
        if self.module is not None:
            # the query, scattered (one at a time; zero again after each): one per thread
            # and width, allocated once (8 bytes a column: 1 ms a query at 10^6 columns)
            buffers = _SCATTERED.__dict__
            if index.n_features_ not in buffers:
                buffers.clear()
                buffers[index.n_features_] = np.zeros(index.n_features_)
            self.dense = buffers[index.n_features_]

    def squares(self, j, own, positions):
        index = self.index
        positions = np.asarray(positions, dtype=np.int64)
        inner = np.empty(len(positions))
        if len(positions):
            a, b = self.Qs.indptr[j], self.Qs.indptr[j + 1]
            columns = self.Qs.indices[a:b]
            if self.module is not None:
                self.dense[columns] = self.Qs.data[a:b]
                try:
                    self.module.rescore(self.dense, self.dense[index.dense_columns_], index.dense_columns_,
                                        index._dense, index._sparse.indptr, index._sparse.indices,
                                        index._sparse.data, index._scales, positions, inner)
                finally:  # zero again even if interrupted: the buffer serves this thread's next query
                    self.dense[columns] = 0.0
            else:
                q = sp.csr_array(self.Qs[[j]])
                done = 0
                for R in index._take_chunks(positions):
                    inner[done : done + R.shape[0]] = pair_inner_products(q, np.zeros(R.shape[0], np.int64), R)
                    done += R.shape[0]
        if getattr(index, "metric", "euclidean") == "cosine":  # (an index pickled before 0.3.0: Euclidean)
            both = own * index._norms[positions]
            with np.errstate(divide="ignore", invalid="ignore"):  # (a norm 0: the Euclidean square)
                return np.where(both > 0, 2.0 - 2.0 * (inner / np.sqrt(both)),
                                (own + index._norms[positions]) - 2.0 * inner)
        return (own + index._norms[positions]) - 2.0 * inner


def _threshold(squares, k):
    """The ``k``-th smallest square, raised past sqrt's rounding (0 if not positive)."""
    kth = np.partition(squares, k - 1)[k - 1]
    return kth * (1 + 16 * _EPS) if kth > 0 else 0.0


def _below(bounds, threshold):
    """Positions whose bound is at most ``threshold``."""
    module = compiled(LOOPS)
    if module is None:
        return np.flatnonzero(bounds <= threshold)
    out = np.empty(len(bounds), dtype=np.int64)
    return out[: module.below(bounds, threshold, out)].copy()


def _float32(values, *, down=False):
    """``values`` as float32, rounded up (or ``down``): a bound stays a bound."""
    out = values.astype(np.float32)
    off = out < values if not down else out > values
    out[off] = np.nextafter(out[off], np.float32(-np.inf if down else np.inf))
    return out


def check_lost(lost, n_queries):
    """``lost`` (see :meth:`ExactIndex.search`) as float64 of shape ``(n_queries,)``,
    finite and non-negative; None: zeros."""
    if lost is None:
        return np.zeros(n_queries)
    lost = np.asarray(lost, dtype=np.float64)
    if lost.shape != (n_queries,) or not np.isfinite(lost).all() or (lost < 0).any():
        raise ValueError(f"lost must hold one finite non-negative number per query ({n_queries}), got "
                         f"{lost!r}"[:200])
    return lost


def brute_force(X, Q, k, exclude=None, lost=None, metric="euclidean"):
    """Exhaustive k nearest (the reference of the tests): the full matrix of distances
    ``sqrt(max(0, <q, q> + <x, x> - 2 <q, x>))``, every inner product summed one column
    at a time in increasing column order (the order :func:`pair_inner_products`
    documents, written out over dense matrices: zero products change no sum), sorted
    stably (ties by position); ``exclude`` puts a row at distance infinity; ``lost``
    is added to each ``<q, q>``; ``metric="cosine"``: ``sqrt(max(0, 2 - 2 <q, x> /
    sqrt(<q, q> <x, x>)))`` (the Euclidean square where a norm is 0)."""
    Q = np.asarray(Q.toarray() if sp.issparse(Q) else Q, dtype=np.float64)
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    S = np.zeros((Q.shape[0], X.shape[0]))
    qq = np.zeros(Q.shape[0])
    xx = np.zeros(X.shape[0])
    for c in range(X.shape[1]):
        S += Q[:, c][:, None] * X[:, c][None, :]
        qq += Q[:, c] * Q[:, c]
        xx += X[:, c] * X[:, c]
    if lost is not None:
        qq = qq + lost
    D = (qq[:, None] + xx[None, :]) - 2.0 * S
    if metric == "cosine":
        both = qq[:, None] * xx[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            D = np.where(both > 0, 2.0 - 2.0 * (S / np.sqrt(both)), D)
    D = np.sqrt(np.maximum(D, 0.0))
    if exclude is not None:
        D[np.arange(len(exclude)), exclude] = np.inf
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    return order.astype(np.int64), np.take_along_axis(D, order, axis=1)


def candidate_scorer(index, Q):
    """Exact squared distances of chosen rows of ``index`` to each query of ``Q``
    (sorted CSR): ``scorer.squares(j, <q_j, q_j>, positions)``, every inner product
    the bits of :func:`pair_inner_products` (for the approximate index's rerank)."""
    return _Scorer(index, Q)
