"""Inputs on Dask: Bags of graphs, edge tables and frames of embeddings -> partitions.

Part of :mod:`graphinvariants.distributed` (the ``[dask]`` extra). ``import
graphinvariants`` never imports Dask; this module does.

* :func:`embed`: the embeddings of a ``dask.bag.Bag`` of graphs, or of an edge table
  (a ``dask.dataframe.DataFrame`` with columns ``graph_id, source, target[, weight]``,
  for example read from partitioned Parquet), as a Dask dataframe with one row per
  graph: ``graph_id`` and the flattened arrays of the functional
  (:meth:`~graphinvariants.embeddings.Functional.to_arrays`). Write it with
  ``to_parquet``.
* :func:`to_frame` / :func:`from_frame`: embeddings batch <-> pandas dataframe (one
  partition).
* :func:`blocks_of`: any of these split into blocks of rows, counted, for
  :mod:`~graphinvariants.distributed.gram` and :mod:`~graphinvariants.distributed.search`.

Embeddings do not depend on how the graphs are split into partitions: they equal the
in-process ones bit for bit.

Only functionals whose embeddings have a fixed shape (those implementing
:meth:`~graphinvariants.embeddings.Functional.to_arrays`, such as the paper's
``"power"`` kernel) can be stored in a dataframe; others get a ``TypeError``.
"""

import operator
import re

import dask
import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._utils.validation import check_int
from ..graphs import GraphBatch
from ..graphs.adjacency import check_weights, describe
from ..graphs.csr import edges_to_csr
from ..kernels import make_functional

__all__ = ["edge_table_batch", "embed", "embedding_columns", "from_frame", "to_frame"]


# -- layout of a functional's arrays as dataframe columns ------------------------------
def functional_of(kernel, params):
    """The functional of ``kernel`` with ``params`` (one per call: its random map, if any, is new)."""
    return make_functional(kernel, **params)


def layout_of(functional, kernel):
    """``[(key, trailing shape, dtype, column names)]`` of the functional's arrays."""
    empty = functional.embed(GraphBatch(sp.csr_array((0, 0)), np.zeros(1, dtype=np.int64)))
    arrays = functional.to_arrays(empty)
    if arrays is None:
        raise TypeError(
            f"kernel {kernel!r}: {type(functional).__name__} embeddings have no fixed shape "
            "(its to_arrays returns None), so they cannot be stored in a dataframe; "
            "graphinvariants.distributed supports the kernels whose functional implements to_arrays, "
            "such as 'power'"
        )
    layout = []
    for key, array in arrays.items():
        shape = array.shape[1:]
        names = [key] if not shape else [f"{key}_" + "_".join(map(str, i)) for i in np.ndindex(shape)]
        layout.append((key, shape, array.dtype, names))
    return layout


def _column_names(layout):
    return [name for *_, names in layout for name in names]


def embedding_columns(*, kernel="power", **params):
    """Names of the embedding columns of :func:`embed` and :func:`to_frame`.

    Each array of the functional's :meth:`~graphinvariants.embeddings.Functional.to_arrays`
    becomes one column per entry: ``key`` for one value per graph, ``key_i`` for a
    vector, ``key_i_j`` for a matrix (row-major). ``graph_id`` comes first in the
    frames, before these.

    Parameters
    ----------
    kernel : str, keyword-only
        One of :data:`~graphinvariants.KERNELS` whose functional has ``to_arrays``.
    **params
        Parameters of the kernel (``k`` ...).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from graphinvariants.distributed import embedding_columns
    >>> embedding_columns(k=2)
    ['mean_0', 'mean_1', 'covariance_0_0', 'covariance_0_1', 'covariance_1_0', 'covariance_1_1', 'n_nodes', 'params_hash']
    """
    return _column_names(layout_of(functional_of(kernel, params), kernel))


def _meta(layout, id_dtype):
    columns = {"graph_id": pd.Series([], dtype=id_dtype)}
    for _, _, dtype, names in layout:
        for name in names:
            columns[name] = pd.Series([], dtype=dtype)
    return pd.DataFrame(columns)


def _frame_of(functional, layout, embedded, graph_ids, id_dtype=None):
    arrays = functional.to_arrays(embedded)
    n = len(embedded)
    columns = {"graph_id": pd.Series(graph_ids, dtype=id_dtype) if id_dtype is not None else np.asarray(graph_ids)}
    for key, _, dtype, names in layout:
        flat = np.asarray(arrays[key], dtype=dtype).reshape(n, len(names))
        for c, name in enumerate(names):
            columns[name] = flat[:, c]
    return pd.DataFrame(columns)


def _check_embedding_columns(columns, functional, layout, what):
    """Refuse a frame whose columns are not those of ``functional``'s embeddings:
    missing ones, or another number of them (made with another ``k``)."""
    origin = "it must come from graphinvariants.distributed.embed or to_frame with the same kernel and parameters"
    if "graph_id" not in columns:
        raise ValueError(f"{what} has no column 'graph_id'; {origin}")
    for key, shape, _, names in layout:
        pattern = re.compile(re.escape(key) + r"(_\d+)+")
        found = [c for c in columns if isinstance(c, str) and pattern.fullmatch(c)]
        if shape and found and len(found) != len(names):
            raise ValueError(
                f"{what} has {len(found)} columns {key}_..., but {functional!r} has {len(names)}: "
                "it was made with other parameters (another k?)"
            )
        missing = [name for name in names if name not in columns]
        if missing:
            raise ValueError(f"{what} has no column {missing[0]!r}; {origin}")


def batch_of(functional, layout, frame):
    _check_embedding_columns(frame.columns, functional, layout, "the frame")
    n = len(frame)
    # C order, as the functional's own arrays are: pandas hands the columns over in
    # Fortran order, and a matrix product (the mean map's random features) rounds
    # differently on another memory layout
    arrays = {
        key: np.ascontiguousarray(frame[names].to_numpy(dtype=dtype)).reshape((n,) + shape)
        for key, shape, dtype, names in layout
    }
    return functional.from_arrays(arrays)


def to_frame(embeddings, graph_ids=None, *, kernel="power", **params):
    """Embeddings as a pandas dataframe: ``graph_id`` and the embedding columns.

    Parameters
    ----------
    embeddings : collection of graphs or embeddings batch
        Anything the kernel's functional accepts (graphs are embedded first).
    graph_ids : array_like, optional
        One id per graph; default ``0..n-1``.
    kernel : str, keyword-only
    **params
        Parameters of the kernel.

    Returns
    -------
    pandas.DataFrame
        One row per graph; columns ``graph_id`` then :func:`embedding_columns`.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.distributed import from_frame, to_frame
    >>> frame = to_frame([nx.path_graph(4), nx.star_graph(3)], ["path", "star"], k=2)
    >>> frame[["graph_id", "mean_0", "mean_1", "n_nodes"]]
      graph_id  mean_0    mean_1  n_nodes
    0     path   0.375  0.416667        4
    1     star   0.375  0.500000        4
    >>> from_frame(frame, k=2)
    <GaussianBatch: 2 graphs, k=2>
    """
    functional = functional_of(kernel, params)
    layout = layout_of(functional, kernel)
    embedded = functional.as_embeddings(embeddings, what="embeddings")
    if graph_ids is None:
        graph_ids = np.arange(len(embedded))
    else:
        if isinstance(graph_ids, (str, bytes)) or not hasattr(graph_ids, "__iter__"):
            raise TypeError(f"graph_ids must be a sequence of ids, one per graph, got {graph_ids!r}")
        graph_ids = pd.Series(list(graph_ids) if not hasattr(graph_ids, "__len__") else graph_ids).to_numpy()
        if len(graph_ids) != len(embedded):
            raise ValueError(f"graph_ids has {len(graph_ids)} ids for {len(embedded)} graphs")
    return _frame_of(functional, layout, embedded, graph_ids)


def from_frame(frame, *, kernel="power", **params):
    """The functional's embeddings batch of a pandas dataframe (one partition).

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`to_frame`, or one partition of :func:`embed`'s output (for
        example inside ``map_partitions``); extra columns are ignored.
    kernel : str, keyword-only
    **params
        Parameters of the kernel: they must be those the frame was made with (a
        different ``k`` is refused).

    Returns
    -------
    embeddings batch
        For ``"power"``, a :class:`~graphinvariants.GaussianBatch`, in row order.

    Raises
    ------
    TypeError
        If ``frame`` is a Dask dataframe (use ``map_partitions``) or the kernel has no
        fixed-shape embeddings.
    ValueError
        If embedding columns are missing.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> from graphinvariants.distributed import from_frame, to_frame
    >>> graphs = [nx.path_graph(5), nx.cycle_graph(6)]
    >>> batch = from_frame(to_frame(graphs))
    >>> (batch.means == gi.batch_power_invariants(graphs).means).all()
    np.True_
    """
    if isinstance(frame, dd.DataFrame):
        raise TypeError("from_frame takes one partition (a pandas DataFrame); use frame.map_partitions or compute it")
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"from_frame takes a pandas DataFrame, got {describe(frame)}")
    functional = functional_of(kernel, params)
    return batch_of(functional, layout_of(functional, kernel), frame)


# -- embed -----------------------------------------------------------------------------
def embed(graphs, *, kernel="power", nodes=None, directed=False, npartitions=None, **params):
    """Embeddings of a collection of graphs held by Dask, one row per graph.

    Parameters
    ----------
    graphs : dask.bag.Bag or dask.dataframe.DataFrame
        Either a Bag of graphs (anything :func:`~graphinvariants.as_adjacency`
        accepts: NetworkX, igraph, scipy sparse), whose ``graph_id`` is then the
        position in the bag; or an edge table with columns ``graph_id``, ``source``,
        ``target`` and, with ``weight=``, a weight column. Node ids are any hashable
        values (they are renumbered per graph); rows of one graph may be spread over
        several partitions and in any order: the table is shuffled on ``graph_id``
        (with Dask's task-based shuffle, unless the ``dataframe.shuffle.method``
        setting names another) so that each graph ends up in one partition. Ids are
        compared as Python compares them: ``0`` and ``"0"`` are two graphs, ``1`` and
        ``"1"`` two nodes. Dask's string conversion (the ``dataframe.convert-string``
        setting, on by default) makes strings of object columns in
        ``dd.from_pandas``, which would merge them: such a table is refused with a
        ``TypeError``, as is a string ``source`` next to a numeric ``target``. Edges
        are undirected unless ``directed=True``; as for NetworkX graphs, listing an
        undirected edge in both directions gives the same graph as listing it once
        (unweighted), parallel edges collapse (unweighted) or add their weights
        (weighted), and a self-loop puts 1 (or its weight) on the diagonal.
    kernel : str, keyword-only
        One of :data:`~graphinvariants.KERNELS` whose functional has ``to_arrays``
        (``"power"``, the default).
    nodes : dask or pandas DataFrame, optional, keyword-only
        Node table with columns ``graph_id, node``: an edge table cannot show a node
        without edges, so isolated nodes (and graphs without edges) must be listed
        here. Nodes that also appear in edges may be listed too.
    directed : bool, keyword-only
        Whether ``source -> target`` is a directed edge (edge tables only).
    npartitions : int, optional, keyword-only
        Partitions after the shuffle of an edge table (default: as many as the input).
    **params
        Parameters of the kernel (``k``, ``weight``; ``weight`` names the weight
        column of an edge table, or the edge attribute of bag graphs).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``graph_id`` and :func:`embedding_columns`; for ``"power"`` with
        ``k=5``: ``mean_0 .. mean_4``, ``covariance_0_0 .. covariance_4_4``,
        ``n_nodes`` and ``params_hash`` (a fingerprint of the parameters that made
        the embeddings, checked when they are read back). Within a partition graphs are sorted by ``graph_id`` (when the
        ids can be sorted); which partition a graph lands in is decided by the hash of
        its id. Divisions are unknown. Nothing is computed until asked;
        :func:`kernel_matrix` persists it, for :func:`kneighbors` use ``.persist()``
        first, or write it with ``.to_parquet(path)``.

    Raises
    ------
    TypeError
        If ``graphs`` is neither a Bag nor a Dask dataframe, the kernel has no
        fixed-shape embeddings, or ids of different types would be merged (see
        above).
    ValueError
        If a column is missing (when the graph is built) or a value is missing or
        a weight negative or not finite (when computed).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import networkx as nx
    >>> import pandas as pd
    >>> import graphinvariants as gi
    >>> from graphinvariants.distributed import embed
    >>> edges = pd.DataFrame({"graph_id": ["a", "b", "a", "b", "a"],
    ...                       "source": [1, "x", 2, "y", 3], "target": [2, "y", 3, "z", 1]})
    >>> frame = embed(dd.from_pandas(edges, npartitions=2), k=3).compute()
    >>> frame = frame.sort_values("graph_id", ignore_index=True)  # partitions follow id hashes
    >>> frame[["graph_id", "mean_0", "n_nodes"]]
      graph_id    mean_0  n_nodes
    0        a  0.666667        3
    1        b  0.444444        3
    >>> expected = gi.batch_power_invariants([nx.cycle_graph(3), nx.path_graph(3)], k=3)
    >>> bool((frame[["mean_0", "mean_1", "mean_2"]].to_numpy() == expected.means).all())
    True
    """
    functional = functional_of(kernel, params)
    layout = layout_of(functional, kernel)
    if not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be a bool, got {directed!r}")
    if npartitions is not None:
        npartitions = check_int(npartitions, "npartitions", minimum=1)
    return embed_with(graphs, functional, layout, nodes, directed, npartitions)


def embed_with(graphs, functional, layout, nodes=None, directed=False, npartitions=None):
    """:func:`embed` with a given functional (its random map, if any, shared with the
    caller's other uses of it)."""
    if isinstance(graphs, db.Bag):
        if nodes is not None or directed or npartitions is not None:
            raise TypeError("nodes, directed and npartitions apply to edge tables, not to a Bag of graphs")
        return _embed_bag(graphs, functional, layout)
    if isinstance(graphs, dd.DataFrame):
        return _embed_edge_table(graphs, functional, layout, nodes, bool(directed), npartitions)
    hint = ""
    if isinstance(graphs, pd.DataFrame):
        hint = "; wrap an in-memory edge table with dask.dataframe.from_pandas(df, npartitions=...)"
    elif isinstance(graphs, (list, tuple)):
        hint = "; wrap in-memory graphs with dask.bag.from_sequence(graphs), or use to_frame"
    raise TypeError(f"graphs must be a dask.bag.Bag of graphs or a dask.dataframe.DataFrame edge table, got {describe(graphs)}{hint}")


def _embed_bag(bag, functional, layout):
    parts = bag.to_delayed()
    lengths = [dask.delayed(len)(part) for part in parts]
    frames, offset = [], 0
    for part, length in zip(parts, lengths):
        frames.append(dask.delayed(_embed_graphs)(part, offset, functional, layout))
        offset = dask.delayed(operator.add)(offset, length)
    meta = _meta(layout, np.int64)
    # verify_meta=False would trip a Dask bug (dask 2026.8: its alias tasks break the
    # array optimiser once the frame goes through to_delayed); the check is cheap
    return dd.from_delayed(frames, meta=meta)


def _embed_graphs(items, offset, functional, layout):
    items = list(items)
    try:
        embedded = functional.as_embeddings(items, what="partition")
    except (TypeError, ValueError) as err:
        raise type(err)(f"graphs of the bag partition that starts at graph {offset}: {err}") from None
    return _frame_of(functional, layout, embedded, np.arange(offset, offset + len(items), dtype=np.int64))


def _embed_edge_table(edges, functional, layout, nodes, directed, npartitions):
    weight = functional.weight
    needed = ["graph_id", "source", "target"] + ([weight] if weight is not None else [])
    _require_columns(edges, needed, "the edge table")
    _check_same_kind(edges, ["source", "target"], "the edge table")
    _check_ids_keep_their_type(edges, "graph_id", ["source", "target"], "the edge table")
    table = edges[needed].assign(_node=False)
    if weight is not None:
        table = table.rename(columns={weight: "_weight"})
    if nodes is not None:
        if isinstance(nodes, pd.DataFrame):
            nodes = dd.from_pandas(nodes, npartitions=1)
        if not isinstance(nodes, dd.DataFrame):
            raise TypeError(f"nodes must be a pandas or Dask DataFrame with columns graph_id, node, got {describe(nodes)}")
        _require_columns(nodes, ["graph_id", "node"], "the node table")
        _check_ids_keep_their_type(nodes, "graph_id", ["node"], "the node table")
        extra = nodes[["graph_id", "node"]].rename(columns={"node": "source"})
        for node_column, edge_column in (("graph_id", "graph_id"), ("node", "source")):
            # equal ids must meet: in the shuffle (graph_id) and as one node (node)
            edge_type, node_type = edges._meta[edge_column].dtype, nodes._meta[node_column].dtype
            if node_type == edge_type:
                continue
            if not (pd.api.types.is_integer_dtype(edge_type) and pd.api.types.is_integer_dtype(node_type)):
                raise TypeError(
                    f"{node_column} of the node table is {node_type} and {edge_column} of the edge table "
                    f"{edge_type}: give both the same type, so that equal ids are one {node_column}"
                )
            extra = extra.astype({"graph_id" if node_column == "graph_id" else "source": edge_type})
        extra = extra.assign(target=extra["source"], _node=True)
        if weight is not None:
            extra = extra.assign(_weight=0.0)
        table = dd.concat([table, extra[list(table.columns)]])
    id_dtype = edges._meta["graph_id"].dtype
    # Dask's task-based shuffle unless the user chose a method: the peer-to-peer one
    # (Dask's default under a distributed client) makes the scheduler log two warnings
    # per shuffle ("Shuffle ... initialized by task", "... deactivated"), and its
    # strength, tables of thousands of partitions, is not what three id columns need
    method = dask.config.get("dataframe.shuffle.method", None) or "tasks"
    table = table.shuffle(on="graph_id", npartitions=npartitions, shuffle_method=method)
    meta = _meta(layout, id_dtype)
    return table.map_partitions(
        _embed_edges, functional, layout, weight is not None, directed, id_dtype, meta=meta, enforce_metadata=False
    )


def _converted(column):
    """``column`` as Dask's string conversion makes it (object -> string)."""
    return column.astype(pd.StringDtype("pyarrow")) if column.dtype == object else column


def _pandas_sources(frame):
    """The pandas frames that Dask made ``frame`` from with its string conversion on
    (``dd.from_pandas`` under ``dataframe.convert-string``): found by walking the
    frame's expression, whose ``FromPandas`` leaves keep the original frame."""
    walk = getattr(getattr(frame, "expr", None), "walk", None)
    if walk is None:
        return []
    sources = []
    for expr in walk():
        if type(expr).__name__ != "FromPandas" or not expr.operand("pyarrow_strings_enabled"):
            continue
        data = expr.operand("frame")
        data = getattr(data, "_data", data)  # dask wraps it in a _BackendData
        if isinstance(data, pd.DataFrame):
            sources.append(data)
    return sources


def _check_ids_keep_their_type(frame, graph_column, node_columns, what):
    """Refuse a table whose ids Dask's string conversion merged: with
    ``dataframe.convert-string`` on (Dask's default), ``dd.from_pandas`` turns an object
    column into strings, so that graph ids ``0`` and ``"0"`` (or node ids ``1`` and
    ``"1"`` of one graph) would become one graph (one node). Without the conversion
    they stay apart, as Python compares them; with it, the table is refused rather than
    silently merged."""
    for source in _pandas_sources(frame):
        columns = [c for c in [graph_column, *node_columns] if c in source.columns]
        if not any(source[c].dtype == object for c in columns):
            continue
        if graph_column in columns:
            ids = source[graph_column].dropna()
            _refuse_merged(ids, _converted(ids), graph_column, "graph", what)
        node_columns = [c for c in node_columns if c in columns]
        if graph_column in columns and node_columns:  # the nodes of each graph, from every column
            pairs = pd.concat(
                [source[[graph_column, c]].set_axis([graph_column, "node"], axis=1) for c in node_columns],
                ignore_index=True,
            ).dropna()
            converted = pd.DataFrame({c: _converted(pairs[c]) for c in pairs.columns})
            _refuse_merged(pairs, converted, "/".join(node_columns), "node of one graph", what)


def _refuse_merged(original, converted, column, kind, what):
    original = original.drop_duplicates()
    kept = ~converted.loc[original.index].duplicated(keep=False)
    if kept.all():
        return
    clash = original[~kept.to_numpy()]
    clash = clash.iloc[:, -1] if isinstance(clash, pd.DataFrame) else clash
    examples = ", ".join(repr(v) for v in clash.iloc[:2])
    types = sorted({type(v).__name__ for v in clash})
    raise TypeError(
        f"{what}: {'columns' if '/' in column else 'column'} {column!r} hold{'' if '/' in column else 's'} ids of several types ({', '.join(types)}) that Dask's string "
        f"conversion (the 'dataframe.convert-string' setting, on by default) turns into equal strings: "
        f"{examples} would be one {kind}. Give the ids one type before dd.from_pandas (for example "
        f".astype(str) on the id columns), or make the table with "
        "dask.config.set({'dataframe.convert-string': False}), which keeps them apart"
    )


def _check_same_kind(frame, columns, what):
    """Source and target ids must be comparable: a string column next to a numeric one
    (what the string conversion makes of an object column of numbers) would make one
    node two (``"2"`` and ``2``)."""
    dtypes = {c: frame._meta[c].dtype for c in columns}
    strings = [c for c, t in dtypes.items() if isinstance(t, (pd.StringDtype, pd.ArrowDtype))]
    numbers_ = [c for c, t in dtypes.items() if pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)]
    if strings and numbers_:
        raise TypeError(
            f"{what}: column {strings[0]!r} is {dtypes[strings[0]]} and {numbers_[0]!r} {dtypes[numbers_[0]]}, so "
            f"equal ids would be two nodes (\"2\" and 2); give both the same type (Dask's string conversion, "
            "the 'dataframe.convert-string' setting, makes strings of an object column of numbers)"
        )


def _require_columns(frame, columns, what):
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} has no column {missing[0]!r}; it needs the columns {columns}, got {list(frame.columns)}")


def _embed_edges(table, functional, layout, weighted, directed, id_dtype):
    batch, graph_ids = edge_table_batch(table, weighted=weighted, directed=directed)
    return _frame_of(functional, layout, functional.embed(batch), graph_ids, id_dtype)


def edge_table_batch(table, *, weighted=False, directed=False):
    """One :class:`~graphinvariants.GraphBatch` of the graphs of a pandas edge table.

    Columns ``graph_id, source, target``, and ``_weight`` if ``weighted``; rows with
    ``_node`` True only declare the node ``source``. Every graph must have all its
    rows in ``table``. Returns the batch and the graph ids, sorted when sortable.
    """
    for column in ("graph_id", "source", "target"):
        if table[column].isna().any():
            raise ValueError(f"the edge table has missing values in column {column!r}")
    try:
        graph_code, graph_ids = pd.factorize(table["graph_id"], sort=True)
    except TypeError:  # ids of mixed types: order of first appearance
        graph_code, graph_ids = pd.factorize(table["graph_id"], sort=False)
    m = len(table)
    ends = pd.concat([table["source"], table["target"]], ignore_index=True)
    node_code, node_values = pd.factorize(ends, sort=False)
    key = np.tile(graph_code.astype(np.int64), 2) * max(len(node_values), 1) + node_code
    unique_keys, position = np.unique(key, return_inverse=True)
    position = position.reshape(-1)
    sizes = np.bincount(unique_keys // max(len(node_values), 1), minlength=len(graph_ids))
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    is_edge = ~table["_node"].to_numpy(dtype=bool) if "_node" in table.columns else np.ones(m, dtype=bool)
    data = None
    if weighted:
        if not pd.api.types.is_numeric_dtype(table["_weight"]) or pd.api.types.is_bool_dtype(table["_weight"]):
            raise ValueError(f"edge weights must be real numbers, got dtype {table['_weight'].dtype}")
        data = table["_weight"].to_numpy(dtype=np.float64, na_value=np.nan)[is_edge]
        check_weights(data, "the edge table")
    A = edges_to_csr(
        int(offsets[-1]), position[:m][is_edge], position[m:][is_edge], data, directed=directed, weighted=weighted
    )
    return GraphBatch(A, offsets, weighted=weighted), np.asarray(graph_ids)


# -- blocks of embeddings --------------------------------------------------------------
class _Blocks:
    """A collection split into blocks: a delayed pandas frame per block, and the
    block lengths (counted when the blocks are made)."""

    def __init__(self, frames, lengths, meta):
        self.frames = frames
        self.lengths = lengths
        self.meta = meta


def check_chunk(chunk, name):
    if chunk is None:
        return None
    return check_int(chunk, name, minimum=1)


def _is_edge_table(x, layout):
    names = _column_names(layout)
    return isinstance(x, dd.DataFrame) and {"source", "target"} <= set(x.columns) and names[0] not in x.columns


def blocks_of(x, functional, layout, chunk, what, *, embed_graphs, persist=False):
    """Split ``x`` (a Dask dataframe of embeddings, a pandas one, or anything the
    functional embeds in memory) into blocks of ``chunk`` rows (None: its partitions).

    A Bag of graphs or an edge table is embedded first (``embed_graphs``). With
    ``persist``, a Dask dataframe is persisted before its partitions are counted: the
    count and the blocks then use the same computed partitions, so each embedding is
    computed once and no key is ever submitted again (a dask.array's optimiser fuses
    the frame's tasks otherwise than the count did, and the scheduler warns about keys
    submitted twice with different tasks)."""
    if isinstance(x, db.Bag) or _is_edge_table(x, layout):
        x = embed_graphs(x)
    if isinstance(x, dd.DataFrame):
        _check_embedding_columns(x.columns, functional, layout, what)
        parts = x.to_delayed()
        if persist:  # the persisted parts hold their futures: alive as long as the blocks
            parts = list(dask.persist(*parts))
        meta = x._meta
        lengths = [int(n) for n in dask.compute(*[dask.delayed(len)(p) for p in parts])]
        if chunk is None:
            return _Blocks(parts, lengths, meta)
        return _regroup(parts, lengths, chunk, meta)
    if isinstance(x, dd.Series) or isinstance(x, da.Array):
        raise TypeError(
            f"{what} must be a Dask dataframe of embeddings (from embed), a Bag of graphs or an edge table "
            f"(as embed takes), or an in-memory collection, got {describe(x)}"
        )
    if isinstance(x, pd.DataFrame):
        frame = x
        _check_embedding_columns(frame.columns, functional, layout, what)
    else:
        embedded = functional.as_embeddings(x, what=what)
        frame = _frame_of(functional, layout, embedded, np.arange(len(embedded)))
    n = len(frame)
    chunk = chunk or max(n, 1)
    starts = list(range(0, n, chunk)) or [0]
    frames = [dask.delayed(frame.iloc[a : a + chunk], pure=True) for a in starts]
    return _Blocks(frames, [len(frame.iloc[a : a + chunk]) for a in starts], frame.iloc[:0])


def _regroup(parts, lengths, chunk, meta):
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    total = int(bounds[-1])
    frames, sizes = [], []
    for start in range(0, total, chunk):
        stop = min(start + chunk, total)
        first = int(np.searchsorted(bounds, start, side="right")) - 1
        pieces, ranges = [], []
        p = first
        while p < len(parts) and bounds[p] < stop:
            lo, hi = max(start, bounds[p]), min(stop, bounds[p + 1])
            if lo < hi:
                pieces.append(parts[p])
                ranges.append((int(lo - bounds[p]), int(hi - bounds[p])))
            p += 1
        # the parts as arguments of their own (not inside a list): a persisted part's
        # future is then held by the task that needs it
        frames.append(dask.delayed(_concat_pieces)(meta, ranges, *pieces))
        sizes.append(stop - start)
    if not frames:
        frames, sizes = [dask.delayed(meta, pure=True)], [0]
    return _Blocks(frames, sizes, meta)


def _concat_pieces(meta, ranges, *frames):
    if not frames:
        return meta
    return pd.concat([frame.iloc[lo:hi] for frame, (lo, hi) in zip(frames, ranges)], ignore_index=True)
