"""One network from an edge-list file, streamed into CSR without building a graph object.

:func:`read_edgelist` reads SNAP-style text (``#`` comment lines, tab- or
space-separated columns, an optional weight column), CSV, Parquet, and the Matrix
Market and KONECT text formats into a
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

import lzma
import warnings
import zlib

import numpy as np

from .._utils.validation import check_int
from ._columns import pandas, quiet_parsers, read_delimited, read_parquet
from ._textlines import Text, data_line, skip_matrix_market_header
from .adjacency import GraphAdjacency
from .csr import compress_entries, index_dtype
from .files import check_path

__all__ = ["read_edgelist"]


def read_edgelist(path, *, directed=False, weight=None, source=None, target=None, comments="#",
                  delimiter=None, names=None, nodetype=None, format=None, encoding="utf-8", skiprows=0,
                  skipfooter=0):
    """Read a network from an edge-list file (text, CSV, Parquet, Matrix Market, KONECT) into CSR.

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
        (SNAP); ``None`` for no comments. Matrix Market and KONECT files are read
        with ``"%"``, their formats' comment character (``comments`` left at its
        default, or ``"%"``); a text file whose first line that is not a comment
        starts with ``%`` is refused with the hint.
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
    format : {"text", "csv", "parquet", "matrixmarket", "konect"} or None, keyword-only
        ``None`` (default) infers it from the name: ``.txt``, ``.tsv``, ``.edges``,
        ``.el``, ``.edgelist`` are text; ``.csv`` CSV; ``.parquet``, ``.pq`` Parquet;
        ``.mtx`` Matrix Market; a name that starts with ``out.`` (KONECT's
        ``out.ego-facebook``) KONECT; before ``.gz``, ``.bz2`` or ``.xz`` for
        compressed files. ``"matrixmarket"`` and ``"konect"`` are text with ``%``
        comments; a Matrix Market file must start with its ``%%MatrixMarket ...
        coordinate`` banner, and its lines up to its size line (rows, columns,
        entries) are skipped (``skiprows`` skips more if it is larger). The
        columns are the same as text's: ``weight=2`` reads a weighted file's values.
    encoding : str, keyword-only
        Encoding of text and CSV files (default UTF-8); bytes it cannot decode are
        an error naming their line.
    skiprows : int, keyword-only
        Lines skipped at the top of a text or CSV file, every line counted (comments
        and blank lines too), as pandas' ``skiprows``: ``1`` for a node count on the
        first line, as course and benchmark files often have. Default 0. A first
        line of two integers that are the node count and the edge count of the other
        lines (``4039 88234``) is read as an edge, with a warning that names
        ``skiprows``.
    skipfooter : int, keyword-only
        Lines skipped at the end of a text or CSV file, counting only the lines that
        hold data (not blank lines or comments), such as a terminator line. Default
        0. Line numbers in messages still count every line of the file. Negative ids
        on the last (or first) line only, such as a ``-1 -1`` terminator, are read
        as an edge, with a warning that names ``skipfooter`` (or ``skiprows``);
        negative ids on other lines too are the file's ids, read without one.

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
        Also if the file holds no edge (empty, or only comments and blank lines; or
        ``skiprows`` and ``skipfooter`` skip every line that holds data, and the
        message names them): an edge list names no node then, and a graph without
        nodes has no invariants; if a column asked for does not exist; if the format
        cannot be inferred; or if a Matrix Market file has no banner, is a dense
        ``array``, or is read with ``comments`` other than ``"#"`` or ``"%"``.
    TypeError
        If an option has the wrong type, or a Parquet column is neither integers nor
        strings (ids) or numbers (weights).
    ImportError
        If pandas or pyarrow is missing: ``pip install "graphinvariants[io]"``.

    Warns
    -----
    UserWarning
        If the first or last line that holds data is likely not an edge (see
        ``skiprows`` and ``skipfooter``); the message names the line and the option
        that skips it.

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

    A Matrix Market file, known by its name (KONECT's ``out.NAME`` files too):

    >>> with TemporaryDirectory() as folder:
    ...     path = Path(folder) / "net.mtx"
    ...     _ = path.write_text("%%MatrixMarket matrix coordinate pattern symmetric\\n3 3 3\\n2 1\\n3 2\\n3 1\\n")
    ...     adj = gi.read_edgelist(path)
    >>> adj.nodes, adj.n_edges
    ((1, 2, 3), 3)
    """
    path, fmt, compression, parts = check_path(path, format)
    _check_options(directed, weight, source, target, comments, delimiter, names, nodetype)
    comments = _format_comments(fmt, comments)
    skiprows, skipfooter = check_int(skiprows, "skiprows"), check_int(skipfooter, "skipfooter")
    if fmt == "parquet" and (skiprows or skipfooter):
        raise ValueError("skiprows and skipfooter skip lines of a text or CSV file; a Parquet file has no lines")
    weighted = weight is not None
    text = None
    with warnings.catch_warnings():
        quiet_parsers()
        if fmt == "parquet":
            ids_u, ids_v, weights = read_parquet(path, parts, source, target, weight, nodetype)
        else:
            text = Text(path, compression, encoding, comments, skiprows, skipfooter)
            try:
                if fmt == "matrixmarket":
                    skip_matrix_market_header(text)
                ids_u, ids_v, weights = read_delimited(text, "csv" if fmt == "csv" else "text", source, target,
                                                       weight, delimiter, names, nodetype)
            except (EOFError, OSError, zlib.error, lzma.LZMAError) as err:
                if compression is None or isinstance(err, (PermissionError, FileNotFoundError, IsADirectoryError)):
                    raise
                raise ValueError(f"{path!r} cannot be decompressed as {compression} ({err}): it is truncated, "
                                 f"damaged, or not {compression}-compressed") from None
    if not any(len(chunk) for chunk in ids_u):
        if text is not None:
            raise text.no_edge_error()
        raise ValueError(f"{path!r} contains no edge (it has no rows): an edge list without edges names no node")
    n, nodes, codes = _node_codes(ids_u, ids_v)
    if text is not None:
        _warn_of_lines_that_are_not_edges(text, ids_u, ids_v, nodes, header=fmt == "csv" and names is None)
    entries = _stored_entries(n, codes, ids_u, ids_v, weights, directed=bool(directed))
    # canonical, its weights checked per chunk and their sums here
    matrix = compress_entries(n, entries, weighted=weighted, nodes=nodes, where=repr(path))
    return GraphAdjacency._trusted(matrix, nodes, weighted=weighted)


# ---------------------------------------------------------------- options


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


def _format_comments(fmt, comments):
    """The comment character of the file: ``"%"`` for Matrix Market and KONECT files
    (``comments`` left at its default, or ``"%"``), else ``comments``."""
    if fmt not in ("matrixmarket", "konect"):
        return comments
    if comments not in ("#", "%"):
        name = "Matrix Market" if fmt == "matrixmarket" else "KONECT"
        raise ValueError(f"comments={comments!r}: {name} files start their comments with '%', and that is how they "
                         f"are read (format={fmt!r}): leave comments out, or pass format='text' to choose")
    return "%"


# ---------------------------------------------------------------- lines that are not edges

def _warn_of_lines_that_are_not_edges(text, ids_u, ids_v, nodes, *, header):
    """Warn, with the ``skiprows`` or ``skipfooter`` hint, when the first or the last
    row of integer ids is likely no edge: a first row whose two numbers are the node
    count of the other rows and their number (or twice or half of it: edges counted
    both ways), such as ``4039 88234``; or negative ids on the first or last row only
    (a ``-1 -1`` terminator). Negative ids on other rows too are the file's ids: no
    warning. Costs nothing unless the ids are negative or the first row's second
    number is such a count."""
    pairs = [(u, v) for u, v in zip(ids_u, ids_v) if len(u)]
    if pairs[0][0].dtype == object:
        return
    rows = sum(len(u) for u, _ in pairs)
    first = (int(pairs[0][0][0]), int(pairs[0][1][0]))
    last = (int(pairs[-1][0][-1]), int(pairs[-1][1][-1]))
    # the ids in increasing order: a negative one is first
    negative = sum(int(np.count_nonzero((u < 0) | (v < 0))) for u, v in pairs) if nodes[0] < 0 else 0
    if negative:
        at_first, at_last = min(first) < 0, rows > 1 and min(last) < 0
        if negative != at_first + at_last:
            return
        if at_first:
            number, content = data_line(text, int(header))
            warnings.warn(f"{text.path!r}, line {number}: node id {min(first)} is negative, and no line but the "
                          f"first and the last has a negative id: a header line, not an edge? skiprows={number} "
                          f"skips the lines up to it: {content!r}", UserWarning, stacklevel=3)
        if at_last:
            warnings.warn(f"{text.path!r}: the last line that holds data, {last[0]} {last[1]}, has a negative node "
                          f"id, and no line but the first and the last has one: a terminator line, not an edge? "
                          f"skipfooter={text.skipfooter + 1} skips it", UserWarning, stacklevel=3)
        return
    n_nodes, n_edges = first
    if rows < 2 or n_edges not in (rows - 1, 2 * (rows - 1)) and 2 * n_edges != rows - 1:
        return
    chunks = [u for u, _ in pairs] + [v for _, v in pairs]
    # the nodes of the other rows: those of the first row that appear elsewhere too
    only_first = sum(sum(int(np.count_nonzero(c == x)) for c in chunks) == (1 + (n_nodes == n_edges))
                     for x in set(first))
    if n_nodes == len(nodes) - only_first:
        number, content = data_line(text, int(header))
        warnings.warn(f"{text.path!r}, line {number}: {content.strip()!r} is read as an edge, but its numbers are the "
                      f"counts of the other lines, {n_nodes} nodes and {n_edges} edges: a header line? "
                      f"skiprows={number} skips the lines up to it", UserWarning, stacklevel=3)


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
    pd = pandas()
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
