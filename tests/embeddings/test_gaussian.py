import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multivariate_normal

import graphinvariants as gi


def test_mean_and_covariance_are_the_papers():
    G = nx.gnp_random_graph(40, 0.1, seed=2)
    S = gi.power_summary(G).matrix
    inv = gi.power_invariants(G)
    np.testing.assert_allclose(inv.mean, S.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(inv.covariance, np.cov(S, rowvar=False, bias=True), rtol=1e-12, atol=1e-18)
    assert inv.n_nodes == 40 and inv.k == 5


@st.composite
def graphs_and_permutations(draw):
    n = draw(st.integers(1, 25))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    perm = draw(st.permutations(range(n)))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    return G, perm


@settings(max_examples=60, deadline=None)
@given(graphs_and_permutations())
def test_theorem_2_invariants_do_not_depend_on_node_order(case):
    G, perm = case
    relabelled = nx.relabel_nodes(G, dict(enumerate(perm)))
    H = nx.Graph()
    H.add_nodes_from(sorted(relabelled))  # rows of the summary now come in another order
    H.add_edges_from(relabelled.edges())
    a, b = gi.power_invariants(G), gi.power_invariants(H)
    scale = max(np.abs(a.mean).max(), 1e-300)
    np.testing.assert_allclose(b.mean, a.mean, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(b.covariance, a.covariance, rtol=1e-12, atol=1e-12 * scale**2)


def test_invariants_are_immutable_and_readable():
    inv = gi.power_invariants(nx.karate_club_graph())
    with pytest.raises(ValueError, match="read-only"):
        inv.mean[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        inv.covariance[0, 0] = 1.0
    with pytest.raises(AttributeError):
        inv.n_nodes = 3
    assert repr(inv).startswith("PowerInvariants(k=5, n_nodes=34, mean=[")


def test_invariants_copy_their_input():
    mean = np.zeros(2)
    inv = gi.PowerInvariants(mean, np.eye(2), 3)
    mean[0] = 5
    assert inv.mean[0] == 0


def test_dict_round_trip_and_json():
    import json

    inv = gi.power_invariants(nx.karate_club_graph())
    back = gi.PowerInvariants.from_dict(json.loads(json.dumps(inv.to_dict())))
    # exact: JSON writes floats by repr, which reads back to the same bits
    np.testing.assert_array_equal(back.mean, inv.mean)
    np.testing.assert_array_equal(back.covariance, inv.covariance)
    assert back.n_nodes == inv.n_nodes
    with pytest.raises(ValueError, match="keys"):
        gi.PowerInvariants.from_dict({"mean": [1.0]})


def test_npz_round_trip(tmp_path):
    invs = gi.batch_power_invariants([nx.path_graph(n) for n in range(1, 8)])
    path = tmp_path / "inv.npz"
    gi.save_invariants(path, invs)
    back = gi.load_invariants(path)
    assert len(back) == 7
    for a, b in zip(invs, back):
        np.testing.assert_array_equal(a.mean, b.mean)
        np.testing.assert_array_equal(a.covariance, b.covariance)
        assert a.n_nodes == b.n_nodes


def test_npz_errors(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        gi.save_invariants(tmp_path / "x.npz", [])
    with pytest.raises(ValueError, match="same k"):
        gi.save_invariants(tmp_path / "x.npz", [gi.power_invariants(nx.path_graph(3), k=2), gi.power_invariants(nx.path_graph(3))])
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not a graphinvariants invariants file"):
        gi.load_invariants(tmp_path / "other.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a graphinvariants invariants file"):
        gi.load_invariants(tmp_path / "junk.npz")


def test_constructor_validation():
    with pytest.raises(ValueError, match="shape"):
        gi.PowerInvariants([0.0, 1.0], np.eye(3), 4)
    with pytest.raises(ValueError, match="finite"):
        gi.PowerInvariants([np.nan], [[1.0]], 4)
    with pytest.raises(ValueError, match="symmetric"):
        gi.PowerInvariants([0.0, 0.0], [[1.0, 0.5], [0.0, 1.0]], 4)
    with pytest.raises(ValueError, match="positive"):
        gi.PowerInvariants([0.0], [[1.0]], 0)


def test_pdf_matches_scipy():
    inv = gi.power_invariants(nx.gnp_random_graph(60, 0.08, seed=4))
    x = np.random.default_rng(0).multivariate_normal(inv.mean, inv.covariance, size=5)
    cov = inv.regularized_covariance()
    np.testing.assert_allclose(inv.logpdf(x), multivariate_normal(inv.mean, cov).logpdf(x), rtol=1e-10)
    assert isinstance(inv.pdf(x[0]), float)
    np.testing.assert_allclose(inv.pdf(x[0]), multivariate_normal(inv.mean, cov).pdf(x[0]), rtol=1e-9)
    with pytest.raises(ValueError, match="shape"):
        inv.logpdf([1.0, 2.0])


def test_singular_cases_are_finite_and_documented():
    regular = gi.power_invariants(nx.petersen_graph())  # every node has the same profile
    np.testing.assert_allclose(regular.mean, 0.3)
    # exact: stacked_moments centres on the first (sorted) row, so equal rows give 0
    np.testing.assert_array_equal(regular.covariance, 0)
    edgeless = gi.power_invariants(nx.empty_graph(7))
    np.testing.assert_array_equal(edgeless.mean, 0)
    # exact: the fallback is the one division 1 / 7**2
    assert edgeless.ridge_scale() == 1 / 49
    small = gi.power_invariants(nx.path_graph(3))  # n <= k: rank at most n - 1
    assert np.linalg.matrix_rank(small.covariance) <= 2
    for inv in (regular, edgeless, small):
        assert np.isfinite(inv.logpdf(inv.mean))
        with pytest.raises(ValueError, match="singular"):
            inv.logpdf(inv.mean, ridge=0)


def test_ridge_scale_follows_the_data():
    inv = gi.power_invariants(nx.karate_club_graph())
    scaled = gi.PowerInvariants(inv.mean * 1e3, inv.covariance * 1e6, inv.n_nodes)
    assert scaled.ridge_scale() == pytest.approx(inv.ridge_scale() * 1e6, rel=1e-12)
    S = gi.power_summary(nx.karate_club_graph()).matrix
    assert inv.ridge_scale() == pytest.approx((S**2).mean(), rel=1e-12)


def test_k_mismatch_with_precomputed_objects():
    S = gi.power_summary(nx.path_graph(6), k=3)
    with pytest.raises(ValueError, match="k=3"):
        gi.power_invariants(S, k=5)
    with pytest.raises(ValueError, match="k=3"):
        gi.batch_power_invariants([gi.power_invariants(S, k=4)], k=5)
    assert gi.power_invariants(S, k=3).k == 3


def test_invariants_have_value_equality():
    a = gi.power_invariants(nx.karate_club_graph())
    b = gi.power_invariants(nx.karate_club_graph())
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != gi.power_invariants(nx.karate_club_graph(), k=4)
    assert a != gi.PowerInvariants(a.mean, a.covariance, a.n_nodes + 1)
    assert {a: 1}[b] == 1


def test_saved_and_reloaded_invariants_are_equal(tmp_path):
    invs = gi.batch_power_invariants([nx.path_graph(4), nx.karate_club_graph()])
    gi.save_invariants(tmp_path / "x", invs)  # numpy appends .npz
    loaded = gi.load_invariants(tmp_path / "x")  # found under either name
    assert list(loaded) == list(invs)


def test_damaged_invariant_files_name_the_file(tmp_path):
    invs = gi.batch_power_invariants([nx.path_graph(4), nx.karate_club_graph()])
    path = tmp_path / "x.npz"
    gi.save_invariants(path, invs)
    data = path.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cut.npz.*damaged or truncated"):
        gi.load_invariants(tmp_path / "cut.npz")
    with pytest.raises(FileNotFoundError, match="missing"):
        gi.load_invariants(tmp_path / "missing.npz")
    np.savez(tmp_path / "float.npz", format=np.array("graphinvariants.PowerInvariants/1"), mean=invs.means,
             covariance=invs.covariances, n_nodes=np.array([3.7, 34.0]))
    with pytest.raises(ValueError, match="n_nodes must be integers"):
        gi.load_invariants(tmp_path / "float.npz")


def test_covariances_must_be_positive_semidefinite():
    with pytest.raises(ValueError, match="positive semidefinite"):
        gi.PowerInvariants([0.0], [[-1.0]], 4)
    with pytest.raises(ValueError, match="positive semidefinite"):
        gi.PowerInvariants([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], 4)


def test_gaussian_batch_is_a_sequence_of_views():
    batch = gi.batch_power_invariants([nx.path_graph(n) for n in range(3, 9)], k=3)
    assert len(batch) == 6 and batch[-1] == gi.power_invariants(nx.path_graph(8), k=3)
    assert isinstance(batch[1:3], gi.GaussianBatch) and len(batch[1:3]) == 2
    with pytest.raises(ValueError):
        batch.means[0, 0] = 1.0  # read-only
    with pytest.raises(TypeError, match="single"):
        gi.power_kernel_matrix(batch[0])


def test_equal_invariants_hash_alike_even_with_negative_zeros():
    a = gi.PowerInvariants([0.0, 1.0], [[0.0, 0.0], [0.0, 1.0]], 3)
    b = gi.PowerInvariants([-0.0, 1.0], [[0.0, -0.0], [-0.0, 1.0]], 3)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


def test_save_and_load_refuse_what_they_cannot_handle(tmp_path):
    import networkx as nx

    inv = gi.power_invariants(nx.path_graph(4))
    with pytest.raises(TypeError, match="single PowerInvariants; wrap it in a list"):
        gi.save_invariants(tmp_path / "one.npz", inv)
    with pytest.raises(ValueError, match="is a folder; give a file name"):
        gi.save_invariants(tmp_path, [inv])
    assert list(tmp_path.iterdir()) == []
    np.save(tmp_path / "arr.npy", np.zeros(3))
    with pytest.raises(ValueError, match=r"arr\.npy is not a graphinvariants invariants file.*not an \.npz archive"):
        gi.load_invariants(tmp_path / "arr.npy")


def test_blocks_of_nodes_and_pairs_give_the_same_bits(monkeypatch):
    """Outer products and pair factors are formed a block at a time (memory bounded
    whatever the number of nodes and k); the numbers must not depend on the block."""
    from graphinvariants.embeddings import GaussianEmbedding, gaussian
    from graphinvariants.kernels import paired_kernels, pairwise_kernels

    rng = np.random.default_rng(2)
    graphs = [nx.gnp_random_graph(int(n), 0.2, seed=int(n)) for n in rng.integers(5, 80, size=30)]
    graphs.append(nx.gnp_random_graph(400, 0.02, seed=1))  # larger than a small block alone
    for k in (4, 20):  # unrolled and LAPACK pair factors
        functional = GaussianEmbedding(k=k, engine="numpy")
        whole = functional.as_embeddings(graphs)
        K = pairwise_kernels(whole, functional=functional)
        paired = paired_kernels(whole, whole[::-1], functional=functional)
        for values in (1, 7 * k * k, 150 * k * k):
            monkeypatch.setattr(gaussian, "_BLOCK_VALUES", values)
            blocked = functional.as_embeddings(graphs)
            np.testing.assert_array_equal(blocked.means, whole.means)
            np.testing.assert_array_equal(blocked.covariances, whole.covariances)
            np.testing.assert_array_equal(pairwise_kernels(blocked, functional=functional), K)
            np.testing.assert_array_equal(paired_kernels(blocked, blocked[::-1], functional=functional), paired)
        monkeypatch.undo()


def test_memory_of_the_power_embedding_does_not_grow_with_nodes_times_k_squared():
    """Was: one n x k^2 array of outer products (NCI1 at k=200 asked for 36.6 GiB);
    here 18,000 nodes at k=30 took 140 MiB, now about 46 MiB."""
    import tracemalloc

    from graphinvariants.embeddings import GaussianEmbedding

    graphs = [nx.gnp_random_graph(60, 0.05, seed=s) for s in range(300)]
    functional = GaussianEmbedding(k=30)
    batch = functional.graph_batch(graphs)
    tracemalloc.start()
    functional.prepare(functional.embed(batch), "graphs")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 80 * 2**20, f"{peak / 2**20:.1f} MiB"  # the outer products alone were 124 MiB


def test_singular_covariance_message_fits_the_ridge():
    """Was "use ridge > 0, got ridge=1e-12": with a positive ridge, say to increase it."""
    with pytest.raises(ValueError, match=r"graphs\[0\].*singular.*increase ridge \(got ridge=1e-12"):
        gi.kernel_matrix([nx.lollipop_graph(4, 3)], kernel="power", k=200)
    with pytest.raises(ValueError, match=r"singular.*use ridge > 0 \(got ridge=0\)"):
        gi.kernel_matrix([nx.path_graph(3), nx.path_graph(4)], kernel="power", k=5, ridge=0)


def test_saving_into_a_missing_folder_names_the_folder(tmp_path):
    invs = gi.batch_power_invariants([nx.path_graph(4)])
    with pytest.raises(FileNotFoundError, match="folder .*nope.* does not exist"):
        gi.save_invariants(tmp_path / "nope" / "x.npz", invs)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(__import__("sys").platform != "linux", reason="uses Linux file-size limits")
def test_a_failed_save_leaves_no_partial_file_and_keeps_the_old_one(tmp_path):
    # a file-size limit stands in for a full disk: the write stops in the middle
    import resource
    import signal

    small = gi.batch_power_invariants([nx.path_graph(4)])
    large = gi.batch_power_invariants([nx.gnp_random_graph(30, 0.2, seed=i) for i in range(400)], k=20)
    path = tmp_path / "x.npz"
    gi.save_invariants(path, small)
    before = path.read_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 4096, hard))
    try:
        with pytest.raises(OSError):
            gi.save_invariants(path, large)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]
    with pytest.raises(OSError):  # a new name: nothing at all is left
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        try:
            gi.save_invariants(tmp_path / "y", large)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, handler)
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]
