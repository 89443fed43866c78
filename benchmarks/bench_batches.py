"""Batch-path benchmark (issue: open core).

Run from the project root:  python benchmarks/bench_batches.py [--data ../shared/data/TU]

Prints medians and ratios measured in this run:

1. Gaussian invariants of all 4,110 NCI1 graphs from the loaded TUDataset through the
   generic batch function, against the per-graph object path the package used before
   batches were arrays (a PowerInvariants object per graph, validated one by one, then
   stacked back into arrays for the kernel) and against the path through per-graph
   adjacencies and ``scipy.sparse.block_diag``.
2. The same invariants from a list of 4,110 scipy CSR matrices, against a plain
   per-graph numpy loop (``x = A @ x / x.sum()``, then mean and covariance): the batch
   path must be at least as fast from any input.
3. The NCI1 Gram matrix from those invariants, one thread (the pair engine; the target
   of the "nothing slower" rule).
"""


import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from timing import benchmark_parser, median_time  # benchmarks/timing.py


def object_path(ds):
    """Before: invariants as a list of validated objects, stacked again for the kernel."""
    batch = gi.batch_power_invariants(ds)
    objects = [gi.PowerInvariants(m, c, int(n)) for m, c, n in zip(batch.means, batch.covariances, batch.n_nodes)]
    means = np.stack([inv.mean for inv in objects])
    covs = np.stack([inv.covariance for inv in objects])
    scales = np.array([inv.ridge_scale() for inv in objects])
    return means, covs, scales


def block_diag_path(ds):
    """Before: per-graph adjacencies joined again with scipy.sparse.block_diag."""
    matrices = [a.matrix for a in ds.adjacencies]
    A = sp.block_diag(matrices, format="csr")
    offsets = np.concatenate(([0], np.cumsum([m.shape[0] for m in matrices])))
    return gi.batch_power_invariants(gi.GraphBatch(sp.csr_array(A), offsets))


def plain_loop(matrices, k=5):
    out = []
    for A in matrices:
        x = np.ones(A.shape[0])
        columns = []
        for _ in range(k):
            x = A @ x / x.sum()
            columns.append(x)
        S = np.column_stack(columns)
        mu = S.mean(axis=0)
        out.append((mu, (S - mu).T @ (S - mu) / len(S)))
    return out


def main():
    parser = benchmark_parser(__doc__, repeat=7, data=True)
    args = parser.parse_args()
    ds = gi.load_tu("NCI1", data_home=args.data, download=False)
    print(f"NCI1: {len(ds)} graphs, {ds.n_nodes} nodes; medians over {args.repeat} runs")

    batch = median_time(lambda: gi.batch_power_invariants(ds), args.repeat)
    objects = median_time(lambda: object_path(ds), args.repeat)
    ds.adjacencies  # built once, as the old path cached it
    block = median_time(lambda: block_diag_path(ds), args.repeat)
    print(f"1. from the TUDataset: batch {batch:.3f} s | object path {objects:.3f} s "
          f"({objects / batch:.1f}x) | adjacencies + block_diag {block:.3f} s ({block / batch:.1f}x)")

    matrices = [a.matrix for a in ds.adjacencies]
    from_list = median_time(lambda: gi.batch_power_invariants(matrices), args.repeat)
    loop = median_time(lambda: plain_loop(matrices), args.repeat)
    print(f"2. from {len(matrices)} scipy matrices: batch {from_list:.3f} s | plain per-graph loop "
          f"{loop:.3f} s (batch is {loop / from_list:.2f}x the loop's speed)")

    invariants = gi.batch_power_invariants(ds)
    gram = median_time(lambda: gi.power_kernel_matrix(invariants, n_jobs=1), 3)
    n_pairs = len(ds) * (len(ds) + 1) // 2
    print(f"3. Gram matrix from invariants, 1 thread: {gram:.3f} s ({1e9 * gram / n_pairs:.0f} ns per pair)")


if __name__ == "__main__":
    main()
