"""Molecules from SMILES and RDKit: atoms labelled by element, bonds by type."""

import sys

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import from_mol, from_smiles


def test_without_rdkit_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdkit", None)  # import rdkit now raises ImportError
    monkeypatch.setitem(sys.modules, "rdkit.Chem", None)  # (and so does rdkit.Chem, imported already or not)
    with pytest.raises(ImportError, match=r'install it with: pip install "graphinvariants\[chem\]"'):
        from_smiles("CCO")
    with pytest.raises(ImportError, match=r"graphinvariants\[chem\]"):
        from_mol(object())


def test_atoms_and_bonds_carry_their_types():
    pytest.importorskip("rdkit")
    ethanol = from_smiles("CCO")
    assert dict(ethanol.nodes(data="label")) == {0: "C", 1: "C", 2: "O"}
    assert dict(ethanol.nodes(data="atomic_number")) == {0: 6, 1: 6, 2: 8}
    assert set(nx.get_edge_attributes(ethanol, "label").values()) == {"SINGLE"}
    assert ethanol.graph["smiles"] == "CCO"
    assert from_smiles("C=O").edges[0, 1] == {"label": "DOUBLE", "bond_order": 2.0}
    assert from_smiles("C#N").edges[0, 1] == {"label": "TRIPLE", "bond_order": 3.0}
    benzene = from_smiles("c1ccccc1")
    assert nx.is_isomorphic(benzene, nx.cycle_graph(6))
    assert set(nx.get_edge_attributes(benzene, "bond_order").values()) == {1.5}
    assert from_smiles("[NH4+]").nodes[0]["formal_charge"] == 1
    methane = from_smiles("C", hydrogens=True)
    assert methane.number_of_nodes() == 5 and sorted(dict(methane.nodes(data="label")).values()) == ["C"] + ["H"] * 4


def test_benzene_and_pyridine_differ_only_in_their_labels():
    pytest.importorskip("rdkit")
    benzene, pyridine = from_smiles("c1ccccc1"), from_smiles("c1ccncc1")
    for kernel in ("wl", "labelled_histogram"):
        K = gi.kernel_matrix([benzene, pyridine], kernel=kernel, node_label="label")
        np.testing.assert_allclose(np.diag(K), 1.0)  # a unit diagonal, to rounding
        assert K[0, 1] < 0.99
    plain = gi.kernel_matrix([benzene, pyridine], kernel="wl")  # unlabelled: the same six-ring
    assert plain[0, 1] == pytest.approx(1.0, abs=1e-12)
    batch = gi.as_graph_batch([benzene, pyridine], node_label="label", edge_label="label")
    assert batch.edge_labels.tolist() == ["AROMATIC"] * 24
    assert sorted(batch.node_labels[6:].tolist()) == ["C"] * 5 + ["N"]


def test_another_atom_order_is_the_same_labelled_graph():
    pytest.importorskip("rdkit")
    a, b = from_smiles("CC(=O)Nc1ccc(O)cc1"), from_smiles("Oc1ccc(NC(C)=O)cc1")  # paracetamol twice
    assert list(a.nodes(data="label")) != list(b.nodes(data="label"))
    match = nx.algorithms.isomorphism.GraphMatcher(
        a, b, node_match=lambda x, y: x["label"] == y["label"], edge_match=lambda x, y: x["label"] == y["label"])
    assert match.is_isomorphic()
    K = gi.kernel_matrix([a], [b], kernel="wl", node_label="label")
    assert K[0, 0] == pytest.approx(1.0, abs=1e-12)
    options = {"node_label": "label", "edge_label": "label"}
    ours, theirs = gi.as_graph_batch([a], **options), gi.as_graph_batch([ig.Graph.from_networkx(a)], **options)
    np.testing.assert_array_equal(ours.edge_labels, theirs.edge_labels)  # exact: bond-type labels, not floats


def test_bad_input_is_refused_clearly():
    Chem = pytest.importorskip("rdkit.Chem")
    with pytest.raises(ValueError, match=r"RDKit cannot read 'C1CC' as a SMILES string"):
        from_smiles("C1CC")
    with pytest.raises(ValueError, match="holds no atom"):
        from_smiles("")
    with pytest.raises(TypeError, match=r"got list; from_smiles reads one SMILES string, and every function that "
                                        r"takes graphs takes a list of SMILES strings as it is"):
        from_smiles(["CCO", "CC"])
    with pytest.raises(TypeError, match="mol must be an RDKit molecule .* for a SMILES string use from_smiles"):
        from_mol("CCO")
    with pytest.raises(TypeError, match="hydrogens must be True or False"):
        from_mol(Chem.MolFromSmiles("C"), hydrogens="yes")


def test_smiles_in_a_collection_without_rdkit_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdkit", None)
    monkeypatch.setitem(sys.modules, "rdkit.Chem", None)
    with pytest.raises(ImportError, match=r'molecules need RDKit .*pip install "graphinvariants\[chem\]"'):
        gi.kernel_matrix(["CCO", "CC"], kernel="power")
    gi.kernel_matrix([nx.path_graph(3)], kernel="power")  # graphs never import RDKit


def test_as_molecules_tells_how_to_read_smiles_in_mutagenicity_s_vocabulary(tu_load):
    """Mutagenicity holds hydrogens as atoms and Kekulé bonds. The recipe the
    docstring gives (kekulize, then from_mol with hydrogens=True) yields exactly that
    vocabulary, and the recipe it gave before (from_smiles(s, hydrogens=True) after
    Chem.Kekulize) does not: from_smiles parses again and keeps aromatic bonds."""
    from rdkit import Chem

    from graphinvariants.datasets import as_molecules

    doc = as_molecules.__doc__
    assert ":func:`from_mol` and ``hydrogens=True``" in doc and "``from_smiles(s, hydrogens=True)`` parses" in doc
    mutagenicity = as_molecules(tu_load("Mutagenicity"))
    atoms = set(mutagenicity.batch.node_labels.tolist())
    bonds = set(mutagenicity.batch.edge_labels.tolist())
    assert "H" in atoms and bonds <= {"SINGLE", "DOUBLE", "TRIPLE"}
    for smiles in ("c1ccccc1[N+](=O)[O-]", "Cc1ccc2ccccc2c1N", "c1ccc2[nH]ccc2c1"):
        mol = Chem.MolFromSmiles(smiles)
        Chem.Kekulize(mol, clearAromaticFlags=True)
        G = from_mol(mol, hydrogens=True)
        assert set(dict(G.nodes(data="label")).values()) <= atoms and "H" in dict(G.nodes(data="label")).values()
        assert {b for _, _, b in G.edges(data="label")} <= bonds
        assert "AROMATIC" in {b for _, _, b in from_smiles(smiles, hydrogens=True).edges(data="label")}


def _nitro_groups(G):
    """Nitrogens of a TU graph with two oxygens that have no other neighbour."""
    codes = {}
    for v, label in G.nodes(data="label"):
        codes[v] = label
    return sum(
        1 for v in G if codes[v] == 1 and sum(1 for w in G[v] if codes[w] == 2 and G.degree(w) == 1) == 2
    )


def test_to_mol_writes_tu_nitro_groups_charge_separated(tu_load):
    """MUTAG draws nitro groups without charges; RDKit read them as N-hydroxy groups
    (``O=N(O)...``). Every nitro group of MUTAG (nitrogen code 1, oxygen code 2) is now
    ``[N+](=O)[O-]`` in the molecule RDKit reads back from its canonical SMILES (whose
    atom order is RDKit's), no N-OH is left, and the molecules pass
    RDKit's full sanitisation (but two, whose carbon has five bonds in the data)."""
    from rdkit import Chem

    from graphinvariants.datasets import to_mol

    mutag = tu_load("MUTAG")
    with_nitro = [i for i in range(len(mutag)) if _nitro_groups(mutag[i])]
    assert len(with_nitro) > 100
    nitro, hydroxy = Chem.MolFromSmarts("[N+](=O)[O-]"), Chem.MolFromSmarts("N[OX1;H1,H0;+0]")
    failures = 0
    for i in range(len(mutag)):
        mol = to_mol(mutag[i])
        smiles = Chem.MolToSmiles(mol)
        again = Chem.MolFromSmiles(smiles, sanitize=False)
        again.UpdatePropertyCache(strict=False)
        assert len(again.GetSubstructMatches(nitro)) == _nitro_groups(mutag[i]), (i, smiles)
        assert not again.GetSubstructMatches(hydroxy), (i, smiles)
        try:
            Chem.SanitizeMol(Chem.Mol(mol))
        except Exception:  # noqa: BLE001 - RDKit raises its own valence errors
            failures += 1
    assert failures <= 2


def test_to_mol_separates_charges_of_pentavalent_nitrogen_and_n_oxides():
    """The same rule in Mutagenicity's drawing (``N(=O)=O``, hydrogens as atoms) and on
    an aromatic N-oxide; nitrogens that carry charges or a normal valence are kept."""
    from rdkit import Chem

    from graphinvariants.datasets import to_mol

    def graph(atoms, bonds):
        G = nx.Graph()
        G.add_nodes_from((i, {"label": a}) for i, a in enumerate(atoms))
        G.add_edges_from((u, v, {"label": b}) for u, v, b in bonds)
        return G

    nitromethane = graph("CNOOHHH", [(0, 1, "SINGLE"), (1, 2, "DOUBLE"), (1, 3, "DOUBLE"), (0, 4, "SINGLE"),
                                     (0, 5, "SINGLE"), (0, 6, "SINGLE")])
    assert Chem.MolToSmiles(Chem.RemoveHs(to_mol(nitromethane))) == "C[N+](=O)[O-]"
    ring = [(i, (i + 1) % 6, "AROMATIC") for i in range(6)]
    pyridine_oxide = graph("NCCCCCO", ring + [(0, 6, "SINGLE")])
    assert Chem.MolToSmiles(to_mol(pyridine_oxide)) == "[O-][n+]1ccccc1"
    for smiles in ("CN(C)O", "c1ccncc1", "C[N+](C)(C)C", "CC(=O)NO"):
        assert Chem.MolToSmiles(to_mol(from_smiles(smiles))) == Chem.CanonSmiles(smiles)
