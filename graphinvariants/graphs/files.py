"""Which files are graph data, and in which format (private to the package).

The suffixes :func:`~graphinvariants.read_edgelist` reads, :func:`check_path`: a file's
format from its name or ``format=``, a compressed or binary file named as text refused
by its first bytes; and :func:`path_hint`: the
one place where a graph argument that is a path (a ``str`` that names a file, or an
``os.PathLike``) is told apart from a SMILES string, so that every function taking a
graph can point to the reader instead of to ``from_smiles``.
"""

import os
import re

__all__ = []

#: The formats :func:`~graphinvariants.read_edgelist` reads: Matrix Market and KONECT
#: files are text with ``%`` comments (a Matrix Market file's size line skipped).
FORMATS = ("text", "csv", "parquet", "matrixmarket", "konect")

#: File suffixes and the format they mean; a compression suffix may follow.
SUFFIXES = {
    ".txt": "text", ".tsv": "text", ".edges": "text", ".el": "text", ".edgelist": "text",
    ".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".mtx": "matrixmarket",
}
#: KONECT names its edge lists ``out.NAME`` (``out.ego-facebook``), whatever follows.
KONECT_PREFIX = "out."
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}

#: Suffixes of other files of graphs or tables, which no SMILES string ends with
#: (a SMILES string may hold "." between molecules, "/" and "\\" as bond directions).
_OTHER_SUFFIXES = (".zip", ".gml", ".graphml", ".gexf", ".net", ".json", ".npz", ".npy", ".adjlist",
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


# ---------------------------------------------------------------- a file's format

#: The first bytes of files that are not text, and what to do with them.
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"PAR1": "Parquet", b"PK\x03\x04": "zip"}
_MAGIC_HINTS = {
    "gzip": "name it with its compression suffix (.gz), or unpack it",
    "bz2": "name it with its compression suffix (.bz2), or unpack it",
    "xz": "name it with its compression suffix (.xz), or unpack it",
    "Parquet": "name it .parquet, or pass format='parquet'",
    "zip": "unzip it and read the edge list inside",
}


def check_path(path, format):
    """``(path, format, compression, parts)``: ``parts`` lists the Parquet files of a
    folder (None for one file). ``format=None`` is told by the suffix before any
    compression suffix (:data:`SUFFIXES`), or a KONECT name (``out.NAME``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if os.path.isdir(path):
        return path, "parquet", None, _parquet_parts(path, format)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file or folder: {path!r}")
    stem, suffix = os.path.splitext(path)
    compression = COMPRESSIONS.get(suffix.lower())
    if compression is not None:
        stem, suffix = os.path.splitext(stem)
    if format is None:
        format = SUFFIXES.get(suffix.lower())
        if format is None and os.path.basename(stem + suffix).startswith(KONECT_PREFIX):
            format = "konect"
        if format is None:
            raise ValueError(f"cannot tell the format of {path!r} from its suffix {suffix!r}: pass format= one of "
                             f"{', '.join(map(repr, FORMATS))} (known suffixes: {', '.join(SUFFIXES)}; "
                             f"KONECT's {KONECT_PREFIX}NAME)")
    elif format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS} or None, got {format!r}")
    if format == "parquet" and compression is not None:
        raise ValueError(f"{path!r}: a Parquet file is compressed inside; it cannot be {compression}-compressed")
    if format != "parquet" and compression is None:  # a compressed file named as text is not read as junk
        with open(path, "rb") as raw:
            start = raw.read(6)
        kind = next((kind for magic, kind in _MAGIC.items() if start.startswith(magic)), None)
        if kind is not None:
            raise ValueError(f"{path!r} looks like a {kind} file, not {format}: {_MAGIC_HINTS[kind]}")
    return path, format, compression, None


def _parquet_parts(folder, format):
    """The Parquet files of a folder (a dataset written in parts), in natural order."""
    if format not in (None, "parquet"):
        raise ValueError(f"{folder!r} is a folder: a text or CSV edge list is one file (a folder is read as the "
                         "Parquet files it holds)")
    parts = []
    for root, folders, files in os.walk(folder):
        folders[:] = [f for f in folders if not f.startswith((".", "_"))]
        parts += [os.path.join(root, f) for f in files
                  if not f.startswith((".", "_")) and os.path.splitext(f)[1].lower() in (".parquet", ".pq")]
    if not parts:
        raise ValueError(f"{folder!r} is a folder with no Parquet files (*.parquet, *.pq) in it: read_edgelist "
                         "reads one edge-list file, or a folder of Parquet parts such as Dask's to_parquet writes "
                         "(text or CSV parts: read one file at a time, or write the table as Parquet)")

    def natural(name):
        return [int(piece) if piece.isdigit() else piece for piece in re.split(r"(\d+)", name)]
    return sorted(parts, key=lambda p: natural(os.path.relpath(p, folder)))
