"""The descriptors member: an RBF kernel on standardised RDKit descriptors of molecules."""

import sys

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import as_molecules, from_smiles

from ..conftest import renumbered

pytest.importorskip("rdkit")

from rdkit import Chem  # noqa: E402
from rdkit.Chem import Descriptors  # noqa: E402

from graphinvariants.embeddings import MolecularDescriptors, batch_molecules, descriptor_table  # noqa: E402
from graphinvariants.embeddings.descriptors import BASIC_DESCRIPTORS, rdkit_descriptors  # noqa: E402

#: Neutral molecules without aromatic [nH]: what their SMILES spells, their labels say.
SMILES = ["CCO", "CCCO", "c1ccccc1", "CC(=O)N", "ClC(Cl)Cl", "c1ccncc1", "CC(C)CC(=O)O", "OCC(O)CO",
          "c1ccc2ccccc2c1", "CCN(CC)CC", "FC(F)(F)c1ccccc1", "CC#N", "O=C1CCCCC1", "CSC", "Oc1ccccc1Cl"]


def _brute_force(train, test=None, names=BASIC_DESCRIPTORS, scale=1.0):
    """exp(-|z - z'|^2 / 2h^2) by hand: RDKit's descriptors of the molecules the SMILES
    spell, standardised on ``train``, h = scale * sqrt(median squared distance)."""
    functions = dict(Descriptors.descList)

    def table(smiles):
        return np.array([[functions[n](Chem.MolFromSmiles(s)) for n in names] for s in smiles])

    A = table(train)
    mean, std = A.mean(axis=0), A.std(axis=0)
    std[std == 0] = 1.0
    Z = (A - mean) / std
    squared = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    h = scale * np.sqrt(np.median(squared[np.triu_indices(len(Z), 1)]))
    W = Z if test is None else (table(test) - mean) / std
    return np.exp(-((W[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2) / (2 * h * h)), h


def test_against_brute_force_rbf_over_standardised_descriptors():
    functional = MolecularDescriptors(descriptors=BASIC_DESCRIPTORS)
    K = gi.kernels.pairwise_kernels(SMILES, functional=functional)
    expected, h = _brute_force(SMILES)
    # RDKit sums atom contributions in atom order (ours canonical, the brute force's as
    # parsed), and the exact form rounds each RBF value to a multiple of 2**-52: 1e-12
    assert functional.bandwidth_ == pytest.approx(h, rel=1e-12)
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12)


def test_cross_matrix_is_standardised_on_the_fitted_molecules():
    train, test = SMILES[:10], SMILES[10:]
    model = gi.GraphKernel(kernel="descriptors", descriptors=BASIC_DESCRIPTORS, bandwidth_scale=0.5).fit(train)
    expected, _ = _brute_force(train, test, scale=0.5)
    np.testing.assert_allclose(model.transform(test), expected, rtol=0, atol=1e-12)  # as above


def test_unit_diagonal_symmetry_and_psd():
    K = gi.kernel_matrix(SMILES, kernel="descriptors")  # the default set
    assert np.array_equal(np.diag(K), np.ones(len(SMILES)))
    assert np.array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-12  # an RBF Gram matrix: PSD up to rounding
    assert 0 < K.min() and K.max() <= 1


def test_renumbered_molecules_give_the_same_values_to_the_bit():
    rng = np.random.default_rng(3)
    graphs = [from_smiles(s) for s in SMILES]
    moved = [renumbered(G, rng) for G in graphs]
    functional = MolecularDescriptors()
    K = gi.kernels.pairwise_kernels(graphs, functional=functional)
    assert np.array_equal(gi.kernels.pairwise_kernels(moved, functional=functional), K)
    assert np.array_equal(gi.kernel_matrix(SMILES, kernel="descriptors"), K)  # SMILES and their graphs alike
    assert np.array_equal(gi.kernel_matrix([Chem.MolFromSmiles(s) for s in SMILES], kernel="descriptors"), K)


def test_in_combinations_by_name():
    wl = gi.kernel_matrix(SMILES, kernel="wl")
    descriptors = gi.kernel_matrix(SMILES, kernel="descriptors")
    np.testing.assert_allclose(gi.kernel_matrix(SMILES, kernel="wl+descriptors"), (wl + descriptors) / 2,
                               rtol=0, atol=1e-15)  # one sum and one halving per value
    np.testing.assert_allclose(gi.kernel_matrix(SMILES, kernel="wl*descriptors"), wl * descriptors, rtol=0, atol=1e-15)
    assert "descriptors" in gi.KERNELS


def test_random_features_are_graphfeatures_rows():
    kernel = "descriptors:n_features=300"
    features = gi.GraphFeatures(kernel=kernel, seed=0).fit(SMILES)
    rows = features.transform(SMILES)
    K = features.kernel_.transform(SMILES)  # the kernel of the random map GraphFeatures drew
    assert features.approximate_ == []
    # the kernel's inner products are of the rows split into 22-bit integers (MeanMap's
    # _SplitRows for 300 features), the rows' plain ones are BLAS's: they differ by ~1e-12
    np.testing.assert_allclose((rows @ rows.T).toarray(), K, rtol=0, atol=1e-11)
    exact = gi.kernel_matrix(SMILES, kernel="descriptors")
    assert np.abs(K - exact).max() < 0.2  # 300 random features approximate the RBF


def test_graphs_that_are_not_molecules_are_refused(tu_load):
    with pytest.raises(ValueError, match="not molecules.*has no attribute 'label'"):
        gi.kernel_matrix([nx.path_graph(3), nx.cycle_graph(4)], kernel="descriptors")
    mutag = tu_load("MUTAG")[:5]
    with pytest.raises(ValueError, match="not molecules.*as_molecules"):
        gi.kernel_matrix(mutag, kernel="descriptors")
    G = nx.path_graph(2)
    nx.set_node_attributes(G, "Xx", "label")
    nx.set_edge_attributes(G, "SINGLE", "label")
    with pytest.raises(ValueError, match=r"graphs\[0\] are not molecules.*'Xx' is not an element"):
        gi.kernel_matrix([G, G], kernel="descriptors")
    with pytest.raises(ValueError, match="is not an RDKit descriptor"):
        MolecularDescriptors(descriptors=("MolLogP", "LogP"))
    assert gi.kernel_matrix(as_molecules(mutag), kernel="descriptors").shape == (5, 5)


def test_without_rdkit_the_error_says_what_to_install(monkeypatch):
    for name in ("rdkit", "rdkit.Chem", "rdkit.Chem.Descriptors"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "graphinvariants\[chem\]"'):
        MolecularDescriptors()
    with pytest.raises(ImportError, match=r"graphinvariants\[chem\]"):
        gi.make_functional("wl+descriptors") if hasattr(gi, "make_functional") else \
            gi.kernels.make_functional("wl+descriptors")


def test_the_learned_default_offers_it_for_molecules_only(tu_load, monkeypatch):
    y = np.array([Descriptors.MolLogP(Chem.MolFromSmiles(s)) for s in SMILES])
    for molecules in (SMILES, [from_smiles(s) for s in SMILES], [Chem.MolFromSmiles(s) for s in SMILES]):
        model = gi.GraphKernel(seed=0).fit(molecules, y)
        assert "descriptors" in model.combination_.functionals
    mutag = tu_load("MUTAG")[:30]
    assert "descriptors" in gi.GraphKernel(seed=0).fit(as_molecules(mutag), mutag.y).combination_.functionals
    assert "descriptors" not in gi.GraphKernel(seed=0).fit(mutag, mutag.y).combination_.functionals  # integer codes
    graphs = [nx.cycle_graph(n) for n in range(4, 10)] + [nx.star_graph(n) for n in range(3, 9)]
    plain = gi.GraphKernel(seed=0).fit(graphs, [0] * 6 + [1] * 6)
    assert "descriptors" not in plain.combination_.functionals
    monkeypatch.setitem(sys.modules, "rdkit", None)  # without RDKit: no descriptors, nothing refused
    assert "descriptors" not in gi.GraphKernel(seed=0).fit(as_molecules(mutag), mutag.y).combination_.functionals


def test_a_model_fitted_with_descriptors_refuses_graphs_that_are_not_molecules():
    y = np.array([Descriptors.TPSA(Chem.MolFromSmiles(s)) for s in SMILES])
    model = gi.GraphKernel(seed=0, members=("descriptors", "wl")).fit(SMILES, y)
    assert model.transform(SMILES[:3]).shape == (3, len(SMILES))
    G = nx.path_graph(3)
    nx.set_node_attributes(G, 1, "label")
    nx.set_edge_attributes(G, 1, "label")
    with pytest.raises(ValueError, match="fitted on molecules"):
        model.transform([G])


def test_explanations_split_its_share_over_atoms_completely():
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import Pipeline

    y = np.array([Descriptors.MolLogP(Chem.MolFromSmiles(s)) for s in SMILES])
    model = Pipeline([("kernel", gi.GraphKernel(seed=0, members=("descriptors", "wl_label"))),
                      ("ridge", KernelRidge(kernel="precomputed", alpha=0.1))]).fit(SMILES, y)
    assert model[0].weights_.get("descriptors", 0) > 0
    result = gi.explain(model, SMILES[:3], seed=0)  # explain checks completeness before returning
    assert "descriptors" in result.sampled_members and "descriptors" in result.exact_members  # its additive part
    for i, values in enumerate(result.node_values):
        assert len(values) == Chem.MolFromSmiles(SMILES[i]).GetNumAtoms()
        assert result.base_value + values.sum() == pytest.approx(result.output[i], rel=1e-8, abs=1e-10)


def test_additive_descriptors_are_the_sums_of_their_atoms_parts(tu_load):
    """Every descriptor of ADDITIVE: RDKit's per-atom parts add up to RDKit's value to
    rounding, on SMILES (implicit hydrogens) and Mutagenicity (hydrogens as atoms);
    atom_values gives them in the graph's node order, whatever the numbering."""
    from graphinvariants.datasets import to_mol
    from graphinvariants.embeddings.descriptors import ADDITIVE, atom_contributions

    names = list(ADDITIVE)
    assert {"MolLogP", "MolMR", "TPSA", "LabuteASA", "SlogP_VSA1", "VSA_EState10"} <= set(names)
    assert set(names) <= set(rdkit_descriptors())  # all in the default set
    graphs = [from_smiles(s) for s in SMILES] + list(as_molecules(tu_load("Mutagenicity")[:40]))
    mols = [to_mol(G) for G in graphs]
    sums = np.array([parts.sum(axis=0) for parts in atom_contributions(mols, names)])
    table = descriptor_table(mols, names)
    assert np.all(np.abs(sums - table) <= 1e-10 * np.maximum(1.0, np.abs(table)))
    functional = MolecularDescriptors(descriptors=["MolLogP", "NumHDonors", "TPSA"])
    G = graphs[-1]
    H = renumbered(G, np.random.default_rng(0))  # node i of G is node perm[i] of H
    values = [functional.atom_values(functional.graph_batch([X])) for X in (G, H)]
    assert np.isnan(values[0][:, 1]).all()
    by_label = lambda X, v: sorted(zip([d["label"] for _, d in X.nodes(data=True)], v[:, 0].round(12)))  # noqa: E731
    assert by_label(G, values[0]) == by_label(H, values[1])


def test_an_additive_descriptors_atoms_get_their_rdkit_parts_of_its_share():
    """A kernel ridge model on MolLogP and NumHDonors: the exact part of an atom is its
    Crippen contribution scaled as the member scales the descriptor (1 / (std h)), times
    the integral of the term's gradient along the line where logP grows from a molecule
    without atoms (the other descriptor held); the exact parts add up to the term's
    change along that line, and the sampled part to the term at its start, both
    computed here by hand (scipy's quadrature)."""
    from scipy.integrate import quad
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import Pipeline

    from graphinvariants.datasets import to_mol
    from graphinvariants.embeddings.descriptors import atom_contributions

    names = ["MolLogP", "NumHDonors"]
    y = np.array([Descriptors.MolLogP(Chem.MolFromSmiles(s)) for s in SMILES])
    kernel = gi.GraphKernel(kernel="descriptors", descriptors=names)
    model = Pipeline([("kernel", kernel), ("ridge", KernelRidge(kernel="precomputed", alpha=0.1))]).fit(SMILES, y)
    new = ["CCCCO", "Clc1ccccc1O", "CC(C)N"]
    result = gi.explain(model, new, seed=0)
    assert result.exact_members == ["descriptors"] == result.sampled_members
    f = model[0].functional_
    mean, scale, h = f.attribute_mean_, f.attribute_scale_, f.bandwidth_
    train = (descriptor_table([Chem.MolFromSmiles(s) for s in SMILES], names) - mean) / (scale * h)
    alpha = model[1].dual_coef_
    term = lambda p: float(alpha @ np.exp(-((train - p) ** 2).sum(axis=1) / 2))  # noqa: E731
    for i, smiles in enumerate(new):
        mol = to_mol(gi.datasets.from_smiles(smiles))
        p = (descriptor_table([mol], names)[0] - mean) / (scale * h)
        start = np.array([-mean[0] / (scale[0] * h), p[1]])  # logP of a molecule without atoms: 0
        line = lambda t: start + t * (p - start)  # noqa: E731
        gradient = lambda t: float(alpha @ (np.exp(-((train - line(t)) ** 2).sum(axis=1) / 2)  # noqa: E731
                                            * (train[:, 0] - line(t)[0])))
        integral = quad(gradient, 0.0, 1.0, epsabs=1e-13, epsrel=1e-12)[0]
        crippen = atom_contributions([mol], names)[0][:, 0]
        expected = crippen / (scale[0] * h) * integral
        assert np.allclose(result.exact_values[i], expected, rtol=1e-8, atol=1e-12)
        assert result.exact_values[i].sum() == pytest.approx(term(p) - term(start), rel=1e-8, abs=1e-12)
        assert result.sampled_values[i].sum() == pytest.approx(term(start), rel=1e-8, abs=1e-12)


def test_a_value_rdkit_cannot_give_is_imputed_with_a_warning_naming_the_molecule():
    # issue 52, item 3: [Cm][Cm] (LabuteASA NaN: RDKit has no radius for curium) made
    # GraphKernel().fit raise for the whole set; and with the first eleven molecules'
    # rows cached, the error named graphs[0] for the twelfth
    molecules = SMILES[:11] + ["[Cm][Cm]"]
    assert not np.isfinite(Descriptors.LabuteASA(Chem.MolFromSmiles("[Cm][Cm]")))
    gi.kernel_matrix(SMILES[:11], kernel="descriptors")  # their rows are cached now
    with pytest.warns(UserWarning, match=r"graphs\[11\]: RDKit's LabuteASA is not finite.*fitted mean"):
        K = gi.kernel_matrix(molecules, kernel="descriptors")
    assert np.isfinite(K).all() and np.allclose(np.diag(K), 1.0)
    # the others' statistics are those of their finite values: the imputed value is their mean
    functional = MolecularDescriptors()
    with pytest.warns(UserWarning, match="not finite"):
        functional.fit(molecules)
    column = functional.names_.index("LabuteASA")
    others = [Descriptors.LabuteASA(m) for m in
              batch_molecules(gi.as_graph_batch(SMILES[:11], node_label="label", edge_label="label"))]
    assert functional.attribute_mean_[column] == pytest.approx(np.mean(others), rel=1e-12)
    assert functional.attribute_scale_[column] == pytest.approx(np.std(others), rel=1e-12)
    y = np.arange(12, dtype=float)
    with pytest.warns(UserWarning, match=r"graphs\[11\].*LabuteASA"):
        model = gi.GraphKernel(seed=0).fit(molecules, y)
    assert "descriptors" in model.combination_.functionals
    member = gi.GraphKernel(kernel="descriptors").fit(SMILES)
    with pytest.warns(UserWarning, match=r"graphs\[1\].*LabuteASA"):
        new = member.transform(["CCO", "[Cm][Cm]"])
    assert np.isfinite(new).all()


def test_an_rdkit_failure_names_the_molecule_by_its_position_in_the_batch(monkeypatch):
    from graphinvariants.embeddings import descriptors

    gi.kernel_matrix(SMILES[:11], kernel="descriptors", descriptors=BASIC_DESCRIPTORS)  # cached
    functions = dict(Descriptors.descList)

    def fails_on_chlorine(mol):
        if any(atom.GetSymbol() == "Cl" for atom in mol.GetAtoms()):
            raise RuntimeError("broken")
        return functions["MolWt"](mol)

    monkeypatch.setattr(descriptors, "_rdkit_descriptors", lambda: {**functions, "MolWt": fails_on_chlorine})
    with pytest.raises(ValueError, match=r"graphs\[11\]: RDKit cannot compute MolWt"):
        descriptors.cached_descriptor_table(
            descriptors.batch_molecules(gi.as_graph_batch(SMILES[:11] + ["CCCl"], node_label="label",
                                                          edge_label="label")), BASIC_DESCRIPTORS)


def test_the_default_set_leaves_out_what_does_not_scale():
    # issue 52, item 10: AvgIpc took most of vancomycin's time, 27 s for an 800-atom
    # chain and gave NaN for a 1,200-atom one; the rest of the default set is finite there
    assert "AvgIpc" not in rdkit_descriptors() and "Ipc" not in rdkit_descriptors()
    chain = gi.as_graph_batch(["C" * 300], node_label="label", edge_label="label")
    assert np.isfinite(descriptor_table(batch_molecules(chain), rdkit_descriptors())).all()
