"""One graph as a sparse adjacency: the single entry point for every input type.

:func:`as_adjacency` turns a NetworkX graph, an igraph graph, a scipy sparse matrix or a
numpy array into a :class:`GraphAdjacency`: a ``scipy.sparse.csr_array`` of float64 plus
the node order, so per-node results map back to node names. :func:`graph_library` is the
one dispatch on where a graph object comes from; the perturbation module uses it too.

Conventions (the same for every input type, so they all give identical numbers):

* ``weight=None`` (the default) is the paper's graph: every edge counts 1, parallel
  edges of a multigraph collapse to one edge, a self-loop puts 1 on the diagonal.
* ``weight="attr"`` reads that edge attribute. It must be present on every edge, for
  NetworkX and igraph alike, and hold a real number (not a string or a bool); parallel
  edges add their weights. For a matrix, any string means "use the stored values".
* Directed graphs keep their direction: ``A[i, j]`` is the weight of the edge
  ``i -> j``, so walks follow edge direction. Undirected graphs are symmetric.
* Weights must be finite and non-negative; zero-weight edges are dropped.
"""

import functools
import itertools
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._utils.validation import describe
from .csr import check_summed_weights, edges_to_csr, index_dtype, is_symmetric, pattern_only
from .files import path_hint

__all__ = ["GraphAdjacency", "as_adjacency", "from_edge_arrays"]


@dataclass(frozen=True, eq=False)
class GraphAdjacency:
    """A graph as a CSR adjacency matrix plus its node order.

    Built by :func:`as_adjacency`; when built by hand, the arguments are checked as
    strictly as any other input.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        Square float64 adjacency; ``matrix[i, j]`` is the weight of the edge from
        node ``i`` to node ``j``. Finite, non-negative. An unweighted graph of at
        least ``2**20`` nodes plus stored entries built by the library stores no
        ones: its ``data`` is a read-only broadcast of ``1.0`` (copy the matrix to
        edit it).
    nodes : tuple or range
        Node names in matrix order, one per row (``range(n)`` for a matrix given
        without names: node ``i`` is row ``i``).
    weighted : bool
        Whether the entries are edge weights (``True``) or all ones.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> adj = gi.as_adjacency(nx.path_graph(["a", "b", "c"]))
    >>> adj.nodes
    ('a', 'b', 'c')
    >>> adj.matrix.toarray()
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """

    matrix: sp.csr_array
    nodes: tuple
    weighted: bool = False

    def __post_init__(self):
        A = self.matrix
        if not sp.issparse(A) or A.format != "csr":
            raise TypeError(
                "GraphAdjacency.matrix must be a scipy.sparse CSR matrix; use "
                f"graphinvariants.as_adjacency to convert a {type(A).__name__}"
            )
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"GraphAdjacency.matrix must be square, got shape {A.shape}")
        if A.dtype != np.float64:
            raise TypeError(f"GraphAdjacency.matrix must be float64, got {A.dtype}; use as_adjacency")
        check_weights(A.data, "GraphAdjacency.matrix")
        nodes = tuple(self.nodes)
        if len(nodes) != A.shape[0]:
            raise ValueError(f"GraphAdjacency.nodes has {len(nodes)} names for {A.shape[0]} rows")
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
            check_summed_weights(A, nodes)
        object.__setattr__(self, "matrix", sp.csr_array(A))
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "weighted", bool(self.weighted))

    @classmethod
    def _trusted(cls, matrix, nodes, *, weighted):
        """An adjacency from a matrix already checked and canonical (private to the
        package: :func:`as_adjacency` uses it to skip a second pass over the entries)."""
        out = object.__new__(cls)
        object.__setattr__(out, "matrix", matrix)
        object.__setattr__(out, "nodes", nodes)
        object.__setattr__(out, "weighted", bool(weighted))
        return out

    @property
    def n_nodes(self):
        """Number of nodes (int)."""
        return self.matrix.shape[0]

    @functools.cached_property
    def n_edges(self):
        """Number of edges (int): an undirected edge counts once, as a self-loop does.

        A GraphAdjacency does not record whether its graph was directed; its matrix
        tells. A symmetric matrix (the same stored entries, with the same values, as
        its transpose) is an undirected graph: its edges are the pairs ``{i, j}``
        with ``A[i, j] != 0``, ``(nnz + self-loops) / 2``. Any other matrix is a
        directed graph: every stored entry is one arc, ``nnz``. So a directed graph
        whose arcs all come in pairs of equal weight counts its pairs (count its
        arcs with ``matrix.nnz``). Computed once, in time ``O(nnz)``.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> gi.as_adjacency(nx.path_graph(4)).n_edges  # 6 stored entries
        3
        >>> gi.as_adjacency(nx.DiGraph([(0, 1), (1, 2), (2, 1)])).n_edges
        3
        """
        A = self.matrix
        loops = int(np.count_nonzero(A.indices == np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))))
        return (A.nnz - loops) // 2 + loops if is_symmetric(A) else int(A.nnz)

    def __repr__(self):
        kind = "weighted" if self.weighted else "unweighted"
        return f"<GraphAdjacency: {self.n_nodes} nodes, {self.matrix.nnz} stored entries, {kind}>"


def graph_library(G):
    """Where a graph object comes from: ``"networkx"``, ``"igraph"``, ``"scipy"``,
    ``"numpy"``, ``"adjacency"`` (a GraphAdjacency), or None for anything else."""
    if isinstance(G, GraphAdjacency):
        return "adjacency"
    module = type(G).__module__.split(".")[0]
    if module in ("networkx", "igraph"):
        return module
    if sp.issparse(G):
        return "scipy"
    if isinstance(G, np.ndarray):
        return "numpy"
    return None


def not_a_graph_message(G):
    """Why ``G`` is not accepted as a graph, and what to pass instead."""
    hint = ""
    if type(G).__module__.split(".")[0] == "pandas":
        hint = "; for an edge table use networkx.from_pandas_edgelist(df) (or igraph.Graph.DataFrame)"
    elif path_hint(G):
        hint = path_hint(G)
    elif isinstance(G, (list, tuple)):
        hint = "; for an edge list use networkx.Graph(edges)"
    elif isinstance(G, str):
        hint = ("; one SMILES string is not a graph: graphinvariants.datasets.from_smiles(s) makes it one, and a "
                "list of SMILES strings is taken wherever a collection of graphs is")
    return (
        "expected a networkx graph, an igraph.Graph, a scipy sparse matrix or a square "
        f"numpy array, got {describe(G)}{hint}"
    )


def check_weight_argument(weight):
    """``weight`` is None or an edge attribute name."""
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be None or the name of an edge attribute (a str), got {weight!r}")


def as_adjacency(G, *, weight=None):
    """Return the sparse adjacency and node order of a graph.

    Parameters
    ----------
    G : networkx.Graph, igraph.Graph, scipy sparse matrix/array, numpy.ndarray, GraphAdjacency or pair of arrays
        The graph. NetworkX ``Graph``, ``DiGraph``, ``MultiGraph`` and
        ``MultiDiGraph`` are accepted, as is any square non-negative matrix
        (rows are the "from" nodes), and a tuple ``(sources, targets)`` of two 1-D
        integer numpy arrays, an undirected graph on nodes ``0..max id``
        (:func:`from_edge_arrays` takes weights, direction and isolated nodes).
    weight : str or None, keyword-only
        Edge attribute holding the weights; ``None`` (default) treats every edge as
        weight 1 and collapses parallel edges. For matrices, any string means "use the
        matrix entries as weights".

    Returns
    -------
    GraphAdjacency
        CSR matrix (float64, canonical: sorted indices, no duplicates, no zeros) and
        node names. NetworkX node order is ``list(G)``; igraph node names are the
        ``"name"`` vertex attribute when present, vertex ids otherwise; a matrix's
        nodes are ``0..n-1``.

    Raises
    ------
    TypeError
        If ``G`` is not one of the accepted types (the message says how to pass an
        edge list or a data frame), a matrix is not numeric or is masked, or
        ``weight`` is not a string.
    ValueError
        If a matrix is not square and 2-D, a weight is missing, not a number,
        negative, NaN or infinite.

    Examples
    --------
    >>> import igraph as ig
    >>> import graphinvariants as gi
    >>> gi.as_adjacency(ig.Graph([(0, 1), (1, 2)]))
    <GraphAdjacency: 3 nodes, 4 stored entries, unweighted>
    """
    library = graph_library(G)
    if library == "adjacency":
        return G
    check_weight_argument(weight)
    if library == "networkx":
        matrix, nodes = networkx_csr(G, weight)
    elif library == "igraph":
        matrix, nodes = igraph_csr(G, weight)
    elif library in ("scipy", "numpy"):
        matrix = matrix_csr(G, weight)
        return GraphAdjacency._trusted(matrix, range(matrix.shape[0]), weighted=weight is not None)
    elif _edge_arrays_pair(G):
        if weight is not None:
            raise ValueError("a pair of edge arrays has no edge attributes: use "
                             "graphinvariants.from_edge_arrays(sources, targets, weights=...)")
        return from_edge_arrays(*G)
    else:
        raise TypeError(not_a_graph_message(G))
    return GraphAdjacency(matrix, tuple(nodes), weighted=weight is not None)


def from_edge_arrays(sources, targets, *, n_nodes=None, weights=None, directed=False):
    """A graph from two arrays of edge end points, without NetworkX.

    Parameters
    ----------
    sources, targets : array_like of int, shape (m,)
        Edge ``e`` joins ``sources[e]`` and ``targets[e]``; node ids are ``0..n-1``.
    n_nodes : int, optional, keyword-only
        Number of nodes (default: the largest id plus one); isolated nodes need it.
    weights : array_like of float, shape (m,), optional, keyword-only
        Edge weights (finite, non-negative numbers, not booleans); parallel edges add
        them, their sums must be finite too, and zero weights store nothing. ``None`` (default): every edge counts 1 and parallel edges
        collapse, as :func:`as_adjacency` does with ``weight=None``.
    directed : bool, keyword-only
        If False (default) each edge also goes back; a self-loop is stored once.

    Returns
    -------
    GraphAdjacency
        Nodes ``range(n)``; int32 indices when they fit.

    Raises
    ------
    ValueError
        If the arrays differ in length or are not 1-D, an id is negative or not below
        ``n_nodes``, a weight is negative, NaN or infinite, or the weights of parallel
        edges add up to infinity (the message names the edge).
    TypeError
        If the ids are not integers, or the weights are booleans.

    Examples
    --------
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> adj = gi.from_edge_arrays(np.array([0, 1, 1]), np.array([1, 2, 2]))
    >>> adj
    <GraphAdjacency: 3 nodes, 4 stored entries, unweighted>
    >>> gi.as_adjacency((np.array([0, 1]), np.array([1, 2]))).matrix.nnz  # a pair of arrays
    4
    """
    u, v = np.asarray(sources), np.asarray(targets)
    for name, a in (("sources", u), ("targets", v)):
        if a.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
        if a.size and not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"{name} must hold integer node ids, got dtype {a.dtype}")
    if u.size != v.size:
        raise ValueError(f"sources and targets differ in length ({u.size} and {v.size})")
    top = int(max(u.max(initial=-1), v.max(initial=-1)))
    low = int(min(u.min(initial=0), v.min(initial=0)))
    if low < 0:
        raise ValueError(f"node ids must be non-negative, got {low}")
    if n_nodes is None:
        n_nodes = top + 1
    elif isinstance(n_nodes, (bool, np.bool_)) or not isinstance(n_nodes, numbers.Integral) or n_nodes < 0:
        raise ValueError(f"n_nodes must be a non-negative integer, got {n_nodes!r}")
    elif top >= n_nodes:
        raise ValueError(f"node id {top} is not below n_nodes={n_nodes}")
    data = None
    if weights is not None:
        if _holds_booleans(weights):
            raise TypeError("weights must be numbers, not booleans (True would count as a weight of 1.0)")
        data = np.asarray(weights, dtype=np.float64)
        if data.shape != u.shape:
            raise ValueError(f"weights must have one value per edge, shape {u.shape}, got {data.shape}")
        check_weights(data, "weights")
    n_nodes = int(n_nodes)
    A = edges_to_csr(n_nodes, u, v, data, directed=bool(directed), weighted=weights is not None)
    if index_dtype(max(n_nodes, A.nnz)) == np.int32:
        A.indices, A.indptr = A.indices.astype(np.int32, copy=False), A.indptr.astype(np.int32, copy=False)
    if weights is None:
        A = pattern_only(A)
    return GraphAdjacency._trusted(A, range(n_nodes), weighted=weights is not None)


def _holds_booleans(values):
    """Whether an array of weights is boolean, or a sequence holds a bool (which numpy
    would turn into 1.0 among floats)."""
    if isinstance(values, np.ndarray):
        return values.dtype == bool or (values.dtype == object and any(isinstance(x, (bool, np.bool_)) for x in values.flat))
    return any(isinstance(x, (bool, np.bool_)) for x in np.ravel(np.asarray(values, dtype=object)))


def _edge_arrays_pair(G):
    """Whether ``G`` is a pair ``(sources, targets)`` of 1-D integer numpy arrays."""
    return (
        isinstance(G, tuple)
        and len(G) == 2
        and all(isinstance(a, np.ndarray) and a.ndim == 1 and np.issubdtype(a.dtype, np.integer) for a in G)
    )


def check_weights(data, what):
    """Weights must be finite and non-negative (``data`` is a float array)."""
    if data.size and not np.all(np.isfinite(data)):
        raise ValueError(f"{what} contains NaN or infinite weights")
    if data.size and data.min() < 0:
        raise ValueError(f"{what} contains negative weights (min {data.min()})")


def matrix_csr(G, weight):
    """Canonical float64 CSR of a scipy sparse matrix or numpy array."""
    if isinstance(G, np.ma.MaskedArray):
        raise TypeError("masked arrays are not accepted: fill the masked entries first, e.g. A.filled(0)")
    if isinstance(G, np.ndarray):
        if G.ndim != 2:
            raise ValueError(f"an adjacency array must be 2-D, got shape {G.shape}")
        if not (np.issubdtype(G.dtype, np.number) or G.dtype == bool):  # before scipy sees it
            raise TypeError(f"an adjacency array must be numeric, got dtype {G.dtype}")
    shared = _shared_csr(G, weight)
    if shared is not None:
        return shared
    A = sp.csr_array(G)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        hint = ""
        if A.ndim == 2 and A.shape[1] in (2, 3) and A.shape[0] != A.shape[1]:
            hint = "; an (m, 2) array looks like an edge list: pass networkx.Graph(edges.tolist())"
        raise ValueError(f"an adjacency matrix must be square, got shape {A.shape}{hint}")
    if np.iscomplexobj(A.data):
        raise TypeError("an adjacency matrix must be real, got a complex dtype")
    if not (np.issubdtype(A.dtype, np.number) or A.dtype == bool):
        raise TypeError(f"an adjacency matrix must be numeric, got dtype {A.dtype}")
    A = A.astype(np.float64, copy=True)
    A.sum_duplicates()
    check_weights(A.data, "the adjacency matrix")
    A.eliminate_zeros()
    if weight is None:
        A.data[:] = 1.0
    return A


def _shared_csr(G, weight):
    """The CSR of a canonical float64 scipy CSR input without copying its entries, or
    None when the general path must copy (another format or dtype, duplicates, stored
    zeros, a ``weight=None`` matrix whose entries are not all ones).

    Two passes over the stored values (minimum and maximum) check them; the index
    arrays are shared when they are int32, or int32 copies when they fit. For one
    graph of ten million entries this is what keeps the input from costing a copy of
    the matrix.
    """
    if not (sp.issparse(G) and G.format == "csr" and G.ndim == 2 and G.shape[0] == G.shape[1]):
        return None
    if G.dtype != np.float64 or not G.has_canonical_format:
        return None
    data = G.data
    if data.size:
        low, high = float(data.min()), float(data.max())
        if np.isnan(low) or np.isnan(high) or np.isinf(high):
            raise ValueError("the adjacency matrix contains NaN or infinite weights")
        if low < 0:
            raise ValueError(f"the adjacency matrix contains negative weights (min {low})")
        if low == 0:
            return None  # stored zeros are not edges: the general path drops them
        if weight is None and not low == high == 1.0:
            data = np.broadcast_to(np.float64(1.0), data.shape)  # read-only, no memory (pattern_only)
    n = G.shape[0]
    indices, indptr = G.indices, G.indptr
    if index_dtype(max(n, G.nnz)) == np.int32:
        indices, indptr = indices.astype(np.int32, copy=False), indptr.astype(np.int32, copy=False)
    A = sp.csr_array((data, indices, indptr), shape=G.shape, copy=False)
    A.has_sorted_indices = True
    A.has_canonical_format = True
    return A


def weight_values(values, weight, edges):
    """Float array of edge weights; a missing, boolean or non-numeric value is an error."""
    for value, edge in zip(values, edges):
        if value is None:
            raise ValueError(f"edge {edge} has no attribute {weight!r}; give every edge a weight or use weight=None")
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise ValueError(f"edge {edge}: weight {weight!r} must be a real number, got {value!r}")
    data = np.array(values, dtype=np.float64)
    check_weights(data, f"edge attribute {weight!r}")
    return data


def networkx_csr(G, weight):
    """(CSR, node tuple) of a NetworkX graph of any of its four classes."""
    nodes = tuple(G)
    index = {node: i for i, node in enumerate(nodes)}
    m = G.number_of_edges()
    if weight is None:
        flat = np.fromiter(
            itertools.chain.from_iterable((index[u], index[v]) for u, v in G.edges()),
            dtype=np.int64,
            count=2 * m,
        )
        data = None
    else:
        triples = list(G.edges(data=weight, default=None))
        flat = np.fromiter(
            itertools.chain.from_iterable((index[u], index[v]) for u, v, _ in triples),
            dtype=np.int64,
            count=2 * m,
        )
        data = weight_values([w for _, _, w in triples], weight, ((u, v) for u, v, _ in triples))
    A = edges_to_csr(len(nodes), flat[0::2], flat[1::2], data, directed=G.is_directed(), weighted=weight is not None,
                     nodes=nodes)
    return (A if weight is not None else pattern_only(A)), nodes


def igraph_csr(G, weight):
    """(CSR, node names) of an igraph graph."""
    n, m = G.vcount(), G.ecount()
    flat = np.fromiter(itertools.chain.from_iterable(G.get_edgelist()), dtype=np.int64, count=2 * m)
    data = None
    if weight is not None:
        values = G.es[weight] if weight in G.es.attributes() else [None] * m
        data = weight_values(values, weight, G.get_edgelist())
    names = G.vs["name"] if "name" in G.vs.attributes() else range(n)
    A = edges_to_csr(n, flat[0::2], flat[1::2], data, directed=G.is_directed(), weighted=weight is not None,
                     nodes=names)
    return (A if weight is not None else pattern_only(A)), tuple(names)
