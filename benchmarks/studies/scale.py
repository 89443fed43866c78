"""Large collections: 10^4 .. 10^6 graphs in one process and on a Dask cluster.

The tables of docs/large_collections.rst (which describes the corpus and each section). From the project root::

    python benchmarks/studies/scale.py cluster --workdir /tmp      # about 20 minutes, 20 GB free for the Zarr matrix
    python benchmarks/studies/scale.py cluster --n-graphs 10000 --kernel-graphs 2000 --queries 200 \\
        --exact-sample 5000 --scaling 2000,10000 --components 50,100
    flock /tmp/bench.lock python benchmarks/studies/scale.py features --sizes 10000 30000 100000 --exact 10000
    flock /tmp/bench.lock python benchmarks/studies/scale.py zarr --sizes 100000 1000000

The small check takes about 3 minutes on 2 cores, 2 of them the exact mean map of NCI1
(``--sections generate,embed,kneighbors,kernel,scaling`` leaves it out: under a minute).
"""

import contextlib
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
from sklearn.model_selection import GroupShuffleSplit, StratifiedKFold
from sklearn.svm import SVC, LinearSVC

import graphinvariants as gi
from graphinvariants.datasets import perturbed_copies
from graphinvariants.features import subset
from graphinvariants.kernels import make_functional, pairwise_kernels
from runner import clock, commands, in_child, local_cluster, option, parse, peak_gib, section, timed
from benchmarks.common import tu

NCI1_LOG_SIZE = (3.310, 0.408)  # mean and std of log(number of nodes) over NCI1
NCI1_SIZE_RANGE = (3, 111)
NCI1_EDGES_PER_NODE = 1.0815


# -- synthetic corpus ------------------------------------------------------------------
def graph_sizes(n_graphs, rng):
    """``n_graphs`` node counts drawn as NCI1's (log-normal, clipped to its range)."""
    return np.clip(np.round(rng.lognormal(*NCI1_LOG_SIZE, n_graphs)), *NCI1_SIZE_RANGE).astype(np.int64)


def molecule_edges(sizes, rng):
    """Edges ``(graph, u, v)`` (local node numbers) of molecule-like graphs: a random tree, each node linked to one of
    the few before it, plus six-ring closures ``u - 5 -- u`` for about 1.08 edges per node, as in NCI1."""
    n_total = int(sizes.sum())
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    graph = np.repeat(np.arange(len(sizes)), sizes)
    local = np.arange(n_total) - np.repeat(starts, sizes)
    back = np.minimum(rng.geometric(0.55, n_total) - 1, np.maximum(local - 1, 0))
    tree = local > 0
    g_tree, u_tree, v_tree = graph[tree], local[tree], (local - 1 - back)[tree]
    extra = np.maximum(np.round(NCI1_EDGES_PER_NODE * sizes).astype(np.int64) - (sizes - 1), 0)
    extra[sizes <= 5] = 0  # too small for a six-ring
    g_ring = np.repeat(np.arange(len(sizes)), extra)
    u_ring = 5 + np.floor(rng.random(g_ring.size) * (sizes[g_ring] - 5)).astype(np.int64)
    return (np.concatenate((g_tree, g_ring)), np.concatenate((u_tree, u_ring)), np.concatenate((v_tree, u_ring - 5)))


def generate_corpus(folder, n_graphs, seed, graphs_per_file, first_id=0):
    """Write the corpus as Parquet files of ``graphs_per_file`` graphs; returns stats."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder := Path(folder)).mkdir(parents=True, exist_ok=True)
    n_files = -(-n_graphs // graphs_per_file)
    streams = np.random.SeedSequence(seed).spawn(n_files)
    n_nodes = n_edges = 0
    for f, stream in enumerate(streams):
        rng = np.random.default_rng(stream)
        g, u, v = molecule_edges(sizes := graph_sizes(min(graphs_per_file, n_graphs - f * graphs_per_file), rng), rng)
        order = np.lexsort((v, u, g))
        pq.write_table(pa.table({"graph_id": (first_id + f * graphs_per_file + g[order]).astype(np.int64),
                                 "source": u[order].astype(np.int32), "target": v[order].astype(np.int32)}),
                       folder / f"part-{f:05d}.parquet")
        n_nodes += int(sizes.sum())
        pairs = np.unique(np.stack([np.minimum(u, v), np.maximum(u, v)]) + (g * 1000)[None], axis=1)
        n_edges += pairs.shape[1]
    return {"graphs": n_graphs, "nodes": n_nodes, "edges": n_edges, "files": n_files}


def queries_graphs(n, seed):
    """``n`` query graphs from another stream of the same generator, as NetworkX graphs."""
    rng = np.random.default_rng(seed)
    g, u, v = molecule_edges(sizes := graph_sizes(n, rng), rng)
    graphs = [nx.empty_graph(int(s)) for s in sizes]
    for gi_, a, b in zip(g.tolist(), u.tolist(), v.tolist()):
        graphs[gi_].add_edge(a, b)
    return graphs


# -- measuring -------------------------------------------------------------------------
def _peak_rss(reset=False):
    """This process's exact peak RSS (VmHWM; Linux), or (``reset``) its reset (Linux >= 4.0); the workers' VmHWM in
    the cluster sections, whose blocks follow one another in the same worker processes."""
    if reset:
        with open("/proc/self/clear_refs", "w") as fh:
            return fh.write("5")
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))


@contextlib.contextmanager
def worker_memory(client):
    """Each worker's exact peak RSS during the block, as a printable line in the yielded list."""
    client.run(_peak_rss, True)
    out = []
    yield out
    out.append("peak RSS per worker (VmHWM) " + ", ".join(f"{v / 2**20:.0f}" for v in client.run(_peak_rss).values())
               + " MiB")


def _dask():
    """``(dask.dataframe, graphinvariants.distributed)``, imported when a section needs them."""
    import dask.dataframe as dd

    from graphinvariants import distributed as gid

    return dd, gid


# -- sections --------------------------------------------------------------------------
def section_embed(args, corpus_dir, client, work):
    import pandas as pd

    dd, gid = _dask()

    print(f"\n== Invariants (k=5) of {args.n_graphs:,} graphs")
    times = {}
    with section("in-process", times):
        batch, ids = gid.edge_table_batch(pd.read_parquet(corpus_dir))
        local = gi.batch_power_invariants(batch)
    del batch
    print(f"  in process, batch path (read + build + embed): {times['in-process']:.2f} s, "
          f"{args.n_graphs / times['in-process']:,.0f} graphs/s (1 core)")
    out = work / "embeddings"
    with worker_memory(client) as mem, section("cluster", times):
        edges = dd.read_parquet(corpus_dir)
        gid.embed(edges, npartitions=edges.npartitions).to_parquet(out)
    print(f"  cluster, {args.workers} workers (read + shuffle + embed + write): {times['cluster']:.2f} s, "
          f"{args.n_graphs / times['cluster']:,.0f} graphs/s\n  {mem[0]}")
    remote = gid.from_frame(stored := pd.read_parquet(out).sort_values("graph_id"))
    same = (np.array_equal(stored["graph_id"].to_numpy(), ids) and np.array_equal(remote.means, local.means)
            and np.array_equal(remote.covariances, local.covariances) and np.array_equal(remote.n_nodes, local.n_nodes))
    print(f"  cluster result equal to the in-process one bit for bit: {same}")
    if not same:
        raise SystemExit("embeddings differ")
    return local, ids


def _kneighbors(queries, corpus, n_jobs):
    """Top-10 by kernel value in process, as the cluster answers (``gi.kneighbors``: for users ``NearestGraphs``, whose
    distances are not the kernel values compared bit for bit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return gi.kneighbors(queries, corpus, n_neighbors=10, n_jobs=n_jobs)


def section_kneighbors(args, client, work, local, ids):
    dd, gid = _dask()
    print(f"\n== Top-10 neighbours of {args.queries:,} queries in {len(local):,} graphs")
    queries = gi.batch_power_invariants(queries_graphs(args.queries, args.seed + 1))
    frame, times = dd.read_parquet(work / "embeddings"), {}
    corpus = local.take(np.searchsorted(ids, frame["graph_id"].compute().to_numpy()))  # in the cluster's row order
    with section("in-process", times):
        expected = _kneighbors(queries, corpus, args.workers)
    pairs = args.queries * len(corpus)
    print(f"  in process, n_jobs={args.workers}: {times['in-process']:.2f} s, "
          f"{pairs / times['in-process'] / 1e6:.1f} M pairs/s")
    with worker_memory(client) as mem, section("cluster", times):
        idx, val = gid.kneighbors(queries, frame, n_neighbors=10)
    print(f"  cluster, {args.workers} workers: {times['cluster']:.2f} s, "
          f"{pairs / times['cluster'] / 1e6:.1f} M pairs/s; {mem[0]}")
    same = np.array_equal(idx, expected[0]) and np.array_equal(val, expected[1])
    print(f"  cluster answer equal to the in-process one: {same}")
    n_sample = min(args.exact_sample, len(corpus))
    sample = corpus.take(np.random.default_rng(args.seed).choice(len(corpus), n_sample, replace=False))
    K = gi.kernel_matrix(queries, sample, n_jobs=args.workers)
    brute = np.argsort(-K, axis=1, kind="stable")[:, :10]
    top = np.take_along_axis(K, brute, axis=1)
    got = _kneighbors(queries, sample, args.workers)
    got_cluster = gid.kneighbors(queries, dd.from_pandas(gid.to_frame(sample), npartitions=max(2, args.workers * 2)),
                                 n_neighbors=10)
    exact = all(np.array_equal(a, b) for a, b in ((got[0], brute), (got_cluster[0], brute), (got[1], top),
                                                   (got_cluster[1], got[1])))
    ties = int(sum(len(np.unique(row)) < len(row) for row in top))
    print(f"  brute force on a {n_sample:,}-graph sample: in process and cluster exact: {exact} "
          f"({ties} of {args.queries} top-10 rows hold ties)")
    if not (same and exact):
        raise SystemExit("neighbours differ")


def section_kernel(args, client, work, local):
    dd, gid = _dask()
    n = min(args.kernel_graphs, len(local))
    need, free = 8 * n * n, shutil.disk_usage(work).free
    print(f"\n== Kernel matrix of {n:,} graphs to Zarr, chunks {args.chunks}")
    if need > 0.9 * free:
        print(f"  skipped: the matrix needs {need / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free in {work}")
        return
    sub = local[:n]
    frame = dd.from_pandas(gid.to_frame(sub), npartitions=max(1, -(-n // args.chunks))).persist()
    times = {}
    with worker_memory(client) as mem, section("cluster", times):
        gid.kernel_matrix(frame, chunks=args.chunks).to_zarr(str(work / "K.zarr"))
    distinct = n * (n + 1) / 2
    sizes = np.diff(np.append(np.arange(0, n, args.chunks), n))
    evaluated, rate = n * n - float(np.sum(sizes * (sizes - 1) / 2)), distinct / times["cluster"] / args.workers
    print(f"  cluster: {times['cluster']:.2f} s, {rate / 1e6:.2f} M distinct pairs/s per core ({distinct:,.0f} "
          f"distinct pairs, {evaluated:,.0f} evaluated: a block below the diagonal is its mirror image computed "
          f"again); {mem[0]}")
    m = min(n, 5000)
    with section("in-process", times):
        gi.kernel_matrix(sub[:m])
    print(f"  in process, one core, {m:,} graphs: {m * (m + 1) / 2 / times['in-process'] / 1e6:.2f} M pairs/s")
    import zarr

    stored = zarr.open_array(str(work / "K.zarr"), mode="r")
    rows = np.sort(np.random.default_rng(0).choice(n, min(n, 200), replace=False))
    # the rows as the whole n x n matrix computes them (its size decides the engine)
    reference = pairwise_kernels(sub.take(rows), sub, functional=make_functional("power").for_pairs(n * n))
    check = np.array_equal(stored.get_orthogonal_selection((rows, slice(None))), reference)
    print(f"  {len(rows)} stored rows equal to the in-process kernel: {check}")
    shutil.rmtree(work / "K.zarr")
    if not check:
        raise SystemExit("kernel matrix differs")


def section_scaling(args, client, corpus_dir, work):
    dd, gid = _dask()
    print("\n== Scaling on the cluster (embeddings to Parquet, then top-10 of the queries)")
    queries = gi.batch_power_invariants(queries_graphs(args.queries, args.seed + 1))
    print(f"  {'graphs':>10} {'embed s':>9} {'graphs/s':>10} {'top-10 s':>9} {'M pairs/s':>10}")
    files = sorted(Path(corpus_dir).glob("*.parquet"))
    for size in args.scaling:
        if size > args.n_graphs:
            print(f"  {size:>10,} skipped: the corpus has {args.n_graphs:,} graphs (raise --n-graphs)")
            continue
        edges = dd.read_parquet([str(f) for f in files[:-(-size // args.graphs_per_file)]],
                                filters=[("graph_id", "<", size)])
        out, times = work / f"embeddings-{size}", {}
        with section("embed", times):
            gid.embed(edges, npartitions=edges.npartitions).to_parquet(out)
        with section("top", times):
            gid.kneighbors(queries, dd.read_parquet(out), n_neighbors=10)
        print(f"  {size:>10,} {times['embed']:>9.2f} {size / times['embed']:>10,.0f} {times['top']:>9.2f} "
              f"{size * len(queries) / times['top'] / 1e6:>10.1f}")
        shutil.rmtree(out)


def section_nystroem(args):
    ds, y = tu("NCI1"), tu("NCI1").y
    folds = list(StratifiedKFold(10, shuffle=True, random_state=args.seed).split(np.zeros(len(y)), y))

    def row(label, accuracies):  # accuracies() is timed
        start = clock()
        print(f"  {label:<22} {100 * np.mean(accuracies()):>10.2f} {clock() - start:>8.2f}")

    def exact(kernel):
        K = gi.kernel_matrix(ds, kernel=kernel, n_jobs=args.workers)
        return [np.mean(SVC(C=args.C, kernel="precomputed").fit(K[np.ix_(tr, tr)], y[tr]).predict(K[np.ix_(te, tr)])
                        == y[te]) for tr, te in folds]

    def nystroem(m, tr, te):
        features = gi.GraphFeatures("power", n_landmarks=m, max_samples=None, seed=args.seed, n_jobs=args.workers)
        return features.fit_transform(subset(ds, tr)), features.transform(subset(ds, te))

    def random_features(m):  # no fit on data: the rows once for every fold
        F = gi.GraphFeatures(f"meanmap:n_features={m},seed={args.seed}").fit_transform(ds)
        return lambda m, tr, te: (F[tr], F[te])

    def linear(m, rows):
        return [np.mean(LinearSVC(C=args.C, max_iter=20000).fit(X, y[tr]).predict(X_test) == y[te])
                for tr, te in folds for X, X_test in [rows(m, tr, te)]]

    for title, kernel, label, rows, name in (
            ("Nystroem + LinearSVC against the exact kernel + SVC (10 folds", "power", "exact kernel, SVC",
             lambda m: nystroem, "Nystroem m={}"),
            ("mean-map random features (GraphFeatures) + LinearSVC against the exact mean-map kernel + SVC (same folds",
             "meanmap", "exact mean map, SVC", random_features, "random features D={}")):
        print(f"\n== NCI1: {title}, C={args.C})")
        print(f"  {'method':<22} {'accuracy %':>10} {'time s':>8}")
        row(label, lambda: exact(kernel))
        for m in args.components:
            row(name.format(m), lambda: linear(m, rows(m)))


def split_by_source(n_copies, n_sources, *, test_size=0.1, seed=0, start=0):
    """``(train, test)``: sorted positions of ``n_copies`` perturbed copies from ``start`` (copy ``i`` of source ``i %
    n_sources``), every copy of a source on one side, ``test_size`` of the sources tested (``GroupShuffleSplit``)."""
    sources = (start + np.arange(n_copies)) % n_sources
    split = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    train, test = next(split.split(sources, groups=sources))
    return np.sort(train), np.sort(test)


def one_run(n, source, path, progress, n_landmarks, C):
    """One size and path (``features``' child): the copies made and split, the map or kernel fitted, then the SVM."""
    def copies():
        sources = tu(source)
        train_at, test_at = split_by_source(n, len(sources), seed=0)
        data = perturbed_copies(sources, n, seed=0)
        return data[train_at], data[test_at]

    (generate,), (train, test) = timed(copies)
    t0 = clock()
    linear = path == "linear"
    transformer = gi.GraphFeatures(max_samples=1000, n_landmarks=n_landmarks, seed=0, progress=progress) if linear \
        else gi.GraphKernel(seed=0)
    X_train, X_test = transformer.fit_transform(train, train.y), transformer.transform(test)
    t_features = clock() - t0
    model = (LinearSVC(C=C, max_iter=5000) if linear else SVC(kernel="precomputed", C=C)).fit(X_train, train.y)
    accuracy = float(model.score(X_test, test.y))
    extra = {"n_features": int(transformer.n_features_out_), "nnz_per_row": X_train.nnz / X_train.shape[0],
             "exact_weight": transformer.exact_weight_} if linear else {}
    print(json.dumps({"n": n, "source": source, "n_train": len(train), "n_test": len(test),
                      "split": "by source graph", "path": path, "seconds": clock() - t0, "features_seconds": t_features,
                      "generate_seconds": generate, "peak_gib": peak_gib(), "accuracy": accuracy, **extra}))


def _copies(source, n, start):
    return perturbed_copies(tu(source), n, seed=1, start=start)


def cluster(args, parser):
    sections = set(args.sections.split(","))
    try:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="gi-bench-large-", dir=args.workdir))
    except OSError as err:
        parser.error(f"--workdir {args.workdir}: cannot create a folder there ({err.strerror or err})")
    print(f"work folder: {work}")
    stack = contextlib.ExitStack()  # the cluster, where a section needs one
    try:
        corpus_dir = work / "corpus"
        if sections & {"generate", "embed", "kneighbors", "kernel", "scaling"}:
            start = clock()
            stats = generate_corpus(corpus_dir, args.n_graphs, args.seed, args.graphs_per_file)
            print(f"== Synthetic corpus: {stats['graphs']:,} graphs, {stats['nodes']:,} nodes, {stats['edges']:,} "
                  f"edges ({stats['edges'] / stats['nodes']:.3f} per node; NCI1 {NCI1_EDGES_PER_NODE}), mean "
                  f"{stats['nodes'] / stats['graphs']:.1f} nodes (NCI1 29.9), {stats['files']} Parquet files, "
                  f"{clock() - start:.1f} s")
        if sections & {"embed", "kneighbors", "kernel", "scaling"}:
            client = stack.enter_context(local_cluster(args.workers))
            local = ids = None
            if sections & {"embed", "kneighbors", "kernel"}:
                local, ids = section_embed(args, corpus_dir, client, work)
            if "kneighbors" in sections:
                section_kneighbors(args, client, work, local, ids)
            if "kernel" in sections:
                section_kernel(args, client, work, local)
            if "scaling" in sections:
                section_scaling(args, client, corpus_dir, work)
        if "nystroem" in sections:
            section_nystroem(args)
    finally:
        stack.close()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def features(args, parser):
    results = []
    for path, sizes in (("linear", args.sizes), ("exact", args.exact)):
        for n in sizes:  # each in a fresh process: its own peak memory
            done, records = in_child("scale", "one_run", stderr=None, n=n, source=args.source, path=path,
                                     progress=args.progress, n_landmarks=args.n_landmarks, C=args.C)
            done.check_returncode()
            results.append(row := records[-1])
            print(f"{path:6s} n={n:7d}: {row['seconds']:7.1f} s ({1e3 * row['seconds'] / n:.2f} ms per graph), "
                  f"peak {row['peak_gib']:.2f} GiB, test accuracy {100 * row['accuracy']:.1f}% ({row['n_test']} copies "
                  "of sources none of whose copies were trained on)")
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


def zarr(args, parser):
    import dask
    import dask.bag as db

    from graphinvariants.distributed import features_to_zarr, read_features, store_kneighbors as kneighbors

    train = _copies(args.source, 10_000, 0)
    (fit,), features = timed(lambda: gi.GraphFeatures(max_samples=1000, n_landmarks=args.n_landmarks, seed=0).fit(
        train, train.y))
    print(f"fit on 10,000 copies in process: {fit:.1f} s; {features.n_features_out_} "
          f"features; exact {features.exact_} (weight {features.exact_weight_:.3f}), Nystroem "
          f"{features.approximate_}")
    check = _copies(args.source, args.partition, 0)
    (in_process,), expected = timed(lambda: features.transform(check))
    in_process /= args.partition
    print(f"in process: {1e3 * in_process:.3f} ms per graph (transform of {args.partition} graphs)")

    def equal_parts(store, n):
        """Parts spread over the store (the first, ``--check-parts - 2`` between, the last) against ``transform`` in
        process of the same copies, bit for bit."""
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
    with local_cluster(memory_limit=args.memory_limit) as client:
        for n in args.sizes:
            store = Path(tempfile.mkdtemp(prefix="learned-features-")) / "features.zarr"
            parts = [dask.delayed(_copies)(args.source, min(args.partition, n - s), s)
                     for s in range(0, n, args.partition)]
            pids = client.run(os.getpid)
            (seconds,), rows = timed(lambda: features_to_zarr(features, db.from_delayed(parts), store))
            peaks = list(client.run(peak_gib).values())
            restarted = client.run(os.getpid) != pids  # a worker past its memory limit is restarted
            (check_seconds,), same_parts = timed(lambda: equal_parts(store, n))
            same = all(same_parts.values())
            (knn,), (indices, values) = timed(lambda: kneighbors(expected[:100], store, n_neighbors=10))
            results.append(row := {
                "n": n, "seconds": seconds, "ms_per_graph": 1e3 * seconds / n, "worker_peak_gib": peaks,
                "rows": int(rows.sum()), "worker_restarted": restarted, "bitwise_equal": same,
                "partitions_checked": {str(k): v for k, v in same_parts.items()}, "check_seconds": check_seconds,
                "kneighbors_100_seconds": knn, "in_process_ms_per_graph": 1e3 * in_process,
                "first_query_is_its_own_nearest": bool(indices[0, 0] == 0)})
            print(f"n={n}: {seconds:.1f} s ({row['ms_per_graph']:.3f} ms per graph on 2 workers, "
                  f"{row['ms_per_graph'] / row['in_process_ms_per_graph']:.2f} x the in-process time per graph), "
                  f"worker peaks {', '.join(f'{p:.2f}' for p in peaks)} GiB (a worker restarted: {restarted}), "
                  f"{row['rows']} rows, partitions "
                  f"{sorted(same_parts)} of {len(rows)} bitwise equal to in-process: {same}; kneighbors of 100 "
                  f"queries: {knn:.1f} s")
            shutil.rmtree(store.parent)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def main(argv=None):
    many, ints = (lambda v: int(float(v))), (lambda text: [int(float(v)) for v in text.split(",") if v])
    own = dict(source="Mutagenicity", n_landmarks=1000)
    command = commands(__doc__, cluster=dict(
        n_graphs=option(1_000_000, "corpus size", type=many), queries=option(1000, "query graphs for the top-10"),
        exact_sample=option(20_000, "corpus sample checked by brute force"), C=option(10.0, "fixed C of both SVMs"),
        kernel_graphs=option(50_000, "graphs of the Zarr kernel matrix", type=many),
        chunks=option(2048, "rows per block of the kernel matrix"), graphs_per_file=50_000,
        scaling=option([10_000, 100_000, 1_000_000], "corpus sizes, comma-separated", type=ints),
        components=option([50, 100, 200, 500, 1000], "Nystroem landmarks, comma-separated", type=ints),
        workers=option(2, "LocalCluster worker processes, one thread each"), seed=0,
        workdir=option(tempfile.gettempdir(), "where the corpus and outputs go (a fresh folder inside; created)"),
        sections="generate,embed,kneighbors,kernel,scaling,nystroem", keep=option(False, "keep the generated files")),
        features=dict(sizes=[10_000, 30_000, 100_000], exact=[10_000], progress=False,
                      C=option(10.0, "C of both the LinearSVC and the SVC"), **own),
        zarr=dict(sizes=[100_000], partition=10_000, memory_limit="2GB", json=option(None, type=Path), **own,
                  check_parts=option(3, "partitions compared with transform in process (first, last, spread between)")))
    args = parse(command, argv)
    {"cluster": cluster, "features": features, "zarr": zarr}[args.what](args, command)


if __name__ == "__main__":
    main()
