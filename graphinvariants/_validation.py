"""Argument checks shared by the public functions (private)."""

import numbers

import numpy as np

__all__ = []


def check_k(k):
    """Return ``k`` as an int, or raise if it is not a positive integer."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive integer, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    return int(k)


def check_ridge(ridge):
    """Return ``ridge`` as a float, or raise if it is negative or not finite."""
    if isinstance(ridge, bool) or not isinstance(ridge, numbers.Real):
        raise TypeError(f"ridge must be a non-negative number, got {ridge!r}")
    ridge = float(ridge)
    if not np.isfinite(ridge) or ridge < 0:
        raise ValueError(f"ridge must be a finite non-negative number, got {ridge}")
    return ridge


def check_seed(seed):
    """Turn ``seed`` (None, int or Generator) into a ``numpy.random.Generator``.

    Global random state is never used: ``None`` gives fresh OS entropy.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise TypeError(f"seed must be None, an int or a numpy.random.Generator, got {seed!r}")


def check_n_jobs(n_jobs):
    """Number of workers following the scikit-learn convention (None -> 1, -1 -> all)."""
    import os

    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)
