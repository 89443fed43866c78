"""What the commands share: their progress bars, their output files (checked before
any work, written atomically) and their inputs (TU data sets, integer options)."""

import argparse
import contextlib
import os
from pathlib import Path

__all__ = []


def command_progress(args, total, desc):
    """A tqdm bar for a command's long steps: not with --quiet, and only on a terminal."""
    from .._utils.progress import progress_bar

    return progress_bar(False if args.quiet else None, total=total, desc=desc, unit="step", leave=False)


# -- outputs ----------------------------------------------------------------------------
def out_figure(text):
    """``--out`` as a figure file to write, its folder created; a ValueError says why it cannot be."""
    from matplotlib.backend_bases import FigureCanvasBase

    figure = Path(text)
    if figure.is_dir() or text.endswith(("/", os.sep)):
        raise ValueError(f"--out {text} is a folder; give a figure file, such as {figure / 'perturbation.png'}")
    formats = FigureCanvasBase.get_supported_filetypes()
    if not figure.suffix or figure.suffix[1:].lower() not in formats:
        what = f"{figure.suffix} is no figure format" if figure.suffix else "the file name has no figure extension"
        raise ValueError(f"--out {text}: {what}; use one of " + ", ".join(f".{f}" for f in sorted(formats)))
    make_writable_folder(figure.parent)
    outputs = (figure, figure.with_suffix(".csv"), figure.with_suffix(".json"))
    for path in outputs:  # all three, before any work
        if path.is_dir():
            raise ValueError(f"--out {text}: {path} is a folder, and the figure's CSV and JSON go beside it")
    check_output_files(outputs)
    return figure


def make_writable_folder(folder):
    """Create the ``--out`` folder if needed; a ValueError says why it cannot be written in."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out: {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--out: cannot create the folder {folder} ({err.strerror})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--out: cannot write in the folder {folder} (permission denied)")


@contextlib.contextmanager
def written_atomically(path, binary=False):
    """Open a new file beside ``path`` for writing, and rename it to ``path`` once it
    is complete (an atomic replacement on POSIX and Windows): a full disk or an
    interruption leaves the previous ``path``, or none, never a truncated one.

    An OSError is raised again as a ValueError naming ``path``.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb" if binary else "w", **({} if binary else {"newline": ""})) as fh:
            yield fh
        os.replace(temporary, path)
    except OSError as err:
        raise ValueError(f"cannot write {path} ({err.strerror or err}); it is left as it was") from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def check_output_files(paths):
    """Refuse, before any work, output files that could not be written: a folder in
    the way, or a folder in which no file can be created (probed by creating one)."""
    for path in paths:
        if path.is_dir():
            raise ValueError(f"--out: cannot write {path}, it is a folder")
    for folder in dict.fromkeys(path.parent for path in paths):
        probe = folder / f".graphinvariants-probe-{os.getpid()}"
        try:
            probe.open("x").close()
        except OSError as err:
            raise ValueError(f"--out: cannot write in the folder {folder} ({err.strerror or err})") from None
        probe.unlink()


# -- inputs -----------------------------------------------------------------------------
def load_data_sets(args):
    """The TU data sets named on the command line, by name; the first that cannot be loaded raises."""
    import graphinvariants as gi
    from ..datasets import DataNotFoundError

    # an explicit --data-home is looked in only, unless --download asks for more
    download = args.download or (args.data_home is None and not args.no_download)
    out = {}
    for name in args.datasets:
        try:
            ds = gi.load_tu(name, data_home=args.data_home, download=download)
        except DataNotFoundError as err:
            if download or args.no_download:
                raise
            raise ValueError(f"{err.message(data_home_option='--data-home')} With --data-home nothing is downloaded "
                             f"unless --download is given.") from None
        out[ds.name] = ds
    return out


def int_at_least(minimum):
    """An argparse ``type``: an integer that is at least ``minimum``."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def nonzero_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must not be 0 (a count of workers, or -1 for one per core)")
    return value
