"""The rooted-subgraph member: exact classes of rooted neighbourhoods (BLISS canonical forms)."""

import os
import subprocess
import sys
from collections import Counter

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import strongly_regular_pair
from graphinvariants.embeddings import RootedSubgraph, rooted_subgraph_classes
from graphinvariants.kernels import paired_kernels, pairwise_kernels
from tests.conftest import cosine_of_counts, renumbered


def labelled_graph(seed, n=None, p=0.35, n_labels=2, n_bonds=2):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9)) if n is None else n
    G = nx.gnp_random_graph(n, p, seed=int(seed))
    nx.set_node_attributes(G, {v: int(rng.integers(n_labels)) for v in G}, "label")
    nx.set_edge_attributes(G, {e: int(rng.integers(n_bonds)) for e in G.edges}, "bond")
    return G


def rooted_ball(G, v, r):
    H = G.subgraph(nx.single_source_shortest_path_length(G, v, cutoff=r)).copy()
    nx.set_node_attributes(H, False, "root")
    H.nodes[v]["root"] = True
    return H


def same_class(a, b, labels, bonds):
    if a.number_of_nodes() != b.number_of_nodes() or a.number_of_edges() != b.number_of_edges():
        return False

    def node_match(x, y):
        return x["root"] == y["root"] and (not labels or x["label"] == y["label"])

    edge_match = (lambda x, y: x["bond"] == y["bond"]) if bonds else None
    return nx.is_isomorphic(a, b, node_match=node_match, edge_match=edge_match)


def brute_force_classes(graphs, radius, labels, bonds):
    """Every (graph, node, r) numbered by the first earlier ball it is isomorphic to."""
    representatives, numbers = [], []
    for G in graphs:
        for v in G:
            for r in range(radius + 1):
                ball = rooted_ball(G, v, r)
                for i, (rep_r, rep) in enumerate(representatives):
                    if rep_r == r and same_class(ball, rep, labels, bonds):
                        numbers.append(i)
                        break
                else:
                    representatives.append((r, ball))
                    numbers.append(len(representatives) - 1)
    return numbers


@pytest.mark.parametrize("labels,bonds", [(False, False), (True, False), (True, True)])
def test_classes_equal_brute_force_isomorphism(labels, bonds):
    graphs = [labelled_graph(seed) for seed in range(40)]
    radius = 2
    expected = brute_force_classes(graphs, radius, labels, bonds)
    names = np.concatenate([
        rooted_subgraph_classes(G, radius=radius, node_label="label" if labels else None,
                                edge_label="bond" if bonds else None).reshape(-1, 2)
        for G in graphs
    ])
    assert len(names) == len(expected)
    ours = [tuple(row) for row in names.tolist()]
    # one class per brute-force class, and no two brute-force classes share a name
    assert len({(e, o) for e, o in zip(expected, ours)}) == len(set(expected)) == len(set(ours))
    assert len(set(expected)) > 30  # the graphs are varied enough to test something


@pytest.mark.parametrize("labels,bonds", [(False, False), pytest.param(True, True, marks=pytest.mark.slow)])
def test_kernel_equals_brute_force_counts(labels, bonds):
    graphs = [labelled_graph(seed, n=int(n)) for seed, n in zip(range(100, 118), range(1, 37, 2))]
    radius = 2
    classes = brute_force_classes(graphs, radius, labels, bonds)
    counts, start = [], 0
    for G in graphs:
        size = G.number_of_nodes() * (radius + 1)
        counts.append(Counter(classes[start : start + size]))
        start += size
    functional = RootedSubgraph(radius, node_label="label" if labels else None, edge_label="bond" if bonds else None)
    K = pairwise_kernels(graphs, functional=functional)
    # integer counts: the inner products are exact, the division rounds once
    np.testing.assert_allclose(K, cosine_of_counts(counts), rtol=1e-14)


def test_strongly_regular_pair_separated_at_radius_one():
    shrikhande, rook = strongly_regular_pair()
    K = pairwise_kernels([shrikhande, rook], functional=RootedSubgraph(radius=1))
    # radius 0: 16 equal classes each; radius 1: one class each (6-cycle / two triangles)
    assert K[0, 1] == 0.5
    assert gi.kernel_matrix([shrikhande], [rook], kernel="wl")[0, 0] == 1.0


@pytest.fixture(scope="module")
def graphs():
    out = [labelled_graph(seed, n=int(n), p=0.25) for seed, n in zip(range(20), range(3, 43, 2))]
    out += [nx.empty_graph(3), nx.empty_graph(1), nx.complete_graph(6), nx.path_graph(7)]
    for G in out[-4:]:
        nx.set_node_attributes(G, 0, "label")
        nx.set_edge_attributes(G, 1, "bond")
    return out


@pytest.mark.parametrize("params", [{}, {"radius": 1}, {"radius": 3, "node_label": "label", "edge_label": "bond"},
                                    {"radius": 2, "max_nodes": 4}])
def test_unit_diagonal_psd_renumbering_libraries_and_cross(graphs, rng, params):
    K = gi.kernel_matrix(graphs, kernel="rooted_subgraph", **params)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    functional = RootedSubgraph(**params)
    moved = [renumbered(G, rng) for G in graphs]
    # the same integer counts in another column order: equal up to the order of the sums
    np.testing.assert_allclose(paired_kernels(graphs, moved, functional=functional), 1.0, rtol=1e-14)
    np.testing.assert_allclose(pairwise_kernels(moved, functional=functional), K, rtol=1e-14)
    converted = [ig.Graph.from_networkx(G) for G in graphs]
    np.testing.assert_allclose(gi.kernel_matrix(converted, kernel="rooted_subgraph", **params), K, rtol=1e-14)
    cross = gi.kernel_matrix(graphs[::2], graphs[1::2], kernel="rooted_subgraph", **params)
    np.testing.assert_allclose(cross, K[::2, 1::2], rtol=1e-13, atol=1e-15)


def test_features_do_not_depend_on_the_batch(graphs):
    functional = RootedSubgraph(2, node_label="label", edge_label="bond")
    alone = functional.as_embeddings(graphs[:5])
    together = functional.as_embeddings(graphs[:5] + graphs[10:])
    # the names of graph 0's classes and their counts, read from both batches
    for batch in (alone, together):
        row = batch.counts[[0]]
        batch.row0 = dict(zip(map(tuple, batch.vocabulary[row.indices].tolist()), row.data.tolist()))
    assert alone.row0 == together.row0


def test_names_are_the_same_in_another_process():
    code = ("import networkx as nx; from graphinvariants.embeddings import rooted_subgraph_classes; "
            "G = nx.petersen_graph(); nx.set_node_attributes(G, {v: 'CNO'[v % 3] for v in G}, 'label'); "
            "print(rooted_subgraph_classes(G, radius=2, node_label='label').tolist())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout
    G = nx.petersen_graph()
    nx.set_node_attributes(G, {v: "CNO"[v % 3] for v in G}, "label")
    assert other.strip() == str(rooted_subgraph_classes(G, radius=2, node_label="label").tolist())


def test_over_the_cap_is_coarser_but_still_invariant(rng):
    G = nx.gnp_random_graph(30, 0.4, seed=3)
    exact = RootedSubgraph(2).as_embeddings([G])
    capped = RootedSubgraph(2, max_nodes=5).as_embeddings([G])
    assert exact.n_over_cap == 0 and capped.n_over_cap > 0
    moved = renumbered(G, rng)
    K = pairwise_kernels([G, moved], functional=RootedSubgraph(2, max_nodes=5))
    assert K[0, 1] == pytest.approx(1.0, rel=1e-14)


def test_edgeless_single_node_and_empty_batches():
    K = pairwise_kernels([nx.empty_graph(1), nx.empty_graph(4), nx.path_graph(2)], functional=RootedSubgraph(2))
    # one node and four isolated nodes: the same classes in proportion
    assert K[0, 1] == 1.0 and K[0, 2] < 1
    empty = pairwise_kernels([], functional=RootedSubgraph(2))
    assert empty.shape == (0, 0)


def test_bad_parameters_and_missing_labels():
    with pytest.raises(ValueError, match="radius"):
        RootedSubgraph(-1)
    with pytest.raises(TypeError, match="max_nodes"):
        RootedSubgraph(max_nodes=2.5)
    with pytest.raises(TypeError, match="node_label"):
        RootedSubgraph(node_label=3)
    with pytest.raises(ValueError, match="no attribute .bond."):
        gi.kernel_matrix([nx.path_graph(3)], kernel="rooted_subgraph", edge_label="bond")


def test_balls_are_whole_when_a_node_has_256_paths_into_them():
    """K(2, 256): at radius 2 the far hub is reached by 256 paths, which an 8-bit sum
    would wrap to 0 (and scipy's product would drop)."""
    G = nx.complete_bipartite_graph(2, 256)
    batch = RootedSubgraph(2, max_nodes=257).as_embeddings([G])
    assert batch.n_over_cap == 258  # every radius-2 ball is the whole graph, 258 nodes


def directed_graph(seed, n=None):
    """Arcs at random, some of them both ways (with one bond type or two)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8)) if n is None else n
    G = nx.DiGraph()
    G.add_nodes_from((v, {"label": int(rng.integers(2))}) for v in range(n))
    for u in range(n):
        for v in range(u + 1, n):
            kind = rng.random()
            if kind < 0.15:
                G.add_edge(u, v, bond=int(rng.integers(2)))
            elif kind < 0.3:
                G.add_edge(v, u, bond=int(rng.integers(2)))
            elif kind < 0.45:
                bond = int(rng.integers(2))
                G.add_edge(u, v, bond=bond)
                G.add_edge(v, u, bond=bond if rng.random() < 0.7 else 1 - bond)
    return G


def directed_renumbered(G, rng):
    perm = rng.permutation(G.number_of_nodes())
    H = nx.DiGraph()
    H.add_nodes_from(sorted(((int(perm[v]), d) for v, d in G.nodes(data=True)), key=lambda item: rng.random()))
    edges = list(G.edges(data=True))
    rng.shuffle(edges)
    H.add_edges_from((int(perm[u]), int(perm[v]), d) for u, v, d in edges)
    return H


@pytest.mark.parametrize("labels,bonds", [(False, False), (True, True)])
def test_directed_classes_equal_brute_force_digraph_isomorphism(labels, bonds):
    """Balls follow out-edges; two neighbourhoods are one class exactly when their induced
    directed graphs are isomorphic (an undirected graph being the directed graph with
    both directions: such balls are classed as undirected, the same thing). Before, only
    the arcs from the lower to the higher node number were seen, so the classes
    depended on the numbering."""
    graphs = [directed_graph(seed) for seed in range(40)]
    radius = 2
    representatives, expected = [], []
    for G in graphs:
        for v in G:
            for r in range(radius + 1):
                ball = G.subgraph(nx.single_source_shortest_path_length(G, v, cutoff=r)).copy()
                nx.set_node_attributes(ball, False, "root")
                ball.nodes[v]["root"] = True
                for i, (rep_r, rep) in enumerate(representatives):
                    if rep_r == r and nx.is_isomorphic(
                            ball, rep,
                            node_match=lambda x, y: x["root"] == y["root"] and (not labels or x["label"] == y["label"]),
                            edge_match=(lambda x, y: x["bond"] == y["bond"]) if bonds else None):
                        expected.append(i)
                        break
                else:
                    representatives.append((r, ball))
                    expected.append(len(representatives) - 1)
    names = np.concatenate([
        rooted_subgraph_classes(G, radius=radius, node_label="label" if labels else None,
                                edge_label="bond" if bonds else None).reshape(-1, 2)
        for G in graphs
    ])
    ours = [tuple(row) for row in names.tolist()]
    assert len({(e, o) for e, o in zip(expected, ours)}) == len(set(expected)) == len(set(ours))
    assert len(set(expected)) > 30


def test_directed_renumbering_and_reverse(rng):
    graphs = [directed_graph(seed, n=int(n)) for seed, n in zip(range(200, 210), range(4, 24, 2))]
    functional = RootedSubgraph(2, node_label="label", edge_label="bond")
    moved = [directed_renumbered(G, rng) for G in graphs]
    np.testing.assert_allclose(paired_kernels(graphs, moved, functional=functional), 1.0, rtol=1e-14)
    # an out-star against the in-star: the balls of the out-edges differ
    out = nx.DiGraph([(0, 1), (0, 2), (0, 3), (1, 2)])
    assert pairwise_kernels([out, out.reverse()], functional=RootedSubgraph(1))[0, 1] < 0.99
    # an undirected graph is the directed graph with both directions
    G = labelled_graph(7, n=12)
    np.testing.assert_array_equal(rooted_subgraph_classes(G, radius=2, node_label="label", edge_label="bond"),
                                  rooted_subgraph_classes(G.to_directed(), radius=2, node_label="label",
                                                          edge_label="bond"))
