"""``graphinvariants demo``: invariants and kernel values of a few NetworkX and
igraph graphs made on the spot."""

import numpy as np

from ._common import command_progress

__all__ = []


def _demo_graphs(seed):
    import igraph as ig
    import networkx as nx

    return {
        "karate (networkx)": nx.karate_club_graph(),
        "karate (igraph)": ig.Graph.Famous("Zachary"),
        "petersen (networkx)": nx.petersen_graph(),
        "path 20 (networkx)": nx.path_graph(20),
        "star 19 (networkx)": nx.star_graph(19),
        "Erdos-Renyi 50 (networkx)": nx.gnp_random_graph(50, 0.1, seed=seed),
        "Barabasi-Albert 50 (igraph)": ig.Graph.from_networkx(nx.barabasi_albert_graph(50, 2, seed=seed)),
    }


def run(args):
    import graphinvariants as gi

    with command_progress(args, 2, "demo") as bar:
        graphs = _demo_graphs(args.seed)
        names = list(graphs)
        bar.set_postfix_str("invariants")
        invariants = gi.batch_power_invariants(graphs.values(), k=args.k)
        bar.update(1)
        bar.set_postfix_str("kernel matrix")
        K = gi.power_kernel_matrix(invariants, k=args.k)
        bar.update(1)
    width = max(map(len, names))
    print(f"Power-summary means (k={args.k}):")
    for name, inv in zip(names, invariants):
        print(f"  {name:<{width}}  n={inv.n_nodes:<4d} mean={np.array2string(inv.mean, precision=4)}")
    print("\nPower kernel matrix:")
    for i, name in enumerate(names):
        print(f"  {name:<{width}}  " + " ".join(f"{v:6.4f}" for v in K[i]))
    print("\nThe two karate graphs (NetworkX and igraph, different node order) give "
          f"K = {K[0, 1]:.12f}.")
    return 0
