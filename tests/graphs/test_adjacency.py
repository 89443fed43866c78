import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi


def _random_graph(seed, n=30, p=0.15, loops=3):
    G = nx.gnp_random_graph(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    G.add_edges_from((int(v), int(v)) for v in rng.choice(n, loops, replace=False))
    return G


@pytest.mark.parametrize("seed", range(5))
def test_all_input_types_give_the_same_matrix(seed):
    G = _random_graph(seed)
    dense = gi.as_adjacency(G).matrix.toarray()
    g = ig.Graph(n=G.number_of_nodes(), edges=list(G.edges()))
    variants = [g, sp.csr_array(dense), sp.coo_matrix(dense), dense, dense.astype(bool), dense.astype(np.int8)]
    for variant in variants:
        np.testing.assert_array_equal(gi.as_adjacency(variant).matrix.toarray(), dense)
    # a self-loop is one entry 1 on the diagonal, as networkx.to_scipy_sparse_array has it
    np.testing.assert_array_equal(dense, nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None).toarray())


def test_node_order_is_kept():
    G = nx.Graph([("c", "a"), ("a", "b")])
    adj = gi.as_adjacency(G)
    assert adj.nodes == ("c", "a", "b")
    assert adj.matrix[0, 1] == 1 and adj.matrix[0, 2] == 0
    g = ig.Graph([(0, 1), (1, 2)])
    g.vs["name"] = ["x", "y", "z"]
    assert gi.as_adjacency(g).nodes == ("x", "y", "z")
    assert gi.as_adjacency(ig.Graph(3)).nodes == (0, 1, 2)


def test_multigraph_edges_collapse_unless_weighted():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    np.testing.assert_array_equal(gi.as_adjacency(M).matrix.toarray(), gi.as_adjacency(nx.path_graph(3)).matrix.toarray())
    M[0][1][0]["w"] = 2.0
    M[0][1][1]["w"] = 0.5
    with pytest.raises(ValueError, match="edge .* has no attribute 'w'"):  # a missing weight is an error
        gi.as_adjacency(M, weight="w")
    M[1][2][0]["w"] = 1.0
    A = gi.as_adjacency(M, weight="w").matrix
    # exact: 2.0 + 0.5 is a sum of short binary fractions
    assert A[0, 1] == 2.5 and A[1, 0] == 2.5 and A[1, 2] == 1.0
    g = ig.Graph([(0, 1), (0, 1), (1, 2)])
    np.testing.assert_array_equal(gi.as_adjacency(g).matrix.toarray(), gi.as_adjacency(nx.path_graph(3)).matrix.toarray())


def test_directed_graphs_keep_direction():
    D = nx.DiGraph([(0, 1), (1, 2)])
    expected = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(gi.as_adjacency(D).matrix.toarray(), expected)
    np.testing.assert_array_equal(gi.as_adjacency(ig.Graph([(0, 1), (1, 2)], directed=True)).matrix.toarray(), expected)
    MD = nx.MultiDiGraph([(0, 1), (0, 1), (1, 2)])
    np.testing.assert_array_equal(gi.as_adjacency(MD).matrix.toarray(), expected)


def test_weights_across_adapters():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 0.5), (1, 2, 3.0), (2, 2, 2.0)])
    A = gi.as_adjacency(G, weight="weight").matrix.toarray()
    np.testing.assert_array_equal(A, [[0, 0.5, 0], [0.5, 0, 3], [0, 3, 2]])
    g = ig.Graph([(0, 1), (1, 2), (2, 2)])
    g.es["weight"] = [0.5, 3.0, 2.0]
    np.testing.assert_array_equal(gi.as_adjacency(g, weight="weight").matrix.toarray(), A)
    np.testing.assert_array_equal(gi.as_adjacency(sp.csr_array(A), weight="weight").matrix.toarray(), A)
    np.testing.assert_array_equal(gi.as_adjacency(A).matrix.toarray(), (A > 0).astype(float))
    # zero-weight edges are dropped
    G[0][1]["weight"] = 0.0
    assert gi.as_adjacency(G, weight="weight").matrix[0, 1] == 0
    assert gi.as_adjacency(G, weight="weight").matrix.nnz == 3


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_bad_weights_raise(bad):
    G = nx.Graph()
    G.add_edge(0, 1, weight=bad)
    with pytest.raises(ValueError, match="weights"):
        gi.as_adjacency(G, weight="weight")
    g = ig.Graph([(0, 1)])
    g.es["weight"] = [bad]
    with pytest.raises(ValueError, match="weights"):
        gi.as_adjacency(g, weight="weight")
    with pytest.raises(ValueError, match="weights"):
        gi.as_adjacency(np.array([[0.0, bad], [bad, 0.0]]))


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="expected a networkx graph"):
        gi.as_adjacency([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="expected a networkx graph"):
        gi.as_adjacency("not a graph")
    with pytest.raises(ValueError, match="square"):
        gi.as_adjacency(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="square"):
        gi.as_adjacency(sp.csr_array(np.zeros((2, 3))))
    with pytest.raises(ValueError, match="2-D"):
        gi.as_adjacency(np.zeros(4))
    with pytest.raises(TypeError, match="numeric"):
        gi.as_adjacency(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(TypeError, match="real"):
        gi.as_adjacency(np.eye(2, dtype=complex))
    with pytest.raises(ValueError, match="has no attribute 'weight'"):
        gi.as_adjacency(ig.Graph([(0, 1)]), weight="weight")
    with pytest.raises(ValueError, match="has no attribute 'weight'"):
        gi.as_adjacency(nx.Graph([(0, 1)]), weight="weight")
    for value in ("heavy", "2.5", True):
        G = nx.Graph()
        G.add_edge(0, 1, weight=value)
        with pytest.raises(ValueError, match="must be a real number"):
            gi.as_adjacency(G, weight="weight")


def test_input_matrix_is_not_modified():
    A = sp.csr_array(np.array([[0, 2.0], [2.0, 0]]))
    gi.as_adjacency(A)
    assert A.data.tolist() == [2.0, 2.0]


def test_empty_graph_converts_but_summary_rejects_it():
    assert gi.as_adjacency(nx.Graph()).n_nodes == 0
    with pytest.raises(ValueError, match="no nodes"):
        gi.power_summary(nx.Graph())
    with pytest.raises(ValueError, match="no nodes"):
        gi.power_kernel(nx.Graph(), nx.path_graph(3))


def test_n_edges_counts_an_undirected_edge_once_and_an_arc_once():
    # issue 44 item 14
    G = nx.Graph([(0, 1), (1, 2), (2, 2)])
    assert gi.as_adjacency(G).n_edges == 3
    D = nx.DiGraph([(0, 1), (1, 0), (1, 2), (2, 2)])
    assert gi.as_adjacency(D).n_edges == 4  # asymmetric: every stored entry is an arc
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    assert gi.as_adjacency(M).n_edges == 2  # parallel edges collapse without weight
    assert gi.from_edge_arrays(np.array([0, 1]), np.array([1, 2])).n_edges == 2
    assert gi.from_edge_arrays(np.array([0, 1]), np.array([1, 2]), directed=True).n_edges == 2
    # a directed graph whose arcs all come in pairs has a symmetric matrix: counted as pairs
    assert gi.as_adjacency(nx.DiGraph([(0, 1), (1, 0)])).n_edges == 1
    W = nx.DiGraph()
    W.add_edge(0, 1, weight=1.0)
    W.add_edge(1, 0, weight=2.0)  # the same pattern, other weights: two arcs
    assert gi.as_adjacency(W, weight="weight").n_edges == 2
    assert gi.as_adjacency(np.zeros((3, 3))).n_edges == 0
    assert isinstance(gi.as_adjacency(G).n_edges, int)


def _graph_functions():
    from graphinvariants.perturbation import PerturbedGraph

    G = nx.path_graph(4)
    return {
        "as_adjacency": gi.as_adjacency,
        "power_invariants": lambda x: gi.power_invariants(x, k=3),
        "power_kernel": lambda x: gi.power_kernel(x, G, k=3),
        "perturbation_study": lambda x: gi.perturbation_study(x, n_steps=2, seed=0),
        "PerturbedGraph": PerturbedGraph,
        "flip_node_pair": lambda x: gi.flip_node_pair(x, 0, 1),
        "power_kernel_matrix": lambda x: gi.power_kernel_matrix(x, k=3),
        "power_kernel_matrix of a list": lambda x: gi.power_kernel_matrix([x, x] if not isinstance(x, list) else x,
                                                                          k=3),
        "GraphKernel": lambda x: gi.GraphKernel(kernel="wl").fit([x, G]),
        "kernel_matrix of a list": lambda x: gi.kernel_matrix([G, x] if not isinstance(x, list) else x, kernel="wl"),
    }


@pytest.mark.parametrize("function", list(_graph_functions()))
@pytest.mark.parametrize("kind", ["existing", "suffix", "compressed", "pathlib", "list"])
def test_a_path_given_as_a_graph_names_read_edgelist(tmp_path, monkeypatch, function, kind):
    # issue 44 item 19: one helper of the input layer, used by every graph argument
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "karate").write_text("1 2\n")  # a file without suffix, found on disk
    value = {"existing": "karate", "suffix": "data/web-Google.txt", "compressed": "edges.csv.gz",
             "pathlib": Path("edges.parquet"), "list": ["a.txt", "b.txt"]}[kind]
    with pytest.raises((TypeError, ValueError), match=r"read_edgelist") as err:
        _graph_functions()[function](value)
    assert "from_smiles" not in str(err.value)


@pytest.mark.parametrize("smiles", ["CCO", "F/C=C/F", "[Na+].[Cl-]"])
def test_a_smiles_string_given_as_a_graph_still_names_from_smiles(smiles):
    with pytest.raises(TypeError, match="from_smiles") as err:
        gi.power_invariants(smiles, k=3)
    assert "read_edgelist" not in str(err.value)


def test_a_smiles_string_that_names_a_file_is_still_read_as_smiles(tmp_path, monkeypatch):
    """A list of SMILES is taken by its form: a string that also names a file of the
    working folder ("CCO" here) was refused as a file (issue 44 item 19's hint looked on
    disk first); a string RDKit cannot read that names a file still gets the hint."""
    pytest.importorskip("rdkit")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "CCO").write_text("1 2\n")
    (tmp_path / "edges").write_text("1 2\n")
    batch = gi.graphs.as_graph_batch(["CCO", "CC"])
    assert batch.n_graphs == 2 and batch.sizes.tolist() == [3, 2]
    with pytest.raises(ValueError, match=r"RDKit cannot read 'edges'.*read_edgelist"):
        gi.graphs.as_graph_batch(["edges", "CC"])
