import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.perturbation import PERTURBATIONS


def _degrees(G):
    return sorted(d for _, d in G.degree())


def test_flip_toggles_and_leaves_the_input_alone():
    G = nx.path_graph(4)
    G.nodes[0]["colour"] = "red"
    G.edges[0, 1]["weight"] = 2.5
    H = gi.flip_node_pair(G, 0, 3)
    assert H.has_edge(0, 3) and H.nodes[0]["colour"] == "red" and H.edges[0, 1]["weight"] == 2.5
    assert not gi.flip_node_pair(H, 3, 0).has_edge(0, 3)
    assert G.number_of_edges() == 3 and not G.has_edge(0, 3)
    with pytest.raises(ValueError, match="distinct"):
        gi.flip_node_pair(G, 1, 1)
    with pytest.raises(ValueError, match="not in the graph"):
        gi.flip_node_pair(G, 0, 9)


def test_igraph_in_igraph_out():
    g = ig.Graph([(0, 1), (1, 2)])
    g.vs["name"] = ["a", "b", "c"]
    h = gi.flip_node_pair(g, 0, 2)
    assert isinstance(h, ig.Graph) and h.ecount() == 3 and h.vs["name"] == ["a", "b", "c"]
    assert g.ecount() == 2
    g.vs["label"] = [6, 7, 8]
    steps = gi.perturbation_sequence(g, 2, kind="add_node", seed=0)
    assert [s.vcount() for s in steps] == [4, 5] and steps[-1].vs["name"][3:] == [None, None]
    for s in steps:  # a new vertex copies the label of the vertex it joins, not its name
        for v in range(3, s.vcount()):
            assert s.vs[v]["label"] in {s.vs[u]["label"] for u in s.neighbors(v)}
    with pytest.raises(ValueError, match="not in the graph"):
        gi.flip_node_pair(g, 0, 7)


def test_directed_flip_toggles_one_arc():
    D = nx.DiGraph([(0, 1)])
    H = gi.flip_node_pair(D, 1, 0)
    assert isinstance(H, nx.DiGraph) and H.has_edge(1, 0) and H.has_edge(0, 1)
    assert not gi.flip_node_pair(D, 0, 1).has_edge(0, 1)


@pytest.mark.parametrize("kind", PERTURBATIONS)
def test_each_kind_does_what_it_says(kind):
    G = nx.gnp_random_graph(30, 0.2, seed=1)
    steps = gi.perturbation_sequence(G, 5, kind=kind, seed=7)
    assert len(steps) == 5
    m, n = G.number_of_edges(), G.number_of_nodes()
    if kind == "flip":
        assert all(abs(H.number_of_edges() - m) <= t + 1 for t, H in enumerate(steps))
        assert all(nx.symmetric_difference(steps[t], steps[t + 1]).number_of_edges() == 1 for t in range(4))
    elif kind == "remove_edge":
        assert [H.number_of_edges() for H in steps] == [m - 1, m - 2, m - 3, m - 4, m - 5]
        assert all(set(H.edges()) <= set(G.edges()) for H in steps)
    elif kind == "add_edge":
        assert [H.number_of_edges() for H in steps] == [m + 1, m + 2, m + 3, m + 4, m + 5]
        assert all(set(G.edges()) <= set(H.edges()) for H in steps)
    elif kind == "swap_edges":
        assert all(_degrees(H) == _degrees(G) and H.number_of_edges() == m for H in steps)
        assert steps[-1].edges() != G.edges()
    elif kind == "remove_node":
        assert [H.number_of_nodes() for H in steps] == [n - 1, n - 2, n - 3, n - 4, n - 5]
        assert all(set(H) <= set(G) for H in steps)
    elif kind == "add_node":
        assert [H.number_of_nodes() for H in steps] == [n + 1, n + 2, n + 3, n + 4, n + 5]
        assert [H.number_of_edges() for H in steps] == [m + 1, m + 2, m + 3, m + 4, m + 5]
        assert set(steps[-1]) - set(G) == {30, 31, 32, 33, 34}


def test_same_seed_same_sequence():
    G = nx.karate_club_graph()
    a = gi.perturbation_sequence(G, 10, seed=3)
    b = gi.perturbation_sequence(G, 10, seed=np.random.default_rng(3))
    assert [sorted(H.edges()) for H in a] == [sorted(H.edges()) for H in b]
    c = gi.perturbation_sequence(G, 10, seed=4)
    assert [sorted(H.edges()) for H in a] != [sorted(H.edges()) for H in c]


@pytest.mark.parametrize(
    "G, kind, message",
    [
        (nx.empty_graph(5), "remove_edge", "no edges left"),
        (nx.complete_graph(6), "add_edge", "already joined"),
        (nx.star_graph(5), "swap_edges", "no degree-preserving edge swap"),
        (nx.path_graph(2), "swap_edges", "at least two edges"),
        (nx.empty_graph(1), "remove_node", "no nodes left"),
        (nx.empty_graph(1), "flip", "fewer than 2 nodes"),
    ],
)
def test_impossible_perturbations_raise_instead_of_looping(G, kind, message):
    with pytest.raises(ValueError, match=message):
        gi.perturbation_sequence(G, 3, kind=kind, seed=0)


def test_running_out_midway_names_the_step():
    with pytest.raises(ValueError, match="step 4 of 5: cannot remove an edge"):
        gi.perturbation_sequence(nx.path_graph(4), 5, kind="remove_edge", seed=0)


def test_dense_graphs_still_get_their_missing_edge():
    G = nx.complete_graph(40)
    G.remove_edge(3, 17)
    (H,) = gi.perturbation_sequence(G, 1, kind="add_edge", seed=0)
    assert H.has_edge(3, 17)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown perturbation"):
        gi.perturbation_sequence(nx.path_graph(3), 1, kind="explode")
    with pytest.raises(ValueError, match="n_steps"):
        gi.perturbation_sequence(nx.path_graph(3), -1)
    with pytest.raises(TypeError, match="multigraph"):
        gi.perturbation_sequence(nx.MultiGraph([(0, 1)]), 1)
    with pytest.raises(TypeError, match="networkx or igraph"):
        gi.perturbation_sequence(np.eye(3), 1)
    with pytest.raises(TypeError, match="seed"):
        gi.perturbation_sequence(nx.path_graph(3), 1, seed="x")


def test_self_loops_are_kept_never_created():
    G = nx.cycle_graph(6)
    G.add_edge(2, 2)
    for H in gi.perturbation_sequence(G, 30, seed=1):
        assert list(nx.selfloop_edges(H)) == [(2, 2)]


@pytest.mark.parametrize("labels", [np.arange(5), np.arange(5).astype(float), [False, True, 2, 3, 4]])
def test_add_node_never_reuses_a_node_name(labels):
    """Was: numpy integers, floats or bools as node names gave self-loops and wrong counts."""
    G = nx.relabel_nodes(nx.path_graph(5), dict(enumerate(labels)))
    H = gi.perturbation_sequence(G, 3, kind="add_node", seed=0)[-1]
    assert H.number_of_nodes() == 8
    assert nx.number_of_selfloops(H) == 0
    assert H.number_of_edges() == 7


def test_add_node_to_an_empty_graph_is_a_clear_error():
    with pytest.raises(ValueError, match="no node to join"):
        gi.perturbation_sequence(nx.Graph(), 1, kind="add_node")


def test_step_count_and_kind_are_checked():
    with pytest.raises(TypeError, match="n_steps"):
        gi.perturbation_sequence(nx.path_graph(4), 2.0)
    with pytest.raises(ValueError, match="unknown perturbation"):
        gi.perturbation_sequence(nx.path_graph(4), 2, kind="explode")


def test_a_node_that_cannot_be_in_the_graph_is_named():
    # an unhashable node used to fail with "TypeError: unhashable type: 'list'" from a
    # dict lookup, and True passed as igraph vertex 1
    with pytest.raises(ValueError, match=r"node \[0\] is not in the graph"):
        gi.flip_node_pair(nx.path_graph(3), [0], 1)
    with pytest.raises(ValueError, match="vertex True is not in the graph"):
        gi.flip_node_pair(ig.Graph([(0, 1), (1, 2)]), True, 2)
