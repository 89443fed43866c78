"""The rooted-subgraph member against GraKeL's NSPDK: time and accuracy.

Run from the project root, under the bench lock:

    flock /tmp/bench.lock python benchmarks/bench_rooted.py [--datasets ...] [--repeats 3]

1. Time (wall, median of ``--timing-repeats`` runs in one process): embedding and Gram
   matrix of ``rooted_subgraph`` on NCI1 at radius 2 (target: under 10 s) and on
   REDDIT-BINARY at radius 1 (target: under 60 s; no labels there), with node labels
   and bond types where the data set has them; the Gram matrix again from the data
   set's NetworkX graphs (conversion included), checked equal; and GraKeL's NSPDK with
   the same radius and d = 0, once, on the data sets of ``--grakel-timing`` (NCI1).
2. GraKeL's ``NeighborhoodSubgraphPairwiseDistance`` (NSPDK: hashed rooted
   neighbourhoods, pairs at distance up to ``d``; ``normalize=True``) on the same data,
   from ``grakel.Graph`` objects built beforehand (not timed), with r = 3, d = 4 (its
   defaults) and with r = 2, d = 0 (rooted neighbourhoods alone, as ours), once each
   (``--grakel-max-seconds`` skips a data set whose first GraKeL run took longer).
3. Accuracy: ``gi.evaluate_kernel`` (10-fold x ``--repeats`` repetitions, seed 0, C in
   1e-3 .. 1e3, the probe grid of docs/kernels.rst) on each data set for every kernel
   above, on the same splits.

Prints one table (reStructuredText) per part.
"""

import argparse
import time
from pathlib import Path

import numpy as np

import graphinvariants as gi
from graphinvariants.embeddings import RootedSubgraph
from graphinvariants.kernels import pairwise_kernels
from timing import median_and_result  # benchmarks/timing.py

C_GRID = tuple(10.0**e for e in range(-3, 4))


def grakel_graphs(ds):
    """GraKeL graphs from a TUDataset's batch: every node a key of the edge dictionary,
    node labels (or one label) and edge labels (or one label) as NSPDK needs both."""
    from grakel import Graph

    batch = ds.batch
    A = batch.matrix
    node_labels = batch.node_labels if batch.node_labels is not None else np.zeros(batch.n_nodes, np.int64)
    out = []
    for g in range(len(batch)):
        lo, hi = int(batch.offsets[g]), int(batch.offsets[g + 1])
        edges, labels = {}, {}
        for v in range(lo, hi):
            entries = range(A.indptr[v], A.indptr[v + 1])
            edges[v - lo] = {int(A.indices[e]) - lo: 1 for e in entries}
            for e in entries:
                labels[(v - lo, int(A.indices[e]) - lo)] = batch.edge_labels[e].item() if batch.edge_labels is not None else 0
        out.append(Graph(edges, node_labels={v - lo: node_labels[v].item() for v in range(lo, hi)}, edge_labels=labels))
    return out


def ours(ds, radius):
    kw = {}
    if ds.batch.node_labels is not None:
        kw["node_label"] = "label"
    if ds.batch.edge_labels is not None:
        kw["edge_label"] = "label"
    return RootedSubgraph(radius, **kw)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    parser.add_argument("--datasets", nargs="*", default=["MUTAG", "ENZYMES", "NCI1"])
    parser.add_argument("--timing", nargs="*", default=["NCI1:2", "REDDIT-BINARY:1"])
    parser.add_argument("--timing-repeats", type=int, default=3)
    parser.add_argument("--grakel-timing", nargs="*", default=["NCI1"],
                        help="data sets of --timing on which GraKeL's NSPDK (r as ours, d = 0) is timed too")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--grakel-max-seconds", type=float, default=900)
    args = parser.parse_args()

    print("Time (wall seconds, median of", args.timing_repeats, "runs)")
    for spec in args.timing:
        name, radius = spec.split(":")
        ds = gi.load_tu(name, data_home=args.data, download=False)
        f = ours(ds, int(radius))
        t_embed, embedded = median_and_result(lambda: f.embed(f.graph_batch(ds)), args.timing_repeats)
        t_gram, K = median_and_result(lambda: pairwise_kernels(ds, functional=f), args.timing_repeats)
        print(f"  {name} radius {radius}: embed {t_embed:.2f} s, Gram matrix (embed included) {t_gram:.2f} s, "
              f"{embedded.counts.shape[1]} classes, {embedded.n_over_cap} neighbourhoods over the cap", flush=True)
        networkx_graphs = list(ds)
        t_nx, K_nx = median_and_result(lambda: pairwise_kernels(networkx_graphs, functional=f), args.timing_repeats)
        print(f"  {name} radius {radius}: Gram matrix from {len(networkx_graphs)} NetworkX graphs (conversion "
              f"included) {t_nx:.2f} s, equal to the above: {bool(np.array_equal(K, K_nx))}", flush=True)
        if name in args.grakel_timing:
            import grakel

            converted = grakel_graphs(ds)
            nspdk = grakel.NeighborhoodSubgraphPairwiseDistance(r=int(radius), d=0, normalize=True)
            t_grakel, _ = median_and_result(lambda: nspdk.fit_transform(converted), 1)
            print(f"  {name}: GraKeL NSPDK r={radius}, d=0 (graphs converted beforehand) {t_grakel:.2f} s, one run: "
                  f"{t_grakel / t_gram:.1f} times the Gram matrix above", flush=True)

    if not args.datasets:
        return
    import grakel

    rows = []
    for name in args.datasets:
        ds = gi.load_tu(name, data_home=args.data, download=False)
        y = ds.y
        kernels = {}
        for radius in (1, 2, 3):
            f = ours(ds, radius)
            start = time.perf_counter()
            kernels[f"rooted_subgraph r={radius}"] = (pairwise_kernels(ds, functional=f), time.perf_counter() - start)
        converted = grakel_graphs(ds)
        for r, d in ((3, 4), (2, 0)):
            start = time.perf_counter()
            K = grakel.NeighborhoodSubgraphPairwiseDistance(r=r, d=d, normalize=True).fit_transform(converted)
            kernels[f"GraKeL NSPDK r={r}, d={d}"] = (np.asarray(K), time.perf_counter() - start)
        for label, (K, seconds) in kernels.items():
            result = gi.evaluate_kernel(K, y, n_repeats=args.repeats, n_folds=10, C_grid=C_GRID, seed=0)
            rows.append((name, label, seconds, 100 * result.mean, 100 * result.stderr))
            print(f"  {name:8s} {label:28s} {seconds:8.2f} s  {100 * result.mean:5.1f} +- {100 * result.stderr:.1f} (s.e. over repetitions)",
                  flush=True)

    print()
    print(f"Accuracy: 10-fold x {args.repeats}, seed 0, C in 1e-3..1e3; time: Gram matrix, wall seconds, one run")
    for row in rows:
        print("  ".join(str(x) if not isinstance(x, float) else f"{x:.2f}" for x in row))


if __name__ == "__main__":
    main()
