"""A TUDataset is a sequence of graphs that every batch function takes directly."""

import collections.abc

import networkx as nx
import numpy as np

import graphinvariants as gi


def test_data_set_is_a_sequence_of_networkx_graphs(tu_datasets):
    ds = tu_datasets["MUTAG"]
    assert isinstance(ds, collections.abc.Sequence)
    assert len(ds) == 188
    G = ds[5]
    assert isinstance(G, nx.Graph) and G.number_of_nodes() == ds.batch.sizes[5]
    assert ds[-1].number_of_nodes() == ds.batch.sizes[-1]
    assert sum(1 for _ in ds) == 188
    sub = ds[10:20]
    assert isinstance(sub, gi.TUDataset) and len(sub) == 10
    np.testing.assert_array_equal(sub.y, ds.y[10:20])
    assert nx.is_isomorphic(sub[0], ds[10])
    np.testing.assert_array_equal(sub.node_labels, ds.node_labels[ds.offsets[10] : ds.offsets[20]])


def test_batch_functions_take_the_data_set_directly(tu_datasets):
    ds = tu_datasets["MUTAG"]
    invariants = gi.batch_power_invariants(ds)
    assert len(invariants) == 188
    # exact: a graph's invariants do not depend on the other graphs of its batch
    np.testing.assert_array_equal(invariants.means, gi.batch_power_invariants(list(ds)).means)
    np.testing.assert_array_equal(gi.power_kernel_matrix(ds[:30]), gi.power_kernel_matrix(invariants[:30]))
    K = gi.PowerKernel().fit(ds[:20]).transform(ds[20:25])
    assert K.shape == (5, 20)
    study = gi.perturbation_study(ds, n_graphs=5, n_steps=2, seed=0)
    assert study.params["name"] == "MUTAG"


def test_slices_are_named_by_the_graphs_they_hold(tu_datasets):
    mutag = tu_datasets["MUTAG"]
    for index, name in [(slice(None, None, 2), "MUTAG[0:188:2]"), (slice(None, None, -1), "MUTAG[187::-1]"),
                        (slice(-10, None), "MUTAG[178:188]"), (slice(5, 20), "MUTAG[5:20]")]:
        part = mutag[index]
        assert part.name == name
        assert [sorted(G.edges) for G in part] == [sorted(G.edges) for G in list(mutag)[index]]
