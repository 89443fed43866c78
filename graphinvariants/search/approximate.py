"""Approximate top-k by inner product: a graph of neighbours (HNSW) over a dense embedding.

:class:`ApproximateIndex` projects feature rows (sparse or dense, any width: the
learned default's are half a million columns wide) on their first ``n_dims`` singular
directions (:class:`sklearn.decomposition.TruncatedSVD` fitted on at most
``svd_samples`` rows), so that inner products of the projections approximate those of
the rows, and indexes the projections in a hierarchical navigable small-world graph
(HNSW) for inner product. A query fetches ``n_candidates`` rows from the graph and, with
``rerank=True`` (the default), ranks them by their exact distances to the stored rows
(:class:`~graphinvariants.search.exact.ExactIndex`'s, the same bits), so the distances
returned are exact and only a row the graph missed can be missing; with
``rerank=False``, by the distances of the embeddings (no rows kept).

The graph is FAISS's ``IndexHNSWFlat`` (``pip install "graphinvariants[search]"``,
imported on first use). Why FAISS: wheels for Linux, macOS and Windows on x86_64 and
arm64; HNSW for inner product; an index serialised to bytes (so an
:class:`ApproximateIndex` pickles, and ``joblib.dump`` saves it); rows added after the
build; a build on one thread with its fixed level seed is the same graph every time.
hnswlib compiles at install on recent Pythons, PyNNDescent's build goes through numba
(compilation, and a slower build); USearch (wheels, HNSW, save/load) would serve as
well and was not measured. ``benchmarks/bench_search.py`` measures this index: at 10^5
Mutagenicity copies recall@10 0.738 at 2.8 ms per query (docs/search.rst), below the
0.95 wanted.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._blas import one_blas_thread
from .._progress import progress_bar
from .._validation import check_int, check_seed, import_extra
from .exact import pair_inner_products
from .rows import as_rows, take_columns

__all__ = ["ApproximateIndex"]

#: Entries of the SVD sample (rows x columns it holds) up to which the projection is
#: LAPACK's full SVD of the dense sample (32 MiB); above, scikit-learn's randomised SVD.
DENSE_SVD_ENTRIES = 2**22

#: Rows from which ``progress=None`` shows a bar over the graph's build on a terminal.
PROGRESS_ROWS = 100_000

#: Rows added to the graph per step (of the progress bar).
ADD_ROWS = 8192


def _faiss():
    return import_extra("faiss", "search", 'index="approximate" needs FAISS')


class ApproximateIndex:
    """Approximate top-k by inner product: HNSW over a truncated-SVD embedding.

    Parameters
    ----------
    n_dims : int, keyword-only, default=128
        Width of the embedding (at most the rows' width less one; all of it for dense
        rows narrower than this).
    n_candidates : int, keyword-only, default=100
        Rows fetched from the graph per query (at least ``k``), ranked exactly with
        ``rerank``.
    M : int, keyword-only, default=32
        Neighbours per node of the graph.
    ef_construction : int, keyword-only, default=80
        Breadth of the search that inserts a row.
    rerank : bool, keyword-only, default=True
        Keep the rows and rank the candidates by their exact distances (memory: the
        rows); False: rank by the embeddings' distances.
    svd_samples : int, keyword-only, default=20000
        Rows the projection is fitted on.
    seed : None, int or Generator, keyword-only, default=None
        Draws the SVD's sample and its random start.
    progress : bool or None, keyword-only, default=None
        A progress bar over the rows added to the graph: True always, False never,
        None on a terminal (or in a notebook) from :data:`PROGRESS_ROWS` rows.

    Attributes
    ----------
    svd_solver_ : {"full", "randomized"} or None
        How the projection was fitted: LAPACK's full SVD of a sample of at most
        :data:`DENSE_SVD_ENTRIES` entries (exact, milliseconds: MUTAG's 188 rows), or
        scikit-learn's randomised SVD above; None: no projection (narrow dense rows).
        Both on one BLAS thread.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.approximate import ApproximateIndex
    >>> X = np.random.default_rng(0).random((500, 8))
    >>> index = ApproximateIndex(n_dims=8, seed=0).fit(X)
    >>> indices, distances = index.search(X[:2], 3)
    >>> indices[:, 0].tolist(), distances[:, 0].tolist()  # each row is nearest itself
    ([0, 1], [0.0, 0.0])
    >>> bool((distances[:, :-1] <= distances[:, 1:]).all())
    True
    """

    def __init__(self, *, n_dims=128, n_candidates=100, M=32, ef_construction=80, rerank=True, svd_samples=20000,
                 seed=None, progress=None):
        self.n_dims = n_dims
        self.n_candidates = n_candidates
        self.M = M
        self.ef_construction = ef_construction
        self.rerank = rerank
        self.svd_samples = svd_samples
        self.seed = seed
        self.progress = progress

    def fit(self, X):
        """Fit the projection on (a sample of) ``X`` and index its rows."""
        faiss = _faiss()
        n_dims = check_int(self.n_dims, "n_dims", minimum=1)
        check_int(self.n_candidates, "n_candidates", minimum=1)
        check_int(self.svd_samples, "svd_samples", minimum=1)
        X = as_rows(X)
        rng = check_seed(self.seed)
        self.n_features_ = X.shape[1]
        if X.shape[1] <= n_dims or min(X.shape) < 2:
            self.components_ = self.columns_ = None  # dense and narrow: the rows themselves
            self.svd_solver_ = None
            dims = X.shape[1]
        else:
            from sklearn.decomposition import TruncatedSVD

            n = X.shape[0]
            sample = np.sort(rng.choice(n, size=min(n, self.svd_samples), replace=False))
            S = X[sample]
            # the singular vectors are zero on the columns the sample does not hold: fitted
            # on the others (thousands, not the half million of the learned features)
            if sp.issparse(S):
                self.columns_ = np.unique(S.indices).astype(np.int64)
                self._lookup = np.full(X.shape[1], -1, dtype=np.int64)
                self._lookup[self.columns_] = np.arange(len(self.columns_))
                S = take_columns(S, self._lookup, len(self.columns_))
            else:
                self.columns_ = None
            n_components = max(1, min(n_dims, S.shape[1] - 1, len(sample) - 1))
            random_state = int(rng.integers(2**31 - 1))
            # one BLAS thread: the randomised SVD's LU and QR steps on every core, beside
            # FAISS's threads and other jobs, took 5-10 s on 188 rows (issue 38)
            with one_blas_thread():
                if S.shape[0] * S.shape[1] <= DENSE_SVD_ENTRIES:
                    # small: LAPACK's full SVD of the dense sample, exact and fast
                    _, _, vt = scipy.linalg.svd(S.toarray() if sp.issparse(S) else S, full_matrices=False)
                    components = vt[:n_components]
                    self.svd_solver_ = "full"
                else:
                    svd = TruncatedSVD(n_components=n_components, random_state=random_state)
                    components = svd.fit(S).components_
                    self.svd_solver_ = "randomized"
            self.components_ = np.ascontiguousarray(components.T)  # (columns, dims)
            dims = self.components_.shape[1]
        self.n_dims_ = dims
        self._index = faiss.IndexHNSWFlat(dims, check_int(self.M, "M", minimum=2), faiss.METRIC_INNER_PRODUCT)
        self._index.hnsw.efConstruction = check_int(self.ef_construction, "ef_construction", minimum=1)
        self._rows = None
        self._norms = np.zeros(0)  # <x, x> of the rows (rerank) or of their embeddings
        self.n_rows_ = 0
        return self.add(X)

    def _embed(self, X):
        if self.components_ is None:
            E = X.toarray() if sp.issparse(X) else X
        elif self.columns_ is not None:
            E = take_columns(sp.csr_array(X), self._lookup, len(self.columns_)) @ self.components_
        else:
            E = X @ self.components_
        return np.ascontiguousarray(E, dtype=np.float32)

    def add(self, X):
        """Add the rows of ``X`` (positions continue from :attr:`n_rows_`)."""
        X = as_rows(X)
        if X.shape[1] != self.n_features_:
            raise ValueError(f"X has {X.shape[1]} features, the index {self.n_features_}")
        norms = [self._norms]
        n = X.shape[0]
        show = self.progress if self.progress is not None or n >= PROGRESS_ROWS else False
        with progress_bar(show, total=n, desc="approximate index", unit="row") as bar:
            for start in range(0, n, ADD_ROWS):
                E = self._embed(X[start : start + ADD_ROWS])
                self._index.add(E)
                if not self.rerank:
                    norms.append(_embedded_norms(E))
                bar.update(E.shape[0])
        if self.rerank:
            block = sp.csr_array(X)
            block.sort_indices()
            norms.append(pair_inner_products(block, np.arange(block.shape[0]), block))
            self._rows = block if self._rows is None else sp.csr_array(sp.vstack([self._rows, block], format="csr"))
        self._norms = np.concatenate(norms)
        self.n_rows_ += X.shape[0]
        return self

    def search(self, Q, k, *, exclude=None):
        """Approximately the ``k`` rows nearest each row of ``Q``, as
        :meth:`ExactIndex.search <graphinvariants.search.exact.ExactIndex.search>`
        (``exclude``: a position per query left out, -1 for none).

        Returns
        -------
        indices : numpy.ndarray of int64, shape (n_queries, k)
        distances : numpy.ndarray of float64, same shape
            Exact (``rerank``) or of the embeddings; ascending, ties by position.
        """
        Q = as_rows(Q, "Q")
        if Q.shape[1] != self.n_features_:
            raise ValueError(f"queries have {Q.shape[1]} features, the index {self.n_features_}")
        return self._search(self._embed(Q), Q, k, exclude)

    def search_rows(self, start, stop, k):
        """Leave-one-out: the ``k`` rows nearest each stored row ``start:stop``, its own
        position left out (with or without ``rerank``: the queries are the stored
        embeddings, and the stored rows to rerank)."""
        stop = min(stop, self.n_rows_)
        E = self._index.reconstruct_n(start, stop - start) if stop > start else np.zeros((0, self.n_dims_), np.float32)
        Q = self.rows(start, stop) if self.rerank else None
        return self._search(np.ascontiguousarray(E, dtype=np.float32), Q, k, np.arange(start, stop))

    def _search(self, E, Q, k, exclude):
        k = min(k, self.n_rows_ - (0 if exclude is None else 1))
        extra = 0 if exclude is None else 1
        fetch = min(self.n_rows_, max(self.n_candidates, k) + extra)
        self._index.hnsw.efSearch = max(fetch, 16)
        scores, found = self._index.search(E, fetch)
        found = found.astype(np.int64)
        valid = found >= 0
        rows, cols = np.nonzero(valid)
        distances = np.full(found.shape, np.inf)
        if self.rerank:
            Qc = sp.csr_array(Q)
            Qc.sort_indices()
            own = pair_inner_products(Qc, np.arange(Qc.shape[0]), Qc)
            inner = pair_inner_products(Qc, rows, self._rows[found[rows, cols]])
        else:
            own = _embedded_norms(E)
            inner = scores[rows, cols].astype(np.float64)
        distances[rows, cols] = np.sqrt(np.maximum((own[rows] + self._norms[found[rows, cols]]) - 2.0 * inner, 0.0))
        found = np.where(valid, found, np.iinfo(np.int64).max)  # missing: last
        if exclude is not None:
            distances[found == np.asarray(exclude)[:, None]] = np.inf
        order = np.lexsort((found, distances), axis=1)[:, :k]
        return np.take_along_axis(found, order, axis=1), np.take_along_axis(distances, order, axis=1)

    def rows(self, start, stop):
        """Rows ``start:stop`` as given (kept with ``rerank``)."""
        if self._rows is None:
            raise ValueError("the rows are kept only with rerank=True (search_rows searches the stored rows "
                             "without them)")
        return sp.csr_array(self._rows[start:stop])

    @property
    def nbytes(self):
        """Bytes of the graph and the embeddings (and the rows, with ``rerank``)."""
        faiss = _faiss()
        total = int(faiss.serialize_index(self._index).nbytes)
        if self._rows is not None:
            total += int(self._rows.data.nbytes + self._rows.indices.nbytes + self._rows.indptr.nbytes)
        return total

    # pickling (joblib.dump / load, Dask): FAISS's index as bytes
    def __getstate__(self):
        state = self.__dict__.copy()
        if "_index" in state:
            state["_index"] = _faiss().serialize_index(state["_index"])
        return state

    def __setstate__(self, state):
        if "_index" in state:
            state["_index"] = _faiss().deserialize_index(state["_index"])
        self.__dict__.update(state)


def _embedded_norms(E):
    """``<e, e>`` of float32 embeddings, in float64, one row at a time in column order."""
    E = np.asarray(E, dtype=np.float64)
    out = np.zeros(E.shape[0])
    for c in range(E.shape[1]):
        out += E[:, c] * E[:, c]
    return out
