"""One network from an edge-list file, streamed into CSR without building a graph object.

:func:`read_edgelist` reads SNAP-style text (``#`` comment lines, tab- or
space-separated columns, an optional weight column), CSV and Parquet into a
:class:`~graphinvariants.graphs.GraphAdjacency`, which every function of the library
takes. The file is read in chunks of about a million rows (pandas' C parser for text
and CSV, pyarrow's row batches for Parquet); node ids are mapped to ``0..n-1`` once,
written straight into the mirrored entry arrays (int32 where they fit), chunk by chunk,
and the CSR is assembled by scipy (``csr.compress_entries``), so the peak memory is a
small multiple of the final CSR, never of a NetworkX graph.

Node ids and their order
    Ids are integers when every id of the file is written as one (an optional sign
    and the digits 0-9; ``01`` and ``1`` are then the same node), strings as written
    otherwise; ``nodetype=int`` or ``nodetype=str`` decides instead. An id written as
    an integer that does not fit in 64 bits is an error naming its line, whichever
    line it is on, when the ids are read as integers (in a file that also has string
    ids it is a string, as every id there; ``nodetype=str`` reads every id as written). The nodes are the
    distinct ids in increasing order (numbers by value, strings by code point), so the
    order does not depend on the order of the lines. Parquet columns keep their type.

The conventions are :func:`~graphinvariants.as_adjacency`'s: an undirected edge gives
both ``A[i, j]`` and ``A[j, i]``, a self-loop puts its weight (1 unweighted) once on the
diagonal; without ``weight`` parallel edges collapse to one edge, with it they add,
zero weights are dropped and negative, NaN, infinite or boolean ones refused, as are
parallel weights whose sum is infinite. The result equals
``as_adjacency(networkx.read_edgelist(path, create_using=networkx.MultiGraph), ...)``
with its nodes reordered (``tests/graphs/test_edgelist.py``).
"""

import bz2
import codecs
import collections
import csv
import gzip
import io
import itertools
import lzma
import math
import os
import re
import warnings
import zlib

import numpy as np

from .._utils.validation import check_int
from .adjacency import GraphAdjacency
from .csr import compress_entries, index_dtype
from .files import COMPRESSIONS, SUFFIXES

__all__ = ["read_edgelist"]

_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}
FORMATS = ("text", "csv", "parquet")
CHUNK_ROWS = 1 << 20
#: Characters read at a time from a file whose first or last lines are skipped.
TEXT_BLOCK = 1 << 20
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*\Z")
_INT64 = (-(2**63), 2**63 - 1)
_INT32 = (-(2**31), 2**31 - 1)


class _Anomaly(Exception):
    """The fast reader met something it does not decide (a missing or non-integer id,
    a bad weight): the caller reads again more carefully, or names the line."""


def read_edgelist(path, *, directed=False, weight=None, source=None, target=None, comments="#",
                  delimiter=None, names=None, nodetype=None, format=None, encoding="utf-8", skiprows=0,
                  skipfooter=0):
    """Read a network from an edge-list file (text, CSV or Parquet) into CSR.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Text and CSV may be compressed (``.gz``, ``.bz2``, ``.xz``). A
        folder of Parquet files (such as ``edges.parquet/`` written by Dask's
        ``to_parquet``) is read as one table, its files in natural order of their
        names (``part.2`` before ``part.10``).
    directed : bool, keyword-only
        If False (default), every line ``u v`` is an undirected edge: both ``A[u, v]``
        and ``A[v, u]`` are stored (a self-loop once). If True, ``A[u, v]`` only.
    weight : None, str or int, keyword-only
        The weight column, by name or by position (0-based; ``2`` is SNAP's third
        column). ``None`` (default): every edge counts 1 and parallel edges collapse
        to one edge. Otherwise parallel edges add their weights, zero-weight edges are
        dropped, and a weight that is missing, not a number, negative, NaN or infinite
        is an error naming its line (booleans such as ``True`` are not numbers); an
        edge whose parallel weights add up to infinity is an error naming the edge.
    source, target : str or int, optional, keyword-only
        The columns of the edges' end points, by name or position. Default: the first
        two columns of a text file, the columns ``"u"`` and ``"v"`` of a CSV or Parquet
        table. Columns not asked for are ignored.
    comments : str or None, keyword-only
        One character that starts a comment (text and CSV): the rest of the line is
        ignored, and a line left empty is skipped, as NetworkX does. Default ``"#"``
        (SNAP); KONECT's and Matrix Market files need ``"%"`` (a file whose first
        line that is not a comment starts with ``%`` is refused with that hint);
        ``None`` for no comments.
    delimiter : str or None, keyword-only
        One character between columns. ``None`` (default): any run of spaces and tabs
        for text, ``","`` for CSV.
    names : sequence of str, optional, keyword-only
        Column names of a text or CSV file that has no header line. A CSV file without
        ``names`` has its column names on its first line (after any comments); a text
        file has no header line.
    nodetype : None, int or str, keyword-only
        ``None`` (default): integer ids when every id is written as an integer (that
        fits in 64 bits), strings otherwise (for Parquet: the columns' type). A text file
        has no header line: a line such as ``FromNodeId ToNodeId`` must be a comment,
        or it is read as an edge between two string ids. ``int``: integers, an id that is not
        one is an error naming its line. ``str``: the ids as written.
    format : {"text", "csv", "parquet"} or None, keyword-only
        ``None`` (default) infers it from the suffix: ``.txt``, ``.tsv``, ``.edges``,
        ``.el``, ``.edgelist`` are text; ``.csv`` CSV; ``.parquet``, ``.pq`` Parquet;
        before ``.gz``, ``.bz2`` or ``.xz`` for compressed text and CSV.
    encoding : str, keyword-only
        Encoding of text and CSV files (default UTF-8); bytes it cannot decode are
        an error naming their line.
    skiprows : int, keyword-only
        Lines skipped at the top of a text or CSV file, every line counted (comments
        and blank lines too), as pandas' ``skiprows``: ``1`` for a node count on the
        first line, as course and benchmark files often have. Default 0.
    skipfooter : int, keyword-only
        Lines skipped at the end of a text or CSV file, counting only the lines that
        hold data (not blank lines or comments), such as a terminator line. Default
        0. Line numbers in messages still count every line of the file.

    Returns
    -------
    GraphAdjacency
        Canonical float64 CSR (int32 indices up to 2**31 - 1 nodes; unweighted, from
        2**20 nodes plus stored entries on, no data array but a read-only broadcast of
        1.0, as every other input gets) and the node ids in
        increasing order (numbers by value, strings by code point), so that row ``i`` is
        ``nodes[i]``. An edge list cannot name an isolated node: every node has an edge.

    Raises
    ------
    FileNotFoundError
        If there is no such file or folder.
    ValueError
        If a line is malformed: too few columns, a missing id, an id that is not an
        integer under ``nodetype=int``, an integer id that does not fit in 64 bits
        (under ``nodetype=None`` too, whatever its line, when the ids are integers:
        ``nodetype=str`` reads it),
        a weight that is not a non-negative finite number, bytes that ``encoding``
        cannot decode, a first line that starts with ``%`` while ``comments`` is not
        ``"%"``; the message gives the file, the line number (1-based, counting every
        line, comments and header too; a row number for Parquet) and the line's text.
        Also if a compressed file cannot be decompressed (truncated, damaged, or not
        compressed), if the weights of an edge add up to infinity (the message names
        the edge), or if a folder holds no Parquet file.
        Also if the file holds no edge (empty, or only comments and blank lines): an
        edge list names no node then, and a graph without nodes has no invariants;
        if a column asked for does not exist; or if the format cannot be inferred.
    TypeError
        If an option has the wrong type, or a Parquet column is neither integers nor
        strings (ids) or numbers (weights).
    ImportError
        If pandas or pyarrow is missing: ``pip install "graphinvariants[io]"``.

    Notes
    -----
    Time: the pandas parse of the file, a few linear passes over the edges (the ids are
    mapped by a table indexed by value; by a sort of the distinct ids when they are
    spread over a range much wider than their number), and scipy's ``coo -> csr``.
    Memory: a small multiple of the returned CSR (``benchmarks/benchmarks/graphs.py`` (asv ``graphs.ReadEdgelist``) measures it). A text
    file whose ids are not all integers is parsed as strings, which is several times
    slower; when the first non-integer id comes late in the file, the file is read
    twice. With ``skiprows`` or ``skipfooter``, the text passes through Python in
    blocks of a million characters on its way to pandas. Warnings of pandas about
    its own parsing (mixed types in a column) do not reach the caller: the reader
    decides what an id is itself.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> from pathlib import Path
    >>> from tempfile import TemporaryDirectory
    >>> with TemporaryDirectory() as folder:
    ...     path = Path(folder) / "web.txt"
    ...     _ = path.write_text("# FromNodeId\\tToNodeId\\n30\\t10\\n10\\t20\\n20\\t30\\n")
    ...     adj = gi.read_edgelist(path)
    >>> adj
    <GraphAdjacency: 3 nodes, 6 stored entries, unweighted>
    >>> adj.nodes
    (10, 20, 30)
    >>> round(gi.power_kernel(adj, adj, k=3), 12)
    1.0

    A course file that starts with its node count and ends with a terminator:

    >>> with TemporaryDirectory() as folder:
    ...     path = Path(folder) / "course.txt"
    ...     _ = path.write_text("3\\n1 2\\n2 3\\n3 1\\n-1\\n")
    ...     adj = gi.read_edgelist(path, skiprows=1, skipfooter=1)
    >>> adj.nodes, adj.n_edges
    ((1, 2, 3), 3)
    """
    path, fmt, compression, parts = _check_path(path, format)
    _check_options(directed, weight, source, target, comments, delimiter, names, nodetype)
    skiprows, skipfooter = check_int(skiprows, "skiprows"), check_int(skipfooter, "skipfooter")
    if fmt == "parquet" and (skiprows or skipfooter):
        raise ValueError("skiprows and skipfooter skip lines of a text or CSV file; a Parquet file has no lines")
    weighted = weight is not None
    with warnings.catch_warnings():
        _quiet_parsers()
        if fmt == "parquet":
            ids_u, ids_v, weights = _read_parquet(path, parts, source, target, weight, nodetype)
        else:
            text = _Text(path, compression, encoding, comments, skiprows, skipfooter)
            try:
                ids_u, ids_v, weights = _read_delimited(text, fmt, source, target, weight, comments, delimiter,
                                                        names, nodetype)
            except (EOFError, OSError, zlib.error, lzma.LZMAError) as err:
                if compression is None or isinstance(err, (PermissionError, FileNotFoundError, IsADirectoryError)):
                    raise
                raise ValueError(f"{path!r} cannot be decompressed as {compression} ({err}): it is truncated, "
                                 f"damaged, or not {compression}-compressed") from None
    if not any(len(chunk) for chunk in ids_u):
        raise ValueError(f"{path!r} contains no edge (it is empty, or holds only comments and blank lines): "
                         "an edge list without edges names no node")
    n, nodes, codes = _node_codes(ids_u, ids_v)
    entries = _stored_entries(n, codes, ids_u, ids_v, weights, directed=bool(directed))
    # canonical, its weights checked per chunk and their sums here
    matrix = compress_entries(n, entries, weighted=weighted, nodes=nodes, where=repr(path))
    return GraphAdjacency._trusted(matrix, nodes, weighted=weighted)


def _quiet_parsers():
    """Inside ``warnings.catch_warnings()``: silence pandas' warnings about its own
    parsing decisions (``DtypeWarning``: mixed types in a column of a long file;
    ``ParserWarning``), which the reader makes itself."""
    pd = _pandas()
    for category in (pd.errors.DtypeWarning, pd.errors.ParserWarning):
        warnings.simplefilter("ignore", category)


# ---------------------------------------------------------------- options

def _check_path(path, format):
    """``(path, format, compression, parts)``: ``parts`` lists the Parquet files of a
    folder (None for one file)."""
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
        suffix = os.path.splitext(stem)[1]
    if format is None:
        format = SUFFIXES.get(suffix.lower())
        if format is None:
            raise ValueError(f"cannot tell the format of {path!r} from its suffix {suffix!r}: pass "
                             f"format='text', 'csv' or 'parquet' (known suffixes: {', '.join(SUFFIXES)})")
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


def _check_options(directed, weight, source, target, comments, delimiter, names, nodetype):
    if not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be a bool, got {directed!r}")
    for name, value in (("weight", weight), ("source", source), ("target", target)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, np.integer)):
            raise TypeError(f"{name} must be None, a column name (str) or a position (int), got {value!r}")
        if not isinstance(value, str) and value < 0:
            raise ValueError(f"{name} must be a column position >= 0, got {value}")
    for name, value in (("comments", comments), ("delimiter", delimiter)):
        if value is not None and (not isinstance(value, str) or len(value) != 1):
            raise ValueError(f"{name} must be one character or None, got {value!r}")
    if delimiter is not None and delimiter == comments:
        raise ValueError(f"delimiter and comments are both {delimiter!r}")
    if names is not None and (isinstance(names, str) or not all(isinstance(x, str) for x in names)):
        raise TypeError(f"names must be a sequence of column names (str), got {names!r}")
    if nodetype not in (None, int, str):
        raise TypeError(f"nodetype must be None, int or str, got {nodetype!r}")


def _column(value, default, columns, what, path):
    """The position of a column given by name or position, in ``columns`` (the names,
    or None where the file's columns have only positions)."""
    value = default if value is None else value
    if isinstance(value, str):
        if columns is None:
            raise ValueError(f"{what}={value!r} names a column, but {path!r} has no column names: "
                             "give its position (0-based), or names=[...]")
        if value not in columns:
            raise ValueError(f"{what} column {value!r} not in the columns of {path!r}: {list(columns)}")
        return list(columns).index(value)
    value = int(value)
    if columns is not None and value >= len(columns):
        raise ValueError(f"{what} column position {value} is out of range: {path!r} has {len(columns)} columns")
    return value


# ---------------------------------------------------------------- text and CSV

class _Text:
    """A text or CSV file as the reader sees it: decompressed, decoded, its first
    ``skiprows`` lines and last ``skipfooter`` data lines left out."""

    def __init__(self, path, compression, encoding, comments, skiprows, skipfooter):
        self.path, self.compression, self.encoding = path, compression, encoding
        self.comments, self.skiprows, self.skipfooter = comments, skiprows, skipfooter

    def source(self):
        """``(what pandas reads, its compression and encoding options)``: the path
        itself, or a new stream of the lines kept."""
        if not (self.skiprows or self.skipfooter):
            return self.path, {"compression": self.compression, "encoding": self.encoding}
        return _Trimmed(self), {}

    def open(self):
        """The decoded text, every line (``newline=""``: line ends kept as written)."""
        opener = _OPENERS.get(self.compression, open)
        if opener is open:
            return open(self.path, encoding=self.encoding, newline="")
        return opener(self.path, "rt", encoding=self.encoding, newline="")

    def is_data(self, line):
        content = line if self.comments is None else line.split(self.comments, 1)[0]
        return bool(content.strip())

    def lines(self, *, skip=True):
        """``(number, text)`` of the lines kept (every line with ``skip=False``), the
        line end cut off; numbers count every line of the file."""
        footer = self.skipfooter if skip else 0
        pending, data = collections.deque(), 0  # lines that may still be footer, and their data lines
        try:
            with self.open() as stream:
                for number, raw in enumerate(stream, 1):
                    if skip and number <= self.skiprows:
                        continue
                    line = raw.rstrip("\r\n")
                    if not footer:
                        yield number, line
                        continue
                    is_data = self.is_data(line)
                    pending.append((number, line, is_data))
                    data += is_data
                    # a line is kept once ``footer`` data lines follow it
                    while pending and data - pending[0][2] >= footer:
                        number, line, is_data = pending.popleft()
                        data -= is_data
                        yield number, line
        except UnicodeDecodeError as err:
            raise self.decode_error(err) from None

    def decode_error(self, err):
        """The ValueError naming the line of the first bytes ``encoding`` cannot decode."""
        decoder = codecs.getincrementaldecoder(self.encoding)()
        number = 1
        with _OPENERS.get(self.compression, open)(self.path, "rb") as stream:
            for piece in stream:  # pieces end at b"\n": "\r\n" stays in one piece
                try:
                    text = decoder.decode(piece)
                except UnicodeDecodeError as bad:
                    err = bad
                    break
                number += len(_LINE_END.findall(text))
        byte = err.object[err.start:err.start + 1]
        return ValueError(f"{self.path!r}, line {number}: cannot be decoded as {self.encoding} ({err.reason}, byte "
                          f"{byte!r}): pass the file's encoding, e.g. encoding='latin-1'")


#: The first bytes of files that are not text, and what to do with them.
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"PAR1": "Parquet", b"PK\x03\x04": "zip"}
_MAGIC_HINTS = {
    "gzip": "name it with its compression suffix (.gz), or unpack it",
    "bz2": "name it with its compression suffix (.bz2), or unpack it",
    "xz": "name it with its compression suffix (.xz), or unpack it",
    "Parquet": "name it .parquet, or pass format='parquet'",
    "zip": "unzip it and read the edge list inside",
}


_LINE_END = re.compile(r"\r\n|\r|\n")


class _Trimmed(io.TextIOBase):
    """The text of a :class:`_Text` without its skipped lines, as a stream for pandas:
    the first ``skiprows`` lines are read and dropped, then blocks of
    :data:`TEXT_BLOCK` characters pass through, minus a held-back tail that always
    holds the last ``skipfooter`` data lines seen, dropped at the end."""

    def __init__(self, text):
        self.text, self.stream = text, text.open()
        self.ready, self.held, self.done = "", "", False
        try:
            for _ in range(text.skiprows):
                if not self.stream.readline():
                    break
        except UnicodeDecodeError as err:
            self.close()
            raise text.decode_error(err) from None

    def readable(self):
        return True

    def close(self):
        self.stream.close()
        super().close()

    def read(self, size=-1):
        size = None if size is None or size < 0 else size
        try:
            while not self.done and (size is None or len(self.ready) < size):
                block = self.stream.read(TEXT_BLOCK)
                self.held += block
                if not block:
                    self.done = True
                cut = self._footer_start()
                if cut is None:  # fewer data lines than the footer: all of it may be footer
                    cut = 0
                elif self.done:
                    self.held = self.held[:cut]  # the footer goes
                    cut = len(self.held)
                self.ready += self.held[:cut]
                self.held = self.held[cut:]
        except UnicodeDecodeError as err:
            raise self.text.decode_error(err) from None
        if size is None:
            out, self.ready = self.ready, ""
        else:
            out, self.ready = self.ready[:size], self.ready[size:]
        return out

    def _footer_start(self):
        """Where the last ``skipfooter`` data lines of the held text begin (the end
        when there is no footer), or None if it holds fewer."""
        held, wanted = self.held, self.text.skipfooter
        stop = len(held)
        if wanted == 0:
            return stop
        while stop > 0:
            while stop > 0 and held[stop - 1] in "\r\n":
                stop -= 1
            start = max(held.rfind("\n", 0, stop), held.rfind("\r", 0, stop)) + 1
            if self.text.is_data(held[start:stop]):
                wanted -= 1
                if wanted == 0:
                    return start
            stop = start
        return None


def _read_delimited(text, fmt, source, target, weight, comments, delimiter, names, nodetype):
    """Lists of chunks (``ids_u``, ``ids_v``, ``weights`` or None) of a text or CSV file."""
    pd = _pandas()
    path = text.path
    header = fmt == "csv" and names is None
    sep = delimiter if delimiter is not None else ("," if fmt == "csv" else None)
    options = dict(
        sep=sep, comment=comments, engine="c",
        keep_default_na=False, na_values=[""], index_col=False, skip_blank_lines=True,
    )
    if fmt == "text":
        options["quoting"] = csv.QUOTE_NONE
    _check_first_line(text, nodetype)
    columns = None if names is None else list(names)
    if header:
        where, opened = text.source()
        try:
            columns = list(pd.read_csv(where, nrows=0, header=0, **_with_sep(options, sep), **opened).columns)
        except pd.errors.EmptyDataError:
            raise ValueError(f"{path!r} contains no edge (it is empty, or holds only comments and blank lines): "
                             "an edge list without edges names no node") from None
        except UnicodeDecodeError as err:
            raise text.decode_error(err) from None
        except (ValueError, pd.errors.ParserError) as err:
            raise ValueError(f"{path!r}: cannot read the header line of the CSV file ({err})") from None
        finally:
            if not isinstance(where, str):
                where.close()
    default_u, default_v = (0, 1) if fmt == "text" else ("u", "v")
    positions = [_column(source, default_u, columns, "source", path),
                 _column(target, default_v, columns, "target", path)]
    if weight is not None:
        positions.append(_column(weight, None, columns, "weight", path))
    if len(set(positions)) < len(positions):
        raise ValueError(f"source, target and weight must be different columns, got positions {positions}")
    width = max(positions) + 1
    labels = columns if columns is not None else list(range(width))
    if len(labels) < width:
        labels = labels + [f"_column{i}" for i in range(len(labels), width)]
    options.update(header=0 if header else None, names=labels, usecols=positions)
    scan = dict(text=text, fmt=fmt, positions=positions, delimiter=delimiter, header=header)
    modes = ["int", "str"] if nodetype is not str else ["str"]
    if fmt == "text" and sep is None and nodetype is not str:
        # SNAP's files are tab-separated: the C parser's one-character split is faster than
        # its whitespace rule; a line it reads differently gives an anomaly, read again
        first = _first_data_line(text)
        first = None if first is None else first[1]
        if first is not None and "\t" in first and " " not in first and first == first.strip():
            modes.insert(0, "int-tab")
    for mode in modes:
        failure = None
        try:
            ids_u, ids_v, weights = _read_chunks(pd, text, options, sep, fmt, positions, labels, mode)
        except _Anomaly:
            failure = "an unexpected row"
        except UnicodeDecodeError as err:
            raise text.decode_error(err) from None
        except (ValueError, pd.errors.ParserError) as err:
            failure = str(err)
        if failure is None:
            if mode == "str" and nodetype is not str:
                ids_u, ids_v = _integer_ids(ids_u, ids_v, required=nodetype is int, scan=scan)
            return ids_u, ids_v, weights
        if mode != "str":
            continue  # a non-integer or missing id, a blank row the integer parse cannot tell ...
        _raise_bad_line(**scan, integer_ids=nodetype is int)  # names the line, if it is one
        raise ValueError(f"{path!r} could not be read as a {fmt} edge list: {failure}")
    raise AssertionError("unreachable")


def _with_sep(options, sep):
    """read_csv options with the separator that reads whitespace for ``sep=None``."""
    options = dict(options)
    options["sep"] = r"\s+" if sep is None else sep
    return options


def _first_data_line(text):
    """``(number, text)`` of the first line kept that is not blank once its comment
    is cut (the text without the comment), or None."""
    for number, line in text.lines():
        content = line if text.comments is None else line.split(text.comments, 1)[0]
        if content.strip():
            return number, content
    return None


def _check_first_line(text, nodetype):
    """Refuse a file whose first data line is a ``%`` comment while ``comments`` is
    not ``"%"`` (KONECT, Matrix Market), or is the size line of a Matrix Market file."""
    first = _first_data_line(text)
    if first is None:
        return
    number, content = first
    matrix_market = _matrix_market_size_line(text)
    skip = f" and skiprows={matrix_market} (the size line of a Matrix Market file)" if matrix_market else ""
    if text.comments != "%" and content.lstrip().startswith("%") and nodetype is not str:
        raise ValueError(f"{text.path!r}, line {number}: starts with '%', which starts a comment in KONECT and Matrix "
                         f"Market files, but comments={text.comments!r}: pass comments='%'{skip}: {content!r}")
    if matrix_market == number:
        raise ValueError(f"{text.path!r}, line {number}: the size line of a Matrix Market file (rows, columns, "
                         f"entries), not an edge: pass skiprows={number}: {content!r}")


def _matrix_market_size_line(text):
    """The number of the size line of a Matrix Market file (its first line that is
    neither blank nor a ``%`` comment), or None for any other file."""
    lines = text.lines(skip=False)
    try:
        first = next(lines, (1, ""))[1]
        if not first.lower().startswith("%%matrixmarket"):
            return None
        for number, line in lines:
            if line.strip() and not line.lstrip().startswith("%"):
                return number
        return None
    finally:
        lines.close()


def _read_chunks(pd, text, options, sep, fmt, positions, labels, mode):
    """Read every chunk in ``mode`` ``"int"`` (ids parsed as numbers: fast, raises
    :class:`_Anomaly` unless every id is an integer) or ``"str"``."""
    options = _with_sep(options, "\t" if mode == "int-tab" else sep)
    whitespace = fmt == "text" and sep is None and mode != "int-tab"
    u_label, v_label = labels[positions[0]], labels[positions[1]]
    w_label = labels[positions[2]] if len(positions) > 2 else None
    if mode == "str":  # the weights as written too: pandas would read True as 1.0 into a float column
        options["dtype"] = {label: str for label in (u_label, v_label, w_label) if label is not None}
    ids_u, ids_v, weights = [], [], None if w_label is None else []
    where, opened = text.source()
    try:
        try:
            reader = pd.read_csv(where, chunksize=CHUNK_ROWS, **options, **opened)
        except pd.errors.EmptyDataError:
            return ids_u, ids_v, weights
        with reader:
            for chunk in reader:
                u, v = chunk[u_label], chunk[v_label]
                w = None if w_label is None else chunk[w_label]
                if whitespace:  # a line of only spaces and a comment is a row of nothing
                    blank = u.isna() & v.isna()
                    if w is not None:
                        blank &= w.isna()
                    if blank.any():
                        u, v, w = u[~blank], v[~blank], None if w is None else w[~blank]
                if mode != "str":
                    if u.dtype.kind != "i" or v.dtype.kind != "i":
                        raise _Anomaly
                    u, v = _narrow(u.to_numpy(np.int64)), _narrow(v.to_numpy(np.int64))
                else:
                    if u.hasnans or v.hasnans:
                        raise _Anomaly
                    u, v = u.to_numpy(object), v.to_numpy(object)
                if w is not None:
                    if mode == "str":
                        w = pd.to_numeric(w, errors="coerce")  # "True", "x": NaN, named below
                    if w.dtype.kind not in "iuf":  # a bool column too
                        raise _Anomaly
                    w = w.to_numpy(np.float64)
                    if not np.all(np.isfinite(w)) or (w.size and w.min() < 0):
                        raise _Anomaly
                    weights.append(w)
                ids_u.append(u)
                ids_v.append(v)
    finally:
        if not isinstance(where, str):
            where.close()
    return ids_u, ids_v, weights


def _narrow(ids):
    """int32 ids where they fit (half the memory until they are mapped), else int64."""
    if ids.size and _INT32[0] <= ids.min() and ids.max() <= _INT32[1]:
        return ids.astype(np.int32)
    return ids


def _integer_ids(ids_u, ids_v, *, required, scan):
    """String chunks as integer chunks when every id is written as an integer (or when
    ``required``: else the first line with another id is named). An id written as an
    integer that does not fit in 64 bits is an error naming its line, wherever it is."""
    pd = _pandas()
    chunks = ids_u + ids_v
    if not chunks:
        return ids_u, ids_v
    codes, uniques = pd.factorize(np.concatenate(chunks))
    written = np.array([bool(_INTEGER.match(text)) for text in uniques], dtype=bool)
    if not written.all():
        if required:
            _raise_bad_line(**scan, integer_ids=True)
            raise ValueError(f"{scan['text'].path!r}: node id {uniques[~written][0]!r} is not a 64-bit integer")
        if scan["fmt"] == "text" and ids_u[0].size:
            # strings only on the first line, integers everywhere else: a header line, not an edge
            first = {0, sum(len(c) for c in ids_u)}
            if set(np.flatnonzero(~written[codes]).tolist()) <= first and len(codes) > 2:
                number, text = _first_data_line(scan["text"])
                raise ValueError(f"{scan['text'].path!r}, line {number}: looks like a header, as every other id is "
                                 "an integer: make it a comment, or pass nodetype=str to read it as an edge: "
                                 f"{text!r}")
        return ids_u, ids_v
    values = [int(text) for text in uniques]
    if not all(_INT64[0] <= value <= _INT64[1] for value in values):
        _raise_bad_line(**scan, integer_ids=True)  # names the line of the first one
        raise AssertionError("unreachable: an id that does not fit in 64 bits is on some line")
    as_int = np.array(values, dtype=np.int64)[codes]
    bounds = np.cumsum([0] + [len(c) for c in chunks])
    parts = [as_int[a:b] for a, b in itertools.pairwise(bounds)]
    return parts[: len(ids_u)], parts[len(ids_u):]


def _raise_bad_line(*, text, fmt, positions, delimiter, header, integer_ids):
    """Raise the ValueError naming the first malformed line, read line by line in
    Python (only after the fast reader found something wrong); return if none is."""
    need = max(positions) + 1
    csv_delimiter = delimiter if delimiter is not None else ","
    comments = text.comments
    first = True
    lines = text.lines()
    for number, line in lines:
        fields = _fields(line, fmt, comments, delimiter, csv_delimiter)
        if fields is None:
            continue
        if header:
            header = False
            continue
        problem = _line_problem(fields, positions, need, integer_ids)
        if problem:
            if len(fields) < need and first:
                problem += f" (a count line? skiprows={number} skips the lines up to it)"
            elif len(fields) < need and not any(_fields(rest, fmt, comments, delimiter, csv_delimiter)
                                                for _, rest in lines):
                problem += " (a terminator line? skipfooter=1 skips it)"
            raise ValueError(f"{text.path!r}, line {number}: {problem}: {line!r}")
        first = False


def _fields(line, fmt, comments, delimiter, csv_delimiter):
    """The fields of one line, or None for a blank or comment line."""
    content = line if comments is None else line.split(comments, 1)[0]
    if fmt == "text" and delimiter is None:
        return content.split() or None
    if not content:
        return None
    if fmt == "text":
        return content.split(delimiter)
    return next(csv.reader([content], delimiter=csv_delimiter))


def _line_problem(fields, positions, need, integer_ids):
    """What is wrong with one line's fields, or None."""
    if len(fields) < need:
        missing = [p for p in positions if p >= len(fields)]
        what = "weight" if len(positions) > 2 and missing == [positions[2]] else "node id"
        return f"{len(fields)} column{'s' if len(fields) != 1 else ''} where {need} are needed (no {what})"
    for p in positions[:2]:
        field = fields[p]
        if field == "":
            return f"node id missing in column {p}"
        if integer_ids:
            if not _INTEGER.match(field):
                return f"node id {field!r} is not an integer"
            if not _INT64[0] <= int(field) <= _INT64[1]:
                return f"node id {field!r} does not fit in 64 bits (pass nodetype=str to read the ids as strings)"
    if len(positions) > 2:
        field = fields[positions[2]]
        try:
            value = float(field)
        except ValueError:
            return f"weight {field!r} is not a number"
        if not math.isfinite(value):
            return f"weight {field!r} is NaN or infinite"
        if value < 0:
            return f"weight {field!r} is negative"
    return None


# ---------------------------------------------------------------- Parquet

def _read_parquet(path, parts, source, target, weight, nodetype):
    """Lists of chunks (``ids_u``, ``ids_v``, ``weights`` or None) of a Parquet file,
    or of the Parquet files ``parts`` of a folder, one after the other."""
    if parts is None:
        return _read_parquet_file(path, source, target, weight, nodetype)
    ids_u, ids_v, weights = [], [], None if weight is None else []
    for part in parts:
        u, v, w = _read_parquet_file(part, source, target, weight, nodetype)
        ids_u += u
        ids_v += v
        if weights is not None:
            weights += w
    kinds = {chunk.dtype == object for chunk in ids_u + ids_v if len(chunk)}
    if len(kinds) > 1:
        raise TypeError(f"{path!r}: some of its files hold integer ids, others strings: pass nodetype=int or "
                        "nodetype=str")
    return ids_u, ids_v, weights


def _read_parquet_file(path, source, target, weight, nodetype):
    """Lists of chunks (``ids_u``, ``ids_v``, ``weights`` or None) of one Parquet file."""
    from .._utils.validation import import_extra

    pq = import_extra("pyarrow.parquet", "io", "reading Parquet edge lists needs pyarrow")
    pa = import_extra("pyarrow", "io", "reading Parquet edge lists needs pyarrow")
    try:
        file = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as err:
        raise ValueError(f"{path!r} is not a readable Parquet file ({err})") from None
    columns = list(file.schema_arrow.names)
    positions = [_column(source, "u", columns, "source", path), _column(target, "v", columns, "target", path)]
    if weight is not None:
        positions.append(_column(weight, None, columns, "weight", path))
    if len(set(positions)) < len(positions):
        raise ValueError(f"source, target and weight must be different columns, got {[columns[p] for p in positions]}")
    wanted = [columns[p] for p in positions]
    kinds = [_arrow_kind(file.schema_arrow.field(name).type, pa) for name in wanted]
    for name, kind in zip(wanted[:2], kinds[:2]):
        if kind not in ("int", "str"):
            raise TypeError(f"{path!r}: node id column {name!r} has type {file.schema_arrow.field(name).type}; "
                            "expected integers or strings")
    if weight is not None and kinds[2] not in ("int", "float"):
        raise TypeError(f"{path!r}: weight column {wanted[2]!r} has type {file.schema_arrow.field(wanted[2]).type}; "
                        "expected numbers")
    target_kind = {int: "int", str: "str"}.get(nodetype)
    if target_kind is None:
        if kinds[0] != kinds[1]:
            raise TypeError(f"{path!r}: node id columns {wanted[0]!r} and {wanted[1]!r} have different types "
                            f"({kinds[0]}, {kinds[1]}): pass nodetype=int or nodetype=str")
        target_kind = kinds[0]
    ids_u, ids_v, weights = [], [], None if weight is None else []
    row = 0
    for batch in file.iter_batches(batch_size=CHUNK_ROWS, columns=list(dict.fromkeys(wanted))):
        arrays = [batch.column(name) for name in wanted]
        for name, array in zip(wanted, arrays):
            if array.null_count:
                bad = row + int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
                what = "weight" if len(wanted) > 2 and name == wanted[2] else "node id"
                raise ValueError(f"{path!r}, row {bad + 1}: {what} missing in column {name!r}")
        for name, array, chunks in ((wanted[0], arrays[0], ids_u), (wanted[1], arrays[1], ids_v)):
            chunks.append(_arrow_ids(array, target_kind, pa, path, name, row))
        if weight is not None:
            w = arrays[2].to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
            bad = ~np.isfinite(w) | (w < 0)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"{path!r}, row {row + i + 1}: weight {float(w[i])!r} in column {wanted[2]!r} is "
                                 "negative, NaN or infinite")
            weights.append(w)
        row += batch.num_rows
    return ids_u, ids_v, weights


def _arrow_kind(dtype, pa):
    import pyarrow.types as t

    if t.is_dictionary(dtype):
        dtype = dtype.value_type
    if t.is_integer(dtype):
        return "int"
    if t.is_string(dtype) or t.is_large_string(dtype):
        return "str"
    if t.is_floating(dtype):
        return "float"
    return str(dtype)


def _arrow_ids(array, kind, pa, path, name, row):
    """One batch's ids as int64 or object (str) numpy array."""
    import pyarrow.compute as pc
    import pyarrow.types as t

    if t.is_dictionary(array.type):
        array = array.dictionary_decode()
    if kind == "str":
        if t.is_integer(array.type):
            array = pc.cast(array, pa.string())
        return array.to_numpy(zero_copy_only=False).astype(object, copy=False)
    if t.is_integer(array.type):
        if t.is_unsigned_integer(array.type) and array.type.bit_width == 64 and len(array) \
                and pc.max(array).as_py() > _INT64[1]:
            raise ValueError(f"{path!r}: node ids in column {name!r} do not fit in 64-bit signed integers")
        return _narrow(array.to_numpy(zero_copy_only=False).astype(np.int64, copy=False))
    values = array.to_numpy(zero_copy_only=False)
    out = np.empty(len(values), dtype=np.int64)
    for i, text in enumerate(values):
        if not _INTEGER.match(text):
            raise ValueError(f"{path!r}, row {row + i + 1}: node id {text!r} in column {name!r} is not an integer")
        if not _INT64[0] <= int(text) <= _INT64[1]:
            raise ValueError(f"{path!r}, row {row + i + 1}: node id {text!r} in column {name!r} does not fit in 64 "
                             "bits (pass nodetype=str to read the ids as strings)")
        out[i] = int(text)
    return out


# ---------------------------------------------------------------- ids to CSR

def _node_codes(ids_u, ids_v):
    """``(n, nodes, codes)``: the distinct ids in increasing order, and a function
    ``codes(chunk, start)`` that maps a chunk of ids, found at ``start`` in
    ``ids_u + ids_v`` laid end to end, to their positions in ``nodes``."""
    chunks = ids_u + ids_v
    if chunks[0].dtype == object:
        return _string_codes(chunks)
    lo = min(int(c.min()) for c in chunks if c.size)
    hi = max(int(c.max()) for c in chunks if c.size)
    span = hi - lo + 1
    total = sum(c.size for c in chunks)
    if span <= 2 * total + 1024:  # dense enough for a table indexed by value: no sort, no hashing
        present = np.zeros(span, dtype=bool)
        for chunk in chunks:
            present[np.subtract(chunk, lo, dtype=np.int64)] = True
        nodes = np.flatnonzero(present) + lo
        n = nodes.size
        itype = index_dtype(n)
        if n == span:
            def codes(chunk, start):
                return np.subtract(chunk, lo, dtype=np.int64).astype(itype, copy=False)
        else:
            rank = (np.cumsum(present, dtype=np.int64) - 1).astype(itype)
            del present

            def codes(chunk, start):
                return rank[np.subtract(chunk, lo, dtype=np.int64)]
        return n, tuple(nodes.tolist()), codes
    uniques = np.unique(np.concatenate([np.unique(c) for c in chunks]))  # sparse ids: sort the distinct ones
    n = uniques.size
    itype = index_dtype(n)

    def codes(chunk, start):
        return np.searchsorted(uniques, chunk).astype(itype)
    return n, tuple(uniques.tolist()), codes


def _string_codes(chunks):
    pd = _pandas()
    index_of, uniques = pd.factorize(np.concatenate(chunks), sort=True)
    n = len(uniques)
    index_of = index_of.astype(index_dtype(n))

    def codes(chunk, start):
        return index_of[start:start + len(chunk)]
    return n, tuple(str(x) for x in uniques), codes


def _stored_entries(n, codes, ids_u, ids_v, weights, *, directed):
    """``[rows, cols, data]`` of the stored entries, undirected edges mirrored (loops
    once); the id chunks are released as they are mapped."""
    m = sum(c.size for c in ids_u)
    if directed:
        mirrored = 0
    else:
        mirrored = m - sum(int(np.count_nonzero(u == v)) for u, v in zip(ids_u, ids_v))
    itype = index_dtype(n)
    rows = np.empty(m + mirrored, dtype=itype)
    cols = np.empty(m + mirrored, dtype=itype)
    data = None if weights is None else np.empty(m + mirrored, dtype=np.float64)
    at, back = 0, m
    for i in range(len(ids_u)):
        u, v = codes(ids_u[i], at), codes(ids_v[i], m + at)
        size = u.size
        rows[at:at + size], cols[at:at + size] = u, v
        if data is not None:
            data[at:at + size] = weights[i]
        if not directed:
            keep = u != v
            count = int(np.count_nonzero(keep))
            rows[back:back + count], cols[back:back + count] = v[keep], u[keep]
            if data is not None:
                data[back:back + count] = weights[i][keep]
            back += count
        at += size
        ids_u[i] = ids_v[i] = None  # the chunk is in rows/cols now
        if weights is not None:
            weights[i] = None
    return [rows, cols, data]


def _pandas():
    from .._utils.validation import import_extra

    return import_extra("pandas", "io", "reading edge lists needs pandas")
