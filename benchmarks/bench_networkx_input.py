"""Lists of NetworkX graphs against loaded data sets, and against GraKeL (issue 31).

Run from the project root (GraKeL is the ``[baselines]`` extra)::

    flock /tmp/bench.lock python benchmarks/bench_networkx_input.py [--data ../shared/data/TU]

On NCI1 (4,110 graphs, node labels), the NetworkX graphs made by the data set
(``ds.graphs``, not timed), one thread (BLAS limited to one, ``n_jobs=1``):

1. **Batch from the list**: :func:`graphinvariants.as_graph_batch` (one pass over the
   graphs) against 0.2's builder, reproduced here (a canonical CSR per graph from its
   edge list, labels read per node, the blocks stacked), NetworkX and igraph lists;
   microseconds per graph, medians of ``--repeat`` runs. The two batches are checked
   equal.
2. **Gram matrix from the list against the loaded data set**: ``kernel_matrix`` of the
   list (conversion included) over ``kernel_matrix`` of the TUDataset, for ``wl``,
   ``power`` and ``shortest_path``, medians of ``--repeat`` runs, interleaved (target:
   1.3x or less for ``wl`` and ``power``); beside it, the list through 0.2's builder
   (the before figure).
3. **shortest_path against GraKeL from NetworkX lists, in fresh processes**: each run is
   a new Python process that loads NCI1 and makes its NetworkX graphs (not timed), then
   times its first call: ours ``kernel_matrix(graphs, kernel="shortest_path",
   node_label="label")`` (conversion, numba's import and its cached search included);
   GraKeL's ``ShortestPath(with_labels=True, normalize=True).fit_transform`` of
   ``grakel.graph_from_networkx(graphs, node_labels_tag="label")`` (its conversion
   included). Medians of ``--fresh`` runs each, interleaved (target: GraKeL's time at
   least 20x ours). The matrices are compared (largest absolute difference).
"""

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
os.environ.update(ONE_THREAD)  # before numpy loads BLAS in this process, and for the children

import graphinvariants as gi  # noqa: E402
from graphinvariants.graphs.adjacency import networkx_csr  # noqa: E402
from graphinvariants.graphs.attributes import label_array, read_labels  # noqa: E402
from graphinvariants.graphs.csr import stack_csr  # noqa: E402
from timing import interleaved_medians  # noqa: E402 - benchmarks/timing.py

CHILD = r"""
import json, sys, time, warnings
import numpy as np
import graphinvariants as gi
name, home, who, out = sys.argv[1:5]
graphs = gi.load_tu(name, data_home=home, download=False).graphs
start = time.perf_counter()
if who == "ours":
    K = gi.kernel_matrix(graphs, kernel="shortest_path", node_label="label", n_jobs=1)
else:
    warnings.simplefilter("ignore")
    import grakel
    K = grakel.ShortestPath(with_labels=True, normalize=True).fit_transform(
        grakel.graph_from_networkx(graphs, node_labels_tag="label"))
seconds = time.perf_counter() - start
np.save(out, K)
print(json.dumps(seconds))
"""


def per_graph_batch(graphs):
    """0.2's builder for a NetworkX list with node labels: a CSR per graph, stacked."""
    parts, sizes, labels = [], [], []
    for G in graphs:
        A = networkx_csr(G, None)[0]
        labels.extend(read_labels(G, "label"))
        parts.append((A.indptr, A.indices, A.data))
        sizes.append(A.shape[0])
    sizes = np.array(sizes, dtype=np.int64)
    return gi.GraphBatch(stack_csr(parts, sizes), np.concatenate(([0], np.cumsum(sizes))),
                         node_labels=label_array(labels))


def fresh_run(who, args, out):
    result = subprocess.run([sys.executable, "-c", CHILD, "NCI1", args.data, who, out], cwd=ROOT, check=True,
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(result.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "TU"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--fresh", type=int, default=3, help="fresh processes each for part 3 (default: 3)")
    args = parser.parse_args()

    import igraph as ig

    ds = gi.load_tu("NCI1", data_home=args.data, download=False)
    graphs = ds.graphs
    igraphs = [ig.Graph.from_networkx(G) for G in graphs]
    n = len(graphs)
    print(f"NCI1: {n} graphs, {ds.n_nodes} nodes; one thread; medians of {args.repeat} runs, interleaved")

    new, old = gi.as_graph_batch(graphs, node_label="label"), per_graph_batch(graphs)
    assert (new.matrix != old.matrix).nnz == 0 and np.array_equal(new.node_labels, old.node_labels)
    t = interleaved_medians({"one pass": lambda: gi.as_graph_batch(graphs, node_label="label"),
                 "igraph": lambda: gi.as_graph_batch(igraphs, node_label="label"),
                 "0.2": lambda: per_graph_batch(graphs)}, args.repeat)
    us = {name: 1e6 * value / n for name, value in t.items()}
    print(f"1. batch from the NetworkX list: one pass {us['one pass']:.0f} us/graph, 0.2's per-graph builder "
          f"{us['0.2']:.0f} us/graph ({us['0.2'] / us['one pass']:.1f}x); from igraph {us['igraph']:.0f} us/graph")

    print("2. Gram matrix from the NetworkX list (conversion included) / from the loaded TUDataset:")
    gi.kernel_matrix(ds[:50], kernel="shortest_path", node_label="label", n_jobs=1)  # numba loaded before timing
    for kernel, params in (("wl", {"node_label": "label"}), ("power", {}),
                           ("shortest_path", {"node_label": "label"})):
        t = interleaved_medians({"list": lambda: gi.kernel_matrix(graphs, kernel=kernel, n_jobs=1, **params),
                     "dataset": lambda: gi.kernel_matrix(ds, kernel=kernel, n_jobs=1, **params),
                     "0.2": lambda: gi.kernel_matrix(per_graph_batch(graphs), kernel=kernel, n_jobs=1, **params)},
                    args.repeat)
        print(f"   {kernel:<14s} list {t['list']:6.3f} s   data set {t['dataset']:6.3f} s   "
              f"ratio {t['list'] / t['dataset']:.2f}x   (list through 0.2's builder {t['0.2']:6.3f} s, "
              f"{t['0.2'] / t['dataset']:.2f}x)")

    try:
        import grakel  # noqa: F401
    except ImportError:
        print('3. skipped: GraKeL is not installed (pip install "graphinvariants[baselines]")')
        return
    out = {who: str(Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_networkx_input_{os.getpid()}_{who}.npy")
           for who in ("ours", "grakel")}
    times = {"ours": [], "grakel": []}
    for _, who in itertools.product(range(args.fresh), times):
        times[who].append(fresh_run(who, args, out[who]))
    difference = float(np.abs(np.load(out["ours"]) - np.load(out["grakel"])).max())
    for path in out.values():
        os.unlink(path)
    ours, theirs = statistics.median(times["ours"]), statistics.median(times["grakel"])
    print(f"3. shortest_path from the NetworkX list, first call of a fresh process (medians of {args.fresh}): "
          f"ours {ours:.3f} s, GraKeL {theirs:.2f} s: GraKeL / ours {theirs / ours:.1f}x; "
          f"max |difference| {difference:.1e}")


if __name__ == "__main__":
    main()
