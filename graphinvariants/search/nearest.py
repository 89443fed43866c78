"""Nearest graphs by any kernel: one estimator, in process, over a Zarr store or on Dask.

:class:`NearestGraphs` is :class:`sklearn.neighbors.NearestNeighbors` for graphs: the
engine is a parameter, not a module. ``fit`` chooses one index (``index_``) and
``kneighbors`` encodes the queries and asks it; every index answers
``search(Q, k, exclude=, lost=)`` and ``rows(start, stop)``:

* feature rows in process: :class:`~graphinvariants.search.exact.ExactIndex`
  (``index="exact"``) or :class:`~graphinvariants.search.approximate.ApproximateIndex`
  (``index="approximate"``, the ``[search]`` extra); the rows are those of the learned
  default, of a :class:`~graphinvariants.GraphFeatures`, or of a kernel name whose
  kernel has exact rows (a count member; :mod:`~graphinvariants.search._maps`);
* a kernel name without rows (``"power"``, products and sums): the pair engine
  (:mod:`~graphinvariants.search._kernel_index`), exact, in bounded memory;
* ``client`` or ``store``: the rows in parts on Dask workers or in a Zarr store
  (:mod:`~graphinvariants.search._parts`), merged into the in-process answer bit for bit.

Distances are kernel-induced, ascending, equal distances ordered by position: for a
kernel name ``sqrt(max(0, 2 - 2 K))``; for a feature map's rows ``sqrt(max(0, <q, q> +
lost_q + <x, x> + lost_x - 2 <q, x>))``, every inner product one fixed sum per pair
(:func:`~graphinvariants.search.exact.pair_inner_products`), whatever the blocks,
batches or parts. ``lost`` is what a row lacks of ``K(G, G)`` for labels unseen at fit
(:meth:`~graphinvariants.GraphFeatures.transform_with_missing`): a query's is added to
``<q, q>``, a stored graph's held in a column of its own, so a kernel name's distance
is ``sqrt(2 - 2 K)`` over rows too, to about ``1e-16``. Rows of norm one (a kernel name's, or a
GraphFeatures' whose members are all exact) are ranked by their directions,
``sqrt(max(0, 2 - 2 <q, x> / sqrt((<q, q> + lost_q) <x, x>)))``, so that equal kernel
values give equal distances, by position (``K = 0``: exactly ``sqrt(2)``). Identical
graphs are at distance 0 when their labels were seen at fit (with ``dtype="float32"``
too: the queries are rounded as the rows are); two graphs that share labels no fitted
graph has are further apart than the kernel says (``sqrt(2 m)`` for a copy, ``m`` its
share of unseen labels). A store's rows are taken as written (no column): fit the map
on the graphs it holds.
"""

import copy

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import metadata_routing
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_int, check_n_jobs, check_seed, check_working_memory, refuses_random_state
from ..features import GraphFeatures
from ._ids import check_ids, join_ids
from ._inputs import collection, graphs_per_block, is_sized, streamed
from ._kernel_index import KernelIndex
from ._maps import fitted_map, rows_metric, search_map
from ._mixins import NeighborsGraphMixin
from ._parts import DaskParts, is_bag, open_store
from .exact import ExactIndex
from .rows import split_missing, widened, with_missing

__all__ = ["NearestGraphs"]

INDEXES = ("exact", "approximate", "auto")

#: Fitted graphs asked at a time as queries of the leave-one-out search (``kneighbors()``).
LEAVE_ONE_OUT_ROWS = 4096


class NearestGraphs(NeighborsGraphMixin, BaseEstimator):
    """Nearest graphs by a graph kernel, as :class:`sklearn.neighbors.NearestNeighbors`.

    Parameters
    ----------
    kernel : None, GraphKernel, feature map or str, default=None
        None: the learned default, mapped by :class:`~graphinvariants.GraphFeatures`
        (``fit`` needs ``y``). A :class:`~graphinvariants.GraphKernel`: learned (mapped
        as None is) or fixed (searched as its kernel name). A feature map
        (:class:`~graphinvariants.GraphFeatures`,
        of any kernel; the deprecated ``NystroemGraphKernel``, ``MeanMapFeatures`` and
        ``LearnedFeatures`` are spellings of it): used as it is if fitted, else cloned
        and fitted on the graphs of ``fit``. A kernel name for
        :func:`~graphinvariants.kernel_matrix` (``"wl"``, ``"power*histogram"``): a
        count member is searched by the index over its exact
        :class:`~graphinvariants.GraphFeatures` rows; any other kernel exactly by the
        pair engine (no feature rows), or with ``index="approximate"`` over its
        :class:`~graphinvariants.GraphFeatures` rows (300 landmarks at most for the
        Nystroem part). Its members read the labels the fitted graphs
        carry (``node_label="label"``, ``edge_label="label"`` where they have them).
    n_neighbors : int, keyword-only, default=5
        Neighbours returned by :meth:`kneighbors` and :meth:`kneighbors_graph` when
        they are not told (5, as scikit-learn's ``NearestNeighbors``).
    radius : float, keyword-only, default=1.0
        Distance within which :meth:`radius_neighbors` and
        :meth:`radius_neighbors_graph` look when they are not told (distances lie in
        ``[0, 2]`` for rows of norm 1).
    index : {"exact", "approximate", "auto"}, keyword-only, default="exact"
        Exact top-k (:class:`~graphinvariants.search.exact.ExactIndex`), or candidates
        ranked by their exact distances, their number calibrated at fit for a recall@10
        (:class:`~graphinvariants.search.approximate.ApproximateIndex`,
        ``index_params={"recall": 0.95}``); "auto": both timed at fit, one query per
        call, the faster kept (:attr:`chosen_index_`, logged; exact with ``store``,
        ``client`` or a kernel without rows).
    store : None, str or path-like, keyword-only, default=None
        A Zarr group: ``fit(graphs)`` writes the features there
        (:func:`~graphinvariants.distributed.features_to_zarr`, needs a fitted or
        learned-default :class:`~graphinvariants.GraphFeatures`); ``fit()`` with no
        graphs searches what is stored (``kernel`` the map that wrote it). Searched a
        part at a time; exact only.
    client : None or dask.distributed.Client, keyword-only, default=None
        Build an index per part on the workers, query every part, merge.
    n_partitions : int or None, keyword-only, default=None
        Parts on ``client`` (None: one per worker).
    working_memory : float or None, keyword-only, default=None
        MiB for one batch of scores (None: scikit-learn's setting).
    seed : None, int or numpy.random.Generator, keyword-only, default=None
        Seeds the feature map made here (its ``seed``) and the indexes' samples (the
        exact answer does not depend on it).
    n_jobs : int or None, keyword-only, default=None
        Threads of the pair engine.
    index_params : dict or None, keyword-only, default=None
        Options of the index: :class:`~graphinvariants.search.exact.ExactIndex`'s
        (``n_dims``, ``dtype``, ``dense_share``, ``block_rows``, ``svd_samples``,
        ``method``) or
        :class:`~graphinvariants.search.approximate.ApproximateIndex`'s (``recall``,
        ``n_candidates``, ``n_dims``, ``dtype``, ``M``, ``ef_construction``,
        ``rerank``, ``svd_samples``, ``calibration_queries``).
    overwrite : bool, keyword-only, default=False
        ``fit(graphs)`` with ``store``: replace the features the store holds (False:
        such a store is refused; ``fit()`` with no graphs searches it as it is).

    Attributes
    ----------
    feature_map_ : transformer or None
        The fitted feature map (None when a kernel name is searched by the pair engine).
    index_ : object
        The one index every query goes to, chosen at ``fit``:
        :class:`~graphinvariants.search.exact.ExactIndex` or
        :class:`~graphinvariants.search.approximate.ApproximateIndex` (feature rows in
        process), a kernel index (a kernel name without rows: the pair engine), or the
        parts on ``client`` or in ``store``. Each answers ``search(Q, k, exclude=,
        lost=)`` and ``rows(start, stop)``.
    n_samples_fit_ : int
        Graphs searched.
    chosen_index_ : str
        ``"exact"`` or ``"approximate"``: what ``index_`` is (``index="auto"``'s choice).
    ids_ : numpy.ndarray or None
        Identifiers given to ``fit`` (and ``partial_fit``): the array given, or an
        object array of the identifiers as given (each keeps its type).

    Notes
    -----
    A fitted search pickles (``joblib.dump``). Loading a pickle runs code the file
    holds: load only files you made or trust. The feature rows can be kept without
    pickle in a Zarr store (``store=``), which records the digest of the map that wrote
    it (docs/search.rst, "Saving a search").

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.cycle_graph(n) for n in range(6, 16)] + [nx.star_graph(n) for n in range(5, 15)]
    >>> search = gi.NearestGraphs(kernel="wl", n_neighbors=3).fit(graphs, ids=[f"g{i}" for i in range(20)])
    >>> distances, indices = search.kneighbors([nx.star_graph(30)])
    >>> bool((indices >= 10).all())  # stars are nearest a star
    True
    >>> search.ids_[indices[0]].tolist()
    ['g19', 'g18', 'g17']
    >>> copies = gi.NearestGraphs(gi.GraphFeatures("wl"), n_neighbors=2).fit(graphs + graphs[10:11])
    >>> copies.kneighbors(graphs[10:11])  # a star and its copy, at distance exactly 0
    (array([[0., 0.]]), array([[10, 20]]))
    """

    # the graphs are the data, not metadata for scikit-learn's routing (it takes any first
    # argument not named X for metadata)
    __metadata_request__fit = {"graphs": metadata_routing.UNUSED, "ids": metadata_routing.UNUSED}
    __metadata_request__partial_fit = {"graphs": metadata_routing.UNUSED, "ids": metadata_routing.UNUSED}

    @refuses_random_state
    def __init__(self, kernel=None, *, n_neighbors=5, radius=1.0, index="exact", store=None, client=None,
                 n_partitions=None, working_memory=None, seed=None, n_jobs=None, index_params=None, overwrite=False):
        self.kernel = kernel
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.index = index
        self.store = store
        self.client = client
        self.n_partitions = n_partitions
        self.working_memory = working_memory
        self.seed = seed
        self.n_jobs = n_jobs
        self.index_params = index_params
        self.overwrite = overwrite

    # -- parameters ----------------------------------------------------------------------
    def _check_params(self):
        check_int(self.n_neighbors, "n_neighbors", minimum=1)
        if self.index not in INDEXES:
            raise ValueError(f"index must be one of {INDEXES}, got {self.index!r}")
        if self.n_partitions is not None:
            check_int(self.n_partitions, "n_partitions", minimum=1)
        if self.working_memory is not None:
            check_working_memory(self.working_memory)
        check_n_jobs(self.n_jobs)
        if self.index_params is not None and not isinstance(self.index_params, dict):
            raise TypeError(f"index_params must be None or a dict, got {self.index_params!r}")
        if self.store is not None and self.index == "approximate":
            raise ValueError("store= is searched exactly; use index='exact' (or build an approximate index in "
                             "process from the stored features)")
        if not isinstance(self.overwrite, (bool, np.bool_)):
            raise TypeError(f"overwrite must be True or False, got {self.overwrite!r}")
        if self.client is not None and not hasattr(self.client, "submit"):
            raise TypeError(f"client must be a dask.distributed.Client, got {self.client!r}")

    def _random_state(self):
        if isinstance(self.seed, np.random.Generator):
            return int(self.seed.integers(2**31 - 1))
        check_seed(self.seed)
        return self.seed

    # -- fitting ------------------------------------------------------------------------
    def fit(self, graphs=None, y=None, *, ids=None):
        """Index ``graphs`` for search.

        Parameters
        ----------
        graphs : collection of graphs, SMILES strings, dask.bag.Bag or None
            The graphs searched (a list of SMILES strings: molecules, through the
            ``[chem]`` extra). A Bag only with ``store``; None only with ``store``
            (search what is stored).
        y : array_like or None
            Labels, for a feature map that learns from them (the learned default).
        ids : array_like or None, keyword-only
            An identifier per graph, returned by :meth:`kneighbors` with
            ``return_ids=True`` (and kept in :attr:`ids_`).

        Returns
        -------
        self
        """
        self._check_params()
        sized = hasattr(graphs, "__len__") and not isinstance(graphs, str) and not is_bag(graphs)
        n_graphs = len(graphs) if sized else None  # (a Bag's len would compute it)
        if ids is not None:
            ids = check_ids(ids, n_graphs)  # before any work: a refused call changes nothing
        # fitted on a shallow copy whose state replaces this one's only once all is done,
        # so that a refused or failed fit leaves the fitted search as it was
        staged = copy.copy(self)
        staged._fit(graphs, y, n_graphs)
        if ids is not None and len(ids) != staged.n_samples_fit_:
            raise ValueError(f"ids must have one identifier per graph, {staged.n_samples_fit_} of them, got {len(ids)}")
        staged.ids_ = ids
        self.__dict__.update(staged.__dict__)
        return self

    def _fit(self, graphs, y, n_graphs):
        bag = is_bag(graphs)
        graphs, head = streamed(graphs)
        found = search_map(self.kernel, index="exact" if self.index == "auto" else self.index,
                           random_state=self._random_state, n_jobs=self.n_jobs, n_graphs=n_graphs,
                           graphs=() if graphs is None or bag else head)
        feature_map = found.feature_map
        # rows of a GraphFeatures searched in process: what a query's row lacks of K(G, G)
        # (labels unseen when the map was fitted) is added to <q, q> (lost=), what a
        # stored graph's row lacks is held in a column of its own (empty for the graphs
        # the map was fitted on), so that the distances are the kernel's
        self._missing_column = False
        if graphs is None or bag:
            if self.store is None:
                raise ValueError("fit needs graphs (None or a dask.bag.Bag only with store=)")
            self.index_ = self._fit_store(feature_map, graphs)
            self.n_samples_fit_ = int(self.index_.n_rows_)
            return
        # a kernel name's rows stream over an iterable (GraphFeatures.fit_transform): a
        # block of graphs at a time, only the rows kept
        # (with store=, an unfitted GraphFeatures too: fitted by its fit_transform as its rows are written)
        streams = feature_map is not None and self.client is None and not is_sized(graphs) and (
            (found.named and self.store is None) or (self.store is not None and isinstance(feature_map, GraphFeatures)
                                                     and not hasattr(feature_map, "n_features_out_")))
        if not streams:
            graphs = collection(graphs, "graphs")
            if len(graphs) == 0:
                raise ValueError("fit needs at least one graph")
        if self.store is not None or self.client is not None:
            if feature_map is None:
                raise ValueError(f"kernel {found.name!r} has no feature rows to store or distribute; give a feature "
                                 f"map (GraphFeatures({found.name!r}), Nystroem for such a kernel) as kernel")
            if found.named:
                raise ValueError(f"a kernel name is searched in process; to store or distribute the rows of "
                                 f"{found.name!r}, give GraphFeatures({found.name!r}) as kernel")
        if feature_map is None:  # a kernel without rows: the pair engine
            self.feature_map_ = None
            self.index_ = KernelIndex(found.functional, n_jobs=self.n_jobs, working_memory=self.working_memory)
            self.index_.fit(graphs)
        elif found.named:  # the map made here: the graphs embedded once (fit_transform)
            self.feature_map_ = feature_map
            # a column for what a graph added by partial_fit lacks of K(G, G) (a fitted
            # graph lacks nothing; a query's part is passed to the index as ``lost``)
            self._missing_column = True
            if streams and self.working_memory is not None:
                feature_map.set_params(block_size=graphs_per_block(self.working_memory))
            self.index_ = self._index_rows(widened(feature_map.fit_transform(graphs), 1))
        else:
            feature_map = self.feature_map_ = fitted_map(feature_map, graphs, y,
                                                         fit=self.store is None or self.client is not None)
            if self.store is not None:
                self.index_ = self._fit_store(feature_map, graphs, y)
            elif hasattr(feature_map, "transform_with_missing"):  # (a map fitted on other graphs: rows may lack)
                X, missing = feature_map.transform_with_missing(graphs, what="graphs")
                self._missing_column = True
                self.index_ = self._index_rows(with_missing(widened(X, 1), missing, X.shape[1]))
            else:
                self.index_ = self._index_rows(feature_map.transform(graphs))
        self.n_samples_fit_ = int(self.index_.n_rows_)
        self.chosen_index_ = getattr(self.index_, "kind", "exact")
        if feature_map is not None and self.client is None and self.store is None:
            self._warm_up()

    def _warm_up(self):
        """The first stored row searched once as a query (int32 offsets, as scipy makes a query's row), so that
        ``fit`` pays numba's import, the compiled loops' loading (1 s once per process) and the posting lists, not
        the first query (docs/search.rst, "The first query"); ``index_.scored_`` stays unset."""
        Q, lost = self.index_.rows(0, 1), None
        if self._missing_column:
            Q, lost = split_missing(Q, Q.shape[1] - 1)
        if hasattr(Q, "indptr"):
            Q.indices, Q.indptr = Q.indices.astype(np.int32), Q.indptr.astype(np.int32)
        self.index_.search(Q, 1, lost=lost)
        for name in ("scored_", "rescored_"):
            self.index_.__dict__.pop(name, None)

    def _index_rows(self, X):
        """Feature rows ``X`` indexed in process, or in parts on ``client``; rows of norm
        one (a normalised kernel's, :func:`rows_metric`) ranked by the distance of their
        directions, so that equal kernel values give equal distances, ties by position."""
        if self.client is None and self.index == "auto":  # the faster of the two, timed here
            from .approximate import faster

            return faster(self._new_index(auto=True).fit(X))
        if self.client is None:
            return self._new_index().fit(X)
        n_parts = self.n_partitions or max(1, len(self.client.scheduler_info().get("workers", {})))
        return DaskParts(self.client, n_parts).fit(X, self._new_index)

    def _new_index(self, auto=False):
        metric = rows_metric(self.feature_map_)
        if self.index == "exact" or (self.index == "auto" and not auto):  # (auto: exact parts on Dask or Zarr)
            return ExactIndex(working_memory=self.working_memory, **{
                "seed": self._random_state(), "metric": metric, **(self.index_params or {})})
        from .approximate import ApproximateIndex

        return ApproximateIndex(**{"seed": self._random_state(), "metric": metric, **(self.index_params or {})})

    def _fit_store(self, feature_map, graphs, y=None):
        """The rows of ``graphs`` written to ``store`` (None: the rows it holds, written
        by ``feature_map``; an unfitted map is fitted as its rows are made), searched a
        part at a time."""
        self.feature_map_ = feature_map  # (its metric is the parts')
        return open_store(self.store, feature_map, graphs, self._new_index, client=self.client,
                          n_partitions=self.n_partitions, working_memory=self.working_memory,
                          index_params=self.index_params, overwrite=self.overwrite, y=y)

    # -- searching ----------------------------------------------------------------------
    def kneighbors(self, graphs=None, n_neighbors=None, return_distance=True, *, return_ids=False):
        """The fitted graphs nearest each graph.

        Parameters
        ----------
        graphs : collection of graphs, SMILES strings or None
            The queries. None: every fitted graph, each one left out of its own answer
            (other positions holding an identical graph are found).
        n_neighbors : int or None
            Neighbours per query (None: the constructor's), at most the number of fitted
            graphs (less one when ``graphs`` is None).
        return_distance : bool, default=True
            Return the distances first, as scikit-learn does.
        return_ids : bool, keyword-only, default=False
            Also return the identifiers (:attr:`ids_`) of the neighbours, last.

        Returns
        -------
        distances : numpy.ndarray of float64, shape (n_queries, n_neighbors)
            ``sqrt(max(0, 2 - 2 K))``, ascending (only with ``return_distance``).
        indices : numpy.ndarray of int64, shape (n_queries, n_neighbors)
            Positions among the fitted graphs; equal distances by position.
        ids : numpy.ndarray, shape (n_queries, n_neighbors)
            Only with ``return_ids`` (an error if ``fit`` was given no ``ids``).
        """
        check_is_fitted(self, "n_samples_fit_")
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        k = check_int(k, "n_neighbors", minimum=1)
        if return_ids and self.ids_ is None:
            raise ValueError("return_ids=True needs ids given to fit")
        n = self.n_samples_fit_
        if graphs is None:
            if k > n - 1:
                raise ValueError(f"Expected n_neighbors < n_samples_fit, but n_neighbors = {k}, n_samples_fit = {n}, "
                                 f"n_samples = {n} (with graphs=None each graph is left out of its own answer)")
        elif k > n:
            raise ValueError(f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, n_samples_fit = {n}")
        indices, distances = self._search(graphs, k)
        out = ([distances] if return_distance else []) + [indices] + ([self.ids_[indices]] if return_ids else [])
        return tuple(out) if len(out) > 1 else out[0]

    def _search(self, graphs, k):
        """kneighbors: the queries encoded as the index takes them (a kernel's embeddings,
        or the map's rows with what each lacks of ``K(G, G)``), then searched."""
        if graphs is None:
            return self._leave_one_out(k)
        graphs, lost = collection(graphs, "graphs"), None  # the door: the collection checked once, here
        if self.feature_map_ is None:
            Q = self.index_.functional.embed_collection(graphs, what="graphs")
        elif hasattr(self.feature_map_, "transform_with_missing"):
            Q, lost = self.feature_map_.transform_with_missing(graphs, what="graphs")
        else:
            Q = self.feature_map_.transform(graphs)
        if self._missing_column:  # the column of stored graphs' missing parts, empty in a query
            Q = widened(Q, 1)
        return self.index_.search(Q, k, exclude=None, lost=lost)

    def _leave_one_out(self, k):
        """Every fitted row as a query, its own position left out, a block at a time."""
        n = self.n_samples_fit_
        indices = np.empty((n, k), dtype=np.int64)
        values = np.empty((n, k))
        for start in range(0, n, LEAVE_ONE_OUT_ROWS):
            stop = min(n, start + LEAVE_ONE_OUT_ROWS)
            if hasattr(self.index_, "search_rows") and not self._missing_column:
                # the approximate index: its stored embeddings are the queries (with the
                # column of stored graphs' missing parts, the rows are asked as queries below)
                indices[start:stop], values[start:stop] = self.index_.search_rows(start, stop, k)
                continue
            Q, lost = self.index_.rows(start, stop), None
            if self._missing_column:  # a stored graph's missing part, asked as a query's: as lost
                Q, lost = split_missing(Q, Q.shape[1] - 1)
            indices[start:stop], values[start:stop] = self.index_.search(Q, k, exclude=np.arange(start, stop),
                                                                         lost=lost)
        return indices, values

    # -- growing ------------------------------------------------------------------------
    def partial_fit(self, graphs, *, ids=None):
        """Add ``graphs`` to the fitted index (positions continue from
        :attr:`n_samples_fit_`); the feature map stays as fitted. In process only.

        A graph added is a row of the fitted map (for a kernel name, its
        :class:`~graphinvariants.GraphFeatures` rows): its labels that no graph given
        to ``fit`` has add nothing to its inner products, not even with a copy of it,
        so a later query that shares such labels with it gets a kernel value without
        their terms (a kernel name's distance is then ``sqrt(2 - 2 K)`` of that value;
        against the graphs given to ``fit`` every value stays exact). Fit again over
        all the graphs to take their labels in.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> search = gi.NearestGraphs("wl", n_neighbors=2).fit([nx.path_graph(n) for n in range(3, 8)])
        >>> search.partial_fit([nx.path_graph(4)]).n_samples_fit_
        6
        >>> search.kneighbors([nx.path_graph(4)])  # the fitted copy and the added one, by position
        (array([[0., 0.]]), array([[1, 5]]))
        """
        check_is_fitted(self, "n_samples_fit_")
        if isinstance(self.index_, KernelIndex):
            name = self.kernel if isinstance(self.kernel, str) else self.kernel.kernel
            raise ValueError(f"kernel {name!r} has no feature rows to add graphs to (it is searched by the pair "
                             f"engine): give GraphFeatures({name!r}) as kernel, whose rows approximate it (Nystroem), "
                             "or index='approximate'")
        if not hasattr(self.index_, "add"):
            raise ValueError("partial_fit adds graphs to an in-process index: fit without store= and client=, then "
                             "add graphs")
        if (ids is None) != (self.ids_ is None):
            raise ValueError("give ids to partial_fit exactly when fit was given them")
        graphs = collection(graphs, "graphs")
        if ids is not None:  # checked before the index grows: a refused call changes nothing
            ids = join_ids(self.ids_, check_ids(ids, len(graphs)))
        if len(graphs) and self._missing_column:
            X, missing = self.feature_map_.transform_with_missing(graphs, what="graphs")
            X = widened(X, 1)
            self.index_.add(with_missing(X, missing, X.shape[1] - 1))
        elif len(graphs):
            self.index_.add(self.feature_map_.transform(graphs))
        if ids is not None:
            self.ids_ = ids
        self.n_samples_fit_ = int(self.index_.n_rows_)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        return tags
