"""NearestGraphs' scikit-learn surface beyond kneighbors (issue 38, friction 13):
n_neighbors=5 by default, kneighbors_graph, radius_neighbors, radius_neighbors_graph."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi


def _graphs():
    graphs = [nx.gnp_random_graph(12, 0.3, seed=i) for i in range(15)] + [nx.path_graph(n) for n in range(4, 10)]
    return graphs + graphs[:3]  # three exact copies


def test_default_n_neighbors_is_five_as_scikit_learn():
    assert gi.NearestGraphs().n_neighbors == 5
    search = gi.NearestGraphs("wl").fit(_graphs())
    assert search.kneighbors(_graphs()[:2])[1].shape == (2, 5)


@pytest.mark.parametrize("queries", [None, "given"])
def test_radius_neighbors_equal_a_filter_of_every_distance(queries):
    graphs = _graphs()
    search = gi.NearestGraphs("wl").fit(graphs)
    q = None if queries is None else graphs[::4]
    n = len(graphs)
    all_d, all_i = search.kneighbors(q, n - 1 if q is None else n)  # every fitted graph, ranked
    for radius in (0.0, 0.3, 0.8, 2.0):
        distances, indices = search.radius_neighbors(q, radius=radius)
        for row in range(len(all_d)):
            keep = all_d[row] <= radius
            assert np.array_equal(indices[row], all_i[row][keep])
            assert np.array_equal(distances[row], all_d[row][keep])
        G = search.radius_neighbors_graph(q, radius=radius, mode="distance")
        assert G.shape == (len(all_d), n) and G.nnz == sum(len(i) for i in indices)
    # copies are within radius 0 of each other (itself left out with queries=None)
    if q is None:
        assert search.radius_neighbors(radius=0.0, return_distance=False)[0].tolist() == [21]


def test_kneighbors_graph_holds_what_kneighbors_gives():
    graphs = _graphs()
    search = gi.NearestGraphs("wl", n_neighbors=3).fit(graphs)
    distances, indices = search.kneighbors()
    G = search.kneighbors_graph(mode="distance")
    C = search.kneighbors_graph()
    assert G.shape == C.shape == (len(graphs), len(graphs))
    for row in range(len(graphs)):
        cols = G.indices[G.indptr[row]:G.indptr[row + 1]]
        assert np.array_equal(cols, indices[row])
        assert np.array_equal(G.data[G.indptr[row]:G.indptr[row + 1]], distances[row])
    assert np.all(C.data == 1.0) and C.nnz == 3 * len(graphs)


def test_bad_arguments():
    search = gi.NearestGraphs("wl").fit(_graphs())
    with pytest.raises(ValueError, match="radius must be a non-negative number"):
        search.radius_neighbors(radius=-1.0)
    with pytest.raises(ValueError, match="mode must be"):
        search.kneighbors_graph(mode="weights")
    with pytest.raises(ValueError, match="mode must be"):
        search.radius_neighbors_graph(mode="weights")
