"""Rooted subgraphs: each node's neighbourhoods, compared by exact isomorphism class.

In the spirit of NSPDK (Costa and De Grave 2010), a node ``v`` and a radius ``r`` give
the *rooted neighbourhood* ``B(v, r)``: the subgraph induced by the nodes at distance
at most ``r`` from ``v``, with ``v`` marked as its root. A graph's features are the
counts of the isomorphism classes of its rooted neighbourhoods, for every node and
every ``r = 0 .. radius``; the kernel is their cosine-normalised inner product, as for
the other count members (``K(G, G) = 1``, positive semidefinite).

Classes are told apart exactly: each neighbourhood goes to BLISS (through igraph's
:meth:`igraph.Graph.canonical_permutation`) with vertex colours for the node labels
(``node_label``) and a colour of its own for the root; bond types (``edge_label``) are
made visible to BLISS by subdividing every edge with a vertex coloured by its bond
type. The canonical form (radius, the colours in canonical order, the canonical edge
list) is the class. Two rooted neighbourhoods get the same feature exactly when they
are isomorphic by an isomorphism that keeps the root, the node labels and the bond
types; :func:`rooted_subgraph_classes` gives the classes themselves.

Directed graphs: a ball holds the nodes reached along out-edges within ``r`` steps,
and the neighbourhood is the induced directed graph (arcs, with their bond types),
classed by directed isomorphism; a neighbourhood whose arcs all go both ways with one
bond type is classed as the undirected one, as an undirected graph is the directed
graph with both directions of every edge.

Feature ids do not depend on the batch: a class is named by a 128-bit BLAKE2b digest
of its canonical form written with the label *values* (not their places in a batch's
vocabulary), so two collections embedded apart, in one process or in two, name each
class alike, and their vocabularies merge by that name. BLISS's canonical labelling
depends only on the order of the colour values, and the colours of every batch are
numbered in the order of (kind, label value) (kind: other node, root, bond), so a
class's canonical form is the same in every batch. Two classes share a digest only
if BLAKE2b collides (probability about ``m**2 / 2**129`` for ``m`` classes).

Cost is bounded on dense graphs by ``max_nodes``: a neighbourhood with more nodes is
not given to BLISS. It is described instead by the sorted multiset of (distance from
the root, node label, degree) over its nodes, the degree counted for the nodes inside
(distance below ``r``, whose edges all lie in the neighbourhood) and left out for the
nodes on its boundary. That description is an isomorphism invariant of the rooted
neighbourhood but no longer a complete one: two non-isomorphic neighbourhoods over the
cap can share it (and its features are kept apart from the exact ones). The number of
such neighbourhoods is recorded in the batch (``n_over_cap``).

Work is done on blocks of nodes (:data:`BLOCK_NODES` roots at a time): the balls of a
block are rows of the sparse ``(I + A)^r``, at most ``BLOCK_NODES x largest ball``
stored entries, and the candidate edges of the neighbourhoods under the cap are at
most ``BLOCK_NODES x max_nodes (max_nodes - 1) / 2`` node pairs; no ``n x n``
structure is formed.
"""

import hashlib

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_int
from .counts import CountFeatures, CountMap, RowLookup, count_matrix, relabel_columns, unique_rows

__all__ = ["BLOCK_NODES", "RootedSubgraph", "RootedSubgraphBatch", "rooted_subgraph_classes"]

#: Roots handled together (one block of rows of ``(I + A)^r``).
BLOCK_NODES = 1024


class RootedSubgraphBatch:
    """Counts of the classes of rooted neighbourhoods of many graphs.

    Attributes
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_classes)
        How many rooted neighbourhoods of each class each graph has (all radii).
    vocabulary : numpy.ndarray of int64, shape (n_classes, 2)
        The 128-bit name of each column's class (two int64 halves), rows sorted: the
        same class has the same name in every batch and every process.
    n_over_cap : int
        Neighbourhoods with more than ``max_nodes`` nodes, counted by their coarser
        description instead of their isomorphism class.
    params : dict
        The parameters the counts were made with.
    """

    def __init__(self, counts, vocabulary, n_over_cap=0, *, params=None):
        self.counts = counts
        self.vocabulary = vocabulary
        self.n_over_cap = int(n_over_cap)
        self.params = dict(params) if params is not None else {}

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<RootedSubgraphBatch: {len(self)} graphs, {self.counts.shape[1]} classes>"


class RootedSubgraph(CountFeatures):
    """Counts of exact isomorphism classes of rooted neighbourhoods (cosine-normalised).

    Parameters
    ----------
    radius : int, default=2
        Largest radius: the neighbourhoods of radius ``0 .. radius`` of every node are
        counted (radius 0 is the node's own label).
    node_label : str or None, keyword-only, default=None
        Node attribute whose values colour the nodes (``"label"`` for a TUDataset's
        node labels); None: all nodes alike.
    edge_label : str or None, keyword-only, default=None
        Edge attribute whose values type the edges (``"label"`` for a TUDataset's bond
        types); None: all edges alike.
    max_nodes : int, keyword-only, default=64
        Largest neighbourhood (in nodes) whose class is computed exactly; larger ones
        are counted by a coarser invariant (see the module's documentation).

    Notes
    -----
    Registered as ``"rooted_subgraph"``. Edge weights and self-loops are ignored;
    directed graphs are read along out-edges (see the module's documentation). At
    radius 1 the neighbourhoods tell the
    Shrikhande graph from the 4 x 4 rook's graph (a 6-cycle against two triangles
    under every root) and separate all 15 strongly regular graphs srg(25, 12, 5, 6),
    which no walk count and no 3-WL test can. Like every cosine-normalised member, it
    is blind to size (``G`` and two copies of ``G`` give ``K = 1``).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.datasets import strongly_regular_pair
    >>> from graphinvariants.embeddings import RootedSubgraph, WeisfeilerLehman
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> shrikhande, rook = strongly_regular_pair()
    >>> float(pairwise_kernels([shrikhande, rook], functional=WeisfeilerLehman())[0, 1])
    1.0
    >>> float(pairwise_kernels([shrikhande, rook], functional=RootedSubgraph(radius=1))[0, 1])
    0.5
    >>> graphs = [nx.path_graph(4), nx.cycle_graph(4), nx.star_graph(3)]
    >>> pairwise_kernels(graphs, functional=RootedSubgraph(radius=1)).round(3)
    array([[1.   , 0.866, 0.881],
           [0.866, 1.   , 0.555],
           [0.881, 0.555, 1.   ]])
    """

    batch_type = RootedSubgraphBatch
    weight = None

    def __init__(self, radius=2, *, node_label=None, edge_label=None, max_nodes=64):
        self.radius = check_int(radius, "radius", minimum=0)
        if node_label is not None and not isinstance(node_label, str):
            raise TypeError(f"node_label must be None or a node attribute name, got {node_label!r}")
        self.node_label = node_label
        if edge_label is not None and not isinstance(edge_label, str):
            raise TypeError(f"edge_label must be None or an edge attribute name, got {edge_label!r}")
        self.edge_label = edge_label
        self.max_nodes = check_int(max_nodes, "max_nodes", minimum=1)

    def embedding_params(self):
        return {"radius": self.radius, "node_label": self.node_label, "edge_label": self.edge_label,
                "max_nodes": self.max_nodes}

    def embed(self, batch):
        classes = _Classes(batch, self.node_label, self.edge_label)
        owner = np.repeat(np.arange(len(batch)), batch.sizes)
        nodes, ids, n_over_cap = classes.occurrences(self.radius, self.max_nodes)
        names = classes.names()
        vocabulary, column = unique_rows(names) if len(names) else (np.zeros((0, 2), np.int64), np.zeros(0, np.int64))
        counts = count_matrix(owner[nodes], column[ids], len(batch), len(vocabulary))
        return RootedSubgraphBatch(counts, vocabulary, n_over_cap, params=self.embedding_params())

    def count_map(self, embedded):
        return RootedCountMap(embedded)

    def merge(self, left, right):
        if left.vocabulary.shape[1:] != (2,) or right.vocabulary.shape[1:] != (2,):
            raise ValueError("rooted-subgraph vocabularies must have two int64 columns")
        names, place = unique_rows(np.concatenate((left.vocabulary, right.vocabulary)))
        n_left = len(left.vocabulary)
        return (relabel_columns(left.counts, place[:n_left], len(names)),
                relabel_columns(right.counts, place[n_left:], len(names)))


class RootedCountMap(CountMap):
    """The classes of a fitted :class:`RootedSubgraphBatch` as columns: another batch's
    classes are looked up by their 128-bit names (the same in every batch), in time set
    by that batch alone."""

    def __init__(self, fitted):
        if fitted.vocabulary.shape[1:] != (2,):
            raise ValueError("rooted-subgraph vocabularies must have two int64 columns")
        self.n_columns = int(fitted.counts.shape[1])
        self.names = RowLookup(fitted.vocabulary)

    def columns(self, embedded):
        if embedded.vocabulary.shape[1:] != (2,):
            raise ValueError("rooted-subgraph vocabularies must have two int64 columns")
        return self.names.find(embedded.vocabulary)


def rooted_subgraph_classes(graph, *, radius=1, node_label=None, edge_label=None, max_nodes=64):
    """The class of every rooted neighbourhood of one graph, by node and radius.

    Parameters
    ----------
    graph : graph
        A NetworkX or igraph graph (or anything :func:`~graphinvariants.as_graph_batch`
        reads).
    radius, node_label, edge_label, max_nodes
        As for :class:`RootedSubgraph`.

    Returns
    -------
    numpy.ndarray of int64, shape (n_nodes, radius + 1, 2)
        The 128-bit name of the class of ``B(v, r)`` for node ``v`` (in the graph's node
        order) and ``r = 0 .. radius``: equal names, isomorphic rooted neighbourhoods
        (exactly, up to ``max_nodes`` nodes).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import rooted_subgraph_classes
    >>> names = rooted_subgraph_classes(nx.path_graph(4), radius=1)
    >>> bool((names[0] == names[3]).all()), bool((names[0, 1] == names[1, 1]).all())
    (True, False)
    """
    functional = RootedSubgraph(radius, node_label=node_label, edge_label=edge_label, max_nodes=max_nodes)
    batch = functional.graph_batch([graph], what="graph")
    classes = _Classes(batch, node_label, edge_label)
    nodes, ids, _ = classes.occurrences(functional.radius, functional.max_nodes)
    names = classes.names()
    out = np.empty((batch.n_nodes, functional.radius + 1, 2), dtype=np.int64)
    radii = np.array([classes.keys[i][0] for i in ids.tolist()], dtype=np.int64)
    out[nodes, radii] = names[ids]
    return out


class _Classes:
    """The classes of rooted neighbourhoods met in one batch, numbered as they are met."""

    def __init__(self, batch, node_label, edge_label):
        A = batch.matrix
        self.n = batch.n_nodes
        self.A = A
        self.degree = np.diff(A.indptr).astype(np.int64)
        if node_label is None:
            self.node_values = np.array([None], dtype=object)
            self.node_colour = np.zeros(self.n, np.int64)
        else:
            if batch.node_labels is None:
                raise ValueError(f"node_label={node_label!r} was asked for, but the graphs carry no node labels")
            values, colour = np.unique(batch.node_labels, return_inverse=True)
            self.node_values, self.node_colour = values, colour.reshape(-1).astype(np.int64)
        self.edge_colour = None
        self.edge_values = np.array([None], dtype=object)
        if edge_label is not None:
            if batch.edge_labels is None:
                raise ValueError(f"edge_label={edge_label!r} was asked for, but the graphs carry no edge labels")
            values, colour = np.unique(batch.edge_labels, return_inverse=True)
            self.edge_values, self.edge_colour = values, colour.reshape(-1).astype(np.int64)
        self.n_node_colours = len(self.node_values)
        # sorted keys of the stored entries: row * n + column (CSR is canonical)
        rows = np.repeat(np.arange(self.n, dtype=np.int64), self.degree)
        self.entry_keys = rows * self.n + A.indices.astype(np.int64)
        self.keys = []  # the description of every class met, in the batch's colour numbers
        self.index = {}

    def _id(self, key):
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.keys)
            self.keys.append(key)
        return found

    def occurrences(self, radius, max_nodes):
        """``(nodes, class ids, n_over_cap)``: one entry per node and radius."""
        n = self.n
        nodes, ids = [np.arange(n, dtype=np.int64)], []
        ids.append(np.array([self._id((0, "label", int(c))) for c in self.node_colour.tolist()], dtype=np.int64))
        if radius == 0 or n == 0:
            return nodes[0], ids[0] if ids else np.zeros(0, np.int64), 0
        # 0/1 entries and int32 sums (at most n + 1 paths per entry): a sum never wraps to
        # 0, which scipy's product would drop as if the node were not in the ball
        step = sp.csr_array(self.A.astype(bool).astype(np.int32) + sp.identity(n, dtype=np.int32, format="csr"))
        over = 0
        for start in range(0, n, BLOCK_NODES):
            stop = min(n, start + BLOCK_NODES)
            roots = np.arange(start, stop, dtype=np.int64)
            ball = sp.csr_array((np.ones(len(roots), np.int32), (np.arange(len(roots)), roots)), shape=(len(roots), n))
            distance = np.zeros(len(roots), np.int64)
            for r in range(1, radius + 1):
                previous_keys = _entry_keys(ball, n)
                ball = sp.csr_array(ball @ step)
                ball.sum_duplicates()
                ball.sort_indices()
                ball.data[:] = 1
                keys = _entry_keys(ball, n)
                new_distance = np.full(ball.nnz, r, np.int64)
                new_distance[np.searchsorted(keys, previous_keys)] = distance
                distance = new_distance
                block_ids, n_big = self._block(ball, roots, distance, r, max_nodes)
                nodes.append(roots)
                ids.append(block_ids)
                over += n_big
        return np.concatenate(nodes), np.concatenate(ids), over

    def _block(self, ball, roots, distance, r, max_nodes):
        """Class ids of the balls of radius ``r`` of one block of roots."""
        n = self.n
        sizes = np.diff(ball.indptr).astype(np.int64)
        ids = np.empty(len(roots), np.int64)
        members = ball.indices.astype(np.int64)
        small = np.flatnonzero(sizes <= max_nodes)
        big = np.flatnonzero(sizes > max_nodes)
        # every pair p < q of members of each small ball, as positions in ball.indices
        pair_counts = sizes[small] * (sizes[small] - 1) // 2
        first_of_ball = ball.indptr[small].astype(np.int64)
        within = np.repeat(sizes[small], sizes[small])  # per member entry of the small balls
        entry = np.flatnonzero(np.repeat(sizes <= max_nodes, sizes))
        local = entry - np.repeat(first_of_ball, sizes[small])
        later = within - 1 - local  # members after each entry in its ball
        p = np.repeat(entry, later)
        offsets = np.cumsum(later) - later
        q = p + 1 + (np.arange(len(p)) - np.repeat(offsets, later))
        a, b = members[p], members[q]
        has_ab, where_ab = self._entries(a, b)
        has_ba, where_ba = self._entries(b, a)
        keep = has_ab | has_ba
        ball_of_pair = np.repeat(np.arange(len(small)), pair_counts)[keep]
        p, q = p[keep], q[keep]
        has_ab, has_ba, where_ab, where_ba = has_ab[keep], has_ba[keep], where_ab[keep], where_ba[keep]
        # a neighbourhood whose entries are all stored both ways (with one bond type) is
        # undirected, as an undirected graph is stored; otherwise its entries are arcs
        one_way = has_ab != has_ba
        if self.edge_colour is not None:
            one_way |= has_ab & has_ba & (self.edge_colour[where_ab] != self.edge_colour[where_ba])
        directed_ball = np.zeros(len(small), bool)
        directed_ball[ball_of_pair[one_way]] = True
        bounds = np.searchsorted(ball_of_pair, np.arange(len(small) + 1))
        root_pos = np.searchsorted(_entry_keys(ball, n), np.arange(len(roots), dtype=np.int64) * n + roots)
        colour = self.node_colour[members]
        L = self.n_node_colours
        for i, g in enumerate(small.tolist()):
            lo, hi = int(ball.indptr[g]), int(ball.indptr[g + 1])
            cols = colour[lo:hi].copy()
            cols[root_pos[g] - lo] += L
            e0, e1 = bounds[i], bounds[i + 1]
            if not directed_ball[i]:
                u, v = p[e0:e1] - lo, q[e0:e1] - lo
                bonds = None if self.edge_colour is None else self.edge_colour[where_ab[e0:e1]] + 2 * L
                ids[g] = self._id(_canonical(r, cols, u, v, bonds))
                continue
            ab, ba = has_ab[e0:e1], has_ba[e0:e1]
            u = np.concatenate((p[e0:e1][ab], q[e0:e1][ba])) - lo
            v = np.concatenate((q[e0:e1][ab], p[e0:e1][ba])) - lo
            bonds = None if self.edge_colour is None else self.edge_colour[
                np.concatenate((where_ab[e0:e1][ab], where_ba[e0:e1][ba]))] + 2 * L
            ids[g] = self._id(_canonical(r, cols, u, v, bonds, directed=True))
        for g in big.tolist():
            lo, hi = int(ball.indptr[g]), int(ball.indptr[g + 1])
            d = distance[lo:hi]
            deg = np.where(d < r, self.degree[members[lo:hi]], -1)
            rows = np.column_stack((d, colour[lo:hi], deg))
            rows = rows[np.lexsort(rows.T[::-1])]
            ids[g] = self._id((r, "over cap", int(self.node_colour[roots[g]]), rows.tobytes()))
        return ids, len(big)

    def _entries(self, a, b):
        """Whether ``a -> b`` is a stored entry of the batch's matrix, and where."""
        if not len(self.entry_keys):
            return np.zeros(len(a), bool), np.zeros(len(a), np.int64)
        where = np.minimum(np.searchsorted(self.entry_keys, a * self.n + b), len(self.entry_keys) - 1)
        return self.entry_keys[where] == a * self.n + b, where

    def names(self):
        """The 128-bit name of every class met (rows of two int64), from the label values."""
        out = np.empty((len(self.keys), 2), dtype=np.int64)
        for i, key in enumerate(self.keys):
            digest = hashlib.blake2b(repr(self._portable(key)).encode(), digest_size=16).digest()
            out[i] = np.frombuffer(digest, dtype="<i8")
        return out

    def _colour_value(self, c):
        L = self.n_node_colours
        if c < 2 * L:
            return ("root" if c >= L else "node", _plain(self.node_values[c % L]))
        return ("bond", _plain(self.edge_values[c - 2 * L]))

    def _portable(self, key):
        """A class's description with label values in place of the batch's colour numbers."""
        r, kind = key[0], key[1]
        if kind == "label":
            return (r, kind, _plain(self.node_values[key[2]]))
        if kind == "over cap":
            rows = np.frombuffer(key[3], dtype=np.int64).reshape(-1, 3)
            return (r, kind, _plain(self.node_values[key[2]]),
                    tuple((int(d), _plain(self.node_values[c]), int(g)) for d, c, g in rows.tolist()))
        colours = np.frombuffer(key[2], dtype=np.int64)
        edges = np.frombuffer(key[3], dtype=np.int64)
        return (r, kind, tuple(self._colour_value(int(c)) for c in colours.tolist()), tuple(edges.tolist()))


def _entry_keys(ball, n):
    rows = np.repeat(np.arange(ball.shape[0], dtype=np.int64), np.diff(ball.indptr))
    return rows * n + ball.indices.astype(np.int64)


def _canonical(r, colours, u, v, bond_colours, directed=False):
    """BLISS's canonical form of one rooted neighbourhood: ``(r, kind, colours in
    canonical order, canonical edge list)`` as bytes, kind ``"exact"`` for an undirected
    neighbourhood (``u < v`` are the local ends of its edges) and ``"directed"`` for
    arcs ``u -> v``. With bond colours, each edge becomes a path (each arc a directed
    path) through a new vertex of that colour."""
    kind = "directed" if directed else "exact"
    size = len(colours)
    if bond_colours is not None and len(u):
        middle = size + np.arange(len(u), dtype=np.int64)
        colours = np.concatenate((colours, bond_colours))
        u, v = np.concatenate((u, middle)), np.concatenate((middle, v))
        size = len(colours)
    if len(u) == 0 and size == 1:
        return (r, "exact", colours.tobytes(), b"")
    import igraph as ig  # here, not at the top: "import graphinvariants" loads no igraph

    graph = ig.Graph(n=size, edges=np.column_stack((u, v)).tolist(), directed=directed)
    # igraph's permute_vertices(perm), which gives the canonical graph, puts old
    # vertex perm[j] at place j: the place of vertex i is the inverse permutation's
    order = np.asarray(graph.canonical_permutation(color=colours.tolist()), dtype=np.int64)
    place = np.empty(size, np.int64)
    place[order] = np.arange(size)
    canonical_colours = colours[order]
    cu, cv = place[u], place[v]
    if directed:
        edges = np.sort(cu * size + cv)
    else:
        low, high = np.minimum(cu, cv), np.maximum(cu, cv)
        edges = np.sort(low * size + high)
    return (r, kind, canonical_colours.tobytes(), edges.tobytes())


def _plain(value):
    """A label value as a plain Python value that prints the same in every process
    (numpy scalars as Python numbers, integral floats as ints)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
