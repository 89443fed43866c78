"""GraphFeatures against the exact learned default: kernel error and accuracy.

The figure and table of docs/large_collections.rst. From the project root, under the lock::

    flock /tmp/bench.lock python benchmarks/studies/learned_features.py error --dataset NCI1
    flock /tmp/bench.lock python benchmarks/studies/learned_features.py accuracy --datasets NCI1 MUTAG --folds 10
    flock /tmp/bench.lock python benchmarks/studies/learned_features.py diagnose --datasets Mutagenicity

``error`` writes docs/_static/learned_features_error.png and .json; ``diagnose``: where the features lose accuracy.
"""

import json
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC, LinearSVC

import graphinvariants as gi
from graphinvariants.features import GraphFeatures
from runner import clock, commands, option, parse, pyplot, timed
from benchmarks.common import tu

STATIC = Path(__file__).resolve().parents[2] / "docs" / "_static"


def exact_fold(data, y, train, test, grid):
    """The exact learned default on one fold, SVC with C by 3-fold inner CV: ``(accuracy, K_test)``."""
    kernel = gi.GraphKernel(seed=0)
    K_train, K_test = kernel.fit_transform(data[train], y[train]), kernel.transform(data[test])
    return GridSearchCV(SVC(kernel="precomputed"), grid, cv=3).fit(K_train, y[train]).score(K_test, y[test]), K_test


def kernel_error(args):
    data = tu(args.dataset)
    data = data[np.sort(np.random.default_rng(0).choice(len(data), size=min(args.n, len(data)), replace=False))]
    rows, K = [], None
    for m in args.components:
        t0 = clock()
        features = GraphFeatures(max_samples=None, n_landmarks=m, seed=0).fit(data, data.y)
        F = features.transform(data)
        seconds = clock() - t0
        if K is None:
            K = features.kernel_.transform(data)
            print(f"{args.dataset}, {len(data)} graphs; exact: {features.exact_} (weight "
                  f"{features.exact_weight_:.3f}); Nystroem: {features.approximate_}")
        G = (F @ F.T).toarray()
        error = float(np.linalg.norm(G - K) / np.linalg.norm(K))
        diag = float(np.abs(np.diag(G) - 1).max())
        rows.append({"n_landmarks": m, "relative_error": error, "max_abs_error": float(np.abs(G - K).max()),
                     "diagonal_error": diag, "n_features": int(features.n_features_out_), "seconds": seconds})
        print(f"  n_landmarks={m:5d}: relative Frobenius error {error:.4f}, max |error| "
              f"{rows[-1]['max_abs_error']:.3f}, features {features.n_features_out_}, {seconds:.1f} s")
    out = {"dataset": args.dataset, "n_graphs": len(data), "exact": features.exact_,
           "approximate": features.approximate_, "exact_weight": features.exact_weight_, "rows": rows}
    (STATIC / "learned_features_error.json").write_text(json.dumps(out, indent=1))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.loglog([r["n_landmarks"] for r in rows], [r["relative_error"] for r in rows], "o-")
    ax.set_xlabel("Nystroem components (landmark graphs)")
    ax.set_ylabel("||F F^T - K|| / ||K||")
    ax.set_title(f"GraphFeatures on {args.dataset} ({len(data)} graphs)")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(STATIC / "learned_features_error.png", dpi=120)
    print(f"wrote {STATIC / 'learned_features_error.png'}")


def folds(args, name, models, components, *, approximation, **options):
    """Per fold of the stratified splits (seed 0): the exact default's SVC and per ``components`` the ``models`` on
    ``GraphFeatures(n_landmarks=m, **options)``; with ``approximation`` also the SVC on ``F F^T`` (the approximation
    alone) and the error of ``F_test F_train^T`` against the exact rows, and a line per fold. ``(scores, errors,
    seconds, unconverged)``, keyed ``"exact SVC"`` or ``(m, label)``."""
    data, grid, tables = tu(name), {"C": list(args.c_grid)}, ({}, {}, {}, {})
    y, (scores, errors, seconds, unconverged) = data.y, tables

    def add(table, key, value):
        table.setdefault(key, []).append(value)

    for fold, (train, test) in enumerate(StratifiedKFold(args.folds, shuffle=True, random_state=0)
                                         .split(np.zeros(len(y)), y)):
        line = []
        if not args.no_exact:
            (spent,), (accuracy, K_test) = timed(lambda: exact_fold(data, y, train, test, grid))
            add(scores, "exact SVC", accuracy), add(seconds, "exact SVC", spent)
            line.append(f"exact {100 * accuracy:.1f}")
        for m in components:
            t0 = clock()
            features = GraphFeatures(n_landmarks=m, seed=0, **options)
            F_train = features.fit_transform(data[train], y[train])
            F_test = features.transform(data[test])
            add(seconds, (m, "features"), clock() - t0)
            if fold == 0 and approximation:
                print(f"{name} fold 0, n_landmarks={m}: exact {features.exact_} (weight "
                      f"{features.exact_weight_:.3f}); Nystroem {features.approximate_}; "
                      f"{features.n_features_out_} features")
            if approximation and not args.no_exact:
                G_test = (F_test @ F_train.T).toarray()
                add(errors, m, float(np.linalg.norm(G_test - K_test) / np.linalg.norm(K_test)))
                search = GridSearchCV(SVC(kernel="precomputed"), grid, cv=3)
                (spent,), svc = timed(lambda: search.fit((F_train @ F_train.T).toarray(), y[train]))
                add(seconds, (m, "SVC on F F^T"), spent), add(scores, (m, "SVC on F F^T"), svc.score(G_test, y[test]))
                line.append(f"m={m} SVC(FF^T) {100 * scores[(m, 'SVC on F F^T')][-1]:.1f}")
            for label, model in models.items():
                t0 = clock()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    fitted = GridSearchCV(clone(model), grid, cv=3).fit(F_train, y[train])
                unconverged[(m, label)] = unconverged.get((m, label), 0) + sum(
                    issubclass(w.category, ConvergenceWarning) for w in caught)
                add(seconds, (m, label), clock() - t0), add(scores, (m, label), fitted.score(F_test, y[test]))
                line.append(f"m={m} {label} {100 * scores[(m, label)][-1]:.1f} (C={fitted.best_params_['C']:g})")
        if approximation:
            print(f"{name} fold {fold}: " + ", ".join(line))
    return tables


def accuracy(args):
    """The exact default against ``GraphFeatures`` + ``LinearSVC`` (:func:`folds` with one model), a line a set."""
    model = LinearSVC(loss=args.loss, intercept_scaling=args.intercept_scaling, max_iter=args.max_iter)
    for name in args.datasets:
        scores, _, seconds, _ = folds(args, name, {"linear": model}, [args.n_landmarks], approximation=False)
        f = 100 * np.mean(scores[(args.n_landmarks, "linear")])
        t_linear = np.sum(seconds[(args.n_landmarks, "features")]) + np.sum(seconds[(args.n_landmarks, "linear")])
        setting = (f"{args.folds} folds, 1 repetition, C in {args.c_grid}, n_landmarks={args.n_landmarks}, "
                   f"LinearSVC(loss={args.loss!r}, intercept_scaling={args.intercept_scaling:g}, "
                   f"max_iter={args.max_iter})")
        if args.no_exact:
            print(f"{name}: GraphFeatures + LinearSVC {f:.2f} ({setting}); time {t_linear:.0f} s")
            continue
        e = 100 * np.mean(scores["exact SVC"])
        print(f"{name}: exact learned default {e:.2f}, GraphFeatures + LinearSVC {f:.2f} "
              f"(difference {f - e:+.2f}; {setting}); time {np.sum(seconds['exact SVC']):.0f} s against "
              f"{t_linear:.0f} s")


def diagnose(args):
    """Where the features lose accuracy: :func:`folds` with every ``--models`` and the approximation's own scores."""
    catalogue = {
        "squared_hinge": LinearSVC(max_iter=args.max_iter),
        "squared_hinge_primal_is10": LinearSVC(dual=False, intercept_scaling=10.0, max_iter=args.max_iter),
        "hinge_is10": LinearSVC(loss="hinge", intercept_scaling=10.0, max_iter=args.max_iter),
    }
    for name in args.datasets:
        scores, errors, seconds, unconverged = folds(args, name, {label: catalogue[label] for label in args.models},
                                                     args.components, approximation=True,
                                                     max_samples=args.max_samples)
        exact = 100 * np.mean(scores.pop("exact SVC")) if not args.no_exact else float("nan")
        print(f"{name}: exact learned default (SVC) {exact:.2f} ({args.folds} folds, 1 repetition, C in "
              f"{args.c_grid})")
        for (m, label), values in scores.items():
            f = 100 * np.mean(values)
            error = f"; test-row kernel error {np.mean(errors[m]):.4f}" if m in errors else ""
            note = f"; {unconverged[(m, label)]} fits unconverged" if unconverged.get((m, label)) else ""
            print(f"{name}: n_landmarks={m}, {label}: {f:.2f} ({f - exact:+.2f}){error}; "
                  f"{np.sum(seconds[(m, label)]):.0f} s{note}")
        for m in args.components:
            print(f"{name}: n_landmarks={m}, features {np.sum(seconds[(m, 'features')]):.0f} s")


def main(argv=None):
    grid, lsvc = [1e-2, 1e-1, 1.0, 10.0, 100.0], "LinearSVC's "
    command = commands(__doc__, error=dict(dataset="NCI1", n=1500, components=[25, 50, 100, 200, 400, 800, 1500]),
                       accuracy=dict(datasets=["NCI1", "NCI109", "Mutagenicity", "DD", "REDDIT-BINARY", "IMDB-BINARY"],
                                     folds=10, n_landmarks=500, max_iter=option(1000, lsvc + "max_iter"),
                                     loss=option("squared_hinge", lsvc + "loss (or hinge)"),
                                     intercept_scaling=option(1.0, lsvc + "intercept_scaling"),
                                     no_exact=option(False, "only the features path (the exact one is deterministic)"),
                                     c_grid=grid),
                       diagnose=dict(datasets=["Mutagenicity"], folds=10, components=[500, 1000], max_samples=1000,
                                     max_iter=2000, models=["squared_hinge", "squared_hinge_primal_is10", "hinge_is10"],
                                     no_exact=False, c_grid=grid))
    args = parse(command, argv)
    {"error": kernel_error, "accuracy": accuracy, "diagnose": diagnose}[args.what](args)


if __name__ == "__main__":
    main()
