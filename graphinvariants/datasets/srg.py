"""Strongly regular graphs with parameters (25, 12, 5, 6), stored as graph6 text.

There are exactly 15 such graphs up to isomorphism (Paulus 1973), the family often
called SR25; all fifteen are stored here. They are conference graphs, cospectral, and
every node of each has the same walk counts of every kind; no walk-counting invariant
and no 3-WL test separates any two of them.

They are the descendants of the four regular two-graphs on 26 points (isolate a point
by Seidel switching, delete it), and the slow test ``tests/datasets/test_srg_construction.py``
builds them that way without any download and checks that it reproduces these strings:

* the two-graph of the Paley graph P(25) plus an isolated node: one descendant, P(25)
  (|Aut| = 600);
* the two-graph of the Latin square graphs L3(5) of the non-cyclic Latin square of
  order 5 (and of their complements): four descendants (|Aut| = 72, 72, 6, 6);
* the two-graphs of the two Steiner triple systems STS(13) (blocks adjacent when
  disjoint: an srg(26, 10, 3, 4), whose Seidel matrix has eigenvalues +-5): two
  descendants (|Aut| = 3, 3) from one and eight (|Aut| = 6, 6, 2, 2, 2, 2, 1, 1) from
  the other.

The set is closed under Godsil-McKay switching of the two-graphs' Seidel matrices on
sets of four points. Each string is BLISS's canonical form (igraph
``canonical_permutation``) written as graph6.
"""

import networkx as nx

__all__ = ["SRG25_GRAPH6", "srg25_graphs"]

#: graph6 strings of the fifteen srg(25, 12, 5, 6), pairwise non-isomorphic
#: (|Aut| = 72, 600, 72, 6, 6, 3, 2, 2, 6, 6, 2, 3, 1, 1, 2 in this order).
SRG25_GRAPH6 = (
    "XFymRnSkbP_~kk\\SXqJTUjQbPghNLiH~QB\\[UpaSxI`fBcr??~~",
    "XF}dJdlseW_~WuXMueLUTtoRMaIiXqThmPucaZUHw[LFQhJ??~~",
    "X]}RKXJkrh?~pwLed]GzRxQjQqS`xZAwymCTV`IlP]DJIwJ??~~",
    "X]}RKhbiqx?~o]K]ptQ]dlgXv@OszHWyrcMDsdalRHLJKbJ??~~",
    "X]}alHRerX?~c]W]ptQ]blgXvAOwypS|JaTHtB`mRH`fK`x??~~",
    "XFyj\\fSsRP_~[wrSMqMSslIMhjCLlhI}pBlkVHoSuGpfBcr??~~",
    "X]}RKXJkji?~pwLedlGvbwqfSqd@xYawy]CYZ`H\\QmAjDwT??~~",
    "X]}RLHRejY?~o]K]pyQ\\TlgTv@_wyhSzRaUEtBa\\RGtJKcj??~~",
    "X]}akddfJU?~g]S]pxQ\\bloTua`S{owzJcLHsd`mRH`fK`x??~~",
    "X]}akddfJU?~o]K]pxQ\\dloTu``SyowzJQUExBa\\RHLJKbJ??~~",
    "X]}akhbiiy?~c]W]pyI\\Tlgdv@_szPW{jcLIsd`]RH`fK`x??~~",
    "XbnbdVItPx?~wwkUjFUkQjgDlOgFzzH]GuUgbRkKpiRJWaj??~~",
    "Xl{rCdNtdY?~Lqd[WZQXvxgoz``SykXXZ`LI\\DH[skUJKqF??~~",
    "Xr|U@eNxP{?~diXed\\IZbssitaTGxWq{prDCiLoYxHTxPa{??~~",
    "Xr|U@eNxP{?~hiXeb\\IZbssitaSgxXQ{prDCiLWixKRxPa{??~~",
)


def srg25_graphs():
    """Return the fifteen strongly regular graphs srg(25, 12, 5, 6), pairwise non-isomorphic.

    Returns
    -------
    list of networkx.Graph
        Nodes ``0..24``; see the module's documentation for where they come from.

    Examples
    --------
    >>> from graphinvariants.datasets import srg25_graphs
    >>> graphs = srg25_graphs()
    >>> len(graphs), {d for G in graphs for _, d in G.degree()}
    (15, {12})
    >>> import igraph as ig  # BLISS: NetworkX's VF2 takes about 20 s for the 105 pairs
    >>> copies = [ig.Graph(25, list(G.edges())) for G in graphs]
    >>> any(a.isomorphic(b) for i, a in enumerate(copies) for b in copies[i + 1:])
    False
    """
    return [nx.from_graph6_bytes(text.encode()) for text in SRG25_GRAPH6]
