"""Command line: ``graphinvariants demo | evaluate | perturb``.

``graphinvariants perturb edges.txt`` runs the perturbation study on one network read
from a file (:func:`graphinvariants.read_edgelist`), its edits made in place.

Each command is a module with its ``run(args)`` (``demo``, ``evaluate``, ``perturb``);
``_common`` holds what they share (outputs, inputs, progress) and ``_kernels`` the
``--kernel`` option of ``evaluate`` and ``perturb``; this module builds the parser.

Errors the commands can foresee (a data set that cannot be loaded, a malformed file, an
output path that cannot be written) are printed as ``graphinvariants: error: ...`` with
exit status 2, like argparse's own usage errors, and no traceback.
"""

import argparse
import difflib
import sys

from . import demo, evaluate, perturb
from ._common import int_at_least, nonzero_int
from ._kernels import kernel_list, unsupervised_kernel_list

__all__ = ["build_parser", "main"]

DESCRIPTION = (
    "Power-kernel graph invariants (Shrivastava and Li, 'Graph Kernels via Functional Embedding'): "
    "the paper's perturbation study, its Table 1 evaluation, and a demo."
)
EPILOG = (
    "TU data sets are read from --data-home (and downloaded there only with --download), else "
    "$GRAPHINVARIANTS_DATA, else the user cache, and downloaded there once if missing. "
    "'graphinvariants COMMAND --help' lists the options of a command."
)


def _add_common_options(parser):
    parser.add_argument("--k", type=int_at_least(1), default=5,
                        help="power iterations, the length of each node's walk-count profile (default: %(default)s)")
    parser.add_argument("--seed", type=int_at_least(0), default=0,
                        help="seed of all random choices (default: %(default)s)")


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
    parser.add_argument("--n-jobs", type=nonzero_int, default=None,
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
    from ..graphs.files import FORMATS
    from ..perturbation import PERTURBATIONS

    parser = argparse.ArgumentParser(prog="graphinvariants", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    dm = sub.add_parser("demo", help="invariants and kernel of a few graphs made on the spot",
                        description="Invariants and power-kernel values of a few NetworkX and igraph graphs.")
    _add_common_options(dm)
    dm.add_argument("--quiet", action="store_true", help="no progress bar (default: show it on a terminal)")
    dm.set_defaults(func=demo.run, command_parser=dm)

    ev = sub.add_parser("evaluate", help="the paper's 10 x 10-fold C-SVM evaluation (Table 1)",
                        description="The paper's repeated, nested cross-validation of a C-SVM on each kernel "
                                    "of --kernel (default: the power kernel), with our accuracies beside Table 1 "
                                    "of the paper. Resumes from the checkpoints in --out.")
    ev.add_argument("datasets", nargs="+", metavar="DATASET", help="TU data set names, e.g. MUTAG NCI1")
    ev.add_argument("--reps", type=int_at_least(1), default=10,
                    help="repetitions with new random partitions (default: %(default)s)")
    ev.add_argument("--folds", type=int_at_least(2), default=10,
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
    ev.set_defaults(func=evaluate.run, command_parser=ev)

    pt = sub.add_parser("perturb", help="kernel decay under random edge flips (the paper's figure)",
                        description="The paper's perturbation study: the kernel (--kernel, default: the power "
                                    "kernel) between each graph and its copy after 0, 1, 2, ... random "
                                    "perturbations, averaged over the graphs. "
                                    f"The table's last column, '{perturb.CROSSING_COLUMN}', is "
                                    f"{perturb.CROSSING_MEANING}.")
    pt.add_argument("datasets", nargs="*", metavar="DATASET_OR_FILE",
                    help="TU data set names, or edge-list files of one network each (SNAP text, CSV, Parquet: "
                         "anything named as a path, such as edges.txt), perturbed in place --sequences times "
                         "(default: none, and graphs generated on the spot: Erdos-Renyi, Barabasi-Albert, "
                         "Watts-Strogatz)")
    pt.add_argument("--graphs", type=int_at_least(1), default=None,
                    help="graphs sampled per collection; refused with only network files "
                         f"(default: {perturb.DEFAULT_GRAPHS})")
    pt.add_argument("--sequences", type=int_at_least(1), default=None,
                    help="independent sequences of perturbations of a network read from a file; refused without "
                         f"one (default: {perturb.DEFAULT_SEQUENCES}, the paper's protocol)")
    pt.add_argument("--directed", action="store_true", default=None,
                    help="read a network file's lines as arcs u -> v, perturbed arc by arc (default: undirected "
                         "edges; a file whose arcs all come in pairs is perturbed as undirected)")
    pt.add_argument("--format", default=None, choices=FORMATS, metavar="FORMAT",
                    help=f"the format of a network file: {', '.join(FORMATS)} (default: told by its name: .txt, "
                         ".tsv, .edges, .el, .edgelist text; .csv; .parquet, .pq; .mtx Matrix Market; out.NAME KONECT)")
    pt.add_argument("--skiprows", type=int_at_least(0), default=None,
                    help="lines skipped at the top of a network file, such as a node count (default: 0)")
    pt.add_argument("--skipfooter", type=int_at_least(0), default=None,
                    help="lines holding data skipped at the end of a network file, such as a terminator line "
                         "(default: 0)")
    pt.add_argument("--comments", default=None, metavar="CHAR",
                    help="the character that starts a comment in a network file (default: #; %% in Matrix "
                         "Market and KONECT files)")
    pt.add_argument("--steps", "--flips", dest="steps", type=int_at_least(1), default=20,
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
    pt.set_defaults(func=perturb.run, command_parser=pt)
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
    from .._utils.optional import MissingExtraError
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
