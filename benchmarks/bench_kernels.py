"""Gram-matrix time of every kernel on NCI1, and random features against the exact mean map.

Run from the project root:  python benchmarks/bench_kernels.py [--data ../shared/data/TU]

1. The NCI1 Gram matrix (4,110 graphs, from the loaded data set: embedding included)
   for each kernel, median of ``--repeat`` runs on one thread, with its ratio to the
   Gaussian power kernel's time measured in the same run.
2. The mean map with D random Fourier features against its exact form (double sums over
   node pairs) on MUTAG: the largest and mean absolute error of the kernel matrix and
   the time, for D = 50 .. 5000 (errors averaged over 3 seeds), and the accuracy of
   both under the paper's protocol (1 repetition, C in 1e-3 .. 1e3).
"""

import statistics
import time

import numpy as np

import graphinvariants as gi
from timing import benchmark_parser, median_time  # benchmarks/timing.py

KERNELS = [
    ("power", {}),
    ("histogram", {"k": 9}),
    ("wl", {"n_iter": 5}),
    ("meanmap", {"n_features": 500}),
    ("power*histogram", {"histogram__k": 9}),
    ("power*wl", {}),
    ("power*histogram*wl", {"histogram__k": 9}),  # the recommended member
]


def main():
    parser = benchmark_parser(__doc__, repeat=3, data=True)
    args = parser.parse_args()

    nci1 = gi.load_tu("NCI1", data_home=args.data, download=False)
    print(f"1. NCI1 Gram matrix, {len(nci1)} graphs, one thread, median of {args.repeat} (embedding included)")
    base = None
    for kernel, params in KERNELS:
        t = median_time(lambda: gi.kernel_matrix(nci1, kernel=kernel, n_jobs=1, **params), args.repeat)
        base = base or t
        label = kernel + "".join(f" {k}={v}" for k, v in params.items())
        print(f"   {label:<36} {t:7.2f} s   {t / base:5.2f}x the power kernel")

    mutag = gi.load_tu("MUTAG", data_home=args.data, download=False)
    start = time.perf_counter()
    exact = gi.kernel_matrix(mutag, kernel="meanmap")
    t_exact = time.perf_counter() - start
    grid = tuple(10.0**e for e in range(-3, 4))
    acc_exact = gi.evaluate_kernel(exact, mutag.y, n_repeats=1, C_grid=grid).mean
    print(f"2. MUTAG mean map (log profiles, k=5, bandwidth 1): exact {t_exact:.2f} s, accuracy {100 * acc_exact:.2f}")
    for D in (50, 200, 500, 2000, 5000):
        errors, means, times = [], [], []
        for seed in range(3):
            start = time.perf_counter()
            K = gi.kernel_matrix(mutag, kernel="meanmap", n_features=D, seed=seed)
            times.append(time.perf_counter() - start)
            errors.append(np.abs(K - exact).max())
            means.append(np.abs(K - exact).mean())
        acc = gi.evaluate_kernel(K, mutag.y, n_repeats=1, C_grid=grid).mean
        print(f"   D={D:<5d} max error {np.mean(errors):.4f}  mean error {np.mean(means):.5f}  "
              f"time {statistics.median(times):.2f} s  accuracy {100 * acc:.2f}")


if __name__ == "__main__":
    main()
