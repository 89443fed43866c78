"""Graphs built to test expressiveness: circular skip links and strongly regular pairs.

* :func:`csl_graphs`: the circular skip link graphs (Murphy et al., ICML 2019), 4-regular
  circulants on 41 nodes that the 1-WL test cannot tell apart;
* :func:`strongly_regular_pair`: the Shrikhande graph and the 4 x 4 rook's graph, both
  srg(16, 6, 2, 2), which no walk count can tell apart.
"""

import networkx as nx
import numpy as np

from .._utils.validation import check_int, check_seed

__all__ = ["CSL_SKIPS", "csl_graphs", "strongly_regular_pair"]

#: Skip lengths of the ten CSL classes on 41 nodes.
CSL_SKIPS = (2, 3, 4, 5, 6, 9, 11, 12, 13, 16)


def csl_graphs(*, n_copies=15, n_nodes=41, skips=CSL_SKIPS, seed=0):
    """Return the circular skip link graphs, randomly relabelled, and their classes.

    Class ``c`` is the cycle on ``n_nodes`` nodes plus the chords ``i -- i + skips[c]``
    (mod ``n_nodes``); each class holds ``n_copies`` copies whose nodes are renumbered
    by a random permutation (and stored in that order).

    Parameters
    ----------
    n_copies : int, keyword-only
        Relabelled copies per class (15 in the standard benchmark).
    n_nodes : int, keyword-only
        Nodes per graph (41).
    skips : sequence of int, keyword-only
        Skip lengths, one class each (:data:`CSL_SKIPS`).
    seed : None, int or numpy.random.Generator, keyword-only
        Seed of the relabellings.

    Returns
    -------
    graphs : list of networkx.Graph
    y : numpy.ndarray of int, shape (len(graphs),)
        The class (index into ``skips``) of each graph.

    Examples
    --------
    >>> from graphinvariants.datasets import csl_graphs
    >>> graphs, y = csl_graphs(n_copies=2)
    >>> len(graphs), sorted(set(d for _, d in graphs[0].degree())), y[:4].tolist()
    (20, [4], [0, 0, 1, 1])
    """
    n_copies = check_int(n_copies, "n_copies", minimum=1)
    n_nodes = check_int(n_nodes, "n_nodes", minimum=3)
    rng = check_seed(seed)
    graphs, y = [], []
    for c, skip in enumerate(skips):
        skip = check_int(skip, "skip", minimum=1)
        edges = [(i, (i + 1) % n_nodes) for i in range(n_nodes)] + [(i, (i + skip) % n_nodes) for i in range(n_nodes)]
        for _ in range(n_copies):
            perm = rng.permutation(n_nodes)
            G = nx.Graph()
            G.add_nodes_from(rng.permutation(n_nodes).tolist())
            G.add_edges_from((int(perm[u]), int(perm[v])) for u, v in edges)
            graphs.append(G)
            y.append(c)
    return graphs, np.array(y)


def strongly_regular_pair():
    """Return the Shrikhande graph and the 4 x 4 rook's graph: two srg(16, 6, 2, 2).

    Both have 16 nodes of degree 6, every two adjacent nodes 2 common neighbours and
    every two non-adjacent nodes 2 as well; they are not isomorphic (the rook's graph
    has cliques of four nodes, the Shrikhande graph none). Strongly regular graphs with
    equal parameters are cospectral and every node has the same closed-walk counts, so
    no walk-counting invariant separates them.

    Returns
    -------
    shrikhande, rook : networkx.Graph

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.datasets import strongly_regular_pair
    >>> shrikhande, rook = strongly_regular_pair()
    >>> nx.is_isomorphic(shrikhande, rook), max(len(c) for c in nx.find_cliques(rook))
    (False, 4)
    """
    cells = [(a, b) for a in range(4) for b in range(4)]
    steps = [(1, 0), (3, 0), (0, 1), (0, 3), (1, 1), (3, 3)]
    shrikhande = nx.Graph()
    shrikhande.add_nodes_from(range(16))
    for i, (a, b) in enumerate(cells):
        for da, db in steps:
            shrikhande.add_edge(i, cells.index(((a + da) % 4, (b + db) % 4)))
    rook = nx.convert_node_labels_to_integers(nx.cartesian_product(nx.complete_graph(4), nx.complete_graph(4)))
    return shrikhande, rook
