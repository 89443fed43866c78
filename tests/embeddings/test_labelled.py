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


def _brute_force_histogram_exact(G, k):
    """As _brute_force_histogram, with the walk counts in Python integers (A^t E by
    repeated products), for counts beyond int64."""
    nodes = list(G)
    labels = sorted({G.nodes[v]["label"] for v in nodes})
    A = nx.to_numpy_array(G, nodelist=nodes, weight=None).astype(np.int64).astype(object)
    C = np.array([[int(G.nodes[v]["label"] == lab) for lab in labels] for v in nodes], dtype=object)
    prefixes = [(G.nodes[v]["label"],) for v in nodes]
    out = Counter(prefixes)
    for _ in range(k):
        C = A @ C
        prefixes = [p + (tuple((lab, int(c)) for lab, c in zip(labels, row) if c),) for p, row in zip(prefixes, C)]
        out.update(prefixes)
    return out


def test_counts_beyond_int64_are_exact(graphs):
    """Was "labelled walk counts ... exceed the int64 range; use a smaller k"."""
    rng = np.random.default_rng(7)
    dense = [_labelled(nx.complete_graph(70), rng, "CO"), _labelled(nx.complete_graph(70), rng, "CO"),
             _labelled(nx.gnp_random_graph(50, 0.8, seed=2), rng, "CON"), _labelled(nx.complete_graph(4), rng, "C")]
    collection = dense + graphs[:4]
    k = 12  # 69**12 > 2**73
    histograms = [_brute_force_histogram_exact(G, k) for G in collection]
    K = pairwise_kernels(collection, functional=LabelledWalkHistogram(k=k))
    for i, a in enumerate(histograms):
        for j, b in enumerate(histograms):
            expected = sum(a[key] * b[key] for key in a) / np.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
            assert K[i, j] == pytest.approx(expected, rel=1e-12)
    # int64 counts on one side, digits on the other: one exact vocabulary
    cross = pairwise_kernels(graphs[:4] + dense[3:], dense[:3], functional=LabelledWalkHistogram(k=k))
    np.testing.assert_allclose(cross, K[[4, 5, 6, 7, 3]][:, :3], rtol=1e-14)
    np.testing.assert_array_equal(paired_kernels(dense, [renumbered(G, rng) for G in dense],
                                                 functional=LabelledWalkHistogram(k=k)), 1.0)


def test_one_wide_row_does_not_pad_the_batch():
    """Was: every row padded to the widest (one star with 3,000 distinct leaf labels
    among 2,000 small trees took 14.7 GiB); here 600 leaves among 400 trees took
    136 MiB and now about 25 MiB."""
    import tracemalloc

    star = nx.star_graph(600)
    nx.set_node_attributes(star, {v: f"L{v}" for v in star}, "label")
    trees = []
    for seed in range(400):
        G = nx.random_labeled_tree(10, seed=seed)
        nx.set_node_attributes(G, {v: "ABC"[v % 3] for v in G}, "label")
        trees.append(G)
    functional = LabelledWalkHistogram(k=3)
    batch = functional.graph_batch([star] + trees)
    tracemalloc.start()
    embedded = functional.embed(batch)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 60 * 2**20, f"{peak / 2**20:.1f} MiB"
    # the same numbers as the two parts embedded apart and merged
    K = pairwise_kernels(embedded, functional=functional)
    np.testing.assert_allclose(pairwise_kernels([star] + trees[:30], trees[30:60], functional=functional),
                               K[:31, 31:61], rtol=1e-14)
    for i, j in [(1, 2), (5, 9)]:
        assert K[i, j] == pytest.approx(_brute_force_kernel(trees[i - 1], trees[j - 1], 3), rel=1e-12)
