"""Many graphs as one: a block-diagonal CSR adjacency with node offsets.

A :class:`GraphBatch` is how every batch function sees a collection of graphs: ``k``
sparse products on its block-diagonal matrix serve all graphs at once, and per-graph
results are rows ``offsets[g]:offsets[g + 1]`` of one array. :func:`as_graph_batch`
builds one from a sequence of graphs, or passes a batch (or anything that has one, such
as a :class:`~graphinvariants.datasets.TUDataset`) through untouched.
"""

from collections.abc import Iterator
from dataclasses import dataclass

import numbers

import numpy as np
import scipy.sparse as sp

from .adjacency import (
    GraphAdjacency,
    check_weight_argument,
    check_weights,
    describe,
    graph_library,
    igraph_csr,
    matrix_csr,
    networkx_csr,
    not_a_graph_message,
)
from .csr import concatenated_ranges, stack_csr, take_blocks

__all__ = ["GraphBatch", "as_graph_batch"]


@dataclass(frozen=True, eq=False, repr=False)
class GraphBatch:
    """A collection of graphs stored as one block-diagonal adjacency.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        Block-diagonal float64 adjacency of all graphs, canonical (sorted indices,
        no duplicates), finite and non-negative.
    offsets : array_like of int, shape (n_graphs + 1,)
        Graph ``g`` owns rows and columns ``offsets[g]:offsets[g + 1]``;
        ``offsets[0] == 0`` and ``offsets[-1]`` is the number of rows.
    weighted : bool
        Whether entries are edge weights or all ones.
    node_labels : numpy.ndarray of shape (n_nodes,), optional
        A label per node, in row order.

    Notes
    -----
    Entries outside the diagonal blocks are refused: an edge between two graphs
    would silently mix their walks.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> batch = gi.as_graph_batch([nx.path_graph(3), nx.cycle_graph(4)])
    >>> batch
    <GraphBatch: 2 graphs, 7 nodes, 12 stored entries>
    >>> batch.sizes.tolist(), batch.offsets.tolist()
    ([3, 4], [0, 3, 7])
    >>> batch[1]
    <GraphAdjacency: 4 nodes, 8 stored entries, unweighted>
    """

    matrix: sp.csr_array
    offsets: np.ndarray
    weighted: bool = False
    node_labels: np.ndarray = None

    def __post_init__(self):
        A = self.matrix
        if not sp.issparse(A) or A.format != "csr" or A.dtype != np.float64:
            raise TypeError("GraphBatch.matrix must be a float64 scipy.sparse CSR matrix")
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"GraphBatch.matrix must be square, got shape {A.shape}")
        offsets = np.asarray(self.offsets)
        if offsets.ndim != 1 or offsets.size < 1 or not np.issubdtype(offsets.dtype, np.integer):
            raise ValueError("GraphBatch.offsets must be a 1-D integer array of n_graphs + 1 entries")
        offsets = offsets.astype(np.int64)
        if offsets[0] != 0 or offsets[-1] != A.shape[0] or np.any(np.diff(offsets) < 0):
            raise ValueError("GraphBatch.offsets must rise from 0 to the number of rows")
        check_weights(A.data, "GraphBatch.matrix")
        if A.nnz:
            owner = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
            rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
            if np.any(owner[rows] != owner[A.indices]):
                raise ValueError("GraphBatch.matrix has entries outside the diagonal blocks given by offsets")
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
        labels = self.node_labels
        if labels is not None:
            labels = np.asarray(labels)
            if labels.shape != (A.shape[0],):
                raise ValueError(f"GraphBatch.node_labels must have shape ({A.shape[0]},), got {labels.shape}")
            labels.setflags(write=False)
        offsets.setflags(write=False)
        object.__setattr__(self, "matrix", sp.csr_array(A))
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "weighted", bool(self.weighted))
        object.__setattr__(self, "node_labels", labels)

    @property
    def n_graphs(self):
        """Number of graphs (int)."""
        return len(self.offsets) - 1

    @property
    def n_nodes(self):
        """Number of nodes of all graphs together (int)."""
        return int(self.offsets[-1])

    @property
    def sizes(self):
        """Number of nodes of each graph, shape (n_graphs,)."""
        return np.diff(self.offsets)

    def __len__(self):
        return self.n_graphs

    def __getitem__(self, index):
        """Graph ``index`` as a :class:`GraphAdjacency` (nodes ``0..n-1``), or a
        sub-batch for a slice or an array of indices."""
        if isinstance(index, (int, np.integer)):
            g = range(self.n_graphs)[index]
            a, b = self.offsets[g], self.offsets[g + 1]
            return GraphAdjacency(self.matrix[a:b, a:b], tuple(range(b - a)), weighted=self.weighted)
        return self.take(np.arange(self.n_graphs)[index])

    def take(self, indices):
        """Sub-batch of the graphs at ``indices`` (in that order, repeats allowed)."""
        indices = np.arange(self.n_graphs)[np.asarray(indices, dtype=np.int64).reshape(-1)]  # checks bounds
        matrix, offsets = take_blocks(self.matrix, self.offsets, indices)
        labels = None
        if self.node_labels is not None:
            labels = self.node_labels[concatenated_ranges(self.offsets[indices], self.sizes[indices])]
        return GraphBatch(matrix, offsets, self.weighted, labels)

    def unweighted(self):
        """The 0/1 pattern of the batch: itself if unweighted, else a new batch whose
        stored entries are all 1 (same graphs, same node labels)."""
        if not self.weighted:
            return self
        matrix = self.matrix.copy()
        matrix.data[:] = 1.0
        return GraphBatch(matrix, self.offsets, False, self.node_labels)

    def __iter__(self) -> Iterator:
        return (self[g] for g in range(self.n_graphs))

    def __repr__(self):
        return f"<GraphBatch: {self.n_graphs} graphs, {self.n_nodes} nodes, {self.matrix.nnz} stored entries>"


def _is_single_graph(obj):
    library = graph_library(obj)
    if library in ("networkx", "igraph", "scipy", "adjacency"):
        return True
    return library == "numpy" and obj.ndim == 2 and obj.dtype != object


def check_not_single_graph(items, what):
    """Refuse one graph where a collection of graphs is expected (and a data frame,
    whose items would be its column names)."""
    if type(items).__module__.split(".")[0] in ("pandas", "dask") and hasattr(items, "columns"):
        raise TypeError(
            f"{what} is a data frame ({describe(items)}), not a collection of graphs: embeddings from "
            "graphinvariants.dask come back with graphinvariants.dask.from_frame(frame) (compute a Dask "
            "frame first, or use the functions of graphinvariants.dask); an edge table becomes graphs "
            "with networkx.from_pandas_edgelist or graphinvariants.dask.embed"
        )
    if _is_single_graph(items):
        raise TypeError(
            f"{what} must be a sequence of graphs, got a single {describe(items)}; "
            f"wrap it in a list: [G]"
        )


def as_graph_batch(graphs, *, weight=None, node_label=None, what="graphs"):
    """Return the graphs of a collection as one :class:`GraphBatch`.

    Parameters
    ----------
    graphs : sequence of graphs, GraphBatch, or an object with a ``batch`` attribute
        Graphs are anything :func:`as_adjacency` accepts; a GraphBatch (or the batch
        of a :class:`~graphinvariants.datasets.TUDataset`) is returned as it is.
    weight : str or None, keyword-only
        Edge attribute to use as weight (see :func:`as_adjacency`). A batch carries
        its own weights: for one, any name is accepted if it is weighted, and an
        unweighted batch with a weight asked for is an error (not silently unweighted).
    node_label : str or None, keyword-only
        Node attribute to keep as the batch's ``node_labels`` (NetworkX node
        attribute, igraph vertex attribute; every node must have it). A batch keeps
        its own labels.
    what : str, keyword-only
        Name of the argument, for error messages.

    Returns
    -------
    GraphBatch

    Raises
    ------
    TypeError
        If ``graphs`` is a single graph rather than a sequence, or an item is not a
        graph (the message gives its position).
    ValueError
        If an item has no nodes or a bad weight (the message gives its position).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> gi.as_graph_batch([nx.path_graph(4), nx.star_graph(3)]).sizes.tolist()
    [4, 4]
    """
    batch = graphs if isinstance(graphs, GraphBatch) else getattr(graphs, "batch", None)
    if isinstance(batch, GraphBatch):
        if weight is not None and not batch.weighted:
            raise ValueError(f"weight={weight!r} was asked for, but {what} are an unweighted batch (a TU data "
                             "set's graphs have no edge weights); a batch carries its own weights")
        return batch
    check_weight_argument(weight)
    check_not_single_graph(graphs, what)
    if isinstance(graphs, (str, bytes)) or not hasattr(graphs, "__iter__"):
        raise TypeError(f"{what} must be a sequence of graphs, got {describe(graphs)}")
    parts, sizes, labels = [], [], []
    for i, G in enumerate(graphs):
        try:
            indptr, indices, data = _block_of(G, weight)
            if node_label is not None:
                labels.append(_node_labels_of(G, node_label))
        except (TypeError, ValueError) as err:
            raise type(err)(f"{what}[{i}]: {err}") from None
        if len(indptr) == 1:
            raise ValueError(f"{what}[{i}] has no nodes; every kernel needs at least one node per graph")
        parts.append((indptr, indices, data))
        sizes.append(len(indptr) - 1)
    sizes = np.array(sizes, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    node_labels = None
    if node_label is not None:
        node_labels = _label_array([v for part in labels for v in part])
    return GraphBatch(stack_csr(parts, sizes), offsets, weighted=weight is not None, node_labels=node_labels)


def _label_array(values):
    """Node labels as one array: all numbers or all strings. Mixing the two is refused
    (numpy would turn 1 into "1" and merge them), and so are labels of other types
    (tuples, sets: numpy would compare them by order, not by value)."""
    if not values:
        return np.zeros(0, np.int64)
    is_text = [isinstance(v, str) for v in values]
    if any(is_text) and not all(is_text):
        number = next(v for v, text in zip(values, is_text) if not text)
        text = next(v for v, text in zip(values, is_text) if text)
        raise TypeError(f"node labels mix numbers and strings ({number!r} and {text!r}); give them one type")
    return np.array(values)


def _node_labels_of(G, attribute):
    """The values of a node attribute, in the graph's node order (every node has one)."""
    library = graph_library(G)
    if library == "networkx":
        values = [data.get(attribute) for _, data in G.nodes(data=True)]
        nodes = list(G)
    elif library == "igraph":
        values = G.vs[attribute] if attribute in G.vs.attributes() else [None] * G.vcount()
        nodes = range(G.vcount())
    else:
        raise TypeError(f"node labels can be read from NetworkX and igraph graphs, not from a {describe(G)}")
    for node, value in zip(nodes, values):
        if value is None:
            raise ValueError(f"node {node!r} has no attribute {attribute!r}")
        if not isinstance(value, (str, numbers.Real)):
            raise TypeError(
                f"node {node!r} has the label {value!r}, a {type(value).__name__}; labels must be numbers or "
                "strings (write a tuple or set label as a string)"
            )
    return values


def _block_of(G, weight):
    """``(indptr, indices, data)`` of one graph's canonical CSR; no conversion at all
    for CSR input that is already canonical."""
    library = graph_library(G)
    if library == "adjacency":
        A = G.matrix
    elif library == "networkx":
        A = networkx_csr(G, weight)[0]
    elif library == "igraph":
        A = igraph_csr(G, weight)[0]
    elif library == "scipy" and _fast_csr(G):
        return G.indptr, G.indices, (G.data if weight is not None else np.ones(G.nnz))
    elif library in ("scipy", "numpy"):
        A = matrix_csr(G, weight)
    else:
        raise TypeError(not_a_graph_message(G))
    return A.indptr, A.indices, A.data


def _fast_csr(A):
    """A CSR float64 matrix that needs no conversion: canonical, square, no zeros,
    finite and non-negative entries."""
    return (
        A.format == "csr" and A.dtype == np.float64 and A.ndim == 2 and A.shape[0] == A.shape[1]
        and A.has_canonical_format and (A.nnz == 0 or (np.isfinite(A.data).all() and A.data.min() > 0))
    )
