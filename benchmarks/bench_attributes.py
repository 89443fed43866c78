"""The ``attributes`` member's Gram matrix against ``wl``'s and GraKeL's attributed kernels, same run.

Run from the project root (GraKeL is the ``[baselines]`` extra; numba the ``[fast]`` one)::

    flock /tmp/bench.lock python benchmarks/bench_attributes.py [--dataset ENZYMES] [--repeat 3]
                                                                [--numpy-graphs 150] [--max-graphs N] [--no-grakel]

On one data set with node attributes (ENZYMES: 600 graphs, 19,580 nodes, 18
attributes), BLAS limited to one thread for the whole run, each time the median of
``--repeat`` calls, wall-clock and CPU (``time.process_time``; on a shared machine the
wall clock also counts waits for a core):

* ``wl``: ``gi.kernel_matrix(dataset, kernel="wl")``, the reference of the ratio;
* ``attributes``: ``gi.kernel_matrix(dataset, kernel="attributes")``, the exact double
  sums (fit, profiles and matrix included), on one thread and with ``n_jobs=2``;
* ``attributes``, ``n_features=2000``: the random Fourier features, with the largest
  absolute difference from the exact matrix;
* the numpy path of the exact double sums (numba not used) on the first
  ``--numpy-graphs`` graphs, and the largest difference from the compiled path there
  (0: both give the same bits);
* GraKeL's ``PropagationAttr`` and ``GraphHopper(kernel_type="gaussian")`` on the same
  graphs (``normalize=True``), built beforehand from edge dictionaries (not timed);
  one call each. A kernel that fails prints its error.

The first call of the process (importing numba and loading the compiled code) is made
before the timings, on 100 graphs.
"""

import argparse
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

import graphinvariants as gi
from graphinvariants.embeddings import meanmap
from timing import wall_and_cpu  # benchmarks/timing.py

ROOT = Path(__file__).resolve().parents[1]


def grakel_graphs(ds):
    """GraKeL graphs whose node labels are the attribute vectors (every node listed)."""
    from grakel import Graph

    Z, offsets = ds.batch.node_attributes, ds.batch.offsets
    return [Graph({v: {u: 1 for u in G[v]} for v in G}, node_labels={v: Z[offsets[g] + v] for v in G})
            for g, G in enumerate(ds.graphs)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "TU"))
    parser.add_argument("--dataset", default="ENZYMES")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--numpy-graphs", type=int, default=150)
    parser.add_argument("--max-graphs", type=int, default=None, help="the first N graphs only")
    parser.add_argument("--no-grakel", action="store_true")
    args = parser.parse_args(argv)
    ds = gi.load_tu(args.dataset, data_home=args.data)
    if args.max_graphs is not None:
        ds = ds[: args.max_graphs]
    print(f"{args.dataset}: {len(ds)} graphs, {ds.batch.node_attributes.shape[0]} nodes, "
          f"{ds.batch.node_attributes.shape[1]} attributes; BLAS one thread; medians of {args.repeat}")
    with threadpool_limits(1):
        gi.kernel_matrix(ds[:100], kernel="attributes")  # the first call: numba imported, code loaded
        _, wl_wall, wl_cpu = wall_and_cpu(lambda: gi.kernel_matrix(ds, kernel="wl"), args.repeat, keep_result=True)
        print(f"  wl                         {wl_wall:7.3f} s (CPU {wl_cpu:6.3f} s)")
        rows = []
        K, wall, cpu = wall_and_cpu(lambda: gi.kernel_matrix(ds, kernel="attributes"), args.repeat, keep_result=True)
        rows.append(("attributes (exact)", wall, cpu, ""))
        _, wall, cpu = wall_and_cpu(lambda: gi.kernel_matrix(ds, kernel="attributes", n_jobs=2), args.repeat, keep_result=True)
        rows.append(("attributes (exact, n_jobs=2)", wall, cpu, ""))
        R, wall, cpu = wall_and_cpu(lambda: gi.kernel_matrix(ds, kernel="attributes", n_features=2000),
                                    args.repeat, keep_result=True)
        rows.append(("attributes (2000 features)", wall, cpu,
                     f"   max |K - exact| {np.abs(R - K).max():.2e}, mean {np.abs(R - K).mean():.2e}"))
        for name, wall, cpu, note in rows:
            print(f"  {name:<28} {wall:7.3f} s (CPU {cpu:6.3f} s)   ratio to wl {wall / wl_wall:5.1f}x "
                  f"(CPU {cpu / wl_cpu:5.1f}x){note}", flush=True)
        part, threshold = ds[: args.numpy_graphs], meanmap.COMPILED_PAIRS
        try:  # each path whatever the part's size
            meanmap.COMPILED_PAIRS = 0
            compiled, wall_c, _ = wall_and_cpu(lambda: gi.kernel_matrix(part, kernel="attributes"), 1, keep_result=True)
            meanmap.COMPILED_PAIRS = np.inf
            plain, wall_n, _ = wall_and_cpu(lambda: gi.kernel_matrix(part, kernel="attributes"), 1, keep_result=True)
        finally:
            meanmap.COMPILED_PAIRS = threshold
        print(f"  first {len(part)} graphs: numpy path {wall_n:.2f} s, compiled {wall_c:.2f} s "
              f"({wall_n / wall_c:.1f}x); max |difference| {np.abs(plain - compiled).max():.1e}", flush=True)
        if args.no_grakel:
            return
        from grakel.kernels import GraphHopper, PropagationAttr

        graphs = grakel_graphs(ds)
        for name, kernel in (("GraKeL PropagationAttr", lambda: PropagationAttr(normalize=True, random_state=0)),
                             ("GraKeL GraphHopper", lambda: GraphHopper(normalize=True, kernel_type="gaussian"))):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _, wall, cpu = wall_and_cpu(lambda kernel=kernel: kernel().fit_transform(graphs), 1, keep_result=True)
            except Exception as err:  # GraKeL's own failure, reported rather than hidden
                print(f"  {name:<28} failed: {type(err).__name__}: {str(err)[:100]}")
                continue
            print(f"  {name:<28} {wall:7.3f} s (CPU {cpu:6.3f} s)   ratio to wl {wall / wl_wall:5.1f}x "
                  f"(CPU {cpu / wl_cpu:5.1f}x)", flush=True)


if __name__ == "__main__":
    main()
