"""One large graph: power_invariants against the arithmetic floor, measured in the same run.

The floor is the straightforward computation in plain numpy/scipy on one thread: ``k``
products ``x <- A (x / |x|_1)`` on a canonical CSR, then the mean and covariance of
the ``n x k`` summary (``C = S - mean; C.T @ C / n``). For each graph this prints

* ``gi.power_invariants`` on one thread per input type (scipy CSR, a pair of edge
  arrays, igraph, NetworkX up to 10^6 nodes) and its ratio to the floor (the inputs
  that need a CSR built are also timed against "build the CSR the obvious way + floor":
  ``igraph.get_edgelist`` / ``networkx.to_scipy_sparse_array``);
* one and two threads (the speed-up of the products and moments);
* the product alone by scipy, by our compiled loop, and by SuiteSparse:GraphBLAS
  (python-graphblas, if installed) on one and two threads: the measurement behind
  the choice of numba;
* the peak memory (tracemalloc, which numpy reports to) of power_invariants beyond
  the CSR, against the summary's ``8 n k`` bytes, and of the floor.

Medians of ``--repeat`` runs (default 5); ratios are medians of per-run ratios. Run it
alone: the machine has two cores. ``--quick`` stops at 10^6 nodes.

    python benchmarks/bench_large_graph.py [--quick] [--repeat 5]
"""

import argparse
import importlib.util
import os
import statistics
import tracemalloc

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the floor's BLAS on one thread, as the floor

import igraph as ig
import networkx as nx
import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.walks import large as large_graph
from timing import floor_invariants, timed  # benchmarks/timing.py

K = 5


def er_edges(n, degree, rng):
    m = n * degree // 2
    return rng.integers(0, n, m), rng.integers(0, n, m)


def ba_edges(n, degree):
    g = ig.Graph.Barabasi(n, degree // 2)
    e = np.array(g.get_edgelist(), dtype=np.int64)
    return e[:, 0], e[:, 1]


def peak_bytes(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def ratio(a, b):
    return statistics.median(x / y for x, y in zip(a, b))


def graphblas_products(A, threads, k=K):
    """k normalised products by SuiteSparse:GraphBLAS on an iso-valued (pattern) matrix."""
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    M = gb.Matrix.from_csr(A.indptr, A.indices, 1.0, nrows=A.shape[0], ncols=A.shape[1])

    def run():
        v = gb.Vector.from_dense(np.ones(A.shape[0]))
        for _ in range(k):
            total = v.reduce().new().value
            v = M.mxv(v, gb.semiring.plus_second).new()
            v = (v / total).new()
        return v

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10^5 and 10^6 nodes only")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    has_numba = importlib.util.find_spec("numba") is not None
    has_graphblas = importlib.util.find_spec("graphblas") is not None
    print(f"numba: {has_numba}, python-graphblas: {has_graphblas}, cores: {os.cpu_count()}, k={K}, "
          f"median of {args.repeat} runs")
    sizes = [10**5, 10**6] if args.quick else [10**5, 10**6, 10**7]
    rng = np.random.default_rng(0)
    for n in sizes:
        for name in ("ER", "BA"):
            u, v = er_edges(n, 10, rng) if name == "ER" else ba_edges(n, 10)
            built = gi.from_edge_arrays(u, v, n_nodes=n).matrix  # no data array (a broadcast 1.0)
            # what a user of scipy has: the same CSR with its array of ones
            A = sp.csr_array((np.ones(built.nnz), built.indices, built.indptr), shape=built.shape)
            csr_bytes = A.data.nbytes + A.indices.nbytes + A.indptr.nbytes
            summary_bytes = 8 * n * K
            print(f"\n{name} n={n:.0e}: {A.nnz:,} stored entries, CSR {csr_bytes / 2**20:.0f} MiB "
                  f"(int32 indices: {A.indices.dtype == np.int32}; {(csr_bytes - A.data.nbytes) / 2**20:.0f} MiB "
                  f"as the library builds it, without data), summary {summary_bytes / 2**20:.0f} MiB")
            gi.power_invariants(A, n_jobs=1)  # compiled code loaded
            repeat = args.repeat if n < 10**7 else max(3, args.repeat // 2)
            floor_t, _ = timed(lambda: floor_invariants(A), repeat)
            ours_t, _ = timed(lambda: gi.power_invariants(A, n_jobs=1), repeat)
            two_t, _ = timed(lambda: gi.power_invariants(A, n_jobs=2), repeat)
            print(f"  floor (scipy CSR, 1 thread)        {statistics.median(floor_t):8.3f} s")
            print(f"  power_invariants, scipy CSR, 1 thr {statistics.median(ours_t):8.3f} s  "
                  f"{ratio(ours_t, floor_t):.2f}x the floor")
            print(f"  power_invariants, scipy CSR, 2 thr {statistics.median(two_t):8.3f} s  "
                  f"speed-up {ratio(ours_t, two_t):.2f}x over 1 thread")
            pairs_t, _ = timed(lambda: gi.power_invariants((u, v), n_jobs=1), max(1, repeat // 2))
            build_t, _ = timed(lambda: floor_invariants(sp.csr_array(sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n))
                                                          + sp.coo_array((np.ones(u.size), (v, u)), shape=(n, n)))),
                               max(1, repeat // 2))
            print(f"  edge arrays (u, v), 1 thread       {statistics.median(pairs_t):8.3f} s  "
                  f"{ratio(pairs_t, build_t):.2f}x scipy coo->csr + floor")
            g = ig.Graph(n=n, edges=np.column_stack((u, v)))
            ig_t, _ = timed(lambda: gi.power_invariants(g, n_jobs=1), max(1, repeat // 2))
            hand_t, _ = timed(lambda: np.array(g.get_edgelist()), max(1, repeat // 2))
            print(f"  igraph, 1 thread                   {statistics.median(ig_t):8.3f} s  "
                  f"(igraph hands out its edges in {statistics.median(hand_t):.3f} s)")
            del g
            if n <= 10**6:
                G = nx.Graph()
                G.add_nodes_from(range(n))
                G.add_edges_from(zip(u.tolist(), v.tolist()))
                nx_t, _ = timed(lambda: gi.power_invariants(G, n_jobs=1), max(1, repeat // 2))
                nx_ref, _ = timed(lambda: floor_invariants(nx.to_scipy_sparse_array(G, format="csr", dtype=float)),
                                  max(1, repeat // 2))
                print(f"  NetworkX, 1 thread                 {statistics.median(nx_t):8.3f} s  "
                      f"{ratio(nx_t, nx_ref):.2f}x nx.to_scipy_sparse_array + floor")
                del G
            # the product alone: scipy, ours (compiled), GraphBLAS
            scipy_t, _ = timed(lambda: [A @ np.ones(n) for _ in range(K)], repeat)
            line = f"  {K} products alone: scipy 1 thr {statistics.median(scipy_t):.3f} s"
            if has_numba:
                ours1, _ = timed(lambda: large_graph.power_columns(A, K, weighted=False, n_jobs=1), repeat)
                ours2, _ = timed(lambda: large_graph.power_columns(A, K, weighted=False, n_jobs=2), repeat)
                line += (f"; ours 1 thr {statistics.median(ours1):.3f} s, 2 thr {statistics.median(ours2):.3f} s "
                         f"({ratio(ours1, ours2):.2f}x)")
            if has_graphblas:
                gb1, _ = timed(graphblas_products(A, 1), repeat)
                gb2, _ = timed(graphblas_products(A, 2), repeat)
                line += (f"; GraphBLAS 1 thr {statistics.median(gb1):.3f} s, 2 thr {statistics.median(gb2):.3f} s "
                         f"({ratio(gb1, gb2):.2f}x)")
            print(line)
            ours_peak = peak_bytes(lambda: gi.power_invariants(A, n_jobs=1))
            floor_peak = peak_bytes(lambda: floor_invariants(A))
            print(f"  peak memory beyond the CSR: power_invariants {ours_peak / 2**20:.1f} MiB "
                  f"({ours_peak / summary_bytes:.2f}x the summary), floor {floor_peak / 2**20:.1f} MiB")
            del A, built, u, v


if __name__ == "__main__":
    main()
