"""Nearest graphs by any kernel: one estimator, in process, over a Zarr store or on Dask.

:class:`NearestGraphs` is :class:`sklearn.neighbors.NearestNeighbors` for graphs: the
engine is a parameter, not a module.

* ``kernel``: the learned default (None or a :class:`~graphinvariants.GraphKernel` of
  ``kernel="learned"``: mapped by :class:`~graphinvariants.GraphFeatures`, which
  needs ``y`` at ``fit``, or give it fitted), any fitted or unfitted
  :class:`~graphinvariants.GraphFeatures` (of any kernel), or a kernel name (``"wl"``,
  ``"power*histogram"``, a :class:`~graphinvariants.GraphKernel` of a fixed kernel).
  A name whose kernel is a count member (``wl``, ``wloa``, ``wl_closed``, the walk
  histograms, ``rooted_subgraph``, ``shortest_path``, ...) has exact rows: it is
  searched by the index over its :class:`~graphinvariants.GraphFeatures` rows, a new
  graph made into its row by the fitted count map in time set by that graph, not by
  the collection. Any other name (``"power"``, products and sums) is searched exactly
  by the pair engine (blockwise, in bounded memory), or, with ``index="approximate"``,
  over its Nystroem rows. A name's members read the node and edge labels
  (``"label"``) wherever the fitted graphs carry them (SMILES strings: atoms and
  bonds), unless its parameters say otherwise.
* ``index="exact"`` searches feature rows by :class:`~graphinvariants.search.exact.ExactIndex`
  (exact top-k, scoring only the rows a projection bound cannot rule out, bounded
  memory); ``index="approximate"`` by a graph of neighbours
  (:class:`~graphinvariants.search.approximate.ApproximateIndex`, the ``[search]``
  extra).
* ``client`` (a ``dask.distributed.Client``): the rows are split into ``n_partitions``
  parts, an index is built on a worker per part, every part answers every query and the
  answers are merged; exact answers equal the in-process ones bit for bit.
* ``store`` (a Zarr path): the features are written by
  :func:`~graphinvariants.distributed.features_to_zarr` (or read, if ``fit`` is
  given no graphs), and searched a part at a time (on ``client`` if given).

Distances are kernel-induced, ascending, equal distances ordered by position: for a
kernel name ``sqrt(max(0, 2 - 2 K))`` (``K(G, G) = 1``); for the rows of a feature map
``sqrt(max(0, <q, q> + lost_q + <x, x> + lost_x - 2 <q, x>))``, every inner product one
fixed sum per pair (:func:`~graphinvariants.search.exact.pair_inner_products`), so the
exact answer does not depend on blocks, batches or parts. ``lost`` is the part of
``K(G, G)`` a row lacks for labels that no graph the map was fitted on has
(:meth:`~graphinvariants.GraphFeatures.transform_with_missing`): a query's is added to
``<q, q>`` (the index's ``lost=``), a stored graph's is held in a column of its own
(empty for the graphs the map was fitted on, which lack nothing), so that a kernel
name's distance is ``sqrt(2 - 2 K)`` over rows too, to about ``1e-16`` on ``2 - 2 K``.
Identical graphs are at distance 0 when their labels were seen at fit; two graphs that
share labels no fitted graph has are further apart than the kernel says (the rows
cannot see what they share there: ``sqrt(2 m)`` for a copy, ``m`` its share of unseen
labels). A store's rows are taken as written (no column): fit the map on the graphs it
holds.
"""

import copy
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.utils import metadata_routing
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_int, check_n_jobs, check_seed, check_working_memory, refuses_random_state
from ..estimator import GraphKernel
from ..graphs import GraphBatch
from ..graphs.batch import check_not_single_graph, subset
from ..embeddings.counts import CountFeatures
from ..graphs.smiles import MOLECULE_LABEL, is_smiles
from ..kernels import make_functional, molecule_parameters
from ..kernels.topk import kneighbors_of_embeddings
from ..kernels.registry import LEARNED
from ..features import GraphFeatures
from .exact import ExactIndex, merge_nearest, split_points

__all__ = ["NearestGraphs"]

INDEXES = ("exact", "approximate")

#: Landmarks of the Nystroem map that a kernel name is searched by with
#: ``index="approximate"`` (at most the number of fitted graphs).
NYSTROEM_COMPONENTS = 300


def kernel_distances(values):
    """``sqrt(max(0, 2 - 2 K))`` of kernel values ``K``."""
    return np.sqrt(np.maximum(0.0, 2.0 - 2.0 * np.asarray(values, dtype=np.float64)))


def _check_mode(mode):
    if mode not in ("connectivity", "distance"):
        raise ValueError(f'mode must be "connectivity" or "distance", got {mode!r}')


def _neighbors_graph(distances, indices, mode, n_fit):
    """CSR of one row of neighbours per query (1s, or the distances), in their order."""
    lengths = np.array([len(i) for i in indices], dtype=np.int64)
    flat_i = np.concatenate(indices).astype(np.int64) if indices else np.zeros(0, np.int64)
    flat_d = np.concatenate(distances) if distances else np.zeros(0)
    values = np.ones(flat_i.size) if mode == "connectivity" else flat_d
    return sp.csr_array((values, flat_i, np.concatenate(([0], np.cumsum(lengths)))), shape=(len(indices), n_fit))


def _collection(graphs, what):
    """``graphs`` as an indexable collection; SMILES strings become molecules
    (:func:`~graphinvariants.datasets.from_smiles`, the ``[chem]`` extra)."""
    if isinstance(graphs, str):
        raise TypeError(f"{what} must be a collection of graphs or SMILES strings, got one string {graphs!r}; "
                        "wrap it in a list")
    if isinstance(graphs, np.ndarray) and graphs.dtype.kind in "US":
        graphs = graphs.tolist()
    if is_smiles(graphs):  # read where graphs are read (as_graph_batch), so that a kernel or feature map
        return list(graphs)  # named for them reads their atoms and bonds (kernels.molecule_parameters)
    check_not_single_graph(graphs, what)
    if isinstance(graphs, GraphBatch) or isinstance(getattr(graphs, "batch", None), GraphBatch):
        return graphs
    if not hasattr(graphs, "__iter__"):
        raise TypeError(f"{what} must be a collection of graphs, got {graphs!r}")
    return graphs if hasattr(graphs, "__getitem__") and hasattr(graphs, "__len__") else list(graphs)


def _carried_labels(graphs):
    """``(node, edge)``: whether the graphs carry node and edge labels (a SMILES string
    reads as atoms and bonds; a TUDataset or GraphBatch says; NetworkX and igraph
    graphs by the ``"label"`` attribute on every node, and every edge, of the first
    graph that has any)."""
    if is_smiles(graphs):
        return True, True
    batch = graphs if isinstance(graphs, GraphBatch) else getattr(graphs, "batch", None)
    if isinstance(batch, GraphBatch):
        return batch.node_labels is not None, batch.edge_labels is not None
    node = edge = None
    for graph in graphs if isinstance(graphs, (list, tuple)) else ():
        if hasattr(graph, "vs") and hasattr(graph, "es"):  # igraph
            if node is None and graph.vcount():
                node = MOLECULE_LABEL in graph.vs.attributes()
            if edge is None and graph.ecount():
                edge = MOLECULE_LABEL in graph.es.attributes()
        elif hasattr(graph, "nodes") and hasattr(graph, "edges"):  # NetworkX
            if node is None and len(graph):
                node = all(MOLECULE_LABEL in data for _, data in graph.nodes(data=True))
            if edge is None and graph.number_of_edges():
                edge = all(MOLECULE_LABEL in data for *_, data in graph.edges(data=True))
        else:
            break
        if node is not None and edge is not None:
            break
    return bool(node), bool(edge)


def _labelled_parameters(kernel, params, graphs):
    """``params`` of a kernel name for ``graphs``: the members that take ``node_label``
    or ``edge_label`` read the graphs' labels (``"label"``) where the graphs carry them,
    unless ``params`` (or the name) says otherwise (:func:`~graphinvariants.kernels.molecule_parameters`)."""
    node, edge = _carried_labels(graphs)
    if not (node or edge):
        return dict(params)
    out = dict(params)
    for key, value in molecule_parameters(kernel, params).items():
        if key not in params and (node if key == "node_label" else edge if key == "edge_label" else False):
            out[key] = value
    return out


def _has_rows(functional):
    """Whether a kernel's own functional has exact feature rows: a count member (its
    counts on the fitted labels, divided by their norm, see :class:`GraphFeatures`)."""
    return isinstance(functional, CountFeatures)


def _widened(X, extra):
    """CSR rows ``X`` with ``extra`` empty columns after its own."""
    X = sp.csr_array(X)
    return sp.csr_array((X.data, X.indices, X.indptr), shape=(X.shape[0], X.shape[1] + extra))


def _with_missing(X, missing, column):
    """CSR rows ``X`` (already widened) with ``sqrt(missing)`` stored in ``column``
    (where it is positive): the part of ``K(G, G)`` the row lacks, on a column no
    fitted row has, so that the row has norm 1 and its inner products are unchanged."""
    X = sp.csr_array(X)
    n = X.shape[0]
    values = np.sqrt(np.maximum(np.asarray(missing, dtype=np.float64), 0.0))
    extra = sp.csr_array((values, (np.arange(n), np.full(n, column))), shape=X.shape)
    out = sp.csr_array(X + extra)
    out.eliminate_zeros()
    out.sort_indices()
    return out


def _split_missing(X, column):
    """``(rows, lost)``: CSR rows ``X`` without ``column`` (an added graph's missing part,
    :func:`_with_missing`) and, per row, the square of what that column held."""
    X = sp.csr_array(X)
    held = X.indices == column
    lost = np.zeros(X.shape[0])
    rows_of = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    lost[rows_of[held]] = X.data[held] ** 2
    keep = ~held
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows_of[keep], minlength=X.shape[0]))))
    return sp.csr_array((X.data[keep], X.indices[keep], indptr), shape=X.shape), lost


class NearestGraphs(BaseEstimator):
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
        :class:`~graphinvariants.GraphFeatures` rows (:data:`NYSTROEM_COMPONENTS`
        landmarks for the Nystroem part). Its members read the labels the fitted graphs
        carry (``node_label="label"``, ``edge_label="label"`` where they have them).
    n_neighbors : int, keyword-only, default=5
        Neighbours returned by :meth:`kneighbors` and :meth:`kneighbors_graph` when
        they are not told (5, as scikit-learn's ``NearestNeighbors``).
    radius : float, keyword-only, default=1.0
        Distance within which :meth:`radius_neighbors` and
        :meth:`radius_neighbors_graph` look when they are not told (distances lie in
        ``[0, 2]`` for rows of norm 1).
    index : {"exact", "approximate"}, keyword-only, default="exact"
        Exact top-k (:class:`~graphinvariants.search.exact.ExactIndex`: rows whose
        projection bound cannot beat the ``k``-th distance are skipped), or a graph of
        neighbours over the features' projections
        (:class:`~graphinvariants.search.approximate.ApproximateIndex`; needs
        ``pip install "graphinvariants[search]"``), its candidates ranked by their
        exact values, the number of candidates calibrated at fit for a recall@10
        (``index_params={"recall": 0.95}`` by default).
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
    index_ : ExactIndex, ApproximateIndex or None
        The in-process index (None on ``client`` or over ``store``).
    n_samples_fit_ : int
        Graphs searched.
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
        if self.store is not None and self.index != "exact":
            raise ValueError("store= is searched exactly; use index='exact' (or build an approximate index in "
                             "process from the stored features)")
        if not isinstance(self.overwrite, (bool, np.bool_)):
            raise TypeError(f"overwrite must be True or False, got {self.overwrite!r}")
        if self.client is not None and not hasattr(self.client, "submit"):
            raise TypeError(f"client must be a dask.distributed.Client, got {self.client!r}")

    def _random_state(self):
        seed = self.seed
        if isinstance(seed, np.random.Generator):
            return int(seed.integers(2**31 - 1))
        check_seed(seed)
        return seed

    def _make_map(self, n_graphs=None, graphs=()):
        """(feature map or None, kernel name, kernel params) of ``kernel``; a name's
        members read the labels ``graphs`` carry (SMILES: atoms and bonds). A name
        whose kernel has exact rows (a count member) is mapped by a
        :class:`~graphinvariants.GraphFeatures` of it; None: searched by the pair engine."""
        kernel = self.kernel
        if kernel is None:
            return GraphFeatures(seed=self._random_state(), n_jobs=self.n_jobs), None, None
        if isinstance(kernel, GraphKernel):
            if kernel.kernel == LEARNED:
                return GraphFeatures(kernel, seed=self._random_state(), n_jobs=self.n_jobs), None, None
            params = {k: v for k, v in kernel.get_params(deep=False).items() if k not in ("kernel", "n_jobs")}
            kernel = kernel.kernel
        else:
            params = {}
        if isinstance(kernel, str):
            params = _labelled_parameters(kernel, params, graphs)
            functional = make_functional(kernel, **params)  # an unknown name or parameter fails here
            if self.index == "approximate" or _has_rows(functional):
                n_landmarks = NYSTROEM_COMPONENTS if n_graphs is None else min(NYSTROEM_COMPONENTS, n_graphs)
                return (GraphFeatures(GraphKernel(kernel=kernel, **params), n_landmarks=n_landmarks,
                                      seed=self._random_state(), n_jobs=self.n_jobs), kernel, params)
            return None, kernel, params
        if hasattr(kernel, "transform") and hasattr(kernel, "fit"):
            return kernel, None, None
        raise TypeError("kernel must be None, a GraphKernel, a fitted or unfitted feature map (GraphFeatures) "
                        f"or a kernel name, got {kernel!r}")

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
        sized = hasattr(graphs, "__len__") and not isinstance(graphs, str) and not _is_bag(graphs)
        n_graphs = len(graphs) if sized else None  # (a Bag's len would compute it)
        if ids is not None:
            ids = _check_ids(ids, n_graphs)  # before any work: a refused call changes nothing
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
        feature_map, name, params = self._make_map(n_graphs, () if graphs is None or _is_bag(graphs) else graphs)
        self._name, self._params = name, params
        self.index_, self._parts, self._embeddings, self._store = None, None, None, None
        # rows of a GraphFeatures searched in process: what a query's row lacks of K(G, G)
        # (labels unseen when the map was fitted) is added to <q, q> (lost=), what a
        # stored graph's row lacks is held in a column of its own (empty for the graphs
        # the map was fitted on), so that the distances are the kernel's
        self._completed = name is not None and feature_map is not None
        self._missing_column = False
        bag = _is_bag(graphs)
        if graphs is None or bag:
            if self.store is None:
                raise ValueError("fit needs graphs (None or a dask.bag.Bag only with store=)")
            rows = self._fit_store(feature_map, graphs, y)
        else:
            graphs = _collection(graphs, "graphs")
            if len(graphs) == 0:
                raise ValueError("fit needs at least one graph")
            if self.store is not None or self.client is not None:
                if feature_map is None:
                    raise ValueError(f"kernel {name!r} has no feature rows to store or distribute; give a feature map "
                                     f"(GraphFeatures({name!r}), Nystroem for such a kernel) as kernel")
                if self._completed:
                    raise ValueError(f"a kernel name is searched in process; to store or distribute the rows of "
                                     f"{name!r}, give GraphFeatures({name!r}) as kernel")
            if feature_map is None:
                functional = make_functional(name, **params)
                self._embeddings = functional.as_embeddings(graphs, what="graphs")
                self._functional = functional
                self.feature_map_ = None
                rows = len(self._embeddings)
            elif self._completed:  # the map made here: the graphs embedded once (fit_transform)
                self.feature_map_ = feature_map
                # a column for what a graph added by partial_fit lacks of K(G, G) (a fitted
                # graph lacks nothing; a query's part is passed to the index as ``lost``)
                rows = self._fit_rows(_widened(feature_map.fit_transform(graphs), 1))
                self._missing_column = True
            else:
                feature_map = self._fitted_map(feature_map, graphs, y)
                if self.store is not None:
                    rows = self._fit_store(feature_map, graphs, y)
                elif hasattr(feature_map, "transform_with_missing"):  # (a map fitted on other graphs: rows may lack)
                    X, missing = feature_map.transform_with_missing(graphs, what="graphs")
                    rows = self._fit_rows(_with_missing(_widened(X, 1), missing, X.shape[1]))
                    self._missing_column = True
                else:
                    rows = self._fit_rows(feature_map.transform(graphs))
        self.n_samples_fit_ = int(rows)

    def _fitted_map(self, feature_map, graphs, y):
        try:
            check_is_fitted(feature_map)
            fitted = True
        except Exception:  # sklearn's NotFittedError, or a map without fitted attributes
            fitted = False
        if not fitted:
            feature_map = clone(feature_map)
            if isinstance(feature_map, GraphFeatures):
                feature_map.fit(graphs, y)  # the learned default refuses y=None itself
            else:
                feature_map.fit(graphs)
        self.feature_map_ = feature_map
        return feature_map

    def _fit_rows(self, X):
        """Index feature rows ``X`` in process or on ``client``."""
        if self.client is None:
            self.index_ = self._new_index().fit(X)
            return self.index_.n_rows_
        n = X.shape[0]
        n_parts = self.n_partitions or max(1, len(self.client.scheduler_info().get("workers", {})))
        if self.index == "exact":
            points = split_points(n, n_parts, self._new_index().block_rows)
        else:
            points = np.unique(np.linspace(0, n, n_parts + 1).astype(np.int64))
        X = sp.csr_array(X) if sp.issparse(X) else np.asarray(X)
        options = {}
        if self.index == "exact":  # one plan of columns and bounds for every part (fitted once)
            plan = self._new_index()
            options["dense_columns"] = plan.frequent_columns(X)
            options["projection"] = plan.fit_projection(X)
        self._parts = []
        for a, b in zip(points[:-1], points[1:]):
            rows = self.client.scatter(X[a:b])
            self._parts.append((int(a), self.client.submit(_build, self._new_index(), rows, options, pure=False)))
        return n

    def _new_index(self):
        if self.index == "exact":
            return ExactIndex(working_memory=self.working_memory, **{"seed": self._random_state(),
                                                                     **(self.index_params or {})})
        from .approximate import ApproximateIndex

        return ApproximateIndex(seed=self._random_state(), **(self.index_params or {}))

    def _fit_store(self, feature_map, graphs, y):
        from ..distributed import features_to_zarr, read_features

        if graphs is not None:
            import dask.bag as db

            if not isinstance(feature_map, GraphFeatures):
                raise ValueError("store= holds the rows of a GraphFeatures (features_to_zarr); give kernel=None, a "
                                 "GraphKernel, a kernel name with index='approximate' or a GraphFeatures")
            if _is_bag(graphs):
                bag = graphs
                check_is_fitted(feature_map, "n_features_out_")
            else:
                n_parts = self.n_partitions or 1
                bag = db.from_sequence(list(range(len(graphs))), npartitions=n_parts).map_partitions(
                    lambda part, graphs=graphs: subset(graphs, np.asarray(part, dtype=np.int64)))
            self.feature_map_ = feature_map
            rows = _compute(self.client, lambda: features_to_zarr(
                feature_map, bag, self.store, overwrite=bool(self.overwrite),
                hint="NearestGraphs(..., overwrite=True), or fit() with no graphs to search what it holds"))
        else:
            read_features(self.store, [])  # a clear error if the store holds no features
            try:
                check_is_fitted(feature_map, "n_features_out_")
            except Exception:
                raise ValueError("fit() with no graphs searches the store as it is: kernel must be the fitted "
                                 "GraphFeatures that wrote it") from None
            _check_store_map(self.store, feature_map)
            self.feature_map_ = feature_map
            rows = _stored_rows(self.store)
        self._store = self.store
        # one plan of dense columns and of bounds for every part (from the first part
        # that holds rows), fitted once rather than at every search
        first = next(i for i, r in enumerate(rows) if r) if any(rows) else None
        if first is None:
            self._plan = {"dense_columns": np.zeros(0, dtype=np.int64)}
        else:
            plan = self._new_index()
            part = read_features(self.store, [first])
            self._plan = {"dense_columns": plan.frequent_columns(part), "projection": plan.fit_projection(part)}
        return int(np.sum(rows))

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
        out = []
        if return_distance:
            out.append(distances)
        out.append(indices)
        if return_ids:
            out.append(self.ids_[indices])
        return tuple(out) if len(out) > 1 else out[0]

    def kneighbors_graph(self, graphs=None, n_neighbors=None, mode="connectivity"):
        """The k nearest neighbours as a sparse graph, as scikit-learn's ``kneighbors_graph``.

        Parameters
        ----------
        graphs : collection of graphs, SMILES strings or None
            The queries, as for :meth:`kneighbors` (None: every fitted graph, itself left out).
        n_neighbors : int or None
            As for :meth:`kneighbors`.
        mode : {"connectivity", "distance"}, default="connectivity"
            Stored values: 1 per neighbour, or its distance (an identical graph is then a
            stored 0: CSR keeps it).

        Returns
        -------
        scipy.sparse.csr_array of shape (n_queries, n_fitted)
            ``n_fitted`` is :attr:`n_samples_fit_`. Row ``i`` holds query ``i``'s neighbours in the order :meth:`kneighbors` gives.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(4, 9)]
        >>> search = gi.NearestGraphs("wl", n_neighbors=2).fit(graphs)
        >>> search.kneighbors_graph().toarray().astype(int)
        array([[0, 1, 1, 0, 0],
               [0, 0, 1, 1, 0],
               [0, 0, 0, 1, 1],
               [0, 0, 1, 0, 1],
               [0, 0, 1, 1, 0]])
        """
        _check_mode(mode)
        distances, indices = self.kneighbors(graphs, n_neighbors)
        return _neighbors_graph(list(distances), list(indices), mode, self.n_samples_fit_)

    def radius_neighbors(self, graphs=None, radius=None, return_distance=True, sort_results=True):
        """The fitted graphs within a distance of each graph, as scikit-learn's ``radius_neighbors``.

        Exact: every fitted graph is ranked for every query (``n_queries x
        n_samples_fit_`` distances held at once: pass queries in batches when that is
        large), so it needs ``index="exact"``.

        Parameters
        ----------
        graphs : collection of graphs, SMILES strings or None
            The queries (None: every fitted graph, itself left out).
        radius : float or None
            Largest distance returned (None: the constructor's ``radius``).
        return_distance : bool, default=True
        sort_results : bool, default=True
            Nearest first (ties by position); False keeps the same order too (the
            search is sorted anyway), accepted for scikit-learn's signature.

        Returns
        -------
        distances : numpy.ndarray of object, shape (n_queries,)
            One float64 array per query (only with ``return_distance``).
        indices : numpy.ndarray of object, shape (n_queries,)
            One int64 array of positions per query.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(4, 9)] + [nx.path_graph(4)]
        >>> search = gi.NearestGraphs("wl").fit(graphs)
        >>> distances, indices = search.radius_neighbors([nx.path_graph(4)], radius=0.0)
        >>> indices[0].tolist()  # the two copies, at distance exactly 0
        [0, 5]
        """
        check_is_fitted(self, "n_samples_fit_")
        radius = self.radius if radius is None else radius
        if isinstance(radius, bool) or not isinstance(radius, numbers.Real) or not radius >= 0:
            raise ValueError(f"radius must be a non-negative number, got {radius!r}")
        if self.index != "exact":
            raise ValueError('radius_neighbors scores every fitted graph: it needs index="exact"')
        n = self.n_samples_fit_
        k = n - 1 if graphs is None else n
        if k < 1:
            empty = np.empty(0 if graphs is None else len(graphs), dtype=object)
            return (empty, empty.copy()) if return_distance else empty
        distances, indices = self.kneighbors(graphs, k)
        counts = (distances <= radius).sum(axis=1)  # ascending: a prefix of each row
        out_d = np.empty(len(indices), dtype=object)
        out_i = np.empty(len(indices), dtype=object)
        for q, c in enumerate(counts.tolist()):
            out_d[q], out_i[q] = distances[q, :c].copy(), indices[q, :c].copy()
        return (out_d, out_i) if return_distance else out_i

    def radius_neighbors_graph(self, graphs=None, radius=None, mode="connectivity", sort_results=True):
        """:meth:`radius_neighbors` as a sparse graph (scikit-learn's ``radius_neighbors_graph``).

        Returns
        -------
        scipy.sparse.csr_array of shape (n_queries, n_fitted)
            1 per neighbour within ``radius`` (``mode="connectivity"``) or its distance
            (``mode="distance"``).

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(4, 9)] + [nx.path_graph(4)]
        >>> search = gi.NearestGraphs("wl").fit(graphs)
        >>> search.radius_neighbors_graph(radius=0.0).nnz  # graphs 0 and 5, each the other's
        2
        """
        _check_mode(mode)
        distances, indices = self.radius_neighbors(graphs, radius, sort_results=sort_results)
        return _neighbors_graph(list(distances), list(indices), mode, self.n_samples_fit_)

    def _search(self, graphs, k):
        if self._embeddings is not None:  # a kernel without feature rows: the pair engine
            left = None if graphs is None else self._functional.as_embeddings(_collection(graphs, "graphs"),
                                                                                what="graphs")
            if left is None:
                indices, values = kneighbors_of_embeddings(self._embeddings, None, self._functional, k,
                                                           check_n_jobs(self.n_jobs), self.working_memory)
            else:
                indices, values = kneighbors_of_embeddings(left, self._embeddings, self._functional, k,
                                                           check_n_jobs(self.n_jobs), self.working_memory)
            return indices, kernel_distances(values)
        if graphs is None:
            return self._leave_one_out(k)
        graphs = _collection(graphs, "graphs")
        if hasattr(self.feature_map_, "transform_with_missing"):
            # with the part of K(G, G) the rows lack (labels unseen at fit): the kernel's distance
            Q, lost = self.feature_map_.transform_with_missing(graphs, what="graphs")
        else:
            Q, lost = self.feature_map_.transform(graphs), None
        if self._missing_column:  # the column of stored graphs' missing parts, empty in a query
            Q = _widened(Q, 1)
        return self._search_rows(Q, k, None, lost)

    def _search_rows(self, Q, k, exclude, lost=None):
        if self.index_ is not None:
            return self.index_.search(Q, k, exclude=exclude, lost=lost)
        if self._store is not None:
            return _search_store(self._store, Q, k, exclude, self.working_memory, self.client,
                                 self.index_params or {}, self._plan, lost)
        futures = [self.client.submit(_search_part, part, Q, k, exclude, start, lost, pure=False)
                   for start, part in self._parts]
        return merge_nearest(self.client.gather(futures), k)

    def _leave_one_out(self, k):
        """Every fitted row as a query, its own position left out, a block at a time."""
        n = self.n_samples_fit_
        indices = np.empty((n, k), dtype=np.int64)
        values = np.empty((n, k))
        step = 4096
        for start in range(0, n, step):
            stop = min(n, start + step)
            if self.index_ is not None and not isinstance(self.index_, ExactIndex) and not self._missing_column:
                # the approximate index: its stored embeddings are the queries (with the
                # column of stored graphs' missing parts, the rows are asked as queries below)
                indices[start:stop], values[start:stop] = self.index_.search_rows(start, stop, k)
                continue
            Q = self._rows(start, stop)
            lost = None
            if self._missing_column:  # a stored graph's missing part, asked as a query's: as lost
                Q, lost = _split_missing(Q, Q.shape[1] - 1)
            indices[start:stop], values[start:stop] = self._search_rows(Q, k, np.arange(start, stop), lost)
        return indices, values

    def _rows(self, start, stop):
        if self.index_ is not None:
            return self.index_.rows(start, stop)
        if self._store is not None:
            from ..distributed import read_features

            return _store_rows(self._store, start, stop, read_features)
        pieces = [self.client.submit(_rows_of_part, part, max(start - a, 0), stop - a, pure=False)
                  for a, part in self._parts]
        blocks = [b for b in self.client.gather(pieces) if b.shape[0]]
        return sp.vstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.vstack(blocks)

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
        if self.index_ is None:
            if self._embeddings is not None:
                raise ValueError(f"kernel {self._name!r} has no feature rows to add graphs to (it is searched by the "
                                 f"pair engine): give GraphFeatures({self._name!r}) as kernel, whose rows approximate "
                                 "it (Nystroem), or index='approximate'")
            raise ValueError("partial_fit adds graphs to an in-process index: fit without store= and client=, then "
                             "add graphs")
        if (ids is None) != (self.ids_ is None):
            raise ValueError("give ids to partial_fit exactly when fit was given them")
        graphs = _collection(graphs, "graphs")
        if ids is not None:  # checked before the index grows: a refused call changes nothing
            ids = _join_ids(self.ids_, _check_ids(ids, len(graphs)))
        if len(graphs) and self._missing_column:
            X, missing = self.feature_map_.transform_with_missing(graphs, what="graphs")
            X = _widened(X, 1)
            self.index_.add(_with_missing(X, missing, X.shape[1] - 1))
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


# -- helpers run in process or on workers ------------------------------------------------------
def _build(index, rows, options):
    return index.fit(rows, **options)


def _search_part(index, Q, k, exclude, start, lost=None):
    if isinstance(index, ExactIndex):
        return index.search(Q, k, exclude=exclude, offset=start, lost=lost)
    indices, values = index.search(Q, k, exclude=None if exclude is None else exclude - start, lost=lost)
    return indices + start, values


def _rows_of_part(index, start, stop):
    stop = min(max(stop, 0), index.n_rows_)
    return index.rows(min(start, stop), stop)


def _is_bag(graphs):
    return type(graphs).__module__.startswith("dask.bag")


def _check_ids(ids, n):
    """``ids`` as a 1-D array, one per graph (``n``; None: not known yet), unique, each
    identifier of the type it was given: a numpy array keeps its dtype, anything else
    becomes an object array of the very objects given (numpy would make ``[1, 2, 3]``
    floats next to an empty list, and strings next to a string)."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__") or isinstance(ids, (set, frozenset, dict)):
        raise TypeError(f"ids must be a sequence of identifiers, one per graph, got {ids!r}")
    if isinstance(ids, np.ndarray) and ids.dtype != object:
        if ids.ndim != 1:
            raise ValueError(f"ids must have one identifier per graph, a 1-D sequence, got shape {ids.shape}")
        out = ids
    else:
        items = list(ids)
        out = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            out[i] = item
    if n is not None and len(out) != n:
        raise ValueError(f"ids must have one identifier per graph, {n} of them, got {len(out)}")
    _check_unique(out.tolist() if out.dtype != object else list(out))
    return out


def _check_unique(items):
    seen = {}
    for position, item in enumerate(items):
        try:
            first = seen.setdefault(item, position)
        except TypeError:
            raise TypeError(f"ids must be hashable (an id names one graph), got {item!r} at position {position}") from None
        if first != position:
            raise ValueError(f"ids must be unique: {item!r} is at positions {first} and {position}")


def _join_ids(old, new):
    """``old`` then ``new`` (both from :func:`_check_ids`), still unique, each id of its type."""
    if len(new) == 0:
        return old
    if old.dtype == new.dtype and old.dtype != object:
        joined = np.concatenate([old, new])
    else:
        joined = np.empty(len(old) + len(new), dtype=object)
        for i, item in enumerate(list(old) + list(new)):
            joined[i] = item
    _check_unique(joined.tolist() if joined.dtype != object else list(joined))
    return joined


def _compute(client, run):
    if client is None:
        import dask

        with dask.config.set(scheduler="threads"):
            return run()
    return run()  # the client is Dask's default scheduler while it is open


def _check_store_map(store, feature_map):
    """Refuse a store written by another feature map than ``feature_map`` (its rows
    would be compared with rows of other columns, and the answer would be wrong)."""
    import zarr

    recorded = zarr.open_group(store, mode="r").attrs.get("feature_map")
    digest = feature_map.digest() if callable(getattr(feature_map, "digest", None)) else None
    if recorded is None:
        raise ValueError(f"store {str(store)!r} records no feature map (written before stores recorded one), so "
                         "whether kernel wrote it cannot be checked: write it again with fit(graphs, ...) and "
                         "overwrite=True")
    if digest != recorded:
        raise ValueError(f"store {str(store)!r} was written by another feature map (digest {recorded[:12]}...) than "
                         f"kernel ({'not a GraphFeatures' if digest is None else 'digest ' + digest[:12] + '...'}): "
                         "give the fitted GraphFeatures that wrote it (or an equal one: same parameters, fitted "
                         "alike), or write the store again with this one: fit(graphs) with overwrite=True")


def _stored_rows(store):
    import zarr

    return [int(r) for r in zarr.open_group(store, mode="r").attrs["rows"]]


def _search_store(store, Q, k, exclude, working_memory, client, index_params, plan, lost=None):
    """Exact top-k over a store, an index built per part (on ``client``'s workers)."""
    rows = _stored_rows(store)
    starts = np.concatenate(([0], np.cumsum(rows)[:-1])).astype(np.int64)
    parts = [(i, int(s)) for i, s in enumerate(starts) if rows[i]]
    if client is not None:
        futures = [client.submit(_search_stored_part, store, i, s, Q, k, exclude, working_memory, index_params,
                                 plan, lost, pure=False)
                   for i, s in parts]
        results = client.gather(futures)
    else:
        results = [_search_stored_part(store, i, s, Q, k, exclude, working_memory, index_params, plan, lost)
                   for i, s in parts]
    return merge_nearest(results, k)


def _search_stored_part(store, i, start, Q, k, exclude, working_memory, index_params, plan, lost=None):
    from ..distributed import read_features

    index = ExactIndex(working_memory=working_memory, **index_params).fit(read_features(store, [i]), **plan)
    return index.search(Q, k, exclude=exclude, offset=start, lost=lost)


def _store_rows(store, start, stop, read_features):
    rows = _stored_rows(store)
    bounds = np.concatenate(([0], np.cumsum(rows))).astype(np.int64)
    blocks = []
    for i in range(len(rows)):
        a, b = bounds[i], bounds[i + 1]
        if b <= start or a >= stop or a == b:
            continue
        part = read_features(store, [i])
        blocks.append(part[max(start, a) - a : min(stop, b) - a])
    return sp.vstack(blocks, format="csr")
