"""The columns of an edge list read into chunks of ids and weights (private to
:mod:`~graphinvariants.graphs.edgelist`): pandas' C parser for text and CSV, pyarrow's
row batches for Parquet.

Each reader returns three lists of chunks, ``ids_u``, ``ids_v`` and ``weights`` (None
when unweighted): int32 or int64 arrays for integer ids, object arrays of ``str``
otherwise, float64 weights, already checked to be finite and non-negative.
"""

import csv
import itertools
import warnings

import numpy as np

from ._textlines import INT64, INTEGER, check_first_line, data_line, raise_bad_line

__all__ = []

#: Rows parsed at a time.
CHUNK_ROWS = 1 << 20
_INT32 = (-(2**31), 2**31 - 1)


class _Anomaly(Exception):
    """The fast reader met something it does not decide (a missing or non-integer id,
    a bad weight): the caller reads again more carefully, or names the line."""


def pandas():
    """pandas, or an ImportError naming the ``[io]`` extra."""
    from .._utils.optional import import_extra

    return import_extra("pandas", needs="reading edge lists needs pandas")


def quiet_parsers():
    """Inside ``warnings.catch_warnings()``: silence pandas' warnings about its own
    parsing decisions (``DtypeWarning``: mixed types in a column of a long file;
    ``ParserWarning``), which the reader makes itself."""
    pd = pandas()
    for category in (pd.errors.DtypeWarning, pd.errors.ParserWarning):
        warnings.simplefilter("ignore", category)


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


def read_delimited(text, fmt, source, target, weight, delimiter, names, nodetype):
    """Lists of chunks (``ids_u``, ``ids_v``, ``weights`` or None) of a text or CSV file
    (``fmt``: ``"text"`` or ``"csv"``)."""
    pd = pandas()
    path = text.path
    header = fmt == "csv" and names is None
    sep = delimiter if delimiter is not None else ("," if fmt == "csv" else None)
    options = dict(
        sep=sep, comment=text.comments, engine="c",
        keep_default_na=False, na_values=[""], index_col=False, skip_blank_lines=True,
    )
    if fmt == "text":
        options["quoting"] = csv.QUOTE_NONE
    check_first_line(text, nodetype)
    columns = None if names is None else list(names)
    if header:
        where, opened = text.source()
        try:
            columns = list(pd.read_csv(where, nrows=0, header=0, **_with_sep(options, sep), **opened).columns)
        except pd.errors.EmptyDataError:
            raise text.no_edge_error() from None
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
        first = data_line(text, 0)
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
        raise_bad_line(**scan, integer_ids=nodetype is int)  # names the line, if it is one
        raise ValueError(f"{path!r} could not be read as a {fmt} edge list: {failure}")
    raise AssertionError("unreachable")


def _with_sep(options, sep):
    """read_csv options with the separator that reads whitespace for ``sep=None``."""
    options = dict(options)
    options["sep"] = r"\s+" if sep is None else sep
    return options


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
                    u, v = narrow(u.to_numpy(np.int64)), narrow(v.to_numpy(np.int64))
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


def narrow(ids):
    """int32 ids where they fit (half the memory until they are mapped), else int64."""
    if ids.size and _INT32[0] <= ids.min() and ids.max() <= _INT32[1]:
        return ids.astype(np.int32)
    return ids


def _integer_ids(ids_u, ids_v, *, required, scan):
    """String chunks as integer chunks when every id is written as an integer (or when
    ``required``: else the first line with another id is named). An id written as an
    integer that does not fit in 64 bits is an error naming its line, wherever it is."""
    pd = pandas()
    chunks = ids_u + ids_v
    if not chunks:
        return ids_u, ids_v
    codes, uniques = pd.factorize(np.concatenate(chunks))
    written = np.array([bool(INTEGER.match(text)) for text in uniques], dtype=bool)
    if not written.all():
        if required:
            raise_bad_line(**scan, integer_ids=True)
            raise ValueError(f"{scan['text'].path!r}: node id {uniques[~written][0]!r} is not a 64-bit integer")
        if scan["fmt"] == "text" and ids_u[0].size:
            # strings only on the first line, integers everywhere else: a header line, not an edge
            first = {0, sum(len(c) for c in ids_u)}
            if set(np.flatnonzero(~written[codes]).tolist()) <= first and len(codes) > 2:
                number, text = data_line(scan["text"], 0)
                raise ValueError(f"{scan['text'].path!r}, line {number}: looks like a header, as every other id is "
                                 "an integer: make it a comment, or pass nodetype=str to read it as an edge: "
                                 f"{text!r}")
        return ids_u, ids_v
    values = [int(text) for text in uniques]
    if not all(INT64[0] <= value <= INT64[1] for value in values):
        raise_bad_line(**scan, integer_ids=True)  # names the line of the first one
        raise AssertionError("unreachable: an id that does not fit in 64 bits is on some line")
    as_int = np.array(values, dtype=np.int64)[codes]
    bounds = np.cumsum([0] + [len(c) for c in chunks])
    parts = [as_int[a:b] for a, b in itertools.pairwise(bounds)]
    return parts[: len(ids_u)], parts[len(ids_u):]


# ---------------------------------------------------------------- Parquet


def read_parquet(path, parts, source, target, weight, nodetype):
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
    from .._utils.optional import import_extra

    pq = import_extra("pyarrow.parquet", needs="reading Parquet edge lists needs pyarrow")
    pa = import_extra("pyarrow", needs="reading Parquet edge lists needs pyarrow")
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
                and pc.max(array).as_py() > INT64[1]:
            raise ValueError(f"{path!r}: node ids in column {name!r} do not fit in 64-bit signed integers")
        return narrow(array.to_numpy(zero_copy_only=False).astype(np.int64, copy=False))
    values = array.to_numpy(zero_copy_only=False)
    out = np.empty(len(values), dtype=np.int64)
    for i, text in enumerate(values):
        if not INTEGER.match(text):
            raise ValueError(f"{path!r}, row {row + i + 1}: node id {text!r} in column {name!r} is not an integer")
        if not INT64[0] <= int(text) <= INT64[1]:
            raise ValueError(f"{path!r}, row {row + i + 1}: node id {text!r} in column {name!r} does not fit in 64 "
                             "bits (pass nodetype=str to read the ids as strings)")
        out[i] = int(text)
    return out
