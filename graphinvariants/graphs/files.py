"""Which file names are graph data (private to the package).

The suffixes :func:`~graphinvariants.read_edgelist` reads, and :func:`path_hint`: the
one place where a graph argument that is a path (a ``str`` that names a file, or an
``os.PathLike``) is told apart from a SMILES string, so that every function taking a
graph can point to the reader instead of to ``from_smiles``.
"""

import os
import re

__all__ = []

#: File suffixes and the format they mean; a compression suffix may follow.
SUFFIXES = {
    ".txt": "text", ".tsv": "text", ".edges": "text", ".el": "text", ".edgelist": "text",
    ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
}
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}

#: Suffixes of other files of graphs or tables, which no SMILES string ends with
#: (a SMILES string may hold "." between molecules, "/" and "\\" as bond directions).
_OTHER_SUFFIXES = (".zip", ".mtx", ".gml", ".graphml", ".gexf", ".net", ".json", ".npz", ".npy", ".adjlist",
                   ".dat", ".konect", ".pkl", ".pickle", ".tar")
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def looks_like_path(obj, *, exists=True):
    """Whether ``obj`` stands for a file: an ``os.PathLike``, or a ``str`` that names
    an existing file or folder (only with ``exists``: a SMILES string may name a file
    of the working folder too), ends with a suffix of graph data (``.txt``,
    ``.csv.gz``, ``.parquet`` ...), or starts as a path does (``/``, ``./``, ``../``,
    ``~``, a drive letter)."""
    if isinstance(obj, os.PathLike):
        return True
    if not isinstance(obj, str) or not obj:
        return False
    try:
        if exists and os.path.exists(obj):
            return True
    except (ValueError, OSError):  # a NUL byte, a name too long
        return False
    lower = obj.lower()
    return (lower.endswith(tuple(SUFFIXES) + tuple(COMPRESSIONS) + _OTHER_SUFFIXES)
            or obj.startswith(("/", "./", "../", "~")) or bool(_DRIVE.match(obj)))


def path_hint(obj, *, exists=True):
    """``"; 'edges.txt' looks like a file: ... read_edgelist ..."`` for a graph
    argument that looks like a path (:func:`looks_like_path`), or a list or tuple whose
    first item does (one look: a collection is paths or not; by its form, not by a file
    of that name, since a list may be SMILES strings), else ``""``; for the end of a
    TypeError's message. ``exists``: a string naming an existing file counts (see
    :func:`looks_like_path`)."""
    if isinstance(obj, (list, tuple)) and obj and looks_like_path(obj[0], exists=False):
        name = os.fspath(obj[0])
        return (f"; {name!r} looks like a file: read each network with graphinvariants.read_edgelist(path) "
                "(text, CSV or Parquet edge lists) and pass the graphs it returns")
    if not looks_like_path(obj, exists=exists):
        return ""
    name = os.fspath(obj)
    return (f"; {name!r} looks like a file: read the network in it with graphinvariants.read_edgelist({name!r}) "
            "(text, CSV or Parquet edge lists) and pass the graph it returns")
