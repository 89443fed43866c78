"""Integrated gradients in count space (graphinvariants.explanations._paths) against brute force:
numerical integration of finite-difference gradients of the term written out from its
definition, exhaustive Shapley values where the two coincide, completeness and
determinism of gi.explain on the learned default."""


import networkx as nx
import numpy as np
import pytest
import scipy.integrate
import scipy.sparse as sp
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

import graphinvariants as gi
from graphinvariants.explanations._paths import NodeBatch, Shape, TermPaths
from graphinvariants.embeddings import (GaussianEmbedding, WalkHistogram, WalkHistogramOptimalAssignment,
                                        WeisfeilerLehman)
from graphinvariants.walks.summary import batch_power_summary
from tests.conftest import brute_force_shapley


def _graphs(seed, n_graphs, sizes=(7, 10)):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_graphs:
        G = nx.gnp_random_graph(int(rng.integers(*sizes)), 0.35, seed=int(rng.integers(2**31)))
        if nx.is_connected(G) and not all(d == 2 for _, d in G.degree()):
            out.append(G)
    return out


TRAIN = _graphs(0, 6)
G = _graphs(1, 1)[0]
COEF = np.array([0.7, -1.3, 0.4, 0.0, 2.1, -0.6])


def _node_kernels(functional, graph, train):
    """k_vj = <c_v, c_j> / (|c(G)| |c_j|) from the per-node counts, written out."""
    batch = functional.graph_batch([graph])
    train_emb = functional.embed(functional.graph_batch(train))
    A, B = functional.merge(train_emb, functional.embed(NodeBatch(batch)))
    A, B = sp.csr_array(A, dtype=float).toarray(), sp.csr_array(B, dtype=float).toarray()
    return (B @ A.T) / np.linalg.norm(B.sum(axis=0)) / np.linalg.norm(A, axis=1)[None, :], A, B


def _brute_ig(F, n):
    """Node v's integral of dF/dw_v along w = t (1, ..., 1), by central differences and
    scipy's adaptive quadrature (errors about 1e-8)."""
    def integrand(t, v):
        e = np.zeros(n)
        e[v] = 1e-6
        w = np.full(n, t)
        return (F(w + e) - F(w - e)) / 2e-6
    return np.array([scipy.integrate.quad(integrand, 0.0, 1.0, args=(v,), epsabs=1e-11, limit=200)[0]
                     for v in range(n)])


def _paths(members, shape, coef, graph):
    batch = members[0][0].graph_batch([graph])
    trained = [(f, f.embed(f.graph_batch(TRAIN))) for f, _ in members]
    term = TermPaths(trained, shape, coef, batch)
    values, baseline = term.node_values()
    return values[0], float(baseline[0])


@pytest.mark.parametrize("shape", [("power", 1), ("power", 3), ("gauss", 0.5)])
def test_closed_form_of_count_products_is_the_integral(shape):
    """A product of two count members in each shape: the closed form against the
    integral of the gradient of the term written out, node by node."""
    wl, hist = WeisfeilerLehman(n_iter=2), WalkHistogram(k=3)
    k1, _, _ = _node_kernels(wl, G, TRAIN)
    k2, _, _ = _node_kernels(hist, G, TRAIN)
    h = Shape(shape, median=0.8)

    def F(w):
        return float(COEF @ h((w @ k1) * (w @ k2)))

    values, baseline = _paths([(wl, None), (hist, None)], h, COEF, G)
    n = G.number_of_nodes()
    np.testing.assert_allclose(values, _brute_ig(F, n), atol=1e-7)
    assert baseline == pytest.approx(float(h(0.0)) * COEF.sum(), abs=0)
    # complete: the values add up to the term less its value at t = 0, to rounding
    assert abs(values.sum() - (F(np.ones(n)) - F(np.zeros(n)))) < 1e-12


def test_assignment_member_by_pieces_is_the_integral():
    """Histogram intersection in a Gaussian shape: piecewise linear along the line, the
    closed form by pieces against the integral of its gradient."""
    oa = WalkHistogramOptimalAssignment(k=3)
    batch = oa.graph_batch([G])
    train_emb = oa.embed(oa.graph_batch(TRAIN))
    A, B = oa.merge(train_emb, oa.embed(NodeBatch(batch)))
    A, B = sp.csr_array(A, dtype=float).toarray(), sp.csr_array(B, dtype=float).toarray()
    N = np.sqrt(B.sum() * A.sum(axis=1))
    h = Shape(("gauss", 1.0), median=0.6)

    def F(w):
        c = w @ B
        return float(COEF @ h(np.minimum(c[None, :], A).sum(axis=1) / N))

    values, _ = _paths([(oa, None)], h, COEF, G)
    n = G.number_of_nodes()
    # the integrand jumps where a feature reaches a training count: quad's tolerance is looser there
    np.testing.assert_allclose(values, _brute_ig(F, n), atol=2e-6)
    assert abs(values.sum() - (F(np.ones(n)) - F(np.zeros(n)))) < 1e-12


def _power_F(functional, graph, coef, shape, other=None):
    """The power kernel's term as a function of node weights, from its definition: mean
    ``sum w_v x_v / n``, covariance ``sum w_v (x_v - mu)(x_v - mu)^T / n`` plus each node's
    share of the ridge's floor, the Bhattacharyya coefficient with every training Gaussian."""
    batch = functional.graph_batch([graph])
    x = batch_power_summary(batch, functional.k, functional.normalization)
    n, k = x.shape
    mu = x.mean(axis=0)
    train = functional.embed(functional.graph_batch(TRAIN))
    t_covs = np.stack([inv.regularized_covariance(functional.ridge) for inv in train])
    own = functional.embed(batch)[0]
    floor = own.regularized_covariance(functional.ridge) - own.covariance  # 0 unless an eigenvalue is floored
    share = (x * x).sum(axis=1) / (x * x).sum()
    centred = x - mu

    def K(w):
        m = w @ x / n
        S = np.einsum("v,va,vb->ab", w, centred, centred) / n + (w @ share) * floor
        out = []
        for mj, Cj in zip(train.means, t_covs):
            bar = (S + Cj) / 2
            d = m - mj
            L = (0.25 * (np.linalg.slogdet(S)[1] + np.linalg.slogdet(Cj)[1]) - 0.5 * np.linalg.slogdet(bar)[1]
                 - 0.125 * d @ np.linalg.solve(bar, d))
            out.append(np.exp(min(L, 0.0)))
        return np.array(out)

    def F(w):
        value = K(w) if other is None else K(w) * (w @ other)
        return float(coef @ shape(value))

    return F


@pytest.mark.parametrize("with_wl", [False, True])
def test_power_kernel_quadrature_is_the_integral(with_wl):
    """The power kernel alone (shape K^2) and times Weisfeiler-Lehman (Gaussian shape):
    the adaptive Gauss-Legendre values against scipy's quadrature of finite differences
    of the term written out from its definition."""
    power = GaussianEmbedding(k=3)
    members = [(power, None)]
    other = None
    h = Shape(("power", 2)) if not with_wl else Shape(("gauss", 1.0), median=0.7)
    if with_wl:
        wl = WeisfeilerLehman(n_iter=2)
        other, _, _ = _node_kernels(wl, G, TRAIN)
        members.append((wl, None))
    values, baseline = _paths(members, h, COEF, G)
    F = _power_F(power, G, COEF, h, other)
    n = G.number_of_nodes()
    np.testing.assert_allclose(values, _brute_ig(F, n), atol=1e-6)
    assert abs(values.sum() + baseline - F(np.ones(n))) < 1e-9  # complete to the quadrature's tolerance


def test_bilinear_terms_are_the_exhaustive_shapley_values():
    """For a product of two count members in its plain shape the term is a quadratic form
    of the node weights, whose integrated gradients are the Shapley values of the game
    'the nodes of S add their features' (all 2^n subsets)."""
    wl, hist = WeisfeilerLehman(n_iter=1), WalkHistogram(k=2)
    graph = _graphs(5, 1, sizes=(6, 8))[0]
    k1, _, _ = _node_kernels(wl, graph, TRAIN)
    k2, _, _ = _node_kernels(hist, graph, TRAIN)
    n = graph.number_of_nodes()

    def v(S):
        w = np.zeros(n)
        w[list(S)] = 1.0
        return float(COEF @ ((w @ k1) * (w @ k2)))

    shapley = brute_force_shapley(n, v)
    values, _ = _paths([(wl, None), (hist, None)], Shape(("power", 1)), COEF, graph)
    np.testing.assert_allclose(values, shapley, rtol=1e-10, atol=1e-13)


def test_learned_default_is_exact_complete_and_deterministic():
    """The learned default on MUTAG (its shapes and the power kernel): every term by a
    path integral, complete within 1e-8, the same bits for two seeds."""
    data = gi.load_tu("MUTAG")
    model = Pipeline([("k", gi.GraphKernel(seed=0)), ("m", SVC(kernel="precomputed"))]).fit(data[:120], data.y[:120])
    graphs = data[120:140]
    a = gi.explain(model, graphs, seed=0)
    b = gi.explain(model, graphs, seed=1)
    assert not a.sampled_members and not a.fallback, (a.sampled_members, a.fallback)
    for x, y in zip(a.node_values, b.node_values):
        np.testing.assert_array_equal(x, y)
    totals = a.base_value + np.array([v.sum() for v in a.node_values])
    np.testing.assert_allclose(totals, model.decision_function(graphs), rtol=0, atol=1e-8)
    assert all(np.all(e == 0) for e in a.node_errors)


def test_a_quadrature_that_does_not_converge_falls_back_to_sampling(monkeypatch):
    """A graph whose power-kernel integral does not converge (a needle; here forced by
    allowing two evaluations) gets that term by sampled Shapley values: still complete,
    named in ``fallback``, with standard errors, the same bits for the same seed."""
    import graphinvariants.explanations._paths as attribution

    monkeypatch.setattr(attribution, "QUADRATURE_ORDER", 2)
    monkeypatch.setattr(attribution, "MAX_EVALUATIONS", 2)
    graphs = _graphs(3, 12)
    y = np.arange(12) % 2
    model = Pipeline([("k", gi.GraphKernel(kernel="power*wl")), ("m", SVC(kernel="precomputed"))]).fit(graphs, y)
    explained = _graphs(4, 2)
    a = gi.explain(model, explained, n_permutations=16, seed=0)
    b = gi.explain(model, explained, n_permutations=16, seed=0)
    assert a.fallback == {"power*wl": [0, 1]} and "did not converge" in repr(a)
    totals = a.base_value + np.array([v.sum() for v in a.node_values])
    np.testing.assert_allclose(totals, model.decision_function(explained), rtol=0, atol=1e-9)
    assert all(e.max() > 0 for e in a.node_errors)
    for x, z in zip(a.node_values, b.node_values):
        np.testing.assert_array_equal(x, z)
