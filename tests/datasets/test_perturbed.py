"""perturbed_copies: large labelled collections made from a small one."""

import networkx as nx
import numpy as np
import pytest

from graphinvariants.datasets import perturbed_copies
from graphinvariants.datasets.perturbed import GENERATION_BLOCK


@pytest.fixture(scope="module")
def mutag(tu_load):
    return tu_load("MUTAG")


def test_each_copy_is_its_source_minus_edges(mutag):
    copies = perturbed_copies(mutag, 600, removed_edges=2, seed=3)
    for i in (0, 187, 188, 599):
        G, H = copies[i], mutag[i % len(mutag)]
        assert copies.y[i] == mutag.y[i % len(mutag)]
        assert set(G.nodes) == set(H.nodes) and dict(G.nodes(data="label")) == dict(H.nodes(data="label"))
        assert set(G.edges) <= set(H.edges) and H.number_of_edges() - G.number_of_edges() == 2
        assert all(G.edges[e] == H.edges[e] for e in G.edges)  # edge labels kept


def test_parts_equal_the_whole(mutag):
    whole = perturbed_copies(mutag, GENERATION_BLOCK + 300, seed=1)
    part = perturbed_copies(mutag, 500, seed=1, start=GENERATION_BLOCK - 200)  # across a block boundary
    same = whole[GENERATION_BLOCK - 200 : GENERATION_BLOCK + 300]
    assert (part.batch.matrix != same.batch.matrix).nnz == 0
    np.testing.assert_array_equal(part.batch.edge_labels, same.batch.edge_labels)
    np.testing.assert_array_equal(part.y, same.y)
    other = perturbed_copies(mutag, 500, seed=2, start=GENERATION_BLOCK - 200)
    assert (other.batch.matrix != same.batch.matrix).nnz > 0


def test_removal_is_uniform(mutag):
    """Every edge of a source is removed about equally often (chi-square-like bound)."""
    copies = perturbed_copies(mutag, 188 * 400, seed=0)
    source = mutag[0]
    seen = {e: 0 for e in source.edges}
    for i in range(0, len(copies), 188):
        for e in set(source.edges) - set(copies[i].edges):
            seen[e] += 1
    counts = np.array(list(seen.values()))
    assert counts.sum() == 400
    expected = 400 / len(counts)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))  # 5 sigma: fails by chance ~never


def test_more_edges_than_a_graph_has():
    from graphinvariants.datasets import TUDataset
    from graphinvariants.graphs import as_graph_batch

    data = TUDataset("tiny", as_graph_batch([nx.path_graph(3), nx.path_graph(2)]), np.array([0, 1]))
    copies = perturbed_copies(data, 4, removed_edges=5)
    assert copies.batch.matrix.nnz == 0 and copies.y.tolist() == [0, 1, 0, 1]


def test_bad_input(mutag):
    with pytest.raises(TypeError, match="TUDataset"):
        perturbed_copies([nx.path_graph(3)], 5)
    with pytest.raises(ValueError, match="n_graphs"):
        perturbed_copies(mutag, -1)
    assert len(perturbed_copies(mutag, 0)) == 0
