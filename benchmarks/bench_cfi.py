"""Cai-Fürer-Immerman pairs: which member separates how many, and at what cost per pair.

Run from the project root:  python benchmarks/bench_cfi.py [--members NAME ...] [--pairs 100]

BREC (Wang and Zhang, 2023) ends with 100 CFI pairs of 18 to 198 nodes, where 3-WL
separates 60 and the best GNNs of its table fewer (PPGN 23, I²-GNN 21, KP-GNN 11, GSN
0). Its files are not shipped with any package, so this script builds a set of the same
kind: 100 connected random base graphs with 4 to 12 vertices (``G(n, m)`` with ``n <=
m <= 1.5 n`` edges, ``--edge-ratio`` for another bound, so every base has a cycle, and
largest degree at most 4, so a pair has at most 12 * 16 = 192 nodes; seeded), and over each the CFI pair of
:func:`graphinvariants.datasets.cfi_pair` (the untwisted graph and its twisted partner,
nodes renumbered at random and stored in that order).

For every member (names as for ``gi.kernel_matrix``) it prints how many pairs have
``K < 1 - 1e-12`` (separated), how many relabelled copies of a graph (the untwisted
graph built again with other random numbers, so isomorphic to it) are separated from it
(false separations: must be 0), and the median and largest time per pair (embedding both
graphs and evaluating the kernel, one process). Pairs are also counted by a treewidth
bound of their base (``networkx``'s min-fill-in heuristic, an upper bound): the theory
(:mod:`graphinvariants.datasets.cfi`) says folklore 2-WL separates exactly the pairs
whose base has treewidth at most 2.
"""

import argparse
import time

import networkx as nx
import numpy as np
from networkx.algorithms.approximation import treewidth_min_fill_in

import graphinvariants as gi
from graphinvariants.datasets import cfi_pair

THRESHOLD = 1 - 1e-12

MEMBERS = ["wl", "shortest_path", "rooted_subgraph", "lwl2:n_iter=16", "lwl2:radius=None,n_iter=16",
           "fwl2", "fwl2:n_iter=16", "fwl2_ir", "fwl2_ir:n_iter=16"]

#: Published separations on BREC's 100 CFI pairs (Wang and Zhang 2023, table 2).
PUBLISHED = {"3-WL": 60, "PPGN": 23, "I²-GNN": 21, "KP-GNN": 11, "GSN": 0}


def random_bases(n_pairs, seed=0, edge_ratio=1.5):
    """Connected bases with 4..12 vertices, ``n <= m <= edge_ratio * n`` edges, degree <= 4."""
    rng = np.random.default_rng(seed)
    bases = []
    for i in range(n_pairs):
        n = 4 + i % 9
        while True:
            m = int(rng.integers(n, min(int(edge_ratio * n), 2 * n) + 1))
            B = nx.gnm_random_graph(n, m, seed=int(rng.integers(2**31)))
            if nx.is_connected(B) and max(d for _, d in B.degree) <= 4:
                bases.append(B)
                break
    return bases


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--members", nargs="+", default=MEMBERS)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edge-ratio", type=float, default=1.5,
                        help="largest number of base edges per base vertex (at most 2: degree <= 4)")
    args = parser.parse_args()

    bases = random_bases(args.pairs, args.seed, args.edge_ratio)
    pairs = [cfi_pair(B, seed=args.seed * 10**6 + i) for i, B in enumerate(bases)]
    copies = [cfi_pair(B, seed=args.seed * 10**6 + 10**5 + i)[0] for i, B in enumerate(bases)]
    width = np.array([treewidth_min_fill_in(B)[0] for B in bases])
    nodes = np.array([G.number_of_nodes() for G, _ in pairs])
    print(f"{len(pairs)} CFI pairs, {nodes.min()} to {nodes.max()} nodes (median {int(np.median(nodes))}); "
          f"base treewidth bound: " + ", ".join(f"{w}: {int(np.sum(width == w))}" for w in np.unique(width)))
    rows = []
    for name in args.members:
        separated = np.zeros(len(pairs), bool)
        false = 0
        seconds = []
        gi.kernel_matrix(list(cfi_pair(nx.cycle_graph(3))), kernel=name)  # compile (numba) before timing
        for i, (G, H) in enumerate(pairs):
            start = time.perf_counter()
            K = gi.kernel_matrix([G, H], kernel=name)
            seconds.append(time.perf_counter() - start)
            separated[i] = K[0, 1] < THRESHOLD
            false += int(gi.kernel_matrix([G], [copies[i]], kernel=name)[0, 0] < THRESHOLD)
        by_width = ", ".join(f"{int(np.sum(separated & (width == w)))}/{int(np.sum(width == w))}" for w in np.unique(width))
        rows.append((name, int(separated.sum()), false, float(np.median(seconds)), float(np.max(seconds)), by_width))
        print(f"  {name}: {rows[-1][1]} separated, {false} false, median {rows[-1][3]:.3f} s, "
              f"largest {rows[-1][4]:.2f} s per pair; by treewidth bound {by_width}", flush=True)
    print()
    header = ("member", f"separated (of {len(pairs)})", "copies separated", "median s/pair", "largest s/pair",
              "by treewidth bound " + "/".join(str(w) for w in np.unique(width)))
    cells = [header] + [(f"``{n}``", str(s), str(f), f"{m:.3f}", f"{x:.2f}", b) for n, s, f, m, x, b in rows]
    widths = [max(len(r[c]) for r in cells) for c in range(len(header))]
    line = "  ".join("=" * w for w in widths)
    print(line)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print(line)
    for row in cells[1:]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    print(line)
    print("published on BREC's 100 CFI pairs: " + ", ".join(f"{k} {v}" for k, v in PUBLISHED.items()))


if __name__ == "__main__":
    main()
