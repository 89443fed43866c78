"""The walk-profile histogram: a second functional through the same pair engine."""

from collections import Counter

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from tests.conftest import renumbered as renumbered_graph
from graphinvariants.embeddings import WalkHistogram
from graphinvariants.kernels import paired_kernels, pairwise_kernels


def _brute_force_histogram(G, k):
    """Counter of every node's prefixes of (A1, A^2 1, ..., A^k 1), by matrix powers
    in Python integers (exact however large the counts)."""
    A = nx.to_numpy_array(G, weight=None).astype(np.int64).astype(object)
    columns = [np.ones(len(A), dtype=object)]
    for _ in range(k):
        columns.append(A @ columns[-1])  # A^t 1 = A (A^(t-1) 1)
    counts = np.column_stack(columns[1:])
    return Counter(tuple(int(c) for c in row[: t + 1]) for row in counts.tolist() for t in range(k))


def _brute_force_kernel(G, H, k):
    a, b = (_brute_force_histogram(X, k) if isinstance(X, nx.Graph) else X for X in (G, H))
    dot = sum(a[key] * b[key] for key in a)
    return dot / np.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))


@pytest.fixture(scope="module")
def graphs():
    out = [nx.gnp_random_graph(int(n), 0.15, seed=int(n)) for n in range(8, 30, 3)]
    return out + [nx.path_graph(6), nx.star_graph(5), nx.cycle_graph(6), nx.empty_graph(4)]


@pytest.mark.parametrize("k", [1, 3, 7])
def test_kernel_matches_brute_force_histograms(graphs, k):
    K = pairwise_kernels(graphs, functional=WalkHistogram(k=k))
    for i in range(0, len(graphs), 3):
        for j in range(len(graphs)):
            assert K[i, j] == pytest.approx(_brute_force_kernel(graphs[i], graphs[j], k), rel=1e-12)


def test_unit_diagonal_symmetric_psd_no_nan(graphs):
    K = gi.kernel_matrix(graphs, kernel="histogram", k=5)
    assert np.all(np.isfinite(K))
    # exact: counts are integers, so dots and norms are exact and K[i, j] = K[j, i] bit for bit
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-12
    cross = gi.kernel_matrix(graphs, graphs, kernel="histogram", k=5)
    np.testing.assert_array_equal(np.diag(cross), 1.0)  # exactly: counts are integers
    np.testing.assert_allclose(cross, K, rtol=0, atol=1e-15)


def test_invariant_to_renumbering_and_input_library(graphs, rng):
    functional = WalkHistogram(k=6)
    renumbered = [renumbered_graph(G, rng) for G in graphs]
    # exact: the integer histograms do not depend on node order
    np.testing.assert_array_equal(paired_kernels(graphs, renumbered, functional=functional), 1.0)
    as_igraph = [ig.Graph.from_networkx(G) for G in graphs]
    # exact: igraph gives the same adjacency, so the same integer counts
    np.testing.assert_array_equal(
        pairwise_kernels(graphs, functional=functional), pairwise_kernels(as_igraph, functional=functional)
    )


def test_cross_matrix_merges_vocabularies(graphs):
    left, right = graphs[:5], graphs[5:]
    full = gi.kernel_matrix(graphs, kernel="histogram", k=4)
    np.testing.assert_allclose(gi.kernel_matrix(left, right, kernel="histogram", k=4), full[:5, 5:], rtol=1e-14)
    functional = WalkHistogram(k=4)
    precomputed = functional.as_embeddings(right)
    np.testing.assert_allclose(pairwise_kernels(left, precomputed, functional=functional), full[:5, 5:], rtol=1e-14)
    with pytest.raises(ValueError, match="k=4"):
        pairwise_kernels(left, precomputed, functional=WalkHistogram(k=3))


def test_features_are_unit_norm_and_give_the_kernel(graphs):
    functional = WalkHistogram(k=3)
    X = functional.features(functional.as_embeddings(graphs))
    np.testing.assert_allclose((X @ X.T).toarray(), gi.kernel_matrix(graphs, kernel="histogram", k=3), atol=1e-14)


def test_counts_beyond_int64_are_exact():
    """Was "walk counts exceed the int64 range" for the default kernel on K_120."""
    dense = [nx.complete_graph(120), nx.complete_graph(100), nx.gnp_random_graph(60, 0.7, seed=1),
             nx.gnp_random_graph(60, 0.7, seed=1), nx.path_graph(7), nx.complete_multipartite_graph(30, 40)]
    k = 14  # 119**14 > 2**96: four base-2**31 digits
    histograms = [_brute_force_histogram(G, k) for G in dense]
    K = gi.kernel_matrix(dense, kernel="histogram", k=k)
    for i in range(len(dense)):
        for j in range(len(dense)):
            assert K[i, j] == pytest.approx(_brute_force_kernel(histograms[i], histograms[j], k), rel=1e-12)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    assert K[2, 3] == 1.0 and K[0, 1] == 0.0
    # separately embedded sides, one within int64 and one beyond, merge exactly
    cross = gi.kernel_matrix(dense[4:], dense[:4], kernel="histogram", k=k)
    np.testing.assert_allclose(cross, K[4:, :4], rtol=1e-14)
    small = WalkHistogram(k=3).as_embeddings([nx.complete_graph(120)])
    assert small.prefixes() == [(119,), (119, 119**2), (119, 119**2, 119**3)]
    dense = [nx.complete_graph(120), nx.complete_graph(100)]
    # the recommended product (k = 9) and the learned default take dense graphs
    assert gi.GraphKernel(kernel=gi.kernels.registry.RECOMMENDED).fit_transform(dense)[0, 1] < 1
    assert gi.GraphKernel(seed=0).fit_transform(dense, [0, 1])[0, 1] < 1


def test_registry_names_its_kernels_and_parameters():
    assert {"power", "histogram", "wl"} <= set(gi.KERNELS)
    with pytest.raises(ValueError, match="unknown kernel"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="wlx")
    with pytest.raises(ValueError, match="takes the parameters"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="histogram", ridge=0.1)


@pytest.mark.parametrize("k", [1, 4, 9])
def test_vocabulary_and_counts_equal_the_brute_force(graphs, k):
    batch = WalkHistogram(k=k).as_embeddings(graphs)
    histograms = [_brute_force_histogram(G, k) for G in graphs]
    prefixes = sorted({key for h in histograms for key in h}, key=lambda key: (len(key), key))
    assert batch.prefixes() == prefixes  # every prefix once, by length, then in lexicographic order
    expected = np.array([[h[key] for key in prefixes] for h in histograms], dtype=float)
    np.testing.assert_array_equal(batch.counts.toarray(), expected)


def test_unique_rows_is_numpys_unique_along_rows():
    from graphinvariants.embeddings.counts import unique_rows

    rng = np.random.default_rng(0)
    cases = [rng.integers(-1, 3, size=shape) for shape in [(0, 3), (1, 1), (50, 1), (200, 4), (1000, 9)]]
    # columns packed several to a key: 64 to a key (one bit), 3 (20 bits) with a padded
    # last key, 2 (32 bits), and none (a span beyond 32 bits); few distinct values so
    # that rows repeat; negative and unsigned entries
    for low, high, width in [(0, 2, 130), (-5, 2**20 - 6, 7), (0, 2**32, 5), (-(2**40), 2**40, 6)]:
        values = rng.integers(low, high, size=(40, width))
        cases.append(values[rng.integers(0, 40, 300)])
    cases.append(rng.integers(0, 5, size=(300, 11)).astype(np.uint16))
    for rows in cases:
        distinct, inverse = unique_rows(rows)
        expected, expected_inverse = np.unique(rows, axis=0, return_inverse=True)
        np.testing.assert_array_equal(distinct, expected)
        np.testing.assert_array_equal(inverse, expected_inverse.reshape(-1))


def test_sort_within_rows_is_lexsort_by_row_then_value():
    from graphinvariants.embeddings.counts import sort_within_rows

    rng = np.random.default_rng(1)
    for n_rows, n_values in [(1, 1), (5, 3), (300, 1000)]:
        counts = rng.integers(0, 6, n_rows)
        row = np.repeat(np.arange(n_rows), counts)
        values = rng.integers(0, n_values, row.size)
        expected = values[np.lexsort((values, row))]
        # exact: integers in a sorted order, whatever the library version
        np.testing.assert_array_equal(sort_within_rows(values, row, n_values), expected)
        # a value range too wide for one int64 key: the two-key sort, same order (exact: integers)
        np.testing.assert_array_equal(sort_within_rows(values, row, 2**62), expected)
    assert sort_within_rows(np.array([], dtype=np.int64), np.array([], dtype=np.int64), 4).size == 0
