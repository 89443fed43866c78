"""Large collections: invariants, top-k neighbours and kernel matrices on a Dask cluster,
and the Nystroem approximation on NCI1.

Full size (about 20 minutes on 2 cores; about 20 GB free disk needed in --workdir for
the 50,000-graph Zarr matrix, the section is skipped with a message otherwise, and
about 1 GB for the 10^6-graph corpus; figures in docs/large_collections.rst)::

    python benchmarks/bench_large.py --workdir /tmp

Small check (about 3 minutes on 2 cores, 2 of them the exact mean-map kernel of NCI1 in
the nystroem section; ``--sections generate,embed,kneighbors,kernel,scaling`` leaves that
section out and takes under a minute)::

    python benchmarks/bench_large.py --n-graphs 10000 --kernel-graphs 2000 --queries 200 \\
        --exact-sample 5000 --scaling 2000,10000 --components 50,100

Sections (``--sections``, comma-separated, default all):

generate
    A synthetic corpus of ``--n-graphs`` molecule-like graphs, written as a
    partitioned Parquet edge table (``graph_id, source, target``) in a folder under
    ``--workdir``: node counts drawn from a lognormal fitted to NCI1's (mu 3.310,
    sigma 0.408, clipped to NCI1's 3..111 nodes), each graph a random tree of
    mostly-chain shape plus ring-closing edges, about 1.08 edges per node as in NCI1.
    Reproducible from ``--seed`` (one independent stream per file).
embed
    Invariants (k=5) on a LocalCluster of 2 worker processes (1 thread each) from
    the Parquet files, written back to Parquet, against the in-process batch path
    (read the table, one GraphBatch, one pass): graphs per second, peak memory per
    worker, and equality of the two results bit for bit.
kneighbors
    Top-10 neighbours of ``--queries`` query graphs in the corpus, in process and on
    the cluster (equal, checked), and exactness against a brute-force argsort of the
    full kernel matrix on a ``--exact-sample``-graph sample.
kernel
    The ``--kernel-graphs`` x ``--kernel-graphs`` kernel matrix on the cluster,
    written blockwise to Zarr: pairs per second per core and peak memory per worker,
    against the in-process engine on one core.
scaling
    Embeddings and top-10 on the cluster for each corpus size of ``--scaling``.
nystroem
    NCI1 (``--tu-dir``): accuracy and time of GraphFeatures("power") (Nystroem) + LinearSVC for each
    ``--components`` against the exact kernel with SVC, same 10 folds (one
    repetition), same fixed C; then GraphFeatures("meanmap:n_features=D") + LinearSVC with as many random
    features against the exact mean-map kernel with SVC (about 2.5 minutes on 2 cores).

Everything written goes to a fresh folder under ``--workdir`` (created, with its
parents, if missing), removed at the end unless ``--keep``: runs never see each
other's files, so the script can be run again, or twice at once, in one folder.
"""

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import graphinvariants as gi
from graphinvariants.search._kernel_index import kernel_neighbors as _kneighbors  # the kernel index NearestGraphs calls (gi.kneighbors is deprecated)
from graphinvariants.kernels import make_functional, pairwise_kernels
from graphinvariants.features import subset

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when loaded by path (tests/test_docs.py)
from timing import section  # noqa: E402 - benchmarks/timing.py

NCI1_LOG_SIZE = (3.310, 0.408)  # mean and std of log(number of nodes) over NCI1
NCI1_SIZE_RANGE = (3, 111)
NCI1_EDGES_PER_NODE = 1.0815


# -- synthetic corpus ------------------------------------------------------------------
def graph_sizes(n_graphs, rng):
    mu, sigma = NCI1_LOG_SIZE
    sizes = np.round(rng.lognormal(mu, sigma, n_graphs))
    return np.clip(sizes, *NCI1_SIZE_RANGE).astype(np.int64)


def molecule_edges(sizes, rng):
    """Edges ``(graph, u, v)`` (local node numbers) of molecule-like graphs.

    A random tree in which every node links to one of the few nodes before it
    (mostly the previous one: chains with branches), plus ring closures ``u - 5 -- u``
    (six-rings) so that there are about 1.08 edges per node, as in NCI1.
    """
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

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    n_files = -(-n_graphs // graphs_per_file)
    streams = np.random.SeedSequence(seed).spawn(n_files)
    n_nodes = n_edges = 0
    for f, stream in enumerate(streams):
        rng = np.random.default_rng(stream)
        count = min(graphs_per_file, n_graphs - f * graphs_per_file)
        sizes = graph_sizes(count, rng)
        g, u, v = molecule_edges(sizes, rng)
        order = np.lexsort((v, u, g))
        table = pa.table({
            "graph_id": (first_id + f * graphs_per_file + g[order]).astype(np.int64),
            "source": u[order].astype(np.int32),
            "target": v[order].astype(np.int32),
        })
        pq.write_table(table, folder / f"part-{f:05d}.parquet")
        n_nodes += int(sizes.sum())
        pairs = np.unique(np.stack([np.minimum(u, v), np.maximum(u, v)]) + (g * 1000)[None], axis=1)
        n_edges += pairs.shape[1]
    return {"graphs": n_graphs, "nodes": n_nodes, "edges": n_edges, "files": n_files}


def queries_graphs(n, seed):
    """``n`` query graphs from another stream of the same generator, as NetworkX graphs."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    sizes = graph_sizes(n, rng)
    g, u, v = molecule_edges(sizes, rng)
    graphs = [nx.empty_graph(int(s)) for s in sizes]
    for gi_, a, b in zip(g.tolist(), u.tolist(), v.tolist()):
        graphs[gi_].add_edge(a, b)
    return graphs


# -- measuring -------------------------------------------------------------------------
def _reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # resets VmHWM (Linux >= 4.0)
        return True
    except OSError:
        return False


def _peak_rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return float("nan")


class WorkerMemory:
    """Peak memory of every worker during a block: the highest RSS in the cluster's
    own memory reports (worker heartbeats, sampled every 0.2 s) and, on Linux, the
    exact peak RSS of each worker process (VmHWM, reset at the start)."""

    def __init__(self, client):
        self.client = client

    def __enter__(self):
        self.exact = all(self.client.run(_reset_peak_rss).values())
        self.reported = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def _poll(self):
        while not self._stop.is_set():
            for addr, info in self.client.scheduler_info(n_workers=-1)["workers"].items():
                memory = info.get("metrics", {}).get("memory", 0)
                self.reported[addr] = max(self.reported.get(addr, 0), memory)
            self._stop.wait(0.2)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peaks = self.client.run(_peak_rss) if self.exact else {}

    def summary(self):
        def mib(values):
            return ", ".join(f"{v / 2**20:.0f}" for v in values)

        text = f"reported RSS peak per worker {mib(self.reported.values())} MiB"
        if self.peaks:
            text += f"; exact peak RSS (VmHWM) {mib(self.peaks.values())} MiB"
        return text


def start_cluster(n_workers):
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
    return cluster, Client(cluster)


# -- sections --------------------------------------------------------------------------
def section_embed(args, corpus_dir, client, work):
    import dask.dataframe as dd
    import pandas as pd

    from graphinvariants import distributed as gid
    from graphinvariants.distributed import edge_table_batch

    print(f"\n== Invariants (k=5) of {args.n_graphs:,} graphs")
    times = {}
    with section("in-process", times):
        table = pd.read_parquet(corpus_dir)
        batch, ids = edge_table_batch(table)
        local = gi.batch_power_invariants(batch)
    del table, batch
    print(f"  in process, batch path (read + build + embed): {times['in-process']:.2f} s, "
          f"{args.n_graphs / times['in-process']:,.0f} graphs/s (1 core)")
    out = work / "embeddings"
    with WorkerMemory(client) as mem, section("cluster", times):
        edges = dd.read_parquet(corpus_dir)
        gid.embed(edges, npartitions=edges.npartitions).to_parquet(out)
    print(f"  cluster, {args.workers} workers (read + shuffle + embed + write): {times['cluster']:.2f} s, "
          f"{args.n_graphs / times['cluster']:,.0f} graphs/s")
    print(f"  {mem.summary()}")
    stored = pd.read_parquet(out).sort_values("graph_id")
    remote = gid.from_frame(stored)
    same = (np.array_equal(stored["graph_id"].to_numpy(), ids) and np.array_equal(remote.means, local.means)
            and np.array_equal(remote.covariances, local.covariances) and np.array_equal(remote.n_nodes, local.n_nodes))
    print(f"  cluster result equal to the in-process one bit for bit: {same}")
    if not same:
        raise SystemExit("embeddings differ")
    return local, ids


def section_kneighbors(args, client, work, local, ids):
    import dask.dataframe as dd

    from graphinvariants import distributed as gid

    print(f"\n== Top-10 neighbours of {args.queries:,} queries in {len(local):,} graphs")
    queries = gi.batch_power_invariants(queries_graphs(args.queries, args.seed + 1))
    frame = dd.read_parquet(work / "embeddings")
    order = frame["graph_id"].compute().to_numpy()
    corpus = local.take(np.searchsorted(ids, order))  # in the order of the cluster's rows
    times = {}
    with section("in-process", times):
        expected = _kneighbors(queries, corpus, n_neighbors=10, n_jobs=args.workers)
    pairs = args.queries * len(corpus)
    print(f"  in process, n_jobs={args.workers}: {times['in-process']:.2f} s, {pairs / times['in-process'] / 1e6:.1f} M pairs/s")
    with WorkerMemory(client) as mem, section("cluster", times):
        idx, val = gid.kneighbors(queries, frame, n_neighbors=10)
    print(f"  cluster, {args.workers} workers: {times['cluster']:.2f} s, {pairs / times['cluster'] / 1e6:.1f} M pairs/s; {mem.summary()}")
    same = np.array_equal(idx, expected[0]) and np.array_equal(val, expected[1])
    print(f"  cluster answer equal to the in-process one: {same}")
    n_sample = min(args.exact_sample, len(corpus))
    sample = corpus.take(np.random.default_rng(args.seed).choice(len(corpus), n_sample, replace=False))
    K = gi.kernel_matrix(queries, sample, n_jobs=args.workers)
    brute = np.argsort(-K, axis=1, kind="stable")[:, :10]
    got = _kneighbors(queries, sample, n_neighbors=10, n_jobs=args.workers)
    sample_frame = dd.from_pandas(gid.to_frame(sample), npartitions=max(2, args.workers * 2))
    got_cluster = gid.kneighbors(queries, sample_frame, n_neighbors=10)
    exact = np.array_equal(got[0], brute) and np.array_equal(got_cluster[0], brute)
    exact &= np.array_equal(got[1], np.take_along_axis(K, brute, axis=1)) and np.array_equal(got_cluster[1], got[1])
    ties = int(sum(len(np.unique(row)) < len(row) for row in np.take_along_axis(K, brute, axis=1)))
    print(f"  brute force on a {n_sample:,}-graph sample: in process and cluster exact: {exact} "
          f"({ties} of {args.queries} top-10 rows hold ties)")
    if not (same and exact):
        raise SystemExit("neighbours differ")


def section_kernel(args, client, work, local):
    import dask.dataframe as dd

    from graphinvariants import distributed as gid

    n = min(args.kernel_graphs, len(local))
    need = 8 * n * n
    free = shutil.disk_usage(work).free
    print(f"\n== Kernel matrix of {n:,} graphs to Zarr, chunks {args.chunks}")
    if need > 0.9 * free:
        print(f"  skipped: the matrix needs {need / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free in {work}")
        return
    sub = local[:n]
    frame = dd.from_pandas(gid.to_frame(sub), npartitions=max(1, -(-n // args.chunks))).persist()
    times = {}
    with WorkerMemory(client) as mem, section("cluster", times):
        gid.kernel_matrix(frame, chunks=args.chunks).to_zarr(str(work / "K.zarr"))
    distinct = n * (n + 1) / 2
    sizes = np.diff(np.append(np.arange(0, n, args.chunks), n))
    evaluated = n * n - float(np.sum(sizes * (sizes - 1) / 2))  # blocks below the diagonal are computed again
    rate = distinct / times["cluster"] / args.workers
    print(f"  cluster: {times['cluster']:.2f} s, {rate / 1e6:.2f} M distinct pairs/s per core ({distinct:,.0f} distinct "
          f"pairs, {evaluated:,.0f} evaluated: a block below the diagonal is its mirror image computed again); {mem.summary()}")
    m = min(n, 5000)
    with section("in-process", times):
        gi.kernel_matrix(sub[:m])
    print(f"  in process, one core, {m:,} graphs: {m * (m + 1) / 2 / times['in-process'] / 1e6:.2f} M pairs/s")
    import zarr

    stored = zarr.open_array(str(work / "K.zarr"), mode="r")
    rows = np.random.default_rng(0).choice(n, min(n, 200), replace=False)
    # the rows as the whole n x n matrix computes them (its size decides the engine)
    whole = make_functional("power").for_pairs(n * n)
    reference = pairwise_kernels(sub.take(np.sort(rows)), sub, functional=whole)
    check = np.array_equal(stored.get_orthogonal_selection((np.sort(rows), slice(None))), reference)
    print(f"  {len(rows)} stored rows equal to the in-process kernel: {check}")
    shutil.rmtree(work / "K.zarr")
    if not check:
        raise SystemExit("kernel matrix differs")


def section_scaling(args, client, corpus_dir, work):
    import dask.dataframe as dd

    from graphinvariants import distributed as gid

    print("\n== Scaling on the cluster (embeddings to Parquet, then top-10 of the queries)")
    queries = gi.batch_power_invariants(queries_graphs(args.queries, args.seed + 1))
    print(f"  {'graphs':>10} {'embed s':>9} {'graphs/s':>10} {'top-10 s':>9} {'M pairs/s':>10}")
    files = sorted(Path(corpus_dir).glob("*.parquet"))
    for size in args.scaling:
        if size > args.n_graphs:
            print(f"  {size:>10,} skipped: the corpus has {args.n_graphs:,} graphs (raise --n-graphs)")
            continue
        n_files = -(-size // args.graphs_per_file)
        edges = dd.read_parquet([str(f) for f in files[:n_files]], filters=[("graph_id", "<", size)])
        out = work / f"embeddings-{size}"
        times = {}
        with section("embed", times):
            gid.embed(edges, npartitions=edges.npartitions).to_parquet(out)
        with section("top", times):
            gid.kneighbors(queries, dd.read_parquet(out), n_neighbors=10)
        print(f"  {size:>10,} {times['embed']:>9.2f} {size / times['embed']:>10,.0f} {times['top']:>9.2f} "
              f"{size * len(queries) / times['top'] / 1e6:>10.1f}")
        shutil.rmtree(out)


def section_nystroem(args):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC, LinearSVC

    print(f"\n== NCI1: Nystroem + LinearSVC against the exact kernel + SVC (10 folds, C={args.C})")
    ds = gi.load_tu("NCI1", data_home=args.tu_dir, download=False)
    y = ds.y
    folds = list(StratifiedKFold(10, shuffle=True, random_state=args.seed).split(np.zeros(len(y)), y))
    start = time.perf_counter()
    K = gi.kernel_matrix(ds, n_jobs=args.workers)
    accuracies = []
    for train, test in folds:
        model = SVC(C=args.C, kernel="precomputed").fit(K[np.ix_(train, train)], y[train])
        accuracies.append(np.mean(model.predict(K[np.ix_(test, train)]) == y[test]))
    t_exact = time.perf_counter() - start
    print(f"  {'method':<22} {'accuracy %':>10} {'time s':>8}")
    print(f"  {'exact kernel, SVC':<22} {100 * np.mean(accuracies):>10.2f} {t_exact:>8.2f}")
    for m in args.components:
        start = time.perf_counter()
        accuracies = []
        for train, test in folds:
            features = gi.GraphFeatures("power", n_landmarks=m, max_samples=None, seed=args.seed,
                                        n_jobs=args.workers)
            X_train = features.fit_transform(subset(ds, train))
            clf = LinearSVC(C=args.C, max_iter=20000).fit(X_train, y[train])
            accuracies.append(np.mean(clf.predict(features.transform(subset(ds, test))) == y[test]))
        elapsed = time.perf_counter() - start
        print(f"  {f'Nystroem m={m}':<22} {100 * np.mean(accuracies):>10.2f} {elapsed:>8.2f}")

    print(f"\n== NCI1: mean-map random features (GraphFeatures) + LinearSVC against the exact mean-map kernel + SVC (same folds, C={args.C})")
    start = time.perf_counter()
    K = gi.kernel_matrix(ds, kernel="meanmap", n_jobs=args.workers)
    accuracies = []
    for train, test in folds:
        model = SVC(C=args.C, kernel="precomputed").fit(K[np.ix_(train, train)], y[train])
        accuracies.append(np.mean(model.predict(K[np.ix_(test, train)]) == y[test]))
    print(f"  {'method':<22} {'accuracy %':>10} {'time s':>8}")
    print(f"  {'exact mean map, SVC':<22} {100 * np.mean(accuracies):>10.2f} {time.perf_counter() - start:>8.2f}")
    for m in args.components:
        start = time.perf_counter()
        features = gi.GraphFeatures(f"meanmap:n_features={m},seed={args.seed}").fit_transform(ds)  # no fit on data
        accuracies = []
        for train, test in folds:
            clf = LinearSVC(C=args.C, max_iter=20000).fit(features[train], y[train])
            accuracies.append(np.mean(clf.predict(features[test]) == y[test]))
        elapsed = time.perf_counter() - start
        print(f"  {f'random features D={m}':<22} {100 * np.mean(accuracies):>10.2f} {elapsed:>8.2f}")


# -- main ------------------------------------------------------------------------------
def _ints(text):
    return [int(float(v)) for v in text.split(",") if v]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-graphs", type=lambda v: int(float(v)), default=1_000_000, help="corpus size (default 1e6)")
    parser.add_argument("--queries", type=int, default=1000, help="query graphs for the top-10 (default 1000)")
    parser.add_argument("--exact-sample", type=int, default=20_000, help="corpus sample checked by brute force (default 20000)")
    parser.add_argument("--kernel-graphs", type=lambda v: int(float(v)), default=50_000, help="graphs of the Zarr kernel matrix (default 50000)")
    parser.add_argument("--chunks", type=int, default=2048, help="rows per block of the kernel matrix (default 2048)")
    parser.add_argument("--scaling", type=_ints, default=[10_000, 100_000, 1_000_000], help="corpus sizes (default 1e4,1e5,1e6)")
    parser.add_argument("--components", type=_ints, default=[50, 100, 200, 500, 1000], help="Nystroem landmarks")
    parser.add_argument("--C", type=float, default=10.0, help="fixed C of both SVMs (default 10)")
    parser.add_argument("--graphs-per-file", type=int, default=50_000, help="graphs per Parquet file (default 50000)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes, one thread each (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default=tempfile.gettempdir(),
                        help="where the corpus and outputs go (a fresh folder inside; created if missing)")
    parser.add_argument("--corpus", help="use this Parquet edge table instead of generating one (graph_id, source, target)")
    parser.add_argument("--tu-dir", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    parser.add_argument("--sections", default="generate,embed,kneighbors,kernel,scaling,nystroem")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args(argv)
    sections = set(args.sections.split(","))
    try:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="gi-bench-large-", dir=args.workdir))
    except OSError as err:
        parser.error(f"--workdir {args.workdir}: cannot create a folder there ({err.strerror or err})")
    print(f"work folder: {work}")
    cluster = client = None
    try:
        corpus_dir = Path(args.corpus) if args.corpus else work / "corpus"
        if not args.corpus and sections & {"generate", "embed", "kneighbors", "kernel", "scaling"}:
            start = time.perf_counter()
            stats = generate_corpus(corpus_dir, args.n_graphs, args.seed, args.graphs_per_file)
            print(f"== Synthetic corpus: {stats['graphs']:,} graphs, {stats['nodes']:,} nodes, {stats['edges']:,} edges "
                  f"({stats['edges'] / stats['nodes']:.3f} per node; NCI1 {NCI1_EDGES_PER_NODE}), mean "
                  f"{stats['nodes'] / stats['graphs']:.1f} nodes (NCI1 29.9), {stats['files']} Parquet files, "
                  f"{time.perf_counter() - start:.1f} s")
        if sections & {"embed", "kneighbors", "kernel", "scaling"}:
            cluster, client = start_cluster(args.workers)
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
        if client is not None:
            client.close()
            cluster.close()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
