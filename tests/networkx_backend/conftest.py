"""Helpers of the NetworkX backend's tests: random graphs and the installed-backend check."""

import networkx as nx
import pytest
from hypothesis import strategies as st

#: Node and edge attribute values whose ``str`` differ in length and order (NetworkX
#: sorts the label strings, so "10" < "2" < "x" and "" must all come out right).
VALUES = [0, 1, 2, 10, 12, 2.5, "", "x", "ab", "s_", None, (1, 2), "a\x00"]


@st.composite
def attributed_graphs(draw, *, max_nodes=12, multigraph=False):
    """A random (di)graph with self-loops, string node keys in a shuffled order, and
    node attribute ``a`` and edge attribute ``e`` drawn from :data:`VALUES`."""
    directed = draw(st.booleans())
    n = draw(st.integers(0, max_nodes))
    pairs = st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0)))
    edges = draw(st.lists(pairs, max_size=3 * n)) if n else []
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
           (True, True): nx.MultiDiGraph}[directed, multigraph]
    G = cls()
    order = draw(st.permutations(range(n)))
    G.add_nodes_from(f"n{i}" for i in order)
    values = st.sampled_from(VALUES)
    for u in G:
        G.nodes[u]["a"] = draw(values)
    for u, v in edges:
        G.add_edge(f"n{u}", f"n{v}", e=draw(values))
    return G


def backend_installed():
    return "graphinvariants" in nx.utils.backends.backends


needs_entry_points = pytest.mark.skipif(
    not backend_installed(),
    reason="the networkx.backends entry point is not installed (pip install -e . installs it)")
