"""Cost of the higher-order WL members on the data sets users have.

Run from the project root:  python benchmarks/bench_higher_wl.py [--datasets NCI1 DD REDDIT-BINARY]

For each data set: wall seconds to embed every graph (one process) with ``wl`` (5 rounds,
the 1-WL member, for scale), ``lwl2`` at radius 1 and 2 and ``fwl2`` (3 rounds each),
``fwl2`` only where every graph fits ``working_memory`` (scikit-learn's, 1 GiB by
default: about 2,600 nodes), and how many pairs were coloured. Then, on the first
``--sample`` graphs of at most ``--sample-nodes`` nodes (the textbook loop is
Python, ``n**3`` per round), the same ``fwl2`` colours computed the textbook way (per pair, a
sorted tuple of colour pairs, renumbered through a dict; the reference of
``tests/embeddings/test_higher_wl.py``) against ``FolkloreWL``: the ratio of times,
measured in the same run.
"""

import argparse

import networkx as nx
import numpy as np

import graphinvariants as gi
from graphinvariants.embeddings import FolkloreWL, LocalWL, WeisfeilerLehman
from graphinvariants.embeddings.higher_wl import FWL_PAIR_BYTES
from timing import TU_DATA, timed  # benchmarks/timing.py


def textbook_fwl(adjacency, n_iter):
    """Colours of every pair by textbook folklore 2-WL, all graphs renumbered together."""
    colours = [{(u, v): (u == v, bool(A[u, v]), bool(A[v, u])) for u in range(len(A)) for v in range(len(A))}
               for A in adjacency]
    for _ in range(n_iter):
        signatures = [{(u, v): (c[u, v], tuple(sorted((c[u, w], c[w, v]) for w in range(len(A)))))
                       for u in range(len(A)) for v in range(len(A))} for A, c in zip(adjacency, colours)]
        palette = {}
        colours = [{p: palette.setdefault(s, len(palette)) for p, s in sig.items()} for sig in signatures]
    return colours


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "ENZYMES", "NCI1", "DD", "REDDIT-BINARY"])
    parser.add_argument("--data", default=TU_DATA)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--sample-nodes", type=int, default=60, help="largest graph of the textbook comparison")
    args = parser.parse_args()
    FolkloreWL(1).as_embeddings([nx.cycle_graph(3)])  # compile (numba) before timing
    for name in args.datasets:
        ds = gi.load_tu(name, data_home=args.data, download=False)
        sizes = np.asarray(ds.batch.sizes)
        print(f"{name}: {len(ds)} graphs, {int(sizes.sum())} nodes (largest {int(sizes.max())}), "
              f"{ds.batch.matrix.nnz // 2} edges", flush=True)
        members = {"wl (5 rounds)": WeisfeilerLehman(5), "lwl2 radius 1": LocalWL(3, radius=1),
                   "lwl2 radius 2": LocalWL(3, radius=2)}
        if float(sizes.max()) ** 2 * FWL_PAIR_BYTES <= 2**30:
            members["fwl2"] = FolkloreWL(3)
        for label, functional in members.items():
            try:
                (seconds,), batch = timed(lambda: functional.as_embeddings(ds.batch))
            except ValueError as error:  # over working_memory: say so
                print(f"  {label:<15} refused: {error}", flush=True)
                continue
            pairs = int(batch.counts.sum()) // (functional.n_iter + 1)
            print(f"  {label:<15} {seconds:8.2f} s  ({pairs} nodes or pairs per round, {batch.counts.shape[1]} "
                  f"colours)", flush=True)
        small = np.flatnonzero(sizes <= args.sample_nodes)[: args.sample]
        if not len(small):
            continue
        sample = ds.batch.take(small)
        adjacency = [sample.matrix[a:b, a:b].toarray() != 0 for a, b in zip(sample.offsets[:-1], sample.offsets[1:])]
        (slow,), _ = timed(lambda: textbook_fwl(adjacency, 3))
        (fast,), _ = timed(lambda: FolkloreWL(3).as_embeddings(sample))
        print(f"  fwl2 on the first {len(adjacency)} graphs of <= {args.sample_nodes} nodes: {fast:.3f} s; textbook 2-FWL {slow:.3f} s "
              f"(ratio {slow / fast:.1f})", flush=True)


if __name__ == "__main__":
    main()
