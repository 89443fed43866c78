"""Precomputed embeddings record every parameter that changed them, and every use checks
the record (issue 15, items 1 and 6)."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.search._kernel_index import kernel_neighbors as _kneighbors  # the kernel index (gi.kneighbors is deprecated)
from graphinvariants.embeddings import GaussianEmbedding, MeanMap, WalkHistogram
from graphinvariants.kernels import make_functional, pairwise_kernels


def _labelled_weighted(G, seed):
    rng = np.random.default_rng(seed)
    nx.set_node_attributes(G, {v: int(rng.integers(3)) for v in G}, "label")
    nx.set_node_attributes(G, {v: int(rng.integers(2)) for v in G}, "other")
    nx.set_edge_attributes(G, {e: int(rng.integers(1, 4)) for e in G.edges}, "w")
    return G


@pytest.fixture(scope="module")
def graphs():
    return [_labelled_weighted(nx.gnp_random_graph(10 + s, 0.3, seed=s), s) for s in range(6)]


# (kernel, parameters the embeddings were made with, parameters asked for, parameters named)
MISMATCHES = [
    ("power", {"k": 3}, {"k": 7}, ["k=3", "k=7"]),
    ("power", {"normalization": "none"}, {}, ["normalization='none'", "normalization='l1'"]),
    ("power", {}, {"weight": "w"}, ["weight=None", "weight='w'"]),
    ("power", {"k": 3, "normalization": "l2"}, {"k": 4}, ["k=3, normalization='l2'", "k=4, normalization='l1'"]),
    ("histogram", {"k": 3}, {"k": 7}, ["k=3", "k=7"]),
    ("histogram", {}, {"weight": "w"}, ["weight=None", "weight='w'"]),
    ("labelled_histogram", {"node_label": "other"}, {}, ["node_label='other'", "node_label='label'"]),
    ("wl", {}, {"node_label": "label"}, ["node_label=None", "node_label='label'"]),
    ("wl", {"n_iter": 2}, {}, ["n_iter=2", "n_iter=5"]),
    ("meanmap", {"k": 3}, {"k": 3, "bandwidth": 2.0}, ["bandwidth=1.0", "bandwidth=2.0"]),
    ("meanmap", {"n_features": 20}, {"n_features": 20, "seed": 1}, ["seed=0", "seed=1"]),
    ("meanmap", {"profile": "l1"}, {"profile": "l1", "weight": "w"}, ["weight=None", "weight='w'"]),
    ("power*histogram", {"k": 3}, {"k": 7}, ["member 0, GaussianEmbedding", "k=3", "k=7"]),
    ("power*histogram", {"histogram__k": 3}, {}, ["member 1, WalkHistogram", "k=3", "k=5"]),
    ("histogram*wl", {}, {"weight": "w"}, ["member 0", "weight=None", "weight='w'"]),
    ("power+wl", {"node_label": "label"}, {}, ["member 1", "node_label='label'", "node_label=None"]),
]


@pytest.mark.parametrize(("kernel", "made", "asked", "named"), MISMATCHES)
def test_every_use_of_embeddings_made_with_other_parameters_names_them(graphs, kernel, made, asked, named):
    embedded = make_functional(kernel, **made).as_embeddings(graphs)
    uses = [
        lambda: gi.kernel_matrix(embedded, kernel=kernel, **asked),
        lambda: gi.kernel_matrix(graphs, embedded, kernel=kernel, **asked),
        lambda: _kneighbors(graphs[:2], embedded, kernel=kernel, n_neighbors=2, **asked),
        lambda: _kneighbors(embedded, graphs, kernel=kernel, n_neighbors=2, **asked),
        lambda: gi.GraphKernel(kernel=kernel, **asked).fit(embedded),
        lambda: gi.GraphKernel(kernel=kernel, **asked).fit(graphs).transform(embedded),
    ]
    for use in uses:
        with pytest.raises(ValueError, match="was embedded with") as err:
            use()
        for text in named:
            assert text in str(err.value)
    # the same parameters are accepted, and give the matrix of the graphs themselves
    # exact: two cross matrices of the same embeddings (computed twice by the same path)
    np.testing.assert_array_equal(gi.kernel_matrix(graphs, embedded, kernel=kernel, **made),
                                  gi.kernel_matrix(graphs, graphs, kernel=kernel, **made))


def test_nothing_that_does_not_change_embeddings_is_refused(graphs):
    embedded = GaussianEmbedding(k=4).as_embeddings(graphs)
    K = gi.kernel_matrix(embedded, kernel="power", k=4, ridge=1e-9, engine="numpy")
    # exact: the same embeddings through the same tiles (ridge and engine are pair options)
    np.testing.assert_array_equal(K, gi.kernel_matrix(graphs, kernel="power", k=4, ridge=1e-9, engine="numpy"))
    both = make_functional("power*histogram", k=3).as_embeddings(graphs)
    np.testing.assert_array_equal(gi.kernel_matrix(both, kernel="power+histogram", k=3),
                                  gi.kernel_matrix(graphs, kernel="power+histogram", k=3))


def test_embeddings_of_another_kernel_are_refused_by_name(graphs):
    histograms = WalkHistogram(k=3).as_embeddings(graphs)
    for kernel in ("wl", "power", "meanmap", "power*histogram"):
        with pytest.raises(TypeError, match="holds precomputed HistogramBatch embeddings"):
            gi.kernel_matrix(histograms, kernel=kernel)
    swapped = make_functional("histogram*power", k=3).as_embeddings(graphs)
    with pytest.raises(TypeError, match=r"member 0, GaussianEmbedding\) holds HistogramBatch"):
        gi.kernel_matrix(swapped, kernel="power*histogram", k=3)
    with pytest.raises(ValueError, match="embeddings of 2 members, but .* has 3"):
        gi.kernel_matrix(swapped, kernel="power*histogram*wl", k=3)


def test_subsets_and_stored_embeddings_keep_the_record(graphs, tmp_path):
    functional = GaussianEmbedding(k=3, normalization="none")
    embedded = functional.as_embeddings(graphs)
    assert embedded.params == {"k": 3, "normalization": "none", "weight": None, "profile": "power summary"}
    for part in (embedded[1:4], embedded.take([0, 0, 2])):
        with pytest.raises(ValueError, match="normalization='none', but normalization='l1'"):
            gi.kernel_matrix(part, kernel="power", k=3)
    # arrays (Dask frames, Nystroem landmarks) carry a fingerprint of the record
    arrays = functional.to_arrays(embedded)
    assert functional.from_arrays(arrays).params == embedded.params
    with pytest.raises(ValueError, match="embedded with other parameters than k=3, normalization='l1'"):
        GaussianEmbedding(k=3).from_arrays(arrays)
    rff = MeanMap(k=3, n_features=16, seed=1)
    with pytest.raises(ValueError, match="other parameters than .*seed=2"):
        MeanMap(k=3, n_features=16, seed=2).from_arrays(rff.to_arrays(rff.as_embeddings(graphs)))
    # saved invariants too; a batch built by hand records k only, the rest on trust
    path = tmp_path / "invariants.npz"
    gi.save_invariants(path, embedded)
    assert gi.load_invariants(path).params == embedded.params
    with pytest.raises(ValueError, match="normalization='none'"):
        gi.kernel_matrix(gi.load_invariants(path), kernel="power", k=3)
    by_hand = gi.GaussianBatch(embedded.means, embedded.covariances, embedded.n_nodes)
    assert by_hand.params == {"k": 3}
    with pytest.raises(ValueError, match="k=3, but k=4"):
        gi.kernel_matrix(by_hand, kernel="power", k=4)


def test_to_arrays_refuses_a_batch_of_other_parameters(graphs):
    embedded = GaussianEmbedding(k=3, weight="w").as_embeddings(graphs)
    with pytest.raises(ValueError, match="weight='w', but weight=None"):
        GaussianEmbedding(k=3).to_arrays(embedded)


@pytest.mark.parametrize("kernel", ["power", "histogram", "power*histogram"])
def test_without_a_weight_a_weighted_batch_is_read_as_its_pattern(graphs, kernel):
    # the embeddings record weight=None, so they are those of the 0/1 graphs
    weighted = gi.as_graph_batch(graphs, weight="w")
    functional = make_functional(kernel, k=3)
    embedded = functional.as_embeddings(weighted)
    # exact: the same integer walk counts of the same 0/1 graphs, in the same order
    np.testing.assert_array_equal(pairwise_kernels(embedded, functional=functional),
                                  pairwise_kernels(graphs, functional=functional))
    assert not np.array_equal(pairwise_kernels(weighted, functional=make_functional(kernel, k=3, weight="w")),
                              pairwise_kernels(graphs, functional=functional))


def test_wl_in_a_weighted_combination_is_wl_alone():
    # one meaning for an edge of weight 0: a weighted member walks no step along it,
    # a member that takes no weight (wl, labelled_histogram) sees it as an edge, as alone
    G = nx.path_graph(4)
    nx.set_edge_attributes(G, 1, "w")
    H = G.copy()
    H[1][2]["w"] = 0
    pair = [G, H]
    wl = gi.kernel_matrix(pair, kernel="wl")
    histogram = gi.kernel_matrix(pair, kernel="histogram", weight="w")
    # exact: wl counts the same integer labels for G and H
    assert wl[0, 1] == 1.0 and histogram[0, 1] < 1.0
    # exact: the combination multiplies (or averages) its members' tiles elementwise, as here
    np.testing.assert_array_equal(gi.kernel_matrix(pair, kernel="histogram*wl", weight="w"), histogram * wl)
    np.testing.assert_array_equal(gi.kernel_matrix(pair, kernel="histogram+wl", weight="w"), (histogram + wl) / 2)
    np.testing.assert_array_equal(gi.kernel_matrix(iter(pair), kernel="histogram*wl", weight="w"), histogram * wl)
    for G_ in pair:
        nx.set_node_attributes(G_, {0: "a", 1: "b", 2: "a", 3: "b"}, "label")
    labelled = gi.kernel_matrix(pair, kernel="labelled_histogram", k=2)
    np.testing.assert_array_equal(
        gi.kernel_matrix(pair, kernel="histogram*labelled_histogram", k=2, weight="w"),
        gi.kernel_matrix(pair, kernel="histogram", k=2, weight="w") * labelled,
    )


def test_dask_frames_keep_the_record_also_through_a_float_table(graphs):
    pytest.importorskip("dask")
    import pandas as pd

    from graphinvariants import distributed as gid

    frame = gid.to_frame(graphs, kernel="power", k=3, weight="w")
    assert gid.from_frame(frame, k=3, weight="w").params == {"k": 3, "normalization": "l1", "weight": "w",
                                                                    "profile": "power summary"}
    with pytest.raises(ValueError, match="other parameters than k=3, normalization='l1', weight=None"):
        gid.from_frame(frame, k=3)
    # every column as float64 (one Zarr array of the frame, as the docs suggest)
    as_floats = pd.DataFrame(frame.to_numpy(dtype=np.float64), columns=frame.columns)
    # exact: float64 holds the table's ids, sizes and fingerprints (below 2**53) and copies the means
    np.testing.assert_array_equal(gid.from_frame(as_floats, k=3, weight="w").means, gid.from_frame(frame, k=3, weight="w").means)
    with pytest.raises(ValueError, match="other parameters"):
        gid.from_frame(as_floats, k=3, normalization="l2", weight="w")


def test_a_parameter_spelled_in_the_name_and_given_differently_is_refused():
    # kernel_matrix(kernel="power:k=3", k=4) used to compute with k=4 without a word
    with pytest.raises(ValueError, match="spells k=3 in its name but k=4 is given"):
        make_functional("power:k=3", k=4)
    with pytest.raises(ValueError, match="spells k=3"):
        gi.kernel_matrix([nx.path_graph(4)], kernel="power*histogram:k=3", k=4)
    assert repr(make_functional("power:k=3", k=3)) == repr(make_functional("power", k=3))


@pytest.mark.parametrize("spec, hint", [("histogram:k=7*power", "'histogram\\*power:histogram__k=7'"),
                                        ("power:k=3,ridge=0.1+wl", "'power\\+wl:power__k=3,power__ridge=0.1'"),
                                        ("histogram:k=7:k=3", "one ':'")])
def test_parameters_in_the_middle_of_a_name_say_where_they_go(spec, hint):
    # used to fail as "k must be a positive integer, got '7*power'"
    with pytest.raises(ValueError, match=hint):
        make_functional(spec)
