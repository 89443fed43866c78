"""``spread="field"``: a rooted feature's share given evenly to the ball of its depth
around the root. Checked by hand on a path, against a networkx breadth-first search on
random graphs, and through gi.explain (completeness within 1e-8, determinism)."""

import networkx as nx
import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

import graphinvariants as gi
from graphinvariants.explanations._paths import column_depths, node_rows
from graphinvariants.embeddings import (ClosedWalkHistogram, LabelledWalkHistogram, RootedSubgraph, WalkHistogram,
                                        WeisfeilerLehman)
from tests.conftest import explanation_data, labelled


def _graphs(seed, n_graphs):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_graphs:
        G = nx.gnp_random_graph(int(rng.integers(6, 11)), 0.3, seed=int(rng.integers(2**31)))
        if G.number_of_edges():
            out.append(labelled(G, len(out)))  # not always connected: balls stop at the component
    return out


FUNCTIONALS = {
    "wl": WeisfeilerLehman(n_iter=2, node_label="label", edge_label="label"),
    "wl+closed": WeisfeilerLehman(n_iter=1, closed_walks=3),
    "histogram": WalkHistogram(k=3),
    "closed_histogram": ClosedWalkHistogram(k=4),
    "labelled_histogram": LabelledWalkHistogram(k=2, node_label="label"),
    "rooted": RootedSubgraph(radius=2, node_label="label"),
}


def test_path_graph_wl_depth_one_by_hand():
    # path 0-1-2-3, WL colours by degree: round 0 "end" (nodes 0, 3) and "middle" (1, 2);
    # round 1 "end next to a middle" (0, 3) and "middle next to an end and a middle" (1, 2).
    # A round-1 colour rooted at an end reads {end, its neighbour}: 1/2 each; rooted at a
    # middle node it reads three nodes: 1/3 each. Round 0 stays at the root.
    wl = WeisfeilerLehman(n_iter=1)
    batch = wl.graph_batch([nx.path_graph(4)])
    root = node_rows(wl, batch).counts.toarray()
    np.testing.assert_array_equal(root, [[1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0]])
    field = node_rows(wl, batch, "field").counts.toarray()
    third = 1 / 3
    expected = [[1, 0, 1 / 2, third],  # node 0: half of its own end colour, a third of node 1's middle colour
                [0, 1, 1 / 2, 2 * third],  # node 1: half of node 0's end colour, thirds of its own and node 2's
                [0, 1, 1 / 2, 2 * third],
                [1, 0, 1 / 2, third]]
    np.testing.assert_allclose(field, expected, rtol=0, atol=1e-15)  # sums of a few fractions
    np.testing.assert_array_equal(column_depths(wl, node_rows(wl, batch), batch), [0, 0, 1, 1])


def _rows_and_depths(name, seed):
    """The functional, three random graphs, their batch, node rows and column depths."""
    f = FUNCTIONALS[name]
    graphs = _graphs(seed, 3)
    batch = f.graph_batch(graphs)
    nodes = node_rows(f, batch)
    return f, graphs, batch, nodes, column_depths(f, nodes, batch)


@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_depths_give_each_node_one_label_per_round(name):
    f, graphs, batch, nodes, depths = _rows_and_depths(name, 0)
    counts = nodes.counts.toarray()
    if name == "closed_histogram":  # lengths 1..k, depth t // 2
        rounds = np.bincount(np.arange(1, f.k + 1) // 2)
    elif name == "wl+closed":  # rounds 0..n_iter, each read closed_walks // 2 further
        rounds = np.bincount(np.arange(f.n_iter + 1) + f.closed_walks // 2)
    elif name == "histogram":  # prefixes of lengths 1..k
        rounds = np.bincount(np.arange(1, f.k + 1))
    else:  # rounds 0..n (WL rounds, labelled walk lengths, radii)
        rounds = np.ones(depths.max() + 1, dtype=int)
        assert depths.max() == {"wl": 2, "labelled_histogram": 2, "rooted": 2}[name]
    for d in range(depths.max() + 1):
        np.testing.assert_array_equal(counts[:, depths == d].sum(axis=1), rounds[d])


@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_field_rows_against_breadth_first_search(name):
    f, graphs, batch, nodes, depths = _rows_and_depths(name, 1)
    root = nodes.counts.toarray()
    field = node_rows(f, batch, "field").counts.toarray()
    expected = np.zeros_like(root, dtype=np.float64)
    offset = 0
    for G in graphs:
        order = list(G)
        for i, v in enumerate(order):
            for col in np.flatnonzero(root[offset + i]):
                ball = nx.single_source_shortest_path_length(G, v, cutoff=int(depths[col]))
                for u in ball:
                    expected[offset + order.index(u), col] += root[offset + i, col] / len(ball)
        offset += len(G)
    # a count times 1/|ball| summed over a few roots: rounding only
    np.testing.assert_allclose(field, expected, rtol=1e-13, atol=1e-13)
    # every graph's rows still sum to its counts: the feature's share is all given out
    for a, b in zip(batch.offsets[:-1], batch.offsets[1:]):
        np.testing.assert_allclose(field[a:b].sum(axis=0), root[a:b].sum(axis=0), rtol=1e-13, atol=1e-12)


GRAPHS, Y, TARGET, NEW = explanation_data(cycle_anchor=1)
MODELS = {
    "learned": lambda: Pipeline([("k", gi.GraphKernel(seed=0)), ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y),
    "wl": lambda: Pipeline([("k", gi.GraphKernel(kernel="wl", n_iter=2, node_label="label")),
                            ("m", KernelRidge(kernel="precomputed"))]).fit(GRAPHS, TARGET),
    "wloa": lambda: Pipeline([("k", gi.GraphKernel(kernel="wloa", node_label="label", edge_label="label")),
                              ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y),
    "rooted": lambda: Pipeline([("k", gi.GraphKernel(kernel="rooted_subgraph", node_label="label")),
                                ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y),
    "features": lambda: Pipeline([("k", gi.GraphFeatures("wl", n_landmarks=12, seed=0)),
                                  ("m", Ridge())]).fit(GRAPHS, TARGET),
}


@pytest.mark.filterwarnings("ignore:.*labels that no graph given to fit has")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_field_spread_is_complete_and_deterministic(name):
    model = MODELS[name]()
    a = gi.explain(model, NEW, seed=0, spread="field")
    b = gi.explain(model, NEW, seed=1, spread="field")
    root = gi.explain(model, NEW, seed=0)
    output = getattr(model, a.method)(NEW)
    totals = a.base_value + np.array([v.sum() for v in a.node_values])
    # a sum of node terms that add up to each term: rounding of a few hundred floats
    np.testing.assert_allclose(totals, output, rtol=0, atol=1e-8 * max(1.0, np.abs(output).max()))
    assert not a.sampled_members and not a.fallback
    for x, y in zip(a.node_values, b.node_values):
        np.testing.assert_array_equal(x, y)
    # the option does move credit (on the path and the star; the cycle's nodes are alike)
    assert not all(np.allclose(x, r) for x, r in zip(a.node_values, root.node_values))
    assert a.base_value == root.base_value


def test_unknown_spread_is_refused_by_name():
    model = MODELS["wl"]()
    with pytest.raises(ValueError, match="spread must be one of"):
        gi.explain(model, NEW, spread="ball")
