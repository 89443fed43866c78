"""``graphinvariants evaluate``: the paper's repeated, nested cross-validation of a
C-SVM (Table 1) on each kernel of ``--kernel``, resumable from checkpoints, with our
accuracies beside the paper's."""

import contextlib
import functools
from pathlib import Path

from ._common import check_output_files, load_data_sets, make_writable_folder, written_atomically
from ._kernels import kernel_label

__all__ = []


#: Table 1 of the paper: power kernel, mean accuracy (standard error) in percent.
PAPER_TABLE_1 = {"MUTAG": (83.22, 0.47), "ENZYMES": (34.60, 0.48), "NCI1": (70.73, 0.10), "NCI109": (70.15, 0.12)}


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
    with written_atomically(details_path) as fh:
        json.dump({**row, "k": args.k, "details": details}, fh, indent=1)
    print(f"{ds.name}, {kernel_label(spec, args)}: {_accuracy_cell(row['accuracy'], stderr)} in {seconds:.0f} s",
          flush=True)
    return row


def _print_table(rows, kernels, args):
    """One line per data set: each kernel's accuracy (standard error), then the paper's."""
    labels = [kernel_label(spec, args) for spec, _, _ in kernels]
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


def run(args):
    import csv
    import json
    import platform

    from ..kernels.learned.alignment import read_targets

    datasets = load_data_sets(args)
    for name, ds in datasets.items():  # the check of every entry point, before any kernel matrix or fold
        try:
            read_targets(ds.y, task="classification")
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name}: its graph labels cannot be evaluated: {err}") from None
    out = Path(args.out)
    make_writable_folder(out)
    outputs = [out / "evaluation.csv", out / "evaluation.json"]
    outputs += [path for name in datasets for spec, _, _ in args.kernel for path in _evaluation_files(name, spec, args, out)]
    check_output_files(outputs)  # before any fold runs, not after the last
    names = ", ".join(kernel_label(spec, args) for spec, _, _ in args.kernel)
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
    with written_atomically(out / "evaluation.csv") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with written_atomically(out / "evaluation.json") as fh:
        json.dump({"machine": platform.platform(), "python": platform.python_version(), "k": args.k,
                   "kernels": [spec for spec, _, _ in args.kernel],
                   "reps": args.reps, "folds": args.folds, "seed": args.seed, "rows": rows}, fh, indent=1)
    print(f"\nwrote {out / 'evaluation.csv'} and {out / 'evaluation.json'}")
    return 0
