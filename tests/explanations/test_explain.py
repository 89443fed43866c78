"""gi.explain and gi.explain_pair: completeness, exactness against explicit loops,
renumbering invariance, pairs, and the errors for models it does not take."""

import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

import graphinvariants as gi
from graphinvariants.embeddings import WeisfeilerLehman
from graphinvariants.explanations import node_counts
from graphinvariants.explanations._sampled import induced_subgraphs
from tests.conftest import brute_force_shapley, explanation_data, labelled

# Completeness holds by construction (a sum of node terms that add up to the term, and
# telescoping marginals); what is left is rounding of sums of a few hundred floats.
RTOL = 1e-8


GRAPHS, Y, TARGET, NEW = explanation_data(cycle_anchor=0)


def _check_complete(result, model, graphs):
    output = getattr(model, result.method)(graphs)
    totals = result.base_value + np.array([v.sum() for v in result.node_values])
    np.testing.assert_allclose(totals, output, rtol=RTOL, atol=RTOL * max(1.0, np.abs(output).max()))
    for values, graph in zip(result.node_values, graphs):
        assert values.shape == (graph.number_of_nodes(),)
    for exact, sampled, values in zip(result.exact_values, result.sampled_values, result.node_values):
        np.testing.assert_array_equal(exact + sampled, values)


MODELS = {
    "learned+svc": (lambda: Pipeline([("k", gi.GraphKernel(seed=0)), ("m", SVC(kernel="precomputed"))]), Y),
    "learned+krr": (lambda: Pipeline([("k", gi.GraphKernel(seed=0, bandwidths=(1.0,), powers=(1, 2))),
                                      ("m", KernelRidge(kernel="precomputed", alpha=0.1))]), TARGET),
    "wl+krr": (lambda: Pipeline([("k", gi.GraphKernel(kernel="wl", n_iter=2, node_label="label")),
                                 ("m", KernelRidge(kernel="precomputed"))]), TARGET),
    "power+svr": (lambda: Pipeline([("k", gi.PowerKernel(k=3)), ("m", SVR(kernel="precomputed"))]), TARGET),
    "wl+histogram": (lambda: Pipeline([("k", gi.GraphKernel(kernel="wl+histogram", k=3)),
                                       ("m", SVC(kernel="precomputed"))]), Y),
    "power*wl": (lambda: Pipeline([("k", gi.GraphKernel(kernel="power*wl")), ("m", SVC(kernel="precomputed"))]), Y),
    "wloa": (lambda: Pipeline([("k", gi.GraphKernel(kernel="wloa", node_label="label", edge_label="label")),
                               ("m", SVC(kernel="precomputed"))]), Y),
    "rooted": (lambda: Pipeline([("k", gi.GraphKernel(kernel="rooted_subgraph", node_label="label")),
                                 ("m", SVC(kernel="precomputed"))]), Y),
    "labelled_histogram_oa": (lambda: Pipeline([("k", gi.GraphKernel(kernel="labelled_histogram_oa",
                                                                     node_label="label", edge_label="label")),
                                                ("m", SVC(kernel="precomputed"))]), Y),
    "closed_histogram": (lambda: Pipeline([("k", gi.GraphKernel(kernel="closed_histogram", k=4)),
                                           ("m", SVC(kernel="precomputed"))]), Y),
    "shortest_path": (lambda: Pipeline([("k", gi.GraphKernel(kernel="shortest_path", node_label="label")),
                                        ("m", SVC(kernel="precomputed"))]), Y),
    "features+logistic": (lambda: Pipeline([("k", gi.GraphFeatures(n_landmarks=10, seed=0)),
                                            ("m", LogisticRegression())]), Y),
    "features+ridge": (lambda: Pipeline([
        ("k", gi.GraphFeatures(kernel=gi.GraphKernel(seed=0, bandwidths=()), n_landmarks=10, seed=0)),
        ("m", Ridge())]), TARGET),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_complete_on_every_supported_model(name):
    make, target = MODELS[name]
    model = make().fit(GRAPHS, target)
    result = gi.explain(model, NEW, n_permutations=8, seed=0)
    _check_complete(result, model, NEW)
    assert set(result.member_values) == set(result.exact_members) | set(result.sampled_members)
    for exact, errors in zip(result.exact_values, result.node_errors):
        assert np.all(errors >= 0)
    if not result.sampled_members and not result.fallback:
        assert result.exact_share == 1.0
        assert all(np.all(v == 0) for v in result.sampled_values)


def test_the_members_are_split_as_documented():
    model = MODELS["wl+histogram"][0]().fit(GRAPHS, Y)
    result = gi.explain(model, NEW)
    assert len(result.exact_members) == 2 and not result.sampled_members  # a mean of two count members
    model = MODELS["power*wl"][0]().fit(GRAPHS, Y)
    result = gi.explain(model, NEW, n_permutations=4, seed=0)
    assert result.exact_members == ["power*wl"] and not result.sampled_members  # a product: a path integral
    model = Pipeline([("k", gi.GraphKernel(kernel="shortest_path")), ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y)
    result = gi.explain(model, NEW, n_permutations=4, seed=0)
    assert result.sampled_members == ["shortest_path"] and not result.exact_members  # node pairs: sampled
    model = MODELS["learned+krr"][0]().fit(GRAPHS, TARGET)
    result = gi.explain(model, NEW, n_permutations=4, seed=0)
    chosen = model.named_steps["k"].combination_.chosen
    for label, parts, shape, _ in chosen:
        expected = "attributes" not in parts  # count members and the power kernel, in every shape
        assert (label in result.exact_members) == expected, label
    repr(result)
    assert result.asdict()["method"] == "predict" and len(result.asdict(0)["node_values"]) == 7


# -- exactness against explicit loops ---------------------------------------------------------
def _wl_node_features(G, n_iter, label=None):
    """Each node's WL colours of rounds 0..n_iter, as nested tuples, by explicit loops."""
    colour = {v: (G.nodes[v][label] if label else G.degree(v)) for v in G}
    features = {v: [(0, colour[v])] for v in G}
    for h in range(1, n_iter + 1):
        colour = {v: (colour[v], tuple(sorted((colour[u] for u in G[v]), key=repr))) for v in G}
        for v in G:
            features[v].append((h, colour[v]))
    return {v: Counter(f) for v, f in features.items()}


def _walk_node_features(G, k):
    """Each node's walk-count profile prefixes (A^t 1)_v, t = 1..k, by matrix powers."""
    nodes = list(G)
    A = nx.to_numpy_array(G, nodelist=nodes).astype(np.int64)
    columns, counts = [], np.ones(len(nodes), dtype=np.int64)
    for _ in range(k):
        counts = A @ counts
        columns.append(counts)
    profile = np.column_stack(columns)
    return {v: Counter((t, tuple(profile[i, : t + 1])) for t in range(k)) for i, v in enumerate(nodes)}


def _rooted_node_features(G, radius, label, classes):
    """Each node's rooted neighbourhoods of radius 0..radius, as isomorphism classes found by
    comparing with every class seen so far in any graph (``classes``, shared;
    networkx.is_isomorphic, root and labels matched)."""
    features = {}
    for v in G:
        features[v] = Counter()
        for r in range(radius + 1):
            ball = nx.Graph(nx.ego_graph(G, v, radius=r))
            for u in ball:
                ball.nodes[u]["key"] = (u == v, G.nodes[u][label])
            for c, other in enumerate(classes):
                if nx.is_isomorphic(ball, other, node_match=lambda a, b: a["key"] == b["key"]):
                    break
            else:
                classes.append(ball)
                c = len(classes) - 1
            features[v][(r, c)] += 1
    return features


def _brute_values(node_features, train_features, alpha, assignment=False):
    """sum_j alpha_j * share of node v in K(G, G_j), by explicit loops over the features."""
    total = Counter()
    for f in node_features.values():
        total.update(f)
    out = []
    for f in node_features.values():
        value = 0.0
        for a, other in zip(alpha, train_features):
            if assignment:
                norm = math.sqrt(sum(total.values()) * sum(other.values()))
                value += a * sum(n * min(total[key], other[key]) / total[key] for key, n in f.items()) / norm
            else:
                norm = math.sqrt(sum(c * c for c in total.values()) * sum(c * c for c in other.values()))
                value += a * sum(n * other[key] for key, n in f.items()) / norm
        out.append(value)
    return np.array(out)


def _graph_features(node_features):
    total = Counter()
    for f in node_features.values():
        total.update(f)
    return total


@pytest.mark.parametrize("kernel, features, assignment", [
    (dict(kernel="wl", n_iter=3), lambda G: _wl_node_features(G, 3), False),
    (dict(kernel="wl", n_iter=2, node_label="label"), lambda G: _wl_node_features(G, 2, "label"), False),
    (dict(kernel="histogram", k=4), lambda G: _walk_node_features(G, 4), False),
    (dict(kernel="wloa", n_iter=2, node_label="label"), lambda G: _wl_node_features(G, 2, "label"), True),
    (dict(kernel="rooted_subgraph", radius=2, node_label="label"),
     lambda G, classes=[]: _rooted_node_features(G, 2, "label", classes), False),
])
def test_count_members_exact_against_explicit_loops(kernel, features, assignment):
    model = Pipeline([("k", gi.GraphKernel(**kernel)), ("m", KernelRidge(kernel="precomputed"))]).fit(GRAPHS, TARGET)
    alpha = model.named_steps["m"].dual_coef_.reshape(-1)
    result = gi.explain(model, NEW)
    train = [_graph_features(features(G)) for G in GRAPHS]
    for G, values in zip(NEW, result.node_values):
        expected = _brute_values(features(G), train, alpha, assignment)
        np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-12)


def test_node_counts_sum_to_the_counts():
    wl = WeisfeilerLehman(n_iter=3, node_label="label", edge_label="label")
    batch = wl.graph_batch(NEW)
    nodes = node_counts(batch, wl)
    graphs = wl.embed(batch)
    merged_nodes, merged_graphs = wl.merge(nodes, graphs)
    owner = np.repeat(np.arange(len(NEW)), batch.sizes)
    summed = np.array([merged_nodes.toarray()[owner == g].sum(axis=0) for g in range(len(NEW))])
    np.testing.assert_array_equal(summed, merged_graphs.toarray())  # integer counts: equal exactly
    with pytest.raises(TypeError, match="not sums of per-node counts"):
        node_counts(NEW, gi.kernels.make_functional("shortest_path"))


# -- sampled part ---------------------------------------------------------------------------
def test_induced_subgraphs_match_networkx():
    G = NEW[0]
    batch = gi.as_graph_batch([G], node_label="label", edge_label="label")
    masks = np.array([[1, 0, 1, 1, 0, 1, 1], [1, 1, 1, 1, 1, 1, 1], [0, 0, 0, 1, 0, 0, 0]], dtype=bool)
    sub = induced_subgraphs(batch, 0, masks)
    nodes = list(G)
    expected = gi.as_graph_batch([G.subgraph([nodes[i] for i in np.flatnonzero(m)]) for m in masks],
                                 node_label="label", edge_label="label")
    assert (sub.matrix != expected.matrix).nnz == 0
    np.testing.assert_array_equal(sub.offsets, expected.offsets)
    np.testing.assert_array_equal(sub.node_labels, expected.node_labels)
    np.testing.assert_array_equal(sub.edge_labels, expected.edge_labels)


def test_all_orders_give_the_shapley_values_of_the_subsets():
    """With all orders (5! = 120), the sampled part is the Shapley value computed from
    its definition over subsets, each subset's value from networkx's induced subgraph."""
    model = Pipeline([("k", gi.GraphKernel(kernel="shortest_path")), ("m", SVR(kernel="precomputed"))]).fit(GRAPHS, TARGET)
    G = labelled(nx.lollipop_graph(3, 2), 7)
    result = gi.explain(model, [G], n_permutations=120, seed=0)
    assert np.all(result.node_errors[0] == 0)
    nodes, n = list(G), G.number_of_nodes()
    base = model.named_steps["m"].intercept_[0]

    def value(S):
        return 0.0 if not S else model.predict([G.subgraph([nodes[i] for i in S])])[0] - base

    expected = brute_force_shapley(n, value)
    np.testing.assert_allclose(result.node_values[0], expected, rtol=1e-9, atol=1e-12)


def test_sampled_values_follow_the_seed_and_their_error():
    model = Pipeline([("k", gi.GraphKernel(kernel="shortest_path")), ("m", SVR(kernel="precomputed"))]).fit(GRAPHS, TARGET)
    a = gi.explain(model, NEW, n_permutations=20, seed=3)
    b = gi.explain(model, NEW, n_permutations=20, seed=3)
    for x, y in zip(a.node_values, b.node_values):
        np.testing.assert_array_equal(x, y)
    assert all(e.max() > 0 for e in a.node_errors)
    long = gi.explain(model, NEW, n_permutations=160, seed=1)
    # the standard errors say how far 20 orders are from 160: within 4 of them, together
    for short, errors, better, long_errors in zip(a.node_values, a.node_errors, long.node_values, long.node_errors):
        assert np.all(np.abs(short - better) <= 4 * np.hypot(errors, long_errors) + 1e-9)
        assert long_errors.mean() < errors.mean()  # eight times the orders: about a third of the error


# -- renumbering ------------------------------------------------------------------------------
def _renumbered(G, seed):
    order = list(np.random.default_rng(seed).permutation(list(G)))
    H = nx.Graph()
    for v in order:  # the nodes really stored in the new order, under new names
        H.add_node(f"n{v}", **G.nodes[v])
    for u, v, data in G.edges(data=True):
        H.add_edge(f"n{v}", f"n{u}", **data)
    return H, [list(G).index(int(name[1:])) for name in H]


@pytest.mark.parametrize("name", ["learned+svc", "wloa", "features+logistic"])
def test_renumbering_moves_the_values_with_the_nodes(name):
    make, target = MODELS[name]
    model = make().fit(GRAPHS, target)
    small = [labelled(nx.path_graph(5), 9), labelled(nx.cycle_graph(5), 10)]
    moved = [_renumbered(G, i) for i, G in enumerate(small)]
    # 5! orders: the sampled part is exact too, so both parts must follow the nodes
    a = gi.explain(model, small, n_permutations=120, seed=0)
    b = gi.explain(model, [H for H, _ in moved], n_permutations=120, seed=1)
    for x, y, (_, where) in zip(a.node_values, b.node_values, moved):
        np.testing.assert_allclose(y, x[where], rtol=1e-9, atol=1e-12)


# -- pairs ------------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel, params", [("wl", {"n_iter": 2}), ("wloa", {"node_label": "label"}),
                                            ("histogram", {"k": 3}), ("power", {"k": 3}),
                                            ("power*histogram", {"k": 3})])
def test_pair_values_add_up_to_the_kernel(kernel, params):
    G, H = NEW[0], NEW[1]
    pair = gi.explain_pair(G, H, kernel=kernel, n_permutations=8, seed=0, **params)
    value = gi.kernel_matrix([G], [H], kernel=kernel, **params)[0, 0]
    assert pair.value == pytest.approx(value, rel=1e-12)
    assert pair.values_G.sum() == pytest.approx(value, rel=RTOL, abs=1e-12)
    assert pair.values_H.sum() == pytest.approx(value, rel=RTOL, abs=1e-12)
    assert pair.values_G.shape == (7,) and pair.values_H.shape == (8,)
    assert pair.exact  # count members and the power kernel (integrated gradients): deterministic
    assert set(pair.asdict()) >= {"value", "values_G", "values_H"}


def test_pair_of_a_graph_with_itself_is_its_nodes_share_of_its_norm():
    G = NEW[2]
    pair = gi.explain_pair(G, G, kernel="wl", n_iter=1)
    np.testing.assert_allclose(pair.values_G, pair.values_H)
    assert pair.value == 1.0


# -- errors -----------------------------------------------------------------------------------
def test_clear_errors_for_models_it_does_not_take():
    with pytest.raises(NotFittedError):
        gi.explain(Pipeline([("k", gi.GraphKernel(kernel="wl")), ("m", SVC(kernel="precomputed"))]), NEW)
    with pytest.raises(TypeError, match="first step must be a graph kernel"):
        gi.explain(Pipeline([("s", StandardScaler()), ("m", Ridge())]).fit(np.eye(3), [0, 1, 2]), NEW)
    with pytest.raises(TypeError, match="fitted scikit-learn Pipeline"):
        gi.explain(SVC(), NEW)
    model = Pipeline([("k", gi.GraphKernel(kernel="wl")), ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y)
    with pytest.raises(TypeError, match="single"):
        gi.explain(model, NEW[0])
    with pytest.raises(ValueError, match="n_permutations"):
        gi.explain(model, NEW, n_permutations=0)
    with pytest.raises(TypeError, match="seed"):
        gi.explain(model, NEW, seed="x")
    three = Pipeline([("k", gi.GraphKernel(kernel="wl")), ("m", SVC(kernel="precomputed"))])
    three.fit(GRAPHS, np.arange(len(GRAPHS)) % 3)
    with pytest.raises(ValueError, match="3 classes"):
        gi.explain(three, NEW)
    with pytest.raises(ValueError, match="two steps"):
        gi.explain(Pipeline([("k", gi.GraphKernel(kernel="wl")), ("x", "passthrough"),
                             ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y), NEW)
    with pytest.raises(TypeError, match="one graph"):
        gi.explain_pair(NEW, NEW[0])


def test_no_graph_and_a_one_graph_slice_get_our_own_errors(tu_load):
    model = Pipeline([("k", gi.GraphKernel(kernel="wl")), ("m", SVC(kernel="precomputed"))]).fit(GRAPHS, Y)
    for empty in ([], (), np.array([], dtype=object), gi.as_graph_batch(GRAPHS).take([])):
        with pytest.raises(ValueError, match=r"graphs is empty: explain needs at least one graph to explain"):
            gi.explain(model, empty)
    mutag = tu_load("MUTAG")
    for one in (mutag[0:1], gi.as_graph_batch([NEW[0]]), [NEW[0]]):
        with pytest.raises(TypeError, match=r"H must be one graph, got a collection of 1 graph .*take one graph by "
                                            r"its position.*explain\(\) takes collections"):
            gi.explain_pair(NEW[0], one)
    with pytest.raises(TypeError, match=r"G must be one graph, got a collection of 1 graph \(TUDataset .*\): "
                                        r"a slice such as mutag\[0:1\] is a collection; take one graph by its "
                                        r"position, mutag\[0\]"):
        gi.explain_pair(mutag[0:1], NEW[0])
    pair = gi.explain_pair(mutag[0], mutag[1], node_label="label")  # one graph each: fine
    assert 0 < pair.value <= 1


# -- pictures -------------------------------------------------------------------------------
def test_node_values_display_colours_nodes_around_zero():
    plt = pytest.importorskip("matplotlib.pyplot")
    model = MODELS["wl+krr"][0]().fit(GRAPHS, TARGET)
    result = gi.explain(model, NEW)
    display = gi.NodeValuesDisplay.from_explanation(result, NEW, 1).plot()
    np.testing.assert_array_equal(display.nodes_.get_array(), result.node_values[1])
    norm = display.nodes_.norm
    assert norm.vcenter == 0 and norm.vmin == -norm.vmax == -np.abs(result.node_values[1]).max()
    assert display.figure_ is display.ax_.figure and display.colorbar_ is not None
    assert "predict" in display.ax_.get_title()
    with pytest.raises(IndexError, match=r"index must be an int from -3 to 2 .*got 3"):
        gi.NodeValuesDisplay.from_explanation(result, NEW, 3)
    pair = gi.explain_pair(NEW[0], NEW[1], kernel="wl", n_iter=2)
    both = gi.PairValuesDisplay.from_explanation(pair, NEW[0], NEW[1]).plot()
    assert len(both.ax_) == 2
    with pytest.raises(ValueError, match="one per node"):
        gi.PairValuesDisplay.from_explanation(pair, NEW[1], NEW[0])
    with pytest.raises(ValueError, match="one per node"):
        gi.NodeValuesDisplay(NEW[0], np.zeros(3))
    _, ax = plt.subplots()
    assert gi.NodeValuesDisplay(NEW[0], np.zeros(7)).plot(ax=ax, colorbar=False).ax_ is ax  # all zero: still drawn
    plt.close("all")


def test_node_values_display_draws_the_molecule():
    pytest.importorskip("rdkit")
    plt = pytest.importorskip("matplotlib.pyplot")
    from graphinvariants.datasets import from_smiles, to_mol

    G = from_smiles("c1ccccc1[N+](=O)[O-]")
    values = np.arange(G.number_of_nodes()) - 4.0
    display = gi.NodeValuesDisplay(G, values).plot(mol=to_mol(G))
    assert display.image_.get_array().ndim == 3 and display.colorbar_.norm.vcenter == 0
    with pytest.raises(ValueError, match="atoms"):
        gi.NodeValuesDisplay(G, values).plot(mol=to_mol(from_smiles("CCO")))
    plt.close("all")


def test_pair_display_shares_one_scale():
    plt = pytest.importorskip("matplotlib.pyplot")
    pair = gi.explain_pair(NEW[0], NEW[1], kernel="wl", n_iter=2)
    display = gi.PairValuesDisplay(NEW[0], NEW[1], pair).plot()
    assert len(display.ax_) == 2
    assert display.nodes_[0].norm is display.nodes_[1].norm
    np.testing.assert_array_equal(display.nodes_[1].get_array(), pair.values_H)
    plt.close("all")


def test_to_mol_round_trips_and_reads_the_tu_codes():
    Chem = pytest.importorskip("rdkit.Chem")
    from graphinvariants.datasets import TU_MOLECULES, from_smiles, to_mol

    for smiles in ["c1ccccc1N", "CC(=O)Cl", "C#N", "O=[N+]([O-])c1ccc(F)cc1"]:
        assert Chem.MolToSmiles(to_mol(from_smiles(smiles))) == Chem.CanonSmiles(smiles)
    atoms, bonds = TU_MOLECULES["Mutagenicity"]
    G = nx.Graph()
    G.add_node(0, label=4)  # N
    G.add_node(1, label=1)  # O
    G.add_node(2, label=1)
    G.add_node(3, label=0)  # C
    G.add_edge(0, 1, label=1)
    G.add_edge(0, 2, label=0)
    G.add_edge(0, 3, label=0)
    mol = to_mol(G, atoms=atoms, bonds=bonds)  # a nitro group drawn without charges: kept, not refused
    assert [a.GetSymbol() for a in mol.GetAtoms()] == ["N", "O", "O", "C"]
    with pytest.raises(ValueError, match="bond type"):
        to_mol(G, atoms=atoms)


@pytest.mark.parametrize("kernel", ["wl", "histogram_oa", "power"])
def test_features_of_a_fixed_kernel_are_explained(kernel):
    # GraphFeatures maps fixed kernels too (issue 30); explain reads them all (issue 37)
    model = Pipeline([("k", gi.GraphFeatures(kernel, n_landmarks=12, seed=0)), ("m", Ridge())]).fit(GRAPHS, TARGET)
    result = gi.explain(model, NEW, n_permutations=4, seed=0)
    _check_complete(result, model, NEW)
    assert (result.exact_members == [kernel]) == (kernel != "power")


def test_features_with_random_columns_are_refused_by_name():
    model = Pipeline([("k", gi.GraphFeatures("meanmap:n_features=20", seed=0)), ("m", Ridge())]).fit(GRAPHS, TARGET)
    with pytest.raises(TypeError, match="random features"):
        gi.explain(model, NEW)


def test_no_warning_about_the_subgraphs_taken():
    """The Nystroem part is evaluated on subgraphs: their labels are no business of the
    user's, so no warning about them (one per explained graph before)."""
    import warnings

    model = MODELS["features+logistic"][0]().fit(GRAPHS, Y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gi.explain(model, GRAPHS[:3], n_permutations=4, seed=0)
    assert not [w for w in caught if "labels that no graph" in str(w.message)]


def test_pairs_of_the_learned_default():
    model = MODELS["learned+krr"][0]().fit(GRAPHS, TARGET)
    G, H = NEW[0], NEW[1]
    pair = gi.explain_pair(G, H, kernel=model.named_steps["k"])
    c = model.named_steps["k"].combination_
    needed = {p for _, parts, _, _ in c.chosen for p in parts}
    grams = {p: gi.kernels.pairwise_kernels(c.functionals[p].graph_batch([G]), c.functionals[p].graph_batch([H]),
                                            functional=c.functionals[p]) for p in needed}
    assert pair.value == pytest.approx(float(c.combine(grams)[0, 0]), rel=1e-12)
    expected = gi.explain_pair(G, H, kernel=model.named_steps["k"], seed=1)
    np.testing.assert_array_equal(pair.values_G, expected.values_G)
    assert pair.base_value + pair.values_G.sum() == pytest.approx(pair.value, abs=1e-9)
    assert pair.base_value + pair.values_H.sum() == pytest.approx(pair.value, abs=1e-9)
    with pytest.raises(ValueError, match="fitted GraphKernel"):
        gi.explain_pair(G, H, kernel="learned")
    with pytest.raises(ValueError, match="fitted GraphKernel of the learned default"):
        gi.explain_pair(G, H, kernel=gi.GraphKernel())


def test_node_values_display_labels_atoms_by_element(tu_dir):
    """A TU molecule's integer codes are drawn as element symbols (MUTAG's table), a
    molecule from SMILES by its symbols, any other graph by its labels as before."""
    pytest.importorskip("matplotlib.pyplot")
    from graphinvariants.datasets import from_smiles

    G = gi.load_tu("MUTAG", data_home=tu_dir, download=False)[0]
    display = gi.NodeValuesDisplay(G, np.arange(G.number_of_nodes(), dtype=float)).plot(colorbar=False)
    texts = sorted({t.get_text() for t in display.ax_.texts})
    assert texts == ["C", "N", "O"]
    smiles = gi.NodeValuesDisplay(from_smiles("CCS"), np.ones(3)).plot(colorbar=False)
    assert sorted(t.get_text() for t in smiles.ax_.texts) == ["C", "C", "S"]
    plain = nx.path_graph(3)
    nx.set_node_attributes(plain, {0: "a", 1: "b", 2: "c"}, "label")
    drawn = gi.NodeValuesDisplay(plain, np.ones(3)).plot(colorbar=False)
    assert sorted(t.get_text() for t in drawn.ax_.texts) == ["a", "b", "c"]


def test_the_displays_take_the_molecules_explain_took():
    """Issue 52 item 11: the SMILES strings (and RDKit molecules) that explain and
    explain_pair take are drawn too, atoms in the order their values are in; a graph
    that is none of these is named as the graph, not blamed on the values."""
    pytest.importorskip("rdkit")
    plt = pytest.importorskip("matplotlib.pyplot")
    from rdkit import Chem

    smiles = ["CCO", "CCN", "CCCO", "OCC(C)O", "CC(=O)O", "CCS", "c1ccccc1O", "NCC(=O)O"]
    model = Pipeline([("k", gi.GraphKernel(kernel="wl", n_iter=1)), ("m", KernelRidge(kernel="precomputed"))])
    model.fit(smiles[:6], [0.1, 0.4, 0.2, 0.6, 0.9, 0.3])
    result = gi.explain(model, smiles[6:])
    phenol = gi.NodeValuesDisplay.from_explanation(result, smiles[6:], 0).plot(colorbar=False)
    # exact by construction: the values are handed to matplotlib as the colour array, no arithmetic
    np.testing.assert_array_equal(phenol.nodes_.get_array(), result.node_values[0])
    assert sorted(t.get_text() for t in phenol.ax_.texts) == ["C"] * 6 + ["O"]
    as_array = gi.NodeValuesDisplay.from_explanation(result, np.array(smiles[6:]), -1)
    as_mol = gi.NodeValuesDisplay(Chem.MolFromSmiles("NCC(=O)O"), result.node_values[1])
    np.testing.assert_array_equal(as_array.values, as_mol.values)
    assert [d["label"] for _, d in as_mol.graph.nodes(data=True)] == ["N", "C", "C", "O", "O"]
    pair = gi.explain_pair("OCC(C)O", "CCCO", kernel="wl", n_iter=1)
    both = gi.PairValuesDisplay.from_explanation(pair, "OCC(C)O", "CCCO").plot(colorbar=False)
    assert [len(a.collections[-1].get_offsets()) for a in both.ax_] == [5, 4]
    with pytest.raises(TypeError, match=r"^graphs\[1\] must be the graph explained.*got builtins.int"):
        gi.NodeValuesDisplay.from_explanation(result, [0, 1], 1)
    with pytest.raises(TypeError, match=r"^graph must be the graph explained"):
        gi.NodeValuesDisplay(2.5, [1.0])
    with pytest.raises(TypeError, match=r"^H must be the graph explained"):
        gi.PairValuesDisplay.from_explanation(pair, "OCC(C)O", None)
    with pytest.raises(ValueError, match=r"^values: 4 values for a graph of 3 nodes"):
        gi.NodeValuesDisplay("CCO", np.zeros(4))
    plt.close("all")


def test_node_labels_contrast_with_their_node():
    """Issue 52 item 18: a label is white on a dark node and black on a light one,
    whatever the colour map."""
    plt = pytest.importorskip("matplotlib.pyplot")
    G = nx.path_graph(5)
    nx.set_node_attributes(G, dict(enumerate("abcde")), "label")
    values = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    colour = lambda d: {t.get_text(): t.get_color() for t in getattr(d, "ax_", d).texts}  # noqa: E731
    diverging = gi.NodeValuesDisplay(G, values).plot(colorbar=False)  # RdBu_r: dark ends, white middle
    assert colour(diverging) == {"a": "white", "b": "black", "c": "black", "d": "black", "e": "white"}
    viridis = gi.NodeValuesDisplay(G, values).plot(cmap="viridis", colorbar=False)  # dark purple to yellow
    assert colour(viridis)["a"] == "white" and colour(viridis)["e"] == "black"
    # two graphs on one scale: the darkest node of either is the one drawn white
    P = nx.path_graph(3)
    nx.set_node_attributes(P, dict(enumerate("xyz")), "label")
    pair = gi.PairExplanation(1.0, np.array([0.2, 0.0, 2.0]), np.array([-2.0, 0.1, 0.0]), np.zeros(3), np.zeros(3),
                              "wl", True)
    both = gi.PairValuesDisplay(P, P, pair).plot(colorbar=False)
    assert [colour(both.ax_[0]), colour(both.ax_[1])] == [{"x": "black", "y": "black", "z": "white"},
                                                          {"x": "white", "y": "black", "z": "black"}]
    plt.close("all")
