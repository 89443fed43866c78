"""graphinvariants.search: the exact and approximate indexes, their work and recall, and a query's row."""

import itertools
import warnings

import numpy as np

import graphinvariants as gi
from graphinvariants.datasets import as_molecules, perturbed_copies, to_mol
from graphinvariants.embeddings import wl_lookup  # the query path's size switch (QuerySmiles)
from graphinvariants.embeddings.counts import CountMap  # the old row path: a merge with the whole vocabulary
from graphinvariants.kernels import kernel_row_chunks
from graphinvariants.search import ExactIndex, exact
from graphinvariants.search.approximate import ApproximateIndex
from graphinvariants.search.exact import candidate_scorer, pair_inner_products

from .common import one_thread, peer, tu

#: The bound path kept for every query (Bounds), read here so that a move fails ``asv check``.
_SWITCHES = (exact.FULL_PASS_SHARE,)

SETS = ["MUTAG", "Mutagenicity", "NCI1", "NCI109", "AIDS", "BZR", "COX2", "ENZYMES", "DD", "IMDB-BINARY",
        "REDDIT-BINARY"]


def _learned_rows(name, n=None, seed=0):
    """The learned default's feature rows (``GraphFeatures(seed=0)`` fitted on the set)
    of the set, or of ``n`` perturbed copies of it (one bond removed per copy)."""
    data = tu(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        features = gi.GraphFeatures(seed=0).fit(data, data.y)
        return features.transform(data if n is None else perturbed_copies(data, n, seed=seed))


class Exact:
    """Exact search of 100 queries for their 10 nearest among 20,000 perturbed copies of
    MUTAG (many near ties and exact copies; bench_exact_ties): ``ExactIndex`` in one batch
    and one query at a time, against ``Q @ X.T`` and a stable sort of every row."""

    params = ["batch", "single", "straightforward"]
    param_names = ["method"]
    timeout = 600

    def setup(self, method):
        X, Q = _learned_rows("MUTAG", 20_000), _learned_rows("MUTAG", 100, seed=1)
        index = ExactIndex().fit(X)
        self.call = {"batch": lambda: index.search(Q, 10),
                     "single": lambda: [index.search(Q[i: i + 1], 10) for i in range(Q.shape[0])],
                     "straightforward": lambda: np.argsort(-(Q @ X.T).toarray(), axis=1, kind="stable")[:, :10]}[method]

    def time_search(self, method):
        self.call()


class ApproximateBuild:
    """The approximate index's projection on MUTAG's learned rows (bench_approximate_build):
    LAPACK's full SVD on one thread against scikit-learn's randomised ``TruncatedSVD``
    (what it did before, issue 38), and the whole index build."""

    params = ["full SVD, one thread", "randomised TruncatedSVD", "whole index"]
    param_names = ["method"]

    def setup(self, method):
        peer("faiss")
        X = _learned_rows("MUTAG")
        index = ApproximateIndex(seed=0).fit(X)
        S = X[:, index.columns_].toarray() if index.columns_ is not None else X.toarray()
        if method == "whole index":
            self.call = lambda: ApproximateIndex(seed=0).fit(X)
        elif method.startswith("full"):
            import scipy.linalg

            self.call = lambda: scipy.linalg.svd(S, full_matrices=False)
        else:
            from sklearn.decomposition import TruncatedSVD

            self.call = lambda: TruncatedSVD(n_components=index.n_dims_, random_state=0).fit(S)
        self.one = method.startswith("full")

    def time_build(self, method):
        if self.one:
            with one_thread():
                self.call()
        else:
            self.call()


class Bounds:
    """What share of the rows an exact query scores (bench_search_bounds; docs/search.rst):
    every graph of a set as a leave-one-out query for its 10 nearest, the bound path kept
    for every query (``FULL_PASS_SHARE = 1``), one thread. The answers are exact whatever
    the share; the share is the work."""

    params = (SETS, [16, 32, 64])
    param_names = ["data set", "n_dims"]
    timeout = 1800

    def setup(self, name, n_dims):
        self.saved, exact.FULL_PASS_SHARE = exact.FULL_PASS_SHARE, 1.0
        X = _learned_rows(name)
        self.n = X.shape[0]
        self.index = ExactIndex(n_dims=n_dims, seed=0).fit(X)

    def teardown(self, name, n_dims):
        exact.FULL_PASS_SHARE = self.saved

    def search(self):
        with one_thread():
            self.index.search(self.index.rows(0, self.n), 10, exclude=np.arange(self.n))
        return self.index.scored_ / (self.n - 1)

    def time_leave_one_out(self, name, n_dims):
        self.search()

    def track_scored_median(self, name, n_dims):
        return float(np.median(self.search()))

    def track_scored_mean(self, name, n_dims):
        return float(np.mean(self.search()))

    def track_scored_90th_percentile(self, name, n_dims):
        return float(np.quantile(self.search(), 0.9))

    def track_norm_kept(self, name, n_dims):
        P = np.asarray(self.index._P, dtype=np.float64)
        return float(np.mean((P**2).sum(axis=1) / np.maximum(self.index._norms, 1e-300)))


class Recall:
    """Recall@10 of the approximate index against the exact answer on 20,000 copies of
    Mutagenicity, 100 other copies as queries (tie-aware; search_quality.py at 10^5, 10^6)."""

    params = [0.9, 0.95, 0.99]
    param_names = ["recall"]
    timeout = 900

    def setup(self, recall):
        peer("faiss")
        X, self.Q = _learned_rows("Mutagenicity", 20_000), _learned_rows("Mutagenicity", 100, seed=1)
        self.truth = ExactIndex(seed=0).fit(X).search(self.Q, 10)[1]
        self.index = ApproximateIndex(recall=recall, seed=0).fit(X)

    def time_search(self, recall):
        self.index.search(self.Q, 10)

    def track_recall(self, recall):
        import scipy.sparse as sp

        found = self.index.search(self.Q, 10)[0]
        Qs = sp.csr_array(self.Q)
        Qs.sort_indices()
        own = pair_inner_products(Qs, np.arange(Qs.shape[0]), Qs)
        scorer = candidate_scorer(self.index.exact_, Qs)
        return float(np.mean([min(10, int(np.sum(np.sqrt(np.maximum(scorer.squares(i, own[i], found[i]), 0.0))
                                                  <= self.truth[i, 9]))) / 10 for i in range(Qs.shape[0])]))


def _wl_member(search):
    """The ``wl`` member of a fitted ``NearestGraphs("wl")``: its functional and row maker."""
    (member,) = search.feature_map_._exact
    return member


def _pair_engine(functional, fitted):
    """``NearestGraphs("wl").kneighbors`` before it searched rows: the query's kernel row
    against the fitted embeddings by the pair engine, then its ten largest."""
    def search(query):
        ((_, row),) = kernel_row_chunks(functional.as_embeddings(query), fitted, functional=functional, n_rows=1)
        return np.argsort(-row[0], kind="stable")[:10]
    return search


class QueryRow:
    """One query, one call (bench_query_rows 1; docs/search.rst): 40 held-out Mutagenicity
    molecules' ``wl`` rows (atoms and bonds) among 10^3 .. 10^5 fitted graphs (beyond 4,297:
    perturbed copies), by the fitted count map (new) and by merging with the whole fitted
    vocabulary (old); ``kneighbors`` by the index over the rows (new) and by the pair
    engine (old), one thread. A time is that of the 40 queries."""

    params = ([1000, 10_000, 100_000], ["row, count map", "row, merge", "kneighbors, index",
                                        "kneighbors, pair engine"])
    param_names = ["fitted", "path"]
    timeout = 1800

    def setup(self, n, path):
        import copy

        data = as_molecules(tu("Mutagenicity"))
        held = np.sort(np.random.default_rng(0).choice(len(data), size=40, replace=False))
        base = data[np.setdiff1d(np.arange(len(data)), held)]
        self.queries = [data[[int(i)]] for i in held]
        fitted = base[:n] if n <= len(base) else perturbed_copies(base, n, seed=1)
        search = gi.NearestGraphs("wl", n_neighbors=10).fit(fitted)
        member = _wl_member(search)
        embeddings = member.functional.as_embeddings(fitted)
        old = copy.copy(member)
        old.count_map = CountMap(member.functional, embeddings)
        self.call = {"row, count map": search.feature_map_.transform, "row, merge": lambda q: old.features(q)[0],
                     "kneighbors, index": search.kneighbors,
                     "kneighbors, pair engine": _pair_engine(member.functional, embeddings)}[path]

    def time_one_query(self, n, path):
        with one_thread(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for q in self.queries:
                self.call(q)


class QueryDistinct:
    """One query per call against real distinct molecules (bench_query_rows 2; docs/search.rst):
    Mutagenicity's molecules as SMILES (RDKit's, from :func:`~graphinvariants.datasets.to_mol`,
    read back) or NCI1's graphs, 40 held out, ``NearestGraphs("wl")`` fitted on the others: the
    index over the rows (new) against the pair engine (old), one thread; a time is that of the
    40 queries; ``track_same_neighbours``: the queries whose ten neighbours agree."""

    params = (["Mutagenicity as SMILES", "NCI1"], ["kneighbors, index", "kneighbors, pair engine"])
    param_names = ["data", "path"]
    timeout = 900

    def setup(self, name, path):
        rng = np.random.default_rng(0)
        if name == "NCI1":
            data = tu("NCI1")
            held = np.sort(rng.choice(len(data), size=40, replace=False))
            corpus, self.queries = data[np.setdiff1d(np.arange(len(data)), held)], [data[[int(i)]] for i in held]
        else:
            smiles = _smiles(as_molecules(tu("Mutagenicity")))
            held = set(rng.choice(len(smiles), size=40, replace=False).tolist())
            corpus = [s for i, s in enumerate(smiles) if i not in held]
            self.queries = [[s] for i, s in enumerate(smiles) if i in held]
        self.search = gi.NearestGraphs("wl", n_neighbors=10).fit(corpus)
        functional = _wl_member(self.search).functional
        self.old = _pair_engine(functional, functional.as_embeddings(corpus))
        self.call = (lambda q: self.search.kneighbors(q)[1]) if path.endswith("index") else self.old

    def time_one_query(self, name, path):
        with one_thread(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for q in self.queries:
                self.call(q)

    def track_same_neighbours(self, name, path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sum(np.array_equal(self.search.kneighbors(q)[1][0], self.old(q)) for q in self.queries)


class QuerySmiles:
    """One SMILES per call (issue 51 item 5; docs/search.rst): 40 held-out Mutagenicity molecules as
    SMILES, ``NearestGraphs("wl")`` fitted on the others; the query's row
    (``transform_with_missing``, as ``kneighbors`` makes it) by the array path of a few small
    graphs and by the per-degree path (``wl_lookup.SMALL_CELLS = -1``: embed, then the count map's
    columns), the whole ``kneighbors``, and the peer, RDKit's parse + Morgan fingerprint (radius 2,
    2,048 bits) of the same strings, in the same run. One query per sample, the 40 in turn: asv's
    median is the median per query."""

    params = ["row", "row, per-degree path", "kneighbors", "RDKit parse + Morgan fingerprint"]
    param_names = ["path"]
    number, repeat, warmup_time, timeout = 1, (80, 400, 30.0), 0.5, 900

    def setup(self, path):
        Chem = peer("rdkit.Chem")
        smiles = _smiles(as_molecules(tu("Mutagenicity")))
        held = set(np.random.default_rng(0).choice(len(smiles), size=40, replace=False).tolist())
        self.queries, self.turn = [[s] for i, s in enumerate(smiles) if i in held], itertools.cycle(range(40))
        if path.startswith("RDKit"):
            morgan = peer("rdkit.Chem.rdFingerprintGenerator").GetMorganGenerator(radius=2, fpSize=2048)
            self.call = lambda q: morgan.GetFingerprint(Chem.MolFromSmiles(q[0]))
        else:
            search = gi.NearestGraphs("wl", n_neighbors=10).fit([s for i, s in enumerate(smiles) if i not in held])
            self.call = search.kneighbors if path == "kneighbors" else search.feature_map_.transform_with_missing
        self.cells = wl_lookup.SMALL_CELLS
        wl_lookup.SMALL_CELLS = -1 if path.endswith("per-degree path") else self.cells

    def teardown(self, path):
        wl_lookup.SMALL_CELLS = self.cells

    def time_one_smiles(self, path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.call(self.queries[next(self.turn)])


def _smiles(data):
    """RDKit's SMILES of each molecule it writes and reads back."""
    Chem = peer("rdkit.Chem")
    peer("rdkit.RDLogger").DisableLog("rdApp.*")
    out = []
    for G in data:
        try:
            s = Chem.MolToSmiles(to_mol(G))
        except Exception:  # a molecule RDKit will not write
            continue
        if Chem.MolFromSmiles(s) is not None:
            out.append(s)
    return out
