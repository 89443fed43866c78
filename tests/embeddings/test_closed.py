"""Closed-walk members: histogram, WL started from closed-walk profiles, the size factor."""

from collections import Counter
from itertools import combinations

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import csl_graphs, strongly_regular_pair
from graphinvariants.embeddings import ClosedWalkHistogram, NodeCount, WalkHistogram, WeisfeilerLehman
from graphinvariants.kernels import paired_kernels, pairwise_kernels
from tests.conftest import renumbered as renumbered_graph

MEMBERS = ["closed_histogram", "wl_closed", "closed_histogram*size", "power*closed_histogram*wl"]


@pytest.fixture(scope="module")
def graphs():
    out = [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in range(5, 40, 3)]
    return out + [nx.path_graph(6), nx.star_graph(5), nx.cycle_graph(6), nx.empty_graph(4), nx.complete_graph(5)]


def closed_walk_profiles(G, k):
    """(A^t)_ii for t = 1..k by dense integer matrix powers."""
    A = nx.to_numpy_array(G, dtype=np.int64)
    P, cols = np.eye(len(A), dtype=np.int64), []
    for _ in range(k):
        P = P @ A
        cols.append(np.diag(P))
    return np.column_stack(cols)


def brute_force_histogram(G, k):
    profile = closed_walk_profiles(G, k)
    return Counter(tuple(row[:t]) for row in profile.tolist() for t in range(1, k + 1))


@pytest.mark.parametrize("k", [1, 4, 8])
def test_histogram_kernel_equals_brute_force(graphs, k):
    hists = [brute_force_histogram(G, k) for G in graphs]
    expected = np.array([[sum(a[x] * b[x] for x in a) for b in hists] for a in hists], dtype=float)
    norms = np.sqrt(np.diag(expected))
    K = pairwise_kernels(graphs, functional=ClosedWalkHistogram(k=k))
    np.testing.assert_allclose(K, expected / np.outer(norms, norms), rtol=1e-14)


@pytest.mark.parametrize("kernel", MEMBERS)
def test_unit_diagonal_psd_renumbering_libraries_and_cross(graphs, rng, kernel):
    K = gi.kernel_matrix(graphs, kernel=kernel)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    functional = gi.kernels.make_functional(kernel)
    renumbered = [renumbered_graph(G, rng) for G in graphs]
    np.testing.assert_allclose(paired_kernels(graphs, renumbered, functional=functional), 1.0, rtol=1e-14)
    np.testing.assert_allclose(gi.kernel_matrix([ig.Graph.from_networkx(G) for G in graphs], kernel=kernel), K, rtol=1e-14)
    cross = gi.kernel_matrix(graphs[::2], graphs[1::2], kernel=kernel)
    np.testing.assert_allclose(cross, K[::2, 1::2], rtol=1e-13, atol=1e-15)


def test_wl_with_closed_walks_and_node_labels(graphs, rng):
    labelled = []
    for i, G in enumerate(graphs):
        G = G.copy()
        nx.set_node_attributes(G, {v: "CNO"[(v + i) % 3] for v in G}, "label")
        labelled.append(G)
    both = WeisfeilerLehman(n_iter=2, node_label="label", closed_walks=4)
    K = pairwise_kernels(labelled, functional=both)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    cross = pairwise_kernels(labelled[:7], labelled[7:], functional=both)
    np.testing.assert_allclose(cross, K[:7, 7:], rtol=1e-13, atol=1e-15)
    # the initial colour is (label, closed walks): finer than either alone
    for other in (WeisfeilerLehman(n_iter=0, node_label="label"), WeisfeilerLehman(n_iter=0, closed_walks=4)):
        coarse = pairwise_kernels(labelled, functional=other)
        fine = pairwise_kernels(labelled, functional=WeisfeilerLehman(n_iter=0, node_label="label", closed_walks=4))
        assert np.all(fine[coarse < 1] < 1)
    with pytest.raises(ValueError, match="closed_walks=4"):
        WeisfeilerLehman(n_iter=2, closed_walks=3).as_embeddings(WeisfeilerLehman(n_iter=2, closed_walks=4).as_embeddings(graphs))
    with pytest.raises(ValueError, match="closed_walks"):
        WeisfeilerLehman(closed_walks=-1)


def test_open_and_closed_histogram_batches_are_not_interchangeable(graphs):
    closed = ClosedWalkHistogram(k=3).as_embeddings(graphs)
    with pytest.raises(TypeError, match="ClosedHistogramBatch"):
        pairwise_kernels(closed, functional=WalkHistogram(k=3))
    with pytest.raises(TypeError, match="HistogramBatch"):
        pairwise_kernels(WalkHistogram(k=3).as_embeddings(graphs), functional=ClosedWalkHistogram(k=3))


def test_what_each_member_says_about_a_graph_and_two_copies_of_it():
    """Decided behaviour: the cosine-normalised members call G and G + G identical; the
    power kernel (its L1 normalisation halves every entry) and products with the size
    factor do not."""
    G = nx.gnp_random_graph(12, 0.3, seed=4)
    twice = nx.disjoint_union(G, G)
    says = {name: gi.kernel_matrix([G], [twice], kernel=name)[0, 0] for name in
            ("histogram", "closed_histogram", "wl", "wl_closed", "meanmap", "power", "size",
             "closed_histogram*size", "wl_closed*size")}
    for name in ("histogram", "closed_histogram", "wl", "wl_closed"):
        assert says[name] == pytest.approx(1.0, abs=1e-15)
    assert says["meanmap"] == pytest.approx(1.0, abs=1e-12)
    assert says["power"] < 0.5
    assert says["size"] == 0.5
    assert says["closed_histogram*size"] == pytest.approx(0.5, abs=1e-15)
    assert says["wl_closed*size"] == pytest.approx(0.5, abs=1e-15)


def test_size_factor_is_psd_and_one_only_for_equal_sizes(rng):
    n = rng.integers(1, 500, 60)
    graphs = [nx.empty_graph(int(m)) for m in n]
    K = pairwise_kernels(graphs, functional=NodeCount())
    np.testing.assert_array_equal(K, np.minimum.outer(n, n) / np.maximum.outer(n, n))
    assert np.linalg.eigvalsh(K).min() > -1e-12
    assert np.array_equal(K == 1, np.equal.outer(n, n))


@pytest.mark.filterwarnings("ignore:The hashes produced")
def test_separates_every_atlas_pair_that_wl_confuses():
    atlas = nx.graph_atlas_g()[1:]
    by_hash = {}
    for i, G in enumerate(atlas):
        by_hash.setdefault(nx.weisfeiler_lehman_graph_hash(G, iterations=5), []).append(i)
    pairs = [p for group in by_hash.values() for p in combinations(group, 2)]
    assert len(pairs) == 26  # 1-WL confuses 26 pairs of non-isomorphic graphs
    involved = sorted({i for p in pairs for i in p})
    K = gi.kernel_matrix([atlas[i] for i in involved], kernel="closed_histogram")
    place = {g: i for i, g in enumerate(involved)}
    assert max(K[place[a], place[b]] for a, b in pairs) < 1 - 1e-6


def test_separates_the_csl_classes_but_not_strongly_regular_graphs():
    graphs, y = csl_graphs(n_copies=2, seed=3)
    K = gi.kernel_matrix(graphs, kernel="closed_histogram", k=8)
    same = np.equal.outer(y, y)
    np.testing.assert_allclose(K[same], 1.0, rtol=1e-14)
    assert K[~same].max() < 1 - 1e-6
    assert gi.kernel_matrix(graphs, kernel="wl")[~same].min() == pytest.approx(1.0)  # 1-WL: all alike
    shrikhande, rook = strongly_regular_pair()
    # a limit of every walk count: both have 16 nodes with the same closed-walk profile
    assert gi.kernel_matrix([shrikhande], [rook], kernel="closed_histogram", k=12)[0, 0] == pytest.approx(1.0)


# -- the Gaussian form ------------------------------------------------------------------
def _log_closed_walk_profiles(G, k):
    return np.log1p(closed_walk_profiles(G, k).astype(float))


def test_gaussian_form_is_the_power_kernel_of_the_closed_walk_moments(graphs):
    from graphinvariants.embeddings import ClosedWalkGaussian, GaussianBatch, GaussianEmbedding

    k = 5
    profiles = [_log_closed_walk_profiles(G, k) for G in graphs]
    means = np.array([X.mean(axis=0) for X in profiles])
    covs = np.array([np.cov(X, rowvar=False, bias=True).reshape(k, k) for X in profiles])
    expected = pairwise_kernels(GaussianBatch(means, covs, [len(X) for X in profiles]),
                                functional=GaussianEmbedding(k, ridge=1e-6))  # the closed walks' default ridge
    K = pairwise_kernels(graphs, functional=ClosedWalkGaussian(k=k))
    # the moments are summed in another order (numpy's mean and cov against sorted rows):
    # a few units in the last place of each moment, amplified by the log-determinants
    np.testing.assert_allclose(K, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(np.diag(K), 1.0)  # each side's terms by the same routine
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-10


def test_gaussian_form_renumbering_libraries_and_what_it_sees(graphs, rng):
    from graphinvariants.embeddings import ClosedWalkGaussian

    functional = ClosedWalkGaussian(k=6)
    # exact: the moments are summed over rows sorted within each graph
    np.testing.assert_array_equal(paired_kernels(graphs, [renumbered_graph(G, rng) for G in graphs],
                                                 functional=functional), 1.0)
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=functional),
                                  pairwise_kernels(graphs, functional=functional))
    hexagon, triangles = nx.cycle_graph(6), nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    assert gi.kernel_matrix([hexagon, triangles], kernel="closed_power", k=3)[0, 1] < 0.5
    assert gi.kernel_matrix([hexagon, triangles], kernel="power")[0, 1] == 1.0  # open walks: both 2-regular
    with pytest.raises(TypeError, match="open-walk invariants"):
        pairwise_kernels([gi.power_invariants(hexagon, k=6)], functional=functional)
    with pytest.raises(ValueError, match="profile"):  # open-walk embeddings are refused by their record
        pairwise_kernels(gi.batch_power_invariants(graphs, k=6), functional=functional)


def test_open_and_closed_walk_gaussians_refuse_each_others_embeddings(graphs):
    from graphinvariants.embeddings import ClosedWalkGaussian, GaussianEmbedding

    closed = ClosedWalkGaussian(k=5).as_embeddings(graphs)
    with pytest.raises(ValueError, match="profile"):  # both are GaussianBatch: the record tells them apart
        pairwise_kernels(closed, functional=GaussianEmbedding(5))
