"""The kernel in floating point: no overflow, no underflow, scale and order invariance."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from tests.conftest import renumbered


def _slogdet_kernel(G, H, k, weight=None):
    """Independent reference: numpy's slogdet and solve on the regularised covariances."""
    a, b = gi.power_invariants(G, k=k, weight=weight), gi.power_invariants(H, k=k, weight=weight)
    ca, cb = a.regularized_covariance(), b.regularized_covariance()
    c, d = (ca + cb) / 2, a.mean - b.mean
    log_k = 0.25 * (np.linalg.slogdet(ca)[1] + np.linalg.slogdet(cb)[1]) - 0.5 * np.linalg.slogdet(c)[1]
    return float(np.exp(log_k - 0.125 * d @ np.linalg.solve(c, d)))


def _weighted(G, value):
    H = nx.Graph(G)
    nx.set_edge_attributes(H, value, "w")
    return H


@pytest.mark.parametrize("k", [5, 16, 17, 25, 30])
def test_large_k_neither_overflows_nor_underflows(k):
    karate, les = nx.karate_club_graph(), nx.les_miserables_graph()
    # exact also for k > 16: LAPACK factors the same matrix for the pair and for each side
    assert gi.power_kernel(karate, karate, k=k) == 1.0  # raised "increase ridge" at k=30
    value = gi.power_kernel(karate, les, k=k)  # was 0.0 at k=30
    assert 0 < value < 1
    assert value == pytest.approx(_slogdet_kernel(karate, les, k), rel=1e-3)  # cond ~ 1e12 at k=30


def test_tiny_kernel_values_are_not_rounded_to_one():
    heavy = _weighted(nx.karate_club_graph(), 6.59e32)
    path = _weighted(nx.path_graph(10), 1.0)
    value = gi.power_kernel(heavy, path, weight="w")  # was 1.0
    assert value == pytest.approx(_slogdet_kernel(heavy, path, 5, "w"), rel=1e-5)
    assert 1e-86 < value < 1e-85


@pytest.mark.parametrize("scale", [1e-60, 1e-20, 3.7, 1e20, 1e60])
def test_scaling_every_weight_changes_nothing(scale):
    karate, les = nx.karate_club_graph(), nx.les_miserables_graph()
    plain = gi.power_kernel_matrix([karate, les], k=5)
    scaled = gi.power_kernel_matrix([_weighted(karate, scale), _weighted(les, scale)], k=5, weight="w")
    np.testing.assert_allclose(scaled, plain, rtol=1e-11, atol=0)


def test_weights_too_large_for_double_precision_say_so():
    huge = _weighted(nx.karate_club_graph(), 1e200)
    with pytest.raises(ValueError, match="weights are too large"):
        gi.power_invariants(huge, weight="w")


def test_k_too_large_is_refused_up_front():
    with pytest.raises(ValueError, match="too large"):
        gi.power_kernel(nx.path_graph(5), nx.path_graph(6), k=10**6)


def test_weighted_graphs_are_permutation_invariant_to_the_last_bit(rng):
    """Was: 363 of 2,000 random weighted graphs below 1 - 1e-12, worst 0.99989."""
    G = nx.Graph([(0, 1, {"w": 0.3}), (1, 2, {"w": 1.7}), (0, 2, {"w": 0.1})])
    H = nx.Graph([(2, 1, {"w": 0.3}), (1, 0, {"w": 1.7}), (2, 0, {"w": 0.1})])
    assert gi.power_kernel(G, H, weight="w") == 1.0
    for _ in range(300):
        n = int(rng.integers(3, 30))
        G = nx.gnp_random_graph(n, rng.uniform(0.1, 0.9), seed=int(rng.integers(2**31)))
        for u, v in G.edges:
            G[u][v]["w"] = float(rng.uniform(0.01, 10.0))
        H = renumbered(G, rng)
        a, b = gi.power_invariants(G, weight="w"), gi.power_invariants(H, weight="w")
        assert a == b
        assert gi.power_kernel(a, b) == 1.0


def test_walk_counts_beyond_2_53_are_permutation_invariant(rng):
    """Was 0.99999999706 for a dense 2,000-node graph; here a smaller one with k=12."""
    G = nx.gnp_random_graph(300, 0.5, seed=1)
    assert gi.power_summary(G, k=12).walk_counts().max() > 2**53
    H = renumbered(G, rng)
    assert gi.power_invariants(G, k=12) == gi.power_invariants(H, k=12)


def test_a_graphs_summary_does_not_depend_on_the_rest_of_the_batch():
    small = nx.path_graph(5)
    big = nx.complete_graph(400)  # walk counts beyond 2**53 at k=8
    alone = gi.batch_power_invariants([small], k=8)[0]
    together = gi.batch_power_invariants([small, big], k=8)[0]
    assert alone == together


def test_bhattacharyya_coefficient_refuses_nan_and_asymmetric_input():
    with pytest.raises(ValueError, match="finite"):
        gi.bhattacharyya_coefficient([np.nan], [[1.0]], [0.0], [[1.0]])
    with pytest.raises(ValueError, match="symmetric"):
        gi.bhattacharyya_coefficient([0.0, 0.0], [[1.0, 0.5], [0.0, 1.0]], [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="dimensions"):
        gi.bhattacharyya_coefficient([0.0], [[1.0]], [0.0, 0.0], np.eye(2))


def test_lapack_path_for_large_k_agrees_with_the_unrolled_one(rng):
    """k = 16 runs the unrolled Cholesky, k = 17 LAPACK; both agree with slogdet."""
    from graphinvariants.embeddings import _bhattacharyya

    for k in (_bhattacharyya.UNROLL_MAX_K, _bhattacharyya.UNROLL_MAX_K + 1):
        W = rng.normal(size=(4, k, k))
        covs = W @ W.transpose(0, 2, 1) / k + 0.5 * np.eye(k)
        means = rng.normal(size=(4, k))
        invs = [gi.PowerInvariants(m, c, 50) for m, c in zip(means, covs)]
        K = gi.power_kernel_matrix(invs, k=k, ridge=0)
        for i in range(4):
            for j in range(4):
                expected = gi.bhattacharyya_coefficient(means[i], covs[i], means[j], covs[j])
                assert K[i, j] == pytest.approx(expected, rel=1e-10)
