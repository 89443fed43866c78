"""Shortest-path Gram matrices: ours against GraKeL's ShortestPath, same run.

Run from the project root (GraKeL is the ``[baselines]`` extra)::

    flock /tmp/bench.lock python benchmarks/bench_shortest_path.py [--datasets NCI1 ENZYMES] [--max-graphs N]

For each data set, with its node labels:

* GraKeL: ``ShortestPath(with_labels=True, normalize=True).fit_transform`` on
  ``grakel.Graph`` objects built beforehand (not timed) from an edge dictionary that
  lists every node, timed ``--grakel-repeat`` times (median);
* ours: ``gi.kernel_matrix(dataset, kernel="shortest_path", node_label="label",
  n_jobs=1)`` from the loaded data set (the distances, features and matrix included),
  median of ``--repeat`` runs (the first call of the process also imports numba and
  loads its compiled search: printed apart); and from the list of NetworkX graphs
  (conversion included);

both on one thread (BLAS limited to one for the whole run). The script prints both
times, wall-clock and CPU (``time.process_time``: on a shared machine the wall clock
also counts waits for a core), their ratios and the largest absolute difference of the
two matrices. Every graph of NCI1 and ENZYMES has an edge, so the definitions coincide
on them (see :mod:`graphinvariants.embeddings.shortest_path`).
"""


import numpy as np
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

import graphinvariants as gi
from timing import benchmark_parser, require_grakel, wall_and_cpu  # benchmarks/timing.py


def grakel_graphs(graphs):
    """GraKeL graphs with every node a key of the edge dictionary."""
    from grakel import Graph

    return [Graph({v: {u: 1 for u in G[v]} for v in G}, node_labels={v: G.nodes[v]["label"] for v in G})
            for G in graphs]


FIRST = {}


def compare(name, args):
    from grakel import ShortestPath

    ds = gi.load_tu(name, data_home=args.data, download=False)
    if args.max_graphs is not None and args.max_graphs < len(ds):
        ds = ds[: args.max_graphs]
    networkx_graphs = list(ds)
    graphs = grakel_graphs(networkx_graphs)
    expected = None

    def grakel():
        nonlocal expected
        expected = ShortestPath(with_labels=True, normalize=True).fit_transform(graphs)

    def ours():
        return gi.kernel_matrix(ds, kernel="shortest_path", node_label="label", n_jobs=1)

    wall_grakel, cpu_grakel = wall_and_cpu(grakel, args.grakel_repeat)
    wall_ours, cpu_ours = wall_and_cpu(ours, args.repeat, first=FIRST, name=name)
    wall_nx, _ = wall_and_cpu(lambda: gi.kernel_matrix(networkx_graphs, kernel="shortest_path", node_label="label",
                                                       n_jobs=1), args.repeat)
    difference = float(np.abs(ours() - expected).max())
    print(f"  {name:<8} {len(ds):5d} graphs   GraKeL {wall_grakel:7.2f} s (CPU {cpu_grakel:6.2f} s)   "
          f"ours {wall_ours:6.3f} s (CPU {cpu_ours:6.3f} s)   ratio {wall_grakel / wall_ours:4.0f}x "
          f"(CPU {cpu_grakel / cpu_ours:4.0f}x)   max |difference| {difference:.1e}")
    print(f"           ours from NetworkX graphs (conversion included) {wall_nx:6.3f} s: "
          f"ratio {wall_grakel / wall_nx:4.0f}x; ours, first call {FIRST[name]:6.3f} s "
          "(the first data set's includes importing numba and loading its search, once per process)")


def main():
    parser = benchmark_parser(__doc__, repeat=5, data=True)
    parser.add_argument("--datasets", nargs="+", default=["NCI1", "ENZYMES"])
    parser.add_argument("--max-graphs", type=int, default=None)
    parser.add_argument("--grakel-repeat", type=int, default=1)
    args = parser.parse_args()
    require_grakel()
    print("Shortest-path Gram matrix, node labels; one thread, our distances and features included")
    with threadpool_limits(limits=1):
        for name in args.datasets:
            compare(name, args)


if __name__ == "__main__":
    main()
