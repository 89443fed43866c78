"""Random perturbations of graphs: edge flips (the paper's), removals, additions,
degree-preserving swaps, and node removal/addition.

Every function leaves its input unchanged and returns graphs of the same kind:
NetworkX in gives NetworkX out (node and edge attributes of what survives are kept),
igraph in gives igraph out (vertex attributes are kept; edge attributes are not).
Randomness comes only from ``seed`` (None, an int or a ``numpy.random.Generator``).

Perturbations work on simple graphs: multigraphs are refused (convert them with
``networkx.Graph(G)``), self-loops are never created (flips, additions and swaps
leave those of the input alone; ``"remove_edge"`` and ``"remove_node"`` may remove
them with the rest), and a directed graph is perturbed as a directed graph (a flip
toggles the arc ``u -> v``). A node added by ``"add_node"`` copies the attributes of
the node it joins (igraph's ``name`` excepted).
"""

import math
import numbers
from collections import defaultdict

import numpy as np

from .._utils.validation import check_int, check_seed
from ..graphs.adjacency import describe, graph_library
from ..graphs.files import path_hint
from .incremental import PerturbedGraph
from .kinds import PERTURBATIONS, PerturbationError, apply_edit, check_kind

__all__ = ["PERTURBATIONS", "flip_node_pair", "perturbation_sequence", "random_flips"]

_REJECTION_TRIES = 64
_SWAP_TRIES = 200


class _IndexedSet:
    """A set with O(1) add, remove and uniform random choice."""

    def __init__(self, items=()):
        self.items = []
        self.index = {}
        for item in items:
            self.add(item)

    def __len__(self):
        return len(self.items)

    def __contains__(self, item):
        return item in self.index

    def add(self, item):
        if item not in self.index:
            self.index[item] = len(self.items)
            self.items.append(item)

    def remove(self, item):
        i = self.index.pop(item)
        last = self.items.pop()
        if i < len(self.items):
            self.items[i] = last
            self.index[last] = i

    def choice(self, rng):
        return self.items[int(rng.integers(len(self.items)))]


class GraphState:
    """Mutable simple graph on integer node ids, the engine behind every perturbation.

    Node ids are never reused: removed nodes disappear, added nodes get new ids.
    """

    def __init__(self, n_nodes, edges, directed):
        self.directed = bool(directed)
        self.nodes = _IndexedSet(range(n_nodes))
        self.n_original = n_nodes
        self.next_id = n_nodes
        self.anchor_of = {}  # added node -> the original node whose label it takes
        self.edges = _IndexedSet()
        self.neighbours = defaultdict(set)  # both directions, for node removal
        self.n_loops = 0
        # edges in sorted order, whatever order the input lists them in: the random
        # choices among edges then depend only on the graph (the study, which reads
        # CSR arrays, and perturbation_sequence, which reads graph objects, agree)
        for u, v in sorted({self.key(int(u), int(v)) for u, v in edges}):
            self._add(u, v)

    @classmethod
    def from_adjacency(cls, matrix):
        """State of a 0/1 CSR adjacency (symmetric: undirected)."""
        coo = matrix.tocoo()
        return cls.from_edges(matrix.shape[0], coo.row, coo.col, (matrix != matrix.T).nnz > 0)

    @classmethod
    def from_edges(cls, n_nodes, rows, cols, directed):
        """State of the edges ``rows[i] -> cols[i]`` (both directions listed when undirected)."""
        keep = np.ones(len(rows), bool) if directed else rows <= cols
        return cls(n_nodes, zip(rows[keep].tolist(), cols[keep].tolist()), directed)

    def key(self, u, v):
        return (u, v) if self.directed or u <= v else (v, u)

    def has_edge(self, u, v):
        return self.key(u, v) in self.edges

    def _add(self, u, v):
        key = self.key(u, v)
        if key not in self.edges:
            self.edges.add(key)
            self.neighbours[u].add(v)
            self.neighbours[v].add(u)
            self.n_loops += u == v

    def _remove(self, u, v):
        key = self.key(u, v)
        self.edges.remove(key)
        self.n_loops -= u == v
        if not self.directed or not self.has_edge(v, u):
            self.neighbours[u].discard(v)
            self.neighbours[v].discard(u)

    def _two_nodes(self, rng):
        n = len(self.nodes)
        i = int(rng.integers(n))
        j = int(rng.integers(n - 1))
        j += j >= i
        return self.nodes.items[i], self.nodes.items[j]

    def _n_pairs(self):
        n = len(self.nodes)
        return n * (n - 1) if self.directed else n * (n - 1) // 2

    # the perturbations -------------------------------------------------------
    def flip(self, rng):
        if len(self.nodes) < 2:
            raise PerturbationError("cannot flip a node pair in a graph with fewer than 2 nodes")
        u, v = self._two_nodes(rng)
        self.toggle(u, v)

    def toggle(self, u, v):
        if self.has_edge(u, v):
            self._remove(u, v)
        else:
            self._add(u, v)

    def remove_edge(self, rng):
        if not len(self.edges):
            raise PerturbationError("cannot remove an edge: the graph has no edges left")
        self._remove(*self.edges.choice(rng))

    def add_edge(self, rng):
        if len(self.edges) - self.n_loops >= self._n_pairs():
            raise PerturbationError("cannot add an edge: every pair of nodes is already joined")
        for _ in range(_REJECTION_TRIES):
            u, v = self._two_nodes(rng)
            if not self.has_edge(u, v):
                self._add(u, v)
                return
        # dense graph: enumerate the missing pairs instead of rejecting for long
        nodes = sorted(self.nodes.items)
        missing = [
            (u, v) for u in nodes for v in nodes
            if u != v and (self.directed or u < v) and not self.has_edge(u, v)
        ]
        self._add(*missing[int(rng.integers(len(missing)))])

    def swap_edges(self, rng):
        if len(self.edges) - self.n_loops < 2:
            raise PerturbationError("a degree-preserving swap needs at least two edges")
        for _ in range(_SWAP_TRIES):
            a, b = self.edges.choice(rng)
            c, d = self.edges.choice(rng)
            if not self.directed and rng.integers(2):
                c, d = d, c
            if len({a, b, c, d}) < 4 or self.has_edge(a, d) or self.has_edge(c, b):
                continue
            self._remove(a, b)
            self._remove(c, d)
            self._add(a, d)
            self._add(c, b)
            return
        raise PerturbationError(f"no degree-preserving edge swap found in {_SWAP_TRIES} random tries")

    def remove_node(self, rng):
        if len(self.nodes) < 2:
            raise PerturbationError("cannot remove a node: the graph would have no nodes left")
        node = self.nodes.choice(rng)
        for other in list(self.neighbours[node]):
            for u, v in ((node, other), (other, node)):
                if self.has_edge(u, v):
                    self._remove(u, v)
        self.neighbours.pop(node, None)
        self.nodes.remove(node)

    def add_node(self, rng):
        """Add a node joined to one uniformly chosen existing node (a pendant node)."""
        if not len(self.nodes):
            raise PerturbationError("cannot add a pendant node: the graph has no node to join it to")
        anchor = self.nodes.choice(rng)
        node = self.next_id
        self.next_id += 1
        self.nodes.add(node)
        self.anchor_of[node] = self.anchor_of.get(anchor, anchor)
        self._add(node, anchor)

    def apply(self, kind, rng):
        getattr(self, kind)(rng)

    # output ------------------------------------------------------------------
    def alive(self):
        return np.sort(np.fromiter(self.nodes.items, dtype=np.int64, count=len(self.nodes)))

    def label_sources(self):
        """For every node of :meth:`alive`, the original node whose label it carries:
        itself, or for an added node the original node it was joined to (through
        other added nodes); None when no node was added or removed (each its own)."""
        if len(self.nodes) == self.next_id == self.n_original:
            return None
        alive = self.alive()
        added = alive >= self.n_original
        alive[added] = [self.anchor_of[int(node)] for node in alive[added]]
        return alive

    def edge_arrays(self):
        """Edges as arrays of positions among :meth:`alive` (each undirected edge once)."""
        pairs = np.array(self.edges.items, dtype=np.int64).reshape(-1, 2)
        if len(self.nodes) == self.next_id:  # no node removed or added: ids are positions
            return self.next_id, pairs[:, 0], pairs[:, 1]
        alive = self.alive()
        return len(alive), np.searchsorted(alive, pairs[:, 0]), np.searchsorted(alive, pairs[:, 1])


def _state_of(G):
    """(state, rebuild) for a NetworkX or igraph graph; rebuild(state) makes the output."""
    library = graph_library(G)
    if library == "networkx":
        if G.is_multigraph():
            raise TypeError("perturbations need a simple graph; convert a multigraph with networkx.Graph(G)")
        nodes = list(G)
        index = {node: i for i, node in enumerate(nodes)}
        state = GraphState(len(nodes), ((index[u], index[v]) for u, v in G.edges()), G.is_directed())
        return state, lambda s: _to_networkx(G, nodes, s)
    if library == "igraph":
        if G.has_multiple():
            raise TypeError("perturbations need a simple graph; remove multi-edges with G.simplify(loops=False)")
        state = GraphState(G.vcount(), G.get_edgelist(), G.is_directed())
        return state, lambda s: _to_igraph(G, s)
    raise TypeError(f"perturbations take a networkx or igraph graph, got {describe(G)}{path_hint(G)}")


def _fresh_labels(G, count):
    """``count`` int labels equal to no node of ``G``.

    Equality is Python's, so ``3`` is taken by a node ``3.0``, ``numpy.int64(3)`` or
    (for ``1``) ``True``; labels start after the largest integer-valued node.
    """
    taken = set(G)
    integral = [
        int(v) for v in taken
        if isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer()
    ]
    candidate = max(integral, default=-1) + 1
    labels = []
    while len(labels) < count:
        if candidate not in taken:
            labels.append(candidate)
        candidate += 1
    return labels


def _to_networkx(G, nodes, state):
    H = G.__class__()
    H.graph.update(G.graph)
    alive = state.alive()
    new_ids = alive[alive >= len(nodes)]
    labels = dict(enumerate(nodes))
    labels.update(zip(new_ids.tolist(), _fresh_labels(G, len(new_ids))))
    # an added node copies the attributes (its label) of the original node it hangs from
    H.add_nodes_from((labels[i], dict(G.nodes[labels[state.anchor_of.get(i, i)]])) for i in alive.tolist())
    for u, v in state.edges.items:
        a, b = labels[u], labels[v]
        H.add_edge(a, b, **(dict(G.edges[a, b]) if u < len(nodes) and v < len(nodes) and G.has_edge(a, b) else {}))
    return H


def _to_igraph(G, state):
    import igraph as ig

    n, rows, cols = state.edge_arrays()
    alive = state.alive()
    H = ig.Graph(n=n, edges=list(zip(rows.tolist(), cols.tolist())), directed=G.is_directed())
    for attr in G.vs.attributes():
        values = G.vs[attr]
        if attr == "name":  # igraph's vertex names identify vertices: a new one has none
            H.vs[attr] = [values[i] if i < G.vcount() else None for i in alive.tolist()]
        else:
            H.vs[attr] = [values[state.anchor_of.get(i, i)] for i in alive.tolist()]
    for attr in G.attributes():
        H[attr] = G[attr]
    return H


def flip_node_pair(G, u, v):
    """Return a copy of ``G`` with the pair ``u, v`` flipped: an edge is deleted, a
    missing edge is added.

    Parameters
    ----------
    G : networkx.Graph or igraph.Graph
        A simple graph (directed graphs flip the arc ``u -> v``).
    u, v : node
        Two distinct nodes (igraph: vertex ids).

    Returns
    -------
    graph of the same type as ``G``

    Raises
    ------
    ValueError
        If ``u == v`` or a node is not in the graph.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> G = nx.path_graph(4)
    >>> sorted(gi.flip_node_pair(G, 0, 3).edges())
    [(0, 1), (0, 3), (1, 2), (2, 3)]
    >>> sorted(gi.flip_node_pair(G, 1, 2).edges())
    [(0, 1), (2, 3)]
    >>> G.number_of_edges()  # the input is unchanged
    3
    """
    if u == v:
        raise ValueError("flip_node_pair needs two distinct nodes")
    state, rebuild = _state_of(G)
    if graph_library(G) == "networkx":
        index = {node: i for i, node in enumerate(G)}
        missing = [x for x in (u, v) if not _is_node(x, index)]
        if missing:
            raise ValueError(f"node {missing[0]!r} is not in the graph")
        state.toggle(index[u], index[v])
    else:
        for x in (u, v):
            if isinstance(x, bool) or not (isinstance(x, (int, np.integer)) and 0 <= x < G.vcount()):
                raise ValueError(f"vertex {x!r} is not in the graph")
        state.toggle(int(u), int(v))
    return rebuild(state)


def _is_node(x, index):
    try:
        return x in index
    except TypeError:  # unhashable: no node of a networkx graph
        return False


def perturbation_sequence(G, n_steps, *, kind="flip", seed=None):
    """Apply ``n_steps`` random perturbations one after the other.

    Parameters
    ----------
    G : networkx.Graph, igraph.Graph, scipy sparse matrix or GraphAdjacency
        A simple graph; it is not modified. A matrix (one large graph) is edited in
        place (:class:`~graphinvariants.perturbation.PerturbedGraph`: its CSR plus an
        overlay of the edits) and each step is returned as a 0/1 ``csr_array`` of the
        live nodes in their order (a removed node's row and column are dropped, an
        added node comes last); a GraphAdjacency gives GraphAdjacency objects whose
        added nodes are named by fresh integers.
    n_steps : int
        Number of successive perturbations.
    kind : {"flip", "remove_edge", "add_edge", "swap_edges", "remove_node", "add_node"}, keyword-only
        ``"flip"`` (the paper's): pick two distinct nodes uniformly and toggle their
        edge. ``"remove_edge"``/``"add_edge"``: delete a uniform random edge / add a
        uniform random missing edge. ``"swap_edges"``: replace edges ``a-b, c-d`` by
        ``a-d, c-b`` (degrees are preserved). ``"remove_node"``: delete a uniform
        random node and its edges. ``"add_node"``: add a node joined to one uniform
        random existing node; it copies the node attributes (labels) of that node,
        except igraph's ``name``, which identifies a vertex.
    seed : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    list of graphs
        ``n_steps`` graphs of the type of ``G``: element ``t`` has had ``t + 1``
        perturbations.

    Raises
    ------
    ValueError
        If the perturbation cannot proceed (no edge left to remove, a complete graph
        for ``"add_edge"``, no valid swap, a single node left); the graphs produced so
        far are not returned.
    TypeError
        For multigraphs and non-graph objects.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> steps = gi.perturbation_sequence(nx.cycle_graph(8), 3, kind="remove_edge", seed=0)
    >>> [H.number_of_edges() for H in steps]
    [7, 6, 5]
    >>> A = nx.to_scipy_sparse_array(nx.cycle_graph(8), format="csr")
    >>> [H.nnz for H in gi.perturbation_sequence(A, 3, kind="remove_edge", seed=0)]
    [14, 12, 10]
    """
    check_kind(kind)
    n_steps = check_int(n_steps, "n_steps")
    rng = check_seed(seed)
    if graph_library(G) in ("scipy", "adjacency"):
        return _matrix_sequence(G, n_steps, kind, rng)
    state, rebuild = _state_of(G)
    out = []
    for _ in range(n_steps):
        apply_edit(state, kind, rng, f"step {len(out) + 1} of {n_steps}")
        out.append(rebuild(state))
    return out


def _matrix_sequence(G, n_steps, kind, rng):
    """perturbation_sequence of a matrix or GraphAdjacency: edited in place (CSR and
    overlay), each step merged into a CSR of the live nodes."""
    from ..graphs.adjacency import GraphAdjacency

    state = PerturbedGraph(G, k=None)
    state.reserve(n_steps if kind == "add_node" else 0)
    fresh = _fresh_labels(G.nodes, n_steps) if isinstance(G, GraphAdjacency) and kind == "add_node" else None
    out = []
    for _ in range(n_steps):
        apply_edit(state, kind, rng, f"step {len(out) + 1} of {n_steps}")
        A = state.to_csr()
        if isinstance(G, GraphAdjacency):
            alive = np.flatnonzero(state.alive)
            n = len(G.nodes)
            names = [G.nodes[i] if i < n else fresh[i - n] for i in alive.tolist()]
            A = GraphAdjacency(A, tuple(names))
        out.append(A)
    return out


def random_flips(G, n_steps, *, seed=None):
    """The paper's perturbation: ``n_steps`` random node-pair flips in sequence.

    Same as ``perturbation_sequence(G, n_steps, kind="flip", seed=seed)``.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> G = nx.karate_club_graph()
    >>> [round(gi.power_kernel(G, H), 3) for H in gi.random_flips(G, 3, seed=1)]
    [0.991, 0.907, 0.823]
    """
    return perturbation_sequence(G, n_steps, kind="flip", seed=seed)
