"""Turn NetworkX graphs, igraph graphs and matrices into one sparse adjacency.

Every other module works on :class:`GraphAdjacency`: a ``scipy.sparse.csr_array``
of float64 plus the node order, so per-node results map back to node names.

Conventions (the same for every input type, so they all give identical numbers):

* ``weight=None`` (the default) is the paper's graph: every edge counts 1, parallel
  edges of a multigraph collapse to one edge, a self-loop puts 1 on the diagonal.
* ``weight="attr"`` reads that edge attribute (NetworkX: edges without it weigh 1,
  as in ``networkx.to_scipy_sparse_array``; igraph: the attribute must exist).
  Parallel edges add their weights. For a matrix input any ``weight`` other than
  ``None`` means "use the stored values".
* Directed graphs keep their direction: ``A[i, j]`` is the weight of the edge
  ``i -> j``, so walks follow edge direction. Undirected graphs are symmetric.
* Weights must be finite and non-negative; zero-weight edges are dropped.
"""

import itertools
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["GraphAdjacency", "as_adjacency"]


@dataclass(frozen=True, eq=False)
class GraphAdjacency:
    """A graph as a CSR adjacency matrix plus its node order.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        Square float64 adjacency; ``matrix[i, j]`` is the weight of the edge from
        node ``i`` to node ``j``.
    nodes : tuple
        Node names in matrix order.
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

    @property
    def n_nodes(self):
        """Number of nodes (int)."""
        return self.matrix.shape[0]

    def __repr__(self):
        kind = "weighted" if self.weighted else "unweighted"
        return f"<GraphAdjacency: {self.n_nodes} nodes, {self.matrix.nnz} stored entries, {kind}>"


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
        weight 1 and collapses parallel edges. For matrices, any value other than
        ``None`` means "use the matrix entries as weights".

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
        If ``G`` is not one of the accepted types, or a matrix is not numeric.
    ValueError
        If a matrix is not square and 2-D, a weight is negative, NaN or infinite,
        or the weight attribute is missing from an igraph graph.

    Examples
    --------
    >>> import igraph as ig
    >>> import graphinvariants as gi
    >>> gi.as_adjacency(ig.Graph([(0, 1), (1, 2)]))
    <GraphAdjacency: 3 nodes, 4 stored entries, unweighted>
    """
    if isinstance(G, GraphAdjacency):
        return G
    if weight is not None and not isinstance(weight, (str, bool, numbers.Integral)):
        raise TypeError(f"weight must be None or an edge attribute name, got {weight!r}")
    module = type(G).__module__.split(".")[0]
    if module == "networkx":
        return _from_networkx(G, weight)
    if module == "igraph":
        return _from_igraph(G, weight)
    if sp.issparse(G):
        return _from_matrix(sp.csr_array(G), weight)
    if isinstance(G, np.ndarray):
        if G.ndim != 2:
            raise ValueError(f"an adjacency array must be 2-D, got shape {G.shape}")
        if not (np.issubdtype(G.dtype, np.number) or G.dtype == bool):  # before scipy sees it
            raise TypeError(f"an adjacency array must be numeric, got dtype {G.dtype}")
        return _from_matrix(sp.csr_array(G), weight)
    raise TypeError(
        "expected a networkx graph, an igraph.Graph, a scipy sparse matrix or a square "
        f"numpy array, got {type(G).__module__}.{type(G).__qualname__}"
    )


def _check_weights(data, what):
    if data.size and not np.all(np.isfinite(data)):
        raise ValueError(f"{what} contains NaN or infinite weights")
    if data.size and data.min() < 0:
        raise ValueError(f"{what} contains negative weights (min {data.min()})")


def _from_matrix(A, weight):
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"an adjacency matrix must be square, got shape {A.shape}")
    if np.iscomplexobj(A.data):
        raise TypeError("an adjacency matrix must be real, got a complex dtype")
    if not (np.issubdtype(A.dtype, np.number) or A.dtype == bool):
        raise TypeError(f"an adjacency matrix must be numeric, got dtype {A.dtype}")
    A = A.astype(np.float64, copy=True)
    A.sum_duplicates()
    _check_weights(A.data, "the adjacency matrix")
    A.eliminate_zeros()
    if weight is None:
        A.data[:] = 1.0
    return GraphAdjacency(A, tuple(range(A.shape[0])), weighted=weight is not None)


def edges_to_csr(n, rows, cols, data, directed, weighted):
    """CSR from edge arrays; undirected edges are mirrored, loops stored once."""
    index_type = np.int32 if n < 2**31 - 1 else np.int64
    rows = np.asarray(rows).astype(index_type, copy=False)
    cols = np.asarray(cols).astype(index_type, copy=False)
    if data is not None:
        data = np.asarray(data, dtype=np.float64)
    if not directed:
        loops = rows == cols
        if loops.any():
            keep = ~loops
            rows, cols = np.concatenate((rows, cols[keep])), np.concatenate((cols, rows[keep]))
            data = None if data is None else np.concatenate((data, data[keep]))
        else:
            rows, cols = np.concatenate((rows, cols)), np.concatenate((cols, rows))
            data = None if data is None else np.concatenate((data, data))
    values = np.ones(rows.size) if data is None else data
    A = sp.csr_array((values, (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    if weighted:
        A.eliminate_zeros()
    else:
        A.data[:] = 1.0
    return A


def _from_networkx(G, weight):
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
        triples = list(G.edges(data=weight, default=1.0))
        flat = np.fromiter(
            itertools.chain.from_iterable((index[u], index[v]) for u, v, _ in triples),
            dtype=np.int64,
            count=2 * m,
        )
        try:
            data = np.array([w for _, _, w in triples], dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"edge attribute {weight!r} has non-numeric values") from err
        _check_weights(data, f"edge attribute {weight!r}")
    A = edges_to_csr(len(nodes), flat[0::2], flat[1::2], data, G.is_directed(), weight is not None)
    return GraphAdjacency(A, nodes, weighted=weight is not None)


def _from_igraph(G, weight):
    n, m = G.vcount(), G.ecount()
    flat = np.fromiter(itertools.chain.from_iterable(G.get_edgelist()), dtype=np.int64, count=2 * m)
    data = None
    if weight is not None:
        if weight not in G.es.attributes():
            raise ValueError(f"the igraph graph has no edge attribute {weight!r}")
        try:
            data = np.array(G.es[weight], dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"edge attribute {weight!r} has missing or non-numeric values") from err
        _check_weights(data, f"edge attribute {weight!r}")
    names = G.vs["name"] if "name" in G.vs.attributes() else range(n)
    A = edges_to_csr(n, flat[0::2], flat[1::2], data, G.is_directed(), weight is not None)
    return GraphAdjacency(A, tuple(names), weighted=weight is not None)
