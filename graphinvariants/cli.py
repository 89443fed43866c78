"""Command line: ``graphinvariants demo | evaluate | perturb``."""

import argparse
import sys

import numpy as np

__all__ = ["main"]


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


def _cmd_demo(args):
    import graphinvariants as gi

    graphs = _demo_graphs(args.seed)
    names = list(graphs)
    invariants = gi.batch_power_invariants(graphs.values(), k=args.k)
    width = max(map(len, names))
    print(f"Power-summary means (k={args.k}):")
    for name, inv in zip(names, invariants):
        print(f"  {name:<{width}}  n={inv.n_nodes:<4d} mean={np.array2string(inv.mean, precision=4)}")
    K = gi.power_kernel_matrix(invariants, k=args.k)
    print("\nPower kernel matrix:")
    for i, name in enumerate(names):
        print(f"  {name:<{width}}  " + " ".join(f"{v:6.4f}" for v in K[i]))
    print("\nThe two karate graphs (NetworkX and igraph, different node order) give "
          f"K = {K[0, 1]:.12f}.")
    return 0


#: Table 1 of the paper: power kernel, mean accuracy (standard error) in percent.
PAPER_TABLE_1 = {"MUTAG": (83.22, 0.47), "ENZYMES": (34.60, 0.48), "NCI1": (70.73, 0.10), "NCI109": (70.15, 0.12)}


def _cmd_evaluate(args):
    import csv
    import json
    import platform
    import time
    from pathlib import Path

    import graphinvariants as gi

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.datasets:
        start = time.perf_counter()
        ds = gi.load_tu(name, data_home=args.data_home, download=not args.no_download)
        K = gi.power_kernel_matrix(ds, k=args.k, n_jobs=args.n_jobs)
        checkpoint = out / f"checkpoint-{name}-k{args.k}-reps{args.reps}-seed{args.seed}.jsonl"
        result = gi.evaluate_kernel(
            K, ds.y, n_repeats=args.reps, n_folds=args.folds, seed=args.seed, n_jobs=args.n_jobs,
            checkpoint=checkpoint, progress=not args.quiet,
        )
        seconds = time.perf_counter() - start
        paper = PAPER_TABLE_1.get(name, (float("nan"), float("nan")))
        row = {
            "dataset": name, "graphs": ds.n_graphs, "accuracy": round(100 * result.mean, 2),
            "stderr": round(100 * result.stderr, 2), "paper_accuracy": paper[0], "paper_stderr": paper[1],
            "seconds": round(seconds, 1), "fits": result.n_fits,
        }
        rows.append(row)
        with (out / f"evaluation-{name}.json").open("w") as fh:
            json.dump({**row, "k": args.k, "details": result.to_dict()}, fh, indent=1)
        print(f"{name}: {row['accuracy']:.2f} ({row['stderr']:.2f}) in {seconds:.0f} s", flush=True)
    print()
    print(f"{'data set':<10} {'ours':>14} {'paper':>14} {'diff':>7} {'time':>8}")
    for row in rows:
        diff = row["accuracy"] - row["paper_accuracy"]
        print(
            f"{row['dataset']:<10} {row['accuracy']:8.2f} ({row['stderr']:.2f}) "
            f"{row['paper_accuracy']:8.2f} ({row['paper_stderr']:.2f}) {diff:+7.2f} {row['seconds']:7.0f}s"
        )
    with (out / "evaluation.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with (out / "evaluation.json").open("w") as fh:
        json.dump({"machine": platform.platform(), "python": platform.python_version(), "k": args.k,
                   "reps": args.reps, "folds": args.folds, "seed": args.seed, "rows": rows}, fh, indent=1)
    print(f"\nwrote {out / 'evaluation.csv'} and {out / 'evaluation.json'}")
    return 0


def generated_families(n_graphs, seed):
    """Erdos-Renyi, Barabasi-Albert and Watts-Strogatz graphs of 20 to 200 nodes."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    sizes = {name: rng.integers(20, 201, n_graphs) for name in ("ER", "BA", "WS")}
    seeds = rng.integers(0, 2**31, (3, n_graphs))
    return {
        "Erdos-Renyi (p = 4/n)": [nx.gnp_random_graph(int(n), 4 / n, seed=int(s)) for n, s in zip(sizes["ER"], seeds[0])],
        "Barabasi-Albert (m = 2)": [nx.barabasi_albert_graph(int(n), 2, seed=int(s)) for n, s in zip(sizes["BA"], seeds[1])],
        "Watts-Strogatz (k = 4, p = 0.1)": [
            nx.watts_strogatz_graph(int(n), 4, 0.1, seed=int(s)) for n, s in zip(sizes["WS"], seeds[2])
        ],
    }


def _cmd_perturb(args):
    import json
    import time
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import graphinvariants as gi

    start = time.perf_counter()
    collections = {}
    for name in args.datasets:
        try:
            collections[name] = gi.load_tu(name, data_home=args.data_home, download=not args.no_download)
        except FileNotFoundError as err:
            print(f"graphinvariants: {err}", file=sys.stderr)
    if not collections:
        why = "no data set named" if not args.datasets else "no TU data found"
        print(f"{why}: running on graph families generated on the spot "
              f"({args.graphs} graphs each, 20 to 200 nodes, seed {args.seed})")
        collections = generated_families(args.graphs, args.seed)
    studies = {}
    for name, graphs in collections.items():
        studies[name] = gi.perturbation_study(
            graphs, n_graphs=args.graphs, n_steps=args.steps, k=args.k, kind=args.kind, seed=args.seed,
            n_jobs=args.n_jobs, name=name,
        )
    elapsed = time.perf_counter() - start
    print(f"{'collection':<32} " + " ".join(f"{t:>6d}" for t in (0, 1, 2, 5, 10, args.steps) if t <= args.steps))
    for name, study in studies.items():
        cols = [t for t in (0, 1, 2, 5, 10, args.steps) if t <= args.steps]
        print(f"{name:<32} " + " ".join(f"{study.mean[t]:6.3f}" for t in cols))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    gi.KernelDecayDisplay.from_studies(studies).plot(ax=ax)
    ax.set_title(f"power kernel (k={args.k}) after random {args.kind} steps, {args.graphs} graphs each")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    csv_path = out.with_suffix(".csv")
    with csv_path.open("w") as fh:
        fh.write("collection,step,mean,std,stderr\n")
        for name, study in studies.items():
            for t in study.steps:
                fh.write(f"\"{name}\",{t},{study.mean[t]:.10g},{study.std[t]:.10g},{study.stderr[t]:.10g}\n")
    with out.with_suffix(".json").open("w") as fh:
        json.dump({name: study.to_dict() for name, study in studies.items()}, fh)
    print(f"\n{sum(len(s.curves) for s in studies.values())} graphs x {args.steps} steps in {elapsed:.2f} s; "
          f"wrote {out}, {csv_path} and {out.with_suffix('.json')}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="graphinvariants", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="invariants and kernel of a few graphs made on the spot")
    demo.add_argument("--k", type=int, default=5, help="power iterations (default 5)")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_cmd_demo)

    ev = sub.add_parser("evaluate", help="the paper's 10 x 10-fold C-SVM evaluation (Table 1)")
    ev.add_argument("datasets", nargs="+", metavar="DATASET", help="TU data set names, e.g. MUTAG NCI1")
    ev.add_argument("--reps", type=int, default=10, help="repetitions with new partitions (default 10)")
    ev.add_argument("--folds", type=int, default=10, help="outer and inner folds (default 10)")
    ev.add_argument("--k", type=int, default=5, help="power iterations (default 5)")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--n-jobs", type=int, default=None, help="parallel workers (-1: all cores)")
    ev.add_argument("--data-home", default=None, help="folder holding NAME/NAME_A.txt ...")
    ev.add_argument("--no-download", action="store_true", help="fail instead of downloading")
    ev.add_argument("--out", default="results", help="folder for CSV, JSON and checkpoints")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(func=_cmd_evaluate)

    pt = sub.add_parser("perturb", help="kernel decay under random edge flips (the paper's figure)")
    pt.add_argument("datasets", nargs="*", metavar="DATASET",
                    help="TU data set names; none: generated Erdos-Renyi, Barabasi-Albert, Watts-Strogatz graphs")
    pt.add_argument("--graphs", type=int, default=100, help="graphs sampled per collection (default 100)")
    pt.add_argument("--steps", "--flips", dest="steps", type=int, default=20,
                    help="perturbations in sequence (default 20)")
    pt.add_argument("--kind", default="flip", help="flip, remove_edge, add_edge, swap_edges, remove_node, add_node")
    pt.add_argument("--k", type=int, default=5, help="power iterations (default 5)")
    pt.add_argument("--seed", type=int, default=0)
    pt.add_argument("--n-jobs", type=int, default=None)
    pt.add_argument("--data-home", default=None, help="folder holding NAME/NAME_A.txt ...")
    pt.add_argument("--no-download", action="store_true", help="do not download missing data sets")
    pt.add_argument("--out", default="perturbation.png", help="figure path; .csv and .json are written beside it")
    pt.set_defaults(func=_cmd_perturb)
    return parser


def main(argv=None):
    """Entry point of the ``graphinvariants`` command."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as err:
        print(f"graphinvariants: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
