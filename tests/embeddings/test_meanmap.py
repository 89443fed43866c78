"""The kernel mean embedding: exact double sums, random features, and the usual theorems."""

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.search._kernel_index import kernel_neighbors as _kneighbors  # the kernel index (gi.kneighbors is deprecated)
from tests.conftest import renumbered as renumbered_graph
from graphinvariants.embeddings import MeanMap
from graphinvariants.kernels import paired_kernels, pairwise_kernels


def _profiles(G, k, profile):
    A = nx.to_numpy_array(G, weight=None)
    counts = np.column_stack([np.linalg.matrix_power(A, t) @ np.ones(len(A)) for t in range(1, k + 1)])
    if profile == "counts":
        return counts
    if profile == "log":
        return np.log1p(counts)
    return gi.power_summary(G, k=k).matrix


def _brute_force(G, H, k, profile, h):
    def s(X, Y):
        return sum(np.exp(-np.sum((x - y) ** 2) / (2 * h * h)) for x in X for y in Y)

    X, Y = _profiles(G, k, profile), _profiles(H, k, profile)
    return s(X, Y) / np.sqrt(s(X, X) * s(Y, Y))


@pytest.fixture(scope="module")
def graphs():
    return [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in range(6, 20, 3)] + [nx.star_graph(5), nx.empty_graph(3)]


@pytest.mark.parametrize("profile, h", [("log", 1.0), ("l1", 0.3), ("counts", 4.0)])
def test_exact_form_matches_the_double_sum(graphs, profile, h, mean_map_engine):
    K = pairwise_kernels(graphs, functional=MeanMap(k=3, profile=profile, bandwidth=h))
    for i in range(len(graphs)):
        for j in range(i + 1, len(graphs)):
            assert K[i, j] == pytest.approx(_brute_force(graphs[i], graphs[j], 3, profile, h), rel=1e-10)


def test_column_weights_scale_the_profile_columns(graphs):
    weighted = pairwise_kernels(graphs, functional=MeanMap(k=3, column_weights=[1.0, 0.5, 0.25]))
    plain = pairwise_kernels(graphs, functional=MeanMap(k=3))
    assert not np.allclose(weighted, plain)
    np.testing.assert_allclose(
        pairwise_kernels(graphs, functional=MeanMap(k=3, column_weights=[2.0] * 3, bandwidth=2.0)), plain, rtol=1e-12
    )


def test_random_features_approach_the_exact_form(graphs):
    exact = pairwise_kernels(graphs, functional=MeanMap(k=4))
    errors = {}
    for D in (50, 5000):
        errors[D] = np.mean([
            np.abs(pairwise_kernels(graphs, functional=MeanMap(k=4, n_features=D, seed=s)) - exact).max()
            for s in range(5)
        ])
    assert errors[5000] < errors[50] / 3


@pytest.mark.parametrize("n_features", [None, 300])
def test_unit_diagonal_psd_renumbering_and_libraries(graphs, rng, n_features):
    functional = MeanMap(k=4, n_features=n_features)
    K = pairwise_kernels(graphs, functional=functional)
    # exact: the engine writes a Gram matrix's diagonal as 1.0
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_allclose(K, K.T, atol=1e-15)
    assert np.all(np.isfinite(K)) and np.linalg.eigvalsh(K).min() > -1e-10
    renumbered = [renumbered_graph(G, rng) for G in graphs]
    # exact: profiles are sorted per graph, sums are integers (or integer-split features): node order cannot show
    np.testing.assert_array_equal(paired_kernels(graphs, renumbered, functional=functional), 1.0)
    # exact: igraph gives the same adjacency, so the same profiles and sums
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=functional), K)


def test_random_features_are_a_fixed_size_embedding(graphs):
    functional = MeanMap(k=3, n_features=64, seed=3)
    batch = functional.as_embeddings(graphs)
    again = functional.from_arrays(functional.to_arrays(batch))
    # exact: from_arrays(to_arrays(...)) copies the features
    np.testing.assert_array_equal(pairwise_kernels(again, functional=functional), pairwise_kernels(batch, functional=functional))
    X = functional.features(batch)
    np.testing.assert_allclose(X @ X.T, pairwise_kernels(batch, functional=functional), atol=1e-12)
    with pytest.raises(ValueError, match="other mean-map parameters"):
        pairwise_kernels(batch, functional=MeanMap(k=3, n_features=64, seed=4))


@pytest.mark.parametrize("seed", [None, "generator", 7])
def test_one_functional_has_one_random_map_whatever_its_seed(graphs, seed):
    # a functional seeded by None or a Generator drew a new map per batch, so queries and
    # corpus (or two Dask partitions) were compared in different feature spaces
    seed = np.random.default_rng(0) if seed == "generator" else seed
    functional = MeanMap(k=3, n_features=64, seed=seed)
    K = pairwise_kernels(graphs, list(graphs), functional=functional)  # the two sides embedded apart
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-12)
    np.testing.assert_allclose(K, pairwise_kernels(graphs, functional=functional), atol=1e-12)
    W, b = functional.random_map()
    np.testing.assert_array_equal(W, functional.random_map()[0])
    assert W.shape == (3, 64) and b.shape == (64,) and np.all((0 <= b) & (b < 2 * np.pi))
    if seed == 7:
        np.testing.assert_array_equal(W, MeanMap(k=3, n_features=64, seed=7).random_map()[0])
    else:  # a new functional draws a new map
        assert not np.array_equal(W, MeanMap(k=3, n_features=64, seed=seed).random_map()[0])
    values = _kneighbors(graphs, graphs, n_neighbors=1, kernel="meanmap", k=3, n_features=64,
                           seed=seed)[1]
    np.testing.assert_allclose(values[:, 0], 1.0, atol=1e-12)
    assert "_seed" not in repr(functional)


def test_random_features_of_a_graph_do_not_depend_on_its_batch(graphs):
    # 3000 features: blocks of 87 nodes, holding several graphs of the batch at once
    functional = MeanMap(k=3, n_features=3000, seed=1)
    whole = functional.as_embeddings(graphs + graphs[::-1]).features
    for i, G in enumerate(graphs):
        # exact: features are built column by column and summed per graph (reduceat), never across graphs
        np.testing.assert_array_equal(functional.as_embeddings([G]).features[0], whole[i])
        np.testing.assert_array_equal(whole[i], whole[-1 - i])


def test_the_exact_form_has_no_random_map():
    with pytest.raises(TypeError, match="no random map"):
        MeanMap(k=3).random_map()


def test_bad_parameters():
    with pytest.raises(ValueError, match="profile"):
        MeanMap(profile="sqrt")
    with pytest.raises(ValueError, match="bandwidth"):
        MeanMap(bandwidth=0)
    with pytest.raises(ValueError, match="column_weights"):
        MeanMap(k=3, column_weights=[1.0, 2.0])


@pytest.mark.parametrize("n_features", [None, 200])
def test_exact_to_the_last_bit_whatever_the_batch_or_chunk(n_features, mean_map_engine):
    # the sums used to follow BLAS and tile shapes: K(P2, P2) was 0.9999999999999998, the
    # Gram matrix was not symmetric, copies of a graph differed, and kneighbors values
    # depended on working_memory. Now every value is a function of the two graphs alone,
    # so these hold exactly (equality by construction, not by luck of rounding).
    kwargs = {"kernel": "meanmap", "k": 4, "n_features": n_features}
    P2 = nx.path_graph(2)
    assert gi.kernel_matrix([P2], [P2], **kwargs)[0, 0] == 1.0
    graphs = [nx.gnp_random_graph(int(n), 0.3, seed=s) for s, n in enumerate(np.linspace(3, 25, 60))]
    K = gi.kernel_matrix(graphs, **kwargs)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    twice = gi.kernel_matrix(graphs + graphs, **kwargs)  # copies: equal rows, equal blocks
    np.testing.assert_array_equal(twice[:60, :60], K)
    np.testing.assert_array_equal(twice[:60, 60:], K)
    np.testing.assert_array_equal(gi.kernel_matrix(graphs[:7], graphs[30:], **kwargs), K[:7, 30:])
    G = graphs[20]
    union = nx.disjoint_union(G, G)
    indices, values = _kneighbors([G], [G, union], n_neighbors=2, **kwargs)
    assert indices.tolist() == [[0, 1]] and values[0, 0] == 1.0
    if n_features is None:  # the exact mean map: S(G, G + G) = 2 S(G, G) exactly
        assert values[0, 1] == 1.0
    by_memory = [_kneighbors(graphs[:9], graphs, n_neighbors=5, working_memory=m, **kwargs) for m in (0.01, 1, 64)]
    for indices, values in by_memory[1:]:
        np.testing.assert_array_equal(indices, by_memory[0][0])
        np.testing.assert_array_equal(values, by_memory[0][1])


def test_exact_form_memory_is_bounded_by_blocks_of_node_pairs(mean_map_engine):
    # the exact form built one RBF matrix per tile of graphs: 32 graphs of 400 nodes took
    # 3.9 GiB. Two 1,500-node paths (2.25 M node pairs, 18 MB as one matrix, 36 MB with
    # its temporaries) now take blocks of 2**18 pairs.
    import tracemalloc

    graphs = [nx.path_graph(1500), nx.path_graph(1499)]
    functional = MeanMap(k=3)
    embedded = functional.as_embeddings(graphs)
    tracemalloc.start()
    try:
        K = pairwise_kernels(embedded, functional=functional)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak / 2**20
    assert K[0, 1] == pytest.approx(_brute_force_sums(graphs, 3), rel=1e-12)


def _brute_force_sums(graphs, k):
    # the double sum by node rows (float sums: the tolerance above is for their rounding)
    X, Y = (_profiles(G, k, "log") for G in graphs)

    def s(P, Q):
        return sum(float(np.exp(-0.5 * ((P - q) ** 2).sum(axis=1)).sum()) for q in Q)

    return s(X, Y) / np.sqrt(s(X, X) * s(Y, Y))


@pytest.mark.parametrize("bandwidth", ["x", None, [1.0], True])
def test_a_bandwidth_that_is_not_a_number_is_named(bandwidth):
    with pytest.raises(TypeError, match="bandwidth must be a positive number"):
        MeanMap(bandwidth=bandwidth)
    with pytest.raises(TypeError, match="bandwidth must be a positive number"):
        gi.kernel_matrix([nx.path_graph(3)], kernel="meanmap", bandwidth=bandwidth)
    with pytest.raises(TypeError, match="bandwidth must be a positive number"):
        gi.MeanMapFeatures(bandwidth=bandwidth).fit([nx.path_graph(3)])


@pytest.mark.parametrize("column_weights", [["a", "b", "c"], [1.0, "x", 2.0]])
def test_column_weights_that_are_not_numbers_are_named(column_weights):
    with pytest.raises(TypeError, match="column_weights must be 3 finite numbers"):
        MeanMap(k=3, column_weights=column_weights)


def test_the_exponential_is_within_one_unit_in_the_last_place():
    """The double sums take fdlibm's exponential (the same bits compiled and in numpy):
    within one unit in the last place of the C library's; exp(0) is 1 exactly, and
    below -700 it is exp(-700), which rounds to 0 at 2**-52 as exp(x) does."""
    from graphinvariants.embeddings.meanmap import _exp_nonpositive

    rng = np.random.default_rng(0)
    x = np.concatenate([[0.0, -0.0, -1e-300, -5e-324, -700.0], -rng.exponential(3.0, 200_000),
                        -rng.uniform(0, 700, 100_000)])
    ours = _exp_nonpositive(x.copy())
    assert ours[0] == ours[1] == 1.0
    assert np.all(np.abs(ours - np.exp(x)) <= np.spacing(np.exp(x)))
    assert _exp_nonpositive(np.array([-701.0, -1e308]))[0] == np.exp(-700.0)
    assert np.rint(np.ldexp(_exp_nonpositive(np.array([-1e308])), 52))[0] == 0.0


def test_compiled_double_sums_are_the_numpy_bits():
    """The compiled double sums (numba) perform the numpy path's operations in its
    order: the same bits for every pair of graphs, the self-sums and the squared
    distances of the median heuristic, so which path a call takes changes no value."""
    pytest.importorskip("numba")
    from graphinvariants.embeddings import _meanmap_numba, meanmap

    rng = np.random.default_rng(1)
    sizes = np.r_[rng.integers(1, 40, 50), 300, 1]
    offsets = np.r_[0, np.cumsum(sizes)]
    X = rng.normal(size=(offsets[-1], 7)) * np.array([0.1, 1, 3, 0.5, 2, 1, 8])
    rows, cols = rng.permutation(len(sizes))[:20], np.arange(len(sizes))
    old = meanmap.COMPILED_PAIRS
    try:
        meanmap.COMPILED_PAIRS = np.inf
        plain = meanmap._cross_sums(X, offsets, rows, X, offsets, cols)
        plain_self = meanmap._self_sums(X, offsets, cols)
        meanmap.COMPILED_PAIRS = 0
        compiled = meanmap._cross_sums(X, offsets, rows, X, offsets, cols)
        compiled_self = meanmap._self_sums(X, offsets, cols)
    finally:
        meanmap.COMPILED_PAIRS = old
    np.testing.assert_array_equal(compiled, plain)
    np.testing.assert_array_equal(compiled_self, plain_self)
    np.testing.assert_array_equal(compiled[np.arange(20), rows], plain_self[rows])
    # the explicit double sum over node pairs (float sums: the RBF values were rounded to 2**-52)
    for r, c in [(0, 3), (5, 50), (7, 51)]:
        a, b = X[offsets[rows[r]] : offsets[rows[r] + 1]], X[offsets[c] : offsets[c + 1]]
        expected = sum(np.exp(-0.5 * np.sum((x - y) ** 2)) for x in a for y in b)
        assert compiled[r, c] == pytest.approx(expected, rel=1e-13, abs=len(a) * len(b) * 2.0**-52)
    S = X[:400]
    squared = np.zeros((400, 400))
    for t in range(S.shape[1]):
        difference = S[:, t, None] - S[None, :, t]
        squared += difference * difference
    np.testing.assert_array_equal(_meanmap_numba.squared_distances_upper(S), squared[np.triu_indices(400, 1)])
