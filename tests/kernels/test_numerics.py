"""The kernel in floating point: no overflow, no underflow, scale and order invariance."""

import math

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


# --- singular covariances: the ridge's floor and the whitened evaluation (issue 52 item 2) ---


def _edge_table(G, partitions=3):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    return dd.from_pandas(pd.DataFrame(list(G.edges()), columns=["u", "v"]), npartitions=partitions)


@pytest.fixture
def synchronous_dask():
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize(
    ("G", "k"),
    [
        (nx.wheel_graph(3000), 5),  # was 1 - K = 1.9e-6
        (nx.complete_bipartite_graph(4, 3000), 5),  # was 1.4e-6
        (nx.complete_bipartite_graph(3, 6000), 6),
    ],
    ids=["wheel3000", "K4,3000", "K3,6000"],
)
def test_two_paths_to_the_same_graph_give_one(synchronous_dask, G, k):
    """In-process and gi.distributed invariants agree to about 1e-14 of the largest entry;
    rank-one covariances left that noise in their singular directions, which the Cholesky
    pivots of the pair amplified to 1e-6 of K."""
    here, there = gi.power_invariants(G, k=k), gi.distributed.power_invariants(_edge_table(G), k=k)
    assert here != there  # not the same bits: the test is about rounding
    assert 1 - gi.power_kernel(here, there, k=k) <= 1e-15
    assert gi.power_kernel(here, there, k=k) == gi.power_kernel(there, here, k=k)


@pytest.mark.parametrize(
    ("G", "H", "k", "exact"),
    [
        (nx.star_graph(1999), nx.star_graph(1998), 3, 0.999999984382),  # was 0.99999982 here, 1.0 there
        (nx.star_graph(2999), nx.star_graph(2998), 3, None),  # was 0.99999983 here, 0.99999975 there
        (nx.complete_bipartite_graph(3, 2000), nx.complete_bipartite_graph(3, 2001), 4, None),  # 0.99999912, 1.0
    ],
    ids=["star2000", "star3000", "K3,2000"],
)
def test_nearly_equal_graphs_agree_between_dask_and_in_process(synchronous_dask, G, H, k, exact):
    here = gi.power_kernel(G, H, k=k)
    there = gi.distributed.power_kernel(_edge_table(G), _edge_table(H), k=k)
    assert here < 1
    assert abs(here - there) <= 1e-15
    if exact is not None:  # from the same invariants in exact rational arithmetic
        assert here == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("G", [nx.wheel_graph(3000), nx.complete_bipartite_graph(4, 3000)], ids=["wheel", "K4,3000"])
def test_a_perturbed_graph_toggled_back_is_the_same_graph(G):
    """Was 1 - K = 1.9e-6 (wheel) and 1.4e-6: the size of the paper's signal after one flip."""
    from graphinvariants.perturbation import PerturbedGraph

    state = PerturbedGraph(G, k=5)
    state.toggle(1, 2)
    state.toggle(1, 2)
    assert 1 - gi.power_kernel(state.invariants(), gi.power_invariants(G, k=5)) <= 1e-15


def _nudged(inv, ulps, rng):
    """The invariants with every entry moved by up to ``ulps`` units in the last place."""
    def nudge(a):
        a = a.copy()
        for _ in range(ulps):
            a = np.where(rng.random(a.shape) < 0.5, np.nextafter(a, np.inf), np.nextafter(a, -np.inf))
        return a

    cov = np.triu(nudge(inv.covariance))
    cov = cov + np.triu(cov, 1).T
    return gi.PowerInvariants(nudge(inv.mean), cov, inv.n_nodes)


@pytest.mark.parametrize(
    "G",
    [nx.star_graph(300), nx.wheel_graph(400), nx.complete_bipartite_graph(5, 200), nx.path_graph(4), nx.petersen_graph()],
    ids=["star", "wheel", "K5,200", "path4", "petersen"],
)
def test_a_last_bit_change_of_the_invariants_moves_k_by_about_a_last_bit(rng, G):
    """Singular covariances (rank one, n <= k, zero): a few ulps on every entry moved K
    by up to 1e-5 (the Cholesky pivot of a singular direction is rounding noise)."""
    inv = gi.power_invariants(G)
    other = gi.power_invariants(nx.barbell_graph(6, 3))
    for _ in range(5):
        nudged = _nudged(inv, 2, rng)
        assert 1 - gi.power_kernel(inv, nudged) <= 1e-15
        assert gi.power_kernel(nudged, other) == pytest.approx(gi.power_kernel(inv, other), rel=1e-13, abs=1e-300)


def _exact_log_k(a, b, ridge=gi.DEFAULT_RIDGE):
    """log K in exact rational arithmetic, from each Gaussian's floored eigen-factors
    (covariance ``Q Q^T``, ``Q = V lam^1/2`` as float64 matrices)."""
    from fractions import Fraction

    def root(inv):
        lam, V = np.linalg.eigh(inv.covariance)
        lam = np.maximum(lam, ridge * inv.ridge_scale())
        Q = [[Fraction(float(x)) for x in row] for row in V * np.sqrt(lam)]
        k = len(Q)
        return [[sum(Q[i][m] * Q[j][m] for m in range(k)) for j in range(k)] for i in range(k)]

    def det_and_solve(M, d):
        n = len(M)
        A = [row[:] + [d[i]] for i, row in enumerate(M)]
        det = Fraction(1)
        for j in range(n):
            p = next(i for i in range(j, n) if A[i][j] != 0)
            if p != j:
                A[j], A[p], det = A[p], A[j], -det
            det *= A[j][j]
            for i in range(n):
                if i != j:
                    f = A[i][j] / A[j][j]
                    A[i] = [x - f * y for x, y in zip(A[i], A[j])]
        return det, [A[i][n] / A[i][i] for i in range(n)]

    def log(x):  # math.log takes integers of any size
        return math.log(x.numerator) - math.log(x.denominator)

    A, B = root(a), root(b)
    C = [[(x + y) / 2 for x, y in zip(ra, rb)] for ra, rb in zip(A, B)]
    d = [Fraction(float(x)) - Fraction(float(y)) for x, y in zip(a.mean, b.mean)]
    det_c, z = det_and_solve(C, d)
    det_a, det_b = det_and_solve(A, d)[0], det_and_solve(B, d)[0]
    return log(det_a * det_b / det_c**2) / 4 - float(sum(x * y for x, y in zip(d, z))) / 8


@pytest.mark.parametrize(
    ("G", "H"),
    [
        (nx.star_graph(40), nx.star_graph(41)),  # rank one, nearly aligned
        (nx.star_graph(40), nx.complete_bipartite_graph(2, 39)),  # rank one each, K = 0.97
        (nx.complete_bipartite_graph(3, 30), nx.complete_bipartite_graph(4, 29)),
        (nx.complete_bipartite_graph(3, 30), nx.karate_club_graph()),  # singular against full rank
        (nx.path_graph(4), nx.star_graph(3)),  # n <= k
        (nx.star_graph(5), nx.path_graph(3)),
    ],
    ids=["stars", "star-K2,39", "K3,30-K4,29", "K3,30-karate", "path-star", "star-path"],
)
def test_singular_pairs_against_exact_arithmetic(G, H):
    """Against log K from the same Gaussians in exact arithmetic (was: 1e-6 to 1e-5 off)."""
    a, b = gi.power_invariants(G), gi.power_invariants(H)
    exact = _exact_log_k(a, b)
    for x, y in ((a, b), (b, a)):
        for engine in ("numpy", "numba"):
            if engine == "numba":
                pytest.importorskip("numba")
            from graphinvariants.embeddings import GaussianEmbedding
            from graphinvariants.kernels import pairwise_kernels

            value = pairwise_kernels([x], [y], functional=GaussianEmbedding(engine=engine))[0, 0]
            assert np.log(value) == pytest.approx(exact, rel=1e-12, abs=1e-13)


def test_the_ridge_is_a_floor_on_the_eigenvalues(rng):
    star = gi.power_invariants(nx.star_graph(50))  # rank one
    lam, V = np.linalg.eigh(star.covariance)
    floor = gi.DEFAULT_RIDGE * star.ridge_scale()
    assert np.sum(lam < floor) == 4
    floored = np.linalg.eigvalsh(star.regularized_covariance())
    np.testing.assert_allclose(floored[:4], floor, rtol=1e-3)
    assert floored[4] == pytest.approx(lam[4], rel=1e-14)
    # no eigenvalue below the floor: the covariance as it is, and the paper's kernel without a ridge
    karate = gi.power_invariants(nx.karate_club_graph())
    np.testing.assert_array_equal(karate.regularized_covariance(), karate.covariance)
    les = gi.power_invariants(nx.les_miserables_graph())
    assert gi.power_kernel(karate, les) == pytest.approx(gi.power_kernel(karate, les, ridge=0), rel=1e-12)
    # a zero covariance (regular graph): the floor times the identity, exactly
    petersen = gi.power_invariants(nx.petersen_graph())
    np.testing.assert_array_equal(
        petersen.regularized_covariance(), gi.DEFAULT_RIDGE * petersen.ridge_scale() * np.eye(5)
    )


def test_pairs_out_of_both_graphs_reach_keep_their_direct_value(rng):
    """The numpy tile applies the bound's test only to pairs within reach of one of
    their graphs (_bhattacharyya.reaches): every pair outside passes the test, also
    at its edges (bounds near DIRECT_MAX_BOUND, distances within ulps of bound / 1e8,
    scales from 1e-250 to 1e250), so the flags are those of the test on every pair."""
    from graphinvariants.embeddings import _bhattacharyya as b

    n = 400_000
    sizes = 10.0 ** rng.uniform(-250, 250, (2, n))
    least = sizes / 10.0 ** rng.uniform(0, 6.5, (2, n))  # bounds 1 .. 3e6, across DIRECT_MAX_BOUND
    size, low = sizes.sum(axis=0), least.sum(axis=0)
    edge = size / low / b.DIRECT_PER_DISTANCE  # the distance at which the test changes
    log_k = -edge * (1 + rng.integers(-8, 9, n) * np.finfo(float).eps)
    log_k[::7] = -rng.uniform(0, 0.05, log_k[::7].size)
    reach = b.reaches(sizes, least)
    just_out = np.isfinite(np.minimum(*reach)) & (rng.random(n) < 0.5)  # a few ulps beyond the reach
    log_k[just_out] = np.minimum(*reach)[just_out] * (1 + rng.integers(1, 9, just_out.sum()) * np.finfo(float).eps)
    out_of_reach = log_k < np.minimum(*reach)
    assert 0.2 < out_of_reach.mean() < 0.8
    assert b._resolved(size, low, log_k)[out_of_reach].all()


def test_the_numpy_tile_flags_what_the_test_on_every_pair_flags(rng):
    """direct_tile against combine on Gaussians from well conditioned to singular,
    some nearly equal: the same values and the same pairs left to the whitened one."""
    from graphinvariants.embeddings import _bhattacharyya as b
    from graphinvariants.embeddings.gaussian import _Prepared

    k, n = 4, 300
    V = np.linalg.qr(rng.normal(size=(n, k, k)))[0]
    lam = np.sort(10.0 ** -rng.uniform(0, 7, (n, k)), axis=1) * 10.0 ** rng.uniform(-3, 3, (n, 1))
    lam[n // 2 :] = lam[: n - n // 2] * (1 + rng.normal(scale=1e-9, size=(n - n // 2, k)))  # nearly equal twins
    V[n // 2 :] = V[: n - n // 2]
    halves = np.matmul(V * lam[:, None, :], V.transpose(0, 2, 1)) / 2
    means = rng.normal(size=(n, k)) * np.sqrt(lam)
    means[n // 2 :] = means[: n - n // 2] + rng.normal(scale=1e-7, size=(n - n // 2, k)) * np.sqrt(lam[n // 2 :])
    side = _Prepared(means, halves, np.log(lam).sum(axis=1), lam.sum(axis=1) / 2, lam[:, 0] / 2, lam,
                     V / np.sqrt(lam)[:, None, :], V * np.sqrt(lam)[:, None, :])
    logdet, maha = b.pair_terms(means, halves, means, halves)
    every = b.combine(side.logdets[:, None], side.logdets[None, :], logdet, maha,
                      side.sizes[:, None] + side.sizes[None, :], side.least[:, None] + side.least[None, :])
    index = np.arange(n)
    values, unresolved = b.direct_tile(side, side, index, index, logdet, maha)
    np.testing.assert_array_equal(values, every)  # exact: the same operations
    np.testing.assert_array_equal(unresolved, np.flatnonzero(every == b.UNRESOLVED))
    assert n < unresolved.size < n * n / 4  # singular pairs, twins and the diagonal
