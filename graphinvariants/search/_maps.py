"""What ``NearestGraphs(kernel=...)`` searches by: a feature map, or a kernel without rows.

:func:`search_map` reads the ``kernel`` parameter once, at ``fit``: the learned default
and any :class:`~graphinvariants.GraphFeatures` are feature maps; a kernel name whose
kernel is a count member (exact rows) is mapped by a GraphFeatures of it, as is any
name with ``index="approximate"`` (Nystroem rows); any other name is searched by the
pair engine (:class:`~graphinvariants.search._kernel_index.KernelIndex`);
:func:`fitted_map` fits a map given unfitted. A name's
members read the node and edge labels (``"label"``) the fitted graphs carry (SMILES:
atoms and bonds), unless its parameters say otherwise.
"""

from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ..embeddings.counts import CountFeatures
from ..estimator import GraphKernel
from ..features import GraphFeatures
from ..graphs import GraphBatch
from ..graphs.smiles import MOLECULE_LABEL, is_smiles
from ..kernels import make_functional, molecule_parameters
from ..kernels.registry import LEARNED

__all__ = ["NYSTROEM_COMPONENTS", "SearchMap", "fitted_map", "is_learned", "rows_metric", "search_map"]

#: Landmarks of the Nystroem map that a kernel name is searched by with
#: ``index="approximate"`` (at most the number of fitted graphs).
NYSTROEM_COMPONENTS = 300


class SearchMap:
    """What :func:`search_map` found: ``feature_map`` (None: a kernel without rows,
    searched through ``functional``), the kernel ``name`` (None for a feature map given
    or the learned default) and whether the map was made here for a name (``named``:
    its rows then stand for the kernel itself, ``K(G, G) = 1``)."""

    def __init__(self, feature_map, name=None, functional=None):
        self.feature_map, self.name, self.functional = feature_map, name, functional
        self.named = name is not None and feature_map is not None


def is_learned(kernel):
    """Whether ``kernel`` (a ``NearestGraphs`` or ``GraphFeatures`` parameter) is the
    learned default, which learns from ``y``."""
    if isinstance(kernel, GraphFeatures):
        kernel = kernel.kernel
    if isinstance(kernel, GraphKernel):
        kernel = kernel.kernel
    return kernel is None or kernel == LEARNED


def rows_metric(feature_map):
    """The :class:`~graphinvariants.search.exact.ExactIndex` ``metric`` for the rows of
    a fitted ``feature_map``: ``"cosine"`` where they have norm one up to rounding (a
    :class:`~graphinvariants.GraphFeatures` whose members are all exact, weights summing
    to 1: ``K(G, G) = 1``, what a row lacks held in its ``lost``), so that equal kernel
    values give equal distances, ties by position; else ``"euclidean"``."""
    if isinstance(feature_map, GraphFeatures) and not getattr(feature_map, "approximate_", [None]):
        if abs(float(feature_map.exact_weight_) - 1.0) <= 1e-12:
            return "cosine"
    return "euclidean"


def carried_labels(graphs):
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
    node, edge = carried_labels(graphs)
    if not (node or edge):
        return dict(params)
    out = dict(params)
    for key, value in molecule_parameters(kernel, params).items():
        if key not in params and (node if key == "node_label" else edge if key == "edge_label" else False):
            out[key] = value
    return out


def search_map(kernel, *, index, random_state, n_jobs, n_graphs=None, graphs=()):
    """The :class:`SearchMap` of a ``NearestGraphs`` ``kernel`` parameter (``index``:
    "exact" or "approximate"; ``random_state()`` gives the seed of a map made here, and
    ``n_jobs`` its threads; ``graphs``: the fitted graphs, whose labels a name's members
    read).

    Examples
    --------
    >>> from graphinvariants.search._maps import search_map
    >>> found = search_map("power", index="exact", random_state=lambda: 0, n_jobs=None)
    >>> found.feature_map is None, found.name
    (True, 'power')
    >>> type(search_map("wl", index="exact", random_state=lambda: 0, n_jobs=None).feature_map).__name__
    'GraphFeatures'
    """
    if kernel is None:
        return SearchMap(GraphFeatures(seed=random_state(), n_jobs=n_jobs))
    if isinstance(kernel, GraphKernel):
        if kernel.kernel == LEARNED:
            return SearchMap(GraphFeatures(kernel, seed=random_state(), n_jobs=n_jobs))
        params = {k: v for k, v in kernel.get_params(deep=False).items() if k not in ("kernel", "n_jobs")}
        kernel = kernel.kernel
    else:
        params = {}
    if isinstance(kernel, str):
        params = _labelled_parameters(kernel, params, graphs)
        functional = make_functional(kernel, **params)  # an unknown name or parameter fails here
        if index == "approximate" or isinstance(functional, CountFeatures):  # (a count member: exact rows)
            n_landmarks = NYSTROEM_COMPONENTS if n_graphs is None else min(NYSTROEM_COMPONENTS, n_graphs)
            return SearchMap(GraphFeatures(GraphKernel(kernel=kernel, **params), n_landmarks=n_landmarks,
                                           seed=random_state(),
                                           n_jobs=n_jobs), kernel)
        return SearchMap(None, kernel, functional)
    if hasattr(kernel, "transform") and hasattr(kernel, "fit"):
        return SearchMap(kernel)
    raise TypeError("kernel must be None, a GraphKernel, a fitted or unfitted feature map (GraphFeatures) "
                    f"or a kernel name, got {kernel!r}")


def fitted_map(feature_map, graphs, y, *, fit=True):
    """``feature_map`` as it is if fitted, else a clone fitted on ``graphs`` (and ``y``:
    the learned default learns its weights from the labels, and refuses to go without);
    ``fit=False`` returns the clone unfitted (a store's writer fits it by its
    ``fit_transform`` as the rows are made)."""
    try:
        check_is_fitted(feature_map)
        return feature_map
    except Exception:  # sklearn's NotFittedError, or a map without fitted attributes
        pass
    if y is None and isinstance(feature_map, GraphFeatures) and is_learned(feature_map):
        raise ValueError("the learned default learns its weights from the training labels: call "
                         "fit(graphs, y), or search by a fixed kernel, e.g. NearestGraphs(\"wl\")")
    feature_map = clone(feature_map)
    if not fit:
        return feature_map
    if isinstance(feature_map, GraphFeatures):
        return feature_map.fit(graphs, y)
    return feature_map.fit(graphs)
