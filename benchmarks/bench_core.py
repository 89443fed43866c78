"""Core speed benchmark: Gram matrix and power summary (issue: core).

Run from the project root:  python benchmarks/bench_core.py [--data ../shared/data/TU] [--only gram]

Prints medians and ratios measured in this run against straightforward implementations:

1. Gram matrix of the NCI1 graphs from precomputed invariants, by the compiled engine
   (``engine="numba"``, when numba is installed) and the numpy engine, on 1 and 2
   threads, in seconds and nanoseconds per pair, against a loop calling a plain numpy
   Bhattacharyya function per pair. The loop is timed on a random sample of pairs and
   scaled to all pairs (``--full-baseline`` times every pair). The compiled engine's
   one-off costs are measured apart, in fresh processes with an empty numba cache:
   the first compile, then a later process (import numba, load the cached code).
2. Power summary of random sparse graphs given as scipy CSR, 10^4..10^7 edges, vs a
   plain loop of ``x = A @ x / x.sum()``; time per edge shows the linear scaling.
3. Overhead of the igraph adapter on a 1,000,000-node, 5,000,000-edge graph.
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from timing import median_time  # benchmarks/timing.py
from graphinvariants.datasets import load_tu
from graphinvariants.embeddings import GaussianEmbedding
from graphinvariants.kernels import pairwise_kernels


def naive_bhattacharyya(m1, c1, m2, c2):
    cov = (c1 + c2) / 2
    d = m1 - m2
    return np.exp(
        0.25 * np.log(np.linalg.det(c1)) + 0.25 * np.log(np.linalg.det(c2))
        - 0.5 * np.log(np.linalg.det(cov)) - 0.125 * d @ np.linalg.solve(cov, d)
    )


def bench_gram(data, full_baseline, repeat):
    ds = load_tu("NCI1", data_home=data, download=False)
    invs = gi.batch_power_invariants(ds, k=5)
    n = len(invs)
    n_pairs = n * (n + 1) // 2
    print(f"Gram matrix, NCI1: {n} graphs, {n_pairs:,} pairs (k=5; load average {os.getloadavg()[0]:.1f})")
    engines = ["numba", "numpy"] if importlib.util.find_spec("numba") else ["numpy"]
    if engines == ["numpy"]:
        print("  numba is not installed (pip install graphinvariants[fast]): numpy engine only")
    one_thread, matrices = {}, {}
    for engine in engines:
        functional = GaussianEmbedding(5, engine=engine)
        pairwise_kernels(invs.take(np.arange(64)), functional=functional)  # compiles, if it must
        for n_jobs in (1, 2):
            t = median_time(lambda: pairwise_kernels(invs, functional=functional, n_jobs=n_jobs), repeat)
            print(f"  engine={engine}, n_jobs={n_jobs}: median {t:.3f} s over {repeat} runs "
                  f"({t / n_pairs * 1e9:.1f} ns/pair)")
            one_thread.setdefault(engine, t)
        matrices[engine] = pairwise_kernels(invs, functional=functional)
    if len(matrices) == 2:
        K, ref = matrices["numba"], matrices["numpy"]
        positive = ref > 0
        print(f"  numba vs numpy: max relative difference {np.max(np.abs(K[positive] / ref[positive] - 1)):.1e}, "
              f"identical entries {np.mean(K == ref):.1%}, zeros alike {np.array_equal(K == 0, ref == 0)}")
        print(f"  ratio numpy / numba (1 thread): {one_thread['numpy'] / one_thread['numba']:.1f}x")
    means = [inv.mean for inv in invs]
    covs = [inv.regularized_covariance() for inv in invs]
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(n) for j in range(i, n)] if full_baseline else rng.integers(0, n, (20_000, 2))
    start = time.perf_counter()
    for i, j in pairs:
        naive_bhattacharyya(means[i], covs[i], means[j], covs[j])
    per_pair = (time.perf_counter() - start) / len(pairs)
    t_naive = per_pair * n_pairs
    how = "all pairs" if full_baseline else f"{len(pairs):,} sampled pairs, scaled"
    print(f"  per-pair numpy loop: {per_pair * 1e6:.1f} us/pair -> {t_naive:.1f} s ({how})")
    for engine, t in one_thread.items():
        print(f"  ratio naive / engine={engine} (1 thread): {t_naive / t:.0f}x")
    if "numba" in engines:
        bench_jit()


_JIT_PROBE = """
import time
import numpy as np
from graphinvariants import GaussianBatch
from graphinvariants.embeddings import GaussianEmbedding
from graphinvariants.kernels import pairwise_kernels
rng = np.random.default_rng(0)
W = rng.normal(size=(50, 5, 5))
batch = GaussianBatch(rng.normal(size=(50, 5)), W @ W.transpose(0, 2, 1) + np.eye(5), np.full(50, 20))
start = time.perf_counter()
pairwise_kernels(batch, functional=GaussianEmbedding(5, engine="{engine}"))
print(time.perf_counter() - start)
"""


def bench_jit():
    """One-off costs of the compiled engine, in fresh processes and an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)

        def probe(engine):
            out = subprocess.run([sys.executable, "-c", _JIT_PROBE.format(engine=engine)], env=env,
                                 capture_output=True, text=True, check=True)
            return float(out.stdout.split()[-1])

        first, later, plain = probe("numba"), probe("numba"), probe("numpy")
    print(f"  compiled engine, first call in a process (50 graphs, k=5): {first:.1f} s with an empty "
          f"numba cache (import numba and compile), {later:.2f} s in a later process (import numba, "
          f"load the cache); numpy engine {plain:.3f} s")
    print("  (each further k compiles its own pair loop, a few seconds, then cached)")


def random_csr(n, m, seed):
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.coo_array((np.ones(2 * m), (np.r_[u, v], np.r_[v, u])), shape=(n, n)).tocsr()
    A.sum_duplicates()
    A.data[:] = 1
    return A


def plain_power_summary(A, k=5):
    x = np.ones(A.shape[0])
    cols = []
    for _ in range(k):
        x = A @ x / x.sum()
        cols.append(x)
    return np.column_stack(cols)


def bench_summary(repeat):
    print("Power summary from scipy CSR (k=5), edges = 5 x nodes")
    for m in (10**4, 10**5, 10**6, 5 * 10**6, 10**7):
        A = random_csr(m // 5, m, seed=m)
        t = median_time(lambda: gi.power_summary(A, k=5), repeat)
        t_plain = median_time(lambda: plain_power_summary(A), repeat)
        print(f"  {m:>10,} edges: median {t:.4f} s  ({t / m * 1e9:.1f} ns/edge; "
              f"plain loop {t_plain:.4f} s, ratio {t / t_plain:.2f})")


def bench_igraph(repeat):
    import igraph as ig

    n, m = 1_000_000, 5_000_000
    rng = np.random.default_rng(1)
    g = ig.Graph(n=n, edges=rng.integers(0, n, (m, 2)))
    A = gi.as_adjacency(g).matrix
    t_csr = median_time(lambda: gi.power_summary(A, k=5), repeat)
    t_ig = median_time(lambda: gi.power_summary(g, k=5), repeat)
    print(f"igraph, {n:,} nodes, {m:,} edges: power_summary {t_ig:.2f} s vs {t_csr:.2f} s from CSR "
          f"-> adapter adds {t_ig - t_csr:.2f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"
    parser.add_argument("--data", default=str(default), help="folder holding NCI1/ (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--full-baseline", action="store_true", help="time the naive loop on all pairs")
    parts = ("gram", "summary", "igraph")
    parser.add_argument("--only", nargs="+", choices=parts, default=parts, help="run these parts only")
    args = parser.parse_args()
    if "gram" in args.only:
        bench_gram(args.data, args.full_baseline, args.repeat)
    if "summary" in args.only:
        bench_summary(args.repeat)
    if "igraph" in args.only:
        bench_igraph(max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
