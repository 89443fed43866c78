"""One large network: the power invariants beside the peers (NetLSD, netrd), and on a Dask cluster.

``peers``: the table and the decay figure of docs/large_networks.rst; ``cluster``: the table of
docs/large_networks_cluster.rst (``--quick`` for its first row). From the project root, under the lock::

    flock /tmp/gi-bench.lock python benchmarks/studies/networks.py peers              # about 40 minutes
    flock /tmp/gi-bench.lock python benchmarks/studies/networks.py cluster            # 10^7 nodes, 10^8 edges

``peers`` needs ``pip install netlsd`` and ``pip install --no-deps netrd`` (netrd 0.3.0 pins its docs' Sphinx).
"""

import json
import os
import random
import resource
import shutil
import signal
import statistics
import tempfile
from pathlib import Path

import igraph as ig
import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.stats import spearmanr

import graphinvariants as gi
from runner import ROOT, clock, commands, in_child, local_cluster, option, parse, peak_gib, pyplot, timed, worker_peaks
from benchmarks.common import floor_invariants, peer, random_edges

FAMILIES = {"er": "Erdos-Renyi", "ba": "Barabasi-Albert", "grid": "2-D grid", "rgg": "random geometric"}
METHODS = {"power1": "power, 1 thread", "power": "power, all threads", "netlsd": "NetLSD heat", "deltacon": "DeltaCon",
           "portrait": "portrait div.", "netsimile": "NetSimile"}
PAIR_METHODS = ("deltacon", "portrait", "netsimile")
MEAN_DEGREE = 10
K = 5


# -- the graphs -------------------------------------------------------------------------
def generate(family, n_edges, seed):
    """Edge arrays ``(u, v, n_nodes)`` of a simple undirected graph of about ``n_edges`` edges (mean degree 10; the grid
    and Barabasi-Albert graphs of ``common.random_edges``)."""
    n = max(2, int(round(np.sqrt(n_edges / 2)))) ** 2 if family == "grid" else max(2 * MEAN_DEGREE,
                                                                                   2 * n_edges // MEAN_DEGREE)
    if family in ("grid", "ba"):
        return (*random_edges(family, n, MEAN_DEGREE, seed), n)
    if family not in ("er", "rgg"):
        raise ValueError(f"unknown family {family!r}; expected one of {sorted(FAMILIES)}")
    ig.set_random_number_generator(random.Random(seed))  # reproducible graphs
    g = ig.Graph.Erdos_Renyi(n=n, m=n_edges) if family == "er" else ig.Graph.GRG(n, np.sqrt(MEAN_DEGREE / (np.pi * n)))
    edges = np.array(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    return edges[:, 0], edges[:, 1], n


def flipped(u, v, n, n_flips, seed):
    """The edge arrays after ``n_flips`` random flips of node pairs (the paper's perturbation)."""
    rng = np.random.default_rng(seed)
    edges = set(zip(np.minimum(u, v).tolist(), np.maximum(u, v).tolist()))
    for _ in range(n_flips):
        a, b = sorted(int(x) for x in rng.choice(n, size=2, replace=False))
        edges.symmetric_difference_update({(a, b)})
    arr = np.array(sorted(edges), dtype=np.int64)
    return arr[:, 0], arr[:, 1]


def to_networkx(u, v, n):
    """The NetworkX graph of the edge arrays."""
    G = nx.empty_graph(n)
    G.add_edges_from(zip(u.tolist(), v.tolist()))
    return G


def to_csr(u, v, n):
    """The symmetric CSR adjacency of the edge arrays (netlsd's input)."""
    return sp.coo_matrix((np.ones(2 * u.size), (np.concatenate((u, v)), np.concatenate((v, u)))), shape=(n, n)).tocsr()


# -- one measurement, in a child process --------------------------------------------------
def distance(method):
    """netrd's distance ``method`` ("deltacon", "portrait" or "netsimile")."""
    import netrd

    return {"deltacon": netrd.distance.DeltaCon, "portrait": netrd.distance.PortraitDivergence,
            "netsimile": netrd.distance.NetSimile}[method]()


def child(method, path, repeats, repeat_time, budget, setup_budget, memory_gb):
    """Build the inputs of ``method`` from the saved edges, then time it; JSON lines out. Each step runs under a
    ``SIGALRM`` timer, whose default action ends the process, inside compiled code too."""
    if not method.startswith("power"):
        resource.setrlimit(resource.RLIMIT_AS, (int(memory_gb * 2**30),) * 2)
    signal.setitimer(signal.ITIMER_REAL, setup_budget)
    data = np.load(path)
    u, v, n = data["u"], data["v"], int(data["n"])
    if method.startswith("power"):
        A, n_jobs = gi.from_edge_arrays(u, v, n_nodes=n), 1 if method == "power1" else None
        gi.power_invariants(gi.from_edge_arrays(u[:100], v[:100], n_nodes=n), k=K, n_jobs=n_jobs)  # compile
        call = lambda: gi.power_invariants(A, k=K, n_jobs=n_jobs)  # noqa: E731
    elif method == "netlsd":
        import netlsd

        A = to_csr(u, v, n)
        call = lambda: netlsd.heat(A)  # noqa: E731
    else:
        G, H, d = to_networkx(u, v, n), to_networkx(data["u2"], data["v2"], n), distance(method)
        call = lambda: d.dist(G, H)  # noqa: E731
    print(json.dumps({"ready": True}), flush=True)
    total = 0.0
    for _ in range(repeats):
        signal.setitimer(signal.ITIMER_REAL, budget)
        (elapsed,), _ = timed(lambda: call())
        signal.setitimer(signal.ITIMER_REAL, 0)
        total += elapsed
        print(json.dumps({"time": elapsed, "peak_mb": 1024 * peak_gib()}), flush=True)
        if total >= repeat_time:
            break


def measure(method, path, **limits):
    """``child`` in a fresh interpreter: ``{"status": "ok"|"timeout"|"setup timeout"|"memory"|"error", ...}`` ("ok" once
    a call finished: a later repeat may have run out of budget)."""
    done, records = in_child("networks", "child", method=method, path=str(path), **limits)
    times = [r["time"] for r in records if "time" in r]
    if done.returncode == 0 or times:
        status = "ok"
    elif done.returncode == -signal.SIGALRM:
        status = "timeout" if records else "setup timeout"
    elif "MemoryError" in done.stderr or done.returncode in (-9, 137):
        status = "memory"
    else:
        status = "error"
        print(f"    {method}: exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1]}")
    return {"status": status, "times": times, "median": statistics.median(times) if times else None,
            "peak_mb": records[-1]["peak_mb"] if times else None}


def fmt_cell(result, budget):
    if result["status"] == "ok":
        t = result["median"]
        return (f"{t:.3g} s" if t >= 0.01 else f"{t * 1e3:.3g} ms") + f" ({len(result['times'])})"
    return f"> {budget:g} s" if result["status"] == "timeout" else result["status"]


# -- the decay under flips ---------------------------------------------------------------
def decay(n_edges, n_steps, n_sequences, seed, methods):
    import netlsd

    u, v, n = generate("ba", n_edges, seed)
    G = to_networkx(u, v, n)
    sequences = [gi.perturbation_sequence(G, n_steps, kind="flip", seed=seed + 1 + s) for s in range(n_sequences)]
    csr = lambda H: nx.to_scipy_sparse_array(H, nodelist=range(n), format="csr").astype(float)  # noqa: E731
    curves, seconds = {}, {}
    for method in methods:
        start = clock()
        if method in ("power1", "power"):
            base = gi.power_invariants(G, k=K, n_jobs=1 if method == "power1" else None)
            values = [[1 - gi.power_kernel(base, gi.power_invariants(H, k=K), k=K) for H in seq] for seq in sequences]
        elif method == "netlsd":
            base = netlsd.heat(csr(G))
            values = [[netlsd.compare(base, netlsd.heat(csr(H))) for H in seq] for seq in sequences]
        else:
            dist = distance(method)
            values = [[dist.dist(G, H) for H in seq] for seq in sequences]
        seconds[method] = clock() - start
        curves[method] = np.asarray(values, dtype=float)
        print(f"  decay {METHODS[method]}: {seconds[method]:.1f} s for {n_sequences} x {n_steps} graphs")
    return {"n_nodes": n, "n_edges": int(u.size), "curves": curves, "seconds": seconds}


def plot_decay(result, path):
    plt = pyplot()
    methods = [m for m in METHODS if m in result["curves"] and m != "power1"]
    fig, axes = plt.subplots(1, len(methods), figsize=(2.6 * len(methods), 2.8), sharex=True, squeeze=False)
    for ax, method in zip(axes[0], methods):
        values = result["curves"][method]
        steps, mean, std = np.arange(1, values.shape[1] + 1), values.mean(axis=0), values.std(axis=0)
        ax.plot(steps, mean, color="C0", marker=".")
        ax.fill_between(steps, np.maximum(mean - std, mean.min() / 10), mean + std, color="C0", alpha=0.25, lw=0)
        ax.set(yscale="log", xlabel="flips", xticks=[1, 5, 10, 15, 20])
        ax.set_title(METHODS[method].replace(", all threads", " kernel"), fontsize=9)
        ax.tick_params(labelsize=7)
    axes[0, 0].set_ylabel("dissimilarity to the original\n(1 - K for power)", fontsize=8)
    fig.suptitle(f"Barabasi-Albert, {result['n_nodes']:,} nodes, {result['n_edges']:,} edges: mean and std over "
                 f"{values.shape[0]} sequences of random flips", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_er_parquet(path, n, m, *, seed=0, rows_per_file=4_000_000):
    """G(n, p) with p = 2 m / n^2 as Parquet files of about ``rows_per_file`` rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng, p, total, files = np.random.default_rng(seed), 2.0 * m / (float(n) * float(n - 1)), 0, 0
    nodes_per_chunk = max(1, int(rows_per_file / max(p * n / 2, 1e-9)))
    path.mkdir(parents=True)
    for lo in range(0, n, nodes_per_chunk):
        a = np.arange(lo, min(n, lo + nodes_per_chunk), dtype=np.int64)
        later = n - 1 - a  # candidates b > a
        counts = rng.binomial(later, p)
        a = np.repeat(a, counts)
        b = a + 1 + np.floor(rng.random(a.size) * np.repeat(later, counts)).astype(np.int64)
        key = np.unique(a * n + b)  # G(n, p): each pair once (a repeat can only be in this chunk)
        key = key[rng.permutation(key.size)]
        a, b, swap = key // n, key % n, rng.random(key.size) < 0.5
        u, v = np.where(swap, b, a), np.where(swap, a, b)
        pq.write_table(pa.table({"u": u, "v": v}), path / f"part-{files:05d}.parquet", row_group_size=1 << 20)
        total += u.size
        files += 1
    return total, files


def read_csr(path, n):
    """The in-process adjacency of the Parquet edge table (undirected, int32 indices)."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    u, v = (table.column(c).to_numpy().astype(np.int32) for c in "uv")
    del table
    rows, cols = np.concatenate((u, v)), np.concatenate((v, u))
    del u, v  # the process peak is a figure: the int32 columns go before the matrix is built
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    del rows, cols
    A.sum_duplicates()
    return A


def peers(args, parser):
    if args.quick:
        args.sizes, args.families, args.budget, args.repeats = "1e4", "er,ba", 30.0, 3
        args.sequences, args.steps, args.decay_edges = 2, 5, 2_000
    sizes, families, methods = [int(float(s)) for s in args.sizes.split(",")], args.families.split(","), \
        args.methods.split(",")
    for name in methods:
        if name not in METHODS:
            parser.error(f"unknown method {name!r}; expected some of {list(METHODS)}")
    for module in {"netlsd" if m == "netlsd" else "netrd" for m in methods if not m.startswith("power")}:
        peer(module)  # fail now, not in a child
    import numba

    print(f"{os.cpu_count()} cores, numba threads {numba.config.NUMBA_NUM_THREADS}; k={K}; budget {args.budget:g} s "
          f"per call; peers limited to {args.memory_gb:g} GB of address space; medians of up to {args.repeats} calls")
    if not args.no_decay:
        print(f"Decay under {args.steps} random flips, Barabasi-Albert of {args.decay_edges:,} edges, "
              f"{args.sequences} sequences (the same for every method)")
        result = decay(args.decay_edges, args.steps, args.sequences, args.seed, methods)
        marks = [s for s in (1, 2, 5, 10, 15, 20) if s <= args.steps]
        print(f"{'method':<20}" + "".join(f"{'t=' + str(s):>11}" for s in marks)
              + f"{'std/mean t=' + str(args.steps):>16}{'Spearman':>10}{'time':>9}")
        for method, values in result["curves"].items():
            mean = values.mean(axis=0)
            cv = values[:, -1].std() / mean[-1] if mean[-1] else float("nan")
            rank = spearmanr(np.arange(1, mean.size + 1), mean).statistic  # against the number of flips
            print(f"{METHODS[method]:<20}" + "".join(f"{mean[s - 1]:>11.3g}" for s in marks)
                  + f"{cv:>16.2f}{rank:>10.2f}{result['seconds'][method]:>8.1f}s")
        print("(power: 1 - K; NetLSD: L2 distance of heat signatures; others: the distance. Spearman: rank "
              "correlation of the mean with the number of flips, 1 = strictly increasing)")
        if args.figure:
            plot_decay(result, args.figure)
            print(f"figure: {args.figure}")

    rows, failed = [], {}  # failed: (family, method) -> the size it failed at
    limits = dict(repeats=args.repeats, repeat_time=args.repeat_time, budget=args.budget,
                  setup_budget=max(args.budget, 600), memory_gb=args.memory_gb)
    with tempfile.TemporaryDirectory(prefix="gi-peers-") as tmp:
        for size in sizes:  # size by size: an interrupted run leaves a full table of the smaller sizes
            for family in families:
                start = clock()
                u, v, n = generate(family, size, args.seed)
                pairs = any(m in PAIR_METHODS and (family, m) not in failed for m in methods)
                # no distance left to measure: spare the minute a Python set of 10^7 edges takes
                u2, v2 = flipped(u, v, n, 20, args.seed + 1) if pairs else (u[:0], v[:0])
                path = Path(tmp) / f"{family}-{size}.npz"
                np.savez(path, u=u, v=v, n=n, u2=u2, v2=v2)
                row = {"family": family, "target": size, "n_nodes": n, "n_edges": int(u.size), "results": {}}
                print(f"{FAMILIES[family]}, {n:,} nodes, {u.size:,} edges (generated in {clock() - start:.1f} s)")
                for method in methods:
                    if (family, method) in failed:
                        row["results"][method] = {"status": "skipped", "after": failed[family, method]}
                        continue
                    row["results"][method] = result = measure(method, path, **limits)
                    print(f"    {METHODS[method]:<20} {fmt_cell(result, args.budget):>14}   peak "
                          f"{result['peak_mb'] or 0:,.0f} MB")
                    if result["status"] != "ok":
                        failed[family, method] = size
                rows.append(row)
                path.unlink()

    print(f"\nTime per graph (power, NetLSD) or per pair of snapshots (netrd distances); median (calls); "
          f"'> {args.budget:g} s': did not finish in the budget; 'skipped': did not finish a smaller graph")
    print(f"{'graph':<18}{'nodes':>11}{'edges':>12}" + "".join(f"{METHODS[m]:>20}" for m in methods))
    for title, cell in ((None, lambda r: fmt_cell(r, args.budget)), (
            "\nPeak resident memory of the measuring process (MB; the inputs included)",
            lambda r: f"{r['peak_mb']:,.0f}" if r.get("peak_mb") else "-")):
        if title:
            print(title)
        for row in rows:
            print(f"{FAMILIES[row['family']]:<18}{row['n_nodes']:>11,}{row['n_edges']:>12,}"
                  + "".join(f"{cell(row['results'][m]):>20}" for m in methods))
    ratios = [(row, row["results"]["power1"]["median"] / row["results"]["power"]["median"]) for row in rows
              if all(row["results"].get(m, {}).get("status") == "ok" for m in ("power1", "power"))]
    if ratios:
        print("\nSpeed-up of power_invariants from 1 thread to all: "
              + ", ".join(f"{FAMILIES[r['family']]} {r['n_edges']:.0e} {x:.2f}x" for r, x in ratios))


def cluster(args, parser):
    if args.quick:
        args.nodes, args.edges, args.dedup, args.memory_limit, args.rows_per_file = 10**6, 10**7, True, "0.6GB", 10**6

    import dask.dataframe as dd
    from dask.utils import parse_bytes

    workdir = Path(tempfile.mkdtemp(prefix="gi-bench-network-", dir=args.dir))
    path = workdir / "edges"
    try:
        (written,), (m, files) = timed(lambda: write_er_parquet(path, args.nodes, args.edges,
                                                               rows_per_file=args.rows_per_file))
        size, table_bytes = sum(f.stat().st_size for f in path.iterdir()), 16 * m
        print(f"wrote G(n={args.nodes:,}, m={m:,}) to {files} Parquet files, {size / 2**30:.2f} GiB on disk "
              f"({table_bytes / 2**30:.2f} GiB as int64 columns in memory) in {written:.1f} s")
        limit = parse_bytes(args.memory_limit)
        print(f"worker memory_limit {limit / 2**30:.2f} GiB < table {table_bytes / 2**30:.2f} GiB: "
              f"{limit < table_bytes}")

        with local_cluster(memory_limit=args.memory_limit) as client:
            edges = dd.read_parquet(path)
            (seconds,), inv = timed(lambda: gi.distributed.power_invariants(edges, k=args.k, deduplicate=False,
                                                                             split_every=args.split_every))
            print(f"distributed ({edges.npartitions} partitions, deduplicate=False): {seconds:.1f} s, "
                  f"{seconds / args.k:.2f} s per step, {1e9 * seconds / (args.k * m):.1f} ns per edge per step; "
                  f"worker peaks {worker_peaks(client)}; client peak {peak_gib():.2f} GiB")
            if args.dedup:
                (dedup_seconds,), deduplicated = timed(lambda: gi.distributed.power_invariants(
                    edges, k=args.k, split_every=args.split_every))
                print(f"distributed, deduplicate=True (shuffle + persisted distinct table): {dedup_seconds:.1f} s; "
                      f"worker peaks {worker_peaks(client)}; equal to deduplicate=False: "
                      f"{deduplicated == inv}")

        (build,), A = timed(lambda: read_csr(path, args.nodes))
        csr_gib = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 2**30
        (floor,), (mean, cov) = timed(lambda: floor_invariants(A, args.k))
        (library,), expected = timed(lambda: gi.power_invariants(A, k=args.k))
        mean_err = float(np.max(np.abs(inv.mean - expected.mean) / np.abs(expected.mean)))
        cov_err, floor_err = (float(np.abs(c - expected.covariance).max() / np.abs(expected.covariance).max())
                              for c in (inv.covariance, cov))
        print(f"in process, one thread: CSR read + build {build:.1f} s ({csr_gib:.2f} GiB, {A.nnz:,} entries); "
              f"floor (k products + moments) {floor:.2f} s; gi.power_invariants {library:.2f} s; "
              f"process peak {peak_gib():.2f} GiB")
        print(f"ratio distributed / floor: {seconds / floor:.1f}x; distributed / (CSR build + floor): "
              f"{seconds / (build + floor):.2f}x")
        print(f"distributed vs gi.power_invariants: mean {mean_err:.1e}, covariance {cov_err:.1e} (relative); "
              f"plain-numpy floor covariance vs gi: {floor_err:.1e}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv=None):
    command = commands(__doc__, peers=dict(
        sizes=option("1e4,1e5,1e6,1e7", "edges"),
        quick=option(False, "10^4 edges, ER and BA, budget 30 s; decay: 2 sequences of 5 flips on 2,000 edges"),
        families=",".join(FAMILIES), methods=",".join(METHODS), memory_gb=option(8.0, "a peer's address space"),
        budget=option(60.0, "seconds per call before it counts as not finishing"), repeats=5,
        repeat_time=option(30.0, "no further call once the calls so far took this many seconds"), decay_edges=5_000,
        steps=20, sequences=3, seed=0, figure=str(ROOT / "docs/_static/large_networks_decay.png"),
        no_decay=False), cluster=dict(
        quick=option(False, "10^6 nodes, 10^7 edges, --dedup on"), nodes=10_000_000, edges=100_000_000, k=5,
        memory_limit=option("1.2GB", "per worker; below the table's 16 bytes per row"), rows_per_file=4_000_000,
        split_every=4, dedup=option(False, "also time deduplicate=True (shuffle + persist)"),
        dir=option(None, "where to write the Parquet table (default: a temporary directory)", type=Path)))
    args = parse(command, argv)
    {"peers": peers, "cluster": cluster}[args.what](args, command)


if __name__ == "__main__":
    main()
