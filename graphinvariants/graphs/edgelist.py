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
    and the digits 0-9, within 64 bits; ``01`` and ``1`` are then the same node), strings as written
    otherwise; ``nodetype=int`` or ``nodetype=str`` decides instead. The nodes are the
    distinct ids in increasing order (numbers by value, strings by code point), so the
    order does not depend on the order of the lines. Parquet columns keep their type.

The conventions are :func:`~graphinvariants.as_adjacency`'s: an undirected edge gives
both ``A[i, j]`` and ``A[j, i]``, a self-loop puts its weight (1 unweighted) once on the
diagonal; without ``weight`` parallel edges collapse to one edge, with it they add,
zero weights are dropped and negative, NaN or infinite ones refused. The result equals
``as_adjacency(networkx.read_edgelist(path, create_using=networkx.MultiGraph), ...)``
with its nodes reordered (``tests/graphs/test_edgelist.py``).
"""

import csv
import itertools
import math
import os
import re

import numpy as np

from .adjacency import GraphAdjacency
from .csr import compress_entries, index_dtype

__all__ = ["read_edgelist"]

#: File suffixes and the format they mean; a compression suffix may follow.
SUFFIXES = {
    ".txt": "text", ".tsv": "text", ".edges": "text", ".el": "text", ".edgelist": "text",
    ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
}
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
FORMATS = ("text", "csv", "parquet")
CHUNK_ROWS = 1 << 20
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*\Z")
_INT64 = (-(2**63), 2**63 - 1)
_INT32 = (-(2**31), 2**31 - 1)


class _Anomaly(Exception):
    """The fast reader met something it does not decide (a missing or non-integer id,
    a bad weight): the caller reads again more carefully, or names the line."""


def read_edgelist(path, *, directed=False, weight=None, source=None, target=None, comments="#",
                  delimiter=None, names=None, nodetype=None, format=None, encoding="utf-8"):
    """Read a network from an edge-list file (text, CSV or Parquet) into CSR.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Text and CSV may be compressed (``.gz``, ``.bz2``, ``.xz``).
    directed : bool, keyword-only
        If False (default), every line ``u v`` is an undirected edge: both ``A[u, v]``
        and ``A[v, u]`` are stored (a self-loop once). If True, ``A[u, v]`` only.
    weight : None, str or int, keyword-only
        The weight column, by name or by position (0-based; ``2`` is SNAP's third
        column). ``None`` (default): every edge counts 1 and parallel edges collapse
        to one edge. Otherwise parallel edges add their weights, zero-weight edges are
        dropped, and a weight that is missing, not a number, negative, NaN or infinite
        is an error naming its line.
    source, target : str or int, optional, keyword-only
        The columns of the edges' end points, by name or position. Default: the first
        two columns of a text file, the columns ``"u"`` and ``"v"`` of a CSV or Parquet
        table. Columns not asked for are ignored.
    comments : str or None, keyword-only
        One character that starts a comment (text and CSV): the rest of the line is
        ignored, and a line left empty is skipped, as NetworkX does. Default ``"#"``
        (SNAP); KONECT's files need ``"%"``; ``None`` for no comments.
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
        Encoding of text and CSV files (default UTF-8).

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
        If there is no such file.
    ValueError
        If a line is malformed: too few columns, a missing id, an id that is not an
        integer under ``nodetype=int``, a weight that is not a non-negative finite
        number; the message gives the file, the line number (1-based, counting every
        line, comments and header too; a row number for Parquet) and the line's text.
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
    Memory: a small multiple of the returned CSR (``benchmarks/bench_edgelist.py`` measures it). A text
    file whose ids are not all integers is parsed as strings, which is several times
    slower; when the first non-integer id comes late in the file, the file is read
    twice.

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
    """
    path, fmt, compression = _check_path(path, format)
    _check_options(directed, weight, source, target, comments, delimiter, names, nodetype)
    weighted = weight is not None
    if fmt == "parquet":
        ids_u, ids_v, weights = _read_parquet(path, source, target, weight, nodetype)
    else:
        ids_u, ids_v, weights = _read_delimited(path, fmt, compression, source, target, weight, comments,
                                                delimiter, names, nodetype, encoding)
    if not any(len(chunk) for chunk in ids_u):
        raise ValueError(f"{path!r} contains no edge (it is empty, or holds only comments and blank lines): "
                         "an edge list without edges names no node")
    n, nodes, codes = _node_codes(ids_u, ids_v)
    entries = _stored_entries(n, codes, ids_u, ids_v, weights, directed=bool(directed))
    matrix = compress_entries(n, entries, weighted=weighted)  # canonical, its weights checked per chunk
    return GraphAdjacency._trusted(matrix, nodes, weighted=weighted)


# ---------------------------------------------------------------- options

def _check_path(path, format):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path!r}")
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
    return path, format, compression


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

def _read_delimited(path, fmt, compression, source, target, weight, comments, delimiter, names,
                    nodetype, encoding):
    """Lists of chunks (``ids_u``, ``ids_v``, ``weights`` or None) of a text or CSV file."""
    pd = _pandas()
    header = fmt == "csv" and names is None
    sep = delimiter if delimiter is not None else ("," if fmt == "csv" else None)
    options = dict(
        sep=sep, comment=comments, encoding=encoding, compression=compression, engine="c",
        keep_default_na=False, na_values=[""], index_col=False, skip_blank_lines=True,
    )
    if fmt == "text":
        options["quoting"] = csv.QUOTE_NONE
    columns = None if names is None else list(names)
    if header:
        try:
            columns = list(pd.read_csv(path, nrows=0, header=0, **_with_sep(options, sep)).columns)
        except pd.errors.EmptyDataError:
            raise ValueError(f"{path!r} contains no edge (it is empty, or holds only comments and blank lines): "
                             "an edge list without edges names no node") from None
        except (ValueError, pd.errors.ParserError) as err:
            raise ValueError(f"{path!r}: cannot read the header line of the CSV file ({err})") from None
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
    scan = dict(path=path, fmt=fmt, compression=compression, positions=positions, comments=comments,
                delimiter=delimiter, header=header, encoding=encoding)
    modes = ["int", "str"] if nodetype is not str else ["str"]
    if fmt == "text" and sep is None and nodetype is not str:
        # SNAP's files are tab-separated: the C parser's one-character split is faster than
        # its whitespace rule; a line it reads differently gives an anomaly, read again
        first = _first_data_line(path, compression, encoding, comments)
        first = None if first is None else first[1]
        if first is not None and "\t" in first and " " not in first and first == first.strip():
            modes.insert(0, "int-tab")
    for mode in modes:
        failure = None
        try:
            ids_u, ids_v, weights = _read_chunks(pd, path, options, sep, fmt, positions, labels, mode)
        except _Anomaly:
            failure = "an unexpected row"
        except (ValueError, pd.errors.ParserError) as err:  # UnicodeDecodeError too
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


def _first_data_line(path, compression, encoding, comments):
    """``(number, text)`` of the first line of a text file that is not blank once its
    comment is cut (the text without the comment), or None."""
    with _open_text(path, compression, encoding) as lines:
        for number, raw in enumerate(lines, 1):
            content = raw.rstrip("\r\n")
            content = content if comments is None else content.split(comments, 1)[0]
            if content.strip():
                return number, content
    return None


def _read_chunks(pd, path, options, sep, fmt, positions, labels, mode):
    """Read every chunk in ``mode`` ``"int"`` (ids parsed as numbers: fast, raises
    :class:`_Anomaly` unless every id is an integer) or ``"str"``."""
    options = _with_sep(options, "\t" if mode == "int-tab" else sep)
    whitespace = fmt == "text" and sep is None and mode != "int-tab"
    u_label, v_label = labels[positions[0]], labels[positions[1]]
    w_label = labels[positions[2]] if len(positions) > 2 else None
    if mode == "str":
        options["dtype"] = {u_label: str, v_label: str}
        if w_label is not None:
            options["dtype"][w_label] = np.float64
    ids_u, ids_v, weights = [], [], None if w_label is None else []
    try:
        reader = pd.read_csv(path, chunksize=CHUNK_ROWS, **options)
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
                if w.dtype.kind not in "iuf":
                    raise _Anomaly
                w = w.to_numpy(np.float64)
                if not np.all(np.isfinite(w)) or (w.size and w.min() < 0):
                    raise _Anomaly
                weights.append(w)
            ids_u.append(u)
            ids_v.append(v)
    return ids_u, ids_v, weights


def _narrow(ids):
    """int32 ids where they fit (half the memory until they are mapped), else int64."""
    if ids.size and _INT32[0] <= ids.min() and ids.max() <= _INT32[1]:
        return ids.astype(np.int32)
    return ids


def _integer_ids(ids_u, ids_v, *, required, scan):
    """String chunks as integer chunks when every id is written as an integer (or when
    ``required``: else the first line with another id is named)."""
    pd = _pandas()
    chunks = ids_u + ids_v
    if not chunks:
        return ids_u, ids_v
    codes, uniques = pd.factorize(np.concatenate(chunks))
    integer = np.array([bool(_INTEGER.match(text)) and _INT64[0] <= int(text) <= _INT64[1] for text in uniques])
    if not integer.all():
        if required:
            _raise_bad_line(**scan, integer_ids=True)
            raise ValueError(f"{scan['path']!r}: node id {uniques[~integer][0]!r} is not a 64-bit integer")
        if scan["fmt"] == "text" and ids_u[0].size:
            # strings only on the first line, integers everywhere else: a header line, not an edge
            first = {0, sum(len(c) for c in ids_u)}
            if set(np.flatnonzero(~integer[codes]).tolist()) <= first and len(codes) > 2:
                number, text = _first_data_line(scan["path"], scan["compression"], scan["encoding"],
                                                 scan["comments"])
                raise ValueError(f"{scan['path']!r}, line {number}: looks like a header, as every other id is an "
                                 f"integer: make it a comment, or pass nodetype=str to read it as an edge: {text!r}")
        return ids_u, ids_v
    values = [int(text) for text in uniques]
    as_int = np.array(values, dtype=np.int64)[codes]
    bounds = np.cumsum([0] + [len(c) for c in chunks])
    parts = [as_int[a:b] for a, b in itertools.pairwise(bounds)]
    return parts[: len(ids_u)], parts[len(ids_u):]


def _open_text(path, compression, encoding):
    if compression == "gzip":
        import gzip
        return gzip.open(path, "rt", encoding=encoding, newline="")
    if compression == "bz2":
        import bz2
        return bz2.open(path, "rt", encoding=encoding, newline="")
    if compression == "xz":
        import lzma
        return lzma.open(path, "rt", encoding=encoding, newline="")
    return open(path, encoding=encoding, newline="")


def _raise_bad_line(*, path, fmt, compression, positions, comments, delimiter, header, encoding, integer_ids):
    """Raise the ValueError naming the first malformed line, read line by line in
    Python (only after the fast reader found something wrong); return if none is."""
    need = max(positions) + 1
    csv_delimiter = delimiter if delimiter is not None else ","
    with _open_text(path, compression, encoding) as lines:
        for number, raw in enumerate(lines, 1):
            text = raw.rstrip("\r\n")
            content = text if comments is None else text.split(comments, 1)[0]
            if fmt == "text" and delimiter is None:
                fields = content.split()
                if not fields:
                    continue
            elif not content:
                continue
            elif fmt == "text":
                fields = content.split(delimiter)
            else:
                fields = next(csv.reader([content], delimiter=csv_delimiter))
            if header:
                header = False
                continue
            problem = _line_problem(fields, positions, need, integer_ids)
            if problem:
                where = f"{path!r}, line {number}"
                raise ValueError(f"{where}: {problem}: {text!r}")


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
                return f"node id {field!r} does not fit in 64 bits"
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

def _read_parquet(path, source, target, weight, nodetype):
    """Lists of chunks (``ids_u``, ``ids_v``, ``weights`` or None) of a Parquet file."""
    from .._validation import import_extra

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
        if not _INTEGER.match(text) or not _INT64[0] <= int(text) <= _INT64[1]:
            raise ValueError(f"{path!r}, row {row + i + 1}: node id {text!r} in column {name!r} is not an integer")
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
    from .._validation import import_extra

    return import_extra("pandas", "io", "reading text and CSV edge lists needs pandas")
