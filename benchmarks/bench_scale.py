"""The learned default on 10^4 .. 10^5 graphs in one process: features, a linear model, predictions.

Run from the project root under the bench lock::

    flock /tmp/bench.lock python benchmarks/bench_scale.py --sizes 10000 30000 100000 --exact 10000

Data: :func:`graphinvariants.datasets.perturbed_copies` of ``--source`` (Mutagenicity
by default: molecules with node and edge labels), one random edge removed from every
copy, each copy keeping its source's label. Split by source graph
(:func:`split_by_source`): every copy of a source is on the same side, 10% of the
sources' copies are tested, so no test graph has a near-duplicate (its source, less
another edge) in the training part.

Each size runs in a fresh process (so that its peak resident memory is its own):
``GraphFeatures(max_samples=1000, n_landmarks=--n-landmarks)`` fitted on the
training graphs (weights learned on 1,000 of them), features of the training and test
graphs, ``LinearSVC(C=--C)`` trained and tested. The exact path (``GraphKernel()``, its
square matrix and ``SVC(kernel="precomputed", C=--C)``) runs at ``--exact`` graphs for
the ratio. Prints
time, peak memory and accuracy per size, time per graph (flat when the cost is linear),
and the ratios; ``--json`` writes them.
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

TU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"


def split_by_source(n_copies, n_sources, *, test_size=0.1, seed=0, start=0):
    """``(train, test)``: sorted positions of copies ``start .. start + n_copies - 1``
    of :func:`~graphinvariants.datasets.perturbed_copies`, split by source graph (copy
    ``i`` is a copy of source ``i % n_sources``): every copy of a source on one side,
    about ``test_size`` of the sources on the test side (scikit-learn's
    ``GroupShuffleSplit``)."""
    from sklearn.model_selection import GroupShuffleSplit

    sources = (start + np.arange(n_copies)) % n_sources
    split = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    train, test = next(split.split(sources, groups=sources))
    return np.sort(train), np.sort(test)


def one_run(n, source, path, progress, n_landmarks, C):
    import graphinvariants as gi
    from graphinvariants.datasets import perturbed_copies

    t0 = time.perf_counter()
    sources = gi.load_tu(source, data_home=TU, download=False)
    data = perturbed_copies(sources, n, seed=0)
    train_at, test_at = split_by_source(n, len(sources), seed=0)
    train, test = data[train_at], data[test_at]
    generate = time.perf_counter() - t0
    t0 = time.perf_counter()
    if path == "linear":
        from sklearn.svm import LinearSVC

        features = gi.GraphFeatures(max_samples=1000, n_landmarks=n_landmarks, seed=0,
                                      progress=progress)
        F_train = features.fit_transform(train, train.y)
        F_test = features.transform(test)
        t_features = time.perf_counter() - t0
        model = LinearSVC(C=C, max_iter=5000).fit(F_train, train.y)
        accuracy = float(model.score(F_test, test.y))
        extra = {"n_features": int(features.n_features_out_), "nnz_per_row": F_train.nnz / F_train.shape[0],
                 "exact_weight": features.exact_weight_}
    else:
        from sklearn.svm import SVC

        kernel = gi.GraphKernel(seed=0)
        K_train = kernel.fit_transform(train, train.y)
        K_test = kernel.transform(test)
        t_features = time.perf_counter() - t0
        model = SVC(kernel="precomputed", C=C).fit(K_train, train.y)
        accuracy = float(model.score(K_test, test.y))
        extra = {}
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(json.dumps({"n": n, "source": source, "n_train": len(train), "n_test": len(test),
                      "split": "by source graph", "path": path, "seconds": seconds, "features_seconds": t_features,
                      "generate_seconds": generate, "peak_gib": peak, "accuracy": accuracy, **extra}))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    parser.add_argument("--exact", type=int, nargs="*", default=[10_000])
    parser.add_argument("--source", default="Mutagenicity")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--n-landmarks", type=int, default=1000)
    parser.add_argument("--C", type=float, default=10.0, help="C of both the LinearSVC and the SVC")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one_run(int(args.one[0]), args.source, args.one[1], args.progress, args.n_landmarks, args.C)
        return
    results = []
    for path, sizes in (("linear", args.sizes), ("exact", args.exact)):
        for n in sizes:
            cmd = [sys.executable, __file__, "--source", args.source, "--one", str(n), path,
                   "--n-landmarks", str(args.n_landmarks), "--C", str(args.C)]
            if args.progress:
                cmd.append("--progress")
            out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
            row = json.loads(out.strip().splitlines()[-1])
            results.append(row)
            print(f"{path:6s} n={n:7d}: {row['seconds']:7.1f} s ({1e3 * row['seconds'] / n:.2f} ms per graph), "
                  f"peak {row['peak_gib']:.2f} GiB, test accuracy {100 * row['accuracy']:.1f}% ({row['n_test']} copies "
                  "of sources none of whose copies were trained on)", flush=True)
    linear = {r["n"]: r for r in results if r["path"] == "linear"}
    for r in results:
        if r["path"] == "exact" and r["n"] in linear:
            lin = linear[r["n"]]
            print(f"at n={r['n']}: exact / features time {r['seconds'] / lin['seconds']:.1f} x, "
                  f"peak memory {r['peak_gib'] / lin['peak_gib']:.1f} x, accuracy {100 * r['accuracy']:.1f} "
                  f"against {100 * lin['accuracy']:.1f}")
    sizes = sorted(linear)
    if len(sizes) > 1:
        a, b = linear[sizes[0]], linear[sizes[-1]]
        print(f"from n={sizes[0]} to n={sizes[-1]} ({sizes[-1] / sizes[0]:.0f} x the graphs): time "
              f"{b['seconds'] / a['seconds']:.1f} x, peak memory {b['peak_gib'] / a['peak_gib']:.1f} x")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
