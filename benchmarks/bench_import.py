"""How long ``import graphinvariants`` and ``graphinvariants --help`` take (issue 31).

Run from the project root:  python benchmarks/bench_import.py [--runs 15] [--compare PATH]

Each timing is a fresh Python process (interpreter start included), the commands
interleaved run by run so that load on the machine falls on all of them alike:

* **reference**: ``import networkx, numpy, scipy.sparse`` (what a user of the library
  loads anyway);
* **import**: ``import graphinvariants``;
* **--help**: the console script's ``main(["--help"])`` (it builds the whole parser);
* with ``--compare PATH``: ``import graphinvariants`` from another checkout (say the
  main branch before this change), as a before figure.

Prints the median of each over ``--runs`` runs and its ratio to the reference's median
(the target: 1.5x or less for the import and for ``--help``).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS = {
    "reference: import networkx, numpy, scipy.sparse": "import networkx, numpy, scipy.sparse",
    "import graphinvariants": "import graphinvariants",
    "graphinvariants --help": (
        "import contextlib, io\n"
        "from graphinvariants.cli._main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
    ),
}


def run_once(code, path):
    """Wall time of a fresh interpreter running ``code`` in the checkout ``path`` (``-c``
    puts the working directory first on sys.path, so its package is the one imported)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(path), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, cwd=path, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per command (default: 15)")
    parser.add_argument("--compare", type=Path, default=None,
                        help="another checkout whose 'import graphinvariants' is timed too (a before figure)")
    args = parser.parse_args()

    jobs = {name: (code, ROOT) for name, code in COMMANDS.items()}
    if args.compare is not None:
        jobs[f"import graphinvariants from {args.compare}"] = ("import graphinvariants", args.compare.resolve())
    for code, path in jobs.values():  # one untimed run each: files in the page cache, .pyc written
        run_once(code, path)
    times = {name: [] for name in jobs}
    for _ in range(args.runs):
        for name, (code, path) in jobs.items():
            times[name].append(run_once(code, path))

    reference = statistics.median(times[next(iter(jobs))])
    print(f"median of {args.runs} fresh processes each, interleaved ({sys.executable})")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<55s} {median:6.3f} s  {median / reference:5.2f}x the reference")


if __name__ == "__main__":
    main()
