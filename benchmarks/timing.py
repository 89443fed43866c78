"""Shared by the benchmark scripts: one timer, one arithmetic floor, one command line.

Every script times its calls here (so that all of them measure wall time the same
way, with ``time.perf_counter``) and compares the library's power invariants of one
graph with :func:`floor_invariants`, the straightforward numpy computation of the same
quantities under the library's own definitions.
"""

import argparse
import contextlib
import gc
import statistics
import time
import warnings
from pathlib import Path

import numpy as np


#: The shared TU data beside the clone (``../shared/data/TU``).
TU_DATA = str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU")


def benchmark_parser(doc, *, repeat=None, data=False, **options):
    """The command line every script starts from: its docstring as the description,
    ``--data`` (the TU folder) when ``data``, ``--repeat`` when a default is given, and
    one ``--name`` per keyword option (``n_iter=5``: ``--n-iter``, of its default's type)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if data:
        parser.add_argument("--data", default=TU_DATA)
    if repeat is not None:
        parser.add_argument("--repeat", type=int, default=repeat)
    for name, default in options.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return parser


def require_grakel():
    """GraKeL (the [baselines] extra), or exit saying how to install it; its
    deprecation warnings silenced."""
    try:
        import grakel
    except ImportError as error:
        raise SystemExit('this benchmark compares with GraKeL: pip install "graphinvariants[baselines]"') from error
    warnings.simplefilter("ignore")  # GraKeL's deprecation warnings
    return grakel


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


def median_and_result(fn, repeat):
    """``(median wall seconds, the last result)`` of ``repeat`` calls of ``fn()``."""
    times, result = timed(fn, repeat)
    return statistics.median(times), result


def wall_and_cpu(fn, repeat, *, first=None, name=None, keep_result=False):
    """Median wall-clock and median CPU time of ``repeat`` calls of ``fn()``, in
    seconds (with ``keep_result``, ``(last result, wall, cpu)``); with ``first`` (a
    dict), the first call's wall time is kept in ``first[name]`` unless one is there."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    if first is not None:
        first.setdefault(name, walls[0])
    medians = statistics.median(walls), statistics.median(cpus)
    return (result, *medians) if keep_result else medians


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


def floor_invariants(A, k=5):
    """The arithmetic floor of one graph's power invariants, plain numpy and scipy.

    ``k`` products ``x_t = A x_{t-1} / ||x_{t-1}||_1`` from ``x_0 = 1`` (the summary's
    columns, ``A`` a scipy sparse matrix), then the mean and the covariance divided by
    ``n``, as the library defines them (:class:`graphinvariants.PowerInvariants`).
    Returns ``(mean, covariance)``.
    """
    n = A.shape[0]
    S = np.empty((n, k))
    x = np.ones(n)
    for t in range(k):
        x = A @ (x / x.sum())
        S[:, t] = x
    mean = S.mean(axis=0)
    S -= mean
    return mean, S.T @ S / n
