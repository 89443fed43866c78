"""SMILES strings wherever graphs are taken, read as molecules whose atoms and bonds
the kernels tell apart (issue 38, items 8, 9, 10 and 22)."""

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi

pytest.importorskip("rdkit")

from graphinvariants.datasets import TU_MOLECULES, as_molecules, from_smiles, to_mol  # noqa: E402


def test_the_readme_search_tells_atoms_and_bonds_apart():
    search = gi.NearestGraphs(kernel=gi.GraphKernel(kernel="wl"), n_neighbors=3).fit(["CCO", "CCN", "CCC"])
    distances, _ = search.kneighbors(["CCS"])
    assert distances.min() > 0.1  # degrees alone put CCS at distance 0 from all three
    search = gi.NearestGraphs(kernel="wl", n_neighbors=1).fit(["c1ccccc1"])
    distances, _ = search.kneighbors(["C1CCCCC1", "c1ccncc1", "c1ccccc1"])
    assert distances[0, 0] > 0.1 and distances[1, 0] > 0.1  # cyclohexane (single bonds), pyridine (a nitrogen)
    assert distances[2, 0] == pytest.approx(0.0, abs=1e-7)  # benzene itself
    features = gi.NearestGraphs(kernel=gi.GraphFeatures("wl"), n_neighbors=3).fit(["CCO", "CCN", "CCC"])
    assert features.kneighbors(["CCS"])[0].min() > 0.1  # an unfitted feature map named for SMILES too
    learned = gi.NearestGraphs(n_neighbors=1, seed=0).fit(["CCO", "CCN", "CCC", "CCS"], [0, 1, 0, 1])
    assert learned.kneighbors(["CCS"])[1][0, 0] == 3  # the learned default reads atoms and bonds anyway
    approximate = gi.NearestGraphs(kernel="wl", n_neighbors=1, index="approximate", seed=0)
    pytest.importorskip("faiss")
    distances, _ = approximate.fit(["c1ccccc1", "CCO"]).kneighbors(["C1CCCCC1"])
    assert distances[0, 0] > 0.1


def test_smiles_read_atoms_and_bonds_in_every_entry_point():
    smiles = ["CCO", "CCS", "C1CCCCC1", "c1ccccc1", "c1ccncc1"]
    graphs = [from_smiles(s) for s in smiles]
    K = gi.kernel_matrix(smiles, kernel="wl")
    expected = gi.kernel_matrix(graphs, kernel="wl", node_label="label", edge_label="label")
    np.testing.assert_array_equal(K, expected)  # the same batch, read the same way: equal by construction
    assert K[0, 1] < 0.99 and K[2, 3] < 0.99 and K[3, 4] < 0.99
    model = gi.GraphKernel(kernel="wl").fit(smiles, [0, 1, 0, 1, 0])
    np.testing.assert_array_equal(model.transform(graphs), expected)  # fitted on strings, queried with graphs
    np.testing.assert_array_equal(gi.GraphKernel(kernel="wl").fit_transform(smiles), expected)
    learned = gi.GraphKernel().fit(smiles, [0, 1, 0, 1, 0])
    assert any("label" in name for name in learned.members_ + list(learned.alignments_))
    batch = gi.as_graph_batch(smiles, node_label="label", edge_label="label")
    assert batch.node_labels[:3].tolist() == ["C", "C", "O"] and batch.edge_labels[0] == "SINGLE"
    plain = gi.kernel_matrix(smiles, kernel="power")  # a member that reads no labels: structure only
    assert plain[0, 1] == pytest.approx(1.0, abs=1e-12)
    given = gi.kernel_matrix(smiles, kernel="wl", node_label=None, edge_label=None)  # told otherwise: degrees
    assert given[0, 1] == pytest.approx(1.0, abs=1e-12)


def test_a_bad_smiles_string_is_reported_with_its_position():
    with pytest.raises(ValueError, match=r"graphs\[2\]: RDKit cannot read 'C1CC' as a SMILES string"):
        gi.kernel_matrix(["CCO", "CC", "C1CC"], kernel="wl")
    search = gi.NearestGraphs(kernel="wl", n_neighbors=1).fit(["CCO", "CC"])
    with pytest.raises(ValueError, match=r"graphs\[1\]: RDKit cannot read 'xyz'"):
        search.kneighbors(["CCO", "xyz"])
    with pytest.raises(TypeError, match=r"X\[1\] is a int, .*SMILES strings and graphs are not mixed"):
        gi.GraphKernel(kernel="wl").fit(["CCO", 3])


def test_from_smiles_of_a_list_says_where_lists_go():
    with pytest.raises(TypeError, match=r"got builtins.str; one SMILES string is not a graph: .*from_smiles\(s\)"):
        gi.as_adjacency("CCO")
    with pytest.raises(TypeError, match=r"one SMILES string.*every function that takes graphs takes a list of SMILES"):
        from_smiles(["CCO", "CC"])


def test_tu_molecules_and_smiles_share_one_vocabulary(tu_load):
    Chem = pytest.importorskip("rdkit.Chem")
    mutag = tu_load("MUTAG")
    atoms_read = gi.GraphKernel(kernel="wl", node_label="label", edge_label="label")
    with pytest.raises(TypeError, match=r"numbers and of the other strings.*as_molecules"):
        gi.NearestGraphs(kernel=atoms_read, n_neighbors=1).fit(mutag).kneighbors(["c1ccccc1[N+](=O)[O-]"])
    molecules = as_molecules(mutag)
    atoms, bonds = TU_MOLECULES["MUTAG"]
    assert molecules.node_labels.tolist() == [atoms[a] for a in mutag.node_labels.tolist()]
    assert molecules.edge_labels.tolist() == [bonds[b] for b in mutag.edge_labels.tolist()]
    np.testing.assert_array_equal(molecules.y, mutag.y)
    search = gi.NearestGraphs(kernel=atoms_read, n_neighbors=1).fit(molecules)
    distances, indices = search.kneighbors([molecules[150]])
    assert indices[0, 0] == 150 and distances[0, 0] == pytest.approx(0.0, abs=1e-7)
    # MUTAG draws nitro groups with a neutral pentavalent N (RDKit refuses it); charged, graph 0 is this SMILES,
    # with the same atoms and bonds (N=O and N-O), so the labelled graphs are equal and the distance 0
    distances, indices = search.kneighbors(["O=[N+]([O-])c1ccc2c(ccc3ccccc32)c1"], n_neighbors=3)
    assert indices[0, 0] == 0 and distances[0, 0] == pytest.approx(0.0, abs=1e-7) and distances[0, 1] > 0.01
    assert as_molecules(mutag[100:120]).node_labels.tolist() == molecules[100:120].node_labels.tolist()
    with pytest.raises(ValueError, match=r"no atom and bond tables for 'NCI1'.*atoms=.*bonds="):
        as_molecules(gi.TUDataset("NCI1", mutag.batch, mutag.y))


def test_to_mol_of_a_tu_graph_uses_its_tables(tu_load):
    Chem = pytest.importorskip("rdkit.Chem")
    mutag = tu_load("MUTAG")
    mol = to_mol(mutag[150])
    atoms, bonds = TU_MOLECULES["MUTAG"]
    assert [a.GetSymbol() for a in mol.GetAtoms()] == [atoms[label] for _, label in mutag[150].nodes(data="label")]
    assert Chem.MolToSmiles(mol) == Chem.MolToSmiles(to_mol(as_molecules(mutag)[150]))
    G = mutag[150]
    G.graph.pop("name")
    with pytest.raises(ValueError, match=r"integer codes.*atoms=TU_MOLECULES\[NAME\]\[0\].*as_molecules"):
        to_mol(G)


@pytest.mark.parametrize("order", ["graph first", "SMILES first"])
@pytest.mark.parametrize("path", ["kernel_matrix wl", "kernel_matrix descriptors", "kernel_matrix power",
                                  "GraphFeatures", "NearestGraphs", "GraphKernel", "GraphKernel wl",
                                  "as_graph_batch"])
def test_molecules_and_graphs_mixed_get_one_message_in_either_order(order, path):
    # issue 52, item 7: a from_smiles graph then a SMILES string got "edge labels can be
    # read from NetworkX and igraph graphs, not from a builtins.str" (descriptors,
    # NearestGraphs("wl")) or "expected a networkx graph" (the others); the reverse
    # order said what was wrong. Both orders now say it, on every path.
    pytest.importorskip("rdkit")
    X = [from_smiles("CCO"), "CCCO", "c1ccccc1"] if order == "graph first" else ["CCCO", from_smiles("CCO"), "CCN"]
    calls = {"kernel_matrix wl": lambda: gi.kernel_matrix(X, kernel="wl"),
             "kernel_matrix descriptors": lambda: gi.kernel_matrix(X, kernel="descriptors"),
             "kernel_matrix power": lambda: gi.kernel_matrix(X),
             "GraphFeatures": lambda: gi.GraphFeatures("wl").fit(X),
             "NearestGraphs": lambda: gi.NearestGraphs("wl").fit(X),
             "GraphKernel": lambda: gi.GraphKernel().fit(X, [0.0, 1.0, 2.0]),
             "GraphKernel wl": lambda: gi.GraphKernel(kernel="wl").fit(X),
             "as_graph_batch": lambda: gi.as_graph_batch(X)}
    kinds = (r"a molecule \(a SMILES string\), but \w+\[0\] is a graph \(networkx.Graph\)" if order == "graph first"
             else r"a graph \(networkx.Graph\), but \w+\[0\] is a molecule \(a SMILES string\)")
    with pytest.raises(TypeError, match=rf"^\w+\[1\] is {kinds}: .*SMILES strings and graphs are not mixed"):
        calls[path]()
