"""One check per kind of parameter, shared by every public function (private).

Each check returns the value in canonical form (a Python int, a float, a
``numpy.random.Generator`` ...) or raises ``TypeError``/``ValueError`` with a message
naming the parameter, so that bad arguments are refused at the door and never reach
numpy, scipy or scikit-learn.
"""

import functools
import numbers
import os
import warnings

import numpy as np

__all__ = []

#: Largest number of power iterations accepted. Beyond a few dozen iterations the
#: normalised iterates have converged to the Perron vector to double precision, and a
#: Gaussian's k x k covariance per graph (and k^3 work per pair) stops being affordable.
MAX_K = 1000


def describe(obj):
    """``module.Class`` of an object, for error messages."""
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def python_scalar(value):
    """A numpy scalar as the Python scalar it stands for (``0``, not ``np.int64(0)``, in a
    message); anything else (a label of an object array) as it is."""
    return value.item() if isinstance(value, np.generic) else value


def check_int(value, name, *, minimum=0):
    """Return ``value`` as a Python int ``>= minimum``; bools and floats are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_k(k):
    """Return ``k`` as an int, or raise if it is not an integer in ``1..MAX_K``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive integer, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    if k > MAX_K:
        raise ValueError(
            f"k={k} is too large (at most {MAX_K}): after a few dozen iterations the "
            "iterates no longer change in double precision"
        )
    return int(k)


def check_ridge(ridge):
    """Return ``ridge`` as a float, or raise if it is negative or not finite."""
    if isinstance(ridge, bool) or not isinstance(ridge, numbers.Real):
        raise TypeError(f"ridge must be a non-negative number, got {ridge!r}")
    ridge = float(ridge)
    if not np.isfinite(ridge) or ridge < 0:
        raise ValueError(f"ridge must be a finite non-negative number, got {ridge}")
    return ridge


def check_seed(seed, name="seed"):
    """Turn ``seed`` (None, int or Generator) into a ``numpy.random.Generator``.

    Global random state is never used: ``None`` gives fresh OS entropy. A Generator is
    used as it is (and advanced), as in NetworkX and scikit-learn. ``name`` is the
    argument's name in messages.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        if seed is not None and seed < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {seed}")
        return np.random.default_rng(None if seed is None else int(seed))
    raise TypeError(f"{name} must be None, an int or a numpy.random.Generator, got {seed!r}")


def random_state_refused(owner):
    """The TypeError for ``random_state=`` given to ``owner`` (a class name, or
    ``"kernel 'meanmap'"``): the package's one seed name is ``seed``, NetworkX's
    (docs/design.rst, "One meaning per parameter")."""
    return TypeError(f"{owner}: random_state= is spelled seed= in graphinvariants (one name for randomness "
                     "everywhere, NetworkX's: an int, a numpy.random.Generator or None)")


def refuses_random_state(init):
    """Decorate an ``__init__`` so that ``random_state=`` is refused at construction
    with :func:`random_state_refused`'s hint instead of Python's bare "unexpected
    keyword argument". :func:`inspect.signature` (and so scikit-learn's
    ``get_params`` and ``clone``) still sees the decorated ``__init__``'s parameters."""

    @functools.wraps(init)
    def checked(self, *args, **kwargs):
        if "random_state" in kwargs:
            raise random_state_refused(type(self).__name__)
        return init(self, *args, **kwargs)

    return checked


def warn_deprecated(old, new):
    """Warn that the class ``old`` is deprecated since 0.3.0 in favour of ``new``
    (scikit-learn's convention: a FutureWarning at construction, removal a release
    later). Called from an ``__init__`` decorated by :func:`refuses_random_state`, so
    the warning points at the user's line."""
    warnings.warn(f"{old} is deprecated since 0.3.0 and goes in 0.4.0: use {new}", FutureWarning, stacklevel=4)


def check_seed_sequence(seed):
    """Turn ``seed`` (None, int or Generator) into a ``numpy.random.SeedSequence``.

    For functions that hand independent streams to parts of the work (one per graph,
    one per repetition) so that results do not depend on ``n_jobs``. An int gives
    ``SeedSequence(seed)``; a Generator is advanced once to draw the entropy.
    """
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**32, size=4, dtype=np.uint64).tolist())
    check_seed(seed)
    return np.random.SeedSequence(None if seed is None else int(seed))


def check_n_jobs(n_jobs):
    """Number of worker threads following the scikit-learn convention (None -> 1, -1 -> all)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


def check_working_memory(working_memory):
    """MiB a chunked computation may use, as a float; None: scikit-learn's global
    ``sklearn.get_config()["working_memory"]``."""
    if working_memory is None:
        from sklearn import get_config

        return float(get_config()["working_memory"])
    if isinstance(working_memory, bool) or not isinstance(working_memory, numbers.Real):
        raise TypeError(f"working_memory must be None or a number of MiB, got {working_memory!r}")
    if not np.isfinite(working_memory) or working_memory <= 0:
        raise ValueError(f"working_memory must be a positive number of MiB, got {working_memory}")
    return float(working_memory)


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``, else raise naming them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {tuple(choices)}")
    return value
