"""Weisfeiler-Lehman on dense graphs: one-key sorts and packed rows against plain lexsorts.

Run from the project root::

    python benchmarks/bench_wl_dense.py [--graphs 300] [--density 0.5] [--repeat 5]

Every WL round sorts the colours of each node's neighbours (the entries of the CSR rows)
and then finds the distinct rows (own colour, sorted neighbour colours) among the nodes
of each degree. On dense graphs (social networks such as COLLAB) those two sorts are
most of the embedding. Compared in the same run, on random G(n, p) graphs with n drawn
from 30 .. 250:

* straightforward: ``neighbours[numpy.lexsort((neighbours, row))]``, and a lexsort over
  every column of the rows;
* ours: :func:`graphinvariants.embeddings.counts.sort_within_rows`, one int64 key
  ``row * n_colours + colour``, and :func:`~graphinvariants.embeddings.counts.unique_rows`
  over the columns packed several to a uint64 key.

Prints the median times of the whole WL embedding (5 rounds, degree labels) with each
sort, their ratio, and whether the two embeddings' Gram matrices are identical.
"""


import networkx as nx
import numpy as np

import graphinvariants as gi
from graphinvariants.embeddings import WeisfeilerLehman
from graphinvariants.embeddings import counts as counts_module
from graphinvariants.embeddings import wl as wl_module
from graphinvariants.kernels import pairwise_kernels
from timing import benchmark_parser, median_time  # benchmarks/timing.py


def lexsort_within_rows(values, row, n_values):
    return values[np.lexsort((values, row))]


def every_column(rows):
    return list(rows.T)


def main():
    args = benchmark_parser(__doc__, repeat=5, graphs=300, density=0.5).parse_args()
    rng = np.random.default_rng(0)
    sizes = rng.integers(30, 251, args.graphs)
    graphs = [nx.gnp_random_graph(int(n), args.density, seed=int(s))
              for n, s in zip(sizes, rng.integers(0, 2**31, args.graphs))]
    batch = gi.as_graph_batch(graphs)
    functional = WeisfeilerLehman(n_iter=5)
    ours = wl_module.sort_within_rows, counts_module._packed_columns
    try:
        wl_module.sort_within_rows, counts_module._packed_columns = lexsort_within_rows, every_column
        plain = median_time(lambda: functional.embed(batch), args.repeat)
        plain_embedding = functional.embed(batch)
    finally:
        wl_module.sort_within_rows, counts_module._packed_columns = ours
    one_key = median_time(lambda: functional.embed(batch), args.repeat)
    embedding = functional.embed(batch)
    same = np.array_equal(pairwise_kernels(embedding, functional=functional),
                          pairwise_kernels(plain_embedding, functional=functional))
    edges = batch.matrix.nnz // 2
    print(f"{args.graphs} graphs G(n, {args.density:g}), {batch.n_nodes} nodes, {edges} edges; WL embedding, "
          f"5 rounds, median of {args.repeat}: plain lexsorts {plain:.2f} s, ours {one_key:.2f} s, "
          f"ratio {plain / one_key:.1f} x; Gram matrices {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
