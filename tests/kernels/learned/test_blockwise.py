"""The learned default built block by block: the values of the whole-matrix path, to the
last bit, whatever the working memory; and the blocks of the pair engine."""

import warnings

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings import GaussianEmbedding, WalkHistogram, WeisfeilerLehman
from graphinvariants.kernels import KernelBlocks, pairwise_kernels
from graphinvariants.kernels.learned.blockwise import (BLOCK_BUFFERS, MIN_BLOCK, OUTPUT_SHARE, MatrixBlocks, block_size,
                                               combine_blockwise)
from graphinvariants.kernels.learned._combination import LearnedCombination


@pytest.fixture(scope="module")
def labelled():
    rng = np.random.default_rng(3)
    graphs, y = [], []
    for i in range(60):
        G = nx.gnp_random_graph(8 + i % 9, 0.3, seed=i) if i % 2 else nx.barabasi_albert_graph(8 + i % 9, 2, seed=i)
        nx.set_node_attributes(G, {v: int(rng.integers(3)) for v in G}, "label")
        nx.set_edge_attributes(G, {e: int(rng.integers(2)) for e in G.edges}, "label")
        graphs.append(G)
        y.append(i % 2)
    return graphs, np.array(y)


def whole_gram(combination):
    """The previous path: every member's whole matrix, the weighted sum of the whole
    matrices, then (K + K.T) / 2 and the unit diagonal."""
    grams = {name: pairwise_kernels(combination.embeddings[name], functional=combination.functionals[name],
                                    n_jobs=combination.n_jobs) for name in combination.needed_members()}
    K = combination.combine(grams)
    K = (K + K.T) / 2
    np.fill_diagonal(K, 1.0)
    return K


def whole_cross(combination, X):
    grams = {name: pairwise_kernels(X, combination.embeddings[name], functional=combination.functionals[name],
                                    n_jobs=combination.n_jobs) for name in combination.needed_members()}
    return combination.combine(grams)


@pytest.mark.parametrize("max_samples, n_jobs", [  # the training matrices kept from fit, and computed again
    (None, None), (25, None), *(pytest.param(m, 2, marks=pytest.mark.slow) for m in (None, 25))])  # 2: a process pool
def test_blocks_give_the_whole_matrix_to_the_last_bit(labelled, max_samples, n_jobs):
    graphs, y = labelled
    combination = LearnedCombination(max_samples=max_samples, seed=0, n_jobs=n_jobs, selection=None, combination="align").fit(graphs, y)
    assert {shape[0] for _, _, shape, _ in combination._chosen} == {"power", "gauss"}  # both kinds of shape
    reference, cross_reference = whole_gram(combination), whole_cross(combination, graphs[5:30])
    # 1e-3 MiB: blocks of about 10 x 10 graphs, so 36 blocks of the 60 x 60 matrix
    for working_memory in (None, 1e-3):
        combination.working_memory = working_memory
        # exact: the same member values (the engine's tiles), the same elementwise sums in
        # the same order, and the same symmetrisation of every pair
        np.testing.assert_array_equal(combination.gram(), reference)
        np.testing.assert_array_equal(combination.cross(graphs[5:30]), cross_reference)


def test_blocks_smaller_than_the_engine_tiles(labelled, monkeypatch):
    """Tiles of 4 graphs, blocks of 3: pairs whose mirror images share a tile (computed
    apart) are symmetrised as the whole matrix is."""
    graphs, y = labelled
    combination = LearnedCombination(max_samples=30, seed=1, selection=None, combination="align").fit(graphs, y)
    for cls in {type(f) for f in combination.functionals.values()}:
        monkeypatch.setattr(cls, "tile_size", lambda self, n_jobs: 4)
    reference = whole_gram(combination)
    combination.working_memory = 8 * 3 * 3 * (len(combination.needed_members()) + 6) / 2**20  # blocks of 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # exact: as above; tiles split into parts give each pair the values of the whole tile
        np.testing.assert_array_equal(combination.gram(), reference)


def test_an_asymmetric_source_is_symmetrised_as_the_whole_matrix():
    rng = np.random.default_rng(0)
    A = rng.random((11, 11))  # not symmetric: every pair's two values differ
    np.fill_diagonal(A, 1.0)
    B = rng.random((11, 11))
    B = B + B.T

    def combine(m):
        return 0.25 * m["a"] + 0.75 * np.exp(-m["b"])

    whole = combine({"a": A, "b": B})
    whole = (whole + whole.T) / 2
    np.fill_diagonal(whole, 1.0)
    sources = {"a": MatrixBlocks(A, symmetric=True), "b": MatrixBlocks(B, symmetric=True)}
    for working_memory in (1.0, 8 * 2 * 2 * 8 / 2**20, 8 * 5 * 5 * 8 / 2**20):  # one block, 2 x 2, 5 x 5
        # exact: the same elementwise operations in the same order for every pair
        np.testing.assert_array_equal(combine_blockwise(sources, combine, symmetric=True,
                                                        working_memory=working_memory), whole)


@pytest.mark.parametrize("functional", [GaussianEmbedding(4), WalkHistogram(4), WeisfeilerLehman(n_iter=2)], ids=repr)
def test_kernel_blocks_are_the_engine_matrix(functional, monkeypatch):
    graphs = [nx.gnp_random_graph(n, 0.3, seed=n) for n in range(5, 35)]
    monkeypatch.setattr(type(functional), "tile_size", lambda self, n_jobs: 7)
    square, cross = pairwise_kernels(graphs, functional=functional), pairwise_kernels(graphs[:9], graphs, functional=functional)
    blocks, cross_blocks = KernelBlocks(graphs, functional=functional), KernelBlocks(graphs[:9], graphs, functional=functional)
    assert blocks.shape == (30, 30) and cross_blocks.shape == (9, 30) and blocks.tile == 7
    for rows, cols in ((slice(0, 30), slice(0, 30)), (slice(3, 17), slice(5, 29)), (slice(20, 30), slice(0, 6))):
        # exact: the engine's tiles (or parts of them: each pair's value is its own), mirrored as the engine does
        np.testing.assert_array_equal(blocks.block(rows, cols), square[rows, cols])
        np.testing.assert_array_equal(cross_blocks.block(slice(0, 9), cols), cross[:, cols])
    assert blocks.mirrored(slice(0, 7), slice(7, 14)) and not blocks.mirrored(slice(0, 8), slice(6, 14))
    assert cross_blocks.mirrored(slice(0, 9), slice(0, 9))


def test_estimator_takes_working_memory(labelled):
    graphs, y = labelled
    small = gi.GraphKernel(working_memory=1e-3, seed=0)
    K = small.fit_transform(graphs, y)
    # exact: the budget changes the blocks only
    np.testing.assert_array_equal(K, gi.GraphKernel(seed=0).fit_transform(graphs, y))
    assert small.get_params()["working_memory"] == 1e-3


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1.0, ValueError), (float("nan"), ValueError),
                                        ("64", TypeError), (True, TypeError)])
def test_working_memory_is_checked(bad, error):
    with pytest.raises(error, match="working_memory"):
        LearnedCombination(working_memory=bad)
    with pytest.raises(error, match="working_memory"):
        block_size([256], 3, working_memory=bad)


def test_block_size_follows_the_budget():
    assert block_size([256, 1024], 8, working_memory=1024) == 1024  # whole tiles, at most 1024 rows
    assert block_size([256], 8, working_memory=1024) == 1024
    assert block_size([256], 8, working_memory=16) == 256
    assert block_size([1536], 8, working_memory=1024) == 1536  # one common multiple, however large
    small = block_size([256, 1024], 8, working_memory=1)
    assert 8 * (8 + 6) * small**2 <= 2**20 < 8 * (8 + 6) * (small + 1) ** 2  # parts of tiles, within the budget
    assert block_size([256], 8, working_memory=1, n_jobs=2) < block_size([256], 8, working_memory=1, n_jobs=1)
    with pytest.warns(UserWarning, match="Could not adhere to working_memory"):
        assert block_size([256], 8, working_memory=1e-6) == 1


def test_blocks_are_a_small_share_of_a_large_output():
    """Beside a large matrix the blocks of all threads take at most OUTPUT_SHARE of its
    bytes (whole tiles of the largest size that fits); a small matrix keeps blocks of
    MIN_BLOCK rows; working_memory still caps both."""
    for n, sources, n_jobs in ((12000, 10, 1), (12000, 12, 2), (20000, 10, 1), (6000, 10, 1)):
        b = block_size([128, 256, 1024], sources, working_memory=1024, n_jobs=n_jobs, shape=(n, n))
        held = 8 * (sources + BLOCK_BUFFERS) * n_jobs * b**2
        assert held <= OUTPUT_SHARE * 8 * n * n and b % 256 == 0, (n, b)
    assert block_size([128, 256, 1024], 10, working_memory=1024, shape=(20000, 20000)) == 1024
    assert block_size([128, 256, 1024], 10, working_memory=1024, shape=(12000, 12000)) == 512
    assert block_size([256], 10, working_memory=1024, shape=(300, 300)) == MIN_BLOCK
    assert block_size([256], 10, working_memory=1, shape=(300, 300)) < MIN_BLOCK


def test_fit_keeps_the_members_it_reads(labelled):
    """Members without weight are dropped after fit: transform reads only the others."""
    graphs, y = labelled
    combination = LearnedCombination(seed=0).fit(graphs, y)
    needed = combination.needed_members()
    assert set(combination.embeddings) == set(needed) < set(combination.functionals)
    assert set(combination._train_grams) == set(needed)
    # exact: the same member values, summed in the same order
    np.testing.assert_array_equal(combination.cross(graphs[:7]), whole_cross(combination, graphs[:7]))


def test_combine_blockwise_refuses_sources_that_do_not_match():
    with pytest.raises(ValueError, match="different shapes"):
        combine_blockwise({"a": MatrixBlocks(np.eye(2)), "b": MatrixBlocks(np.eye(3))}, lambda m: m["a"])
    with pytest.raises(ValueError, match="square"):
        combine_blockwise({"a": MatrixBlocks(np.ones((2, 3)))}, lambda m: m["a"], symmetric=True)
    with pytest.raises(ValueError, match="at least one"):
        combine_blockwise({}, lambda m: m)


def edge_density_kernel(graphs_a, graphs_b):
    """A callable candidate: a Gaussian of edges per node."""
    a = np.array([G.number_of_edges() / G.number_of_nodes() for G in graphs_a])
    b = np.array([G.number_of_edges() / G.number_of_nodes() for G in graphs_b])
    return np.exp(-np.subtract.outer(a, b) ** 2)


class FittedRelativeSize:
    """A transformer candidate fitted on its graphs: exp(-|a - b| / m) of node counts, m
    the largest fitted node count (a Laplacian kernel of one number: PSD, unit diagonal)."""

    def fit(self, graphs, y=None):
        self.sizes_ = np.array([G.number_of_nodes() for G in graphs], float)
        return self

    def transform(self, graphs):
        sizes = np.array([G.number_of_nodes() for G in graphs], float)
        return np.exp(-np.abs(np.subtract.outer(sizes, self.sizes_)) / self.sizes_.max())


@pytest.mark.parametrize("max_samples", [None, 25])  # the external's training matrix kept from fit, or computed again
def test_external_candidates_are_combined_blockwise(labelled, max_samples):
    """An external kernel's matrix comes whole from its own code; the blocks of the sum
    are those of the whole-matrix path to the last bit."""
    graphs, y = labelled
    combination = LearnedCombination(members=("wl_label", "histogram", edge_density_kernel, FittedRelativeSize()),
                                      max_samples=max_samples, seed=0, selection=None,
                                      combination="align").fit(graphs, y)
    assert {"edge_density_kernel", "FittedRelativeSize"} <= set(combination.needed_members())
    externals = combination.externals
    grams = {name: pairwise_kernels(combination.embeddings[name], functional=combination.functionals[name])
             for name in combination.needed_members() if name in combination.functionals}
    grams.update({name: external.gram() for name, external in externals.items()})
    reference = combination.combine(grams)
    reference = (reference + reference.T) / 2
    np.fill_diagonal(reference, 1.0)
    new = graphs[5:30]
    crosses = {name: pairwise_kernels(new, combination.embeddings[name], functional=combination.functionals[name])
               for name in combination.needed_members() if name in combination.functionals}
    crosses.update({name: external.cross(new, gi.graphs.as_graph_batch(new)) for name, external in externals.items()})
    cross_reference = combination.combine(crosses)
    for working_memory in (None, 1e-3):  # one block, and blocks of about 10 x 10 graphs
        combination.working_memory = working_memory
        # exact: the same member values, the same elementwise sums in the same order
        np.testing.assert_array_equal(combination.gram(), reference)
        np.testing.assert_array_equal(combination.cross(new), cross_reference)


def test_weights_are_learned_on_one_blas_thread(labelled, monkeypatch):
    """The weights' products and eigendecompositions run on one BLAS thread whatever the
    caller allows (the same bits on any number of cores; faster on small parts)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from graphinvariants.kernels.learned import _combination as learned

    seen = []

    def recording(*args, **kwargs):
        seen.append({info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"})
        return alignment_weights(*args, **kwargs)

    alignment_weights = learned.alignment_weights
    monkeypatch.setattr(learned, "alignment_weights", recording)
    graphs, y = labelled
    with threadpool_limits(limits=2, user_api="blas"):
        weights = LearnedCombination(seed=0, max_samples=30).fit(graphs, y).weights
    assert seen and all(threads == {1} for threads in seen)
    with threadpool_limits(limits=1, user_api="blas"):
        # exact: the same computation on the same thread count
        assert LearnedCombination(seed=0, max_samples=30).fit(graphs, y).weights == weights


@pytest.mark.parametrize("shapes", [{}, {"powers": (2, 1, 3), "bandwidths": (1.0,)}, {"powers": (), "bandwidths": (0.5, 2.0)}])
def test_weights_from_the_stacked_candidates_are_those_of_separate_matrices(labelled, monkeypatch, shapes):
    """The shaped candidates are made in one stacked array (one allocation the allocator
    gives back) instead of one matrix each; weights, alignments, medians and the
    leave-one-out errors stay those of separate matrices, to the bit."""
    from graphinvariants.kernels.learned import _combination as learned

    graphs, y = labelled
    fits = []
    for stacked in (True, False):
        if not stacked:
            monkeypatch.setattr(LearnedCombination, "_shaped_stack", lambda self, grams, candidates, order: [
                self._shaped(grams, parts, shape, fit=True) for _, parts, shape in candidates])
            monkeypatch.setattr(learned, "_weighted_sum", lambda shaped, w: sum(
                w[i] * shaped[i] for i in np.flatnonzero(w > 0)))
        fits.append(LearnedCombination(seed=0, max_samples=40, **shapes).fit(graphs, y))
    stacked, separate = fits
    assert len(stacked.weights) > 20 and stacked.medians  # products, gauss shapes
    assert bool(stacked.loo_errors) == bool(shapes.get("powers", (1,)))  # loo: plain and shaped candidates
    # exact: the same elementwise operations in the same order, into a stack
    for attribute in ("weights", "alignments", "medians", "loo_errors"):
        assert getattr(stacked, attribute) == getattr(separate, attribute), attribute


@pytest.mark.parametrize("n", [2, 3, 6, 7])  # an odd and an even number of pairs
def test_median_of_the_distances_is_the_median_distance(n):
    """The medians of the Gaussian shapes are taken from the upper triangle of the
    distances of an exactly symmetric matrix, from every off-diagonal entry otherwise:
    the value of the median of every off-diagonal distance, to the bit."""
    from graphinvariants.kernels.learned._combination import _kernel_distance, _median_distance, _median_of_distances

    rng = np.random.default_rng(n)
    for K in (rng.uniform(-0.2, 1.0, size=(n, n)), np.round(rng.uniform(0, 1, size=(n, n)), 1)):  # ties too
        for matrix in (K, (K + K.T) / 2):
            expected = _median_distance(matrix)
            upper = np.flatnonzero(np.triu(np.ones((n, n), dtype=bool), 1))
            assert _median_of_distances(_kernel_distance(matrix, out=np.empty_like(matrix)), upper) == expected  # exact


def test_members_without_weight_embed_only_the_sample(labelled, monkeypatch):
    """On a sample, a member that is not fitted on graphs embeds every training graph
    only when it has weight (after the weights are learned); one fitted on graphs
    embeds them all first, as it fits on them."""
    from graphinvariants.graphs import GraphBatch

    graphs, y = labelled
    rng = np.random.default_rng(0)
    graphs = [G.copy() for G in graphs]
    for G in graphs:  # attributes give a member fitted on graphs
        nx.set_node_attributes(G, {v: rng.normal(size=2) for v in G}, "attributes")
    seen = {}
    begin_fit = LearnedCombination.begin_fit

    def recording(self, X, y):
        out = begin_fit(self, X, y)
        for name, f in self.functionals.items():
            def as_embeddings(batch, *args, _name=name, _original=f.as_embeddings, **kwargs):
                if isinstance(batch, GraphBatch):  # not the embeddings passed through again
                    seen.setdefault(_name, []).append(len(batch))
                return _original(batch, *args, **kwargs)
            f.as_embeddings = as_embeddings
        return out

    monkeypatch.setattr(LearnedCombination, "begin_fit", recording)
    combination = LearnedCombination(seed=0, max_samples=25).fit(graphs, y)
    needed = set(combination.needed_members())
    fitted = {name for name, f in combination.functionals.items() if hasattr(f, "fit")}
    assert fitted and set(combination.functionals) - needed - fitted  # both kinds, and members left out
    for name in combination.functionals:
        first = [60] if name in fitted else []
        last = [60] if name in needed and name not in fitted else []
        assert seen[name] == first + [25] + last, name
