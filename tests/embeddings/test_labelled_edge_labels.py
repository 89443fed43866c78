"""Labelled walk histograms with walks typed by their bonds, against dense matrix powers."""

import networkx as nx
import numpy as np
import pytest

from tests.conftest import assert_gram_theorems, cosine_of_counts
import graphinvariants as gi
from graphinvariants.embeddings import LabelledWalkHistogram, LabelledWalkHistogramOptimalAssignment
from graphinvariants.kernels import pairwise_kernels


def _prefix_counts(graphs, k):
    """Each graph's prefix counts; a node's round-t entry is the tuple of (A_e C_{t-1}) rows."""
    atoms = sorted({G.nodes[v]["label"] for G in graphs for v in G})
    bonds = sorted({b for G in graphs for _, _, b in G.edges(data="bond")})
    counts = [dict() for _ in graphs]
    for g, G in enumerate(graphs):
        nodes = list(G)
        E = np.array([[G.nodes[v]["label"] == a for a in atoms] for v in nodes], dtype=np.int64)
        A = {b: nx.to_numpy_array(G, nodelist=nodes, weight=None, dtype=np.int64) * 0 for b in bonds}
        for u, v, b in G.edges(data="bond"):
            i, j = nodes.index(u), nodes.index(v)
            A[b][i, j] = A[b][j, i] = 1
        C, prefix = E, [(G.nodes[v]["label"],) for v in nodes]
        for t in range(k + 1):
            for i in range(len(nodes)):
                counts[g][tuple(prefix[i])] = counts[g].get(tuple(prefix[i]), 0) + 1
            typed = [A[b] @ C for b in bonds]
            prefix = [prefix[i] + (tuple(tuple(T[i]) for T in typed),) for i in range(len(nodes))]
            C = sum(typed) if typed else 0 * C  # no bonds anywhere: no walks
    return counts


def _brute_force(graphs, k):
    return cosine_of_counts(_prefix_counts(graphs, k))


def _brute_force_assignment(graphs, k):
    """Normalised histogram intersection (sum of minimum counts) of the prefix counts."""
    counts = _prefix_counts(graphs, k)
    K = np.array([[sum(min(a[key], b.get(key, 0)) for key in a) for b in counts] for a in counts], dtype=float)
    return K / np.sqrt(np.outer(np.diag(K), np.diag(K)))


@pytest.fixture(scope="module")
def graphs():
    rng = np.random.default_rng(11)
    out = [nx.gnp_random_graph(int(n), 0.25, seed=int(n)) for n in range(4, 20, 3)]
    out += [nx.cycle_graph(6), nx.cycle_graph(6), nx.empty_graph(3)]
    for G in out:
        for u, v in G.edges:
            G.edges[u, v]["bond"] = "sdt"[int(rng.integers(3))]
        for v in G:
            G.nodes[v]["label"] = int(rng.integers(3))
    for G in out[6:8]:  # two hexagons of one atom type that differ by one bond only
        nx.set_edge_attributes(G, "s", "bond")
        nx.set_node_attributes(G, 0, "label")
    out[7].edges[0, 1]["bond"] = "d"
    return out


@pytest.mark.parametrize("k", [1, 3])
def test_equal_to_dense_matrix_products(graphs, k):
    K = pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=k, edge_label="bond"))
    # cosine of integer counts, computed along two float paths
    np.testing.assert_allclose(K, _brute_force(graphs, k), rtol=0, atol=1e-12)
    assert K[6, 7] < 1.0
    assert pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=k))[6, 7] == 1.0


def test_theorems_renumbering_libraries_and_separate_batches(graphs, rng):
    functional = LabelledWalkHistogram(k=3, edge_label="bond")
    K, renumbered = assert_gram_theorems(graphs, functional, rng)
    np.testing.assert_array_equal(pairwise_kernels(graphs[:4], graphs[4:], functional=functional), K[:4, 4:])
    renamed = []
    for G in graphs:
        H = G.copy()
        nx.set_edge_attributes(H, {e: {"s": 3, "d": 1, "t": 2}[b] for e, b in nx.get_edge_attributes(G, "bond").items()}, "bond")
        renamed.append(H)
    np.testing.assert_array_equal(pairwise_kernels(renamed, functional=functional), K)
    extra = graphs[2].copy()
    nx.set_edge_attributes(extra, "aromatic", "bond")  # a bond type one side lacks
    np.testing.assert_array_equal(pairwise_kernels(graphs + [extra], functional=functional)[:-1, -1],
                                  pairwise_kernels(graphs, [extra], functional=functional)[:, 0])


def test_mutag_bond_types(tu_datasets):
    ds = tu_datasets["MUTAG"][:50]
    K = pairwise_kernels(ds, functional=LabelledWalkHistogram(k=2, edge_label="label"))
    graphs = list(ds)
    for G in graphs:
        nx.set_edge_attributes(G, nx.get_edge_attributes(G, "label"), "bond")
    np.testing.assert_allclose(K, _brute_force(graphs, 2), rtol=0, atol=1e-12)


def test_errors_name_the_problem(graphs):
    with pytest.raises(ValueError, match="edge"):
        pairwise_kernels([G.copy() for G in graphs[:2]], functional=LabelledWalkHistogram(k=2, edge_label="nothing"))
    with pytest.raises(TypeError, match="edge_label"):
        LabelledWalkHistogram(edge_label=1)
    typed = LabelledWalkHistogram(k=2, edge_label="bond").as_embeddings(graphs)
    with pytest.raises(ValueError, match="edge_label=.bond., but edge_label=None"):
        pairwise_kernels(typed, functional=LabelledWalkHistogram(k=2))


def _edgeless(sizes_and_labels):
    out = []
    for labels in sizes_and_labels:
        G = nx.empty_graph(len(labels))
        nx.set_node_attributes(G, dict(enumerate(labels)), "label")
        out.append(G)
    return out


@pytest.mark.parametrize("cls, brute_force", [(LabelledWalkHistogram, _brute_force),
                                              (LabelledWalkHistogramOptimalAssignment, _brute_force_assignment)])
def test_batches_without_edges(graphs, cls, brute_force):
    """A batch with no edge has no edge label: its typed rounds are empty rows (no walk
    leaves an isolated node), as for isolated nodes in a batch with edges."""
    functional = cls(k=3, edge_label="bond")
    alone = _edgeless([[0], [1], [0, 0, 2], [2, 1]])
    K = pairwise_kernels(alone, functional=functional)
    # brute force: cosine / intersection of small integer counts, along two float paths
    np.testing.assert_allclose(K, brute_force(alone, 3), rtol=0, atol=1e-12)
    both = pairwise_kernels(graphs + alone, functional=functional)
    np.testing.assert_allclose(both, brute_force(graphs + alone, 3), rtol=0, atol=1e-12)
    n = len(alone)
    # exact by construction: a pair's value is its integer counts' dot product (or sum of
    # minima) over the same norms, whatever other graphs share the batch
    np.testing.assert_array_equal(K, both[-n:, -n:])
    np.testing.assert_array_equal(pairwise_kernels(graphs, alone, functional=functional), both[:-n, -n:])
    np.testing.assert_array_equal(pairwise_kernels(alone, graphs, functional=functional), both[-n:, :-n])
    assert pairwise_kernels([], alone, functional=functional).shape == (0, n)


def test_molecules_and_tu_folders_without_bonds(tmp_path):
    from graphinvariants.datasets.molecules import from_smiles

    pytest.importorskip("rdkit")
    ethanol, methane = from_smiles("CCO"), from_smiles("C")
    for kernel in ("labelled_histogram", "labelled_histogram_oa"):
        K = gi.kernel_matrix([ethanol], [methane], kernel=kernel, node_label="label", edge_label="label", k=2)
        # shared prefixes: the two carbons' first label only (2 of ethanol's, 1 of methane's)
        # cosine: 2 / sqrt((4 + 1 + 3 * 2) * 3); intersection: 1 / sqrt(9 * 3)
        expected = 2 / np.sqrt(11 * 3) if kernel == "labelled_histogram" else 1 / np.sqrt(27)
        assert K[0, 0] == pytest.approx(expected, rel=1e-15)
    atoms = [from_smiles(s) for s in "CONCONCO"]
    y = [0, 1, 0, 0, 1, 0, 1, 1]
    model = gi.GraphKernel(members=("labelled_histogram_edge_label",)).fit(atoms, y)
    assert model.transform(atoms).shape == (8, 8)
    assert np.all(np.isfinite(gi.GraphKernel().fit(atoms, y).transform(atoms)))
    bonded = [from_smiles(s) for s in ["CCO", "CC=O", "C=CC", "CCN", "OCC=O", "NCC", "c1ccccc1", "CC#N"]]
    model = gi.GraphKernel(members=("labelled_histogram_edge_label",)).fit(bonded, y)
    assert model.transform([]).shape == (0, 8)
    single = model.transform([methane])
    assert single.shape == (1, 8) and np.all(np.isfinite(single)) and np.all(single > 0)
    # a TU folder whose adjacency file is empty (every graph a set of isolated atoms)
    folder = tmp_path / "TINY"
    folder.mkdir()
    for part, text in dict(A="", graph_indicator="1\n1\n2\n", graph_labels="1\n-1\n", node_labels="0\n1\n0\n",
                           edge_labels="").items():
        (folder / f"TINY_{part}.txt").write_text(text)
    ds = gi.load_tu("TINY", data_home=tmp_path, download=False)
    for kernel in ("labelled_histogram", "labelled_histogram_oa"):
        K = gi.kernel_matrix(ds, kernel=kernel, node_label="label", edge_label="label", k=5)
        # graph 1: two chains of 6 prefixes (labels 0 and 1); graph 2: one chain (label 0)
        np.testing.assert_allclose(K, [[1, 6 / np.sqrt(72)], [6 / np.sqrt(72), 1]], rtol=1e-15)
