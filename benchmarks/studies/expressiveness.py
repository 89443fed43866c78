"""Which graphs can each kernel tell apart? The expressiveness suite, in one command.

The tables and figure of docs/expressiveness.rst, which says what each column counts. From the project root::

    python benchmarks/studies/expressiveness.py [--kernels NAME ...] [--skip-8] [--all-pairs]
    python benchmarks/studies/expressiveness.py --cfi-only --kernels fwl2
    python benchmarks/studies/expressiveness.py --cfi-random 100      # random CFI pairs of BREC's kind
"""

import warnings
from itertools import combinations
from pathlib import Path

import networkx as nx
import numpy as np
from networkx.algorithms.approximation import treewidth_min_fill_in

import graphinvariants as gi
from graphinvariants.datasets import cfi_pair, csl_graphs, srg25_graphs, strongly_regular_pair
from graphinvariants.embeddings import Combination, NodeCount
from graphinvariants.kernels import kernel_row_chunks, make_functional, paired_kernels
from runner import clock, option, parse, parser, pyplot, timed
from benchmarks.common import grakel_graphs, peer

THRESHOLD = 1 - 1e-12

DEFAULT_KERNELS = ["power", "histogram:k=9", "wl", "meanmap", "power*histogram*wl:histogram__k=9", "closed_histogram",
                   "closed_histogram*size", "wl_closed", "power*closed_histogram*wl", "rooted_subgraph:radius=1",
                   "rooted_subgraph", "fwl2", "fwl2:n_iter=16", "fwl2_ir:n_iter=16", "lwl2",
                   "lwl2:radius=None,n_iter=16"]

#: Base graphs of the CFI pairs: name -> (graph, its treewidth).
CFI_BASES = {"C3": (nx.cycle_graph(3), 2), "C6": (nx.cycle_graph(6), 2), "C12": (nx.cycle_graph(12), 2),
             "ladder10": (nx.ladder_graph(10), 2), "K4": (nx.complete_graph(4), 3),
             "K33": (nx.complete_bipartite_graph(3, 3), 3), "prism": (nx.circular_ladder_graph(3), 3),
             "cube": (nx.hypercube_graph(3), 3), "K5": (nx.complete_graph(5), 4), "Petersen": (nx.petersen_graph(), 4)}

#: Counts of graphs on 8 nodes (OEIS A000088 and A001349).
N_GRAPHS_8, N_CONNECTED_8 = 12346, 11117


def atlas_graphs():
    """All 1,252 graphs of the atlas with 1 to 7 nodes (pairwise non-isomorphic)."""
    return nx.graph_atlas_g()[1:]


def graphs_on_8_nodes():
    """Every graph on 8 nodes, once per isomorphism class, in a reproducible order."""
    try:
        import pynauty
    except ImportError:
        raise ImportError("the 8-node graphs need pynauty: pip install 'graphinvariants[benchmark]' "
                          "(or --skip-8)") from None
    seen = {}
    for G in (G for G in nx.graph_atlas_g() if G.number_of_nodes() == 7):
        base = {v: list(G[v]) for v in range(7)}
        for mask in range(128):  # every 8-node graph minus a node is a 7-node graph
            adjacency = dict(base)
            adjacency[7] = [v for v in range(7) if mask >> v & 1]
            cert = pynauty.certificate(pynauty.Graph(8, adjacency_dict=adjacency))
            if cert not in seen:
                H = nx.Graph()
                H.add_nodes_from(range(8))
                H.add_edges_from((u, v) for u, nbrs in adjacency.items() for v in nbrs)
                seen[cert] = H
    graphs = [seen[c] for c in sorted(seen)]
    connected = sum(nx.is_connected(G) for G in graphs)
    if (len(graphs), connected) != (N_GRAPHS_8, N_CONNECTED_8):
        raise RuntimeError(f"built {len(graphs)} graphs ({connected} connected), expected {N_GRAPHS_8} "
                           f"({N_CONNECTED_8})")
    return graphs


def wl_hash_confusions(graphs):
    """Pairs with equal 1-WL hashes (5 rounds), all graphs pairwise non-isomorphic."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # NetworkX notes a change of hashes in 3.5
        hashes = [nx.weisfeiler_lehman_graph_hash(G, iterations=5) for G in graphs]
    return len(_candidate_pairs(hashes))


def _candidate_pairs(keys):
    groups = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    pairs = [p for g in groups.values() for p in combinations(g, 2)]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def gram_confusions(graphs, functional, n_rows=1000):
    """Pairs ``i < j`` with K >= THRESHOLD, from the kernel matrix in blocks of rows."""
    total = 0
    for rows, block in kernel_row_chunks(graphs, functional=functional, n_rows=n_rows):
        i = np.arange(rows.start, rows.stop) if isinstance(rows, slice) else np.asarray(rows)
        upper = np.arange(block.shape[1])[None, :] > i[:, None]
        total += int(np.count_nonzero((block >= THRESHOLD) & upper))
    return total


def hashed_confusions(graphs, functional, all_pairs=False):
    """Confused pairs of graphs that all have the same number of nodes, hashing the count vectors of the count members
    and evaluating the others on candidates only."""
    product = isinstance(functional, Combination) and functional.operation == "*"
    members = functional.functionals if product else (functional,)
    counting = [f for f in members if hasattr(f, "merge") or isinstance(f, NodeCount)]
    others = [f for f in members if f not in counting]
    if not counting:
        return gram_confusions(graphs, functional) if all_pairs else None
    keys = [() for _ in graphs]
    batch = counting[0].graph_batch(graphs)
    for f in counting:
        if isinstance(f, NodeCount):
            continue  # all graphs have one size: the factor is 1
        counts = f.embed(batch).counts.tocsr()
        counts.sort_indices()
        keys = [
            key + (counts.indices[counts.indptr[g] : counts.indptr[g + 1]].tobytes(),
                   counts.data[counts.indptr[g] : counts.indptr[g + 1]].tobytes())
            for g, key in enumerate(keys)
        ]
    pairs = _candidate_pairs(keys)
    if not others or not len(pairs):
        return len(pairs)
    values = np.ones(len(pairs))
    for f in others:
        values *= paired_kernels([graphs[i] for i in pairs[:, 0]], [graphs[j] for j in pairs[:, 1]], functional=f)
    return int(np.count_nonzero(values >= THRESHOLD))


def grakel_wl_matrix(graphs):
    grakel = peer("grakel")
    with np.errstate(all="ignore"):
        K = grakel.WeisfeilerLehman(n_iter=5, base_graph_kernel=grakel.VertexHistogram, normalize=True).fit_transform(
            grakel_graphs(graphs, labels=None))  # degree labels
    return np.nan_to_num(K, nan=0.0)


def separates(name, pairs):
    """Whether kernel ``name`` separates each pair (K < THRESHOLD), and the seconds of each pair's matrix."""
    gi.kernel_matrix(list(cfi_pair(nx.cycle_graph(3))), kernel=name)  # compile (numba) before timing
    timings = [timed(lambda: gi.kernel_matrix([G, H], kernel=name)) for G, H in pairs]
    return np.array([K[0, 1] < THRESHOLD for _, K in timings]), [seconds for (seconds,), _ in timings]


def cfi_separations(name):
    """``(the bases of CFI_BASES whose CFI pair ``name`` separates, largest seconds per pair)``."""
    separated, seconds = separates(name, [cfi_pair(nx.convert_node_labels_to_integers(B), seed=0)
                                          for B, _ in CFI_BASES.values()])
    return [base for base, s in zip(CFI_BASES, separated) if s], max(seconds)


def confused(K):
    """Pairs ``i < j`` of a kernel matrix with K >= THRESHOLD."""
    return int(np.count_nonzero(np.triu(K >= THRESHOLD, 1)))


def csl_accuracy(K, y, n_repeats):
    return gi.evaluate_kernel(K, y, n_repeats=n_repeats, n_folds=10, seed=0).mean


def main(argv=None):
    args = parse(parser(__doc__, kernels=DEFAULT_KERNELS, csl_repeats=10, cfi_random=0, edge_ratio=1.5, seed=0,
                        figure=str(Path(__file__).resolve().parents[2] / "docs" / "_static" / "expressiveness.png"),
                        skip_8=option(False, "leave out the 12,346 graphs on 8 nodes"),
                        all_pairs=option(False, "8 nodes: evaluate kernels without a count member on all pairs"),
                        cfi_only=option(False, "only the CFI column, for --kernels")), argv)
    if args.cfi_random:
        return cfi_random(args)
    if args.cfi_only:
        print("CFI bases: " + ", ".join(f"{b} (treewidth {w})" for b, (_, w) in CFI_BASES.items()))
        for name in args.kernels:
            separated, largest = cfi_separations(name)
            print(f"  {name}: {len(separated)} of {len(CFI_BASES)} ({', '.join(separated) or 'none'}); "
                  f"largest {largest:.2f} s per pair")
        return

    atlas = atlas_graphs()
    print(f"graph atlas: {len(atlas)} graphs, {len(atlas) * (len(atlas) - 1) // 2} pairs, none isomorphic")
    eight = None
    if not args.skip_8:
        (spent,), eight = timed(graphs_on_8_nodes)
        print(f"8-node graphs: {len(eight)} ({N_CONNECTED_8} connected), built in {spent:.1f} s")
    csl, y = csl_graphs(seed=0)
    shrikhande, rook = strongly_regular_pair()
    srg25 = srg25_graphs()

    rows = []
    start = clock()
    rows.append(("1-WL test (WL hash, 5 rounds)", wl_hash_confusions(atlas),
                 wl_hash_confusions(eight) if eight else None,
                 csl_accuracy(gi.kernel_matrix(csl, kernel="wl"), y, args.csl_repeats),
                 gi.kernel_matrix([shrikhande], [rook], kernel="wl")[0, 0], wl_hash_confusions(srg25), None))
    print(f"  {rows[-1][0]}: {clock() - start:.1f} s")
    start = clock()
    try:
        K_atlas, K_csl, K_srg, K_srg25 = [grakel_wl_matrix(g) for g in (atlas, csl, [shrikhande, rook], srg25)]
    except NotImplementedError:  # GraKeL is not installed: its row is left out
        pass
    else:
        rows.append(("GraKeL WeisfeilerLehman (5 rounds)", confused(K_atlas), None,
                     csl_accuracy(K_csl, y, args.csl_repeats), K_srg[0, 1], confused(K_srg25), None))
        print(f"  {rows[-1][0]}: {clock() - start:.1f} s")
    for name in args.kernels:
        start = clock()
        functional = make_functional(name)
        atlas_count = gram_confusions(atlas, functional)
        eight_count = hashed_confusions(eight, functional, args.all_pairs) if eight else None
        K_csl = gi.kernel_matrix(csl, kernel=name)
        separated, largest = cfi_separations(name)
        rows.append((name, atlas_count, eight_count, csl_accuracy(K_csl, y, args.csl_repeats),
                     gi.kernel_matrix([shrikhande], [rook], kernel=name)[0, 0],
                     confused(gi.kernel_matrix(srg25, kernel=name)),
                     f"{len(separated)} ({largest:.2f} s)"))
        print(f"  {name}: {clock() - start:.1f} s")

    print()
    print_table(rows, args.csl_repeats)
    if args.figure:
        draw(rows, args.figure)
        print(f"\nfigure: {args.figure}")


def print_table(rows, csl_repeats):
    header = ("kernel", "atlas (<= 7 nodes)", "8 nodes", f"CSL accuracy ({csl_repeats} x 10-fold)",
              "K(Shrikhande, rook)", "srg(25,12,5,6) pairs", f"CFI separated (of {len(CFI_BASES)})")
    cells = [header] + [
        (f"``{name}``" if not name[0].isupper() and "1-WL" not in name else name,
         str(a), "--" if e is None else str(e), f"{100 * acc:.1f}%", f"{srg:.12f}", str(srg25), cfi or "--")
        for name, a, e, acc, srg, srg25, cfi in rows
    ]
    print_rst(cells)


def draw(rows, path):
    plt = pyplot()
    names = [name.split(":")[0].replace(" (WL hash, 5 rounds)", "").replace("GraKeL WeisfeilerLehman (5 rounds)",
                                                                             "GraKeL WL")
             for name, *_ in rows]
    fig, axes = plt.subplots(1, 2, figsize=(8, 0.3 * len(rows) + 1.2), sharey=True, dpi=80)
    y = np.arange(len(rows))
    atlas = np.array([r[1] for r in rows], dtype=float)
    eight = np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=float)
    axes[0].barh(y - 0.2, atlas + 1, height=0.4, label="atlas, 1-7 nodes")
    axes[0].barh(y + 0.2, eight + 1, height=0.4, label="8 nodes")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("confused non-isomorphic pairs + 1")
    axes[0].legend(fontsize=7, loc="lower right")
    axes[1].barh(y, [100 * r[3] for r in rows], height=0.6, color="tab:green")
    axes[1].axvline(10, color="grey", lw=0.8, ls="--")
    axes[1].set_xlabel("CSL accuracy (%)")
    axes[1].set_xlim(0, 100)
    axes[0].set_yticks(y, names, fontsize=7)
    axes[0].invert_yaxis()
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


#: Published separations on BREC's 100 CFI pairs (Wang and Zhang 2023, table 2).
PUBLISHED = {"3-WL": 60, "PPGN": 23, "I²-GNN": 21, "KP-GNN": 11, "GSN": 0}
CFI_MEMBERS = ["wl", "shortest_path", "rooted_subgraph", "lwl2:n_iter=16", "lwl2:radius=None,n_iter=16",
               "fwl2", "fwl2:n_iter=16", "fwl2_ir", "fwl2_ir:n_iter=16"]


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


def cfi_random(args):
    """The random CFI set (``--cfi-random``): one reStructuredText table."""
    members = CFI_MEMBERS if args.kernels == DEFAULT_KERNELS else args.kernels
    bases = random_bases(args.cfi_random, args.seed, args.edge_ratio)
    pairs = [cfi_pair(B, seed=args.seed * 10**6 + i) for i, B in enumerate(bases)]
    copies = [cfi_pair(B, seed=args.seed * 10**6 + 10**5 + i)[0] for i, B in enumerate(bases)]
    width = np.array([treewidth_min_fill_in(B)[0] for B in bases])
    widths = np.unique(width)
    nodes = np.array([G.number_of_nodes() for G, _ in pairs])
    print(f"{len(pairs)} CFI pairs, {nodes.min()} to {nodes.max()} nodes (median {int(np.median(nodes))}); base "
          "treewidth bound: " + ", ".join(f"{w}: {int(np.sum(width == w))}" for w in widths))
    rows = []
    for name in members:
        separated, seconds = separates(name, pairs)
        false = sum(int(gi.kernel_matrix([G], [C], kernel=name)[0, 0] < THRESHOLD) for (G, _), C in zip(pairs, copies))
        by_width = ", ".join(f"{int(np.sum(separated & (width == w)))}/{int(np.sum(width == w))}" for w in widths)
        rows.append((f"``{name}``", str(int(separated.sum())), str(false), f"{np.median(seconds):.3f}",
                     f"{np.max(seconds):.2f}", by_width))
        print(f"  {name}: {rows[-1][1]} separated, {false} false, median {rows[-1][3]} s, largest {rows[-1][4]} s "
              f"per pair; by treewidth bound {by_width}")
    header = ("member", f"separated (of {len(pairs)})", "copies separated", "median s/pair", "largest s/pair",
              "by treewidth bound " + "/".join(str(w) for w in widths))
    print_rst([header] + rows)
    print("published on BREC's 100 CFI pairs: " + ", ".join(f"{k} {v}" for k, v in PUBLISHED.items()))


def print_rst(cells):
    """A reStructuredText table of rows of strings, the first the header."""
    widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
    line = "  ".join("=" * w for w in widths)
    print(line)
    print("  ".join(h.ljust(w) for h, w in zip(cells[0], widths)))
    print(line)
    for row in cells[1:]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    print(line)


if __name__ == "__main__":
    main()
