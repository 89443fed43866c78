import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi


@pytest.fixture
def graphs():
    return [nx.path_graph(4), nx.star_graph(5), nx.cycle_graph(7), nx.empty_graph(3), nx.karate_club_graph()]


def test_batch_is_the_block_diagonal_of_its_graphs(graphs):
    batch = gi.as_graph_batch(graphs)
    expected = sp.block_diag([nx.to_scipy_sparse_array(G, weight=None) for G in graphs]).toarray()
    np.testing.assert_array_equal(batch.matrix.toarray(), expected)
    assert batch.sizes.tolist() == [G.number_of_nodes() for G in graphs]
    assert batch.matrix.has_canonical_format


def test_every_input_kind_gives_the_same_batch(graphs):
    reference = gi.as_graph_batch(graphs)
    kinds = {
        "igraph": [ig.Graph.from_networkx(G) for G in graphs],
        "scipy": [nx.to_scipy_sparse_array(G, format="csr", dtype=float) for G in graphs],
        "scipy coo, int": [nx.to_scipy_sparse_array(G, format="coo", dtype=int) for G in graphs],
        "numpy": [nx.to_numpy_array(G) for G in graphs],
        "adjacency": [gi.as_adjacency(G) for G in graphs],
        "generator": (G for G in graphs),
    }
    for name, items in kinds.items():
        batch = gi.as_graph_batch(items)
        assert (batch.matrix != reference.matrix).nnz == 0, name
        np.testing.assert_array_equal(batch.offsets, reference.offsets)
    assert gi.as_graph_batch(reference) is reference


def test_indexing_slicing_and_take(graphs):
    batch = gi.as_graph_batch(graphs)
    assert batch[1].n_nodes == 6 and batch[-1].n_nodes == 34
    sub = batch[1:3]
    assert isinstance(sub, gi.GraphBatch) and sub.sizes.tolist() == [6, 7]
    again = batch.take([4, 0, 4])
    assert again.sizes.tolist() == [34, 4, 34]
    np.testing.assert_array_equal(again[0].matrix.toarray(), batch[4].matrix.toarray())
    assert [a.n_nodes for a in batch] == [4, 6, 7, 3, 34]


def test_hand_built_batches_are_validated():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="outside the diagonal blocks"):
        gi.GraphBatch(A, [0, 1, 2])
    with pytest.raises(ValueError, match="rise from 0"):
        gi.GraphBatch(A, [0, 3])
    with pytest.raises(ValueError, match="negative"):
        gi.GraphBatch(sp.csr_array(-A), [0, 2])
    with pytest.raises(TypeError, match="CSR"):
        gi.GraphBatch(A.toarray(), [0, 2])
    with pytest.raises(ValueError, match="node_labels"):
        gi.GraphBatch(A, [0, 2], node_labels=[1, 2, 3])


def test_hand_built_adjacency_is_validated():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="negative"):
        gi.GraphAdjacency(sp.csr_array(-A), (0, 1))
    with pytest.raises(TypeError, match="CSR"):
        gi.GraphAdjacency(A.toarray(), (0, 1))
    with pytest.raises(ValueError, match="names for 2 rows"):
        gi.GraphAdjacency(A, (0, 1, 2))
    with pytest.raises(ValueError, match="NaN or infinite"):
        gi.GraphAdjacency(sp.csr_array(np.array([[0.0, np.nan], [1.0, 0.0]])), (0, 1))


def test_a_single_graph_where_a_sequence_is_expected_says_so():
    for G in (nx.path_graph(3), ig.Graph(3), sp.eye(3, format="csr"), np.eye(3)):
        with pytest.raises(TypeError, match="sequence of graphs.*wrap it in a list"):
            gi.as_graph_batch(G)
        with pytest.raises(TypeError, match="sequence of graphs"):
            gi.power_kernel_matrix(G)
        with pytest.raises(TypeError, match="sequence of graphs"):
            gi.PowerKernel().fit_transform(G)
    with pytest.raises(TypeError, match="sequence of graphs"):
        gi.as_graph_batch(5)


def test_edge_lists_and_data_frames_get_a_message_that_says_how_to_pass_them():
    with pytest.raises(TypeError, match=r"graphs\[0\].*networkx.Graph\(edges\)"):
        gi.power_kernel_matrix([(0, 1), (1, 2)])
    with pytest.raises(ValueError, match="edge list"):
        gi.as_adjacency(np.array([[0, 1], [1, 2], [2, 3]]))
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="from_pandas_edgelist"):
        gi.as_adjacency(pd.DataFrame({"source": [0], "target": [1]}))


def test_masked_arrays_are_refused():
    A = np.ma.masked_array(np.ones((2, 2)), mask=[[True, False], [False, True]])
    with pytest.raises(TypeError, match="masked"):
        gi.as_adjacency(A)


def test_weight_must_be_an_attribute_name():
    with pytest.raises(TypeError, match="name of an edge attribute"):
        gi.as_adjacency(nx.path_graph(3), weight=True)


def test_empty_graph_in_a_batch_names_its_position():
    with pytest.raises(ValueError, match=r"graphs\[1\] has no nodes"):
        gi.batch_power_invariants([nx.path_graph(3), nx.Graph()])


def test_node_labels_are_numbers_or_strings_never_mixed():
    import networkx as nx

    def labelled(values):
        G = nx.path_graph(len(values))
        nx.set_node_attributes(G, dict(enumerate(values)), "label")
        return G

    assert gi.as_graph_batch([labelled([1, 2]), labelled([3])], node_label="label").node_labels.tolist() == [1, 2, 3]
    assert gi.as_graph_batch([labelled(["C", "N"])], node_label="label").node_labels.tolist() == ["C", "N"]
    with pytest.raises(TypeError, match=r"mix numbers and strings \(1 and '2'\)"):
        gi.as_graph_batch([labelled([1]), labelled(["2"])], node_label="label")
    with pytest.raises(TypeError, match=r"graphs\[0\]: node 1 has the label \(1, 2\), a tuple"):
        gi.as_graph_batch([labelled([1, (1, 2)])], node_label="label")
    with pytest.raises(TypeError, match="frozenset"):
        gi.as_graph_batch([labelled([frozenset([1]), frozenset([2])])], node_label="label")
    # a collection labelled by numbers against one labelled by strings: "1" is not 1
    for kernel in ("wl", "labelled_histogram"):
        with pytest.raises(TypeError, match="numbers and of the other strings"):
            gi.kernel_matrix([labelled([1, 2, 1])], [labelled(["1", "2", "1"])], kernel=kernel, node_label="label")


def test_a_weight_asked_of_an_unweighted_batch_is_an_error(tu_datasets):
    mutag = tu_datasets["MUTAG"][:5]
    with pytest.raises(ValueError, match="weight='w' was asked for, but graphs are an unweighted batch"):
        gi.as_graph_batch(mutag, weight="w")
    with pytest.raises(ValueError, match="unweighted batch"):
        gi.PowerKernel(weight="w").fit(mutag)
    assert gi.as_graph_batch(mutag) is mutag.batch
