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

import itertools
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .csr import edges_to_csr

__all__ = ["GraphAdjacency", "as_adjacency"]


@dataclass(frozen=True, eq=False)
class GraphAdjacency:
    """A graph as a CSR adjacency matrix plus its node order.

    Built by :func:`as_adjacency`; when built by hand, the arguments are checked as
    strictly as any other input.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        Square float64 adjacency; ``matrix[i, j]`` is the weight of the edge from
        node ``i`` to node ``j``. Finite, non-negative.
    nodes : tuple
        Node names in matrix order, one per row.
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
        object.__setattr__(self, "matrix", sp.csr_array(A))
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "weighted", bool(self.weighted))

    @property
    def n_nodes(self):
        """Number of nodes (int)."""
        return self.matrix.shape[0]

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


def describe(obj):
    """``module.Class`` of an object, for error messages."""
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def not_a_graph_message(G):
    """Why ``G`` is not accepted as a graph, and what to pass instead."""
    hint = ""
    if type(G).__module__.split(".")[0] == "pandas":
        hint = "; for an edge table use networkx.from_pandas_edgelist(df) (or igraph.Graph.DataFrame)"
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
    G : networkx.Graph, igraph.Graph, scipy sparse matrix/array, numpy.ndarray or GraphAdjacency
        The graph. NetworkX ``Graph``, ``DiGraph``, ``MultiGraph`` and
        ``MultiDiGraph`` are accepted, as is any square non-negative matrix
        (rows are the "from" nodes).
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
        nodes = range(matrix.shape[0])
    else:
        raise TypeError(not_a_graph_message(G))
    return GraphAdjacency(matrix, tuple(nodes), weighted=weight is not None)


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
    A = edges_to_csr(len(nodes), flat[0::2], flat[1::2], data, directed=G.is_directed(), weighted=weight is not None)
    return A, nodes


def igraph_csr(G, weight):
    """(CSR, node names) of an igraph graph."""
    n, m = G.vcount(), G.ecount()
    flat = np.fromiter(itertools.chain.from_iterable(G.get_edgelist()), dtype=np.int64, count=2 * m)
    data = None
    if weight is not None:
        values = G.es[weight] if weight in G.es.attributes() else [None] * m
        data = weight_values(values, weight, G.get_edgelist())
    names = G.vs["name"] if "name" in G.vs.attributes() else range(n)
    A = edges_to_csr(n, flat[0::2], flat[1::2], data, directed=G.is_directed(), weighted=weight is not None)
    return A, tuple(names)
