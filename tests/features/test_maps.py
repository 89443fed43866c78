"""GraphFeatures: one feature map for every kernel (the learned default, fixed members, combinations)."""

import pickle
import warnings

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone

import graphinvariants as gi
from graphinvariants.features import GraphFeatures, subset

#: Candidates that are all count members: the whole map is exact.
EXACT_MEMBERS = ("wl_label", "wloa_label", "histogram", "labelled_histogram_oa", "closed_histogram")


@pytest.fixture(scope="module")
def mutag(tu_load):
    return tu_load("MUTAG")


def _renumbered(G, seed):
    """``G`` with its nodes stored in another order and renamed."""
    rng = np.random.default_rng(seed)
    order = list(G.nodes)
    rng.shuffle(order)
    H = nx.Graph()
    H.add_nodes_from((100 + order.index(v), G.nodes[v]) for v in order)
    H.add_edges_from((100 + order.index(u), 100 + order.index(v), d) for u, v, d in G.edges(data=True))
    return H


def test_exact_members_give_the_kernel(mutag):
    kernel = gi.GraphKernel(members=EXACT_MEMBERS, bandwidths=())
    features = GraphFeatures(kernel=kernel, max_samples=None, seed=0).fit(mutag, mutag.y)
    assert features.approximate_ == [] and features.exact_weight_ == pytest.approx(1.0)
    F = features.transform(mutag)
    K = features.kernel_.transform(mutag)
    # the kernel divides each integer inner product by sqrt(n_G n_H) once, the features
    # divide each side by its norm: equal up to a few roundings of values <= 1
    np.testing.assert_allclose((F @ F.T).toarray(), K, rtol=0, atol=1e-13)
    np.testing.assert_allclose(F.multiply(F).sum(axis=1), 1.0, rtol=0, atol=1e-13)


def test_new_graphs_against_fitted_graphs_are_exact(mutag):
    kernel = gi.GraphKernel(members=EXACT_MEMBERS, bandwidths=())
    train, test = mutag[:120], mutag[120:]
    features = GraphFeatures(kernel=kernel, max_samples=None, seed=0).fit(train, train.y)
    cross = (features.transform(test) @ features.transform(train).T).toarray()
    # same tolerance as above (labels the fitted graphs lack add nothing to these pairs)
    np.testing.assert_allclose(cross, features.kernel_.transform(test), rtol=0, atol=1e-13)


def test_nystroem_error_falls_with_components(mutag):
    kernel = gi.GraphKernel(members=("power", "wl"), bandwidths=(1.0,))
    errors = []
    for m in (5, 40, 188):
        features = GraphFeatures(kernel=kernel, max_samples=None, n_landmarks=m, seed=0)
        F = features.fit_transform(mutag, mutag.y)
        K = features.kernel_.transform(mutag)
        errors.append(np.linalg.norm((F @ F.T).toarray() - K) / np.linalg.norm(K))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-12  # every graph a landmark: exact to rounding


def test_rows_do_not_depend_on_the_block(mutag):
    features = GraphFeatures(n_landmarks=50, seed=0, block_size=4096).fit(mutag, mutag.y)
    whole = features.transform(mutag)
    features.set_params(block_size=7)
    blocks = features.transform(mutag)
    assert features.approximate_  # the Nystroem product is part of it
    assert (whole != blocks).nnz == 0  # bit for bit


def test_fit_transform_embeds_the_exact_members_once(mutag, monkeypatch):
    from graphinvariants.embeddings.base import Functional
    from graphinvariants.embeddings.counts import CountFeatures

    kernel = gi.GraphKernel(members=EXACT_MEMBERS + ("power",), bandwidths=(1.0,))
    options = dict(kernel=kernel, n_landmarks=30, seed=0, block_size=23)
    calls = []
    original = Functional.as_embeddings

    def counting(self, items, *, what="graphs"):
        out = original(self, items, what=what)
        if isinstance(self, CountFeatures):
            calls.append((self, out.counts.shape[0]))
        return out

    def graphs_embedded(features):
        """Graphs embedded by each exact member's functional (by its label)."""
        return {m.name: sum(n for f, n in calls if f is m.functional) for m in features._exact}

    monkeypatch.setattr(Functional, "as_embeddings", counting)
    fitted = GraphFeatures(**options).fit(mutag, mutag.y)
    by_fit = graphs_embedded(fitted)
    expected = fitted.transform(mutag)
    calls.clear()
    features = GraphFeatures(**options)
    F = features.fit_transform(mutag, mutag.y)
    assert features.exact_ and features.approximate_  # both parts
    # the rows come from fit's embeddings of all graphs, 23 rows at a time: the same
    # bits as embedding each block again (the merged vocabulary is the same label set)
    assert F.shape == expected.shape and (F != expected).nnz == 0
    np.testing.assert_array_equal(F.indptr, expected.indptr)
    np.testing.assert_array_equal(F.indices, expected.indices)
    np.testing.assert_array_equal(F.data, expected.data)
    # fit_transform embeds with the exact members no more than fit does (transform used
    # to embed every graph again); a member that is also in the Nystroem part (its
    # Gaussian shape) is embedded there again, as transform needs
    nystroem = {id(f) for f in features._functionals.values()}
    only_exact = [m.name for m in features._exact if id(m.functional) not in nystroem]
    assert only_exact
    by_fit_transform = graphs_embedded(features)
    assert {k: by_fit_transform[k] for k in only_exact} == {k: by_fit[k] for k in only_exact}


def test_renumbering_invariance(mutag):
    graphs = [mutag[i] for i in range(40)]
    y = mutag.y[:40]
    features = GraphFeatures(n_landmarks=20, seed=0).fit(graphs, y)
    F = features.transform(graphs).toarray()
    G = features.transform([_renumbered(H, i) for i, H in enumerate(graphs)]).toarray()
    n_exact = F.shape[1] - features.normalization_.shape[1]
    np.testing.assert_array_equal(F[:, :n_exact], G[:, :n_exact])  # counts: integers, exact
    # the power kernel's moments are sums over nodes in another order: rounding only
    np.testing.assert_allclose(F[:, n_exact:], G[:, n_exact:], rtol=0, atol=1e-9)


def test_pickle_and_clone(mutag):
    features = GraphFeatures(n_landmarks=30, seed=0, max_samples=100).fit(mutag, mutag.y)
    F = features.transform(mutag[:20])
    again = pickle.loads(pickle.dumps(features))
    assert (again.transform(mutag[:20]) != F).nnz == 0
    copy = clone(features)
    assert copy.get_params() == features.get_params() and not hasattr(copy, "n_features_out_")
    G = copy.fit(mutag, mutag.y).transform(mutag[:20])  # same seed: the same map
    assert (G != F).nnz == 0


def test_linear_model_in_a_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    graphs = [nx.cycle_graph(n) for n in range(6, 30)] + [nx.star_graph(n) for n in range(5, 29)]
    y = [0] * 24 + [1] * 24
    model = make_pipeline(GraphFeatures(n_landmarks=10, seed=0), LinearSVC())
    assert model.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2]) == 1.0


def test_subset_keeps_the_type(mutag):
    assert len(subset(mutag, [3, 1])) == 2 and subset(mutag, [3]).y[0] == mutag.y[3]
    assert isinstance(subset(mutag.batch, [0, 1]), gi.GraphBatch)


def test_bad_input(mutag):
    graphs = [nx.cycle_graph(5)] * 12
    with pytest.raises(ValueError, match="one label per graph"):
        GraphFeatures().fit(graphs, [0, 1])
    with pytest.raises(ValueError, match=r"call fit\(graphs, y\), or name a fixed kernel"):
        GraphFeatures().fit(graphs)
    with pytest.raises(TypeError, match="kernel must be a kernel name or a GraphKernel"):
        GraphFeatures(kernel=3).fit(graphs, [0, 1] * 6)
    with pytest.raises(ValueError, match="unknown kernel 'WL'"):
        GraphFeatures(kernel="WL").fit(graphs)
    with pytest.raises(ValueError, match="n_landmarks"):
        GraphFeatures(n_landmarks=0).fit(graphs, [0, 1] * 6)
    with pytest.raises(TypeError, match="progress"):
        GraphFeatures(progress="yes").fit(graphs, [0, 1] * 6)
    with pytest.raises(ValueError, match="single label value"):
        GraphFeatures(max_samples=10, seed=0).fit(mutag, np.r_[1, np.zeros(187)])


@pytest.mark.slow
def test_rows_do_not_depend_on_blas_threads(mutag):
    """Dask workers run OpenBLAS on one thread; a product split among threads can
    change the last bits, so the Nystroem product always runs on one."""
    from threadpoolctl import threadpool_limits

    from graphinvariants.datasets import perturbed_copies

    graphs = perturbed_copies(mutag, 800, seed=0)  # enough landmarks for OpenBLAS to use threads
    features = GraphFeatures(n_landmarks=500, max_samples=800, seed=0).fit(graphs, graphs.y)
    assert features.normalization_.shape[1] > 300
    with threadpool_limits(limits=1, user_api="blas"):
        single = features.transform(graphs[:300])
    with threadpool_limits(limits=2, user_api="blas"):
        threaded = features.transform(graphs[:300])
    assert (single != threaded).nnz == 0


def test_networkx_and_igraph_give_the_same_rows(mutag):
    ig = pytest.importorskip("igraph")
    graphs = [mutag[i] for i in range(60)]
    as_igraph = [ig.Graph.from_networkx(G) for G in graphs]
    y = mutag.y[:60]
    features = GraphFeatures(n_landmarks=20, seed=0).fit(graphs, y)
    again = GraphFeatures(n_landmarks=20, seed=0).fit(as_igraph, y)
    assert features.exact_ == again.exact_ and features.approximate_ == again.approximate_
    assert (features.transform(graphs) != again.transform(as_igraph)).nnz == 0


# -- one map for every kernel ---------------------------------------------------------------


@pytest.mark.parametrize("kernel", ["wl:n_iter=3", "histogram:k=5", "wloa", "shortest_path"])
def test_a_count_member_is_mapped_exactly(mutag, kernel):
    features = GraphFeatures(kernel).fit(mutag)  # no y: a fixed kernel needs none
    assert features.approximate_ == [] and features.n_landmarks_ == 0 and features.weights_ == {features.exact_[0]: 1.0}
    F = features.transform(mutag)
    name, params = gi.kernels.parse_kernel_spec(kernel)
    K = gi.kernel_matrix(mutag, kernel=name, **params)
    # a sum of integer products divided once against the engine's cosine: rounding only
    np.testing.assert_allclose((F @ F.T).toarray(), K, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kernel", ["power", "power*histogram:histogram__k=9"])
def test_a_kernel_without_finite_map_is_nystroem_exact_on_its_landmarks(mutag, kernel):
    graphs = mutag[:40]
    features = GraphFeatures(kernel, n_landmarks=40, seed=0).fit(graphs)
    assert features.exact_ == [] and features.n_landmarks_ == 40
    F = features.transform(graphs)
    name, params = gi.kernels.parse_kernel_spec(kernel)
    K = gi.kernel_matrix(graphs, kernel=name, **params)
    # every graph is a landmark: F F^T = K K^+ K = K up to the eigenvalues dropped below 1e-12
    np.testing.assert_allclose((F @ F.T).toarray(), K, rtol=0, atol=1e-7)


def test_the_mean_map_s_random_features_are_its_rows(mutag):
    graphs = mutag[:30]
    features = GraphFeatures("meanmap:n_features=64,seed=5").fit(graphs)
    assert features.exact_ == ["meanmap"] and features.n_features_out_ == 64
    F = features.transform(graphs)
    K = gi.kernel_matrix(graphs, kernel="meanmap", n_features=64, seed=5)
    np.testing.assert_allclose((F @ F.T).toarray(), K, rtol=0, atol=1e-12)
    # without a seed of its own, the map is drawn with GraphFeatures' seed: reproducible
    a = GraphFeatures("meanmap:n_features=64", seed=1).fit(graphs).transform(graphs)
    b = GraphFeatures("meanmap:n_features=64", seed=1).fit(graphs).transform(graphs)
    assert (a != b).nnz == 0


def test_a_fixed_graph_kernel_object_is_mapped_as_its_name(mutag):
    by_object = GraphFeatures(gi.GraphKernel(kernel="wl", n_iter=2)).fit(mutag).transform(mutag[:10])
    by_name = GraphFeatures("wl:n_iter=2").fit(mutag).transform(mutag[:10])
    assert (by_object != by_name).nnz == 0


def test_weights_are_the_learned_kernel_s(mutag):
    features = GraphFeatures(n_landmarks=20, max_samples=100, seed=0).fit(mutag, mutag.y)
    assert features.weights_ == features.kernel_.weights_
    assert features.n_features_out_ == features.transform(mutag[:3]).shape[1]


def test_transform_block_is_transform(mutag):
    features = GraphFeatures("power*wl", n_landmarks=15, seed=0, block_size=7).fit(mutag[:60])
    whole = features.transform(mutag[:60])
    assert (whole[20:35] != features.transform_block(mutag[20:35])).nnz == 0


def test_params_clone_and_set_params():
    model = GraphFeatures("wl", n_landmarks=7, seed=2)
    assert model.get_params() == {"kernel": "wl", "n_landmarks": 7, "max_samples": 1000, "block_size": 4096,
                                  "progress": False, "seed": 2, "n_jobs": None}
    assert clone(model).set_params(n_landmarks=9).n_landmarks == 9


# -- the 0.2 names, deprecated ------------------------------------------------------------------


def test_learned_features_is_a_deprecated_name_of_the_same_map(mutag):
    with pytest.warns(FutureWarning, match="LearnedFeatures is deprecated.*GraphFeatures"):
        old = gi.LearnedFeatures(n_components=20, max_samples=100, seed=0)
    assert old.get_params()["n_components"] == 20 and "n_landmarks" not in old.get_params()
    with pytest.warns(FutureWarning):
        assert clone(old).get_params() == old.get_params()
    old.fit(mutag, mutag.y)
    new = GraphFeatures(n_landmarks=20, max_samples=100, seed=0).fit(mutag, mutag.y)
    assert old.n_components_ == new.n_landmarks_ == 20
    assert (old.transform(mutag) != new.transform(mutag)).nnz == 0
    with pytest.raises(ValueError, match="use GraphFeatures"):
        with pytest.warns(FutureWarning):
            gi.LearnedFeatures(kernel=gi.GraphKernel(kernel="wl")).fit(mutag, mutag.y)
    with pytest.raises(ValueError, match="n_components"):
        with pytest.warns(FutureWarning):
            gi.LearnedFeatures(n_components=0).fit(mutag, mutag.y)


@pytest.mark.parametrize("make", [lambda: gi.NystroemGraphKernel(n_components=3),
                                  lambda: gi.MeanMapFeatures(n_features=3),
                                  lambda: gi.LearnedFeatures()])
def test_the_old_names_warn_at_construction(make):
    with pytest.warns(FutureWarning, match="deprecated since 0.3.0 and goes in 0.4.0: use GraphFeatures"):
        make()


def _near_sizes(graphs_a, graphs_b):
    """A kernel from outside the library: a Gaussian of the node counts (unit diagonal, PSD)."""
    a = np.array([len(g) for g in graphs_a], dtype=float)
    b = np.array([len(g) for g in graphs_b], dtype=float)
    return np.exp(-np.subtract.outer(a, b) ** 2 / 50)


@pytest.mark.parametrize("members", ["callable", "grakel", "callable and wl_label"])
def test_external_members_are_mapped_by_nystroem(mutag, members):
    # issue 29, defect 2: a kernel with external members ended the whole fit in a bare
    # KeyError; they are mapped by the Nystroem part, from their own matrix against the
    # graphs the weights were learned on
    grakel = pytest.importorskip("grakel")
    members = {"callable": (_near_sizes,), "grakel": (grakel.ShortestPath(),),
               "callable and wl_label": (_near_sizes, "wl_label")}[members]
    graphs = mutag[:60]
    kernel = gi.GraphKernel(members=members, bandwidths=())
    features = GraphFeatures(kernel=kernel, max_samples=None, n_landmarks=60, seed=0).fit(graphs, graphs.y)
    external = "_near_sizes" if members[0] is _near_sizes else "grakel.ShortestPath"
    assert external in features.approximate_ and features.kernel_.weights_[external] > 0.5
    assert features.exact_ == (["wl_label"] if "wl_label" in members else [])
    F = features.transform(graphs)
    K = features.kernel_.transform(graphs)
    # every graph a landmark: exact but for the eigenvalues dropped (below 1e-12 of the
    # largest) and the rounding of the eigendecomposition
    assert np.linalg.norm((F @ F.T).toarray() - K) / np.linalg.norm(K) < 1e-11
    new = features.transform(mutag[60:70])
    assert new.shape == (10, features.n_features_out_)
    features.set_params(block_size=3)  # a row does not depend on its block, bit for bit
    assert (features.transform(mutag[60:70]) != new).nnz == 0


def test_mostly_unseen_labels_warn_once_per_call(mutag):
    # issue 29, friction 14: a graph whose labels no fitted graph has gets a row whose
    # inner product with itself is far below the kernel's 1 (0.146 for an edgeless
    # MUTAG-labelled graph), silently
    features = GraphFeatures(n_landmarks=20, max_samples=60, seed=0, block_size=1)
    features.fit(mutag[:60], mutag.y[:60])
    assert features.exact_
    edgeless = nx.Graph()
    edgeless.add_nodes_from((v, {"label": label}) for v, label in enumerate([0, 1, 2, 0, 0]))
    with pytest.warns(UserWarning, match=r"2 of the 3 graphs transformed have mostly labels that no graph given to "
                                         r"fit has: \d+% of their label counts") as caught:
        F = features.transform([edgeless, mutag[70], edgeless])
    assert len(caught) == 1 and caught[0].filename == __file__  # one per call, though 3 blocks
    self_products = (F @ F.T).diagonal()
    assert self_products[0] < 0.5 and self_products[1] == pytest.approx(1.0, abs=0.05)
    with pytest.warns(UserWarning, match="1 of the 1 graphs") as caught:
        features.transform_block([edgeless])
    assert len(caught) == 1 and caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        features.transform(mutag[60:100])  # graphs with the fitted labels: no warning


def test_no_label_warning_for_graphs_without_labels():
    # issue 38, friction 16: the first example of docs/search.rst warned "1 of the 1
    # graphs transformed have mostly labels ..." for unlabelled graphs (a star larger
    # than any fitted one: closed-walk counts no fitted graph has, not labels)
    import warnings

    graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(n) for n in range(5, 25)]
    y = [0] * 20 + [1] * 20
    features = gi.GraphFeatures(n_landmarks=10, seed=0).fit(graphs, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        features.transform([nx.star_graph(30)])
        gi.GraphFeatures("wl").fit(graphs).transform([nx.star_graph(30)])
    # graphs with labels no fitted graph has still warn
    labelled = [nx.relabel_nodes(g, {v: v for v in g}) for g in graphs]
    for g in labelled:
        nx.set_node_attributes(g, "C", "label")
    odd = nx.star_graph(6)
    nx.set_node_attributes(odd, "Xe", "label")
    with pytest.warns(UserWarning, match="mostly labels that no graph given to fit has"):
        gi.GraphFeatures("wl:node_label=label").fit(labelled).transform([odd])


def test_fewer_landmarks_than_asked_warns_and_names_say_what_they_are():
    # issue 38, friction 14: GraphFeatures("power", n_landmarks=500) on 188 graphs gave
    # 139 columns without a word, named graphfeatures0...
    graphs = [nx.gnp_random_graph(int(n), 0.3, seed=int(n)) for n in np.arange(30) + 8]
    with pytest.warns(UserWarning, match=r"n_landmarks=500.*30 graphs: 30 landmarks.*, and \d+ Nystroem columns"):
        power = gi.GraphFeatures("power", n_landmarks=500, seed=0).fit(graphs)
    assert power.n_landmarks_ == 30
    names = power.get_feature_names_out()
    assert len(names) == power.n_features_out_ and all(n.startswith("nystroem_") for n in names)
    mixed = gi.GraphFeatures("learned:members=wl+power", n_landmarks=10, seed=0).fit(graphs, [0, 1] * 15)
    names = mixed.get_feature_names_out()
    assert len(names) == mixed.n_features_out_
    assert {n.rsplit("_", 1)[0] for n in names} == set(mixed.exact_) | ({"nystroem"} if mixed.approximate_ else set())
