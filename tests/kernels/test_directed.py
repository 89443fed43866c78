"""Directed graphs: every member reads the out-edges, as docs/user_guide.rst says."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi


def _params(name):
    if name == "attributes":
        return {"node_attributes": "x"}
    if name.startswith("labelled"):
        return {"node_label": "label"}
    return {}


def _carrying(G, name=None):
    nx.set_node_attributes(G, {v: float(v) for v in G}, "x")
    nx.set_node_attributes(G, {v: v % 2 for v in G}, "label")
    if name == "descriptors":  # molecules: elements and bond types
        nx.set_node_attributes(G, {v: "CON"[v % 3] for v in G}, "label")
        nx.set_edge_attributes(G, "SINGLE", "label")
    return G


@pytest.mark.parametrize("name", sorted(gi.KERNELS))
def test_an_undirected_graph_is_the_directed_graph_with_both_directions(name):
    graphs = [_carrying(nx.gnp_random_graph(9, 0.35, seed=s), name) for s in range(4)]
    both = [G.to_directed() for G in graphs]
    # exact: both directions give the very same stored entries, in the same order
    np.testing.assert_array_equal(gi.kernel_matrix(graphs, kernel=name, **_params(name)),
                                  gi.kernel_matrix(both, kernel=name, **_params(name)))


@pytest.mark.parametrize("name", sorted(gi.KERNELS))
def test_direction_counts_as_the_docs_say(name):
    """A graph against its reverse: told apart by every member that follows out-edges;
    1 for the closed-walk members (``(A^t)_ii`` is the same for ``A.T``), for size and
    for unlabelled shortest paths (``d_reverse(u, v) = d(v, u)``: the same distances)."""
    out = _carrying(nx.DiGraph([(0, 1), (0, 2), (0, 3), (1, 2)]), name)
    reverse = _carrying(out.reverse(), name)
    K = gi.kernel_matrix([out, reverse], kernel=name, **_params(name))
    if name in ("closed_histogram", "closed_power", "size", "shortest_path", "descriptors"):
        assert K[0, 1] == pytest.approx(1.0, abs=1e-12)  # equal profiles; rounding of the normalisation only
    else:
        assert K[0, 1] < 0.99
    if name == "shortest_path":  # with node labels a pair's labels are ordered: (0 -> 1) is not (1 -> 0)
        assert gi.kernel_matrix([out, reverse], kernel=name, node_label="label")[0, 1] < 0.99


def test_walks_start_at_a_node_and_follow_edge_direction():
    out = nx.DiGraph([(0, 1), (0, 2), (0, 3), (1, 2)])
    summary = gi.power_summary(out).matrix
    # x_1 = A 1 / n: the out-degrees (3, 1, 0, 0) over n = 4, exact in binary
    np.testing.assert_array_equal(summary[:, 0], [0.75, 0.25, 0.0, 0.0])
    # x_2 = A x_1 / |x_1|_1: node 0 reaches 1 (0.25), 2 and 3 (0); node 1 reaches 2 (0)
    np.testing.assert_array_equal(summary[:, 1], [0.25, 0.0, 0.0, 0.0])
    # WL starts from the out-degree: the out-star and the graph with the same out-degrees
    # and out-neighbourhoods (an isomorphic copy, nodes renamed) are one
    renamed = nx.relabel_nodes(out, {0: "c", 1: "a", 2: "b", 3: "d"})
    assert gi.kernel_matrix([out, renamed], kernel="wl")[0, 1] == pytest.approx(1.0, abs=1e-12)


def test_the_user_guide_says_what_direction_means_for_every_member():
    """Was one line for all members ("walks follow edge direction")."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "user_guide.rst").read_text()
    section = text.split("Directed graphs\n~~~~~~~~~~~~~~~\n", 1)[1].split("\n---", 1)[0]
    table = section.split("=====\n", 2)[2]
    assert sorted(name for name in gi.KERNELS if f"``{name}``" not in table) == []
