"""The backend's graph type: a NetworkX graph read once into CSR, with the attributes asked for.

NetworkX converts a graph for a backend by calling the backend's ``convert_from_nx``
and keeps the result in the graph's conversion cache (``G.__networkx_cache__``, on by
default, ``nx.config.cache_converted_graphs``), keyed by the attributes it asked for;
any method that changes the graph (``add_edge`` ...) empties that cache. So a graph is
read once per set of attributes, however many backend calls follow.

The graph is kept as three numpy arrays (CSR without scipy): the WL hashes read nothing
else, so a process whose first backend call is a hash does not import scipy (about a
fifth of a second); ``number_of_walks`` builds the scipy matrix on first use
(:attr:`BackendGraph.adjacency`).
"""

import functools
from itertools import chain

import networkx as nx
import numpy as np

__all__ = ["BackendGraph", "MISSING", "from_networkx", "to_networkx"]


class _Missing:
    """The value of an attribute a node or an edge does not have (NetworkX would raise
    ``KeyError`` on reading it, and so does the backend, at the same moment)."""

    def __repr__(self):
        return "MISSING"

    def __reduce__(self):
        return "MISSING"


#: The placeholder for an attribute a node or edge does not have.
MISSING = _Missing()


class BackendGraph:
    """A NetworkX graph as the ``graphinvariants`` backend holds it.

    Parameters
    ----------
    nodes : list
        The node keys, in the graph's order (``list(G)``); row ``i`` is ``nodes[i]``.
    indptr, indices, counts : numpy.ndarray of int64
        The out-neighbours by row, in CSR: row ``i``'s neighbours are
        ``indices[indptr[i]:indptr[i + 1]]`` (positions in ``nodes``), and ``counts``
        the number of edges to each (1 in a simple graph, the number of keys in a
        multigraph); an undirected graph stores both directions, a self-loop once.
    directed, multigraph : bool
        What kind of NetworkX graph it was read from.
    node_attrs : dict, optional
        Attribute name -> list of values, one per node (:data:`MISSING` where absent).
    edge_attrs : dict, optional
        Attribute name -> object array, one value per stored entry of ``indices``
        (:data:`MISSING` where absent). Not kept for multigraphs (their parallel edges
        share one stored entry).
    graph_attrs : dict, optional
        The graph's own attributes (``G.graph``).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.networkx_backend.graph import from_networkx
    >>> G = nx.Graph([("a", "b", {"w": 2}), ("b", "c")])
    >>> H = from_networkx(G, edge_attrs={"w": None})
    >>> H
    <BackendGraph: undirected, 3 nodes, 2 edges>
    >>> H.adjacency.toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    >>> H.edge_attrs["w"].tolist()
    [2, 2, MISSING, MISSING]
    """

    __networkx_backend__ = "graphinvariants"

    def __init__(self, nodes, indptr, indices, counts, *, directed, multigraph, node_attrs=None, edge_attrs=None,
                 graph_attrs=None):
        self.nodes = nodes
        self.indptr = indptr
        self.indices = indices
        self.counts = counts
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.node_attrs = {} if node_attrs is None else node_attrs
        self.edge_attrs = {} if edge_attrs is None else edge_attrs
        self.graph = {} if graph_attrs is None else graph_attrs

    @functools.cached_property
    def adjacency(self):
        """The adjacency as a ``scipy.sparse.csr_array`` of int64 (``counts`` as values),
        built on first use (it imports scipy)."""
        import scipy.sparse as sp

        n = len(self.nodes)
        return sp.csr_array((self.counts, self.indices, self.indptr), shape=(n, n))

    @property
    def rows(self):
        """The row (source node) of each stored entry, int64."""
        return np.repeat(np.arange(len(self.nodes), dtype=np.int64), np.diff(self.indptr))

    def loops(self):
        """Each node's number of self-loops (int64; ``A.diagonal()``)."""
        rows = self.rows
        on_diagonal = self.indices == rows
        return np.bincount(rows[on_diagonal], weights=self.counts[on_diagonal],
                           minlength=len(self.nodes)).astype(np.int64)

    # the few Graph methods NetworkX's decorators (not_implemented_for ...) call
    def is_directed(self):
        """True if read from a directed graph."""
        return self.directed

    def is_multigraph(self):
        """True if read from a multigraph."""
        return self.multigraph

    def number_of_nodes(self):
        """The number of nodes."""
        return len(self.nodes)

    def number_of_edges(self):
        """The number of edges (parallel edges counted, as NetworkX counts them)."""
        total = int(self.counts.sum())
        if self.directed:
            return total
        return (total + int(self.loops().sum())) // 2

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        if self.multigraph:
            kind += " multigraph"
        return f"<BackendGraph: {kind}, {len(self.nodes)} nodes, {self.number_of_edges()} edges>"

    def row_sums(self):
        """Out-degrees counted with multiplicity (int64), the row sums of ``adjacency``."""
        if not self.multigraph:
            return np.diff(self.indptr)
        return np.bincount(self.rows, weights=self.counts, minlength=len(self.nodes)).astype(np.int64)


def _attributes_to_read(wanted, preserve, dicts):
    """The names to keep: ``wanted``'s keys, every name found if ``preserve``, else none."""
    if wanted is not None:
        return list(wanted)
    if preserve:
        return sorted(set(chain.from_iterable(dicts)), key=repr)
    return []


def from_networkx(G, *, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                  preserve_node_attrs=False, preserve_graph_attrs=False):
    """Read a NetworkX graph into a :class:`BackendGraph` (``convert_from_nx``'s work).

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    edge_attrs, node_attrs : dict, optional
        Attribute name -> default, as NetworkX's dispatcher passes them. Only the names
        are used: an absent attribute is kept as :data:`MISSING`, so that the backend
        raises NetworkX's ``KeyError`` where NetworkX reads it.
    preserve_edge_attrs, preserve_node_attrs, preserve_graph_attrs : bool
        Keep every attribute found (when no names are given).

    Raises
    ------
    NotImplementedError
        For edge attributes of a multigraph (its parallel edges are one stored entry).
    """
    # rows in the order of G's nodes (G._node), as NetworkX's functions take them; a
    # Graph subclass may keep G._adj in another order
    nodes = list(G)
    n = len(nodes)
    adj = G._adj
    neighbours = list(adj.values()) if list(adj) == nodes else [adj[u] for u in nodes]
    multigraph = G.is_multigraph()
    lengths = np.fromiter(map(len, neighbours), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    nnz = int(indptr[-1])
    flat = chain.from_iterable(neighbours)  # read once, by whichever fromiter below
    if nodes == list(range(n)) and set(map(type, nodes)) <= {int}:  # not 0j, Fraction(1), 2.0 ...
        indices = np.fromiter(flat, dtype=np.int64, count=nnz)
    else:
        position = dict(zip(nodes, range(n)))
        indices = np.fromiter(map(position.__getitem__, flat), dtype=np.int64, count=nnz)
    if multigraph:
        counts = np.fromiter(map(len, chain.from_iterable(nbrs.values() for nbrs in neighbours)),
                             dtype=np.int64, count=nnz)
    else:
        counts = np.ones(nnz, dtype=np.int64)

    node_names = _attributes_to_read(node_attrs, preserve_node_attrs, G._node.values())
    kept_nodes = {name: [dd.get(name, MISSING) for dd in G._node.values()] for name in node_names}  # list(G) order
    # the edge dicts are read only to find every name (preserve_edge_attrs without names);
    # NetworkX's dispatcher passes edge_attrs={} for a call that needs none
    edge_dicts = chain.from_iterable(nbrs.values() for nbrs in neighbours)
    edge_names = _attributes_to_read(edge_attrs, preserve_edge_attrs, edge_dicts)
    if edge_names and multigraph:
        raise NotImplementedError("the graphinvariants backend keeps no edge attributes of multigraphs")
    kept_edges = {}
    for name in edge_names:
        values = np.empty(nnz, dtype=object)
        values[:] = [d.get(name, MISSING) for d in chain.from_iterable(nbrs.values() for nbrs in neighbours)]
        kept_edges[name] = values
    graph_attrs = dict(G.graph) if preserve_graph_attrs else None
    return BackendGraph(nodes, indptr, indices, counts, directed=G.is_directed(), multigraph=multigraph, node_attrs=kept_nodes,
                        edge_attrs=kept_edges, graph_attrs=graph_attrs)


def to_networkx(H):
    """The NetworkX graph a :class:`BackendGraph` was read from, with the attributes it kept.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.networkx_backend.graph import from_networkx, to_networkx
    >>> G = nx.MultiDiGraph([(0, 1), (0, 1), (1, 1)])
    >>> H = to_networkx(from_networkx(G))
    >>> type(H).__name__, sorted(H.edges())
    ('MultiDiGraph', [(0, 1), (0, 1), (1, 1)])
    """
    if H.directed:
        G = nx.MultiDiGraph() if H.multigraph else nx.DiGraph()
    else:
        G = nx.MultiGraph() if H.multigraph else nx.Graph()
    G.graph.update(H.graph)
    nodes = H.nodes
    G.add_nodes_from(nodes)
    for name, values in H.node_attrs.items():
        for node, value in zip(nodes, values):
            if value is not MISSING:
                G._node[node][name] = value
    rows = H.rows.tolist()
    cols = H.indices.tolist()
    counts = H.counts.tolist()
    for position, (i, j, count) in enumerate(zip(rows, cols, counts)):
        if not H.directed and j < i:
            continue
        u, v = nodes[i], nodes[j]
        if H.multigraph:
            G.add_edges_from([(u, v)] * count)
        else:
            data = {name: values[position] for name, values in H.edge_attrs.items()
                    if values[position] is not MISSING}
            G.add_edge(u, v, **data)
    return G
