"""Node labels, edge labels and node attributes: read alike from NetworkX and igraph,
aligned with the stored entries, carried through sub-batches, refused clearly."""

import re

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.embeddings import Combination, GaussianEmbedding, WalkHistogram

from tests.conftest import renumbered

ALL = {"node_label": "label", "edge_label": "bond", "node_attributes": "xyz"}


def _labelled_graph(seed, n=12, p=0.3, directed=False):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    G.add_edge(0, 0)  # a self-loop: one stored entry
    for v in G:
        G.nodes[v]["label"] = ["C", "N", "O"][rng.integers(3)]
        G.nodes[v]["xyz"] = tuple(rng.normal(size=3).tolist())
    for u, v in G.edges():
        G.edges[u, v]["bond"] = int(rng.integers(1, 4))
    return G


def _entry_labels(batch, g):
    """``{(i, j): label}`` of the stored entries of graph ``g`` of a batch, i and j local."""
    a = batch.offsets[g]
    rows = np.repeat(np.arange(batch.n_nodes), np.diff(batch.matrix.indptr))
    out = {}
    for e in range(batch.matrix.indptr[a], batch.matrix.indptr[batch.offsets[g + 1]]):
        out[(int(rows[e] - a), int(batch.matrix.indices[e] - a))] = batch.edge_labels[e].item()
    return out


@pytest.mark.parametrize("directed", [False, True])
def test_edge_labels_sit_on_their_entries_and_networkx_equals_igraph(directed):
    graphs = [_labelled_graph(seed, directed=directed) for seed in range(4)]
    batch = gi.as_graph_batch(graphs, **ALL)
    assert batch.edge_labels.shape == (batch.matrix.nnz,)
    for G in graphs:
        nx.set_edge_attributes(G, {e: 0.5 + i for i, e in enumerate(G.edges())}, "w")
    for weight in (None, "w"):  # reading labels leaves the matrix as it is, to the bit
        plain, labelled = (gi.as_graph_batch(graphs, weight=weight, **options) for options in ({}, ALL))
        for A, B in ((plain.matrix, labelled.matrix), (plain.matrix, gi.as_graph_batch(
                [ig.Graph.from_networkx(G) for G in graphs], weight=weight, edge_label="bond").matrix)):
            np.testing.assert_array_equal(A.indptr, B.indptr)
            np.testing.assert_array_equal(A.indices, B.indices)
            np.testing.assert_array_equal(A.data, B.data)
    for g, G in enumerate(graphs):  # brute force: every stored entry holds the label of its edge
        expected = {(u, v): d["bond"] for u, v, d in G.edges(data=True)}
        if not directed:
            expected.update({(v, u): d["bond"] for u, v, d in G.edges(data=True)})
        assert _entry_labels(batch, g) == expected
    a, b = batch.offsets[1], batch.offsets[2]
    assert batch.node_labels[a:b].tolist() == [graphs[1].nodes[v]["label"] for v in graphs[1]]
    np.testing.assert_array_equal(batch.node_attributes[a:b], [graphs[1].nodes[v]["xyz"] for v in graphs[1]])
    other = gi.as_graph_batch([ig.Graph.from_networkx(G) for G in graphs], **ALL)
    assert (other.matrix != batch.matrix).nnz == 0
    for field in ("node_labels", "edge_labels", "node_attributes"):
        np.testing.assert_array_equal(getattr(other, field), getattr(batch, field))


def test_renumbering_carries_labels_and_attributes_over(rng):
    G = _labelled_graph(7)
    nx.set_node_attributes(G, {v: v for v in G}, "old")  # renumbered keeps node attributes
    H = renumbered(G, rng)
    one, two = (gi.as_graph_batch([X], **ALL) for X in (G, H))
    old = [H.nodes[v]["old"] for v in H]  # G's node at each of H's positions (G's nodes are 0..n-1)
    assert sorted(old) != old
    np.testing.assert_array_equal(two.node_labels, one.node_labels[old])
    np.testing.assert_array_equal(two.node_attributes, one.node_attributes[old])
    labels_one, labels_two = _entry_labels(one, 0), _entry_labels(two, 0)
    assert labels_two == {(i, j): labels_one[(old[i], old[j])] for i, j in labels_two}


def test_sub_batches_and_the_unweighted_pattern_carry_everything():
    graphs = [_labelled_graph(seed) for seed in range(5)]
    for G in graphs:
        nx.set_edge_attributes(G, 2.5, "w")
    batch = gi.as_graph_batch(graphs, weight="w", **ALL)
    parts = [gi.as_graph_batch([graphs[i]], weight="w", **ALL) for i in (3, 0, 3)]
    for sub in (batch.take([3, 0, 3]), batch[[3, 0, 3]]):
        np.testing.assert_array_equal(sub.edge_labels, np.concatenate([p.edge_labels for p in parts]))
        np.testing.assert_array_equal(sub.node_labels, np.concatenate([p.node_labels for p in parts]))
        np.testing.assert_array_equal(sub.node_attributes, np.concatenate([p.node_attributes for p in parts]))
    np.testing.assert_array_equal(batch[1:3].edge_labels, batch.take([1, 2]).edge_labels)
    pattern = batch.unweighted()
    assert not pattern.weighted and pattern.edge_labels is batch.edge_labels
    assert pattern.node_attributes is batch.node_attributes and pattern.node_labels is batch.node_labels


def test_zero_weight_edges_take_their_labels_away():
    G = nx.Graph()
    G.add_edge(0, 1, w=1.0, bond="single")
    G.add_edge(1, 2, w=0.0, bond="double")
    batch = gi.as_graph_batch([G], weight="w", edge_label="bond")
    assert batch.matrix.nnz == 2 and batch.edge_labels.tolist() == ["single", "single"]
    assert gi.as_graph_batch([G], edge_label="bond").edge_labels.tolist() == ["single", "single", "double", "double"]


def test_graphs_without_edges_and_empty_collections():
    empty = nx.empty_graph(3)
    nx.set_node_attributes(empty, "C", "label")
    nx.set_node_attributes(empty, (1.0, 2.0, 3.0), "xyz")
    batch = gi.as_graph_batch([empty, _labelled_graph(0), empty], **ALL)
    assert batch.edge_labels.shape == (batch.matrix.nnz,) and batch.take([0, 2]).edge_labels.shape == (0,)
    assert batch.take([]).edge_labels.shape == (0,) and batch.take([]).node_attributes.shape == (0, 3)
    nothing = gi.as_graph_batch([], **ALL)
    assert nothing.n_graphs == 0 and nothing.edge_labels.shape == (0,) and nothing.node_labels.shape == (0,)
    assert gi.as_graph_batch([ig.Graph(2)], edge_label="bond").edge_labels.shape == (0,)


def test_parallel_edges_need_one_label():
    M = nx.MultiGraph()
    M.add_edge(0, 1, bond=1)
    M.add_edge(1, 0, bond=1)
    M.add_edge(1, 2, bond=2)
    assert gi.as_graph_batch([M], edge_label="bond").edge_labels.tolist() == [1, 1, 2, 2]
    M.add_edge(0, 1, bond=3)
    with pytest.raises(ValueError, match=r"graphs\[0\]: parallel edges \(0, 1\) and \(0, 1\) have different labels 1 "
                                         r"and 3"):
        gi.as_graph_batch([M], edge_label="bond")
    g = ig.Graph([(0, 1), (0, 1)])
    g.es["bond"] = ["a", "b"]
    with pytest.raises(ValueError, match="different labels 'a' and 'b'"):
        gi.as_graph_batch([g], edge_label="bond")


def test_missing_values_name_the_graph_and_the_node_or_edge():
    G = _labelled_graph(1)
    del G.nodes[3]["label"]
    del G.edges[next(iter(G.edges()))]["bond"]
    first_edge = next(iter(G.edges()))
    del G.nodes[5]["xyz"]
    H = _labelled_graph(2)
    with pytest.raises(ValueError, match=r"graphs\[1\]: node 3 has no attribute 'label'"):
        gi.as_graph_batch([H, G], node_label="label")
    with pytest.raises(ValueError, match=rf"graphs\[1\]: edge {re.escape(repr(first_edge))} has no attribute 'bond'"):
        gi.as_graph_batch([H, G], edge_label="bond")
    with pytest.raises(ValueError, match=r"graphs\[1\]: node 5 has no attribute 'xyz'"):
        gi.as_graph_batch([H, G], node_attributes="xyz")
    g = ig.Graph([(0, 1), (1, 2)])
    with pytest.raises(ValueError, match=r"graphs\[0\]: edge \(0, 1\) has no attribute 'bond'"):
        gi.as_graph_batch([g], edge_label="bond")
    g.es[0]["bond"] = 1  # igraph gives the other edge None
    with pytest.raises(ValueError, match=r"edge \(1, 2\) has no value for attribute 'bond' \(igraph gives None\)"):
        gi.as_graph_batch([g], edge_label="bond")
    with pytest.raises(ValueError, match=r"node 0 has no attribute 'xyz'"):
        gi.as_graph_batch([g], node_attributes="xyz")


def test_none_as_a_label_is_not_a_missing_attribute():
    G = nx.path_graph(3)
    nx.set_node_attributes(G, {0: "C", 1: None, 2: "C"}, "label")
    with pytest.raises(ValueError, match="node 1 has the label None; labels must be numbers or strings"):
        gi.as_graph_batch([G], node_label="label")
    nx.set_edge_attributes(G, {(0, 1): None, (1, 2): 1}, "bond")
    with pytest.raises(ValueError, match=r"edge \(0, 1\) has the label None"):
        gi.as_graph_batch([G], edge_label="bond")


def test_numpy_scalars_count_as_python_scalars():
    def with_labels(values):
        G = nx.path_graph(len(values))
        nx.set_node_attributes(G, dict(enumerate(values)), "label")
        nx.set_edge_attributes(G, dict(zip(G.edges(), values)), "bond")
        return G

    pairs = [
        ([np.bool_(True), np.bool_(False)], [True, False]),
        ([np.int64(3), np.int32(-1)], [3, -1]),
        ([np.float32(0.5), np.float64(2.0)], [0.5, 2.0]),
        ([np.str_("C"), np.str_("N")], ["C", "N"]),
    ]
    for numpy_values, python_values in pairs:
        ours = gi.as_graph_batch([with_labels(numpy_values)], node_label="label", edge_label="bond")
        reference = gi.as_graph_batch([with_labels(python_values)], node_label="label", edge_label="bond")
        for field in ("node_labels", "edge_labels"):
            np.testing.assert_array_equal(getattr(ours, field), getattr(reference, field))
            assert getattr(ours, field).dtype == getattr(reference, field).dtype
    G = nx.path_graph(2)
    nx.set_node_attributes(G, {0: np.float32(1.5), 1: np.array([2.0])}, "x")
    assert gi.as_graph_batch([G], node_attributes="x").node_attributes.tolist() == [[1.5], [2.0]]


def test_large_integers_stay_apart_beside_floats():
    def labelled(values):
        G = nx.empty_graph(len(values))
        nx.set_node_attributes(G, dict(enumerate(values)), "label")
        return G

    big = gi.as_graph_batch([labelled([2**53, 2**53 + 1, 2.0])], node_label="label").node_labels
    assert big.dtype == np.int64 and big.tolist() == [2**53, 2**53 + 1, 2]
    assert len(np.unique(big)) == 3
    with pytest.raises(TypeError, match=r"mix integers and floats \(9007199254740993 and 0\.5\).*no exact float64"):
        gi.as_graph_batch([labelled([2**53 + 1]), labelled([0.5])], node_label="label")
    small = gi.as_graph_batch([labelled([3, 0.5])], node_label="label").node_labels  # exact in float64, as before
    assert small.dtype == np.float64 and small.tolist() == [3.0, 0.5]
    with pytest.raises(ValueError, match="node label 1180591620717411303424 does not fit in 64 bits"):
        gi.as_graph_batch([labelled([2**70])], node_label="label")
    for kernel in ("wl", "labelled_histogram"):  # two collections: their vocabularies merge exactly too
        K = gi.kernel_matrix([labelled([2**53, 1.0])], [labelled([2**53 + 1, 1.0])], kernel=kernel, node_label="label")
        assert K[0, 0] < 1
        K = gi.kernel_matrix([labelled([2**53 + 1, 2**53 + 1])], [labelled([2**53 + 1, 1.0])], kernel=kernel,
                             node_label="label")
        assert K[0, 0] > 0  # int64 against integral float64: one vocabulary, 2**53 + 1 met on both sides
        with pytest.raises(TypeError, match="of one collection are integers and of the other floats"):
            gi.kernel_matrix([labelled([2**53 + 1])], [labelled([0.5])], kernel=kernel, node_label="label")


def test_bad_attributes_are_refused():
    def with_xyz(values):
        G = nx.empty_graph(len(values))
        nx.set_node_attributes(G, dict(enumerate(values)), "xyz")
        return G

    cases = [
        ([(1.0, 2.0), (1.0,)], ValueError, r"node 1 has 1 values of attribute 'xyz', node 0 has 2"),
        ([(1.0, float("nan"))], ValueError, r"node 0: attribute 'xyz' holds nan; attributes must be finite"),
        ([(1.0, float("inf"))], ValueError, "must be finite"),
        ([("a", 1.0)], TypeError, r"node 0: attribute 'xyz' must hold real numbers, got 'a'"),
        ([(True, 1.0)], TypeError, "real numbers, got True"),
        (["1.0"], TypeError, r"must be a number or a sequence of numbers, got '1.0'"),
        ([()], ValueError, "is empty"),
        ([1 + 2j], TypeError, "must be a number or a sequence of numbers|real numbers"),
    ]
    for values, error, message in cases:
        with pytest.raises(error, match=rf"graphs\[0\]: {message}" if message[0] == "n" else message):
            gi.as_graph_batch([with_xyz(values)], node_attributes="xyz")
    with pytest.raises(ValueError, match=r"graphs\[1\]: its nodes have 3 values of attribute 'xyz', those of "
                                         r"graphs\[0\] have 2"):
        gi.as_graph_batch([with_xyz([(1.0, 2.0)]), with_xyz([(1.0, 2.0, 3.0)])], node_attributes="xyz")


def test_only_networkx_and_igraph_carry_labels_and_attributes():
    for option in ALL:
        with pytest.raises(TypeError, match=r"graphs\[0\]: .* from NetworkX and igraph graphs, not from a scipy"):
            gi.as_graph_batch([sp.eye(3, format="csr")], **{option: ALL[option]})
        with pytest.raises(TypeError, match=f"{option} must be None or the name of an attribute"):
            gi.as_graph_batch([nx.path_graph(2)], **{option: 1})


def test_a_batch_passes_through_only_with_what_is_asked_for():
    plain = gi.as_graph_batch([nx.path_graph(3)])
    for option, value in ALL.items():
        with pytest.raises(ValueError, match=f"{option}='{value}' was asked for, but graphs are a batch without"):
            gi.as_graph_batch(plain, **{option: value})
    full = gi.as_graph_batch([_labelled_graph(0)], **ALL)
    assert gi.as_graph_batch(full, **ALL) is full and gi.as_graph_batch(full) is full


def test_hand_built_batches_check_labels_and_attributes():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"edge_labels must have shape \(2,\) \(one per stored entry\)"):
        gi.GraphBatch(A, [0, 2], edge_labels=[1, 2, 3])
    with pytest.raises(TypeError, match="edge_labels must be numbers or strings"):
        gi.GraphBatch(A, [0, 2], edge_labels=np.array([(1,), None], dtype=object))
    with pytest.raises(ValueError, match=r"node_attributes must have shape \(2, n_attributes\)"):
        gi.GraphBatch(A, [0, 2], node_attributes=[1.0, 2.0])
    with pytest.raises(ValueError, match="node_attributes contains NaN or infinite"):
        gi.GraphBatch(A, [0, 2], node_attributes=[[1.0], [np.inf]])
    with pytest.raises(TypeError, match="node_attributes must be real numbers"):
        gi.GraphBatch(A, [0, 2], node_attributes=[["a"], ["b"]])
    messy = sp.csr_array((np.ones(3), np.array([1, 0, 0]), np.array([0, 1, 3])), shape=(2, 2))  # a duplicate
    with pytest.raises(ValueError, match="matrix must be canonical"):
        gi.GraphBatch(messy, [0, 2], edge_labels=[1, 2, 3])
    ok = gi.GraphBatch(A, [0, 2], edge_labels=["a", "a"], node_attributes=np.array([[1], [2]]))
    assert ok.node_attributes.dtype == np.float64 and not ok.node_attributes.flags.writeable
    assert not ok.edge_labels.flags.writeable


def test_functionals_and_combinations_ask_for_what_they_read():
    graphs = [_labelled_graph(seed) for seed in range(3)]
    member = WalkHistogram(k=2)
    member.edge_label, member.node_attributes = "bond", "xyz"
    batch = member.graph_batch(graphs)
    assert batch.edge_labels is not None and batch.node_attributes.shape[1] == 3 and batch.node_labels is None
    both = Combination([member, GaussianEmbedding(k=2)])
    batch = both.graph_batch(graphs)
    assert batch.edge_labels is not None and batch.node_attributes is not None
    other = WalkHistogram(k=2)
    other.edge_label = "order"
    with pytest.raises(ValueError, match=r"the members read different edge labels: \['bond', 'order'\]"):
        Combination([member, other]).graph_batch(graphs)
    other.edge_label, other.node_attributes = "bond", "charge"
    with pytest.raises(ValueError, match="the members read different node attributes"):
        Combination([member, other]).graph_batch(graphs)



@pytest.mark.parametrize("nan", [float("nan"), np.float64("nan"), np.float32("nan")], ids=["float", "float64", "float32"])
def test_nan_labels_are_refused_wherever_labels_are_read(nan):
    """Was: NaN accepted as an ordinary label by wl, the labelled members and GraphKernel
    (NaN is equal to no label, not even itself)."""
    graphs = [nx.path_graph(4), nx.cycle_graph(5), nx.star_graph(3), nx.path_graph(5)]
    for G in graphs:
        nx.set_node_attributes(G, 1.0, "label")
        nx.set_edge_attributes(G, 2.0, "bond")
    graphs[1].nodes[2]["label"] = nan
    message = r"graphs\[1\]: node 2 has the label nan"
    for kernel in ("wl", "wloa", "labelled_histogram", "labelled_histogram_oa"):
        with pytest.raises(ValueError, match=message):
            gi.kernel_matrix(graphs, kernel=kernel, node_label="label")
    with pytest.raises(ValueError, match=message):
        gi.kernel_matrix([ig.Graph.from_networkx(G) for G in graphs], kernel="wl", node_label="label")
    with pytest.raises(ValueError, match=r"X\[1\]: node 2 has the label nan"):
        gi.GraphKernel().fit(graphs, [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"X\[1\]: node 2 has the label nan"):
        gi.GraphKernel(kernel="wl", node_label="label").fit(graphs, [0, 1, 0, 1])
    graphs[1].nodes[2]["label"] = 1.0
    graphs[2].edges[0, 1]["bond"] = nan
    with pytest.raises(ValueError, match=r"graphs\[2\]: edge \(0, 1\) has the label nan"):
        gi.kernel_matrix(graphs, kernel="wl", node_label="label", edge_label="bond")
    # labels given as arrays of a hand-built batch
    batch = gi.as_graph_batch(graphs)
    with pytest.raises(ValueError, match=r"node_labels holds NaN \(1 of them, the first at position 17\)"):
        gi.GraphBatch(batch.matrix, batch.offsets, node_labels=np.r_[np.ones(17), nan])
    with pytest.raises(ValueError, match=r"node_labels holds NaN"):
        gi.GraphBatch(batch.matrix, batch.offsets, node_labels=np.array([1] * 17 + [nan], dtype=object))
    with pytest.raises(ValueError, match=r"edge_labels holds NaN"):
        gi.GraphBatch(batch.matrix, batch.offsets, edge_labels=np.r_[np.ones(batch.matrix.nnz - 1), nan])
