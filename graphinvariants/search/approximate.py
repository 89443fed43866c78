"""Approximate k nearest feature rows: candidates from the count structure (count
rows) or from a graph of neighbours over the rows' bound vectors, ranked by their exact
distances, the recall calibrated at fit.

**The column stage** (``candidates="columns"``, the default for rows with a sparse
part): :class:`~.columns.ColumnCandidates`, the query's rarest columns' posting lists
within a budget of entries; the budget and the number of candidates calibrated together
on rows held out of the lists (:meth:`ApproximateIndex._calibrate_columns`). What
follows describes the graph (``candidates="graph"``), kept for dense rows.

:class:`ApproximateIndex` stores the rows in an :class:`~.exact.ExactIndex` (the rows,
their squared norms and the projection on ``n_dims`` singular directions with each
row's residual norm, :class:`~.projection.Projection`) and indexes the
``(n_dims + 1)``-vectors ``[p, |r|]`` of the rows in a hierarchical navigable
small-world graph (HNSW) for the Euclidean distance. The distance of two such vectors,
``|p_q - p_x|^2 + (|r_q| - |r_x|)^2``, is a lower bound on the squared distance of the
rows (:mod:`~.projection`), which keeps the true neighbours near the query: on 10^5
perturbed Mutagenicity copies (learned default), the 10 nearest rows are among the 200
rows of smallest bound for 99.4% of the queries at ``n_dims=32``, where the 128-d
truncated SVD of the earlier design, searched by inner product, lost a fifth of them.

A query fetches ``n_candidates`` rows from the graph (the search breadth ``efSearch``
the same) and ranks them by their exact distances, summed as
:func:`~.exact.pair_inner_products` sums them (the same bits as
:meth:`ExactIndex.search <graphinvariants.search.exact.ExactIndex.search>`), so every
distance returned is exact and only a row the graph or the bound missed can be missing.

**Recall.** The number of candidates is calibrated at :meth:`~ApproximateIndex.fit`:
``calibration_queries`` stored rows drawn with the seed are held out of the graph until
the calibration is done and searched as queries from outside, as the users' are,
against the exact answer among the rows the graph holds (then they are added; a set
of fewer than :data:`HELD_OUT_RATIO` rows per query: searched leave-one-out), for
``k``, ``2k``,
``4k``, ... candidates until the mean recall@``k``, less two standard errors of it
(:data:`CONFIDENCE`), reaches ``recall``, then for counts bisecting the last step (to
within an eighth), and the smallest count that reaches it is kept
(:attr:`~ApproximateIndex.n_candidates_`, with its measured recall,
:attr:`~ApproximateIndex.calibrated_recall_`). Recall counts ties: a returned row
counts if its exact distance is at most the ``k``-th exact distance. Its speed cost:
the table under :class:`ApproximateIndex`'s ``recall``.

The graph is FAISS's ``IndexHNSWFlat`` (``pip install "graphinvariants[search]"``,
imported on first use). Why FAISS: wheels for Linux, macOS and Windows on x86_64 and
arm64; an index serialised to bytes (so an :class:`ApproximateIndex` pickles, and
``joblib.dump`` saves it); rows added after the build. The graph is built on one thread,
so the same rows (and seed) make the same graph and the same answers every run. hnswlib compiles at install on
recent Pythons; PyNNDescent's build goes through numba (compilation, a slower build);
USearch (wheels, HNSW, save/load) would serve as well and was not measured.
"""

import logging
import numbers
import time

import numpy as np
import scipy.sparse as sp

from .._utils.progress import progress_bar
from .._utils.optional import import_extra
from .._utils.validation import check_choice, check_int, check_seed
from .columns import ColumnCandidates
from .exact import ExactIndex, candidate_scorer, check_lost, self_products
from .rows import as_rows

__all__ = ["ApproximateIndex", "faster"]

_LOG = logging.getLogger(__name__)

#: Rows from which ``progress=None`` shows a bar over the graph's build on a terminal.
PROGRESS_ROWS = 100_000

#: Rows added to the graph per step (of the progress bar).
ADD_ROWS = 8192

#: Smallest search breadth (``efSearch``) of the graph, whatever the candidates.
MIN_EF_SEARCH = 16

#: ``k`` of the calibration (recall@10).
CALIBRATION_K = 10

#: Rows per calibration query from which :meth:`ApproximateIndex.fit` holds the queries
#: out of the graph (fewer: searched leave-one-out, the graph whole).
HELD_OUT_RATIO = 10

#: Standard errors between the calibration's mean recall and ``recall``: the count kept
#: reaches ``recall`` at the mean less this many standard errors (one-sided, ~97.5%).
CONFIDENCE = 2.0

#: Candidate stages: ``"columns"`` (the posting lists of a query's rarest sparse columns,
#: :class:`~.columns.ColumnCandidates`), ``"graph"`` (FAISS's HNSW graph over the rows'
#: projections), ``"auto"`` (the columns where the rows have a sparse part and their
#: calibrated cost is at most :data:`WIN_SHARE` of the exact scan's, else the graph).
CANDIDATES = ("auto", "columns", "graph")

#: ``candidates="auto"`` keeps the column stage where its modelled work per query (entries
#: read, plus :data:`RESCORE_COST` per entry of the candidates rescored) is at most this
#: share of the exact scan's (every entry of the query's lists and the dense columns of
#: every row), both taken on the calibration's queries, or where the rows are fewer than
#: :data:`HELD_OUT_RATIO` per calibration query; else the graph.
WIN_SHARE = 0.5

#: Budgets of posting entries read per query that the calibration of the column stage
#: tries, as shares of the rows (the exact scan reads every entry of the query's lists:
#: about 11 per row on MOSES molecules).
BUDGET_SHARES = (1 / 16, 1 / 4, 1.0)

#: Cost of rescoring one stored entry of a candidate against reading one posting entry,
#: in the column stage's cost model (``entries read + RESCORE_COST * candidates * entries
#: per row``, the cheapest budget and count that reach ``recall`` kept).
RESCORE_COST = 2.0

#: Stored rows asked one at a time, by each index in turn, by :meth:`ApproximateIndex.speed`.
SPEED_QUERIES = 40


def _faiss():
    return import_extra("faiss", needs='index="approximate" needs FAISS')


def _check_recall(recall):
    if isinstance(recall, bool) or not isinstance(recall, numbers.Real):
        raise TypeError(f"recall must be a number in (0, 1], the mean recall@10 wanted, got {recall!r}")
    recall = float(recall)
    if not 0.0 < recall <= 1.0:  # NaN fails too
        raise ValueError(f"recall must be in (0, 1] (the mean recall@10 wanted), got {recall}")
    return recall


class ApproximateIndex:
    """Approximate k nearest rows: candidates from the rows' sparse columns (or an HNSW
    graph over projections), ranked by their exact distances, the number calibrated.

    Parameters
    ----------
    recall : float, keyword-only, default=0.95
        Mean recall@10 wanted, in (0, 1]: :meth:`fit` picks the smallest number of
        candidates whose recall on held-out queries (stored rows kept out of the graph
        until calibrated; below :data:`HELD_OUT_RATIO` rows per query, leave-one-out),
        less two standard errors, reaches it (the first of ``10, 20, 40, ...`` that
        does, bisected down to within an eighth). Its speed cost, measured on 10^5
        perturbed Mutagenicity copies (learned default, ``n_dims=32``, float32 rows,
        one thread; 100 held-out copies one at a time, median;
        the asv benchmark ``search.Copies``, one run, with the calibration of the previous
        release, leave-one-out on rows the graph held; the exact index: 4.7 ms per
        query, FPSim2 2.0 ms):

        ======  ==========  ===================  ===============  ============
        recall  candidates  leave-one-out (fit)  held-out recall  ms per query
        ======  ==========  ===================  ===============  ============
        0.90    55          0.919                0.926            0.89
        0.95    110         0.963                0.971            0.97
        0.99    440         0.996                0.998            3.18
        ======  ==========  ===================  ===============  ============

        At 10^6 copies ``recall=0.95`` took 45 candidates (0.65 ms per query) and
        gave a held-out recall of 0.931, ``recall=0.99`` 220 (1.26 ms, held-out recall 0.974; FPSim2 16-21 ms): the
        calibration measures queries drawn like the stored rows, and the held-out
        copies (of the set's first 100 molecules) were harder.
    n_candidates : int or None, keyword-only, default=None
        Candidates per query (at least ``k``): the column stage's rows of largest
        partial score, or the rows fetched from the graph (its search breadth
        ``efSearch`` the same); given, no calibration (``recall`` is unused).
    candidates : {"auto", "columns", "graph"}, keyword-only, default="auto"
        The candidate stage (:data:`CANDIDATES`): ``"columns"``, the rows of largest
        inner product with the query over its rarest sparse columns' posting lists
        (:class:`~graphinvariants.search.columns.ColumnCandidates`; no FAISS needed);
        ``"graph"``, FAISS's HNSW graph over the projections; ``"auto"``, the columns
        where the sparse part holds at least half of the rows' squared norm (count
        rows, :data:`SPARSE_SHARE`), else the graph.
    budget : int or None, keyword-only, default=None
        The column stage's posting entries read per query (whole lists, the rarest
        first, past the budget only until ``n_candidates`` rows are touched); None:
        calibrated with the count (given ``n_candidates``: the number of rows).
    metric : {"euclidean", "cosine"}, keyword-only, default="euclidean"
        The distance ranked, :class:`~graphinvariants.search.exact.ExactIndex`'s
        ``metric`` (so that the distances are the exact index's, bit for bit).
    n_dims : int, keyword-only, default=32
        Singular directions of the projection (the graph's vectors are ``n_dims + 1``
        wide); passed to :class:`~graphinvariants.search.exact.ExactIndex`.
    dtype : {"float64", "float32"}, keyword-only, default="float64"
        How the rows are stored (:class:`~graphinvariants.search.exact.ExactIndex`).
    M : int, keyword-only, default=32
        Neighbours per node of the graph.
    ef_construction : int, keyword-only, default=80
        Breadth of the search that inserts a row.
    rerank : bool, keyword-only, default=True
        Rank the candidates by their exact distances; False: by the estimate
        ``sqrt(|p_q - p_x|^2 + |r_q|^2 + |r_x|^2)`` (the distance were the residuals
        orthogonal; it ranked better than the bound on the graph's vectors: recall@5 0.80
        against 0.64 on 200 synthetic labelled graphs, ``n_dims=32``), no row read;
        its recall is the projection's, not calibrated.
    svd_samples : int, keyword-only, default=8192
        Rows the projection is fitted on.
    calibration_queries : int, keyword-only, default=500
        Stored rows held out of the graph at :meth:`fit` and searched from outside
        to calibrate ``n_candidates`` (:meth:`calibrate`: leave-one-out).
    seed : None, int or Generator, keyword-only, default=None
        Draws the projection's sample and the calibration queries.
    progress : bool or None, keyword-only, default=None
        A progress bar over the rows added to the graph: True always, False never,
        None on a terminal (or in a notebook) from :data:`PROGRESS_ROWS` rows.

    Attributes
    ----------
    n_candidates_ : int
        Candidates fetched per query (calibrated, or ``n_candidates``).
    calibrated_recall_ : float or None
        Mean recall@10 measured at ``n_candidates_`` on the calibration queries (at
        least ``recall`` plus two standard errors, unless every row was a candidate and
        the graph still missed some);
        None if ``n_candidates`` was given.
    calibration_ : list of tuple
        ``(candidates, recall)`` of each count tried, in order; the column stage's are
        ``(candidates, recall, budget)``.
    candidates_ : str
        The candidate stage used: ``"columns"`` or ``"graph"``.
    budget_ : int or None
        The column stage's budget of posting entries per query (None for the graph).
    exact_ : ExactIndex
        The rows, their norms and projections.
    n_rows_ : int
        Rows indexed.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.approximate import ApproximateIndex
    >>> X = np.random.default_rng(0).random((500, 8))
    >>> index = ApproximateIndex(n_dims=4, seed=0).fit(X)
    >>> index.calibrated_recall_ >= 0.95
    True
    >>> indices, distances = index.search(X[:2], 3)
    >>> indices[:, 0].tolist(), distances[:, 0].tolist()  # each row is nearest itself
    ([0, 1], [0.0, 0.0])
    >>> bool((distances[:, :-1] <= distances[:, 1:]).all())
    True
    """

    #: What NearestGraphs reports as its ``chosen_index_``.
    kind = "approximate"

    def __init__(self, *, recall=0.95, n_candidates=None, candidates="auto", budget=None, metric="euclidean",
                 n_dims=32, dtype="float64", M=32, ef_construction=80, rerank=True, svd_samples=8192,
                 calibration_queries=500, seed=None, progress=None):
        self.recall = recall
        self.n_candidates = n_candidates
        self.candidates = candidates
        self.budget = budget
        self.metric = metric
        self.n_dims = n_dims
        self.dtype = dtype
        self.M = M
        self.ef_construction = ef_construction
        self.rerank = rerank
        self.svd_samples = svd_samples
        self.calibration_queries = calibration_queries
        self.seed = seed
        self.progress = progress

    # -- building ----------------------------------------------------------------------
    def fit(self, X):
        """Store the rows of ``X``, index their vectors in the graph and calibrate the
        number of candidates; returns self."""
        recall = _check_recall(self.recall)
        if self.n_candidates is not None:
            check_int(self.n_candidates, "n_candidates", minimum=1)
        if self.budget is not None:
            check_int(self.budget, "budget", minimum=1)
        check_choice(self.candidates, "candidates", CANDIDATES)
        n_queries = check_int(self.calibration_queries, "calibration_queries", minimum=1)
        M = check_int(self.M, "M", minimum=2)
        ef_construction = check_int(self.ef_construction, "ef_construction", minimum=1)
        rng = check_seed(self.seed)
        X = as_rows(X)
        self.exact_ = ExactIndex(n_dims=self.n_dims, dtype=self.dtype, svd_samples=self.svd_samples,
                                 metric=self.metric, seed=int(rng.integers(2**63 - 1)))
        self.exact_.fit(X)  # checks n_dims, dtype, svd_samples, metric
        self.n_features_ = self.exact_.n_features_
        self._stage = None
        n = self.exact_.n_rows_
        held = _sample(rng, n, n_queries)
        if self.candidates == "columns" or (self.candidates == "auto" and self.exact_._sparse.nnz):
            self.candidates_, self.n_rows_ = "columns", n
            self.budget_ = None if self.budget is None else int(self.budget)
            if self.n_candidates is not None:
                self.n_candidates_, self.calibrated_recall_, self.calibration_ = int(self.n_candidates), None, []
                self.budget_ = n if self.budget_ is None else self.budget_
                return self
            self._calibrate_columns(recall, held, held_out=n >= HELD_OUT_RATIO * len(held))
            # "auto": the graph only where the columns scarcely beat the exact scan and the
            # graph's calibration holds its queries out (on fewer rows its leave-one-out
            # recall overstates a new query's)
            if (self.candidates == "columns" or self._column_costs[0] <= WIN_SHARE * self._column_costs[1]
                    or n < HELD_OUT_RATIO * n_queries):
                return self
            try:  # "auto": the columns scarcely beat the exact scan; the graph, where FAISS is
                faiss = _faiss()
            except ImportError:
                return self
        faiss = _faiss()
        self.candidates_, self.budget_ = "graph", None
        self._index = faiss.IndexHNSWFlat(self.exact_.projection_.n_dims_ + 1, M, faiss.METRIC_L2)
        self._index.hnsw.efConstruction = ef_construction
        self.n_rows_ = 0
        self._order = np.zeros(0, dtype=np.int64)
        n = self.exact_.n_rows_
        if self.n_candidates is not None:
            self._add_vectors(np.arange(n, dtype=np.int64))
            self.n_candidates_ = int(self.n_candidates)
            self.calibrated_recall_ = None
            self.calibration_ = []
            return self
        # the calibration's queries held out of the graph until it is done: queries from
        # outside, as the users' are (a stored row, even left out, is a node of the graph
        # whose neighbours link to it)
        if n < HELD_OUT_RATIO * n_queries:  # a small set: its rows searched leave-one-out, the graph whole
            self._add_vectors(np.arange(n, dtype=np.int64))
            self._calibrate(recall, held, held_out=False)
            return self
        inside = np.ones(n, dtype=bool)
        inside[held] = False
        self._add_vectors(np.flatnonzero(inside))
        self._calibrate(recall, held, held_out=True)
        self._add_vectors(held)
        return self

    def add(self, X):
        """Append the rows of ``X`` (positions continue from :attr:`n_rows_`; the
        number of candidates stays as calibrated); returns self."""
        X = as_rows(X)
        if X.shape[1] != self.n_features_:
            raise ValueError(f"X has {X.shape[1]} features, the index {self.n_features_}")
        start = self.exact_.n_rows_
        self.exact_.add(X)
        if self.candidates_ == "columns":  # the lists grow: the stage is made again on the next search
            self.n_rows_, self._stage = self.exact_.n_rows_, None
            return self
        self._add_vectors(np.arange(start, self.exact_.n_rows_, dtype=np.int64))
        return self

    def _add_vectors(self, positions):
        """Add the graph's vectors of the exact index's rows at ``positions`` (the
        graph's numbers continue; :attr:`_order` maps them to positions)."""
        faiss = _faiss()
        n = len(positions)
        show = self.progress if self.progress is not None or n >= PROGRESS_ROWS else False
        # one thread: FAISS inserts rows on several threads in an order that varies from
        # run to run; on one, with its fixed level seed, the same rows make the same graph
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            with progress_bar(show, total=n, desc="approximate index", unit="row") as bar:
                for start in range(0, n, ADD_ROWS):
                    block = positions[start : start + ADD_ROWS]
                    self._index.add(_vectors(self.exact_._P[block], self.exact_._residual[block]))
                    bar.update(len(block))
        finally:
            faiss.omp_set_num_threads(threads)
        self._order = np.concatenate([self._order, positions])
        self.n_rows_ += n

    def calibrate(self):
        """Calibrate :attr:`n_candidates_` anew on the rows indexed now (after
        :meth:`add`, or for another ``recall``), with ``calibration_queries`` rows
        drawn with ``seed`` (an int seed: the positions :meth:`fit` drew), searched
        leave-one-out (the graph holds them now); returns self."""
        recall = _check_recall(self.recall)
        n_queries = check_int(self.calibration_queries, "calibration_queries", minimum=1)
        rng = check_seed(self.seed)
        rng.integers(2**63 - 1)  # the projection's draw at fit: an int seed draws the rows fit drew
        if self.candidates_ == "columns":
            self._calibrate_columns(recall, _sample(rng, self.n_rows_, n_queries), held_out=False)
        else:
            self._calibrate(recall, _sample(rng, self.n_rows_, n_queries), held_out=False)
        return self

    def _columns(self):
        """The column stage over every stored row (made on first use)."""
        if self._stage is None:
            self._stage = ColumnCandidates(self.exact_)
        return self._stage

    def _calibrate_columns(self, recall, sample, *, held_out):
        """The column stage's budget and count: for each budget of :data:`BUDGET_SHARES`
        (times the rows), the smallest count whose mean recall@k on the stored rows at
        ``sample`` (``held_out``: left out of the lists and of every answer, as rows the
        structure does not hold; else each left out of its own answer) less two
        standard errors reaches ``recall`` (``k, 2k, 4k, ...``, then bisected to within
        an eighth); of those, the cheapest by :data:`RESCORE_COST`'s model is kept.
        None reaching it below every row: every row is scored (the exact index)."""
        exact, n = self.exact_, self.n_rows_
        outside = len(sample) if held_out else 1
        k = min(CALIBRATION_K, n - outside)
        self.calibration_, self._stage = [], None
        if k < 1:  # nothing to find
            self.n_candidates_, self.calibrated_recall_, self.budget_ = n, 1.0, n
            self._column_costs = (0.0, 0.0)
            return
        Q = exact._take(sample)
        own = self_products(Q)
        skip = np.zeros(n, dtype=np.bool_)
        skip[sample] = held_out
        kth = _kth(exact, Q, sample, skip, k)
        stage = ColumnCandidates(exact, skip if held_out else None)
        prepared = stage.prepare(Q)
        scorer = candidate_scorer(exact, Q)
        per_row = (exact._sparse.nnz + exact._dense.size) / max(n, 1)
        lists = np.diff(stage.postings.indptr)
        scan = float(np.mean([lists[c].sum() for c, _, _ in prepared])) + n * len(exact.dense_columns_)

        def measure(budget, count):
            each, read = np.ones(len(sample)), np.zeros(len(sample))
            for j in range(len(sample)):
                positions, read[j] = stage.top(prepared, j, budget=budget, count=count, exclude=sample[j])
                if len(positions) >= k:  # (fewer: searched exactly)
                    distances = np.sqrt(np.maximum(scorer.squares(j, own[j], positions), 0.0))
                    each[j] = min(int(np.sum(distances <= kth[j])), k) / k
            spread = float(np.std(each, ddof=1)) / np.sqrt(len(each)) if len(each) > 1 else 0.0
            self.calibration_.append((count, float(np.mean(each)), budget))
            return float(np.mean(each)) - CONFIDENCE * spread, float(np.mean(read))

        best = None  # (cost, count, budget, recall)
        limit = n - outside  # a count that covers every row the queries may find
        for budget in sorted({max(1, int(share * n)) for share in BUDGET_SHARES}):
            if self.budget is not None:
                budget = int(self.budget)
            low, high = 0, k
            while True:
                high = min(high, limit)
                value, read = measure(budget, high)
                if value >= recall or high >= limit:
                    break
                low, high = high, 2 * high
            if value >= recall and high < limit:
                while low and high - low > max(1, high // 8):
                    middle = (low + high) // 2
                    trial, trial_read = measure(budget, middle)
                    if trial >= recall:
                        high, value, read = middle, trial, trial_read
                    else:
                        low = middle
                cost = read + RESCORE_COST * high * per_row
                if best is None or cost < best[0]:
                    best = (cost, high, budget, next(r for c, r, b in reversed(self.calibration_)
                                                     if (c, b) == (high, budget)))
            if self.budget is not None or (best is not None and read > best[0]):
                break  # a larger budget reads more than the best costs in all
        if best is None:  # every row a candidate: the exact index answers (recall 1)
            self.n_candidates_, self.budget_, self.calibrated_recall_ = n, n, 1.0
            self._column_costs = (np.inf, scan)
            return
        self._column_costs = (best[0], scan)
        _, self.n_candidates_, self.budget_, self.calibrated_recall_ = best

    def speed(self, *, n_queries=SPEED_QUERIES):
        """Median seconds of one query per call, ``{"approximate": ..., "exact": ...}``:
        ``n_queries`` stored rows (the first of :attr:`n_rows_` spread evenly), each
        left out of its own answer, asked for its 10 nearest of this index and of
        :attr:`exact_` in turn (a machine's load falls on both alike)."""
        n = self.n_rows_
        positions = np.unique(np.linspace(0, n - 1, min(n, check_int(n_queries, "n_queries", minimum=1))).astype(
            np.int64))
        k = min(CALIBRATION_K, n - 1)
        times = {"approximate": [], "exact": []}
        if k < 1:
            return {name: 0.0 for name in times}
        for p in positions:
            Q, ex = self.exact_._take(p[None]), p[None]
            for name, index in (("exact", self.exact_), ("approximate", self)):
                start = time.perf_counter()
                index.search(Q, k, exclude=ex)
                times[name].append(time.perf_counter() - start)
        return {name: float(np.median(values)) for name, values in times.items()}

    def _calibrate(self, recall, sample, *, held_out):
        """The smallest candidate count whose mean recall@k on the stored rows at
        ``sample`` reaches ``recall`` (``held_out``: rows the graph does not hold yet,
        their answer among the rows it holds; else leave-one-out): the first of ``k,
        2k, 4k, ...`` that does, then halved to within an eighth of it between the rung
        that failed and it."""
        n = self.n_rows_  # in the graph
        k = min(CALIBRATION_K, n if held_out else n - 1)
        self.calibration_ = []
        if k < 1 or len(sample) == 0:  # one row: nothing to find
            self.n_candidates_, self.calibrated_recall_ = max(1, n), 1.0
            return
        Q = self.exact_._take(sample)
        if held_out:  # the exact answer among the rows of the graph: the others left out after
            found, every = self.exact_.search(Q, k + len(sample))
            kth = np.array([d[~np.isin(f, sample)][k - 1] for f, d in zip(found, every)])
            exclude = None
        else:
            _, truth = self.exact_.search(Q, k, exclude=sample)
            kth, exclude = truth[:, k - 1], sample
        prepared = self._prepare(Q)

        def measure(count):
            # the mean recall less two standard errors of it: a count is kept when the
            # recall of queries like these is at least ``recall`` with ~97.5% confidence
            _, distances = self._search(*prepared, k, exclude, count, rerank=True)
            each = np.minimum((distances <= kth[:, None]).sum(axis=1), k) / k
            spread = float(np.std(each, ddof=1)) / np.sqrt(len(each)) if len(each) > 1 else 0.0
            value = float(np.mean(each)) - CONFIDENCE * spread
            self.calibration_.append((count, float(np.mean(each))))
            return value

        low, high = 0, k  # low: a count that fails (0: none tried)
        while True:
            high = min(high, n)
            measured = measure(high)
            if measured >= recall or high >= n:
                break
            low, high = high, 2 * high
        while measured >= recall and low and high - low > max(1, high // 8):  # bisect between the failing rung and it
            middle = (low + high) // 2
            value = measure(middle)
            if value >= recall:
                high, measured = middle, value
            else:
                low = middle
        self.calibrated_recall_ = next(value for count, value in reversed(self.calibration_) if count == high)
        # every row but the query (left out) measured: every row for a query from outside
        self.n_candidates_ = n + len(sample) if high >= n - (0 if held_out else 1) else high

    # -- searching ---------------------------------------------------------------------
    def search(self, Q, k, *, exclude=None, lost=None):
        """Approximately the ``k`` rows nearest each row of ``Q``, as
        :meth:`ExactIndex.search <graphinvariants.search.exact.ExactIndex.search>`.

        Parameters
        ----------
        Q, k, exclude, lost
            As :meth:`ExactIndex.search <graphinvariants.search.exact.ExactIndex.search>`
            takes them (``exclude``: a position per query left out, -1 for none; with
            ``lost`` the distances are the exact index's).

        Returns
        -------
        indices : numpy.ndarray of int64, shape (n_queries, k)
        distances : numpy.ndarray of float64, same shape
            Exact (``rerank``; the bits of :class:`~.exact.ExactIndex`) or the
            estimate of ``rerank=False``; ascending, ties by position.
        """
        Q = as_rows(Q, "Q")
        if Q.shape[1] != self.n_features_:
            raise ValueError(f"queries have {Q.shape[1]} features, the index {self.n_features_}")
        check_int(k, "k", minimum=1)
        if exclude is not None:
            exclude = np.asarray(exclude, dtype=np.int64)
            if exclude.shape != (Q.shape[0],):
                raise ValueError(f"exclude must hold one position per query ({Q.shape[0]}), got shape {exclude.shape}")
        return self._search(*self._prepare(Q, check_lost(lost, Q.shape[0])), k, exclude, self.n_candidates_,
                            rerank=self.rerank)

    def search_rows(self, start, stop, k):
        """Leave-one-out: the ``k`` rows nearest each stored row ``start:stop``, its own
        position left out."""
        stop = min(stop, self.n_rows_)
        positions = np.arange(start, max(start, stop), dtype=np.int64)
        return self._search(*self._prepare(self.exact_._take(positions)), k, positions, self.n_candidates_,
                            rerank=self.rerank)

    def _prepare(self, Q, lost=None):
        """Sorted CSR queries (rounded as the rows are stored, as the exact index rounds
        them), their ``<q, q>`` (the exact sums, plus ``lost``) and graph vectors (None
        for the column stage)."""
        if self.exact_._type != np.float64:  # a copy of a stored row at distance exactly 0
            Q = self.exact_._stored(Q)
        Qs = sp.csr_array(Q)
        Qs.sort_indices()
        lost = np.zeros(Qs.shape[0]) if lost is None else lost
        own = self_products(Qs)
        if self.candidates_ == "columns":
            return Qs, own + lost, None, lost
        # the graph's vectors of the rows as they are: the part lost is orthogonal to every
        # stored row (labels none of them has), it moves every distance alike
        P, residual = self.exact_.projection_.transform(Qs, own)
        return Qs, own + lost, _vectors(P, residual), lost  # (+ 0: the same bits)

    def _search(self, Qs, own, E, lost, k, exclude, count, *, rerank):
        n_q = Qs.shape[0]
        k = min(k, self.n_rows_ - (0 if exclude is None else 1))
        indices = np.empty((n_q, max(k, 0)), dtype=np.int64)
        distances = np.empty((n_q, max(k, 0)))
        if n_q == 0 or k <= 0:
            return indices, distances
        fetch = min(self.n_rows_, max(count, k) + (0 if exclude is None else 1))
        if fetch >= self.n_rows_:
            # no more rows than candidates: every row is one (the graph may miss some
            # even then); reranked, the exact index's answer
            if rerank or self.candidates_ == "columns":
                return self.exact_.search(Qs, k, exclude=exclude, lost=lost)
            X = _vectors(self.exact_._P, self.exact_._residual).astype(np.float64)
            squares = np.maximum(((E.astype(np.float64) ** 2).sum(axis=1)[:, None] + (X**2).sum(axis=1)[None, :])
                                 - 2.0 * (E.astype(np.float64) @ X.T) + lost[:, None], 0.0)
            found = np.tile(np.arange(X.shape[0]), (n_q, 1))
        elif self.candidates_ == "columns":
            return self._search_columns(Qs, own, lost, k, exclude, max(count, k), indices, distances)
        else:
            self._index.hnsw.efSearch = max(fetch, MIN_EF_SEARCH)
            squares, found = self._index.search(E, fetch)
            found = np.where(found >= 0, self._order[np.maximum(found, 0)], -1)  # the graph's numbers: positions
        found = found.astype(np.int64)
        scorer = candidate_scorer(self.exact_, Qs) if rerank else None
        for j in range(n_q):
            keep = found[j] >= 0
            if exclude is not None:
                keep &= found[j] != exclude[j]
            positions = found[j][keep]
            if len(positions) < k:  # the graph returned too few: this query exactly
                ex = None if exclude is None else exclude[j : j + 1]
                a, b = self.exact_.search(Qs[[j]], k, exclude=ex, lost=lost[j : j + 1])
                indices[j], distances[j] = a[0, :k], b[0, :k]
                continue
            if rerank:
                values = np.sqrt(np.maximum(scorer.squares(j, own[j], positions), 0.0))
            else:  # the estimate: the bound's square plus 2 |r_q| |r_x|
                values = np.sqrt(np.maximum(squares[j][keep].astype(np.float64)
                                            + 2.0 * E[j, -1].astype(np.float64) * self.exact_._residual[positions]
                                            + lost[j], 0.0))
            order = np.lexsort((positions, values))[:k]
            indices[j], distances[j] = positions[order], values[order]
        return indices, distances

    def _search_columns(self, Qs, own, lost, k, exclude, count, indices, distances):
        """Each query's candidates from the column stage, ranked by their exact
        distances (the exact index's scorer: its bits), ties by position; a query with
        fewer than ``k`` candidates (it shares few columns with the rows) exactly."""
        stage = self._columns()
        prepared = stage.prepare(Qs)
        scorer = candidate_scorer(self.exact_, Qs)
        for j in range(Qs.shape[0]):
            ex = -1 if exclude is None else int(exclude[j])
            positions, _ = stage.top(prepared, j, budget=self.budget_, count=count, exclude=ex)
            if len(positions) < k:
                a, b = self.exact_.search(Qs[[j]], k, exclude=None if exclude is None else exclude[j : j + 1],
                                          lost=lost[j : j + 1])
                indices[j], distances[j] = a[0, :k], b[0, :k]
                continue
            values = np.sqrt(np.maximum(scorer.squares(j, own[j], positions), 0.0))
            order = np.lexsort((positions, values))[:k]
            indices[j], distances[j] = positions[order], values[order]
        return indices, distances

    def rows(self, start, stop):
        """Rows ``start:stop`` as stored (CSR, the original columns, float64)."""
        return self.exact_.rows(start, stop)

    @property
    def nbytes(self):
        """Bytes of the rows (the exact index, its posting lists included once made)
        and of the graph (vectors and links)."""
        if self.candidates_ == "columns":
            return int(self.exact_.nbytes)
        hnsw = self._index.hnsw
        graph = (self._index.ntotal * self._index.d * 4 + hnsw.neighbors.size() * 4 + hnsw.offsets.size() * 8
                 + hnsw.levels.size() * 4)
        return int(self.exact_.nbytes + graph)

    # pickling (joblib.dump / load, Dask): FAISS's index as bytes
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_stage", None)  # made again from the exact index's lists
        if "_index" in state:
            state["_index"] = _faiss().serialize_index(state["_index"])
        return state

    def __setstate__(self, state):
        if "_index" in state:
            state["_index"] = _faiss().deserialize_index(state["_index"])
        state.setdefault("candidates_", "graph")  # (pickled before the column stage)
        self.__dict__.update(state)
        self._stage = None


def faster(index):
    """The faster of a fitted :class:`ApproximateIndex` and its exact index, one query
    per call (:meth:`ApproximateIndex.speed`), logged (``logging.INFO``) with the times.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphinvariants.search.approximate import ApproximateIndex, faster
    >>> X = sp.random(300, 400, density=0.03, random_state=0, format="csr")
    >>> type(faster(ApproximateIndex(candidates="columns", seed=0).fit(X))).__name__ in (
    ...     "ApproximateIndex", "ExactIndex")
    True
    """
    times = index.speed()
    approximate = times["approximate"] < times["exact"]
    _LOG.info("index='auto': the %s index, %.3g ms a query against %.3g ms (%d rows, %d candidates)",
              "approximate" if approximate else "exact", 1e3 * min(times.values()), 1e3 * max(times.values()),
              index.n_rows_, index.n_candidates_)
    return index if approximate else index.exact_


def _kth(exact, Q, sample, skip, k):
    """Each query's ``k``-th exact distance among the rows that ``skip`` keeps, its own
    row (``sample``) left out."""
    kth = np.empty(len(sample))
    todo, width = np.arange(len(sample)), k + 16
    while len(todo):
        width = min(width, exact.n_rows_)
        found, every = exact.search(Q[todo], width, exclude=sample[todo])
        left = []
        for t, (f, d) in enumerate(zip(found, every)):
            d = d[~skip[f] & (f != sample[todo[t]])]
            if len(d) >= k:
                kth[todo[t]] = d[k - 1]
            elif width >= exact.n_rows_:
                kth[todo[t]] = np.inf  # fewer rows than k: any row counts
            else:
                left.append(todo[t])
        todo, width = np.asarray(left, dtype=np.int64), 4 * width
    return kth


def _sample(rng, n, size):
    """``size`` (at most ``n``) positions of ``n`` drawn by ``rng``, sorted."""
    return np.sort(rng.choice(n, size=min(n, size), replace=False)).astype(np.int64)


def _vectors(P, residual):
    """The graph's float32 vectors ``[p, |r|]`` (C order)."""
    out = np.empty((P.shape[0], P.shape[1] + 1), dtype=np.float32)
    out[:, :-1] = P
    out[:, -1] = residual
    return out
