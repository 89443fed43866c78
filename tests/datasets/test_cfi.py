"""The Cai-Fürer-Immerman construction (graphinvariants.datasets.cfi)."""

import networkx as nx
import pytest

from graphinvariants.datasets import cfi_graph, cfi_pair


@pytest.mark.parametrize("base", [nx.cycle_graph(3), nx.cycle_graph(4), nx.path_graph(3), nx.star_graph(3)])
def test_sizes_degrees_and_isomorphism(base):
    G, H = cfi_pair(base, seed=0)
    expected = sum(2 * d + 2 ** (d - 1) for _, d in base.degree)
    assert G.number_of_nodes() == H.number_of_nodes() == expected
    assert sorted(d for _, d in G.degree) == sorted(d for _, d in H.degree)
    # stored in a new order: not the gadget order of cfi_graph
    assert [G.nodes[v]["gadget"] for v in G] != [cfi_graph(base).nodes[v]["gadget"] for v in cfi_graph(base)]
    # the base is connected: one twist changes the parity of the twists, an invariant
    assert not nx.is_isomorphic(G, H)
    assert nx.is_isomorphic(G, cfi_graph(base))
    # two twists are none, three are one (a twist moves along paths of the base)
    assert nx.is_isomorphic(cfi_graph(base, twisted=2), G)
    if base.number_of_edges() >= 3:
        assert nx.is_isomorphic(cfi_graph(base, twisted=3), H)


def test_k4_sizes():
    G = cfi_graph(nx.complete_graph(4))
    assert (G.number_of_nodes(), G.number_of_edges()) == (4 * (6 + 4), 4 * 4 * 3 + 6 * 2)


def test_bad_bases():
    with pytest.raises(ValueError, match="connected"):
        cfi_pair(nx.empty_graph(3))
    with pytest.raises(TypeError, match="undirected"):
        cfi_pair(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="self-loop"):
        cfi_pair(nx.Graph([(0, 1), (1, 1)]))
    with pytest.raises(ValueError, match="twisted"):
        cfi_graph(nx.cycle_graph(3), twisted=4)
