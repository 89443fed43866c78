"""The one runner of the studies: arguments, the timer, peak memory, and output stamped with the commit and machine.

A study is a script that makes a figure or a table of the docs. It starts with::

    from runner import parse, parser
    args = parse(parser(__doc__, data=True, repeat=3, sets=["MUTAG"]))

(or ``commands(__doc__, name=dict(...))`` for subcommands), which prints one line naming the
commit (``+dirty`` when the tree has changes), the machine and the library versions, and
with ``--record FILE`` writes what the study prints to ``FILE`` as well. Every study
times its calls with the timers below (``time.perf_counter``, wall, and
``time.process_time``, CPU). Data, floor and peers are shared with the asv suites
(``benchmarks/benchmarks/common.py``).
"""

import argparse
import contextlib
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the asv package: benchmarks.common
from benchmarks.common import TU_DATA  # noqa: E402


class option:
    """An option's default with its help text: ``quick=option(False, "a smaller run")``; ``type``
    reads a value otherwise (``option(10**6, "graphs", type=lambda v: int(float(v)))`` takes ``1e6``)."""

    def __init__(self, default, help=None, type=None):
        self.default, self.help, self.type = default, help, type


def parser(doc, *, data=False, repeat=None, **options):
    """The command line every study starts from: its docstring as the description,
    ``--record``, ``--data`` (the TU folder) when ``data``, ``--repeat`` when a default is
    given, and one ``--name`` per keyword option (``n_iter=5``: ``--n-iter``, of its
    default's type; a list: ``nargs="*"`` of its first item's type; a bool: a flag; an
    :class:`option`: the same with a help text)."""
    out = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    out.add_argument("--record", type=Path, default=None, help="also write the output (after the stamp) to this file")
    if data:
        out.add_argument("--data", default=TU_DATA)
    if repeat is not None:
        out.add_argument("--repeat", type=int, default=repeat)
    _add_options(out, options)
    return out


def _add_options(out, options):
    for name, default in options.items():
        flag, text, kind = "--" + name.replace("_", "-"), None, None
        if isinstance(default, option):
            default, text, kind = default.default, default.help, default.type
        if kind is not None:
            out.add_argument(flag, type=kind, default=default, help=text)
        elif isinstance(default, bool):
            out.add_argument(flag, action="store_true", default=default, help=text)
        elif isinstance(default, (list, tuple)):
            out.add_argument(flag, nargs="*", type=type(default[0]) if default else str, default=list(default),
                             help=text)
        else:
            out.add_argument(flag, type=str if default is None else type(default), default=default, help=text)


def commands(doc, **subcommands):
    """The command line of a study with subcommands (``args.what`` names the one run):
    ``commands(__doc__, ridge=dict(seed=0), cost=dict(...))``, each subcommand's options
    as :func:`parser` takes them."""
    out = parser(doc)
    sub = out.add_subparsers(dest="what", required=True)
    for name, options in subcommands.items():
        _add_options(sub.add_parser(name, description=doc, formatter_class=out.formatter_class), options)
    return out


def stamp():
    """The commit (``+dirty`` with changes), machine and versions, as a dict."""
    def git(*args):
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip()

    import numpy

    import graphinvariants

    dirty = "+dirty" if git("status", "--porcelain") else ""
    return {"commit": (git("rev-parse", "--short", "HEAD") or "unknown") + dirty,
            "machine": f"{platform.node()}, {platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
            "python": platform.python_version(), "numpy": numpy.__version__,
            "graphinvariants": graphinvariants.__version__,
            "load": round(os.getloadavg()[0], 2), "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])}


class _Tee:
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for stream in self.streams:
            stream.write(text)

    def flush(self):
        for stream in self.streams:
            stream.flush()


def parse(parser, argv=None):
    """Parse the command line, print the stamp, and tee the output to ``--record``."""
    args = parser.parse_args(argv)
    if getattr(args, "record", None) is not None:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        sys.stdout = _Tee(sys.__stdout__, open(args.record, "a", buffering=1))
    print("# " + json.dumps(stamp()), flush=True)
    return args


# -- the timer and the memory ------------------------------------------------------------
def peak_gib():
    """The peak resident memory of this process so far, in GiB (``ru_maxrss``, KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def clock():
    """Wall seconds from an arbitrary origin (``time.perf_counter``): ``clock() - start``."""
    return time.perf_counter()


def timed(fn, repeat=1, *, collect=False):
    """Call ``fn()`` ``repeat`` times: ``(wall seconds of each call, the last result)``.

    With ``collect=True`` the garbage collector runs before each call and each result
    is dropped before the next call starts (for memory-heavy calls whose leftovers
    would otherwise weigh on the next one).
    """
    times, result = [], None
    for _ in range(repeat):
        if collect:
            result = None
            gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return times, result


def median_time(fn, repeat, *, collect=False):
    """Median of ``repeat`` wall-clock timings of ``fn()``, in seconds."""
    return statistics.median(timed(fn, repeat, collect=collect)[0])


def timed_once(fn):
    """``(result, cpu seconds, wall seconds)`` of one call of ``fn()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def interleaved_medians(calls, repeat):
    """Median wall time of each of ``calls`` (a dict of name -> function), the calls run
    interleaved so that every one sees the same load."""
    times = {name: [] for name in calls}
    for _ in range(repeat):
        for name, fn in calls.items():
            times[name].append(timed(fn)[0][0])
    return {name: statistics.median(values) for name, values in times.items()}


@contextlib.contextmanager
def section(label, results):
    """``with section("embed", results):`` stores the block's wall seconds in ``results[label]``."""
    start = time.perf_counter()
    yield
    results[label] = time.perf_counter() - start
