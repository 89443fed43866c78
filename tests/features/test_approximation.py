import igraph as ig
import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import graphinvariants as gi
from graphinvariants.embeddings import WalkHistogram
from graphinvariants.kernels import pairwise_kernels

#: NystroemGraphKernel and MeanMapFeatures are deprecated (GraphFeatures); their behaviour is kept for one release
pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated since 0.3.0:FutureWarning")


@pytest.fixture(scope="module")
def graphs():
    out = [nx.gnp_random_graph(20 + i % 9, 0.15, seed=i) for i in range(25)]
    out += [nx.barabasi_albert_graph(25, 2, seed=i) for i in range(25)]
    return out


@pytest.mark.parametrize("kernel, k, kernel_params", [("power", 5, None), ("power", 3, {"ridge": 1e-9}), ("histogram", 3, None)])
def test_all_landmarks_reproduce_the_kernel_matrix(graphs, kernel, k, kernel_params):
    model = gi.NystroemGraphKernel(kernel=kernel, k=k, kernel_params=kernel_params, n_components=len(graphs), seed=0)
    features = model.fit(graphs).transform(graphs)
    K = gi.kernel_matrix(graphs, kernel=kernel, k=k, **(kernel_params or {}))
    assert features.shape == (len(graphs), len(graphs))
    np.testing.assert_allclose(features @ features.T, K, rtol=0, atol=1e-8)
    # new graphs: inner products with the training features are the cross kernel
    new = [nx.gnp_random_graph(22, 0.2, seed=100 + i) for i in range(5)]
    np.testing.assert_allclose(
        model.transform(new) @ features.T, gi.kernel_matrix(new, graphs, kernel=kernel, k=k, **(kernel_params or {})),
        rtol=0, atol=1e-8,
    )


@pytest.mark.parametrize("kernel, params", [
    ("wl", {"n_iter": 2}), ("power*histogram", {"histogram__k": 3}), ("power+wl", {}), ("power*histogram:histogram__k=3", {}),
])
def test_other_kernels_and_combinations(graphs, kernel, params):
    """k goes to the members that take it; "wl" has none and ignores it."""
    model = gi.NystroemGraphKernel(kernel=kernel, k=4, kernel_params=params, n_components=len(graphs), seed=0)
    features = model.fit_transform(graphs)
    expected = gi.kernel_matrix(graphs, kernel=kernel, **({"k": 4} if kernel != "wl" else {}), **params)
    np.testing.assert_allclose(features @ features.T, expected, rtol=0, atol=1e-8)
    if "histogram" in kernel:
        assert [f.k for f in model._functional().functionals] == [4, 3]


def test_node_labels_reach_the_landmarks(graphs):
    labelled = [G.copy() for G in graphs]
    for i, G in enumerate(labelled):
        nx.set_node_attributes(G, {u: (u * (i + 1)) % 3 for u in G}, "atom")
    model = gi.NystroemGraphKernel(kernel="wl", kernel_params={"node_label": "atom"}, n_components=len(graphs), seed=0)
    features = model.fit_transform(labelled)
    K = gi.kernel_matrix(labelled, kernel="wl", node_label="atom")
    assert not np.allclose(K, gi.kernel_matrix(graphs, kernel="wl"))
    np.testing.assert_allclose(features @ features.T, K, rtol=0, atol=1e-8)


def test_features_follow_the_nystroem_formula(graphs):
    model = gi.NystroemGraphKernel(n_components=12, seed=3).fit(graphs)
    idx = model.component_indices_
    assert idx.shape == (12,) and len(set(idx.tolist())) == 12
    K = gi.kernel_matrix(graphs)
    K_mm = K[np.ix_(idx, idx)]
    np.testing.assert_allclose(model.normalization_ @ K_mm @ model.normalization_.T, np.eye(12), atol=1e-8)
    np.testing.assert_allclose(model.transform(graphs), K[:, idx] @ model.normalization_.T, rtol=0, atol=1e-12)
    assert len(model.components_) == 12
    # exact: a graph's invariants do not depend on the other graphs of its batch
    np.testing.assert_array_equal(model.components_.means, gi.batch_power_invariants([graphs[i] for i in idx]).means)
    # the approximation is exact on the landmarks' own block
    F = model.transform([graphs[i] for i in idx])
    np.testing.assert_allclose(F @ F.T, K_mm, atol=1e-8)


def test_fixed_seed_gives_the_same_features(graphs):
    a = gi.NystroemGraphKernel(n_components=10, seed=7).fit_transform(graphs)
    b = gi.NystroemGraphKernel(n_components=10, seed=7).fit_transform(graphs)
    c = gi.NystroemGraphKernel(n_components=10, seed=8).fit_transform(graphs)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # a Generator is used as it is and advanced: two fits draw different landmarks
    rng = np.random.default_rng(7)
    model = gi.NystroemGraphKernel(n_components=10, seed=rng)
    first = model.fit(graphs).component_indices_.copy()
    second = model.fit(graphs).component_indices_
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(
        gi.NystroemGraphKernel(n_components=10, seed=np.random.default_rng(7)).fit(graphs).component_indices_, first
    )


def test_n_components_larger_than_n_samples_warns_and_uses_all(graphs):
    with pytest.warns(UserWarning, match="n_components=80 > n_samples=50"):
        model = gi.NystroemGraphKernel(n_components=80, seed=0).fit(graphs)
    assert model.n_components_ == 50 and model.n_components == 80
    assert model.transform(graphs).shape == (50, 50)
    np.testing.assert_array_equal(sorted(model.component_indices_), np.arange(50))
    exact = gi.NystroemGraphKernel(n_components=50, seed=0).fit(graphs)
    # exact: n_components is clipped to 50 before the draw: the same landmarks, SVD and product
    np.testing.assert_array_equal(model.transform(graphs), exact.transform(graphs))
    assert list(model.get_feature_names_out()) == [f"nystroemgraphkernel{i}" for i in range(50)]


@pytest.mark.parametrize("classifier", [LinearSVC(C=1.0), SGDClassifier(random_state=0)])
def test_pipeline_on_a_list_of_graphs(classifier):
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(25)]
    graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(25)]
    labels = np.array([0] * 25 + [1] * 25)
    model = Pipeline([
        ("features", gi.NystroemGraphKernel(n_components=20, seed=0)),
        ("scale", StandardScaler()),
        ("clf", classifier),
    ])
    model.fit(graphs[::2], labels[::2])
    assert model.score(graphs[1::2], labels[1::2]) >= 0.9
    assert model.predict(graphs[1::2]).shape == (25,)


def test_params_clone_and_set_params(graphs):
    model = gi.NystroemGraphKernel(kernel="power", n_components=8, k=4, kernel_params={"ridge": 1e-9}, seed=1)
    params = model.get_params()
    assert params == {"kernel": "power", "n_components": 8, "k": 4, "kernel_params": {"ridge": 1e-9},
                      "seed": 1, "n_jobs": None}
    twin = clone(model)
    assert twin.get_params() == params and twin is not model
    np.testing.assert_array_equal(twin.fit_transform(graphs), model.fit_transform(graphs))
    twin.set_params(k=3, kernel_params=None)
    assert twin.get_params()["k"] == 3
    assert not np.array_equal(twin.fit_transform(graphs), model.transform(graphs))
    assert twin.fit(graphs).components_.k == 3
    # the pipeline exposes the kernel parameters for grid search
    pipe = make_pipeline(gi.NystroemGraphKernel(), LinearSVC())
    pipe.set_params(nystroemgraphkernel__k=2, nystroemgraphkernel__n_components=5)
    assert pipe.get_params()["nystroemgraphkernel__k"] == 2


def test_init_is_keyword_only_and_only_stores():
    with pytest.raises(TypeError):
        gi.NystroemGraphKernel("power")
    model = gi.NystroemGraphKernel(n_components="many", k=-1, kernel="rbf")  # checked at fit, not here
    assert model.n_components == "many"


def test_every_input_form_gives_the_same_features(tu_datasets):
    mutag = tu_datasets["MUTAG"][:60]
    expected = gi.NystroemGraphKernel(n_components=15, seed=0).fit(list(mutag)).transform(list(mutag))
    invariants = gi.batch_power_invariants(mutag)
    for X in (mutag, mutag.batch, invariants, list(invariants), iter(list(mutag))):
        model = gi.NystroemGraphKernel(n_components=15, seed=0).fit(X)
        # exact: every form gives the same embeddings, then the same SVD and product of the same shapes
        np.testing.assert_array_equal(model.transform(mutag), expected)
    np.testing.assert_array_equal(model.transform(invariants), expected)


def test_precomputed_histograms_cannot_be_subset(graphs):
    hist = WalkHistogram(k=3).as_embeddings(graphs)
    with pytest.raises(TypeError, match="pass the graphs instead"):
        gi.NystroemGraphKernel(kernel="histogram", k=3, n_components=5).fit(hist)


def test_arguments_are_checked_at_fit(graphs):
    def fit(**kw):
        return gi.NystroemGraphKernel(**kw).fit(graphs)

    with pytest.raises(ValueError, match="unknown kernel"):
        fit(kernel="rbf")
    with pytest.raises(TypeError, match="kernel must be a name"):
        fit(kernel=None)
    with pytest.raises(ValueError, match="k must be"):
        fit(k=0)
    with pytest.raises(TypeError, match="single"):
        gi.NystroemGraphKernel(n_components=2).fit(nx.path_graph(4))
    with pytest.raises(ValueError, match="n_components"):
        fit(n_components=0)
    with pytest.raises(TypeError, match="n_components"):
        fit(n_components=2.5)
    with pytest.raises(ValueError, match="k="):
        fit(kernel_params={"k": 3})
    with pytest.raises(ValueError, match="spells k"):
        fit(kernel="histogram:k=9")
    with pytest.raises(TypeError, match="kernel_params"):
        fit(kernel_params=[("ridge", 1.0)])
    with pytest.raises(ValueError, match="takes the parameters"):
        fit(kernel="histogram", kernel_params={"ridge": 1e-9})
    with pytest.raises(TypeError, match="seed must be"):
        fit(seed=np.random.RandomState(0))
    with pytest.raises(ValueError, match="n_jobs"):
        fit(n_jobs=0)
    with pytest.raises(ValueError, match="at least one graph"):
        gi.NystroemGraphKernel().fit([])
    with pytest.raises(NotFittedError):
        gi.NystroemGraphKernel().transform(graphs)


def test_fit_transform_reads_a_one_shot_iterator_once(graphs):
    expected = gi.NystroemGraphKernel(n_components=10, seed=0).fit_transform(graphs)
    got = gi.NystroemGraphKernel(n_components=10, seed=0).fit_transform(iter(graphs))
    np.testing.assert_array_equal(got, expected)
    pandas_out = gi.NystroemGraphKernel(n_components=3, seed=0).set_output(transform="pandas")
    assert pandas_out.fit_transform(iter(graphs)).shape == (len(graphs), 3)


def test_n_jobs_does_not_change_the_features(graphs):
    a = gi.NystroemGraphKernel(n_components=30, seed=0).fit_transform(graphs)
    b = gi.NystroemGraphKernel(n_components=30, seed=0, n_jobs=2).fit_transform(graphs)
    # exact: threads split the kernel's tiles only (each value a function of its pair)
    np.testing.assert_array_equal(a, b)


# -- MeanMapFeatures ------------------------------------------------------------------------
def test_mean_map_features_are_the_mean_map_kernel(graphs):
    model = gi.MeanMapFeatures(k=4, n_features=300, profile="l1", bandwidth=0.5, seed=3)
    features = model.fit_transform(graphs)
    K = gi.kernel_matrix(graphs, kernel="meanmap", k=4, n_features=300, profile="l1", bandwidth=0.5, seed=3)
    assert features.shape == (len(graphs), 300)
    np.testing.assert_allclose(features @ features.T, K, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), 1.0, atol=1e-12)
    # the map by hand: mean over nodes of sqrt(2/D) cos(x W + b), x the node profiles / bandwidth
    W, b = model.random_weights_, model.random_offset_
    X = gi.power_summary(graphs[0], k=4).matrix / 0.5
    by_hand = np.sqrt(2 / 300) * np.cos(X @ W + b).mean(axis=0)
    np.testing.assert_allclose(features[0], by_hand / np.linalg.norm(by_hand), atol=1e-12)
    # precomputed embeddings of the fitted functional, and igraph graphs, give the same
    np.testing.assert_array_equal(model.transform(model.functional_.as_embeddings(graphs)), features)
    np.testing.assert_allclose(model.transform([ig.Graph.from_networkx(G) for G in graphs]), features, atol=1e-12)
    assert list(model.get_feature_names_out()[:2]) == ["meanmapfeatures0", "meanmapfeatures1"]


def test_mean_map_features_approach_the_exact_kernel(graphs):
    exact = gi.kernel_matrix(graphs, kernel="meanmap", k=3)
    errors = []
    for D in (50, 5000):
        F = gi.MeanMapFeatures(k=3, n_features=D, seed=0).fit_transform(graphs)
        errors.append(np.abs(F @ F.T - exact).max())
    assert errors[1] < 0.05 and errors[1] < errors[0] / 3


def test_mean_map_features_seeds(graphs):
    fixed = [gi.MeanMapFeatures(n_features=40, seed=5).fit(graphs).random_weights_ for _ in range(2)]
    np.testing.assert_array_equal(*fixed)
    rng = np.random.default_rng(0)
    model = gi.MeanMapFeatures(n_features=40, seed=rng)
    first = model.fit(graphs).random_weights_
    assert not np.array_equal(first, model.fit(graphs).random_weights_)  # a Generator advances
    fresh = gi.MeanMapFeatures(n_features=40)  # None: fresh entropy, but one map per fit
    F = fresh.fit(graphs).transform(graphs)
    np.testing.assert_allclose(np.diag(F @ fresh.transform(list(graphs)).T), 1.0, atol=1e-12)


@pytest.mark.parametrize("classifier", [LinearSVC(C=10.0), SGDClassifier(random_state=0)])
def test_mean_map_features_in_a_pipeline(classifier):
    graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(25)]
    graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(25)]
    labels = np.array([0] * 25 + [1] * 25)
    model = make_pipeline(gi.MeanMapFeatures(n_features=300, seed=0), StandardScaler(), classifier)
    model.fit(graphs[::2], labels[::2])
    assert model.score(graphs[1::2], labels[1::2]) >= 0.9
    clone(model).set_params(meanmapfeatures__n_features=10).fit(graphs[::2], labels[::2])


def test_mean_map_features_check_their_arguments(graphs):
    with pytest.raises(TypeError):
        gi.MeanMapFeatures(5)
    with pytest.raises(ValueError, match="n_features"):
        gi.MeanMapFeatures(n_features=0).fit(graphs)
    with pytest.raises(ValueError, match="profile"):
        gi.MeanMapFeatures(profile="sqrt").fit(graphs)
    with pytest.raises(ValueError, match="bandwidth"):
        gi.MeanMapFeatures(bandwidth=-1.0).fit(graphs)
    with pytest.raises(ValueError, match="k must be"):
        gi.MeanMapFeatures(k=0).fit(graphs)
    with pytest.raises(TypeError, match="seed must be"):
        gi.MeanMapFeatures(seed=np.random.RandomState(0)).fit(graphs)
    with pytest.raises(NotFittedError):
        gi.MeanMapFeatures().transform(graphs)
    weighted = nx.path_graph(4)
    nx.set_edge_attributes(weighted, 0.5, "w")
    with pytest.raises(ValueError, match="integer edge weights .*profile='l1' takes any"):
        gi.MeanMapFeatures(weight="w").fit_transform([weighted])
    assert gi.MeanMapFeatures(weight="w", profile="l1", n_features=8).fit_transform([weighted]).shape == (1, 8)
    with pytest.raises(TypeError, match="single"):
        gi.MeanMapFeatures().fit(graphs).transform(nx.path_graph(4))
    model = gi.MeanMapFeatures(n_features=20, seed=0).fit(graphs)
    other = gi.MeanMapFeatures(n_features=20, seed=1).fit(graphs)
    with pytest.raises(ValueError, match="other mean-map parameters"):
        model.transform(other.functional_.as_embeddings(graphs))


@pytest.mark.parametrize("seed", [None, "generator"])
def test_nystroem_of_a_mean_map_drawn_at_fit_transforms(graphs, seed):
    # transform made a new MeanMap, whose seed (drawn again from None or the Generator)
    # was not the one the landmarks were embedded with: "other mean-map parameters"
    seed = np.random.default_rng(4) if seed == "generator" else None
    nystroem = gi.NystroemGraphKernel(kernel="meanmap", n_components=len(graphs), seed=0,
                                      kernel_params={"n_features": 50, "seed": seed})
    features = nystroem.fit(graphs).transform(graphs)
    K = pairwise_kernels(graphs, functional=nystroem.functional_)
    np.testing.assert_allclose(features @ features.T, K, atol=1e-8)  # all landmarks: the kernel, to rounding
    # the same kernel values; the product with K_mm^{-1/2} of another number of rows is
    # blocked otherwise by BLAS, and that matrix's large entries amplify the rounding
    np.testing.assert_allclose(nystroem.transform(graphs[:5]), features[:5], atol=1e-9)
    assert nystroem.fit_transform(graphs).shape == (len(graphs), len(graphs))
    combination = gi.NystroemGraphKernel(kernel="power*meanmap", n_components=5, seed=0,
                                         kernel_params={"n_features": 20, "seed": seed})
    assert combination.fit(graphs).transform(graphs).shape == (len(graphs), 5)


@pytest.mark.parametrize("make", [lambda rs: gi.NystroemGraphKernel(n_components=2, seed=rs),
                                  lambda rs: gi.MeanMapFeatures(n_features=5, seed=rs)])
def test_a_bad_seed_is_called_seed(make):
    # the message used to speak of "seed", a parameter these estimators do not have
    graphs = [nx.path_graph(4), nx.cycle_graph(5), nx.star_graph(3)]
    with pytest.raises(TypeError, match="seed must be None, an int"):
        make(1.5).fit(graphs)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        make(-1).fit(graphs)
