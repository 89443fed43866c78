"""The perturbation study on one large network: time per flip against one floor summary.

Run from the project root, alone on the machine:

    flock /tmp/gi-bench.lock python benchmarks/bench_perturbation_large.py [--sizes 100000 1000000]

For Barabasi-Albert (m = 5), Erdos-Renyi (mean degree 10) and 2-D grid graphs of each
size, prints

* the floor, measured in the same run: ``k = 5`` sparse products ``x <- A (x / |x|_1)``
  on the int32 CSR and the mean and covariance of the ``n x k`` summary, plain
  numpy/scipy (median of 7);
* the time per flip of ``perturbation_study(G, n_sequences=..., n_steps=20)`` (its
  whole run divided by its flips: the edits, the incremental or full updates, the
  kernel curve), and its ratio to the floor (target: at most 3x);
* how the updates went (incremental / with full products for the large balls / from
  scratch), and the time per flip with each way forced (``ball_fraction=inf``,
  ``1e-9`` and ``0``), so that the default threshold can be judged;

and the paper's protocol (100 sequences of 20 flips) on the 10^5-node graphs.

Measured (two runs under the lock on the shared 2-core machine, per flip against the
floor of the same run; 3 sequences x 20 flips each):

==========================  ============  ============  ==============================
graph                       10^5 nodes    10^6 nodes    100 x 20 flips, 10^5 nodes
==========================  ============  ============  ==============================
Barabasi-Albert (m = 5)     0.77x, 0.96x  0.50x, 0.59x  26.5 s, 20.6 s (was 14 min)
Erdos-Renyi (degree 10)     0.56x, 0.56x  0.13x, 0.12x  22.6 s, 20.3 s
2-D grid                    0.12x, 0.14x  0.07x, 0.05x  1.4 s, 2.5 s
==========================  ============  ============  ==============================
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from timing import floor_invariants, median_time  # benchmarks/timing.py


def ba_graph(n, m, seed):
    import igraph as ig

    import random

    ig.set_random_number_generator(random.Random(seed))
    return _csr(n, np.array(ig.Graph.Barabasi(n, m).get_edgelist()))


def er_graph(n, mean_degree, seed):
    rng = np.random.default_rng(seed)
    m = n * mean_degree // 2
    edges = rng.integers(0, n, size=(int(m * 1.05), 2))
    edges = edges[edges[:, 0] != edges[:, 1]][:m]
    return _csr(n, edges)


def grid_graph(n):
    side = int(round(np.sqrt(n)))
    path = sp.diags([np.ones(side - 1), np.ones(side - 1)], [-1, 1], shape=(side, side))
    eye = sp.identity(side)
    return sp.csr_array(sp.kron(path, eye) + sp.kron(eye, path))


def _csr(n, edges):
    rows = np.concatenate((edges[:, 0], edges[:, 1]))
    cols = np.concatenate((edges[:, 1], edges[:, 0]))
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


def per_flip(A, n_sequences, n_steps, **options):
    start = time.perf_counter()
    study = gi.perturbation_study(A, n_sequences=n_sequences, n_steps=n_steps, seed=0, **options)
    return (time.perf_counter() - start) / (n_sequences * n_steps), study


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--sequences", type=int, default=3, help="sequences of 20 flips timed per graph")
    parser.add_argument("--protocol", action=argparse.BooleanOptionalAction, default=True,
                        help="also run 100 sequences x 20 flips on the 10^5-node graphs")
    args = parser.parse_args()
    print(f"{'graph':<22} {'nnz':>9} {'floor ms':>9} {'flip ms':>8} {'ratio':>6} {'updates i/p/s':>13} "
          f"{'incremental':>11} {'products':>9} {'scratch':>8}  (forced, ms per flip)")
    for n in args.sizes:
        graphs = {"Barabasi-Albert m=5": ba_graph(n, 5, 0), "Erdos-Renyi deg 10": er_graph(n, 10, 0),
                  "2-D grid": grid_graph(n)}
        for name, A in graphs.items():
            A32 = sp.csr_array((A.data, A.indices.astype(np.int32), A.indptr.astype(np.int32)), shape=A.shape)
            floor = median_time(lambda: floor_invariants(A32), 7)
            flip, study = per_flip(A, args.sequences, 20)
            updates = "/".join(str(v) for v in study.params["updates"].values())
            forced = {label: per_flip(A, 1, 20, ball_fraction=fraction)[0]
                      for label, fraction in (("incremental", float("inf")), ("products", 1e-9), ("scratch", 0.0))}
            print(f"{name + f' {n:.0e}':<22} {A.nnz:>9d} {1e3 * floor:>9.1f} {1e3 * flip:>8.2f} "
                  f"{flip / floor:>5.2f}x {updates:>13} {1e3 * forced['incremental']:>11.2f} "
                  f"{1e3 * forced['products']:>9.2f} {1e3 * forced['scratch']:>8.2f}", flush=True)
        if args.protocol and n == 100_000:
            for name, A in graphs.items():
                start = time.perf_counter()
                gi.perturbation_study(A, n_sequences=100, n_steps=20, seed=0)
                total = time.perf_counter() - start
                print(f"  protocol 100 x 20 flips on {name} {n:.0e}: {total:.1f} s", flush=True)


if __name__ == "__main__":
    main()
