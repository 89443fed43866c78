"""The fit that streams (GraphFeatures.fit_transform of a fixed WL kernel): the rows and
the fitted map of the one-batch fit, bit for bit, whatever the blocks and the input's form."""

import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.features import GraphFeatures

SMILES = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
          "O=C(O)c1ccccc1OC(C)=O", "C1CCCCC1", "c1ccncc1", "ClC(Cl)Cl", "CC#N", "OC(=O)CC(O)(CC(O)=O)C(O)=O",
          "c1ccc2ccccc2c1", "NCCc1ccc(O)c(O)c1", "CC(N)C(=O)O", "FC(F)(F)c1ccccc1", "CCOC(=O)C", "S=C=S",
          "CCN(CC)CC", "O=S(=O)(O)O", "c1ccc(cc1)-c1ccccc1"]


@pytest.fixture(scope="module")
def mutag(tu_load):
    return tu_load("MUTAG")


def _one_batch(spec, graphs, **options):
    """The rows and map of the fit that embeds every graph in one batch (fit, then the
    same graphs' rows: what fit_transform gave before it streamed)."""
    features = GraphFeatures(spec, **options)
    features._streams = lambda y: False
    return features, features.fit_transform(graphs)


def _same(A, B):
    assert A.shape == B.shape
    assert A.indices.dtype == B.indices.dtype and A.indptr.dtype == B.indptr.dtype
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    np.testing.assert_array_equal(A.data.view(np.int64), B.data.view(np.int64))  # to the last bit


SPECS = {"wl": "wl", "atoms": dict(node_label="label"), "atoms and bonds": dict(node_label="label", edge_label="label",
                                                                             n_iter=3)}


@pytest.mark.parametrize("name", list(SPECS))
@pytest.mark.parametrize("block_size", [1, 17, 1000])
def test_streamed_rows_are_the_one_batch_rows(mutag, name, block_size):
    spec = SPECS[name] if isinstance(SPECS[name], str) else gi.GraphKernel(kernel="wl", **SPECS[name])
    reference, expected = _one_batch(spec, mutag)
    features = GraphFeatures(spec, block_size=block_size)
    _same(features.fit_transform(mutag), expected)
    assert features.digest() == reference.digest()  # the fitted map too: columns, vocabulary
    _same(features.transform(mutag[:30]), reference.transform(mutag[:30]))


def test_streamed_molecules_from_any_iterable():
    reference, expected = _one_batch("wl", SMILES, max_samples=10)
    for source in (SMILES, iter(SMILES), (s for s in SMILES), tuple(SMILES)):
        features = GraphFeatures("wl", block_size=3, max_samples=10)
        _same(features.fit_transform(source), expected)
        assert features.digest() == reference.digest()
    # an iterable without a length: the kernel is fitted on its first max_samples graphs
    features = GraphFeatures("wl", block_size=3, max_samples=10)
    features.fit_transform(s for s in SMILES)
    assert features.sample_indices_.tolist() == list(range(10))


def test_streamed_fit_refuses_nothing_to_fit():
    with pytest.raises(ValueError, match="at least one graph"):
        GraphFeatures("wl").fit_transform(iter([]))
    with pytest.raises(TypeError):
        GraphFeatures("wl").fit_transform("CCO")


def test_other_kernels_keep_the_one_batch_fit(mutag):
    """Only a fixed WL kernel streams; the rest fit as before (the same rows as fit then
    transform)."""
    features = GraphFeatures("histogram")
    assert not features._streams(None)
    F = features.fit_transform(list(mutag)[:40])
    _same(F, GraphFeatures("histogram").fit(list(mutag)[:40]).transform(list(mutag)[:40]))


def test_progress_bar_on_a_streamed_fit(capsys):
    GraphFeatures("wl", block_size=5, progress=True).fit_transform(iter(SMILES))
    assert "fit" in capsys.readouterr().err
