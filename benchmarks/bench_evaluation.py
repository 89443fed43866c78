"""Evaluation-protocol benchmark (issue: Table 1).

Run from the project root:
    python benchmarks/bench_evaluation.py [--data ../shared/data/TU] [--reps 10] [--n-jobs 2]

For each data set: the time of the full protocol (``--reps`` x 10 folds, k = 5) with
``evaluate_kernel`` (joblib over outer folds, exact large-C shortcut), and, measured in
the same run, a straightforward serial run without the shortcut of one repetition
(10 outer folds), scaled to all repetitions. With ``--reps 10`` this takes hours on 2 cores (NCI1 and
NCI109 dominate); ``graphinvariants evaluate`` runs the same protocol with checkpoints.
"""

import argparse
import time
from pathlib import Path

import numpy as np

import graphinvariants as gi
from graphinvariants.evaluation import _protocol as evaluation


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("datasets", nargs="*", default=["MUTAG", "ENZYMES", "NCI1", "NCI109"])
    args = parser.parse_args()
    total = 0.0
    for name in args.datasets:
        ds = gi.load_tu(name, data_home=args.data, download=False)
        K = gi.power_kernel_matrix(gi.batch_power_invariants(ds, k=5))
        start = time.perf_counter()
        result = gi.evaluate_kernel(K, ds.y, n_repeats=args.reps, seed=0, n_jobs=args.n_jobs)
        ours = time.perf_counter() - start
        total += ours
        evaluation._USE_SHORTCUT = False
        start = time.perf_counter()
        gi.evaluate_kernel(K, ds.y, n_repeats=1, seed=0, n_jobs=1)
        evaluation._USE_SHORTCUT = True
        naive = (time.perf_counter() - start) * args.reps
        print(f"{name}: {100 * result.mean:.2f} ({100 * result.stderr:.2f}) %, protocol {ours:.0f} s "
              f"({result.n_fits} fits); serial without shortcut ~{naive:.0f} s "
              f"(1 repetition measured, scaled); ratio {naive / ours:.1f}x", flush=True)
    print(f"total: {total / 60:.1f} min for {len(args.datasets)} data sets")


if __name__ == "__main__":
    main()
