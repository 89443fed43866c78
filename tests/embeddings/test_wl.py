"""The Weisfeiler-Lehman subtree kernel: equal to GraKeL's, and tested like the Gaussian."""

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from tests.conftest import renumbered as renumbered_graph
from graphinvariants.embeddings import WeisfeilerLehman
from graphinvariants.kernels import paired_kernels, pairwise_kernels


def _grakel_graphs(ds, labels):
    from grakel import Graph

    out = []
    for G in ds:
        edges = [(u, v) for u, v in G.edges] + [(v, u) for u, v in G.edges]
        node_labels = {v: (G.degree(v) if labels == "degree" else G.nodes[v]["label"]) for v in G}
        out.append(Graph(edges, node_labels=node_labels))
    return out


@pytest.mark.parametrize("labels", ["degree", "node"])
@pytest.mark.parametrize("n_iter", [1, 5])
def test_equal_to_grakel_on_mutag(tu_datasets, labels, n_iter):
    grakel = pytest.importorskip("grakel", reason="GraKeL is the [baselines] extra; CI installs it")
    ds = tu_datasets["MUTAG"]
    with np.errstate(all="ignore"):
        expected = grakel.WeisfeilerLehman(
            n_iter=n_iter, base_graph_kernel=grakel.VertexHistogram, normalize=True
        ).fit_transform(_grakel_graphs(ds, labels))
    node_label = None if labels == "degree" else "label"
    K = gi.kernel_matrix(ds, kernel="wl", n_iter=n_iter, node_label=node_label)
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12)


def test_node_labels_from_networkx_attributes_and_from_the_data_set(tu_datasets):
    ds = tu_datasets["MUTAG"][:40]
    from_batch = gi.kernel_matrix(ds, kernel="wl", node_label="label")
    from_graphs = gi.kernel_matrix(list(ds), kernel="wl", node_label="label")
    # exact: the same integer label counts from the data set's arrays and from its graphs
    np.testing.assert_array_equal(from_batch, from_graphs)
    assert not np.array_equal(from_batch, gi.kernel_matrix(ds, kernel="wl"))
    with pytest.raises(ValueError, match="no attribute 'label'"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="wl", node_label="label")


@pytest.fixture(scope="module")
def graphs():
    out = [nx.gnp_random_graph(int(n), 0.15, seed=int(n)) for n in range(8, 40, 3)]
    return out + [nx.path_graph(6), nx.star_graph(5), nx.cycle_graph(6), nx.empty_graph(4)]


def test_unit_diagonal_symmetric_psd_renumbering_and_libraries(graphs, rng):
    functional = WeisfeilerLehman(n_iter=4)
    K = pairwise_kernels(graphs, functional=functional)
    assert np.all(np.isfinite(K)) and np.linalg.eigvalsh(K).min() > -1e-12
    # exact: label counts are integers, so dots and norms are exact, whatever the node order or library
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    renumbered = [renumbered_graph(G, rng) for G in graphs]
    np.testing.assert_array_equal(paired_kernels(graphs, renumbered, functional=functional), 1.0)
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=functional), K)


def test_separately_embedded_collections_share_one_vocabulary(graphs):
    full = gi.kernel_matrix(graphs, kernel="wl", n_iter=3)
    cross = gi.kernel_matrix(graphs[:6], graphs[6:], kernel="wl", n_iter=3)
    np.testing.assert_allclose(cross, full[:6, 6:], rtol=1e-14, atol=1e-15)
    cross = gi.kernel_matrix(graphs[::2], graphs[1::2], kernel="wl", n_iter=3)
    np.testing.assert_allclose(cross, full[::2, 1::2], rtol=1e-14, atol=1e-15)


def test_combinations_are_products_and_means(graphs):
    power = gi.kernel_matrix(graphs, kernel="power", k=4)
    histogram = gi.kernel_matrix(graphs, kernel="histogram", k=6)
    product = gi.kernel_matrix(graphs, kernel="power*histogram", k=4, histogram__k=6)
    np.testing.assert_allclose(product, power * histogram, rtol=1e-14)
    mean = gi.kernel_matrix(graphs, kernel="power+histogram", k=4, histogram__k=6)
    np.testing.assert_allclose(mean, (power + histogram) / 2, rtol=1e-14)
    assert np.linalg.eigvalsh(product).min() > -1e-12
    with pytest.raises(ValueError, match="mixes"):
        gi.kernel_matrix(graphs, kernel="power*histogram+wl")
    with pytest.raises(ValueError, match="names no parameter"):
        gi.kernel_matrix(graphs, kernel="power*wl", wl__k=3)
