"""Cai-Fürer-Immerman pairs: non-isomorphic graphs that local refinement cannot tell apart.

Cai, Fürer and Immerman ("An optimal lower bound on the number of variables for graph
identification", Combinatorica 1992) replace every vertex ``x`` of a connected base
graph by a *gadget*: two nodes ``a(x, e, 0)`` and ``a(x, e, 1)`` for each edge ``e``
at ``x``, and one middle node ``m(x, S)`` for each subset ``S`` of even size of the
edges at ``x``, joined to ``a(x, e, 1)`` for ``e`` in ``S`` and to ``a(x, e, 0)`` for
the others. An edge ``e = xy`` of the base joins ``a(x, e, i)`` to ``a(y, e, i)``;
*twisted*, it joins ``a(x, e, i)`` to ``a(y, e, 1 - i)``. With no twisted edge or one,
the two graphs are not isomorphic (the parity of the twists is an invariant), and a
vertex of degree ``d`` gives ``2 d + 2**(d - 1)`` nodes (18 for the triangle, 40 for
``K4``).

What tells them apart is the treewidth of the base (Dawar and Richerby, "The power of
counting logics on restricted classes of finite structures", CSL 2007; Neuen,
"Homomorphism-distinguishing closedness for graphs of bounded tree-width", 2023): the
``k``-variable counting logic, that is folklore ``(k - 1)``-WL (oblivious ``k``-WL), tells
the pair over ``G`` apart exactly when ``G`` has treewidth below ``k``. So 1-WL never
separates a pair over a base with a cycle (treewidth 2), folklore 2-WL (= 3-WL)
separates the pairs over cycles and other bases of treewidth 2, and not those over
``K4`` or any 3-regular base (treewidth at least 3).
"""

from itertools import combinations

import networkx as nx
import numpy as np

from .._utils.validation import check_seed

__all__ = ["cfi_graph", "cfi_pair"]


def cfi_graph(base, *, twisted=0):
    """The Cai-Fürer-Immerman graph of a base graph, with ``twisted`` edges twisted.

    Parameters
    ----------
    base : networkx.Graph
        A connected, undirected graph with at least one edge and no self-loop.
    twisted : int, keyword-only, default=0
        Number of base edges twisted (the first ones in ``base.edges``): graphs with
        an even number are isomorphic to the untwisted one, with an odd number to the
        twisted one.

    Returns
    -------
    networkx.Graph
        Nodes ``0 .. N - 1`` in gadget order (vertex by vertex of the base); node
        attribute ``"gadget"`` names the base vertex, ``"part"`` is ``"a"`` or ``"m"``.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.datasets import cfi_graph
    >>> G = cfi_graph(nx.complete_graph(4))
    >>> G.number_of_nodes(), G.number_of_edges()
    (40, 60)
    """
    edges = _check_base(base)
    twisted = int(twisted)
    if not 0 <= twisted <= len(edges):
        raise ValueError(f"twisted must be between 0 and the {len(edges)} edges of the base, got {twisted}")
    G = nx.Graph()
    index = {}

    def node(key, gadget, part):
        if key not in index:
            index[key] = len(index)
            G.add_node(index[key], gadget=gadget, part=part)
        return index[key]

    for x in base.nodes:
        at = [e for e in edges if x in e]
        for e in at:
            node(("a", x, e, 0), x, "a")
            node(("a", x, e, 1), x, "a")
        for size in range(0, len(at) + 1, 2):
            for subset in combinations(range(len(at)), size):
                m = node(("m", x, subset), x, "m")
                for i, e in enumerate(at):
                    G.add_edge(m, index[("a", x, e, int(i in subset))])
    for number, e in enumerate(edges):
        x, y = e
        flip = int(number < twisted)
        for i in (0, 1):
            G.add_edge(index[("a", x, e, i)], index[("a", y, e, i ^ flip)])
    return G


def cfi_pair(base, *, seed=None):
    """A Cai-Fürer-Immerman pair over ``base``: the graph and its twisted partner.

    Parameters
    ----------
    base : networkx.Graph
        A connected, undirected graph with at least one edge and no self-loop.
    seed : None, int or numpy.random.Generator, keyword-only
        If given, the nodes of both graphs are renumbered by random permutations and
        stored in that order (so that nothing can be read from the numbering); None
        keeps the gadget order of :func:`cfi_graph`.

    Returns
    -------
    untwisted, twisted : networkx.Graph
        Two non-isomorphic graphs with the same number of nodes and edges, every node
        of the same degree in both.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.datasets import cfi_pair
    >>> G, H = cfi_pair(nx.cycle_graph(3), seed=0)
    >>> G.number_of_nodes(), nx.is_isomorphic(G, H), nx.is_isomorphic(G, cfi_pair(nx.cycle_graph(3))[0])
    (18, False, True)
    """
    graphs = [cfi_graph(base), cfi_graph(base, twisted=1)]
    if seed is None:
        return graphs[0], graphs[1]
    rng = check_seed(seed)
    out = []
    for G in graphs:
        perm = rng.permutation(G.number_of_nodes())
        H = nx.Graph()
        order = np.argsort(perm)  # stored in the new numbering's order
        H.add_nodes_from((int(perm[v]), G.nodes[int(v)]) for v in order)
        H.add_edges_from((int(perm[u]), int(perm[v])) for u, v in G.edges)
        out.append(H)
    return out[0], out[1]


def _check_base(base):
    if not isinstance(base, nx.Graph) or base.is_directed() or base.is_multigraph():
        raise TypeError(f"base must be an undirected networkx.Graph, got {type(base).__name__}")
    if base.number_of_edges() == 0 or not nx.is_connected(base):
        raise ValueError("base must be connected and have at least one edge (the pair of a disconnected base "
                         "is isomorphic when a component has no twist)")
    if nx.number_of_selfloops(base):
        raise ValueError("base must have no self-loop")
    return [tuple(e) for e in base.edges]
