"""Command line: ``graphinvariants demo | evaluate | perturb``.

``graphinvariants perturb edges.txt`` runs the perturbation study on one network read
from a file (:func:`graphinvariants.read_edgelist`), its edits made in place.

Errors the commands can foresee (a data set that cannot be loaded, a malformed file, an
output path that cannot be written) are printed as ``graphinvariants: error: ...`` with
exit status 2, like argparse's own usage errors, and no traceback.
"""

import argparse
import contextlib
import difflib
import functools
import os
import re
import sys
import textwrap
from pathlib import Path

import numpy as np

__all__ = ["main"]

DESCRIPTION = (
    "Power-kernel graph invariants (Shrivastava and Li, 'Graph Kernels via Functional Embedding'): "
    "the paper's perturbation study, its Table 1 evaluation, and a demo."
)
EPILOG = (
    "TU data sets are read from --data-home (and downloaded there only with --download), else "
    "$GRAPHINVARIANTS_DATA, else the user cache, and downloaded there once if missing. "
    "'graphinvariants COMMAND --help' lists the options of a command."
)


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


def _progress(args, total, desc):
    """A tqdm bar for a command's long steps: not with --quiet, and only on a terminal."""
    from .._utils.progress import progress_bar

    return progress_bar(False if args.quiet else None, total=total, desc=desc, unit="step", leave=False)


def _cmd_demo(args):
    import graphinvariants as gi

    with _progress(args, 2, "demo") as bar:
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


# -- outputs and inputs -----------------------------------------------------------------
def _out_figure(text):
    """``--out`` as a figure file to write, its folder created; a ValueError says why it cannot be."""
    from matplotlib.backend_bases import FigureCanvasBase

    figure = Path(text)
    if figure.is_dir() or text.endswith(("/", os.sep)):
        raise ValueError(f"--out {text} is a folder; give a figure file, such as {figure / 'perturbation.png'}")
    formats = FigureCanvasBase.get_supported_filetypes()
    if not figure.suffix or figure.suffix[1:].lower() not in formats:
        what = f"{figure.suffix} is no figure format" if figure.suffix else "the file name has no figure extension"
        raise ValueError(f"--out {text}: {what}; use one of " + ", ".join(f".{f}" for f in sorted(formats)))
    _make_writable_folder(figure.parent)
    outputs = (figure, figure.with_suffix(".csv"), figure.with_suffix(".json"))
    for path in outputs:  # all three, before any work
        if path.is_dir():
            raise ValueError(f"--out {text}: {path} is a folder, and the figure's CSV and JSON go beside it")
    _check_output_files(outputs)
    return figure


def _make_writable_folder(folder):
    """Create the ``--out`` folder if needed; a ValueError says why it cannot be written in."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out: {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--out: cannot create the folder {folder} ({err.strerror})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--out: cannot write in the folder {folder} (permission denied)")


@contextlib.contextmanager
def _written_atomically(path, binary=False):
    """Open a new file beside ``path`` for writing, and rename it to ``path`` once it
    is complete (an atomic replacement on POSIX and Windows): a full disk or an
    interruption leaves the previous ``path``, or none, never a truncated one.

    An OSError is raised again as a ValueError naming ``path``.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb" if binary else "w", **({} if binary else {"newline": ""})) as fh:
            yield fh
        os.replace(temporary, path)
    except OSError as err:
        raise ValueError(f"cannot write {path} ({err.strerror or err}); it is left as it was") from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _check_output_files(paths):
    """Refuse, before any work, output files that could not be written: a folder in
    the way, or a folder in which no file can be created (probed by creating one)."""
    for path in paths:
        if path.is_dir():
            raise ValueError(f"--out: cannot write {path}, it is a folder")
    for folder in dict.fromkeys(path.parent for path in paths):
        probe = folder / f".graphinvariants-probe-{os.getpid()}"
        try:
            probe.open("x").close()
        except OSError as err:
            raise ValueError(f"--out: cannot write in the folder {folder} ({err.strerror or err})") from None
        probe.unlink()


def _load_data_sets(args):
    """The TU data sets named on the command line, by name; the first that cannot be loaded raises."""
    import graphinvariants as gi
    from ..datasets import DataNotFoundError

    # an explicit --data-home is looked in only, unless --download asks for more
    download = args.download or (args.data_home is None and not args.no_download)
    out = {}
    for name in args.datasets:
        try:
            ds = gi.load_tu(name, data_home=args.data_home, download=download)
        except DataNotFoundError as err:
            if download or args.no_download:
                raise
            raise ValueError(f"{err.message(data_home_option='--data-home')} With --data-home nothing is downloaded "
                             f"unless --download is given.") from None
        out[ds.name] = ds
    return out


# -- evaluate ---------------------------------------------------------------------------
#: Table 1 of the paper: power kernel, mean accuracy (standard error) in percent.
PAPER_TABLE_1 = {"MUTAG": (83.22, 0.47), "ENZYMES": (34.60, 0.48), "NCI1": (70.73, 0.10), "NCI109": (70.15, 0.12)}


def kernel_list(text):
    """``--kernel`` value -> list of ``(spec, name, params)``.

    Kernels are separated by commas; a comma-separated item with ``=`` is one more
    parameter of the kernel before it: ``"power,histogram:k=7,wl:n_iter=3"``.
    """
    from ..kernels.registry import LEARNED, check_kernel_names, make_functional, parse_kernel_spec

    specs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        if "=" in item and ":" not in item and specs:
            specs[-1] += "," + item
        else:
            specs.append(item)
    if not specs:
        raise argparse.ArgumentTypeError("name at least one kernel")
    twice = sorted({spec for spec in specs if specs.count(spec) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"{', '.join(twice)} named twice (results are keyed by kernel)")
    out = []
    for spec in specs:
        try:
            name, params = parse_kernel_spec(spec)
            check_kernel_names(name, also=(LEARNED,))  # "did you mean", among the names --kernel takes
            if name != LEARNED:
                make_functional(name, **params)  # refuse unknown names and parameters now
            else:
                params = _learned_options(params)
        except (TypeError, ValueError, ImportError) as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        out.append((spec, name, params))
    return out


def _learned_options(params):
    """The learned default's options as the command line spells them -> GraphKernel's
    parameters, checked as a fit would check them (before any fold runs): raises
    TypeError or ValueError."""
    from ..estimator import GraphKernel

    from ..kernels.registry import LEARNED_TUPLES

    params = dict(params)
    if "random_state" in params:  # scikit-learn's name; the library's is seed everywhere
        raise ValueError("learned has no option random_state: random_state= is spelled seed= in graphinvariants "
                         "(learned:seed=0, or --seed for the folds); a member's own seed is member__seed, e.g. "
                         "learned:attributes__seed=0")
    for key in LEARNED_TUPLES:  # parse_kernel_spec made each a tuple of its "+"-joined items
        if key in params:
            items = params[key] if isinstance(params[key], tuple) else (params[key],)
            if any(not str(item).strip() or any(c in str(item) for c in "()[]'\"") for item in items):
                example = {"members": "wl+wloa", "powers": "1+2", "bandwidths": "0.5+2"}[key]
                spelled = "+".join(str(item) for item in items)
                raise ValueError(f"{key}={spelled}: on the command line, join its items by '+' without "
                                 f"brackets or quotes, e.g. learned:{key}={example}")
            params[key] = items
    import inspect

    from ..kernels.learned._combination import LearnedCombination

    GraphKernel(**params)  # its constructor refuses names no candidate takes
    takes = set(inspect.signature(LearnedCombination).parameters) - {"params", "n_jobs"}
    combination = LearnedCombination(**{key: value for key, value in params.items() if key in takes},
                                     params={key: value for key, value in params.items() if key not in takes})
    # member parameters: built for graphs carrying everything, so that each reaches its members
    combination.candidate_functionals({"node_label": True, "edge_label": True, "node_attributes": True, "molecules": True})
    return params


def _kernel_label(spec, args):
    return f"{spec} (k={args.k})" if spec == "power" else spec


def _safe_file_part(text):
    """A kernel spec as part of a file name: ``*`` becomes ``x`` and ``+`` stays (so that
    ``power*wl`` and ``power+wl`` do not share a checkpoint); other characters that are
    not letters, digits, ``-`` or ``_`` become ``_``."""
    return "".join(c if c.isalnum() or c in "-_+" else "x" if c == "*" else "_" for c in text)


def _evaluation_files(dataset, spec, args, out):
    """The checkpoint and the details file of one data set and kernel (``k`` in their
    names only where ``--k`` reaches the kernel: not the learned default)."""
    from ..kernels.registry import LEARNED

    name = spec.split(":", 1)[0]
    tag = "" if spec == "power" else f"-{_safe_file_part(spec)}"
    k = "" if name == LEARNED else f"-k{args.k}"
    settings = f"{dataset}{tag}{k}-reps{args.reps}-folds{args.folds}-seed{args.seed}"
    return out / f"checkpoint-{settings}.jsonl", out / f"evaluation-{settings}.json"


def _accuracy_cell(accuracy, stderr):
    """``"83.22 (0.47)"``; one repetition has no standard error, and none is printed: ``"83.22"``."""
    return f"{accuracy:.2f}" if stderr is None else f"{accuracy:.2f} ({stderr:.2f})"


def _evaluate_data_set(ds, kernel, args, out, folds_backend, fold_jobs):
    """Run the protocol on one data set and kernel, print its line and return its row.

    The kernel matrix is computed in this process; the folds run inside
    ``folds_backend()`` (a joblib backend context) with ``n_jobs=fold_jobs``.
    """
    import json
    import time

    import graphinvariants as gi
    from ..kernels.registry import LEARNED, shared_parameters

    spec, name, params = kernel
    start = time.perf_counter()
    if name != LEARNED:
        K = gi.kernel_matrix(ds, kernel=name, n_jobs=args.n_jobs, **{**shared_parameters(name, k=args.k), **params})
    checkpoint, details_path = _evaluation_files(ds.name, spec, args, out)
    with folds_backend():
        if name == LEARNED:  # fitted on each outer training fold only, so no test label reaches it
            result = gi.evaluate_estimator(ds, ds.y, kernel=gi.GraphKernel(**params), n_repeats=args.reps,
                                           n_folds=args.folds, seed=args.seed, n_jobs=fold_jobs,
                                           checkpoint=checkpoint, progress=not args.quiet)
        else:
            result = gi.evaluate_kernel(
                K, ds.y, n_repeats=args.reps, n_folds=args.folds, seed=args.seed, n_jobs=fold_jobs,
                checkpoint=checkpoint, progress=not args.quiet,
            )
    # the whole run's work: this call's, and the recorded seconds and fits of the resumed folds
    seconds = time.perf_counter() - start + result.resumed_seconds
    fits = result.n_fits + result.resumed_fits
    if result.n_resumed:
        print(f"{ds.name}: resumed {result.n_resumed} of {result.accuracies.size} folds from {checkpoint} "
              f"(they took {result.resumed_seconds:.0f} s)")
    paper = PAPER_TABLE_1.get(ds.name, (None, None))  # JSON null, not NaN, beyond the paper's four
    # the standard error over repetitions is undefined for one: null in JSON, empty in CSV
    stderr = round(100 * result.stderr, 2) if args.reps > 1 else None
    row = {
        "dataset": ds.name, "kernel": spec, "graphs": ds.n_graphs, "accuracy": round(100 * result.mean, 2),
        "stderr": stderr, "paper_accuracy": paper[0], "paper_stderr": paper[1],
        "seconds": round(seconds, 1), "fits": fits,
    }
    details = {**result.to_dict(), "stderr": result.stderr if args.reps > 1 else None}
    with _written_atomically(details_path) as fh:
        json.dump({**row, "k": args.k, "details": details}, fh, indent=1)
    print(f"{ds.name}, {_kernel_label(spec, args)}: {_accuracy_cell(row['accuracy'], stderr)} in {seconds:.0f} s",
          flush=True)
    return row


def _print_table(rows, kernels, args):
    """One line per data set: each kernel's accuracy (standard error), then the paper's."""
    labels = [_kernel_label(spec, args) for spec, _, _ in kernels]
    width = max(16, *(len(label) for label in labels))
    print("\n" + f"{'data set':<10} " + " ".join(f"{label:>{width}}" for label in labels)
          + f" {'paper (power)':>16}")
    by_key = {(row["dataset"], row["kernel"]): row for row in rows}
    for dataset in dict.fromkeys(row["dataset"] for row in rows):
        cells = []
        for spec, _, _ in kernels:
            row = by_key[(dataset, spec)]
            cell = _accuracy_cell(row["accuracy"], row["stderr"])
            cells.append(f"{cell:>{width}}")
        paper = by_key[(dataset, kernels[0][0])]
        reference = (f"{paper['paper_accuracy']:9.2f} ({paper['paper_stderr']:.2f})"
                     if paper["paper_accuracy"] is not None else f"{'-':>16}")
        print(f"{dataset:<10} " + " ".join(cells) + f" {reference}")


@contextlib.contextmanager
def _dask_client(scheduler):
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or of a new
    ``LocalCluster`` (one process per core) for ``"local"``; closed on exit."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:
        raise ValueError(f'--scheduler needs Dask distributed ({err}); install it with: '
                         'pip install "graphinvariants[dask]"') from None
    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            cluster = stack.enter_context(LocalCluster(threads_per_worker=1, dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        else:
            try:  # waits up to Dask's distributed.comm.timeouts.connect (30 s by default)
                client = stack.enter_context(Client(scheduler))
            except (OSError, ValueError) as err:  # TimeoutError is an OSError
                raise ValueError(f"--scheduler: cannot connect to the Dask scheduler at {scheduler!r} ({err})") from None
        yield client


def _cmd_evaluate(args):
    import csv
    import json
    import platform

    from ..kernels.learned.alignment import read_targets

    datasets = _load_data_sets(args)
    for name, ds in datasets.items():  # the check of every entry point, before any kernel matrix or fold
        try:
            read_targets(ds.y, task="classification")
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name}: its graph labels cannot be evaluated: {err}") from None
    out = Path(args.out)
    _make_writable_folder(out)
    outputs = [out / "evaluation.csv", out / "evaluation.json"]
    outputs += [path for name in datasets for spec, _, _ in args.kernel for path in _evaluation_files(name, spec, args, out)]
    _check_output_files(outputs)  # before any fold runs, not after the last
    names = ", ".join(_kernel_label(spec, args) for spec, _, _ in args.kernel)
    spread = (f"in parentheses the standard error over the {args.reps} repetitions" if args.reps > 1 else
              "no standard error: it is undefined for one repetition (use --reps 2 or more)")
    print(f"{args.reps} x {args.folds}-fold C-SVM evaluation of {names}: mean accuracy in percent, {spread}")
    with contextlib.ExitStack() as stack:
        if args.scheduler is None:
            folds_backend, fold_jobs = contextlib.nullcontext, args.n_jobs
        else:
            import joblib

            client = stack.enter_context(_dask_client(args.scheduler))
            n_workers = len(client.scheduler_info(n_workers=-1)["workers"])
            print(f"the folds run on the Dask cluster at {client.scheduler.address} ({n_workers} workers)")
            folds_backend = functools.partial(joblib.parallel_config, backend="dask")
            fold_jobs = -1 if args.n_jobs is None else args.n_jobs
        rows = [_evaluate_data_set(ds, kernel, args, out, folds_backend, fold_jobs)
                for ds in datasets.values() for kernel in args.kernel]
    _print_table(rows, args.kernel, args)
    with _written_atomically(out / "evaluation.csv") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with _written_atomically(out / "evaluation.json") as fh:
        json.dump({"machine": platform.platform(), "python": platform.python_version(), "k": args.k,
                   "kernels": [spec for spec, _, _ in args.kernel],
                   "reps": args.reps, "folds": args.folds, "seed": args.seed, "rows": rows}, fh, indent=1)
    print(f"\nwrote {out / 'evaluation.csv'} and {out / 'evaluation.json'}")
    return 0


# -- perturb ----------------------------------------------------------------------------
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
        # one large network (K within 1e-6 of 1 for many flips): 1 - K on a log axis; the
        # Display titles the figure by what ran (kernels, steps, networks or collections)
        gi.KernelDecayDisplay.from_studies(studies).plot(ax=ax)
        fig.tight_layout()
        with _written_atomically(figure, binary=True) as fh:
            fig.savefig(fh, format=figure.suffix[1:].lower(), dpi=120)
    finally:
        plt.close(fig)
    csv_path, json_path = figure.with_suffix(".csv"), figure.with_suffix(".json")
    with _written_atomically(csv_path) as fh:
        fh.write("collection,kernel,step,mean,std,stderr\n")
        for name, study in studies.items():
            for t in study.steps:
                fh.write(f"\"{name}\",\"{study.params['kernel']}\",{t},{study.mean[t]:.10g},{study.std[t]:.10g},"
                         f"{study.stderr[t]:.10g}\n")
    with _written_atomically(json_path) as fh:
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
            G = read_edgelist(path, directed=args.directed, comments=args.comments, skiprows=args.skiprows,
                              skipfooter=args.skipfooter)
        except ValueError as err:  # its hints name keyword arguments: name the options instead
            message = str(err)
            for keyword in ("skiprows", "skipfooter", "comments"):
                message = re.sub(rf"\b{keyword}=", f"--{keyword} ", message)
            raise ValueError(message) from None
        A = G.matrix
        print(f"{path}: {A.shape[0]} nodes, {G.n_edges} edges ({A.nnz} stored entries) in "
              f"{time.perf_counter() - start:.2f} s; {args.sequences} sequences of {args.steps} {args.kind} steps")
        networks[path.name] = G
    return networks


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


def _cmd_perturb(args):
    import time

    import graphinvariants as gi

    start = time.perf_counter()
    files, args.datasets = _network_files(args.datasets)
    _check_counts(args, files)
    if args.datasets:
        collections = _load_data_sets(args)
    elif not files:
        print(f"no data set named: running on graph families generated on the spot "
              f"({args.graphs} graphs each, 20 to 200 nodes, seed {args.seed})")
        collections = generated_families(args.graphs, args.seed)
    else:
        collections = {}
    figure = _out_figure(args.out)
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


#: --graphs and --sequences when not given (each is refused where it would not apply).
DEFAULT_GRAPHS = DEFAULT_SEQUENCES = 100


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


def _what_ran(studies, collections, args):
    """``"100 graphs from each of 3 collections x 20 flip steps, under 2 kernels (power, wl)"``."""
    sizes = sorted({len(study.curves) for study in studies.values()})
    unit = "sequence" if all("n_sequences" in study.params for study in studies.values()) else "graph"
    graphs = " or ".join(map(str, sizes)) + f" {unit}{'s' if sizes[-1] != 1 else ''}"
    where = f"from each of {len(collections)} collections" if len(collections) > 1 else f"from {next(iter(collections))}"
    kernels = ", ".join(spec for spec, _, _ in args.kernel)
    under = f"under {len(args.kernel)} kernels ({kernels})" if len(args.kernel) > 1 else f"under {kernels}"
    return f"{graphs} {where} x {args.steps} {args.kind} step{'s' if args.steps != 1 else ''}, {under}"


# -- parser -----------------------------------------------------------------------------
def _int_at_least(minimum):
    """An argparse ``type``: an integer that is at least ``minimum``."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _nonzero_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must not be 0 (a count of workers, or -1 for one per core)")
    return value


def _add_common_options(parser):
    parser.add_argument("--k", type=_int_at_least(1), default=5,
                        help="power iterations, the length of each node's walk-count profile (default: %(default)s)")
    parser.add_argument("--seed", type=_int_at_least(0), default=0,
                        help="seed of all random choices (default: %(default)s)")


def unsupervised_kernel_list(text):
    """``--kernel`` of ``perturb``: :func:`kernel_list` without the learned default,
    which needs class labels that a graph and its perturbed copy do not have."""
    from ..kernels.registry import LEARNED

    kernels = kernel_list(text)
    if any(name == LEARNED for _, name, _ in kernels):
        raise argparse.ArgumentTypeError(f"{LEARNED!r} is fitted to class labels, which perturb does not have; "
                                         "name a kernel (e.g. power or histogram)")
    return kernels


def _add_kernel_option(parser, *, learned):
    from ..kernels.registry import DEFAULT_KERNEL, KERNELS

    parse = kernel_list if learned else unsupervised_kernel_list
    learned_name = ("learned (GraphKernel()'s learned default, fitted on each outer training fold; --k does not "
                    "reach it), " if learned else "")
    text = (f"kernels to compare, side by side: power (the paper's), {learned_name}"
            f"{', '.join(sorted(set(KERNELS) - {'power'}))}, "
            "or products and means such as power*histogram; parameters as histogram:k=7 (default: power)")
    if learned:
        text += ("; learned's sequence options take items joined by +, e.g. learned:members=wl+wloa+grakel.ShortestPath,"
                 "powers=1+2 (one item: learned:members=wl; GraKeL classes with their defaults)")
    parser.add_argument("--kernel", type=parse, default=parse(DEFAULT_KERNEL), metavar="NAME[,NAME...]", help=text)


def _add_run_options(parser):
    parser.add_argument("--n-jobs", type=_nonzero_int, default=None,
                        help="worker threads; -1: one per core (default: one thread)")
    parser.add_argument("--data-home", default=None,
                        help="folder holding NAME/NAME_A.txt ... (default: $GRAPHINVARIANTS_DATA, else the user cache)")
    fetch = parser.add_mutually_exclusive_group()
    fetch.add_argument("--download", action="store_true",
                       help="download a missing data set into the data folder (default: only when --data-home "
                            "is not given; a --data-home folder is looked in only)")
    fetch.add_argument("--no-download", action="store_true",
                       help="fail instead of downloading a missing data set (default: download it into the user "
                            "cache or $GRAPHINVARIANTS_DATA once)")


def build_parser():
    """The argument parser of the ``graphinvariants`` command and its subcommands."""
    from .. import __version__
    from ..perturbation import PERTURBATIONS

    parser = argparse.ArgumentParser(prog="graphinvariants", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="invariants and kernel of a few graphs made on the spot",
                          description="Invariants and power-kernel values of a few NetworkX and igraph graphs.")
    _add_common_options(demo)
    demo.add_argument("--quiet", action="store_true", help="no progress bar (default: show it on a terminal)")
    demo.set_defaults(func=_cmd_demo, command_parser=demo)

    ev = sub.add_parser("evaluate", help="the paper's 10 x 10-fold C-SVM evaluation (Table 1)",
                        description="The paper's repeated, nested cross-validation of a C-SVM on each kernel "
                                    "of --kernel (default: the power kernel), with our accuracies beside Table 1 "
                                    "of the paper. Resumes from the checkpoints in --out.")
    ev.add_argument("datasets", nargs="+", metavar="DATASET", help="TU data set names, e.g. MUTAG NCI1")
    ev.add_argument("--reps", type=_int_at_least(1), default=10,
                    help="repetitions with new random partitions (default: %(default)s)")
    ev.add_argument("--folds", type=_int_at_least(2), default=10,
                    help="outer and inner cross-validation folds (default: %(default)s)")
    _add_common_options(ev)
    _add_kernel_option(ev, learned=True)
    _add_run_options(ev)
    ev.add_argument("--out", default="results",
                    help="folder for evaluation.csv, evaluation.json and checkpoints (default: %(default)s)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar (default: show it)")
    ev.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the folds on a Dask cluster: the address of its scheduler (tcp://host:8786), or "
                         "'local' for a new cluster of one process per core; needs graphinvariants[dask]. "
                         "--n-jobs is then the number of folds in flight (default: all workers). "
                         "Results and checkpoints are those of a local run (default: this process)")
    ev.set_defaults(func=_cmd_evaluate, command_parser=ev)

    pt = sub.add_parser("perturb", help="kernel decay under random edge flips (the paper's figure)",
                        description="The paper's perturbation study: the kernel (--kernel, default: the power "
                                    "kernel) between each graph and its copy after 0, 1, 2, ... random "
                                    "perturbations, averaged over the graphs. "
                                    f"The table's last column, '{CROSSING_COLUMN}', is {CROSSING_MEANING}.")
    pt.add_argument("datasets", nargs="*", metavar="DATASET_OR_FILE",
                    help="TU data set names, or edge-list files of one network each (SNAP text, CSV, Parquet: "
                         "anything named as a path, such as edges.txt), perturbed in place --sequences times "
                         "(default: none, and graphs generated on the spot: Erdos-Renyi, Barabasi-Albert, "
                         "Watts-Strogatz)")
    pt.add_argument("--graphs", type=_int_at_least(1), default=None,
                    help=f"graphs sampled per collection; refused with only network files (default: {DEFAULT_GRAPHS})")
    pt.add_argument("--sequences", type=_int_at_least(1), default=None,
                    help="independent sequences of perturbations of a network read from a file; refused without "
                         f"one (default: {DEFAULT_SEQUENCES}, the paper's protocol)")
    pt.add_argument("--directed", action="store_true",
                    help="read a network file's lines as arcs u -> v, perturbed arc by arc (default: undirected "
                         "edges; a file whose arcs all come in pairs is perturbed as undirected)")
    pt.add_argument("--skiprows", type=_int_at_least(0), default=0,
                    help="lines skipped at the top of a network file, such as a node count (default: %(default)s)")
    pt.add_argument("--skipfooter", type=_int_at_least(0), default=0,
                    help="lines holding data skipped at the end of a network file, such as a terminator line "
                         "(default: %(default)s)")
    pt.add_argument("--comments", default="#", metavar="CHAR",
                    help="the character that starts a comment in a network file: '%%' for KONECT and Matrix Market "
                         "files (default: %(default)s)")
    pt.add_argument("--steps", "--flips", dest="steps", type=_int_at_least(1), default=20,
                    help="perturbations applied in sequence to each graph (default: %(default)s)")
    pt.add_argument("--kind", default="flip", choices=PERTURBATIONS, metavar="KIND",
                    help=f"perturbation applied at each step: {', '.join(PERTURBATIONS)} (default: %(default)s)")
    _add_common_options(pt)
    _add_kernel_option(pt, learned=False)
    _add_run_options(pt)
    pt.add_argument("--out", default="perturbation.png",
                    help="figure file; the .csv and .json of the same name are written beside it "
                         "(default: %(default)s)")
    pt.add_argument("--quiet", action="store_true", help="no progress bar (default: show it on a terminal)")
    pt.set_defaults(func=_cmd_perturb, command_parser=pt)
    return parser


def _refuse_unknown_arguments(parser, unknown):
    """A usage error of the subcommand (not of the top-level command) naming the
    arguments it does not know, with the closest option of that subcommand."""
    options = [option for action in parser._actions for option in action.option_strings]
    hints = []
    for argument in unknown:
        if argument.startswith("-"):
            close = difflib.get_close_matches(argument.split("=", 1)[0], options, n=1, cutoff=0.6)
            hints += [f"did you mean {close[0]} (for {argument})?"] if close else []
    parser.error(f"unrecognized arguments: {' '.join(unknown)}" + ("; " + " ".join(hints) if hints else ""))


def main(argv=None):
    """Entry point of the ``graphinvariants`` command; returns the exit status."""
    from .._utils.validation import MissingExtraError
    from ..datasets import DataNotFoundError

    args, unknown = build_parser().parse_known_args(argv)
    if unknown:
        _refuse_unknown_arguments(args.command_parser, unknown)
    try:
        return args.func(args)
    except DataNotFoundError as err:
        message = err.message(data_home_option="--data-home")
    except (ValueError, OSError, MissingExtraError) as err:  # FileNotFoundError is an OSError
        message = str(err)  # a missing extra names the pip install that brings it
    print(f"graphinvariants: error: {message}", file=sys.stderr)
    return 2

