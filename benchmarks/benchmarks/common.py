"""Shared by the asv suites and the studies: data loaded once per process (never downloaded), the floor, the peers
(one not installed: ``NotImplementedError``, which asv reports as skipped), random graphs and molecules."""

import contextlib
import functools
import importlib
import os
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin

from graphinvariants.datasets import TU_MOLECULES
from graphinvariants.kernels.learned.external import to_grakel

ROOT = Path(__file__).resolve().parents[2]
#: The shared TU data beside the clone (``../shared/data/TU``) or ``$GRAPHINVARIANTS_DATA``.
TU_DATA = os.environ.get("GRAPHINVARIANTS_DATA") or str(ROOT.parent / "shared" / "data" / "TU")
#: Peers by module name: what to install when one is missing.
PEERS = {"grakel": "graphinvariants[baselines]", "FPSim2": "graphinvariants[benchmark]",
         "netlsd": "graphinvariants[benchmark]", "netrd": "pip install --no-deps netrd",
         "pynauty": "graphinvariants[benchmark]", "datamol": "graphinvariants[benchmark]",
         "graphblas": "python-graphblas", "faiss": "graphinvariants[search]", "rdkit": "graphinvariants[chem]"}


def peer(name):
    """The module ``name`` (a peer or an optional dependency), or ``NotImplementedError`` saying what to install (asv
    skips the benchmark; a study stops with the message)."""
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        raise NotImplementedError(f"{name} is not installed: {PEERS.get(name, name)}") from error
    if name == "grakel":
        warnings.simplefilter("ignore")  # GraKeL's deprecation warnings
    return module


@functools.cache
def tu(name):
    """The TU data set ``name``, loaded once per process."""
    import graphinvariants as gi

    return gi.load_tu(name, data_home=TU_DATA, download=False)


def grakel_graphs(data, *, labels="label", edges=False):
    """GraKeL graphs of a data set or list by the library's ``to_grakel``, node labels from ``labels`` (``"label"``,
    ``"attributes"`` or None: the degrees); ``edges``: the edge labels too (ones where the data has none)."""
    import graphinvariants as gi

    peer("grakel")
    batch = data.batch if hasattr(data, "batch") else gi.as_graph_batch(list(data), node_label=labels and "label")
    nodes = {"label": batch.node_labels, "attributes": batch.node_attributes, None: None}[labels]
    if labels == "label" and nodes is None:
        nodes = np.zeros(batch.n_nodes, np.int64)
    bonds = None
    if edges:
        bonds = batch.edge_labels if batch.edge_labels is not None else np.zeros(batch.matrix.nnz, np.int64)
    return to_grakel(batch, node_labels=nodes, edge_labels=bonds)


def floor_invariants(A, k=5):
    """The arithmetic floor of one graph's power invariants: ``k`` products ``x_t = A x_{t-1} / ||x_{t-1}||_1``
    from ``x_0 = 1`` (scipy), then ``(mean, covariance / n)`` as :class:`graphinvariants.PowerInvariants` has them."""
    n = A.shape[0]
    S = np.empty((n, k))
    x = np.ones(n)
    for t in range(k):
        x = A @ (x / x.sum())
        S[:, t] = x
    mean = S.mean(axis=0)
    S -= mean
    return mean, S.T @ S / n


def csr(u, v, n):
    """The symmetric 0/1 CSR of the edges ``(u, v)`` on ``n`` nodes (self-loops kept once)."""
    keep = u != v
    rows, cols = np.concatenate((u, v[keep])), np.concatenate((v, u[keep]))
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


def random_edges(family, n, degree=10, seed=0):
    """Edge arrays ``(u, v)`` of a graph on ``n`` nodes of mean degree about ``degree``: ``"er"`` (uniform pairs),
    ``"ba"`` (igraph's Barabasi-Albert) or ``"grid"`` (2-D, ``n`` rounded to a square)."""
    rng = np.random.default_rng(seed)
    if family == "er":
        m = n * degree // 2
        u = rng.integers(0, n, m)
        return u, (u + rng.integers(1, n, m)) % n
    if family == "grid":
        side = int(round(np.sqrt(n)))
        ids = np.arange(side * side).reshape(side, side)
        return (np.concatenate((ids[:, :-1].ravel(), ids[:-1, :].ravel())),
                np.concatenate((ids[:, 1:].ravel(), ids[1:, :].ravel())))
    import random

    import igraph as ig

    ig.set_random_number_generator(random.Random(seed))
    e = np.array(ig.Graph.Barabasi(n, degree // 2).get_edgelist(), dtype=np.int64)
    return e[:, 0], e[:, 1]


def random_graphs(n_graphs, *, low=10, high=30, p=0.15, seed=0):
    """``n_graphs`` NetworkX graphs G(n, p), n uniform in ``low .. high - 1``, fixed seeds."""
    import networkx as nx

    sizes = np.random.default_rng(seed).integers(low, high, size=n_graphs)
    return [nx.gnp_random_graph(int(n), p, seed=seed + i) for i, n in enumerate(sizes)]


@contextlib.contextmanager
def one_thread():
    """BLAS on one thread inside the block (the machine is shared; the targets say one)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def molecules(batch, name="Mutagenicity"):
    """RDKit molecules of a batch of the TU set ``name``'s graphs, its label codes read by
    :data:`~graphinvariants.datasets.TU_MOLECULES`, not sanitised, rings perceived."""
    Chem = peer("rdkit.Chem")
    atoms, bonds = TU_MOLECULES[name]
    A = sp.triu(batch.matrix, format="coo")
    codes = sp.csr_array((batch.edge_labels + 1, batch.matrix.indices, batch.matrix.indptr), shape=batch.matrix.shape)
    labels = np.asarray(sp.triu(codes, format="csr")[A.row, A.col]).reshape(-1) - 1
    graph_of = np.repeat(np.arange(len(batch.sizes)), batch.sizes)
    by_graph = np.split(np.arange(len(A.row)), np.searchsorted(graph_of[A.row], np.arange(1, len(batch.sizes))))
    out = []
    for g in range(len(batch.sizes)):
        a = batch.offsets[g]
        mol = Chem.RWMol()
        for code in batch.node_labels[a : batch.offsets[g + 1]]:
            mol.AddAtom(Chem.Atom(atoms[int(code)]))
        for e in by_graph[g]:
            u, v, bond = int(A.row[e] - a), int(A.col[e] - a), getattr(Chem.BondType, bonds[int(labels[e])])
            mol.AddBond(u, v, bond)
            if bond == Chem.BondType.AROMATIC:
                for atom in (u, v):
                    mol.GetAtomWithIdx(atom).SetIsAromatic(True)
                mol.GetBondBetweenAtoms(u, v).SetIsAromatic(True)
        mol = mol.GetMol()
        mol.UpdatePropertyCache(strict=False)
        Chem.GetSymmSSSR(mol)
        out.append(mol)
    return out


def morgan(mols, *, counts=False):
    """Morgan fingerprints (radius 2, 2,048 bits) of RDKit molecules or SMILES: RDKit's bit vectors, or with ``counts``
    the count vectors as the rows of a float array."""
    Chem = peer("rdkit.Chem")
    generator = peer("rdkit.Chem.rdFingerprintGenerator").GetMorganGenerator(radius=2, fpSize=2048)
    mols = [Chem.MolFromSmiles(m) if isinstance(m, str) else m for m in mols]
    if counts:
        return np.stack([generator.GetCountFingerprintAsNumPy(m).astype(np.float64) for m in mols])
    return [generator.GetFingerprint(m) for m in mols]


def tanimoto_nearest(queries, corpus, k, *, leave_one_out=False):
    """The ``k`` nearest of ``corpus`` to each of ``queries`` (fingerprints) by Tanimoto, a stable sort of every
    similarity; with ``leave_one_out`` query ``i`` is ``corpus[i]``, left out."""
    DataStructs = peer("rdkit.DataStructs")
    out = np.empty((len(queries), k), dtype=np.int64)
    for i, fp in enumerate(queries):
        similarity = np.asarray(DataStructs.BulkTanimotoSimilarity(fp, corpus))
        if leave_one_out:
            similarity[i] = -np.inf
        out[i] = np.argsort(-similarity, kind="stable")[:k]
    return out


class Shared:
    """A value every clone shares (scikit-learn's ``clone`` deep-copies parameters)."""

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


class PrecomputedKernel(TransformerMixin, BaseEstimator):
    """A fixed kernel matrix (``Shared``) over graph indices: ``fit(idx)``, ``transform(idx2)`` gives ``K[idx2, idx]``
    (learns nothing from ``y``)."""

    def __init__(self, shared=None):
        self.shared = shared

    def fit(self, X, y=None):
        self.train_ = np.asarray(X)
        return self

    def transform(self, X):
        return self.shared.value[np.ix_(np.asarray(X), self.train_)]
