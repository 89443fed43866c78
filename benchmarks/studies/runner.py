"""The one runner of the studies: arguments, the timer, peak memory, and output stamped with the commit and machine.

A study (a script that makes a figure or table of the docs) starts with ``args = parse(parser(__doc__, repeat=3))``
(or ``commands(__doc__, name=dict(...))``), which prints the commit (``+dirty`` with changes), machine and versions;
``--record FILE`` also writes the output there. Data, floor and peers: ``benchmarks/benchmarks/common.py``.
"""

import argparse
import contextlib
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the asv package: benchmarks.common
from benchmarks.common import TU_DATA  # noqa: E402


class option:
    """An option's default with its help text: ``quick=option(False, "a smaller run")``; ``type`` reads a value
    otherwise (``option(10**6, "graphs", type=lambda v: int(float(v)))`` takes ``1e6``)."""

    def __init__(self, default, help=None, type=None):
        self.default, self.help, self.type = default, help, type


def parser(doc, *, data=False, repeat=None, **options):
    """A study's command line: ``--record``, ``--data`` (if ``data``), ``--repeat`` (if given) and one ``--name`` per
    option, of its default's type (a list: ``nargs="*"``; a bool: a flag)."""
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
    """A study's command line with subcommands (``args.what``), each's options as :func:`parser` takes them."""
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
    """Parse the command line, print the stamp, line-buffer the output and tee it to ``--record``."""
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # every line out as it is printed
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
    """Call ``fn()`` ``repeat`` times: ``(wall seconds of each call, the last result)``; with ``collect``, each result
    dropped and the garbage collected before the next call."""
    times, result = [], None
    for _ in range(repeat):
        if collect:
            result = None
            gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return times, result


@contextlib.contextmanager
def section(label, results):
    """``with section("embed", results):`` stores the block's wall seconds in ``results[label]``."""
    start = time.perf_counter()
    yield
    results[label] = time.perf_counter() - start


def in_child(module, function, *, stderr=subprocess.PIPE, **kwargs):
    """``module.function(**kwargs)`` (a study of this folder) in a fresh interpreter, warnings off: ``(the finished
    process, the JSON lines it printed)``."""
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import {module}; "
            f"{module}.{function}(**json.loads(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", code, json.dumps(kwargs)], stdout=subprocess.PIPE, stderr=stderr,
                          text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return done, [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (figures to files, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextlib.contextmanager
def local_cluster(n_workers=2, **options):
    """A Dask ``LocalCluster`` of ``n_workers`` one-thread worker processes, no dashboard: its ``Client``."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=None, **options) as cluster, \
            Client(cluster) as client:
        yield client


def worker_peaks(client):
    """Each worker's peak resident memory so far (:func:`peak_gib`) as text: ``"0.41, 0.39 GiB"``."""
    return ", ".join(f"{p:.2f}" for p in client.run(peak_gib).values()) + " GiB"
