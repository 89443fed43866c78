"""GraphFeatures of 10^5 .. 10^6 graphs on a 2-worker Dask LocalCluster, written to Zarr.

Run from the project root under the bench lock::

    flock /tmp/bench.lock python benchmarks/bench_scale_dask.py --sizes 100000 1000000

The map is fitted in process on 10^4 copies (weights on 1,000 of them,
``n_landmarks=--n-landmarks``); the workers (2 processes, 1 thread each, ``memory_limit``
2 GB) then make their own partitions of ``--partition`` copies
(:func:`graphinvariants.datasets.perturbed_copies` of ``--source``, no graph objects
and no data sent from the client) and write their features to Zarr
(:func:`graphinvariants.distributed.features_to_zarr`). Prints, per size: the time,
each worker's peak resident memory, the rows stored, a check that ``--check-parts``
partitions (the first, the last and some between) equal ``transform`` in process bit for bit, and the time of ``kneighbors`` for 100 queries
over the whole store. The in-process time of the same map on the first ``--check``
graphs gives the per-graph ratio.

No accuracy is measured here: the map is fitted on copies of every source graph, which
is right for timing and bitwise checks and wrong for a held-out figure. Accuracy on
copies is measured by ``bench_scale.py``, split by source graph.
"""

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

TU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"


def _peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _copies(source, n, start):
    import graphinvariants as gi
    from graphinvariants.datasets import perturbed_copies

    return perturbed_copies(gi.load_tu(source, data_home=TU, download=False), n, seed=1, start=start)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--source", default="Mutagenicity")
    parser.add_argument("--partition", type=int, default=10_000)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--check-parts", type=int, default=3,
                        help="partitions compared with transform in process (first, last, spread between)")
    parser.add_argument("--n-landmarks", type=int, default=1000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import dask
    import dask.bag as db
    from distributed import Client, LocalCluster

    import graphinvariants as gi
    from graphinvariants.distributed import features_to_zarr, read_features, store_kneighbors as kneighbors

    train = _copies(args.source, 10_000, 0)
    t0 = time.perf_counter()
    features = gi.GraphFeatures(max_samples=1000, n_landmarks=args.n_landmarks, seed=0)
    features.fit(train, train.y)
    print(f"fit on 10,000 copies in process: {time.perf_counter() - t0:.1f} s; {features.n_features_out_} "
          f"features; exact {features.exact_} (weight {features.exact_weight_:.3f}), Nystroem "
          f"{features.approximate_}", flush=True)
    check = _copies(args.source, args.partition, 0)
    t0 = time.perf_counter()
    expected = features.transform(check)
    in_process = (time.perf_counter() - t0) / args.partition
    print(f"in process: {1e3 * in_process:.3f} ms per graph (transform of {args.partition} graphs)", flush=True)

    def equal_parts(store, n):
        """Parts spread over the store (the first, ``--check-parts - 2`` between, the
        last) against ``transform`` in process of the same copies, bit for bit."""
        n_parts = -(-n // args.partition)
        chosen = sorted({int(round(x)) for x in np.linspace(0, n_parts - 1, min(args.check_parts, n_parts))})
        same = {}
        for part in chosen:
            start = part * args.partition
            rows = expected if part == 0 else features.transform(
                _copies(args.source, min(args.partition, n - start), start))
            same[part] = bool((read_features(store, [part]) != rows).nnz == 0)
        return same
    results = []
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory_limit,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        for n in args.sizes:
            store = Path(tempfile.mkdtemp(prefix="learned-features-")) / "features.zarr"
            starts = range(0, n, args.partition)
            parts = [dask.delayed(_copies)(args.source, min(args.partition, n - s), s) for s in starts]
            pids = client.run(os.getpid)
            t0 = time.perf_counter()
            rows = features_to_zarr(features, db.from_delayed(parts), store)
            seconds = time.perf_counter() - t0
            peaks = list(client.run(_peak_gib).values())
            restarted = client.run(os.getpid) != pids  # a worker past its memory limit is restarted
            t0 = time.perf_counter()
            same_parts = equal_parts(store, n)
            check_seconds = time.perf_counter() - t0
            same = all(same_parts.values())
            queries = expected[:100]
            t0 = time.perf_counter()
            indices, values = kneighbors(queries, store, n_neighbors=10)
            knn = time.perf_counter() - t0
            row = {"n": n, "seconds": seconds, "ms_per_graph": 1e3 * seconds / n, "worker_peak_gib": peaks,
                   "rows": int(rows.sum()), "worker_restarted": restarted, "bitwise_equal": same,
                   "partitions_checked": {str(k): v for k, v in same_parts.items()},
                   "check_seconds": check_seconds, "kneighbors_100_seconds": knn,
                   "in_process_ms_per_graph": 1e3 * in_process,
                   "first_query_is_its_own_nearest": bool(indices[0, 0] == 0)}
            results.append(row)
            print(f"n={n}: {seconds:.1f} s ({row['ms_per_graph']:.3f} ms per graph on 2 workers, "
                  f"{row['ms_per_graph'] / row['in_process_ms_per_graph']:.2f} x the in-process time per graph), "
                  f"worker peaks {', '.join(f'{p:.2f}' for p in peaks)} GiB (a worker restarted: {restarted}), "
                  f"{row['rows']} rows, partitions "
                  f"{sorted(same_parts)} of {len(rows)} bitwise equal to in-process: {same}; kneighbors of 100 "
                  f"queries: {knn:.1f} s", flush=True)
            shutil.rmtree(store.parent)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
