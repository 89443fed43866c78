"""Shared by the benchmark scripts: the median wall time of a call."""

import statistics
import time


def median_time(fn, repeat):
    """Median of ``repeat`` wall-clock timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
