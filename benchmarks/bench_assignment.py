"""WL-OA Gram matrices: ours against GraKeL's WeisfeilerLehmanOptimalAssignment, same run.

Run from the project root (GraKeL is the ``[baselines]`` extra)::

    python benchmarks/bench_assignment.py [--datasets MUTAG ENZYMES] [--max-graphs N]

For each data set, with its node labels and 5 rounds (``--n-iter``):

* GraKeL: ``WeisfeilerLehmanOptimalAssignment(n_iter, normalize=True).fit_transform``
  on ``grakel.Graph`` objects built beforehand (not timed) from an edge dictionary that
  lists every node, timed once (it loops over pairs in Python; ``--grakel-repeat``);
* ours: ``gi.kernel_matrix(dataset, kernel="wloa", node_label="label", n_jobs=1)``
  from the loaded data set (embedding included), median of ``--repeat`` runs;

both on one thread: BLAS is limited to one thread for the whole run (GraKeL's pair loop
uses none; ours multiplies a dense block, and on a machine busy with other jobs a
second BLAS thread only waits for a core). The script prints both times, wall-clock
and CPU (``time.process_time``: on a shared machine the wall clock also counts the
waits for a core), their ratios and the largest absolute difference of the two
matrices. ``--max-graphs N`` takes the first N graphs of each data set (for NCI1,
whose 4,110 graphs would keep GraKeL busy for an hour or more). The times of the
two other assignment members on the same graphs are printed for reference.
"""


import numpy as np
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

import graphinvariants as gi
from timing import benchmark_parser, require_grakel, wall_and_cpu  # benchmarks/timing.py


def grakel_graphs(graphs):
    """GraKeL graphs with every node a key of the edge dictionary (an edge list would
    leave isolated nodes out of GraKeL's refinement)."""
    from grakel import Graph

    return [Graph({v: {u: 1 for u in G[v]} for v in G}, node_labels={v: G.nodes[v]["label"] for v in G}) for G in graphs]


def main():
    parser = benchmark_parser(__doc__, repeat=5, data=True)
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "ENZYMES"])
    parser.add_argument("--n-iter", type=int, default=5)
    parser.add_argument("--max-graphs", type=int, default=None)
    parser.add_argument("--grakel-repeat", type=int, default=1)
    args = parser.parse_args()
    WeisfeilerLehmanOptimalAssignment = require_grakel().WeisfeilerLehmanOptimalAssignment

    print(f"WL-OA Gram matrix, node labels, n_iter={args.n_iter}; one thread, our embedding included")
    with threadpool_limits(limits=1):
        for name in args.datasets:
            compare(name, args, WeisfeilerLehmanOptimalAssignment)


def compare(name, args, reference):
    """Time GraKeL's class ``reference`` and ours on one data set; print one line."""
    ds = gi.load_tu(name, data_home=args.data, download=False)
    if args.max_graphs is not None and args.max_graphs < len(ds):
        ds = ds[: args.max_graphs]
    graphs = grakel_graphs(ds)
    expected = None

    def grakel():
        nonlocal expected
        expected = reference(n_iter=args.n_iter, normalize=True).fit_transform(graphs)

    def ours():
        return gi.kernel_matrix(ds, kernel="wloa", n_iter=args.n_iter, node_label="label", n_jobs=1)

    wall_grakel, cpu_grakel = wall_and_cpu(grakel, args.grakel_repeat)
    wall_ours, cpu_ours = wall_and_cpu(ours, args.repeat)
    difference = float(np.abs(ours() - expected).max())
    print(
        f"  {name:<8} {len(ds):5d} graphs   GraKeL {wall_grakel:7.2f} s (CPU {cpu_grakel:6.2f} s)   "
        f"ours {wall_ours:6.3f} s (CPU {cpu_ours:6.3f} s)   ratio {wall_grakel / wall_ours:4.0f}x "
        f"(CPU {cpu_grakel / cpu_ours:4.0f}x)   max |difference| {difference:.1e}"
    )
    for kernel, params in (("histogram_oa", {"k": 5}), ("labelled_histogram_oa", {"k": 3})):
        wall, cpu = wall_and_cpu(lambda: gi.kernel_matrix(ds, kernel=kernel, n_jobs=1, **params), args.repeat)
        label = kernel + "".join(f" {k}={v}" for k, v in params.items())
        print(f"           {label:<28} ours {wall:6.3f} s (CPU {cpu:6.3f} s)")


if __name__ == "__main__":
    main()
