"""Evaluating the learned default at the cost of one kernel (issue 23).

Run from the project root:

    python benchmarks/bench_learned_evaluation.py [--data ../shared/data/TU] [--datasets MUTAG NCI1]
                                                  [--reps 10] [--old-reps MUTAG=10 NCI1=1]

The paper's protocol (10-fold, C in 1e-7 .. 1e7, ``n_repeats`` repetitions, seed 0,
one thread), three ways on each data set:

* ``fixed``: a fixed member, ``GraphKernel(kernel="wl")``: its Gram matrix once, then
  :func:`graphinvariants.evaluate_kernel` (the cost the learned default is held to).
* ``shared``: :func:`graphinvariants.evaluate_estimator` with ``GraphKernel(seed=0)``,
  as the package runs it now: every candidate member's Gram matrix over all graphs
  once, the weights (and the shapes' medians) learned on each training part.
* ``fresh``: the same with a fresh fit on every part (the path before: a subclass of
  GraphKernel, which evaluate_estimator fits like any other estimator). Slow on NCI1,
  so ``--old-reps`` may run fewer repetitions; repetition ``r`` has the same folds
  whatever the number of repetitions, so the accuracies are compared fold by fold on
  the repetitions both ran.

``seed=0`` fixes the subsample the weights are learned on (above 1,000 training
graphs), so that both learned paths draw the same one and can be compared exactly.
Prints seconds, the ratio shared / fixed (target: at most 3) and fresh / shared
(per repetition when fewer were run), the mean accuracies and whether the learned
paths agree fold by fold.
"""

import argparse
from pathlib import Path

import numpy as np

import graphinvariants as gi
from timing import timed_once  # benchmarks/timing.py

ROOT = Path(__file__).resolve().parents[1]


class FreshGraphKernel(gi.GraphKernel):
    """The learned default refitted from the graphs on every part (the previous path)."""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "TU"))
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "NCI1"])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--old-reps", nargs="*", default=["NCI1=1"],
                        help="NAME=REPS: repetitions of the fresh path (default: --reps)")
    args = parser.parse_args(argv)
    old_reps = {key: int(value) for key, value in (item.split("=") for item in args.old_reps)}
    protocol = {"n_folds": 10, "seed": 0, "n_jobs": 1}
    for name in args.datasets:
        ds = gi.load_tu(name, data_home=args.data)
        reps, fresh_reps = args.reps, min(old_reps.get(name, args.reps), args.reps)
        K, _, gram_seconds = timed_once(lambda ds=ds: gi.GraphKernel(kernel="wl").fit_transform(ds))
        fixed, _, fixed_seconds = timed_once(lambda: gi.evaluate_kernel(K, ds.y, n_repeats=reps, **protocol))
        fixed_seconds += gram_seconds
        del K
        shared, _, shared_seconds = timed_once(lambda ds=ds: gi.evaluate_estimator(
            ds, ds.y, kernel=gi.GraphKernel(seed=0), n_repeats=reps, **protocol))
        fresh, _, fresh_seconds = timed_once(lambda ds=ds: gi.evaluate_estimator(
            ds, ds.y, kernel=FreshGraphKernel(seed=0), n_repeats=fresh_reps, **protocol))
        same = (np.array_equal(fresh.accuracies, shared.accuracies[:fresh_reps])
                and np.array_equal(fresh.chosen_C, shared.chosen_C[:fresh_reps]))
        print(f"{name} ({len(ds)} graphs), {reps} x 10 folds, one thread:")
        print(f"  fixed  wl Gram + evaluate_kernel: {fixed_seconds:8.1f} s (Gram {gram_seconds:.1f} s), "
              f"accuracy {100 * fixed.mean:.2f} ({100 * fixed.stderr:.2f})")
        print(f"  shared learned, Grams once:       {shared_seconds:8.1f} s, accuracy {100 * shared.mean:.2f} "
              f"({100 * shared.stderr:.2f}); first {fresh_reps} repetition(s): "
              f"{100 * shared.accuracies[:fresh_reps].mean():.2f}")
        print(f"  fresh  learned, refitted per part: {fresh_seconds:7.1f} s for {fresh_reps} repetition(s), "
              f"accuracy {100 * fresh.mean:.2f}")
        per_rep = (fresh_seconds / fresh_reps) / (shared_seconds / reps)
        print(f"  ratio shared / fixed {shared_seconds / fixed_seconds:.2f}x; fresh / shared {per_rep:.1f}x per "
              f"repetition; the learned paths agree fold by fold (accuracy and C): {same}", flush=True)


if __name__ == "__main__":
    main()
