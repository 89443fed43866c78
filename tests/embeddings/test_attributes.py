"""Mean embeddings of propagated node attributes: double sums, fitted parameters, theorems."""

import igraph as ig
import networkx as nx
import numpy as np
import pytest
from scipy.spatial.distance import pdist

from tests.conftest import assert_gram_theorems, renumbered as renumbered_graph
from graphinvariants.embeddings import PropagatedAttributes, propagated_attributes
from graphinvariants.graphs import as_graph_batch
from graphinvariants.kernels import pairwise_kernels


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(3)
    out = [nx.gnp_random_graph(int(n), 0.25, seed=int(n)) for n in range(4, 19, 3)]
    out += [nx.star_graph(4), nx.empty_graph(2), nx.path_graph(1)]
    for G in out:
        for v in G:
            G.nodes[v]["attributes"] = tuple(rng.normal(size=3) * [1.0, 10.0, 0.1] + [0.0, 5.0, 0.0])
    return out


def _propagated(G, k, propagation, mean, scale):
    """[Z, P Z, ..., P^k Z] with dense matrices."""
    Z = (np.array([G.nodes[v]["attributes"] for v in G]) - mean) / scale
    A = nx.to_numpy_array(G, nodelist=list(G), weight=None)
    if propagation == "lazy":
        A = A + np.eye(len(A))
    degree = A.sum(axis=1)
    P = np.where(degree[:, None] > 0, A / np.maximum(degree, 1)[:, None], np.eye(len(A)))
    return np.hstack([np.linalg.matrix_power(P, t) @ Z for t in range(k + 1)])


def _brute_force(graphs, k, propagation, h=None):
    Z = np.array([G.nodes[v]["attributes"] for G in graphs for v in G])
    mean, scale = Z.mean(axis=0), Z.std(axis=0)
    profiles = [_propagated(G, k, propagation, mean, scale) for G in graphs]
    if h is None:  # half the median heuristic over all node pairs (fewer than 1000 nodes)
        h = 0.5 * np.median(pdist(np.vstack(profiles)))

    def s(X, Y):
        return sum(np.exp(-np.sum((x - y) ** 2) / (2 * h * h)) for x in X for y in Y)

    n = len(graphs)
    K = np.array([[s(profiles[i], profiles[j]) for j in range(n)] for i in range(n)])
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d), h


@pytest.mark.parametrize("k, propagation", [(0, "mean"), (2, "mean"), (3, "lazy")])
def test_exact_form_matches_the_double_sum(graphs, k, propagation, mean_map_engine):
    functional = PropagatedAttributes(k=k, propagation=propagation)
    K = pairwise_kernels(graphs, functional=functional)
    expected, h = _brute_force(graphs, k, propagation)
    # different summation orders (matrix powers, numpy's mean) and RBF values rounded to 2**-52
    assert functional.bandwidth_ == pytest.approx(h, rel=1e-12)
    np.testing.assert_allclose(K, expected, rtol=1e-10)
    fixed = pairwise_kernels(graphs, functional=PropagatedAttributes(k=k, propagation=propagation, bandwidth=0.7))
    np.testing.assert_allclose(fixed, _brute_force(graphs, k, propagation, h=0.7)[0], rtol=1e-10)


def test_propagation_by_hand():
    G = nx.Graph([(0, 1), (1, 2)])
    G.add_node(3)
    nx.set_node_attributes(G, {0: 1.0, 1: 2.0, 2: 6.0, 3: 5.0}, "x")
    batch = as_graph_batch([G], node_attributes="x")
    assert propagated_attributes(batch, 1).tolist() == [[1.0, 2.0], [2.0, 3.5], [6.0, 2.0], [5.0, 5.0]]
    assert propagated_attributes(batch, 1, propagation="lazy").tolist() == [[1.0, 1.5], [2.0, 3.0], [6.0, 4.0], [5.0, 5.0]]


def _propagated_by_loops(batch, k, propagation):
    """[Z, P Z, ..., P^k Z] node by node: each node's terms (its neighbours', and its
    own for "lazy") sorted and added by np.add.reduceat, as the first implementation did
    with one sort per column over all edges."""
    A, current = batch.matrix, batch.node_attributes
    blocks = [current]
    for _ in range(k):
        summed = current.copy()
        for i in range(A.shape[0]):
            neighbours = list(A.indices[A.indptr[i] : A.indptr[i + 1]]) + ([i] if propagation == "lazy" else [])
            for j in range(current.shape[1]) if neighbours else ():
                terms = np.sort(current[neighbours, j])
                summed[i, j] = np.add.reduceat(terms, [0])[0] / len(neighbours)
        current = summed
        blocks.append(current)
    return np.hstack(blocks)


@pytest.mark.parametrize("propagation", ["mean", "lazy"])
def test_propagation_adds_sorted_terms_node_by_node(rng, propagation):
    """Nodes grouped by degree (one sort per group) give the bits of a loop over nodes,
    for degrees from 0 to 300 (beyond numpy's eight-term unrolled sums), self-loops and
    directed edges; renumbering the nodes renumbers the rows, bit for bit."""
    graphs = [nx.star_graph(300), nx.gnp_random_graph(60, 0.5, seed=2), nx.empty_graph(3), nx.path_graph(5),
              nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)]), nx.Graph([(0, 0), (0, 1), (1, 2)])]
    for G in graphs:
        nx.set_node_attributes(G, {v: tuple(rng.normal(size=3) * [1e3, 1.0, 1e-3]) for v in G}, "x")
    batch = as_graph_batch(graphs, node_attributes="x")
    X = propagated_attributes(batch, 3, propagation=propagation)
    np.testing.assert_array_equal(X, _propagated_by_loops(batch, 3, propagation))
    renumbered = [renumbered_graph(G, rng) for G in graphs[:2]]
    Y = propagated_attributes(as_graph_batch(renumbered, node_attributes="x"), 3, propagation=propagation)
    # the two graphs' rows (attributes drawn at random: no two alike) in some order, the same bits

    def ordered(rows):
        return rows[np.lexsort(rows.T[::-1])]

    np.testing.assert_array_equal(ordered(Y), ordered(X[:361]))


def test_rows_in_lexicographic_order_with_ties(rng):
    """Sorted by the leading columns, then the tied rows by all columns: the order of
    one np.lexsort over every column, graph by graph."""
    from graphinvariants.embeddings.attributes import _lexicographic_order

    for trial in range(200):
        n, w = int(rng.integers(0, 40)), int(rng.integers(1, 7))
        X = rng.integers(0, 3, size=(n, w)).astype(float)
        if trial % 3 == 0:
            X[:, 0] = 1.0
        owner = np.sort(rng.integers(0, 4, n))
        expected = np.lexsort(tuple(X[:, j] for j in reversed(range(w))) + (owner,))
        order = _lexicographic_order(X, owner)
        np.testing.assert_array_equal(X[order], X[expected])
        np.testing.assert_array_equal(owner[order], owner[expected])
        np.testing.assert_array_equal(X[_lexicographic_order(X)], X[np.lexsort(X.T[::-1])] if n else X)


@pytest.mark.parametrize("n_features", [None, 500])
def test_theorems_renumbering_and_libraries(graphs, rng, n_features, mean_map_engine):
    functional = PropagatedAttributes(k=2, n_features=n_features)
    K, renumbered = assert_gram_theorems(graphs, functional, rng, psd_tolerance=1e-10)
    # fresh functionals: the same matrix (random features drawn alike)
    np.testing.assert_array_equal(pairwise_kernels(renumbered, functional=PropagatedAttributes(k=2, n_features=n_features)), K)
    np.testing.assert_array_equal(
        pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=PropagatedAttributes(k=2, n_features=n_features)), K)


def test_random_features_approach_the_exact_form(graphs):
    exact = pairwise_kernels(graphs, functional=PropagatedAttributes(k=2))
    error = {D: np.mean([np.abs(pairwise_kernels(graphs, functional=PropagatedAttributes(k=2, n_features=D, seed=s))
                                - exact).max() for s in range(4)]) for D in (50, 5000)}
    assert error[5000] < error[50] / 3


def test_queries_share_the_fit_of_the_corpus(graphs):
    corpus, queries = graphs[:5], graphs[5:]
    functional = PropagatedAttributes(k=2).fit(corpus)
    h = functional.bandwidth_
    everything = pairwise_kernels(corpus + queries, functional=functional)
    assert functional.bandwidth_ == h  # embedding more graphs does not refit
    np.testing.assert_array_equal(pairwise_kernels(queries, corpus, functional=functional), everything[5:, :5])
    # a precomputed batch carries its fit; a functional fitted otherwise refuses it
    embedded = functional.as_embeddings(corpus)
    fresh = PropagatedAttributes(k=2)
    np.testing.assert_array_equal(pairwise_kernels(embedded, queries, functional=fresh), everything[:5, 5:])
    with pytest.raises(ValueError, match="fitted scaling or bandwidth"):
        pairwise_kernels(embedded, functional=PropagatedAttributes(k=2).fit(queries))


def test_errors_name_the_problem(graphs):
    with pytest.raises(ValueError, match="no node attributes|no attribute"):
        pairwise_kernels([nx.path_graph(3), nx.path_graph(2)], functional=PropagatedAttributes())
    wide = nx.path_graph(3)
    nx.set_node_attributes(wide, (1.0, 2.0), "attributes")
    functional = PropagatedAttributes().fit(graphs)
    with pytest.raises(ValueError, match="2 node attributes per node.*3"):
        pairwise_kernels([wide], graphs, functional=functional)
    with pytest.raises(AttributeError, match="not fitted"):
        PropagatedAttributes().bandwidth_
    for bad in ({"bandwidth": "mean"}, {"bandwidth": -1.0}, {"bandwidth_scale": 0}, {"propagation": "sum"}, {"k": -1}):
        with pytest.raises(ValueError):
            PropagatedAttributes(**bad)


def test_graph_kernel_fits_on_the_training_graphs(graphs):
    import graphinvariants as gi

    model = gi.GraphKernel(kernel="attributes", k=1).fit(graphs[:5])
    expected = pairwise_kernels(graphs[5:], graphs[:5], functional=PropagatedAttributes(k=1).fit(graphs[:5]))
    np.testing.assert_array_equal(model.transform(graphs[5:]), expected)
    assert model.functional_.bandwidth_ == PropagatedAttributes(k=1).fit(graphs[:5]).bandwidth_


def test_not_offered_as_plain_arrays(graphs):
    functional = PropagatedAttributes(k=1, n_features=64)
    assert functional.to_arrays(functional.as_embeddings(graphs)) is None


@pytest.mark.parametrize("option", [{"bandwidth": None}, {"bandwidth": [0.5]}, {"bandwidth_scale": None}, {"bandwidth_scale": "x"}])
def test_bandwidths_that_are_not_numbers_are_named(option):
    with pytest.raises(TypeError, match=f"{next(iter(option))} must be"):
        PropagatedAttributes(**option)


def test_cross_matrices_fit_on_both_sides_whatever_their_order(tu_datasets, tu_load, rng, mean_map_engine):
    """kernel_matrix(A, B) fits on A and B together (the column statistics of the sorted
    attributes, the median over profiles in sorted order): it is the transpose of
    kernel_matrix(B, A) and the block of the Gram matrix of A and B, exactly; the Gram
    matrix of shuffled graphs is the shuffled Gram matrix (BZR: more nodes than the
    median's sample, so the sample's choice matters)."""
    import graphinvariants as gi

    # Exact by construction, with any numpy or BLAS: the fit reads sorted values only, each
    # pair's RBF comes from sum_t (x_t - y_t)^2 in column order (the same bits for (x, y)
    # and (y, x)) and is summed as integers (meanmap._cross_sums); random features go
    # through integer-split products (meanmap._SplitRows), exact in any summation order.
    bzr = tu_load("BZR")
    A, B = bzr[:60], bzr[300:340]
    K_ab = gi.kernel_matrix(A, B, kernel="attributes")
    np.testing.assert_array_equal(K_ab, gi.kernel_matrix(B, A, kernel="attributes").T)
    both = bzr[np.r_[0:60, 300:340]]
    np.testing.assert_array_equal(K_ab, gi.kernel_matrix(both, kernel="attributes")[:60, 60:])
    for functional in (PropagatedAttributes(k=2), PropagatedAttributes(k=1, n_features=64)):
        np.testing.assert_array_equal(pairwise_kernels(A, B, functional=functional),
                                      pairwise_kernels(B, A, functional=type(functional)(**_params(functional))).T)
    part = bzr[:100]
    K = gi.kernel_matrix(part, kernel="attributes")
    order = rng.permutation(100)
    np.testing.assert_array_equal(gi.kernel_matrix(part[order], kernel="attributes"), K[np.ix_(order, order)])
    # a GraphKernel fitted on shuffled graphs transforms identically (up to the permutation)
    model = gi.GraphKernel(kernel="attributes").fit(part)
    shuffled = gi.GraphKernel(kernel="attributes").fit(part[order])
    queries = bzr[200:230]
    np.testing.assert_array_equal(shuffled.transform(queries), model.transform(queries)[:, order])
    assert shuffled.functional_.bandwidth_ == model.functional_.bandwidth_


def _params(functional):
    return {"k": functional.k, "n_features": functional.n_features}


@pytest.mark.parametrize("huge", [(1e155, 0.5), (1e308, 1e308)])
def test_attributes_too_large_to_standardise_are_refused(graphs, huge):
    """[1e155, 0.5] squared overflows (the column was lost, only numpy warnings);
    [1e308, 1e308] overflows the mean (every value became 1.0): refused by name."""
    import warnings

    graphs = [G.copy() for G in graphs]
    for G in graphs:
        for v in G:
            G.nodes[v]["attributes"] = G.nodes[v]["attributes"][:2]
    graphs[1].nodes[0]["attributes"] = huge
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning on the way
        with pytest.raises(ValueError, match=r"node attributes \(column 0\) are too large to standardise"):
            pairwise_kernels(graphs, functional=PropagatedAttributes())
        with pytest.raises(ValueError, match="too large to standardise"):
            PropagatedAttributes().fit(graphs)
        # fitted on ordinary graphs, a query far beyond them is refused too (its squared
        # distances would overflow)
        fitted = PropagatedAttributes().fit(graphs[2:])
        with pytest.raises(ValueError, match=r"too far from the fitted ones"):
            pairwise_kernels(graphs[:2], graphs[2:], functional=fitted)
        # large but safe values are standardised as usual
        scaled = [G.copy() for G in graphs[2:]]
        for G in scaled:
            nx.set_node_attributes(G, {v: tuple(1e150 * np.array(a)) for v, a in G.nodes(data="attributes")},
                                   "attributes")
        K = pairwise_kernels(scaled, functional=PropagatedAttributes())
        # the same standardised values up to rounding of the scaled statistics
        np.testing.assert_allclose(K, pairwise_kernels(graphs[2:], functional=PropagatedAttributes()),
                                   rtol=1e-9, atol=1e-12)
