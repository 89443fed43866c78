"""Many graphs as one: a block-diagonal CSR adjacency with node offsets.

A :class:`GraphBatch` is how every batch function sees a collection of graphs: ``k``
sparse products on its block-diagonal matrix serve all graphs at once, and per-graph
results are rows ``offsets[g]:offsets[g + 1]`` of one array. :func:`as_graph_batch`
builds one from a sequence of graphs, or passes a batch (or anything that has one, such
as a :class:`~graphinvariants.datasets.TUDataset`) through untouched.
"""

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .adjacency import GraphAdjacency, check_weight_argument, check_weights, describe, graph_library
from .csr import block_entries, concatenated_ranges, take_blocks
from .files import path_hint
from .reader import read_graphs
from .smiles import is_smiles, molecule_arrays, read_smiles, reads_straight

__all__ = ["GraphBatch", "as_graph_batch", "subset"]


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
    edge_labels : numpy.ndarray of shape (matrix.nnz,), optional
        A label per stored entry of ``matrix``, in CSR order (aligned with
        ``matrix.indices`` and ``matrix.data``); an undirected edge stores both
        directions, both with its label. Numbers or strings, as ``node_labels``.
        ``matrix`` must then be given in canonical form.
    node_attributes : numpy.ndarray of shape (n_nodes, n_attributes), optional
        Real attributes of every node, in row order; stored as float64, finite.

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
    edge_labels: np.ndarray = None
    node_attributes: np.ndarray = None

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
        if A.nnz and len(offsets) > 2:  # (one graph's block is the whole matrix)
            owner = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
            rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
            if np.any(owner[rows] != owner[A.indices]):
                raise ValueError("GraphBatch.matrix has entries outside the diagonal blocks given by offsets")
        if not A.has_canonical_format:
            if self.edge_labels is not None:
                raise ValueError("GraphBatch.edge_labels are aligned with stored entries, so the matrix must be "
                                 "canonical (sorted indices, no duplicates)")
            A = A.copy()
            A.sum_duplicates()
        edge_labels = self.edge_labels
        if edge_labels is not None:
            edge_labels = np.asarray(edge_labels)
            if edge_labels.shape != (A.nnz,):
                raise ValueError(f"GraphBatch.edge_labels must have shape ({A.nnz},) (one per stored entry), "
                                 f"got {edge_labels.shape}")
            if edge_labels.dtype.kind not in "biufU":
                raise TypeError(f"GraphBatch.edge_labels must be numbers or strings, got dtype {edge_labels.dtype}")
            _check_no_nan_label(edge_labels, "edge_labels")
            if edge_labels.flags.writeable:
                edge_labels = edge_labels.copy()  # the batch owns it (read-only ones are shared)
            edge_labels.setflags(write=False)
        attributes = self.node_attributes
        if attributes is not None:
            attributes = np.asarray(attributes)
            if attributes.dtype.kind not in "biuf":
                raise TypeError(f"GraphBatch.node_attributes must be real numbers, got dtype {attributes.dtype}")
            if attributes.dtype != np.float64 or attributes.flags.writeable:
                attributes = attributes.astype(np.float64)  # a copy the batch owns (read-only ones are shared)
            if attributes.ndim != 2 or attributes.shape[0] != A.shape[0]:
                raise ValueError(f"GraphBatch.node_attributes must have shape ({A.shape[0]}, n_attributes), "
                                 f"got {attributes.shape}")
            if not np.isfinite(attributes).all():
                raise ValueError("GraphBatch.node_attributes contains NaN or infinite values")
            attributes.setflags(write=False)
        labels = self.node_labels
        if labels is not None:
            labels = np.asarray(labels)
            if labels.shape != (A.shape[0],):
                raise ValueError(f"GraphBatch.node_labels must have shape ({A.shape[0]},), got {labels.shape}")
            _check_no_nan_label(labels, "node_labels")
            labels.setflags(write=False)
        offsets.setflags(write=False)
        object.__setattr__(self, "matrix", A if type(A) is sp.csr_array else sp.csr_array(A))
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "weighted", bool(self.weighted))
        object.__setattr__(self, "node_labels", labels)
        object.__setattr__(self, "edge_labels", edge_labels)
        object.__setattr__(self, "node_attributes", attributes)

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
        nodes = concatenated_ranges(self.offsets[indices], self.sizes[indices])
        labels = None if self.node_labels is None else self.node_labels[nodes]
        attributes = None if self.node_attributes is None else self.node_attributes[nodes]
        edge_labels = None
        if self.edge_labels is not None:
            edge_labels = self.edge_labels[block_entries(self.matrix, self.offsets, indices)]
        return GraphBatch(matrix, offsets, self.weighted, labels, edge_labels, attributes)

    @classmethod
    def of_arrays(cls, arrays):
        """The batch of unweighted graphs given by their arrays (a
        :class:`~graphinvariants.graphs.csr.CSRArrays`)."""
        return cls(arrays.matrix(), arrays.offsets, node_labels=arrays.node_labels, edge_labels=arrays.edge_labels)

    def unweighted(self):
        """The 0/1 pattern of the batch: itself if unweighted, else a new batch whose
        stored entries are all 1 (same graphs, same labels and attributes)."""
        if not self.weighted:
            return self
        matrix = self.matrix.copy()
        matrix.data[:] = 1.0
        return GraphBatch(matrix, self.offsets, False, self.node_labels, self.edge_labels, self.node_attributes)

    def __iter__(self) -> Iterator:
        return (self[g] for g in range(self.n_graphs))

    def __repr__(self):
        return f"<GraphBatch: {self.n_graphs} graphs, {self.n_nodes} nodes, {self.matrix.nnz} stored entries>"


def subset(X, indices):
    """The graphs of ``X`` at ``indices``, in a form every functional accepts.

    ``X``: a :class:`~graphinvariants.TUDataset` or a numpy array (a smaller one of the
    same type comes back, by fancy indexing), a :class:`GraphBatch` (by ``take``), or any
    other sequence of NetworkX or igraph graphs (a list comes back). The one way the
    package takes parts of a collection: cross-validation folds, the learned default's
    parts and the feature map's blocks.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.features import subset
    >>> [G.number_of_nodes() for G in subset([nx.path_graph(n) for n in range(3, 8)], [4, 0])]
    [7, 3]
    """
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    if hasattr(X, "batch") or isinstance(X, np.ndarray):
        return X[indices]
    if hasattr(X, "take"):
        return X.take(indices)
    return [X[int(i)] for i in indices]


def _check_no_nan_label(labels, name):
    """NaN is equal to no label, not even itself: refused where labels enter a batch."""
    if labels.dtype.kind in "fc":
        bad = np.flatnonzero(np.isnan(labels))
    elif labels.dtype.kind == "O":
        bad = np.flatnonzero([value != value for value in labels.tolist()])
    else:
        return
    if bad.size:
        raise ValueError(f"GraphBatch.{name} holds NaN ({bad.size} of them, the first at position {bad[0]}); "
                         "a label must equal itself: give numbers or strings")


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
            "graphinvariants.distributed come back with graphinvariants.distributed.from_frame(frame) (compute a Dask "
            "frame first, or use the functions of graphinvariants.distributed); an edge table becomes graphs "
            "with networkx.from_pandas_edgelist or graphinvariants.distributed.embed"
        )
    if _is_single_graph(items):
        raise TypeError(
            f"{what} must be a sequence of graphs, got a single {describe(items)}; "
            f"wrap it in a list: [G]"
        )
    if path_hint(items):
        raise TypeError(f"{what} must be a sequence of graphs, got {describe(items)}{path_hint(items)}")


def as_graph_batch(graphs, *, weight=None, node_label=None, edge_label=None, node_attributes=None, what="graphs"):
    """Return the graphs of a collection as one :class:`GraphBatch`.

    Parameters
    ----------
    graphs : sequence of graphs or of SMILES strings, GraphBatch, or an object with a ``batch`` attribute
        Graphs are anything :func:`as_adjacency` accepts; a GraphBatch (or the batch
        of a :class:`~graphinvariants.datasets.TUDataset`) is returned as it is. A
        list (tuple, array) of SMILES strings is read as molecules
        (:func:`~graphinvariants.graphs.smiles.read_smiles`: element symbol and bond
        type as ``"label"``; the ``[chem]`` extra).
    weight : str or None, keyword-only
        Edge attribute to use as weight (see :func:`as_adjacency`). A batch carries
        its own weights: for one, any name is accepted if it is weighted, and an
        unweighted batch with a weight asked for is an error (not silently unweighted).
    node_label : str or None, keyword-only
        Node attribute to keep as the batch's ``node_labels`` (NetworkX node
        attribute, igraph vertex attribute; every node must have it). Labels are
        numbers or strings; numpy scalars count as the Python scalars they stand for.
    edge_label : str or None, keyword-only
        Edge attribute to keep as the batch's ``edge_labels`` (NetworkX edge data,
        igraph edge attribute; every edge must have it), one per stored entry: both
        entries of an undirected edge get its label. Parallel edges of a multigraph
        must have equal labels.
    node_attributes : str or None, keyword-only
        Node attribute holding a sequence of real numbers (or one number), the same
        length on every node, kept as the batch's float64 ``node_attributes``.
    what : str, keyword-only
        Name of the argument, for error messages.

    Returns
    -------
    GraphBatch

    Raises
    ------
    TypeError
        If ``graphs`` is a single graph rather than a sequence, an item is not a
        graph, or a label or attribute has a wrong type (the message gives its
        position and the node or edge).
    ValueError
        If an item has no nodes, a bad weight, or a node or edge lacks an attribute
        asked for (the message gives its position and the node or edge); or a batch
        passed through lacks what is asked for; or RDKit cannot read a SMILES string
        (the message gives its position and the string).
    ImportError
        If SMILES strings are given and RDKit is not installed (the ``[chem]`` extra).

    Notes
    -----
    Labels and attributes follow the rules of :mod:`graphinvariants.graphs.attributes`:
    labels are numbers or strings (never mixed), kept exact; attributes are finite.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> gi.as_graph_batch([nx.path_graph(4), nx.star_graph(3)]).sizes.tolist()
    [4, 4]
    >>> G = nx.Graph()
    >>> G.add_node(0, label="C", xyz=(0.0, 1.0))
    >>> G.add_node(1, label="O", xyz=(0.0, 2.2))
    >>> G.add_edge(0, 1, bond=2)
    >>> batch = gi.as_graph_batch([G], node_label="label", edge_label="bond", node_attributes="xyz")
    >>> batch.node_labels.tolist(), batch.edge_labels.tolist(), batch.node_attributes.tolist()
    (['C', 'O'], [2, 2], [[0.0, 1.0], [0.0, 2.2]])
    """
    if not holds_batch(graphs):
        _check_options(weight, node_label, edge_label, node_attributes)
        if not is_smiles(graphs):  # (SMILES strings are read as they are: read_smiles words its own refusals)
            check_graph_collection(graphs, what)
    return read_graph_batch(graphs, weight=weight, node_label=node_label, edge_label=edge_label,
                            node_attributes=node_attributes, what=what)


def check_graph_collection(graphs, what):
    """Refuse what is not a collection of graphs (one graph, a data frame, a path, a
    string, a non-iterable), with the words :func:`as_graph_batch` has for it: the
    check made once where a collection enters (a caller that made it reads the
    collection with :func:`read_graph_batch`)."""
    check_not_single_graph(graphs, what)
    if isinstance(graphs, (str, bytes)) or not hasattr(graphs, "__iter__"):
        raise TypeError(f"{what} must be a sequence of graphs, got {describe(graphs)}{path_hint(graphs)}")


def read_graph_batch(graphs, *, weight=None, node_label=None, edge_label=None, node_attributes=None, what="graphs"):
    """:func:`as_graph_batch` of a collection its caller has checked
    (:func:`check_graph_collection`, as :func:`as_graph_batch` and the estimators'
    doors do): a batch passed through (against what is asked of it), SMILES strings
    read as molecules, graphs read in one pass (:mod:`~graphinvariants.graphs.reader`,
    which checks every graph). The collection is not checked again.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.graphs.batch import read_graph_batch
    >>> read_graph_batch([nx.path_graph(4), nx.star_graph(3)]).sizes.tolist()
    [4, 4]
    """
    batch = graphs if isinstance(graphs, GraphBatch) else getattr(graphs, "batch", None)
    if isinstance(batch, GraphBatch):
        if weight is not None and not batch.weighted:
            raise ValueError(f"weight={weight!r} was asked for, but {what} are an unweighted batch (a TU data "
                             "set's graphs have no edge weights); a batch carries its own weights")
        for option, value, field, kind in (
            ("node_label", node_label, batch.node_labels, "node labels"),
            ("edge_label", edge_label, batch.edge_labels, "edge labels"),
            ("node_attributes", node_attributes, batch.node_attributes, "node attributes"),
        ):
            if value is not None and field is None:
                raise ValueError(f"{option}={value!r} was asked for, but {what} are a batch without {kind}; "
                                 "a batch carries only what it was built with")
        return batch
    _check_options(weight, node_label, edge_label, node_attributes)
    if is_smiles(graphs):  # molecules (RDKit, imported here and only here)
        if weight is None and node_attributes is None and reads_straight(graphs, node_label, edge_label):
            return GraphBatch.of_arrays(molecule_arrays(graphs, node_label=node_label, edge_label=edge_label,
                                                        what=what))  # straight from RDKit's atoms and bonds
        graphs = read_smiles(graphs, what=what)
    matrix, offsets, node_labels, edge_labels, attributes = read_graphs(
        graphs, weight=weight, node_label=node_label, edge_label=edge_label, node_attributes=node_attributes, what=what)
    return GraphBatch(matrix, offsets, weighted=weight is not None, node_labels=node_labels,
                      edge_labels=edge_labels, node_attributes=attributes)


def holds_batch(graphs):
    """Whether ``graphs`` is a :class:`GraphBatch`, or carries one (a
    :class:`~graphinvariants.datasets.TUDataset`): taken as it is, not read."""
    return isinstance(graphs, GraphBatch) or isinstance(getattr(graphs, "batch", None), GraphBatch)


def _check_options(weight, node_label, edge_label, node_attributes):
    """The weight and the attribute names asked for are None or strings."""
    check_weight_argument(weight)
    for option, value in (("node_label", node_label), ("edge_label", edge_label), ("node_attributes", node_attributes)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{option} must be None or the name of an attribute (a str), got {value!r}")
