"""The in-place perturbation of one graph and its incremental invariants, against
the from-scratch computation on the edited graph."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.perturbation import PERTURBATIONS, PerturbedGraph

#: Incremental and from-scratch invariants agree to a few units of 1e-16 (measured
#: at most 5e-15 relative over 20 steps of every kind); the brief's bound is 1e-12.
RTOL = 1e-12

GRAPHS = {
    "grid": lambda: nx.grid_2d_graph(20, 20),  # road-like: small balls
    "barabasi-albert": lambda: nx.barabasi_albert_graph(300, 3, seed=1),  # hubs: large balls
    "small-world": lambda: nx.watts_strogatz_graph(300, 6, 0.2, seed=2),
    "directed": lambda: nx.gnp_random_graph(150, 0.03, seed=3, directed=True),
}
BRANCHES = {"full": 0.0, "incremental": float("inf"), "products": 1e-9, "chosen": None}


def assert_matches_scratch(state, k=5):
    inv = state.invariants()
    ref = gi.power_invariants(state.to_csr(), k=k)
    assert inv.n_nodes == ref.n_nodes
    np.testing.assert_allclose(inv.mean, ref.mean, rtol=RTOL, atol=0)
    scale = np.abs(ref.covariance).max()
    assert np.abs(inv.covariance - ref.covariance).max() <= RTOL * scale, (inv.covariance, ref.covariance)


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("kind", PERTURBATIONS)
@pytest.mark.parametrize("branch", list(BRANCHES))
def test_every_step_equals_scratch(graph, kind, branch):
    fraction = BRANCHES[branch]
    options = {} if fraction is None else {"ball_fraction": fraction}
    state = PerturbedGraph(GRAPHS[graph](), k=5, **options)
    rng = np.random.default_rng(7)
    used = set()
    for _ in range(12):
        used.add(state.apply(kind, rng))
        assert_matches_scratch(state)
    if branch in ("full", "incremental"):
        assert used == {branch}
    elif branch == "products" and (graph, kind) != ("directed", "add_node"):
        # (a directed new arc u -> v that no walk reaches leaves nothing to gather, so
        # incremental; a large overlay is merged and computed from scratch)
        assert "products" in used


@pytest.mark.parametrize("graph", ["grid", "barabasi-albert", "directed"])
@pytest.mark.parametrize("branch", ["full", "chosen"])
def test_every_step_equals_scratch_on_the_large_graph_path(graph, branch, monkeypatch):
    """The full branch and the reference both through graphinvariants.walks.large (the
    path of a graph of 2**20 nodes plus entries, forced here on a small one)."""
    from graphinvariants.walks import large as large_graph

    monkeypatch.setattr(large_graph, "LARGE_GRAPH", 0)
    fraction = BRANCHES[branch]
    state = PerturbedGraph(GRAPHS[graph](), k=5, **({} if fraction is None else {"ball_fraction": fraction}))
    rng = np.random.default_rng(8)
    for kind in PERTURBATIONS:
        state.apply(kind, rng)
        assert_matches_scratch(state)


def test_the_size_choice():
    """A grid's balls are small: incremental; a Barabasi-Albert graph's hubs make the
    2- and 3-hop balls most of the graph: full products for those steps."""
    grid = PerturbedGraph(nx.grid_2d_graph(60, 60))
    ba = PerturbedGraph(nx.barabasi_albert_graph(2000, 3, seed=0))
    rng = np.random.default_rng(0)
    for _ in range(10):
        grid.apply("flip", rng)
        ba.apply("flip", rng)
    assert (grid.n_incremental, grid.n_products, grid.n_full) == (10, 0, 0)
    assert ba.n_products >= 8 and ba.n_full == 0


def test_no_drift_over_a_long_sequence():
    state = PerturbedGraph(nx.grid_2d_graph(30, 30), ball_fraction=float("inf"))
    rng = np.random.default_rng(1)
    for kind in ["flip", "swap_edges", "remove_node", "add_node", "remove_edge", "add_edge"] * 25:
        state.apply(kind, rng)
    assert state.n_full == state.n_products == 0
    assert_matches_scratch(state)


def test_a_large_overlay_is_merged():
    state = PerturbedGraph(nx.grid_2d_graph(10, 10))  # 360 entries: merged past 67 in the overlay
    rng = np.random.default_rng(5)
    for _ in range(40):
        state.apply("flip", rng)
    assert state.n_full > 0 and len(state.overlay) <= 67
    assert_matches_scratch(state)


def test_weighted_and_unsorted_input_uses_the_pattern():
    A = sp.random_array((80, 80), density=0.1, random_state=0, format="coo")
    A = sp.csr_array(A + A.T)
    A.data *= 7.5
    A.has_sorted_indices = False
    state = PerturbedGraph(A)
    ref = gi.power_invariants((A > 0).astype(float), k=5)
    np.testing.assert_allclose(state.invariants().mean, ref.mean, rtol=RTOL, atol=0)


def test_toggle_edits_exactly_that_pair():
    G = nx.karate_club_graph()
    A = nx.to_scipy_sparse_array(G, format="csr", weight=None).toarray()
    state = PerturbedGraph(G)
    state.toggle(0, 1)  # an edge: removed
    state.toggle(0, 9)  # a missing edge: added
    expected = A.copy()
    expected[0, 1] = expected[1, 0] = 0
    expected[0, 9] = expected[9, 0] = 1
    np.testing.assert_array_equal(state.to_csr().toarray(), expected)
    state.toggle(0, 9)
    state.toggle(1, 0)
    np.testing.assert_array_equal(state.to_csr().toarray(), A)
    assert state.overlay == {}
    assert_matches_scratch(state)
    with pytest.raises(ValueError, match="two distinct nodes"):
        state.toggle(3, 3)
    with pytest.raises(ValueError, match="node 34 is not in the graph"):
        state.toggle(0, 34)


@pytest.mark.parametrize("u, v", [(1.7, 5.2), (1.0, 5), (0, "3"), (True, 2), (0, None), (np.float64(2), 3)])
def test_toggle_and_has_edge_refuse_ids_that_are_not_integers(u, v):
    # issue 44 item 11: int(1.7) would have flipped the pair (1, 5)
    state = PerturbedGraph(nx.path_graph(8), k=3)
    before = state.to_csr().toarray()
    for method in (state.toggle, state.has_edge):
        with pytest.raises(TypeError, match="node ids are integers"):
            method(u, v)
    np.testing.assert_array_equal(state.to_csr().toarray(), before)
    state.toggle(np.int64(1), np.int32(5))  # numpy integers are integers
    assert state.has_edge(1, 5) and state.has_edge(np.int64(5), 1)


def _edges(A, directed):
    coo = sp.coo_array(A)
    pairs = zip(coo.row.tolist(), coo.col.tolist())
    return {(u, v) for u, v in pairs if directed or u <= v}


@pytest.mark.parametrize("directed", [False, True])
def test_each_kind_does_what_it_says(directed):
    G = nx.gnp_random_graph(60, 0.1, seed=4, directed=directed)
    G.add_edge(5, 5)  # a self-loop, kept
    rng = np.random.default_rng(2)
    for kind in PERTURBATIONS:
        state = PerturbedGraph(G)
        before = state.to_csr()
        state.apply(kind, rng)
        after = state.to_csr()
        old, new = _edges(before, directed), _edges(after, directed)
        if not directed:
            assert (after != after.T).nnz == 0
        assert state.n_edges == len(new)
        if kind == "flip":
            assert len(old ^ new) == 1
        elif kind == "remove_edge":
            assert new < old and len(old - new) == 1
        elif kind == "add_edge":
            assert new > old and len(new - old) == 1 and all(u != v for u, v in new - old)
        elif kind == "swap_edges":
            assert len(old - new) == len(new - old) == 2
            np.testing.assert_array_equal(before.sum(axis=0), after.sum(axis=0))
            np.testing.assert_array_equal(before.sum(axis=1), after.sum(axis=1))
        elif kind == "remove_node":
            assert after.shape == (59, 59)
            (gone,) = np.flatnonzero(~state.alive)
            keep = np.delete(np.arange(60), gone)
            np.testing.assert_array_equal(after.toarray(), before.toarray()[np.ix_(keep, keep)])
        else:  # add_node: a pendant node, last
            assert after.shape == (61, 61)
            assert after[[60]].nnz + after[:, [60]].nnz == (1 if directed else 2)
            np.testing.assert_array_equal(after.toarray()[:60, :60], before.toarray())


def test_a_declared_directed_graph_with_symmetric_arcs_is_perturbed_arc_by_arc():
    G = nx.DiGraph(nx.cycle_graph(10))
    state = PerturbedGraph(G)
    assert state.directed
    state.toggle(0, 1)
    A = state.to_csr()
    assert A[0, 1] == 0 and A[1, 0] == 1
    assert_matches_scratch(state)


def test_renumbering_the_nodes_changes_nothing():
    """The same edits on the graph stored in another node order (rows really permuted)
    give the same invariants, up to rounding (the sums run in another order)."""
    G = nx.barabasi_albert_graph(200, 2, seed=3)
    A = nx.to_scipy_sparse_array(G, format="csr")
    order = np.random.default_rng(0).permutation(200)
    position = np.argsort(order)  # node i is row position[i] of the renumbered matrix
    B = sp.csr_array(A[order][:, order])
    a, b = PerturbedGraph(A, ball_fraction=float("inf")), PerturbedGraph(B)
    for u, v in [(0, 5), (7, 150), (0, 1), (33, 34)]:
        a.toggle(u, v)
        b.toggle(position[u], position[v])
    ia, ib = a.invariants(), b.invariants()
    np.testing.assert_allclose(ia.mean, ib.mean, rtol=RTOL, atol=0)
    np.testing.assert_allclose(ia.covariance, ib.covariance, rtol=0, atol=RTOL * np.abs(ia.covariance).max())


def test_copies_are_independent():
    base = PerturbedGraph(nx.grid_2d_graph(15, 15))
    before = base.invariants()
    a, b = base.copy(), base.copy()
    rng = np.random.default_rng(0)
    for _ in range(5):
        a.apply("flip", rng)
    b.ball_fraction = 0.0  # from scratch: b gets its own CSR
    b.apply("remove_node", rng)
    assert base.invariants() == before
    assert_matches_scratch(a)
    assert_matches_scratch(b)


def test_impossible_perturbations_raise_and_change_nothing():
    empty = PerturbedGraph(sp.csr_array((5, 5)))
    with pytest.raises(gi.perturbation.kinds.PerturbationError, match="no edges left"):
        empty.apply("remove_edge", np.random.default_rng(0))
    with pytest.raises(ValueError, match="two edges"):
        empty.apply("swap_edges", np.random.default_rng(0))
    complete = PerturbedGraph(nx.complete_graph(4))
    with pytest.raises(ValueError, match="every pair of nodes is already joined"):
        complete.apply("add_edge", np.random.default_rng(0))
    assert complete.n_edges == 6 and complete.overlay == {}
    with pytest.raises(ValueError, match="has no nodes"):
        PerturbedGraph(sp.csr_array((0, 0)))
    with pytest.raises(ValueError, match="ball_fraction must be >= 0"):
        PerturbedGraph(nx.path_graph(3), ball_fraction=-1)
    with pytest.raises(ValueError, match="perturbation"):
        complete.apply("teleport", np.random.default_rng(0))
    with pytest.raises(ValueError, match="k=None"):
        PerturbedGraph(nx.path_graph(3), k=None).invariants()


def test_an_edgeless_start_and_dying_walks():
    """Zero columns (no walks long enough) stay consistent when walks appear."""
    G = nx.DiGraph()
    G.add_nodes_from(range(6))
    G.add_edge(0, 1)
    state = PerturbedGraph(G, ball_fraction=float("inf"))
    for u, v in [(1, 2), (2, 3), (3, 4), (4, 5), (1, 2)]:
        state.toggle(u, v)
        assert_matches_scratch(state)


# -- the study and the sequence of one graph ---------------------------------------------------
def test_study_of_one_graph_matches_the_scratch_curve():
    G = nx.grid_2d_graph(25, 25)
    study = gi.perturbation_study(G, n_sequences=4, n_steps=6, seed=3)
    assert study.curves.shape == (4, 7)
    assert np.all(study.curves[:, 0] == 1.0)
    assert study.params["n_sequences"] == 4 and study.graph_indices.tolist() == [0, 0, 0, 0]
    A = gi.as_adjacency(G).matrix
    for i, seq in enumerate(np.random.SeedSequence(3).spawn(4)):
        state = PerturbedGraph(G)
        rng = np.random.default_rng(seq)
        for t in range(6):
            state.apply("flip", rng)
            # the kernel amplifies the invariants' 1e-15 through near-singular
            # covariances (ridge 1e-12): 2e-11 measured here, 1e-9 asserted
            assert study.curves[i, t + 1] == pytest.approx(gi.power_kernel(A, state.to_csr()), abs=1e-9)


def test_study_of_one_graph_is_reproducible_and_branch_independent():
    G = nx.barabasi_albert_graph(400, 3, seed=0)
    A = nx.to_scipy_sparse_array(G, format="csr")
    one = gi.perturbation_study(A, n_sequences=5, n_steps=5, seed=11)
    again = gi.perturbation_study(A, n_sequences=5, n_steps=5, seed=11, n_jobs=2)
    np.testing.assert_array_equal(one.curves, again.curves)
    fewer = gi.perturbation_study(A, n_sequences=3, n_steps=5, seed=11)
    np.testing.assert_array_equal(fewer.curves, one.curves[:3])
    for fraction in (0.0, float("inf")):
        forced = gi.perturbation_study(A, n_sequences=5, n_steps=5, seed=11, ball_fraction=fraction)
        np.testing.assert_allclose(forced.curves, one.curves, rtol=0, atol=1e-9)
    assert one.mean[-1] < one.mean[1] < 1


@pytest.mark.parametrize("kind", PERTURBATIONS)
def test_study_of_one_graph_every_kind(kind):
    """Step 0 is exactly 1; every later step is the kernel between the graph and its
    edited copy computed from scratch (the same edits, replayed from the study's
    documented seeds: ``SeedSequence(seed).spawn(n_sequences)``), within 1e-10; and
    every step really edits the graph. The tolerance: the invariants agree within 1e-12
    relative (above), and the kernel of a grid's nearly singular covariances amplifies
    their last-bit differences (measured up to 5e-12 here)."""
    G = nx.grid_2d_graph(12, 12)
    study = gi.perturbation_study(G, n_sequences=2, n_steps=3, kind=kind, seed=0)
    assert study.curves.shape == (2, 4)
    np.testing.assert_array_equal(study.curves[:, 0], 1.0)
    A = gi.as_adjacency(G).matrix
    for i, child in enumerate(np.random.SeedSequence(0).spawn(2)):
        rng, state = np.random.default_rng(child), PerturbedGraph(G)
        before = A
        for t in range(1, 4):
            state.apply(kind, rng)
            after = state.to_csr()
            assert after.shape != before.shape or (after != before).nnz > 0, f"step {t} left the graph as it was"
            expected = gi.power_kernel(A, after, k=5)
            assert abs(study.curves[i, t] - expected) <= 1e-10, (i, t, study.curves[i, t], expected)
            assert study.curves[i, t] < 1
            before = after


def test_study_of_one_graph_errors():
    G = nx.path_graph(10)
    with pytest.raises(ValueError, match="kernel='power'"):
        gi.perturbation_study(G, n_sequences=2, n_steps=2, kernel="wl")
    with pytest.raises(ValueError, match="n_sequences is for the study of one graph"):
        gi.perturbation_study([G, G], n_sequences=2, n_graphs=1)
    with pytest.raises(ValueError, match="n_sequences must be an integer >= 1"):
        gi.perturbation_study(G, n_sequences=0)
    with pytest.raises(ValueError, match="sequence 0, step 10: cannot remove an edge"):
        gi.perturbation_study(G, n_sequences=1, n_steps=10, kind="remove_edge", seed=0)


def test_a_list_of_one_graph_is_still_a_collection():
    G = nx.path_graph(10)
    study = gi.perturbation_study([G], n_graphs=1, n_steps=2, seed=0)
    assert study.curves.shape == (1, 3) and "n_sequences" not in study.params
    assert study.params["n_graphs"] == 1 and study.curves[0, 0] == 1.0


def test_perturbation_sequence_of_a_matrix():
    G = nx.grid_2d_graph(6, 6)
    A = nx.to_scipy_sparse_array(G, format="csr")
    steps = gi.perturbation_sequence(A, 4, kind="swap_edges", seed=0)
    assert all(sp.issparse(H) and H.shape == A.shape for H in steps)
    np.testing.assert_array_equal(steps[-1].sum(axis=1), A.sum(axis=1))
    adjacency = gi.as_adjacency(nx.relabel_nodes(nx.path_graph(4), dict(zip(range(4), "abcd"))))
    grown = gi.perturbation_sequence(adjacency, 2, kind="add_node", seed=0)
    assert [H.nodes for H in grown] == [("a", "b", "c", "d", 0), ("a", "b", "c", "d", 0, 1)]
    shrunk = gi.perturbation_sequence(adjacency, 1, kind="remove_node", seed=0)[0]
    assert len(shrunk.nodes) == 3 and shrunk.matrix.shape == (3, 3)


def test_study_of_one_graph_progress_bar(capsys):
    gi.perturbation_study(nx.grid_2d_graph(8, 8), n_sequences=3, n_steps=1, seed=0, progress=True, name="grid")
    err = capsys.readouterr().err
    assert "perturbation study of grid" in err and "3/3" in err
