"""NetworkX's own functions through the graphinvariants backend against NetworkX (issue 45).

Run from the project root, after ``pip install -e .`` (the entry points), alone on
the machine::

    flock /tmp/gi-bench.lock python benchmarks/bench_networkx_backend.py [--repeat 5] [--nx-repeat 3] [--wl-only]

Every call goes through NetworkX's dispatcher: ``nx.f(G, ..., backend="graphinvariants")``
against ``nx.f(G, ..., backend="networkx")``, with the conversion cache off
(``nx.config.cache_converted_graphs = False``), so each backend call converts the
NetworkX graph again: the figures include the conversion. Each answer is checked
equal to NetworkX's. Medians of ``--repeat`` runs (ours) and ``--nx-repeat`` runs
(NetworkX's; one run for ``number_of_walks``, whose NetworkX calls take tens of
seconds), after one warm-up call (whose time, the compiled BLAKE2b loaded from
numba's cache included, is printed as "first call").

1. ``weisfeiler_lehman_graph_hash(G)`` and ``weisfeiler_lehman_subgraph_hashes(G)`` on
   a Barabasi-Albert graph of 2 x 10^5 nodes (m=3; target: at least 5x NetworkX);
   ``--wl-only`` runs these two rows only;
2. ``weisfeiler_lehman_graph_hash(G, node_attr="label")`` on every graph of the TU set
   DD taken as one graph (334,925 nodes, amino-acid labels: protein structures);
3. ``number_of_walks(G, 3)`` on a Barabasi-Albert graph of 1,500 nodes (m=3; target:
   at least 5x) and on the DD protein nearest 1,500 nodes;
4. small graphs: ``weisfeiler_lehman_graph_hash(G, node_attr="label")`` over the 4,110
   graphs of NCI1 (30 nodes on average), total time, the backend forced with
   ``backend=`` (``should_run`` leaves graphs this small to NetworkX when the backend
   is chosen by ``backend_priority``), and the crossover on Barabasi-Albert graphs of
   30 to 300 nodes (``SMALL_GRAPH`` in ``graphinvariants/networkx_backend/interface.py``).
"""

import argparse
import sys
import warnings
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import graphinvariants as gi  # noqa: E402
from timing import median_and_result, timed_once  # noqa: E402  (benchmarks/timing.py)

warnings.simplefilter("ignore", UserWarning)  # NetworkX's notes on the 3.5 hash change


def compare(title, call, repeat, nx_repeat, target=None):
    _, _, first = timed_once(lambda: call("graphinvariants"))
    ours, mine = median_and_result(lambda: call("graphinvariants"), repeat)
    theirs, expected = median_and_result(lambda: call("networkx"), nx_repeat)
    assert mine == expected, title
    goal = f"  (target >= {target}x: {'met' if theirs / ours >= target else 'MISSED'})" if target else ""
    print(f"{title:62s} backend {ours:8.3f} s  NetworkX {theirs:8.3f} s  ratio {theirs / ours:6.1f}x"
          f"  first call {first:6.3f} s{goal}", flush=True)


def one_graph(graphs):
    """The graphs as one disjoint union (nodes renumbered 0..n-1), labels kept."""
    return nx.convert_node_labels_to_integers(nx.disjoint_union_all(graphs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nx-repeat", type=int, default=3)
    parser.add_argument("--wl-only", action="store_true", help="only the two rows on BA 2e5 nodes")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    args = parser.parse_args()
    if "graphinvariants" not in nx.utils.backends.backends:
        sys.exit("the networkx.backends entry point is not installed: pip install -e .")
    nx.config.cache_converted_graphs = False
    r, rn = args.repeat, args.nx_repeat
    print(f"NetworkX {nx.__version__}; medians of {r} (backend) and {rn} (NetworkX) runs; conversion included")

    G = nx.barabasi_albert_graph(200_000, 3, seed=1)
    compare("WL graph hash, BA 2e5 nodes (3 iterations)",
            lambda b: nx.weisfeiler_lehman_graph_hash(G, backend=b), r, rn, target=5)
    compare("WL subgraph hashes, BA 2e5 nodes (3 iterations)",
            lambda b: nx.weisfeiler_lehman_subgraph_hashes(G, backend=b), r, rn)
    del G
    if args.wl_only:
        return

    dd = gi.load_tu("DD", data_home=args.data, download=False).graphs
    D = one_graph(dd)
    compare(f"WL graph hash, DD as one graph ({len(D)} nodes, node_attr)",
            lambda b: nx.weisfeiler_lehman_graph_hash(D, node_attr="label", backend=b), r, rn)
    del D

    B = nx.barabasi_albert_graph(1500, 3, seed=2)
    # NetworkX reads the n^2 entries of the power one at a time (tens of seconds): one run
    compare("number_of_walks(G, 3), BA 1,500 nodes", lambda b: nx.number_of_walks(B, 3, backend=b), r, 1, target=5)
    P = nx.convert_node_labels_to_integers(min(dd, key=lambda g: abs(len(g) - 1500)))
    compare(f"number_of_walks(G, 3), DD protein ({len(P)} nodes)", lambda b: nx.number_of_walks(P, 3, backend=b), r, 1)

    for n in (30, 100, 300):
        S = nx.barabasi_albert_graph(n, 2, seed=n)
        compare(f"small graphs: WL graph hash, BA {n} nodes",
                lambda b: nx.weisfeiler_lehman_graph_hash(S, backend=b), 10 * r, 10 * rn)
    for n in (8, 16, 40):
        S = nx.barabasi_albert_graph(n, 2, seed=n)
        compare(f"small graphs: number_of_walks(G, 3), BA {n} nodes",
                lambda b: nx.number_of_walks(S, 3, backend=b), 10 * r, 10 * rn)
    nci = gi.load_tu("NCI1", data_home=args.data, download=False).graphs
    compare(f"WL graph hash over NCI1's {len(nci)} small graphs (node_attr)",
            lambda b: [nx.weisfeiler_lehman_graph_hash(g, node_attr="label", backend=b) for g in nci], r, rn)


if __name__ == "__main__":
    main()
