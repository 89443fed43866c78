"""The compiled pair engine (numba) against the numpy one: the same kernel values."""

import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.embeddings import GaussianEmbedding, _bhattacharyya
from graphinvariants.embeddings.gaussian import _Prepared
from graphinvariants.kernels import kernel_row_chunks, paired_kernels, pairwise_kernels

needs_numba = pytest.mark.skipif(
    find_spec("numba") is None,
    reason="numba is not installed (pip install graphinvariants[fast]): the compiled engine is unavailable",
)

RTOL = 1e-12


def _both(X, Y=None, *, k=5, ridge=gi.DEFAULT_RIDGE, weight=None, n_jobs=None):
    """The matrix by engine='numba' and by engine='numpy'."""
    return tuple(
        pairwise_kernels(X, Y, functional=GaussianEmbedding(k, ridge=ridge, weight=weight, engine=engine),
                         n_jobs=n_jobs)
        for engine in ("numba", "numpy")
    )


def _random_invariants(rng, k, n=30):
    """Gaussians of very different scales and shapes (nonsingular, so ridge=0 works)."""
    W = rng.normal(size=(n, k, 2 * k)) * 10.0 ** rng.uniform(-1, 1, size=(n, 1, 1))
    covs = W @ W.transpose(0, 2, 1) / (2 * k)
    means = rng.normal(size=(n, k)) * 10.0 ** rng.uniform(-2, 0, size=(n, 1))
    return gi.GaussianBatch(means, covs, np.full(n, 50))


@needs_numba
@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, *(pytest.param(k, marks=pytest.mark.slow) for k in (12, 16))])  # each k is compiled once: keep CI short
@pytest.mark.parametrize("ridge", [0.0, gi.DEFAULT_RIDGE], ids=["ridge0", "default_ridge"])
def test_random_gaussians_agree_for_every_unrolled_k(rng, k, ridge):
    invs = _random_invariants(rng, k)
    compiled, plain = _both(invs, k=k, ridge=ridge)
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)
    assert compiled.max() <= 1.0 and np.mean(compiled > 1e-10) > 0.3
    # a cross matrix: the graphs present on both sides have K == 1 exactly
    compiled, plain = _both(invs[:20], invs[10:], k=k, ridge=ridge)
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)
    np.testing.assert_array_equal(np.diagonal(compiled, offset=-10), 1.0)


@needs_numba
@pytest.mark.parametrize("k", [2, 5, 9, 16])
def test_mutag_gram_matrix_agrees(tu_datasets, k):
    invs = gi.batch_power_invariants(tu_datasets["MUTAG"], k=k)
    compiled, plain = _both(invs, k=k)
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)


@needs_numba
def test_nci1_cross_matrix_agrees_and_is_one_on_the_same_graphs(tu_datasets):
    invs = gi.batch_power_invariants(tu_datasets["NCI1"], k=5)
    rows = invs.take(np.arange(0, len(invs), 13))  # 317 graphs, all also among the columns
    compiled, plain = _both(rows, invs)
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)
    np.testing.assert_array_equal(compiled[np.arange(len(rows)), np.arange(0, len(invs), 13)], 1.0)


@needs_numba
def test_threads_tiles_and_pairs_change_nothing(tu_datasets):
    invs = gi.batch_power_invariants(tu_datasets["MUTAG"], k=5)
    functional = GaussianEmbedding(5, engine="numba")
    one = pairwise_kernels(invs, functional=functional, n_jobs=1)
    two = pairwise_kernels(invs, functional=functional, n_jobs=2)
    # exact: the compiled code takes the same operations per pair whatever the tile, thread or call
    np.testing.assert_array_equal(one, two)
    chunks = np.vstack([block for _, block in kernel_row_chunks(invs, functional=functional, n_rows=7, n_jobs=2)])
    np.testing.assert_array_equal(chunks, one)
    cross = pairwise_kernels(invs, invs, functional=functional, n_jobs=2)
    np.testing.assert_array_equal(np.diag(cross), 1.0)
    np.testing.assert_array_equal(cross, one)
    np.testing.assert_array_equal(paired_kernels(invs, invs, functional=functional), 1.0)
    shuffled = invs.take(np.random.default_rng(0).permutation(len(invs)))
    np.testing.assert_array_equal(
        paired_kernels(invs, shuffled, functional=functional),
        np.diag(pairwise_kernels(invs, shuffled, functional=functional)),
    )


def _weighted(G, value):
    H = nx.Graph(G)
    nx.set_edge_attributes(H, value, "w")
    return H


@needs_numba
@pytest.mark.parametrize("k", [5, 16])
def test_karate_against_les_miserables(k):
    graphs = [nx.karate_club_graph(), nx.les_miserables_graph()]
    compiled, plain = _both(graphs, k=k)
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)
    assert 0 < compiled[0, 1] < 1


@needs_numba
@pytest.mark.parametrize("scale", [1e-60, 1e-20, 3.7, 1e20, 1e60])
def test_scaled_weights_agree(scale):
    graphs = [_weighted(nx.karate_club_graph(), scale), _weighted(nx.les_miserables_graph(), scale)]
    compiled, plain = _both(graphs, weight="w")
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)


@needs_numba
def test_tiny_kernel_values_agree():
    graphs = [_weighted(nx.karate_club_graph(), 6.59e32), _weighted(nx.path_graph(10), 1.0)]
    compiled, plain = _both(graphs, weight="w")
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)
    assert 1e-86 < compiled[0, 1] < 1e-85


def _prepared(means, halves):
    """A prepared side from raw arrays (as _prepare makes it, without a ridge)."""
    lam, vectors = np.linalg.eigh(2 * halves)
    return _Prepared(means, halves, np.log(lam).sum(axis=1), lam.sum(axis=1) / 2, lam[:, 0] / 2, lam,
                     vectors / np.sqrt(lam)[:, None, :], vectors * np.sqrt(lam)[:, None, :])


def _numpy_tile(side):
    logdet, maha = _bhattacharyya.pair_terms(side.means, side.half_covs, side.means, side.half_covs)
    out = _bhattacharyya.combine(side.logdets[:, None], side.logdets[None, :], logdet, maha,
                                 side.sizes[:, None] + side.sizes[None, :], side.least[:, None] + side.least[None, :])
    index = np.arange(len(side))
    return _bhattacharyya.settle(side, side, index[:, None], index[None, :], out)


@needs_numba
@pytest.mark.parametrize(("k", "scale"), [(4, 1e-308), (4, 3e-308), (2, 2.3e307), (2, 4e307)])
def test_traces_whose_power_of_two_is_not_a_normal_number(rng, k, scale):
    """A subnormal mean variance, or one whose power of two is subnormal, takes
    math.frexp/ldexp instead of the bits of the float."""
    W = rng.normal(size=(6, k, k))
    halves = W @ W.transpose(0, 2, 1) / k * 0.1 + np.eye(k)
    halves *= scale / halves[:, range(k), range(k)].mean(axis=1)[:, None, None]
    side = _prepared(rng.normal(size=(6, k)) * np.sqrt(scale), halves)
    np.testing.assert_allclose(_bhattacharyya.compiled_tile(side, side, slice(None), slice(None)),
                               _numpy_tile(side), rtol=RTOL, atol=0)


@needs_numba
@pytest.mark.parametrize("k", [8, 16])
def test_pivot_products_outside_the_float_range(rng, k):
    """Half the variances 1e-80: every group of 8 scaled pivots multiplies to below
    1e-290 and is redone with one logarithm per pivot (only reachable with ridge=0)."""
    spectrum = np.where(np.arange(k) % 2 == 0, 1.0, 1e-80)
    halves = np.stack([np.diag(spectrum * rng.uniform(1, 2, k)) for _ in range(5)])
    side = _prepared(rng.normal(size=(5, k)) * np.sqrt(spectrum), halves)
    compiled = _bhattacharyya.compiled_tile(side, side, slice(None), slice(None))
    np.testing.assert_allclose(compiled, _numpy_tile(side), rtol=RTOL, atol=0)
    assert np.all((0 < compiled) & (compiled <= 1))


@needs_numba
def test_singular_pairs_are_refused_as_by_numpy():
    k = 3
    halves = np.stack([np.eye(k), np.zeros((k, k))])
    side = _Prepared(np.zeros((2, k)), halves, np.zeros(2), np.full(2, 1.5), np.full(2, 0.5), np.ones((2, k)),
                     np.repeat(np.eye(k)[None], 2, axis=0), np.repeat(np.eye(k)[None], 2, axis=0))
    with pytest.raises(ValueError, match="increase ridge"):
        _bhattacharyya.compiled_tile(side, side, slice(None), slice(None))
    with pytest.raises(ValueError, match="increase ridge"):
        _bhattacharyya.compiled_pairs(side, side, np.array([1]), np.array([1]))


@needs_numba
def test_fancy_indices_and_pairs(rng):
    invs = _random_invariants(rng, 6, n=12)
    functional = GaussianEmbedding(6, engine="numba")
    side = functional.prepare(invs, "g")
    full = functional.tile(side, side, slice(None), slice(None))
    rows, cols = np.array([3, 0, -1]), slice(10, 2, -2)
    # exact: the same pairs through the same compiled operations
    np.testing.assert_array_equal(functional.tile(side, side, rows, cols), full[rows][:, cols])
    i, j = np.array([[0, 5], [11, 5]]), np.array([[3, 5], [0, -2]])
    np.testing.assert_array_equal(functional.pairs(side, side, i, j), full[i, j])


def test_engine_selection(monkeypatch):
    assert not _bhattacharyya.uses_compiled("numpy", 5, 10**9)
    assert not _bhattacharyya.uses_compiled("auto", 5, _bhattacharyya.AUTO_MIN_PAIRS - 1)
    assert not _bhattacharyya.uses_compiled("numba", _bhattacharyya.UNROLL_MAX_K + 1, 10**9)
    if find_spec("numba") is not None:
        assert _bhattacharyya.uses_compiled("auto", 5, _bhattacharyya.AUTO_MIN_PAIRS)
        assert _bhattacharyya.uses_compiled("numba", 16, 1)
    with pytest.raises(ValueError, match="engine must be one of"):
        GaussianEmbedding(engine="fortran")
    monkeypatch.setattr(_bhattacharyya, "_compiled_module", lambda: None)  # numba missing
    with pytest.raises(ImportError, match="pip install numba"):
        GaussianEmbedding(engine="numba")
    assert not _bhattacharyya.uses_compiled("auto", 5, 10**9)
    graphs = [nx.path_graph(5), nx.star_graph(5)]
    np.testing.assert_array_equal(
        pairwise_kernels(graphs, functional=GaussianEmbedding(engine="auto")), gi.power_kernel_matrix(graphs)
    )


@needs_numba
def test_auto_switches_to_numba_on_the_number_of_pairs(monkeypatch):
    graphs = [nx.gnp_random_graph(30 + i, 0.2, seed=i) for i in range(12)]

    def matrix(engine):
        return pairwise_kernels(graphs, functional=GaussianEmbedding(engine=engine))

    np.testing.assert_array_equal(matrix("auto"), matrix("numpy"))  # 144 pairs: numpy
    monkeypatch.setattr(_bhattacharyya, "AUTO_MIN_PAIRS", 144)
    np.testing.assert_array_equal(matrix("auto"), matrix("numba"))


@needs_numba
def test_large_k_falls_back_to_numpy():
    graphs = [nx.karate_club_graph(), nx.les_miserables_graph()]
    compiled, plain = _both(graphs, k=17)
    # exact: for k > 16 both engines take the numpy (LAPACK) path
    np.testing.assert_array_equal(compiled, plain)


def test_the_compiled_engine_is_loaded_while_a_large_collection_is_embedded(monkeypatch):
    """Was: a fresh process imported numba and loaded the compiled code inside its first
    Gram matrix (NCI1: about 0.4 s of a 0.63 s first call, against 0.10 s later); the
    embedding of a collection whose Gram matrix will use it now starts that in a thread."""
    started = []
    monkeypatch.setattr(_bhattacharyya, "warm_up", lambda engine, k, n: started.append((engine, k, n)))
    GaussianEmbedding(3).as_embeddings([nx.path_graph(4), nx.cycle_graph(5)])
    GaussianEmbedding(4, engine="numpy").as_embeddings([nx.path_graph(4)])
    assert started == [("auto", 3, 2), ("numpy", 4, 1)]
    monkeypatch.undo()
    # the rule: only when the Gram matrix would go to the compiled engine
    assert _bhattacharyya.warm_up("numpy", 5, 10**5) is None
    assert _bhattacharyya.warm_up("auto", 5, 1999) is None  # 1999^2 pairs < AUTO_MIN_PAIRS
    assert _bhattacharyya.warm_up("auto", _bhattacharyya.UNROLL_MAX_K + 1, 10**5) is None
    if find_spec("numba") is not None:
        thread = _bhattacharyya.warm_up("auto", 5, 2000)
        assert thread is not None and _bhattacharyya.warm_up("numba", 5, 2) is thread  # once per k
        thread.join()
        assert _bhattacharyya._compiled_module() is not None
    # a failure there is only a lost head start: the caller meets the error itself
    monkeypatch.setattr(_bhattacharyya, "_compiled_module", lambda: 1 / 0)
    _bhattacharyya._load_compiled(7)


def test_the_warm_up_loads_only_what_a_gram_matrix_calls():
    """The warm-up compiled the paired code too, which a Gram matrix never calls: with an
    empty numba cache that is 0.5-0.85 s more compiling beside the matrix on a loaded
    two-core machine, and a process that ends at once waited for it (the thread is not
    a daemon). Run in a fresh process, where nothing else has called the engine."""
    pytest.importorskip("numba")
    code = ("from graphinvariants.embeddings import _bhattacharyya as b\n"
            "b._load_compiled(5)\n"
            "m = b._compiled_module()\n"
            "print(len(m.pack_side.signatures), len(m.tile_values.signatures), len(m.paired_values.signatures))")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    assert done.stdout.split() == ["1", "1", "0"]


def _singular_collection():
    """Graphs with singular covariances (rank one, n <= k, zero) among ordinary ones:
    their pairs are left by both engines to the whitened evaluation."""
    graphs = [nx.star_graph(n) for n in (30, 31, 60)] + [nx.wheel_graph(40), nx.complete_bipartite_graph(3, 40)]
    graphs += [nx.path_graph(4), nx.petersen_graph(), nx.cycle_graph(7), nx.karate_club_graph()]
    graphs += [nx.gnp_random_graph(25, 0.2, seed=s) for s in range(6)]
    return gi.batch_power_invariants(graphs)


@needs_numba
def test_pairs_left_to_the_whitened_evaluation_agree_and_stay_symmetric():
    invs = _singular_collection()
    compiled, plain = _both(invs)
    np.testing.assert_allclose(compiled, plain, rtol=RTOL, atol=0)
    cross, back = _both(invs[:9], invs[4:])[0], _both(invs[4:], invs[:9])[0]
    # exact: the reference of a whitened pair is chosen by the graphs, not by the side
    np.testing.assert_array_equal(cross, back.T)
    np.testing.assert_array_equal(cross[np.arange(4, 9), np.arange(5)], 1.0)
    assert np.linalg.eigvalsh(plain)[0] >= -1e-12


def test_which_pairs_the_direct_evaluation_keeps():
    """The direct value where its rounding bound is small next to log K and -log K; the
    others flagged for the whitened evaluation (numpy engine)."""
    invs = _singular_collection()
    functional = GaussianEmbedding(engine="numpy")
    side = functional.prepare(invs, "graphs")
    index = np.arange(len(invs))
    logdet, maha = _bhattacharyya.pair_terms(side.means, side.half_covs, side.means, side.half_covs)
    flagged = _bhattacharyya.combine(side.logdets[:, None], side.logdets[None, :], logdet, maha,
                                     side.sizes[:, None] + side.sizes[None, :],
                                     side.least[:, None] + side.least[None, :]) == _bhattacharyya.UNRESOLVED
    assert flagged[index, index].all()  # identical graphs: distance 0
    assert flagged[0, 1] and not flagged[8, 9]  # two stars; karate against a random graph
    settled = _bhattacharyya.settle(side, side, index[:, None], index[None, :], np.where(flagged, -1.0, 0.5))
    np.testing.assert_array_equal(settled, functional.tile(side, side, slice(None), slice(None)) * flagged + 0.5 * ~flagged)
