"""Progress bars: one helper makes every bar of the package.

tqdm redraws its bar with carriage returns; written to a file or a pipe (a log, CI) that
becomes one long line of ``\\r`` frames. Here a bar shows on a terminal (or in a
notebook, as tqdm's widget); elsewhere it prints nothing when it was only wanted on a
terminal (``progress=None``), and plain lines when it was asked for (``progress=True``).
"""

import sys

__all__ = ["progress_bar", "quiet_or_bar"]

#: Seconds between two plain lines of a bar written to a file or a pipe.
LINE_INTERVAL = 10.0


class _Lines:
    """A text stream for tqdm that turns its ``\\r`` frames into whole lines."""

    def __init__(self, stream):
        self.stream = stream
        self.last = None

    def write(self, text):
        line = text.replace("\r", "").rstrip()
        if line and line != self.last:
            self.stream.write(line + "\n")
            self.last = line

    def flush(self):
        self.stream.flush()


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def progress_bar(progress, iterable=None, *, total=None, desc=None, unit="it", leave=True, initial=0):
    """A tqdm bar over ``iterable`` (or of ``total`` steps, updated by hand).

    Parameters
    ----------
    progress : bool or None
        True: shown, as plain lines when standard error is not a terminal (a file, a
        pipe), one every :data:`LINE_INTERVAL` seconds and the last; None: shown on a
        terminal or in a notebook only; False: nothing (the bar still counts).
    iterable, total, desc, unit, leave, initial
        As for :class:`tqdm.tqdm`.

    Returns
    -------
    tqdm.tqdm

    Examples
    --------
    >>> from graphinvariants._utils.progress import progress_bar
    >>> with progress_bar(False, total=3, desc="quiet") as bar:
    ...     bar.update(3)
    >>> sum(progress_bar(False, range(4)))
    6
    """
    import warnings

    from tqdm import tqdm as plain
    from tqdm.auto import tqdm as auto

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tqdm's "experimental" warning in a notebook
        from tqdm.autonotebook import tqdm as notebook  # tqdm.std.tqdm outside a notebook

    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    options = {"total": total, "desc": desc, "unit": unit, "leave": leave, "initial": initial}
    stream = sys.stderr
    if not progress and progress is not None:
        return plain(iterable, disable=True, **options)
    if _is_terminal(stream) or notebook is not plain:  # a terminal, or a notebook's widget
        return auto(iterable, disable=False, **options)
    if progress is None:
        return plain(iterable, disable=True, **options)
    options["leave"] = True  # a log keeps the last line
    return plain(iterable, file=_Lines(stream), mininterval=LINE_INTERVAL, bar_format="{l_bar}{r_bar}", **options)


class _NoBar:
    """What :func:`quiet_or_bar` gives for a bar of steps nobody asked to see."""

    def update(self, n=1):
        pass

    def set_postfix_str(self, text):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def quiet_or_bar(progress, iterable=None, *, total=None, desc=None, unit="it"):
    """A bar only when ``progress`` is true (:func:`progress_bar` with ``progress=True``);
    otherwise ``iterable`` itself, or a bar of ``total`` steps that does nothing, without
    loading tqdm: what a per-call path (one query's rows) can afford.

    Examples
    --------
    >>> from graphinvariants._utils.progress import quiet_or_bar
    >>> quiet_or_bar(False, range(3))
    range(0, 3)
    >>> with quiet_or_bar(None, total=2) as bar:
    ...     bar.update(2)
    """
    if not progress:
        return _NoBar() if iterable is None else iterable
    return progress_bar(True, iterable, total=total, desc=desc, unit=unit)
