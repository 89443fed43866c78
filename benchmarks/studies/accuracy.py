"""Accuracy under the paper's protocol: the learned default against the anchors, and any kernels side by side.

The accuracy tables of docs/kernels.rst (which says what each column is). From the project root::

    python benchmarks/studies/accuracy.py default --reps 10 --c-grid full        # the 11 data sets
    python benchmarks/studies/accuracy.py kernels --datasets MUTAG --kernels power "wl:n_iter=5" --reps 10

``default`` evaluates ``GraphKernel()`` with its weights learned per fold on the slices of member
matrices computed once (``--check``: equal to fitting per fold); ``kernels`` one JSON line per kernel
(``grakel.NAME:p=v`` for GraKeL's), the first the reference of the ratios.
"""

import json
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

import graphinvariants as gi
from graphinvariants.kernels import pairwise_kernels, parse_kernel_spec
from graphinvariants.kernels.learned import LearnedCombination
from graphinvariants.kernels.learned import _combination as learned_module  # CANDIDATES, PRODUCTS switched
from runner import clock, commands, option, parse, timed
from benchmarks.common import Shared, grakel_graphs, peer, tu
from benchmarks.learned import NEW_CANDIDATES, candidates

GRIDS = {"full": tuple(10.0**e for e in range(-7, 8)), "short": tuple(10.0**e for e in range(-3, 4))}
DATASETS = ["MUTAG", "ENZYMES", "NCI1", "NCI109", "Mutagenicity", "AIDS", "BZR", "COX2", "DD",
            "IMDB-BINARY", "REDDIT-BINARY"]

#: Design variants of the learned default: name -> (LearnedCombination options, offer PRODUCTS).
VARIANTS = {
    "alignf K": ({"combination": "alignf", "powers": (1,), "bandwidths": ()}, True),
    "alignf K,K^2": ({"combination": "alignf", "powers": (1, 2), "bandwidths": ()}, True),
    "alignf K,K^2,K^3": ({"combination": "alignf", "powers": (1, 2, 3), "bandwidths": ()}, True),
    "alignf K+gauss": ({"combination": "alignf", "powers": (1,), "bandwidths": (0.25, 1.0, 4.0), "selection": None},
                       True),
    "alignf K or K+gauss by LOO (default)": ({"combination": "alignf", "powers": (1,),
                                              "bandwidths": (0.25, 1.0, 4.0), "selection": "loo"}, True),
    "align K+gauss": ({"combination": "align", "powers": (1,), "bandwidths": (0.25, 1.0, 4.0), "selection": None},
                      True),
    "alignf K,K^2 no products": ({"combination": "alignf", "powers": (1, 2), "bandwidths": ()}, False),
    "align K,K^2": ({"combination": "align", "powers": (1, 2), "bandwidths": ()}, True),
}


#: The higher-order WL members proposed for the learned default (``--higher-wl`` measures
#: these as NEW_CANDIDATES instead of those of benchmarks/benchmarks/learned.py).
HIGHER_WL_CANDIDATES = {"fwl2": ("fwl2", {"n_iter": 3}, ()), "fwl2_label": ("fwl2", {"n_iter": 3}, ("node_label",)),
                        "lwl2": ("lwl2", {"n_iter": 3}, ()), "lwl2_label": ("lwl2", {"n_iter": 3}, ("node_label",))}


class FoldSlicedDefault(TransformerMixin, BaseEstimator):
    """The learned default over member matrices computed once: ``fit(idx, y)`` learns the weights on the training
    graphs' slices (subsampled as :meth:`LearnedCombination.fit` does), ``transform(idx2)`` combines ``idx2``'s rows."""

    def __init__(self, shared=None, options=None, products=True, names=None):
        self.shared = shared
        self.options = options
        self.products = products
        self.names = names

    def _grams(self):
        grams = self.shared.value
        return grams if self.names is None else {n: K for n, K in grams.items() if n in self.names}

    def fit(self, X, y):
        idx = np.asarray(X)
        combination = LearnedCombination(**(self.options or {}))
        grams = self._grams()
        if combination.max_samples is not None and len(idx) > combination.max_samples:
            rng = gi._utils.validation.check_seed(combination.seed)
            sample = np.sort(rng.choice(len(idx), size=combination.max_samples, replace=False))
            align_idx, y_align = idx[sample], np.asarray(y)[sample]
        else:
            align_idx, y_align = idx, np.asarray(y)
        saved = learned_module.PRODUCTS
        try:
            if not self.products:
                learned_module.PRODUCTS = {}
            with candidates(True):  # the new members' names are known (no effect on the others)
                combination.learn_weights({n: K[np.ix_(align_idx, align_idx)] for n, K in grams.items()}, y_align)
        finally:
            learned_module.PRODUCTS = saved
        self.combination_, self.train_ = combination, idx
        return self

    def transform(self, X):
        rows = np.asarray(X)
        return self.combination_.combine({n: K[np.ix_(rows, self.train_)] for n, K in self._grams().items()})

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)


def member_grams(ds, options):
    """Every candidate member's matrix over the whole data set (no label involved)."""
    combination = LearnedCombination(**options)
    carries = {"node_label": ds.batch.node_labels is not None, "edge_label": ds.batch.edge_labels is not None,
               "node_attributes": ds.batch.node_attributes is not None}
    grams, seconds = {}, {}
    for name, functional in combination.candidate_functionals(carries).items():
        (seconds[name],), grams[name] = timed(lambda: pairwise_kernels(ds.batch, functional=functional))
    return grams, seconds


def grakel_wloa(ds):
    graphs = grakel_graphs(ds, labels="label" if ds.batch.node_labels is not None else None)
    return peer("grakel").WeisfeilerLehmanOptimalAssignment(n_iter=5, normalize=True).fit_transform(graphs)


def evaluate_data_set(ds, args, protocol, out):
    labelled = ds.batch.node_labels is not None
    with candidates(args.new_members):
        grams, seconds = member_grams(ds, {})
    base = [n for n in grams if n in learned_module.CANDIDATES]
    print(f"\n{ds.name}: {len(ds)} graphs, node labels {'yes' if labelled else 'no'}; member matrices "
          + ", ".join(f"{n} {s:.1f} s" for n, s in seconds.items()))
    shared = Shared(grams)
    index = np.arange(len(ds))
    rows = {}

    def run(label, kernel):
        """One row: a kernel matrix by ``evaluate_kernel``, an estimator of graph indices by ``evaluate_estimator``."""
        rows[label] = result = gi.evaluate_kernel(kernel, ds.y, **protocol) if isinstance(kernel, np.ndarray) else \
            gi.evaluate_estimator(index, ds.y, kernel=kernel, **protocol)
        print(f"  {label:<28} {100 * result.mean:6.2f} ({100 * result.stderr:.2f})")

    run("GraphKernel()", FoldSlicedDefault(shared, {"seed": 0}, names=base))
    if args.new_members:
        run("GraphKernel() + new members", FoldSlicedDefault(shared, {"seed": 0}))
        with candidates(True):
            print("  weights with the new members on the whole data set: " + positive(learned_weights(ds)))
    if args.higher_wl:
        for name in grams:
            if name in NEW_CANDIDATES:
                run(f"  member {name}", grams[name])
        return _write(out, ds, rows, args, {})
    if args.variants:
        for label, (options, products) in VARIANTS.items():
            run(f"  {label}", FoldSlicedDefault(shared, {**options, "seed": 0}, products, names=base))
    if labelled:
        run("WL label", grams["wl_label"])
    run("WL degree", grams["wl"])
    run("RECOMMENDED (product)", grams["power"] * grams["histogram"] * grams["wl"])
    run("mean power+histogram+wl", (grams["power"] + grams["histogram"] + grams["wl"]) / 3)
    # WL-OA: ours, equal to GraKeL's WeisfeilerLehmanOptimalAssignment to 1e-12
    # (tests/embeddings/test_assignment.py); --grakel also runs GraKeL's, much slower
    run("WL-OA", grams["wloa_label" if labelled else "wloa"])
    if args.grakel:
        (seconds,), K = timed(lambda: grakel_wloa(ds))
        print(f"  (GraKeL WL-OA matrix {seconds:.1f} s)")
        run("WL-OA (GraKeL)", K)
    if args.members:
        for name, K in grams.items():
            if name not in ("wl_label", "wl", "wloa", "wloa_label"):  # those are already rows above
                run(f"  member {name}", K)
    weights = learned_weights(ds)  # what the default chooses on all of the data
    print("  weights on the whole data set: " + positive(weights))
    _write(out, ds, rows, args, weights)


def learned_weights(ds):
    return gi.GraphKernel(seed=0).fit(ds, ds.y).weights_


def positive(weights):
    """The positive weights as text."""
    return ", ".join(f"{n} {w:.2f}" for n, w in weights.items() if w > 0)


def _write(out, ds, rows, args, weights):
    with (out / "results.jsonl").open("a") as fh:
        for label, result in rows.items():
            fh.write(json.dumps({"dataset": ds.name, "kernel": label.strip(), "accuracy": round(100 * result.mean, 2),
                                 "stderr": round(100 * result.stderr, 2), **{k: v for k, v in vars(args).items()
                                                                           if k in ("reps", "folds", "c_grid", "seed")},
                                 "weights": {n: round(w, 4) for n, w in weights.items() if w > 0}
                                 if label == "GraphKernel()" else None}) + "\n")


def check(args, protocol):
    ds = tu("MUTAG")
    grams, _ = member_grams(ds, {})
    sliced = gi.evaluate_estimator(np.arange(len(ds)), ds.y, kernel=FoldSlicedDefault(Shared(grams), {"seed": 0}),
                                   **protocol)
    direct = gi.evaluate_estimator(ds, ds.y, kernel=gi.GraphKernel(seed=0), **protocol)
    same = np.array_equal(sliced.accuracies, direct.accuracies)
    print(f"MUTAG: sliced {100 * sliced.mean:.2f}, GraphKernel() fitted per fold {100 * direct.mean:.2f}: "
          f"{'identical fold by fold' if same else 'DIFFERENT'}")


def default(args):
    if args.higher_wl:
        NEW_CANDIDATES.clear()
        NEW_CANDIDATES.update(HIGHER_WL_CANDIDATES)
        args.new_members = True
    C_grid = GRIDS[args.c_grid]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    protocol = dict(n_repeats=args.reps, n_folds=args.folds, C_grid=C_grid, seed=args.seed)
    print(f"{args.reps} x {args.folds}-fold C-SVM, C grid {args.c_grid} ({C_grid[0]:g} .. {C_grid[-1]:g}), "
          f"seed {args.seed}")
    if args.check:
        return check(args, protocol)
    for name in args.datasets:
        evaluate_data_set(tu(name), args, protocol, out)


def grakel_kernel(spec):
    """``grakel.NAME:param=value,...``: a function of a data set returning GraKeL's matrix."""
    name, _, options = spec.partition(":")
    params = {k: json.loads(v) for k, v in (item.split("=") for item in filter(None, options.split(",")))}
    cls = getattr(peer("grakel"), name.split(".", 1)[1])
    return lambda ds: np.asarray(cls(normalize=True, **params).fit_transform(grakel_graphs(ds, edges=True)))


def kernels(args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "results.jsonl"
    done = {(r["dataset"], r["kernel"], r["reps"], r["c_grid"]) for r in map(json.loads, log.read_text().splitlines())
            } if log.exists() else set()
    for name in args.datasets:
        ds = tu(name)
        for spec in args.kernels:
            if (name, spec, args.reps, args.c_grid) in done:
                continue
            start = clock()
            if spec.startswith("grakel."):
                K = grakel_kernel(spec)(ds)
            else:
                kernel, params = parse_kernel_spec(spec)
                K = gi.kernel_matrix(ds, kernel=kernel, n_jobs=args.n_jobs, **params)
            kernel_seconds = clock() - start
            safe = spec.replace("*", "x").replace(":", "_").replace(",", "_").replace("=", "")
            result = gi.evaluate_kernel(K, ds.y, n_repeats=args.reps, n_folds=args.folds, C_grid=GRIDS[args.c_grid],
                                        seed=args.seed, n_jobs=args.n_jobs,
                                        checkpoint=out / f"checkpoint-{name}-{safe}-{args.reps}-{args.c_grid}.jsonl")
            row = {"dataset": name, "kernel": spec, "reps": args.reps, "c_grid": args.c_grid,
                   "accuracy": round(100 * result.mean, 2), "stderr": round(100 * result.stderr, 2),
                   "kernel_seconds": round(kernel_seconds, 2), "protocol_seconds": round(result.elapsed, 1),
                   "min_eigenvalue": float(np.linalg.eigvalsh(K).min()) if len(K) <= 5000 else None}
            with log.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{name:8s} {spec:40s} {row['accuracy']:6.2f} ({row['stderr']:.2f})  kernel {kernel_seconds:6.1f} s  "
                  f"protocol {result.elapsed:7.1f} s")
        rows = {r["kernel"]: r for r in map(json.loads, log.read_text().splitlines())
                if (r["dataset"], r["reps"], r["c_grid"]) == (name, args.reps, args.c_grid)}
        reference = rows.get(args.kernels[0])
        for spec in args.kernels[1:]:
            if reference and spec in rows:
                print(f"{name:8s} {spec:40s} {rows[spec]['accuracy'] - reference['accuracy']:+6.2f} points, kernel "
                      f"matrix {rows[spec]['kernel_seconds'] / max(reference['kernel_seconds'], 1e-9):.2f}x the "
                      f"reference {args.kernels[0]!r}")


def main(argv=None):
    protocol = dict(reps=10, folds=10, c_grid=option("full", "full: 1e-7 .. 1e7; short: 1e-3 .. 1e3"), seed=0)
    command = commands(__doc__, default=dict(
        datasets=DATASETS, out="results/default", variants=option(False, "also evaluate the design variants"),
        members=option(False, "also evaluate every candidate member on its own"),
        new_members=option(False, "also evaluate the default with NEW_CANDIDATES"),
        higher_wl=option(False, "--new-members with HIGHER_WL_CANDIDATES (fwl2, lwl2), each also alone"),
        grakel=option(False, "also run GraKeL's WL-OA (slow on large sets)"),
        check=option(False, "check the sliced default against GraphKernel() on MUTAG"), **protocol),
        kernels=dict(datasets=["MUTAG", "ENZYMES", "NCI1", "NCI109"], kernels=["power"], n_jobs=2,
                     out="results/compare", **protocol))
    args = parse(command, argv)
    {"default": default, "kernels": kernels}[args.what](args)


if __name__ == "__main__":
    main()
