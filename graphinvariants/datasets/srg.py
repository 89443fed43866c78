"""Strongly regular graphs with parameters (25, 12, 5, 6), stored as graph6 text.

There are exactly 15 such graphs up to isomorphism (Paulus 1973), the family often
called SR25. They are conference graphs, cospectral, and every node of each has the same
walk counts of every kind; no walk-counting invariant and no 3-WL test separates any two
of them. The five stored here are those the construction in
``benchmarks/srg25_construction.py`` reaches and checks (without any download):

* the Paley graph P(25) (squares of GF(25) as differences; |Aut| = 600);
* the Latin square graphs L3(5) of the two main classes of Latin squares of order 5
  (cells adjacent when they share a row, a column or a symbol), and their complements
  (the cyclic square gives a graph isomorphic to P(25), as does its complement; the
  other square gives a graph with |Aut| = 72, and so does its complement);
* from them, Godsil-McKay switching (sets of 4 and 6 nodes), complements and Seidel
  switching to the descendants of their regular two-graphs on 26 nodes, until closed:
  one more graph and its complement (|Aut| = 6).

The remaining ten of the fifteen are not reached by these switchings; they are not
included (a published catalogue, e.g. McKay's ``sr251256.g6``, holds all fifteen).
Each string is BLISS's canonical form (igraph ``canonical_permutation``) written as
graph6.
"""

import networkx as nx

__all__ = ["SRG25_GRAPH6", "srg25_graphs"]

#: graph6 strings of five of the fifteen srg(25, 12, 5, 6), pairwise non-isomorphic
#: (|Aut| = 72, 600, 72, 6, 6 in this order).
SRG25_GRAPH6 = (
    "XFymRnSkbP_~kk\\SXqJTUjQbPghNLiH~QB\\[UpaSxI`fBcr??~~",
    "XF}dJdlseW_~WuXMueLUTtoRMaIiXqThmPucaZUHw[LFQhJ??~~",
    "X]}RKXJkrh?~pwLed]GzRxQjQqS`xZAwymCTV`IlP]DJIwJ??~~",
    "X]}RKhbiqx?~o]K]ptQ]dlgXv@OszHWyrcMDsdalRHLJKbJ??~~",
    "X]}alHRerX?~c]W]ptQ]blgXvAOwypS|JaTHtB`mRH`fK`x??~~",
)


def srg25_graphs():
    """Return five pairwise non-isomorphic strongly regular graphs srg(25, 12, 5, 6).

    Returns
    -------
    list of networkx.Graph
        Nodes ``0..24``; see the module's documentation for where they come from.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.datasets import srg25_graphs
    >>> graphs = srg25_graphs()
    >>> len(graphs), {d for G in graphs for _, d in G.degree()}
    (5, {12})
    >>> any(nx.is_isomorphic(a, b) for i, a in enumerate(graphs) for b in graphs[i + 1:])
    False
    """
    return [nx.from_graph6_bytes(text.encode()) for text in SRG25_GRAPH6]
