"""Molecules read straight from RDKit's atoms and bonds (issue 51, item 5): the batch of a
list of SMILES strings (or RDKit molecules) is, to the bit, the batch of the NetworkX
graphs that read_smiles gives, without those graphs."""

import itertools

import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.graphs import GraphBatch
from graphinvariants.graphs.reader import read_graphs
from graphinvariants.graphs.smiles import ATOM_VALUES, BOND_VALUES, molecule_arrays, read_smiles

pytest.importorskip("rdkit")

SMILES = ["CCO", "c1ccccc1", "[Na+].[Cl-]", "C", "[He]", "F/C=C/F", "C#N", "[NH4+]", "O=C=O", "CC(=O)[O-].[Na+]",
          "C1CC2CCC1CC2", "c1ccc2[nH]ccc2c1", "OP(=O)(O)O", "[2H]C([2H])([2H])Br"]


def _same(a, b):
    return (a is None and b is None) or (a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b))


@pytest.mark.parametrize(("node_label", "edge_label"), list(itertools.product([None, *ATOM_VALUES], [None, *BOND_VALUES])))
def test_the_batch_is_the_graphs_batch(node_label, edge_label):
    from rdkit import Chem

    for items in (SMILES, SMILES[3:5], ["[Na+].[Cl-]"], [Chem.MolFromSmiles("CCN"), "c1ccncc1"]):
        fast = gi.as_graph_batch(items, node_label=node_label, edge_label=edge_label)
        matrix, offsets, labels, bonds, _ = read_graphs(read_smiles(items), weight=None, node_label=node_label,
                                                        edge_label=edge_label, node_attributes=None, what="graphs")
        slow = GraphBatch(matrix, offsets, False, labels, bonds)
        A, B = fast.matrix, slow.matrix
        assert A.indptr.dtype == B.indptr.dtype and A.indices.dtype == B.indices.dtype and A.has_canonical_format
        for a, b in [(A.indptr, B.indptr), (A.indices, B.indices), (A.data, B.data), (fast.offsets, slow.offsets),
                     (fast.node_labels, slow.node_labels), (fast.edge_labels, slow.edge_labels)]:
            assert _same(a, b)


def test_molecule_arrays_say_what_read_smiles_says():
    arrays = molecule_arrays(["C=O", "N"], node_label="atomic_number", edge_label="bond_order")
    assert arrays.offsets.tolist() == [0, 2, 3] and arrays.node_labels.tolist() == [6, 8, 7]
    assert arrays.edge_labels.tolist() == [2.0, 2.0] and arrays.indptr.tolist() == [0, 1, 2, 2]
    with pytest.raises(ValueError, match=r"graphs\[1\]: RDKit cannot read 'C1CC' as a SMILES string"):
        gi.as_graph_batch(["CCO", "C1CC"], node_label="label")
    with pytest.raises(TypeError, match=r"graphs\[1\] is a int"):
        gi.as_graph_batch(["CCO", 3], node_label="label")
    with pytest.raises(ValueError, match="holds no atom"):
        gi.as_graph_batch([""], node_label="label")
