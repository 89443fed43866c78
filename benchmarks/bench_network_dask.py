"""One network larger than a worker: gi.distributed.power_invariants from Parquet, against the floor.

Run from the project root under the bench lock (the full run writes ~1.6 GB of Parquet
and takes minutes)::

    flock /tmp/gi-bench.lock python benchmarks/bench_network_dask.py            # 10^7 nodes, 10^8 edges
    flock /tmp/gi-bench.lock python benchmarks/bench_network_dask.py --quick    # 10^6 nodes, 10^7 edges

1. Writes an Erdos-Renyi graph ``G(n, p)`` with ``p = 2 m / n^2`` (about ``m``
   distinct undirected edges, ``int64`` columns ``u, v``, rows in random order and
   random orientation) to Parquet in chunks of nodes with numpy (never the whole
   table in memory; duplicates can only fall in one chunk and are removed there).
2. Runs :func:`graphinvariants.distributed.power_invariants` on a LocalCluster of 2
   worker processes (1 thread each) whose ``memory_limit`` is below the size of the
   edge table in memory (16 bytes per row), so the workers must stream it: every
   power iteration reads the Parquet files again. ``deduplicate=False``: the table
   holds each edge once by construction (with ``--dedup`` the shuffle and persisted
   distinct table are timed too).
3. The in-process floor, in one thread after the cluster is closed: the same table
   read into a scipy CSR matrix (int32 indices; its build timed apart), then the
   ``k`` products ``x <- A x / |x|_1`` and the mean and covariance of the ``n x k``
   summary in plain numpy; and :func:`graphinvariants.power_invariants` on that CSR.

Prints the times, the ratio distributed / floor, the workers' peak resident memory
(``ru_maxrss``, including the ~0.2 GB of an idle Python worker), the largest
difference between the distributed and in-process invariants, and the throughput per
edge per step that ``docs/large_networks_cluster.rst`` extrapolates from.
"""

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import floor_invariants  # benchmarks/timing.py


def _peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def write_er_parquet(path, n, m, *, seed=0, rows_per_file=4_000_000):
    """G(n, p) with p = 2 m / n^2 as Parquet files of about ``rows_per_file`` rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    p = 2.0 * m / (float(n) * float(n - 1))
    nodes_per_chunk = max(1, int(rows_per_file / max(p * n / 2, 1e-9)))
    path.mkdir(parents=True)
    total, files = 0, 0
    for lo in range(0, n, nodes_per_chunk):
        hi = min(n, lo + nodes_per_chunk)
        a = np.arange(lo, hi, dtype=np.int64)
        later = n - 1 - a  # candidates b > a
        counts = rng.binomial(later, p)
        a = np.repeat(a, counts)
        b = a + 1 + np.floor(rng.random(a.size) * np.repeat(later, counts)).astype(np.int64)
        key = np.unique(a * n + b)  # G(n, p): each pair once (a repeat can only be in this chunk)
        a, b = key // n, key % n
        order = rng.permutation(key.size)
        a, b = a[order], b[order]
        swap = rng.random(a.size) < 0.5
        u, v = np.where(swap, b, a), np.where(swap, a, b)
        pq.write_table(pa.table({"u": u, "v": v}), path / f"part-{files:05d}.parquet", row_group_size=1 << 20)
        total += u.size
        files += 1
    return total, files


def read_csr(path, n):
    """The in-process adjacency of the Parquet edge table (undirected, int32 indices)."""
    import pyarrow.parquet as pq
    import scipy.sparse as sp

    table = pq.read_table(path)
    u = table.column("u").to_numpy().astype(np.int32)
    v = table.column("v").to_numpy().astype(np.int32)
    del table
    rows, cols = np.concatenate((u, v)), np.concatenate((v, u))
    del u, v
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    del rows, cols
    A.sum_duplicates()
    return A


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10^6 nodes, 10^7 edges, --dedup on")
    parser.add_argument("--nodes", type=int, default=10_000_000)
    parser.add_argument("--edges", type=int, default=100_000_000)
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--memory-limit", default="1.2GB", help="per worker; below the table's 16 bytes per row")
    parser.add_argument("--rows-per-file", type=int, default=4_000_000)
    parser.add_argument("--split-every", type=int, default=4)
    parser.add_argument("--dedup", action="store_true", help="also time deduplicate=True (shuffle + persist)")
    parser.add_argument("--dir", type=Path, help="where to write the Parquet table (default: a temporary directory)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.edges, args.dedup = 1_000_000, 10_000_000, True
        args.memory_limit = "0.6GB"
        args.rows_per_file = 1_000_000

    import dask.dataframe as dd
    from dask.utils import parse_bytes
    from distributed import Client, LocalCluster

    import graphinvariants as gi

    workdir = Path(tempfile.mkdtemp(prefix="gi-bench-network-", dir=args.dir))
    path = workdir / "edges"
    row = {"nodes": args.nodes, "k": args.k, "memory_limit": args.memory_limit}
    try:
        t0 = time.perf_counter()
        m, files = write_er_parquet(path, args.nodes, args.edges, rows_per_file=args.rows_per_file)
        size = sum(f.stat().st_size for f in path.iterdir())
        table_bytes = 16 * m
        print(f"wrote G(n={args.nodes:,}, m={m:,}) to {files} Parquet files, {size / 2**30:.2f} GiB on disk "
              f"({table_bytes / 2**30:.2f} GiB as int64 columns in memory) in {time.perf_counter() - t0:.1f} s",
              flush=True)
        limit = parse_bytes(args.memory_limit)
        print(f"worker memory_limit {limit / 2**30:.2f} GiB < table {table_bytes / 2**30:.2f} GiB: "
              f"{limit < table_bytes}", flush=True)
        row.update(edges=m, files=files, parquet_gib=size / 2**30, table_gib=table_bytes / 2**30)

        with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory_limit,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            edges = dd.read_parquet(path)
            t0 = time.perf_counter()
            inv = gi.distributed.power_invariants(edges, k=args.k, deduplicate=False, split_every=args.split_every)
            seconds = time.perf_counter() - t0
            peaks = list(client.run(_peak_gib).values())
            print(f"distributed ({edges.npartitions} partitions, deduplicate=False): {seconds:.1f} s, "
                  f"{seconds / args.k:.2f} s per step, {1e9 * seconds / (args.k * m):.1f} ns per edge per step; "
                  f"worker peaks {', '.join(f'{p:.2f}' for p in peaks)} GiB; client peak {_peak_gib():.2f} GiB",
                  flush=True)
            row.update(partitions=edges.npartitions, distributed_s=seconds, worker_peak_gib=peaks)
            if args.dedup:
                t0 = time.perf_counter()
                deduplicated = gi.distributed.power_invariants(edges, k=args.k, split_every=args.split_every)
                dedup_seconds = time.perf_counter() - t0
                peaks = list(client.run(_peak_gib).values())
                print(f"distributed, deduplicate=True (shuffle + persisted distinct table): {dedup_seconds:.1f} s; "
                      f"worker peaks {', '.join(f'{p:.2f}' for p in peaks)} GiB; equal to deduplicate=False: "
                      f"{deduplicated == inv}", flush=True)
                row.update(dedup_s=dedup_seconds, dedup_worker_peak_gib=peaks)

        t0 = time.perf_counter()
        A = read_csr(path, args.nodes)
        build = time.perf_counter() - t0
        csr_gib = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 2**30
        t0 = time.perf_counter()
        mean, cov = floor_invariants(A, args.k)
        floor = time.perf_counter() - t0
        t0 = time.perf_counter()
        expected = gi.power_invariants(A, k=args.k)
        library = time.perf_counter() - t0
        mean_err = float(np.max(np.abs(inv.mean - expected.mean) / np.abs(expected.mean)))
        cov_err = float(np.abs(inv.covariance - expected.covariance).max() / np.abs(expected.covariance).max())
        floor_err = float(np.abs(cov - expected.covariance).max() / np.abs(expected.covariance).max())
        print(f"in process, one thread: CSR read + build {build:.1f} s ({csr_gib:.2f} GiB, {A.nnz:,} entries); "
              f"floor (k products + moments) {floor:.2f} s; gi.power_invariants {library:.2f} s; "
              f"process peak {_peak_gib():.2f} GiB", flush=True)
        print(f"ratio distributed / floor: {seconds / floor:.1f}x; distributed / (CSR build + floor): "
              f"{seconds / (build + floor):.2f}x", flush=True)
        print(f"distributed vs gi.power_invariants: mean {mean_err:.1e}, covariance {cov_err:.1e} (relative); "
              f"plain-numpy floor covariance vs gi: {floor_err:.1e}", flush=True)
        row.update(build_s=build, floor_s=floor, library_s=library, csr_gib=csr_gib, ratio=seconds / floor,
                   mean_rel_err=mean_err, cov_rel_err=cov_err, client_peak_gib=_peak_gib())
        if args.json:
            args.json.write_text(json.dumps(row, indent=1))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
