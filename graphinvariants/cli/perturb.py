"""``graphinvariants perturb``: the paper's perturbation study, on TU data sets, on
graph families generated on the spot, or on one network read from an edge-list file
(its edits made in place)."""

import os
import re
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np

from ._common import load_data_sets, out_figure, written_atomically
from ._kernels import kernel_label

__all__ = []


#: --graphs and --sequences when not given (each is refused where it would not apply).
DEFAULT_GRAPHS = DEFAULT_SEQUENCES = 100


#: The options of a network file, and their values when not given.
FILE_OPTIONS = {"skiprows": 0, "skipfooter": 0, "comments": "#", "format": None, "directed": False}


#: The last column of the perturb table, and what it means (printed under the table).
CROSSING_COLUMN = "below the median of others after"
CROSSING_MEANING = (
    "the number of steps after which the mean kernel between a graph and its perturbed copy first "
    "falls below the median kernel between a graph and the other graphs of its collection (the "
    "mean over the sampled graphs of each one's median): how long a perturbed graph stays closer "
    "to its original than the other graphs are, the paper's property 2"
)


#: Said under the table instead of the last column when no row crossed (it would read
#: "more than N steps" on every row).
NO_CROSSING = (
    "Every mean stayed above the median kernel between a graph and the other graphs of its collection for "
    "all {steps} steps: a perturbed graph stayed closer to its original than the other graphs are (the "
    "paper's property 2)"
)


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


def _write_perturbation_outputs(figure, studies, args):
    """The figure at ``figure``; the curves as CSV and JSON beside it. Returns the three paths."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import graphinvariants as gi

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    try:
        # one large network (K within 1e-6 of 1 for many flips): 1 - K on a log axis
        gi.KernelDecayDisplay.from_studies(studies).plot(ax=ax)
        fig.tight_layout()
        with written_atomically(figure, binary=True) as fh:
            fig.savefig(fh, format=figure.suffix[1:].lower(), dpi=120)
    finally:
        plt.close(fig)
    csv_path, json_path = figure.with_suffix(".csv"), figure.with_suffix(".json")
    with written_atomically(csv_path) as fh:
        fh.write("collection,kernel,step,mean,std,stderr\n")
        for name, study in studies.items():
            for t in study.steps:
                fh.write(f"\"{name}\",\"{study.params['kernel']}\",{t},{study.mean[t]:.10g},{study.std[t]:.10g},"
                         f"{study.stderr[t]:.10g}\n")
    with written_atomically(json_path) as fh:
        json.dump({name: study.to_dict() for name, study in studies.items()}, fh)
    return figure, csv_path, json_path


def _network_files(arguments):
    """``(files, data set names)``: an argument naming an existing file, or written as
    a path (a folder separator or a dot, which no TU name has), is an edge-list file."""
    files, names = [], []
    for text in arguments:
        path = Path(text)
        if path.is_file() or "/" in text or os.sep in text or "." in text:
            if not path.is_file():
                what = "is a folder" if path.is_dir() else "does not exist"
                raise ValueError(f"the edge-list file {text} {what}")
            files.append(path)
        else:
            names.append(text)
    return files, names


def _read_networks(files, args):
    """The graphs of the edge-list files, by file name (read by gi.read_edgelist)."""
    import time

    try:
        from ..graphs.edgelist import read_edgelist
    except ImportError:
        raise ValueError("reading an edge-list file needs graphinvariants.read_edgelist, which this "
                         "installation does not have; update graphinvariants") from None
    if [spec for spec, _, _ in args.kernel] != ["power"]:
        raise ValueError("the study of one network runs the power kernel; leave --kernel out with an edge-list file")
    networks = {}
    for path in files:
        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UserWarning)
                G = read_edgelist(path, directed=args.directed, comments=args.comments, skiprows=args.skiprows,
                                  skipfooter=args.skipfooter, format=args.format)
        except ValueError as err:  # its hints name keyword arguments: name the options instead
            raise ValueError(_as_options(str(err))) from None
        for warning in caught:  # a line read as an edge that is likely none (a header, a terminator)
            if issubclass(warning.category, UserWarning):
                print(f"graphinvariants: warning: {_as_options(str(warning.message))}", file=sys.stderr)
            else:
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        A = G.matrix
        print(f"{path}: {A.shape[0]} nodes, {G.n_edges} edges ({A.nnz} stored entries) in "
              f"{time.perf_counter() - start:.2f} s; {args.sequences} sequences of {args.steps} {args.kind} steps")
        networks[path.name] = G
    return networks


def _as_options(message):
    """A message of read_edgelist, its keyword arguments named as this command's options
    (``skiprows=1`` as ``--skiprows 1``, ``format='konect'`` as ``--format konect``)."""
    for keyword in FILE_OPTIONS:
        message = re.sub(rf"\b{keyword}='([^']*)'", rf"--{keyword} \1", message)
        message = re.sub(rf"\b{keyword}=", f"--{keyword} ", message)
    return message


def _check_file_options(args, files):
    """Refuse the options of a network file where there is none (they would be
    ignored), then give them their defaults."""
    given = [f"--{name.replace('_', '-')}" for name in FILE_OPTIONS if getattr(args, name) is not None]
    if given and not files:
        raise ValueError(f"{' and '.join(given)} {'reads' if len(given) == 1 else 'read'} a network file (an edge "
                         "list named as a path, such as edges.txt); no network file is named, so "
                         f"{'it' if len(given) == 1 else 'they'} would be ignored: leave "
                         f"{'it' if len(given) == 1 else 'them'} out, or name the file")
    for name, default in FILE_OPTIONS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)


def _check_counts(args, files):
    """Refuse --graphs where only network files are studied and --sequences where none
    is (each would be ignored), then give them their defaults."""
    if files and not args.datasets and args.graphs is not None:
        raise ValueError(f"--graphs {args.graphs} samples the graphs of a collection; a network file runs "
                         "--sequences sequences of edits of its one graph: give --sequences instead")
    if not files and args.sequences is not None:
        raise ValueError(f"--sequences {args.sequences} is for a network read from a file; a collection samples "
                         "--graphs graphs: give --graphs instead")
    args.graphs = DEFAULT_GRAPHS if args.graphs is None else args.graphs
    args.sequences = DEFAULT_SEQUENCES if args.sequences is None else args.sequences


def run(args):
    import time

    import graphinvariants as gi

    start = time.perf_counter()
    files, args.datasets = _network_files(args.datasets)
    _check_file_options(args, files)
    _check_counts(args, files)
    if args.datasets:
        collections = load_data_sets(args)
    elif not files:
        print(f"no data set named: running on graph families generated on the spot "
              f"({args.graphs} graphs each, 20 to 200 nodes, seed {args.seed})")
        collections = generated_families(args.graphs, args.seed)
    else:
        collections = {}
    figure = out_figure(args.out)
    networks = _read_networks(files, args) if files else {}
    several = len(args.kernel) > 1
    studies = {}
    for name, G in networks.items():
        studies[name] = gi.perturbation_study(
            G, n_sequences=args.sequences, n_steps=args.steps, k=args.k, kind=args.kind, seed=args.seed,
            n_jobs=args.n_jobs, name=name, progress=False if args.quiet else None,
        )
    for name, graphs in collections.items():
        for spec, kernel, params in args.kernel:
            label = f"{name} / {spec}" if several else name
            studies[label] = gi.perturbation_study(
                graphs, n_graphs=args.graphs, n_steps=args.steps, k=args.k, kind=args.kind, seed=args.seed,
                n_jobs=args.n_jobs, name=label, kernel=kernel, kernel_params=params, baseline=True,
                progress=False if args.quiet else None,
            )
    collections = {**networks, **collections}
    elapsed = time.perf_counter() - start
    shown = sorted({t for t in (0, 1, 2, 5, 10, args.steps) if t <= args.steps})
    width = max(32, *(len(label) for label in studies))
    # the crossing column only when some row crossed: else it would read the same on every row
    crossed = any(study.crossing_step is not None for study in studies.values())
    # a large network barely moves with each flip (1 - K of 1e-8 after 10 flips of 10^4
    # nodes): its table shows 1 - K, in scientific notation
    network = any("n_sequences" in study.params for study in studies.values())
    column = 9 if network else 6
    print(f"{'1 - ' if network else ''}mean kernel between each graph and its copy after 0, 1, 2, ... "
          f"{args.kind} steps:")
    print(f"{'collection':<{width}} " + " ".join(f"{t:>{column}d}" for t in shown)
          + (f"  {CROSSING_COLUMN}" if crossed else ""))
    for label, study in studies.items():
        crossing = study.crossing_step
        after = f"{crossing} steps" if crossing is not None else f"more than {args.steps} steps"
        cells = (f"{1 - study.mean[t]:9.2e}" if network else f"{study.mean[t]:6.3f}" for t in shown)
        print(f"{label:<{width}} " + " ".join(cells) + (f"  {after}" if crossed else ""))
    if crossed:
        print("\n" + textwrap.fill(f"{CROSSING_COLUMN}: {CROSSING_MEANING}", 100))
    elif any(study.baseline is not None for study in studies.values()):
        print("\n" + textwrap.fill(f"{NO_CROSSING.format(steps=args.steps)}; --steps N looks further.", 100))
    paths = _write_perturbation_outputs(figure, studies, args)
    print(f"\n{_what_ran(studies, collections, args)} in {elapsed:.2f} s; "
          f"wrote {', '.join(map(str, paths[:-1]))} and {paths[-1]}")
    return 0


def _what_ran(studies, collections, args):
    """``"100 graphs from each of 3 collections x 20 flip steps, under 2 kernels (power, wl)"``."""
    sizes = sorted({len(study.curves) for study in studies.values()})
    unit = "sequence" if all("n_sequences" in study.params for study in studies.values()) else "graph"
    graphs = " or ".join(map(str, sizes)) + f" {unit}{'s' if sizes[-1] != 1 else ''}"
    where = f"from each of {len(collections)} collections" if len(collections) > 1 else f"from {next(iter(collections))}"
    kernels = ", ".join(spec for spec, _, _ in args.kernel)
    under = f"under {len(args.kernel)} kernels ({kernels})" if len(args.kernel) > 1 else f"under {kernels}"
    return f"{graphs} {where} x {args.steps} {args.kind} step{'s' if args.steps != 1 else ''}, {under}"
