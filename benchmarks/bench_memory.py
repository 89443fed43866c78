"""Memory of the exact count members and of the power embedding (issue 15, items 8, 10, 12).

Run from the project root:

    python benchmarks/bench_memory.py [--data ../shared/data/TU] [--quick] [--sections 1 2 3 4]

Prints peak traced memory (tracemalloc: every numpy and scipy array) and wall time,
each with a ratio measured in this run:

1. The recommended fixed kernel (``GraphKernel(kernel=RECOMMENDED)``, the default
   before the learned one) on dense graphs whose walk counts leave
   int64 (they were refused before): two complete graphs and two G(2000, 0.5); and
   their walk counts (k=9) as base-2**31 digits against the same counts in Python ints
   (the object-array fallback that ``walk_counts`` used before).
2. The labelled walk histogram of one star with 3,000 distinct leaf labels among
   2,000 small labelled trees, against the trees alone (was 14.7 GiB and 139 s, against
   0.3 GiB and 1.8 s).
3. The walk histogram at k=5 and k=20 on many nodes: peak, and the vocabulary it
   stores (pairs per length) against the padded one it used to store (distinct
   prefixes x k int64 values).
4. The power embedding (invariants and the prepared side of the kernel) of NCI1 at
   k=100 and k=200, against the nodes x k^2 outer products it used to form at once
   (10.2 GiB at k=100; a MemoryError asking 36.6 GiB at k=200), and a Gram matrix of
   100 graphs (tiles of pairs x k^2 values before). The default ridge leaves some
   covariances singular at these k (the message says so); figures use ridge=1e-8.
"""

import argparse
import time
import tracemalloc
from pathlib import Path

import networkx as nx
import numpy as np

import graphinvariants as gi
from graphinvariants.kernels import RECOMMENDED
from graphinvariants.embeddings import GaussianEmbedding, LabelledWalkHistogram, WalkHistogram
from graphinvariants.walks.summary import walk_count_columns

MIB = 2**20


def traced(fn):
    """``(result, peak MiB, seconds)`` of one call."""
    tracemalloc.start()
    start = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / MIB
    tracemalloc.stop()
    return out, peak, seconds


def python_int_counts(G, k):
    """Walk counts by the old fallback: object arrays of Python ints, column by column."""
    A = nx.to_scipy_sparse_array(G, format="csr")
    counts = np.ones(A.shape[0], dtype=object)
    for _ in range(k):
        products = counts[A.indices]
        counts = np.array([sum(products[a:b], 0) for a, b in zip(A.indptr[:-1], A.indptr[1:])], dtype=object)
    return counts


def dense_default(quick):
    n = 600 if quick else 2000
    pairs = [("K_120, K_100", [nx.complete_graph(120), nx.complete_graph(100)]),
             (f"two G({n}, 0.5)", [nx.gnp_random_graph(n, 0.5, seed=s) for s in (1, 2)])]
    for name, graphs in pairs:
        K, peak, seconds = traced(lambda graphs=graphs: gi.GraphKernel(kernel=RECOMMENDED).fit_transform(graphs))
        print(f"1. GraphKernel(kernel=RECOMMENDED) on {name}: K[0, 1] = {K[0, 1]:.4f}, {seconds:.2f} s, "
              f"peak {peak:.0f} MiB")
        A = nx.to_scipy_sparse_array(graphs[0], format="csr")
        start = time.perf_counter()
        list(walk_count_columns(A, 9))
        fast = time.perf_counter() - start
        start = time.perf_counter()
        python_int_counts(graphs[0], 9)
        slow = time.perf_counter() - start
        print(f"   walk counts k=9 of the first as digits {fast:.3f} s, in Python ints {slow:.3f} s "
              f"(ratio {slow / fast:.0f}x)")


def labelled_star(quick):
    leaves, n_trees = (600, 400) if quick else (3000, 2000)
    star = nx.star_graph(leaves)
    nx.set_node_attributes(star, {v: f"L{v}" for v in star}, "label")
    trees = []
    for seed in range(n_trees):
        G = nx.random_labeled_tree(10, seed=seed)
        nx.set_node_attributes(G, {v: "ABC"[v % 3] for v in G}, "label")
        trees.append(G)
    functional = LabelledWalkHistogram()
    with_star, without = functional.graph_batch([star] + trees), functional.graph_batch(trees)
    _, peak, seconds = traced(lambda: functional.embed(with_star))
    _, peak0, seconds0 = traced(lambda: functional.embed(without))
    print(f"2. labelled_histogram (k=5), star with {leaves} labels among {n_trees} trees: {peak:.0f} MiB, "
          f"{seconds:.2f} s; trees alone {peak0:.0f} MiB, {seconds0:.2f} s (ratio {peak / peak0:.1f}x memory, "
          f"{seconds / seconds0:.1f}x time)")


def histogram_nodes(quick):
    n_graphs = 2000 if quick else 20000
    graphs = [nx.gnp_random_graph(60, 0.05, seed=s) for s in range(n_graphs)]
    for k in (5, 20):
        functional = WalkHistogram(k=k)
        batch = functional.graph_batch(graphs)
        embedded, peak, seconds = traced(lambda: functional.embed(batch))
        padded = embedded.counts.shape[1] * k * 8 / MIB
        stored = sum(previous.nbytes + counts.nbytes for previous, counts in embedded.rounds) / MIB
        print(f"3. histogram k={k}, {batch.n_nodes:,} nodes: peak {peak:.0f} MiB, {seconds:.2f} s; vocabulary "
              f"{stored:.0f} MiB, padded it was {padded:.0f} MiB (ratio {padded / stored:.1f}x)")


def power_nci1(data, quick):
    ds = gi.datasets.load_tu("NCI1", data_home=data, download=False)
    if quick:
        ds = ds[:500]
    for k in (100, 200):
        batch = GaussianEmbedding(k=k).graph_batch(ds)
        try:
            gi.kernel_matrix(ds[:100], kernel="power", k=k)
        except ValueError as err:  # singular covariances at large k: the message names the ridge
            print(f"4. power k={k}, default ridge: {err}")
        functional = GaussianEmbedding(k=k, ridge=1e-8)
        _, peak, seconds = traced(lambda: functional.prepare(functional.embed(batch), "NCI1"))
        outer = batch.n_nodes * k * k * 8 / MIB
        print(f"4. power embedding k={k}, ridge=1e-8, {len(ds)} graphs, {batch.n_nodes:,} nodes: peak {peak:.0f} MiB, "
              f"{seconds:.1f} s; the outer products alone were {outer:,.0f} MiB (ratio {outer / peak:.1f}x)")
        _, peak, seconds = traced(lambda: gi.kernel_matrix(ds[:100], kernel="power", k=k, ridge=1e-8))
        tile = 128 * 128 * k * k * 8 / MIB
        print(f"   Gram matrix of 100 graphs: peak {peak:.0f} MiB, {seconds:.1f} s; one 128 x 128 tile of "
              f"pair matrices was {tile:,.0f} MiB (ratio {tile / peak:.1f}x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data" / "TU")
    parser.add_argument("--quick", action="store_true", help="smaller inputs (a few minutes)")
    parser.add_argument("--sections", type=int, nargs="+", choices=[1, 2, 3, 4], default=[1, 2, 3, 4])
    args = parser.parse_args()
    sections = {1: lambda: dense_default(args.quick), 2: lambda: labelled_star(args.quick),
                3: lambda: histogram_nodes(args.quick), 4: lambda: power_nci1(args.data, args.quick)}
    for section in args.sections:
        sections[section]()


if __name__ == "__main__":
    main()
