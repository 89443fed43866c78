"""The pair engine: the same numbers whatever the tiling, threads or input kind."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings import GaussianEmbedding, WalkHistogram
from graphinvariants.kernels import KernelBlocks, kernel_row_chunks, paired_kernels, pairwise_kernels


@pytest.fixture(scope="module")
def graphs():
    return [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in range(10, 310, 3)]  # 100 graphs


@pytest.mark.parametrize("functional", [GaussianEmbedding(5), WalkHistogram(5)], ids=repr)
def test_threads_and_tiles_change_nothing(graphs, functional):
    one = pairwise_kernels(graphs, functional=functional, n_jobs=1)
    two = pairwise_kernels(graphs, functional=functional, n_jobs=2)
    # exact: each value is a function of its pair alone (elementwise over a tile), whatever the tile or thread
    np.testing.assert_array_equal(one, two)
    chunks = np.vstack([block for _, block in kernel_row_chunks(graphs, functional=functional, n_rows=7)])
    np.testing.assert_array_equal(chunks, one)
    index = np.arange(len(graphs))
    # exact: paired values take a tile's operations, and K(G, G) == 1.0 by construction (diagonal)
    np.testing.assert_array_equal(paired_kernels(graphs, graphs, functional=functional), np.diag(one))
    L = R = functional.align(*(functional.prepare(functional.as_embeddings(graphs), "g"),) * 2)[0]
    i, j = np.array([0, 5, 99, 5]), np.array([3, 5, 0, 99])
    np.testing.assert_allclose(functional.pairs(L, R, i, j), one[i, j], rtol=1e-15, atol=1e-300)
    assert index.size == one.shape[0]


def test_every_collection_kind_gives_the_same_matrix(graphs):
    reference = gi.power_kernel_matrix(graphs)
    batch = gi.as_graph_batch(graphs)
    invariants = gi.batch_power_invariants(batch)
    for X in (batch, invariants, list(invariants), [gi.as_adjacency(G) for G in graphs], iter(graphs)):
        # exact: every form gives the same invariants (a graph's do not depend on its batch)
        np.testing.assert_array_equal(gi.power_kernel_matrix(X), reference)
    mixed = [invariants[0]] + graphs[1:]
    np.testing.assert_array_equal(gi.power_kernel_matrix(mixed), reference)


def test_the_same_iterator_twice_is_an_error(graphs):
    it = iter(graphs[:3])
    with pytest.raises(ValueError, match="same one-shot iterator"):
        gi.power_kernel_matrix(it, it)


@pytest.mark.parametrize("functional", [GaussianEmbedding(5), WalkHistogram(5)], ids=repr)
def test_precomputed_embeddings_as_both_sides(graphs, functional):
    # a HistogramBatch is not iterable: the one-shot check called iter() on it and raised
    # TypeError ("'HistogramBatch' object is not iterable") for pairwise_kernels(e, e)
    embedded = functional.as_embeddings(graphs[:20], what="graphs")
    cross = pairwise_kernels(embedded, embedded, functional=functional)
    # exact: the cross path evaluates the same tiles as graphs against graphs
    np.testing.assert_array_equal(cross, pairwise_kernels(graphs[:20], graphs[:20], functional=functional))
    # the square path forces the diagonal to 1; off it, the same values to rounding of
    # the tile's operations (the same operations on the same rows)
    np.testing.assert_allclose(cross, pairwise_kernels(graphs[:20], functional=functional), rtol=0, atol=1e-12)
    assert cross.shape == (20, 20)


def test_empty_collections():
    assert gi.power_kernel_matrix([]).shape == (0, 0)
    assert gi.power_kernel_matrix([nx.path_graph(3)], []).shape == (1, 0)
    assert gi.paired_power_kernel([], []).shape == (0,)


def test_every_kernel_description_lists_its_parameters():
    # the descriptions end with the parameters in parentheses; they drifted as members grew
    import re

    from graphinvariants.kernels.registry import KERNELS, kernel_parameters

    for name, parameters in kernel_parameters().items():
        listed = re.findall(r"\(([^()]*)\)\s*$", KERNELS[name])
        names = [part.split("=")[0].strip() for part in listed[-1].split(",")] if listed else []
        assert sorted(names) == sorted(parameters), name


# --- pairs left to a functional's finish step (open_tile / finish) ---


@pytest.fixture(scope="module")
def hard_graphs():
    """Graphs whose power Gram matrix has pairs the direct evaluation leaves to the
    whitened one: regular graphs and stars (singular covariances), duplicates."""
    graphs = [nx.cycle_graph(n) for n in range(5, 40, 4)] + [nx.star_graph(n) for n in range(4, 30, 5)]
    graphs += [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in range(10, 150, 4)]
    return graphs + graphs[::7]


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_pairs_left_to_finish_are_finished_once_per_matrix(hard_graphs, engine, monkeypatch):
    if engine == "numba":
        pytest.importorskip("numba")
    functional = GaussianEmbedding(5, engine=engine)
    monkeypatch.setattr(functional, "tile_size", lambda n_jobs: 16)  # many tiles
    side = functional.prepare(functional.as_embeddings(hard_graphs), "g")
    n = len(hard_graphs)
    _, pending = functional.open_tile(side, side, slice(0, n), slice(0, n))
    assert len(pending) > n  # the diagonal and more
    calls = []
    finish = functional.finish
    monkeypatch.setattr(functional, "finish", lambda *args: calls.append(len(args[2])) or finish(*args))
    K = pairwise_kernels(hard_graphs, functional=functional, n_jobs=2)
    # one call, each pair of the upper triangle once (its mirror image is the same value)
    assert len(calls) == 1 and calls[0] == (len(pending) - n) // 2
    # exact: finished once per matrix or once per tile, every value is its pair's alone
    by_tiles = np.block([[functional.tile(side, side, slice(a, a + 16), slice(b, b + 16)) for b in range(0, n, 16)]
                         for a in range(0, n, 16)])
    np.fill_diagonal(by_tiles, 1.0)
    np.testing.assert_array_equal(K, by_tiles)
    np.testing.assert_array_equal(K, K.T)
    calls.clear()
    rows = np.vstack([block for _, block in kernel_row_chunks(hard_graphs, functional=functional, n_rows=11)])
    np.testing.assert_array_equal(rows, K)
    assert len(calls) == -(-n // 11)  # once per chunk of rows
    blocks = KernelBlocks(hard_graphs, functional=functional, n_jobs=2)
    for r, c in [(slice(3, 40), slice(0, n)), (slice(30, n), slice(5, 27)), (slice(0, n), slice(0, n))]:
        np.testing.assert_array_equal(blocks.block(r, c), K[r, c])
    cross = pairwise_kernels(hard_graphs[::2], hard_graphs, functional=functional)
    np.testing.assert_array_equal(cross, K[::2])


def test_a_functional_without_finish_leaves_nothing_pending(graphs):
    functional = WalkHistogram(5)
    side = functional.align(*(functional.prepare(functional.as_embeddings(graphs[:5]), "g"),) * 2)[0]
    values, pending = functional.open_tile(side, side, slice(0, 5), slice(0, 5))
    np.testing.assert_array_equal(values, functional.tile(side, side, slice(0, 5), slice(0, 5)))
    assert pending.size == 0 and pending.dtype == np.int64
    with pytest.raises(NotImplementedError, match="leaves no pairs to finish"):
        functional.finish(side, side, np.array([0]), np.array([1]))
