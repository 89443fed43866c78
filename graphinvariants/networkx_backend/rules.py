"""Each backend function's own ``can_run`` and ``should_run`` (nx-parallel's way).

NetworkX's dispatcher asks a backend two questions about a call: can it give the answer
(``can_run``), and is it worth it when the backend was chosen by a priority rather than
by ``backend=`` (``should_run``)? Here each function carries its answers, attached by
:func:`backend_function`, and :mod:`~graphinvariants.networkx_backend.interface` only
looks them up by name. A rule takes the function's own arguments and returns True or a
string: the reason it declines.

A function that cannot give NetworkX's exact answer declines by raising
``NotImplementedError`` with that reason when it is called, rather than through the
interface's ``can_run``: NetworkX's dispatcher logs a reason returned by ``can_run`` (at
DEBUG level) and raises its generic "not implemented ... for the given arguments",
whereas a ``NotImplementedError`` raised by the function becomes the cause of
NetworkX's error under ``backend=``, so the user reads the reason in the traceback (and
in ``err.__cause__``). With a priority, NetworkX runs the call itself in both cases.

Examples
--------
>>> from graphinvariants.networkx_backend.rules import backend_function
>>> @backend_function(can_run=lambda x: True if x >= 0 else "x is negative")
... def square_root(x):
...     return x**0.5
>>> square_root(4.0), square_root.can_run(-1), square_root.should_run(4.0)
(2.0, 'x is negative', True)
>>> square_root(-1)
Traceback (most recent call last):
...
NotImplementedError: x is negative
"""

import functools

__all__ = ["always", "backend_function"]


def always(*args, **kwargs):
    """The rule of a function that runs whatever its arguments: True."""
    return True


def backend_function(*, can_run=always, should_run=always):
    """Attach NetworkX's dispatch rules to a backend function.

    Parameters
    ----------
    can_run : callable, keyword-only
        Called with the function's arguments: True if the backend gives NetworkX's exact
        answer, else the reason it does not. The decorated function checks it first and
        raises ``NotImplementedError(reason)``.
    should_run : callable, keyword-only
        Called with the function's arguments when the backend was chosen by a priority:
        True, or why NetworkX's own implementation is the better choice (``backend=``
        runs the backend regardless).

    Returns
    -------
    callable
        The decorator; the decorated function has the attributes ``can_run`` and
        ``should_run``, and NetworkX's signature and docstring.
    """

    def decorate(func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            reason = can_run(*args, **kwargs)
            if reason is not True:
                raise NotImplementedError(reason)
            return func(*args, **kwargs)

        run.can_run = can_run
        run.should_run = should_run
        return run

    return decorate
