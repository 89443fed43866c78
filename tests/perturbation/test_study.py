import csv
import json

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi


@pytest.fixture(scope="module")
def graphs():
    return [nx.gnp_random_graph(25 + i, 0.12, seed=i) for i in range(15)]


def test_curves_match_a_direct_computation(graphs):
    study = gi.perturbation_study(graphs, n_graphs=4, n_steps=6, seed=11)
    assert study.curves.shape == (4, 7)
    # exact: step 0 is the original against itself, 1.0 by construction
    np.testing.assert_array_equal(study.curves[:, 0], 1.0)
    # redo graph 0 by hand from the public functions, with the same random stream
    seeds = np.random.SeedSequence(11).spawn(2)[1].spawn(4)
    G = graphs[study.graph_indices[0]]
    steps = gi.perturbation_sequence(G, 6, seed=np.random.default_rng(seeds[0]))
    expected = [gi.power_kernel(G, H) for H in steps]
    np.testing.assert_allclose(study.curves[0, 1:], expected, rtol=1e-12)


def test_same_seed_same_study_whatever_n_jobs(graphs):
    a = gi.perturbation_study(graphs, n_graphs=8, n_steps=5, seed=2)
    b = gi.perturbation_study(graphs, n_graphs=8, n_steps=5, seed=2, n_jobs=2)
    # exact: threads only make the perturbed graphs (one seed stream per graph); values come from one call
    np.testing.assert_array_equal(a.curves, b.curves)
    np.testing.assert_array_equal(a.graph_indices, b.graph_indices)
    assert len(set(a.graph_indices.tolist())) == 8  # sampled without replacement


def test_summary_statistics_and_exports(graphs, tmp_path):
    study = gi.perturbation_study(graphs, n_graphs=6, n_steps=4, seed=0, name="toy")
    np.testing.assert_allclose(study.mean, study.curves.mean(axis=0))
    np.testing.assert_allclose(study.stderr, study.curves.std(axis=0, ddof=1) / np.sqrt(6))
    data = json.loads(json.dumps(study.to_dict()))
    assert data["params"]["name"] == "toy" and len(data["curves"]) == 6
    study.to_csv(tmp_path / "s.csv")
    rows = list(csv.reader(open(tmp_path / "s.csv")))
    assert rows[0][:4] == ["step", "mean", "std", "stderr"] and len(rows) == 6 and len(rows[1]) == 10
    assert "toy: 6 graphs x 4 flip steps" in repr(study)


def test_other_kinds_and_none_means_all(graphs):
    study = gi.perturbation_study(graphs, n_graphs=None, n_steps=3, kind="swap_edges", seed=0)
    assert study.curves.shape == (15, 4)
    np.testing.assert_array_equal(study.graph_indices, np.arange(15))
    np.testing.assert_array_equal(study.curves[:, 0], 1.0)  # step 0: each graph with itself
    assert np.all(study.curves[:, 1:] <= 1 + 1e-12) and (study.curves[:, 1:] < 1 - 1e-9).any()  # swaps happened


def test_bad_arguments(graphs):
    with pytest.raises(ValueError, match="n_graphs=20, but the collection has 15"):
        gi.perturbation_study(graphs, n_graphs=20)
    with pytest.raises(ValueError, match="unknown perturbation"):
        gi.perturbation_study(graphs, kind="shake", n_graphs=2)
    with pytest.raises(ValueError, match="graph .* of the collection, step 3: cannot remove an edge"):
        gi.perturbation_study([nx.path_graph(3)], n_graphs=1, n_steps=3, kind="remove_edge")
    with pytest.raises(ValueError, match="no nodes"):
        gi.perturbation_study([nx.Graph()], n_graphs=1)


def test_paper_study_on_the_four_data_sets(tu_datasets):
    """Every mean curve starts at 1 and decreases; MUTAG (smallest graphs) falls fastest."""
    studies = {name: gi.perturbation_study(ds, seed=0) for name, ds in tu_datasets.items()}
    for study in studies.values():
        # exact: the mean of ones is 1.0
        assert study.mean[0] == 1.0
        assert np.all(np.diff(study.mean) < 0)
    others = [s.mean[-1] for name, s in studies.items() if name != "MUTAG"]
    assert studies["MUTAG"].mean[-1] < min(others)
    assert studies["MUTAG"].mean[1] < min(s.mean[1] for name, s in studies.items() if name != "MUTAG")


def test_n_flips_is_a_deprecated_spelling_of_n_steps():
    graphs = [nx.gnp_random_graph(20, 0.2, seed=i) for i in range(5)]
    new = gi.perturbation_study(graphs, n_graphs=3, n_steps=4, seed=1)
    with pytest.warns(FutureWarning, match="n_steps"):
        old = gi.perturbation_study(graphs, n_graphs=3, n_flips=4, seed=1)
    np.testing.assert_array_equal(new.curves, old.curves)


def test_seed_is_an_int_a_generator_or_none():
    graphs = [nx.gnp_random_graph(20, 0.2, seed=i) for i in range(5)]
    a = gi.perturbation_study(graphs, n_graphs=3, n_steps=2, seed=np.random.default_rng(7))
    b = gi.perturbation_study(graphs, n_graphs=3, n_steps=2, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(a.curves, b.curves)
    assert gi.perturbation_study(graphs, n_graphs=3, n_steps=2, seed=None).curves.shape == (3, 3)
    with pytest.raises(TypeError, match="seed"):
        gi.perturbation_study(graphs, n_graphs=3, n_steps=2, seed=1.5)


def test_threads_change_nothing():
    graphs = [nx.gnp_random_graph(25, 0.2, seed=i) for i in range(12)]
    one = gi.perturbation_study(graphs, n_graphs=10, n_steps=4, seed=3, n_jobs=1)
    two = gi.perturbation_study(graphs, n_graphs=10, n_steps=4, seed=3, n_jobs=2)
    np.testing.assert_array_equal(one.curves, two.curves)


def test_curves_equal_the_kernel_of_each_perturbed_graph():
    """Against the straightforward path: perturbation_sequence, then power_kernel per step."""
    graphs = [nx.gnp_random_graph(30, 0.15, seed=i) for i in range(4)]
    study = gi.perturbation_study(graphs, n_graphs=None, n_steps=5, seed=11)
    for row, G in zip(study.curves, graphs):
        assert row[0] == 1.0
        assert np.all((row > 0) & (row <= 1))
    # the same edits, replayed through the public per-graph API with each graph's stream
    root = np.random.SeedSequence(11)
    _, graph_seq = root.spawn(2)
    for g, (G, seed) in enumerate(zip(graphs, graph_seq.spawn(len(graphs)))):
        steps = gi.perturbation_sequence(G, 5, seed=np.random.default_rng(seed))
        expected = [gi.power_kernel(G, H) for H in steps]
        np.testing.assert_allclose(study.curves[g, 1:], expected, rtol=1e-12)


@pytest.mark.parametrize("kernel, params", [("histogram", {"k": 4}), ("wl", {"n_iter": 2})])
def test_any_kernel_by_name_against_the_straightforward_path(kernel, params):
    graphs = [nx.gnp_random_graph(25, 0.2, seed=i) for i in range(6)]
    study = gi.perturbation_study(graphs, n_graphs=None, n_steps=3, seed=5, kernel=kernel,
                                  k=params.get("k", 5), kernel_params={k: v for k, v in params.items() if k != "k"})
    assert study.params["kernel"] == kernel
    _, graph_seq = np.random.SeedSequence(5).spawn(2)
    for g, (G, seed) in enumerate(zip(graphs, graph_seq.spawn(len(graphs)))):
        steps = gi.perturbation_sequence(G, 3, seed=np.random.default_rng(seed))
        expected = gi.kernel_matrix([G], steps, kernel=kernel, **params)[0]
        np.testing.assert_allclose(study.curves[g, 1:], expected, rtol=1e-12)


def test_baseline_is_the_median_kernel_with_the_other_graphs_and_the_crossing_step():
    graphs = [nx.gnp_random_graph(20 + i, 0.2, seed=i) for i in range(12)]
    study = gi.perturbation_study(graphs, n_graphs=4, n_steps=10, seed=2, baseline=True)
    assert gi.perturbation_study(graphs, n_graphs=4, n_steps=10, seed=2).baseline is None
    K = gi.power_kernel_matrix(graphs)
    for i, g in enumerate(study.graph_indices):
        others = np.delete(K[g], g)
        assert study.baseline[i] == pytest.approx(np.median(others), rel=1e-12)
    below = np.flatnonzero(study.mean < study.baseline.mean())
    assert study.crossing_step == (int(below[0]) if below.size else None)
    assert gi.perturbation_study(graphs[:1], n_graphs=1, n_steps=2, seed=0, baseline=True).crossing_step is None


@pytest.mark.parametrize("kind", ["flip", "add_node", "remove_node"])
@pytest.mark.parametrize("kernel, params", [("labelled_histogram", {"k": 3}), ("wl", {"node_label": "label"})])
def test_labelled_kernels_see_the_labels_of_the_perturbed_graphs(tu_datasets, kind, kernel, params):
    """Perturbed graphs keep their nodes' labels; an added node copies the label of the
    node it joins, in the study as in perturbation_sequence (the straightforward path)."""
    mutag = tu_datasets["MUTAG"]
    graphs = list(mutag[:8])
    study = gi.perturbation_study(graphs, n_graphs=None, n_steps=4, kind=kind, seed=5, kernel=kernel,
                                  k=params.get("k", 5), kernel_params={k: v for k, v in params.items() if k != "k"})
    assert np.all(study.curves[:, 0] == 1.0) and np.all(study.curves[:, 1:] < 1.0 + 1e-12)
    _, graph_seq = np.random.SeedSequence(5).spawn(2)
    for g, (G, seed) in enumerate(zip(graphs, graph_seq.spawn(len(graphs)))):
        steps = gi.perturbation_sequence(G, 4, kind=kind, seed=np.random.default_rng(seed))
        assert all("label" in data for H in steps for _, data in H.nodes(data=True))
        expected = gi.kernel_matrix([G], steps, kernel=kernel, **params)[0]
        np.testing.assert_allclose(study.curves[g, 1:], expected, rtol=1e-12)
    # the loaded data set itself (labels from its files) gives the same study
    again = gi.perturbation_study(mutag[:8], n_graphs=None, n_steps=4, kind=kind, seed=5, kernel=kernel,
                                  k=params.get("k", 5), kernel_params={k: v for k, v in params.items() if k != "k"})
    # exact: the data set's arrays and its graphs give the same labels and embeddings
    np.testing.assert_array_equal(again.curves, study.curves)


def test_added_nodes_copy_the_attributes_of_their_anchor():
    import igraph as ig

    G = nx.path_graph(4)
    nx.set_node_attributes(G, {0: "C", 1: "N", 2: "O", 3: "S"}, "label")
    for H in gi.perturbation_sequence(G, 6, kind="add_node", seed=1):
        for node in set(H) - set(G):  # a pendant node: its one neighbour is its anchor
            assert H.nodes[node]["label"] in {H.nodes[u]["label"] for u in H[node]}
    Gi = ig.Graph.from_networkx(G)
    last = gi.perturbation_sequence(Gi, 6, kind="add_node", seed=1)[-1]
    assert None not in last.vs["label"] and last.vcount() == 10
    # a node added to an added node takes the label of the original it descends from
    state = gi.perturbation.edits.GraphState(1, [], directed=False)
    rng = np.random.default_rng(0)
    for _ in range(5):
        state.add_node(rng)
    assert state.label_sources().tolist() == [0] * 6


def test_params_record_the_kernel_as_it_was_run(graphs, tmp_path):
    study = gi.perturbation_study(graphs, n_graphs=2, n_steps=2, seed=np.int64(3), kernel="histogram",
                                  kernel_params={"k": 3})
    assert study.params["k"] == 3 and study.params["kernel_params"] == {"k": 3} and study.params["seed"] == 3
    json.dumps(study.to_dict())  # numpy seeds and parameters are stored as Python values
    wl = gi.perturbation_study(graphs, n_graphs=2, n_steps=2, seed=0, kernel="wl", kernel_params={"n_iter": 2})
    assert wl.params["k"] is None and wl.params["kernel_params"] == {"n_iter": 2}
    display = gi.KernelDecayDisplay.from_studies({"a": wl})
    assert display.ylabel == "wl kernel with the original graph"
    mixed = gi.KernelDecayDisplay.from_studies({"a": wl, "b": study})
    assert mixed.ylabel == "kernel with the original graph"


def test_an_empty_collection_is_an_error_not_a_curve_of_nan():
    with pytest.raises(ValueError, match="has no graphs"):
        gi.perturbation_study([], n_graphs=None)


def test_a_directed_graph_with_paired_arcs_is_perturbed_arc_by_arc():
    import igraph as ig

    D = nx.DiGraph(nx.cycle_graph(8))  # every arc has its reverse: a symmetric matrix
    for graph in (D, ig.Graph.from_networkx(D)):
        study = gi.perturbation_study([graph, graph], n_graphs=None, n_steps=3, seed=0, k=2)
        _, graph_seq = np.random.SeedSequence(0).spawn(2)
        for g, seed in enumerate(graph_seq.spawn(2)):
            steps = gi.perturbation_sequence(graph, 3, seed=np.random.default_rng(seed))
            expected = [gi.power_kernel(graph, H, k=2) for H in steps]
            np.testing.assert_allclose(study.curves[g, 1:], expected, rtol=1e-12)
    # removing an edge removes one arc, not the pair
    study = gi.perturbation_study([D], n_graphs=None, n_steps=1, kind="remove_edge", seed=0, k=2)
    one_arc = {round(gi.power_kernel(D, nx.restricted_view(D, [], [arc]), k=2), 12) for arc in D.edges()}
    assert round(float(study.curves[0, 1]), 12) in one_arc


@pytest.mark.parametrize("kind", ["remove_edge", "swap_edges", "add_edge"])
def test_edge_kinds_follow_the_same_stream_whatever_the_order_edges_are_listed_in(kind):
    import igraph as ig

    rng = np.random.default_rng(4)
    graphs = []
    for i in range(3):
        edges = list(nx.gnp_random_graph(20, 0.25, seed=i).edges())
        rng.shuffle(edges)  # listed in no particular order
        G = nx.Graph()
        G.add_nodes_from(range(20))
        G.add_edges_from(edges)
        graphs.append(G)
    for collection in (graphs, [ig.Graph.from_networkx(G) for G in graphs]):
        study = gi.perturbation_study(collection, n_graphs=None, n_steps=6, kind=kind, seed=2, k=3)
        _, graph_seq = np.random.SeedSequence(2).spawn(2)
        for g, (G, seed) in enumerate(zip(collection, graph_seq.spawn(len(collection)))):
            steps = gi.perturbation_sequence(G, 6, kind=kind, seed=np.random.default_rng(seed))
            expected = [gi.power_kernel(G, H, k=3) for H in steps]
            np.testing.assert_allclose(study.curves[g, 1:], expected, rtol=1e-12)


@pytest.mark.parametrize("kernel", ["power:k=2", "power*size:k=2"])
def test_a_k_spelled_in_the_kernel_name_is_the_k_run_and_recorded(kernel):
    # "power:k=2" ran k=2 but recorded k=5; "power*size:k=2" ran the study's default k=5
    graphs = [nx.cycle_graph(6), nx.path_graph(5), nx.petersen_graph()]
    spelled = gi.perturbation_study(graphs, n_graphs=None, n_steps=2, seed=0, kernel=kernel)
    plain = gi.perturbation_study(graphs, n_graphs=None, n_steps=2, seed=0, kernel=kernel.split(":")[0], k=2)
    # exact: the same kernel with the same k on the same flips, computed the same way
    np.testing.assert_array_equal(spelled.curves, plain.curves)
    assert spelled.params["k"] == 2


def test_progress_shows_a_bar_and_changes_no_value(capsys):
    """Was: no progress at all, however long the study."""
    graphs = [nx.gnp_random_graph(25, 0.15, seed=i) for i in range(30)]
    quiet = gi.perturbation_study(graphs, n_graphs=25, n_steps=4, seed=1, baseline=True, name="G")
    capsys.readouterr()
    shown = gi.perturbation_study(graphs, n_graphs=25, n_steps=4, seed=1, baseline=True, name="G", progress=True)
    err = capsys.readouterr().err
    # 25 graphs, the kernel values, the baseline (what is drawn last depends on tqdm's refresh interval)
    assert "perturbation study of G" in err and "/27 [" in err and "perturbing" in err
    # exact: the same graphs, seeds and kernel calls; the bar only splits the perturbation into chunks
    np.testing.assert_array_equal(quiet.curves, shown.curves)
    np.testing.assert_array_equal(quiet.baseline, shown.baseline)
    two = gi.perturbation_study(graphs, n_graphs=25, n_steps=4, seed=1, progress=True, n_jobs=2)
    np.testing.assert_array_equal(quiet.curves, two.curves)
    capsys.readouterr()
    gi.perturbation_study(graphs, n_graphs=5, n_steps=2, seed=1, progress=None)  # stderr is no terminal here
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        gi.perturbation_study(graphs, n_graphs=5, n_steps=2, progress="yes")
