"""Walk counts from node-label start vectors, tested like every other functional."""

from collections import Counter

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings import LabelledWalkHistogram
from graphinvariants.kernels import paired_kernels, pairwise_kernels
from tests.conftest import renumbered


def _labelled(G, rng, alphabet):
    nx.set_node_attributes(G, {v: str(rng.choice(list(alphabet))) for v in G}, "label")
    return G


def _brute_force_histogram(G, k):
    nodes = list(G)
    labels = sorted({G.nodes[v]["label"] for v in nodes})
    A = nx.to_numpy_array(G, nodelist=nodes, weight=None).astype(np.int64)
    E = np.array([[G.nodes[v]["label"] == lab for lab in labels] for v in nodes], dtype=np.int64)
    out = Counter()
    for i, v in enumerate(nodes):
        prefix = (G.nodes[v]["label"],)
        out[prefix] += 1
        for t in range(1, k + 1):
            row = np.linalg.matrix_power(A, t)[i] @ E
            prefix = prefix + (tuple(zip(labels, row.tolist())),)
            out[tuple(p if isinstance(p, str) else tuple(x for x in p if x[1]) for p in prefix)] += 1
    return out


def _brute_force_kernel(G, H, k):
    a, b = _brute_force_histogram(G, k), _brute_force_histogram(H, k)
    return sum(a[key] * b[key] for key in a) / np.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(3)
    out = [_labelled(nx.gnp_random_graph(int(n), 0.2, seed=int(n)), rng, "CON") for n in range(5, 20, 2)]
    out += [_labelled(nx.gnp_random_graph(10, 0.3, seed=s), rng, "CS") for s in range(3)]
    return out


@pytest.mark.parametrize("k", [1, 3])
def test_matches_brute_force_and_merges_label_sets(graphs, k):
    K = pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=k))
    cross = pairwise_kernels(graphs[:8], graphs[8:], functional=LabelledWalkHistogram(k=k))  # {C, O, N} vs {C, S}
    np.testing.assert_allclose(cross, K[:8, 8:], rtol=1e-14, atol=1e-15)
    for i in range(0, len(graphs), 2):
        for j in range(len(graphs)):
            assert K[i, j] == pytest.approx(_brute_force_kernel(graphs[i], graphs[j], k), rel=1e-12)


def test_unit_diagonal_psd_and_renumbering(graphs, rng):
    functional = LabelledWalkHistogram(k=4)
    K = pairwise_kernels(graphs, functional=functional)
    # exact: labelled walk counts are integers, so dots and norms are exact, whatever the node order
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-12
    np.testing.assert_array_equal(paired_kernels(graphs, [renumbered(G, rng) for G in graphs], functional=functional), 1.0)


def test_reads_the_data_sets_node_labels(tu_datasets):
    ds = tu_datasets["MUTAG"][:30]
    # exact: the same integer counts from the data set's arrays and from its graphs
    np.testing.assert_array_equal(
        gi.kernel_matrix(ds, kernel="labelled_histogram", k=3), gi.kernel_matrix(list(ds), kernel="labelled_histogram", k=3)
    )
    with pytest.raises(ValueError, match="no attribute 'label'"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="labelled_histogram")


def test_a_weighted_member_combines_with_members_that_read_no_weights():
    G = nx.path_graph(5)
    H = nx.cycle_graph(5)
    for graph in (G, H):
        nx.set_edge_attributes(graph, 2.0, "w")
    nx.set_edge_attributes(H, {(0, 1): 5.0}, "w")
    K = gi.kernel_matrix([G, H], kernel="power*wl", power__weight="w")
    expected = gi.kernel_matrix([G, H], weight="w") * gi.kernel_matrix([G, H], kernel="wl")
    np.testing.assert_allclose(K, expected, rtol=1e-14)
    with pytest.raises(ValueError, match="different edge weights"):
        gi.kernel_matrix([G, H], kernel="power*meanmap", power__weight="w", meanmap__weight="x")


def test_memory_follows_the_graphs_not_the_number_of_labels():
    """With a label per node, n x L dense count rows grew as n^2 (1.3 GB for 4,000
    nodes); a node's walks reach only its own graph's labels."""
    import tracemalloc

    graphs = []
    for g in range(100):
        G = nx.gnp_random_graph(20, 0.2, seed=g)
        nx.set_node_attributes(G, {u: f"n{g}_{u}" for u in G}, "label")
        graphs.append(G)
    batch = gi.as_graph_batch(graphs, node_label="label")  # 2,000 nodes, 2,000 labels
    tracemalloc.start()
    embedded = LabelledWalkHistogram(k=4).embed(batch)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8e6, f"{peak / 1e6:.1f} MB"  # one dense 2,000 x 2,001 round alone is 32 MB
    K = pairwise_kernels(embedded, functional=LabelledWalkHistogram(k=4))
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.all(K[~np.eye(len(K), dtype=bool)] == 0)  # no label in common: orthogonal
