"""Accuracy of kernels under the paper's protocol, side by side (issue: beyond the Gaussian).

Run from the project root, for example::

    python benchmarks/compare_kernels.py --datasets MUTAG ENZYMES NCI1 NCI109 \
        --kernels "power" "histogram:k=7" "wl:n_iter=5" "power*histogram:histogram__k=9" \
        --reps 10 --c-grid full --out results/compare

Every kernel is evaluated with :func:`graphinvariants.evaluate_kernel` on the same
splits (same seed): C-SVM on the precomputed matrix, 10-fold outer CV, C chosen on an
inner split, repeated ``--reps`` times. ``--c-grid full`` is the paper's 1e-7 .. 1e7;
``--c-grid short`` is 1e-3 .. 1e3 (for quick probes, and said so in the output).
Each (data set, kernel) run appends one JSON line to ``OUT/results.jsonl`` with the
accuracy, standard error, time of the kernel matrix and time of the protocol; runs
already in that file are skipped, and each protocol run resumes from its checkpoint.
The first of ``--kernels`` is the reference: every other kernel's accuracy is printed as
its difference in points from it, and its kernel-matrix time as a ratio to it.
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

import graphinvariants as gi
from graphinvariants.kernels import parse_kernel_spec

GRIDS = {"full": tuple(10.0**e for e in range(-7, 8)), "short": tuple(10.0**e for e in range(-3, 4))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "ENZYMES", "NCI1", "NCI109"])
    parser.add_argument("--kernels", nargs="+", default=["power"])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--c-grid", choices=sorted(GRIDS), default="full")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    parser.add_argument("--out", default="results/compare")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "results.jsonl"
    done = set()
    if log.exists():
        for line in log.read_text().splitlines():
            row = json.loads(line)
            done.add((row["dataset"], row["kernel"], row["reps"], row["c_grid"]))
    for name in args.datasets:
        ds = gi.load_tu(name, data_home=args.data, download=False)
        for spec in args.kernels:
            if (name, spec, args.reps, args.c_grid) in done:
                continue
            kernel, params = parse_kernel_spec(spec)
            start = time.perf_counter()
            K = gi.kernel_matrix(ds, kernel=kernel, n_jobs=args.n_jobs, **params)
            kernel_seconds = time.perf_counter() - start
            safe = spec.replace("*", "x").replace(":", "_").replace(",", "_").replace("=", "")
            result = gi.evaluate_kernel(
                K, ds.y, n_repeats=args.reps, C_grid=GRIDS[args.c_grid], seed=args.seed, n_jobs=args.n_jobs,
                checkpoint=out / f"checkpoint-{name}-{safe}-{args.reps}-{args.c_grid}.jsonl",
            )
            row = {
                "dataset": name, "kernel": spec, "reps": args.reps, "c_grid": args.c_grid,
                "accuracy": round(100 * result.mean, 2), "stderr": round(100 * result.stderr, 2),
                "kernel_seconds": round(kernel_seconds, 2), "protocol_seconds": round(result.elapsed, 1),
                "min_eigenvalue": float(np.linalg.eigvalsh(K).min()) if len(K) <= 5000 else None,
            }
            with log.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{name:8s} {spec:40s} {row['accuracy']:6.2f} ({row['stderr']:.2f})  "
                  f"kernel {kernel_seconds:6.1f} s  protocol {result.elapsed:7.1f} s", flush=True)
            done.add((name, spec, args.reps, args.c_grid))
        _against_reference(log, name, args)


def _against_reference(log, dataset, args):
    """Every kernel's accuracy and time against the first of ``--kernels`` (the
    reference), on the same splits."""
    rows = {}
    for line in log.read_text().splitlines():
        row = json.loads(line)
        if (row["dataset"], row["reps"], row["c_grid"]) == (dataset, args.reps, args.c_grid):
            rows[row["kernel"]] = row
    reference = rows.get(args.kernels[0])
    if reference is None:
        return
    for spec in args.kernels[1:]:
        if spec in rows:
            row = rows[spec]
            print(f"{dataset:8s} {spec:40s} {row['accuracy'] - reference['accuracy']:+6.2f} points, "
                  f"kernel matrix {row['kernel_seconds'] / max(reference['kernel_seconds'], 1e-9):.2f}x "
                  f"the reference {args.kernels[0]!r}", flush=True)


if __name__ == "__main__":
    main()
