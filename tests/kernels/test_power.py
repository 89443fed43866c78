import igraph as ig
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import multivariate_normal

import graphinvariants as gi


def _random_gaussian(rng, k):
    W = rng.normal(size=(k, k))
    return rng.normal(size=k), W @ W.T / k + 0.2 * np.eye(k)


def _kernel_of_gaussians(m1, c1, m2, c2):
    """The vectorised engine (power_kernel_matrix) on two given Gaussians."""
    a, b = gi.PowerInvariants(m1, c1, 10), gi.PowerInvariants(m2, c2, 10)
    return gi.power_kernel(a, b, k=len(m1), ridge=0)


def test_closed_form_against_quadrature_1d(rng):
    for _ in range(5):
        (m1, c1), (m2, c2) = _random_gaussian(rng, 1), _random_gaussian(rng, 1)
        p1, p2 = multivariate_normal(m1, c1), multivariate_normal(m2, c2)
        value, err = integrate.quad(lambda x: np.sqrt(p1.pdf(x) * p2.pdf(x)), -np.inf, np.inf, epsabs=1e-13)
        assert _kernel_of_gaussians(m1, c1, m2, c2) == pytest.approx(value, abs=1e-9)


@pytest.mark.slow
def test_closed_form_against_quadrature_2d(rng):
    for _ in range(3):
        (m1, c1), (m2, c2) = _random_gaussian(rng, 2), _random_gaussian(rng, 2)
        p1, p2 = multivariate_normal(m1, c1), multivariate_normal(m2, c2)
        lo = np.minimum(m1, m2) - 12 * np.sqrt(np.maximum(np.diag(c1), np.diag(c2)))
        hi = np.maximum(m1, m2) + 12 * np.sqrt(np.maximum(np.diag(c1), np.diag(c2)))
        value, _ = integrate.dblquad(
            lambda y, x: np.sqrt(p1.pdf([x, y]) * p2.pdf([x, y])), lo[0], hi[0], lo[1], hi[1], epsabs=1e-11
        )
        assert _kernel_of_gaussians(m1, c1, m2, c2) == pytest.approx(value, abs=1e-8)


@pytest.mark.slow
def test_closed_form_against_monte_carlo_5d(rng):
    """Importance sampling from N((m1+m2)/2, (c1+c2)/2); tolerance: 5 standard errors."""
    for _ in range(3):
        (m1, c1), (m2, c2) = _random_gaussian(rng, 5), _random_gaussian(rng, 5)
        q = multivariate_normal((m1 + m2) / 2, (c1 + c2) / 2)
        x = q.rvs(size=400_000, random_state=rng)
        w = np.exp(0.5 * (multivariate_normal(m1, c1).logpdf(x) + multivariate_normal(m2, c2).logpdf(x)) - q.logpdf(x))
        estimate, stderr = w.mean(), w.std() / np.sqrt(w.size)
        assert abs(_kernel_of_gaussians(m1, c1, m2, c2) - estimate) < 5 * stderr
        assert stderr < 2e-3


def test_engine_matches_per_pair_formula(rng):
    for k in (1, 2, 5, 8):
        for _ in range(5):
            (m1, c1), (m2, c2) = _random_gaussian(rng, k), _random_gaussian(rng, k)
            assert _kernel_of_gaussians(m1, c1, m2, c2) == pytest.approx(
                gi.bhattacharyya_coefficient(m1, c1, m2, c2), rel=1e-11
            )


def _paper_eq4(mA, SA, mB, SB):
    """Eq. 4 of the paper exactly as printed (it is wrong)."""
    S = (SA + SB) / 2
    mu = 0.5 * np.linalg.solve(SA, mA) + 0.5 * np.linalg.solve(SB, mB)
    T1 = -0.25 * mA @ np.linalg.solve(SA, mA)
    T2 = -0.25 * mB @ np.linalg.solve(SB, mB)
    T3 = 0.5 * mu @ np.linalg.solve(S, mu)
    det = np.linalg.det
    return det(SA) ** -0.25 * det(S) ** 0.25 * det(SB) ** -0.25 * np.exp(T1 + T2 + T3)


def test_papers_printed_closed_form_is_wrong_and_ours_is_not(rng):
    m, c = _random_gaussian(rng, 5)
    c = 3 * c
    assert abs(_paper_eq4(m, c, m, c) - 1) > 0.1
    # exact: each side's log-determinant comes from the pair routine itself, so log K is 0
    assert _kernel_of_gaussians(m, c, m, c) == 1.0


def test_self_kernel_is_one_for_all_kinds_of_graphs():
    graphs = [
        nx.karate_club_graph(),
        nx.petersen_graph(),  # regular: zero covariance
        nx.empty_graph(5),  # edgeless
        nx.path_graph(3),  # n <= k
        nx.complete_graph(1),
        nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)]),
    ]
    for G in graphs:
        assert gi.power_kernel(G, G) == 1.0
    K = gi.power_kernel_matrix(graphs)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.all(np.isfinite(K)) and K.min() >= 0 and K.max() <= 1
    # exact: K[i, j] and K[j, i] take the same operations (sums commute, the mean difference only changes sign)
    np.testing.assert_array_equal(K, K.T)


def test_returns_python_float():
    assert type(gi.power_kernel(nx.path_graph(8), nx.cycle_graph(8))) is float


@st.composite
def graph_and_relabelling(draw):
    n = draw(st.integers(2, 30))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=3 * n))
    perm = draw(st.permutations(range(n)))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    H = nx.Graph()
    H.add_nodes_from(sorted(range(n), key=lambda v: perm[v]))
    H.add_edges_from((perm[u], perm[v]) for u, v in edges)
    return G, H


@settings(max_examples=60, deadline=None)
@given(graph_and_relabelling())
def test_kernel_is_invariant_under_relabelling(case):
    G, H = case
    assert gi.power_kernel(G, H) == pytest.approx(1.0, rel=1e-12)
    other = nx.path_graph(G.number_of_nodes())
    assert gi.power_kernel(G, other) == pytest.approx(gi.power_kernel(H, other), rel=1e-12, abs=1e-300)


def test_adapters_give_the_same_kernel():
    G, H = nx.karate_club_graph(), nx.les_miserables_graph()
    ref = gi.power_kernel(G, H)
    g, h = ig.Graph.from_networkx(G), ig.Graph.from_networkx(H)
    # exact: every adapter gives the same adjacency, so the same invariants and operations
    assert gi.power_kernel(g, h) == ref
    assert gi.power_kernel(nx.to_scipy_sparse_array(G), nx.to_numpy_array(H)) == ref
    assert gi.power_kernel(gi.power_invariants(G), h) == ref
    assert gi.power_kernel(G, nx.Graph(G)) == 1.0


def test_directed_graphs_keep_their_direction():
    """Walks follow edge direction. The reverse of a directed graph is in general another
    graph (an out-star and the in-star it turns into differ), unless it is isomorphic to
    the original (a directed cycle); copies and the igraph version are the same graph."""
    out_star = nx.DiGraph([(0, 1), (0, 2), (0, 3)])
    # exact: isomorphic graphs have bit-identical invariants (exact walk counts, sorted moments)
    assert gi.power_kernel(out_star, nx.DiGraph(out_star)) == 1.0
    assert gi.power_kernel(out_star, out_star.reverse()) < 0.9
    assert gi.power_kernel(out_star, nx.Graph(out_star)) < 0.9  # the undirected star is a third graph
    g = ig.Graph.from_networkx(out_star)
    assert g.is_directed() and gi.power_kernel(g, out_star) == 1.0
    cycle = nx.cycle_graph(6, create_using=nx.DiGraph)
    assert gi.power_kernel(cycle, cycle.reverse()) == 1.0


def test_random_gram_matrices_are_psd_and_consistent(rng):
    graphs = [nx.gnp_random_graph(int(n), p, seed=i) for i, (n, p) in enumerate(zip(rng.integers(3, 60, 80), rng.uniform(0.02, 0.5, 80)))]
    K = gi.power_kernel_matrix(graphs)
    assert np.all(np.isfinite(K))
    assert np.linalg.eigvalsh(K)[0] >= -1e-9 * len(K)
    # exact: symmetric by construction, and threads only split the tiles (each value a function of its pair)
    np.testing.assert_array_equal(K, K.T)
    # rectangular blocks equal the matching block of the full matrix; threads change nothing
    np.testing.assert_allclose(gi.power_kernel_matrix(graphs[:30], graphs[30:]), K[:30, 30:], rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(gi.power_kernel_matrix(graphs, n_jobs=2), K)
    assert gi.power_kernel(graphs[3], graphs[40]) == pytest.approx(K[3, 40], rel=1e-12)


def test_ridge_zero_with_singular_covariance_raises():
    with pytest.raises(ValueError, match=r"graphs\[0\].*singular.*ridge"):
        gi.power_kernel(nx.petersen_graph(), nx.karate_club_graph(), ridge=0)
    with pytest.raises(ValueError, match="ridge"):
        gi.power_kernel(nx.path_graph(3), nx.path_graph(3), ridge=-1.0)
    G, H = nx.karate_club_graph(), nx.les_miserables_graph()
    assert gi.power_kernel(G, H, ridge=0) == pytest.approx(gi.power_kernel(G, H), abs=1e-6)


def test_empty_collections_and_bad_arguments():
    assert gi.power_kernel_matrix([]).shape == (0, 0)
    assert gi.power_kernel_matrix([nx.path_graph(6)], []).shape == (1, 0)
    with pytest.raises(ValueError, match="n_jobs"):
        gi.power_kernel_matrix([nx.path_graph(6)], n_jobs=0)
    with pytest.raises(TypeError, match="expected a networkx graph"):
        gi.power_kernel(nx.path_graph(3), 3.5)
    # a string is read as SMILES (every entry point takes them): one that is not says so
    pytest.importorskip("rdkit")
    with pytest.raises(ValueError, match="cannot read 'graph' as a SMILES string"):
        gi.power_kernel(nx.path_graph(3), "graph")


#: the paper's larger data sets: a Gram matrix of 4,000+ graphs and its eigenvalues take seconds
PAPER_LARGE = [pytest.param(name, marks=pytest.mark.slow) for name in ("ENZYMES", "NCI1", "NCI109")]


@pytest.mark.parametrize("name", ["MUTAG", *PAPER_LARGE])
def test_benchmark_gram_matrices_are_psd(tu_datasets, name):
    invariants = gi.batch_power_invariants(tu_datasets[name], k=5)
    K = gi.power_kernel_matrix(invariants, n_jobs=2)
    assert np.all(np.isfinite(K)) and K.min() >= 0 and K.max() <= 1
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K)[0] >= -1e-9 * len(K)


@pytest.mark.parametrize("name", ["MUTAG", "ENZYMES", *PAPER_LARGE[1:]])
def test_default_ridge_barely_moves_well_conditioned_pairs(tu_datasets, name):
    invariants = gi.batch_power_invariants(tu_datasets[name], k=5)
    eig = np.linalg.eigvalsh(np.stack([inv.covariance for inv in invariants]))
    good = [inv for inv, e in zip(invariants, eig) if e[0] > 0 and e[-1] < 1e6 * e[0]]
    assert len(good) > 0.9 * len(invariants)
    if len(good) > 1500:  # every pair of a 1,500-graph sample keeps the test fast
        good = [good[i] for i in np.random.default_rng(0).choice(len(good), 1500, replace=False)]
    exact = gi.power_kernel_matrix(good, ridge=0)
    assert np.abs(gi.power_kernel_matrix(good) - exact).max() < 1e-6
