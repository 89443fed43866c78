"""One network larger than one machine: the power invariants of an edge table on Dask.

Part of :mod:`graphinvariants.distributed` (the ``[dask]`` extra). The other modules
of this package distribute collections of graphs, one graph per task; this one
distributes the edges of a single graph, for a network whose edge list does not fit
in one machine's memory (a web crawl, a large contact or citation network read from
partitioned Parquet with :func:`dask.dataframe.read_parquet`).

* :func:`power_invariants`: Algorithm 1 of the paper (``x_0 = 1``,
  ``x_t = A x_{t-1} / ||x_{t-1}||_1``) as ``k`` map/reduce passes over the edge
  partitions, then the mean and ``1/n`` covariance of the ``n x k`` summary as two
  passes over blocks of nodes. Returns :class:`~graphinvariants.PowerInvariants`, so
  :func:`graphinvariants.power_kernel` and every function that takes invariants
  works on it.
* :func:`power_kernel`: the power kernel between two such graphs.

How it runs
-----------
Each of the ``k`` products is one task per edge partition: the task reads its
partition (from Parquet, again at every step: nothing of the graph is kept between
steps), takes the current length-``n`` vector (computed once per step on a worker and
fetched once by every worker that needs it), and returns its partial product
``np.bincount(u, weights=w * x[v], minlength=n)``, plus the mirrored direction
``np.bincount(v, weights=w * x[u])`` for undirected edges (a self-loop once). The
partials are added in a tree (``split_every`` at a time). The summary's ``k`` columns
stay on the workers as length-``n`` vectors; the client only ever holds ``O(k^2)``
numbers per task (sums, maxima, moments of node blocks).

Conventions are those of the in-process library (:func:`graphinvariants.as_adjacency`,
:func:`graphinvariants.power_invariants`): edges are undirected unless
``directed=True`` (``u -> v`` is the entry ``A[u, v]``, rows are the "from" nodes);
an undirected edge listed in both directions is one edge; a self-loop is 1 (or its
weight) on the diagonal; without ``weight`` parallel edges collapse into one edge of
weight 1, with ``weight`` their weights add and must be finite and non-negative.

Exactness: while the walk counts ``A^t 1`` are integers below ``2**53`` (unweighted
graphs and integer weights, the same test as the in-process iteration), the iterate
carried from step to step is those exact counts, whose sums are exact in any order;
the summary then equals the in-process one bit for bit, and the invariants agree to
rounding, relative to their scale: every entry of the mean within ``1e-12`` of that
entry, and every entry of the covariance within ``1e-12`` times the covariance's largest
entry, whatever the node order (tested; measured errors are a few ``1e-15``: the moments
are summed in another order, see :func:`power_invariants`). An entry far below that
scale is rounding noise in both paths (a star of 20,000 nodes at ``k=6``: ``1.4e-33``
against ``1.5e-37`` where the largest entry is about ``1e-10``) and is not promised to
agree to itself. With non-integer weights the
partial sums are added in another order than in process: the agreement is the same.

Limits and memory
-----------------
* Node ids must be the integers ``0 .. n-1`` in integer columns (any integer dtype).
  Other ids (strings, sparse 64-bit hashes) must be mapped first, for example with
  :meth:`dask.dataframe.DataFrame.categorize` on a column of all end points or a join
  with a node table; ids are not renumbered here because a global renumbering is itself
  a shuffle of the whole table.
* The vector is not partitioned: a worker holds whole length-``n`` vectors of
  ``8 n`` bytes. Per worker: per thread, a partition of ``m_p`` rows and its
  temporaries (about ``64 m_p`` bytes with ``int64`` ids: the Parquet buffers, the
  columns, the gathered values, the mirrored indices) and its partial product
  (``8 n``); per reduce task ``(split_every + 1) 8 n``; one copy of the current
  vector; and, on the workers that hold them, the ``k`` summary columns (``8 n k``).
  So ``8 n (split_every + k + 4)`` bytes must fit in a worker next to its partitions:
  ``n`` up to about ``10^8`` on 16 GB workers with the defaults, ``10^9`` on 128 GB
  ones. The number of edges is not limited by memory (only by time): no task ever
  holds more than one partition.
* Each partition returns a dense partial of ``8 n`` bytes, so partitions should hold
  at least about ``n`` rows, or the partials moved up the tree outweigh the edges.
* See ``docs/large_networks_cluster.rst`` for the cost of one step and a cost model
  at ``10^10`` edges on a cluster.
"""

import math

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from .._utils.validation import check_int, check_k
from ..embeddings import DEFAULT_RIDGE, PowerInvariants
from ..graphs.adjacency import check_weights, describe
from ..kernels import power_kernel as in_process_power_kernel

__all__ = ["power_invariants", "power_kernel"]

#: Largest row sum (and inverse of the smallest non-zero one) accepted, as
#: :func:`graphinvariants.power_invariants` does: squares of the summary must stay finite.
MAX_ROW_SUM = 1e150

#: Walk counts are carried as exact integers while below this (times the growth bound).
_EXACT = 2.0**53

#: Nodes per task in the two passes of the moments (16 MiB per column and block).
NODE_BLOCK = 2**21


def power_invariants(
    edges, *, k=5, n_nodes=None, directed=False, weight=None, deduplicate=True, split_every=4, node_block=NODE_BLOCK
):
    """Gaussian invariants of one graph given as a Dask edge table, never in one place.

    Parameters
    ----------
    edges : dask.dataframe.DataFrame
        Edge table with integer columns ``u`` and ``v`` (node ids ``0 .. n-1``) and,
        with ``weight=``, a numeric weight column; other columns are ignored (and,
        for a table read from Parquet, never read). Typically
        ``dd.read_parquet(path, columns=["u", "v"])``; a pandas DataFrame is taken too
        (one partition).
    k : int, keyword-only
        Number of power iterations, default 5.
    n_nodes : int, optional, keyword-only
        Number of nodes. Default: the largest id plus one. Give it for graphs with
        isolated nodes of the largest ids (the table cannot show them) or to have ids
        checked against it.
    directed : bool, keyword-only
        Whether ``u -> v`` is a directed edge (the entry ``A[u, v]``). Default: every
        edge is undirected (``A[u, v]`` and ``A[v, u]``).
    weight : str or None, keyword-only
        Name of the weight column. ``None`` (default): every edge has weight 1 and
        parallel edges collapse into one.
    deduplicate : bool, keyword-only
        Only for ``weight=None``, where a repeated edge must count once: if True
        (default) the rows are reduced to distinct edges (``(min(u, v), max(u, v))``
        when undirected) by a Dask shuffle before the products, and that distinct
        table is persisted on the workers (in their memory, spilled to their disk past
        their memory limit) for the ``k`` passes. If False, the table is trusted to
        hold each edge once (for example because it was written from
        ``drop_duplicates``): no shuffle, every pass streams the table from its
        source, and a repeated edge would count twice. Weighted tables are never
        shuffled: parallel edges add their weights whatever their partitions. The
        shuffle is Dask's task-based one unless the ``dataframe.shuffle.method``
        setting names another (``"p2p"`` suits tables far larger than the workers'
        memory).
    split_every : int, keyword-only
        Partial products added per task of the reduction tree (at least 2). Each such
        task holds ``split_every + 1`` vectors of ``8 n`` bytes.
    node_block : int, keyword-only
        Nodes per task in the passes that compute the moments.

    Returns
    -------
    PowerInvariants
        The mean and covariance of the power summary, ``n_nodes`` nodes.

    Raises
    ------
    TypeError
        If ``edges`` is not a dataframe, or its id columns are not integers or its
        weight column not numeric.
    ValueError
        If a column is missing, the table is empty without ``n_nodes``, or (when
        computed, naming the partition) an id is missing, negative or not below
        ``n_nodes``, or a weight is missing, NaN, infinite or negative.

    Notes
    -----
    Cost per power iteration: one read of the edge table, ``2 m`` gathers and
    scattered adds for ``m`` undirected rows (``m`` directed), one length-``n``
    vector fetched by every worker and one partial vector per partition moved up the
    reduction tree. Memory per worker and the limit on ``n``: see the module
    docstring (:mod:`graphinvariants.distributed.network`).

    The moments, two passes over blocks of nodes: pass 1 adds each column per block
    (numpy's pairwise sum; the entries are non-negative, so nothing cancels) and the
    blocks' sums with :func:`math.fsum`, which gives a first mean, clipped to the
    column's smallest and largest entries; pass 2 adds the centred outer products and
    the centred rows per block (again combined with :func:`math.fsum`), and the sum of
    the centred rows corrects both the mean and the covariance (Chan, Golub and
    LeVeque). No row is singled out, so a hub anywhere (node 0 included) costs no digits:
    every entry of the mean agrees with the in-process invariants within ``1e-12`` of
    itself, and every entry of the covariance within ``1e-12`` times the covariance's
    largest entry, whatever the node order (tested on hub graphs with the hub at node 0
    and shuffled; measured errors are below ``1e-14``). An entry of the covariance far
    below its largest is rounding noise in both paths, not a value to compare on its own. A regular graph whose
    walk counts are exact (every row of the summary equal) has covariance exactly 0, as
    in process.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import networkx as nx
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> G = nx.barabasi_albert_graph(200, 3, seed=1)
    >>> edges = dd.from_pandas(nx.to_pandas_edgelist(G, source="u", target="v"), npartitions=4)
    >>> inv = gi.distributed.power_invariants(edges, k=4)
    >>> inv.n_nodes, inv.k
    (200, 4)
    >>> expected = gi.power_invariants(G, k=4)
    >>> bool(np.allclose(inv.mean, expected.mean, rtol=1e-12, atol=0))
    True
    >>> scale = np.abs(expected.covariance).max()
    >>> bool(np.allclose(inv.covariance, expected.covariance, rtol=0, atol=1e-12 * scale))
    True
    >>> round(gi.power_kernel(inv, expected, k=4), 12)
    1.0
    """
    k = check_k(k)
    if n_nodes is not None:
        n_nodes = check_int(n_nodes, "n_nodes", minimum=1)
    if not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be a bool, got {directed!r}")
    if not isinstance(deduplicate, (bool, np.bool_)):
        raise TypeError(f"deduplicate must be a bool, got {deduplicate!r}")
    split_every = check_int(split_every, "split_every", minimum=2)
    node_block = check_int(node_block, "node_block", minimum=1)
    table = _edge_columns(edges, weight)
    weighted = weight is not None
    if not weighted and deduplicate:
        # persisted: its futures are released when the last reference (parts) goes
        table = _distinct_edges(table, n_nodes, bool(directed))
    parts = table.to_delayed()
    return _iterate(parts, k, n_nodes, bool(directed), weighted, split_every, node_block)


def power_kernel(
    edges_a, edges_b, *, k=5, ridge=DEFAULT_RIDGE, directed=False, weight=None, deduplicate=True, split_every=4
):
    """Power kernel between two graphs given as Dask edge tables (or their invariants).

    Parameters
    ----------
    edges_a, edges_b : dask.dataframe.DataFrame or PowerInvariants
        Edge tables as :func:`power_invariants` takes them, or invariants already
        computed (for a graph with isolated nodes, compute them with ``n_nodes=``
        first; for two snapshots, compute each one once).
    k : int, keyword-only
    ridge : float, keyword-only
        Relative ridge, as in :func:`graphinvariants.power_kernel`.
    directed, weight, deduplicate, split_every : keyword-only
        As in :func:`power_invariants`, for both tables.

    Returns
    -------
    float
        In ``[0, 1]``; ``1`` for isomorphic graphs.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import networkx as nx
    >>> import pandas as pd
    >>> from graphinvariants import distributed
    >>> path = pd.DataFrame({"u": range(29), "v": range(1, 30)})  # 30 nodes
    >>> cycle = pd.concat([path, pd.DataFrame({"u": [29], "v": [0]})])  # the path, closed
    >>> before = distributed.power_invariants(dd.from_pandas(path, npartitions=2), k=3)  # computed once
    >>> value = distributed.power_kernel(before, dd.from_pandas(cycle, npartitions=2), k=3)
    >>> from graphinvariants import power_kernel
    >>> abs(value - power_kernel(nx.path_graph(30), nx.cycle_graph(30), k=3)) < 1e-12
    True
    """
    k = check_k(k)
    sides = []
    for edges in (edges_a, edges_b):
        if isinstance(edges, PowerInvariants):
            sides.append(edges)
        else:
            sides.append(
                power_invariants(
                    edges, k=k, directed=directed, weight=weight, deduplicate=deduplicate, split_every=split_every
                )
            )
    return in_process_power_kernel(sides[0], sides[1], k=k, ridge=ridge)


# -- the table -------------------------------------------------------------------------
def _edge_columns(edges, weight):
    """The columns ``u, v[, weight]`` of the table, checked by type (not yet by value)."""
    if isinstance(edges, pd.DataFrame):
        edges = dd.from_pandas(edges, npartitions=1)
    if not isinstance(edges, dd.DataFrame):
        raise TypeError(
            f"edges must be a dask.dataframe.DataFrame with columns 'u' and 'v' (for example "
            f"dd.read_parquet(path)), got {describe(edges)}"
        )
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be the name of the weight column (a str) or None, got {weight!r}")
    needed = ["u", "v"] + ([weight] if weight is not None else [])
    missing = [c for c in needed if c not in edges.columns]
    if missing:
        raise ValueError(
            f"the edge table has no column {missing[0]!r}; it needs the columns {needed}, got {list(edges.columns)}"
        )
    for column in ("u", "v"):
        dtype = edges._meta[column].dtype
        if not pd.api.types.is_integer_dtype(dtype):
            raise TypeError(
                f"column {column!r} of the edge table is {dtype}: node ids must be integers 0..n-1 "
                "(map other ids to those first, for example with categorize() or a join on a node table)"
            )
    if weight is not None:
        dtype = edges._meta[weight].dtype
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            raise TypeError(f"the weight column {weight!r} of the edge table is {dtype}: weights must be real numbers")
    table = edges[needed]
    if weight is not None and weight != "w":
        table = table.rename(columns={weight: "w"})
    return table


def _checked_arrays(frame, number, n_nodes, weighted):
    """``u, v, w`` of one partition as numpy arrays, with a clear error for a bad value."""
    where = f"partition {number} of the edge table"
    arrays = []
    for column in ("u", "v"):
        values = frame[column]
        if values.isna().any():
            raise ValueError(f"{where}: column {column!r} has missing node ids")
        values = values.to_numpy()
        if values.size:
            low, high = values.min(), values.max()
            if low < 0:
                raise ValueError(f"{where}: column {column!r} has the negative node id {int(low)} (ids are 0..n-1)")
            if n_nodes is not None and high >= n_nodes:
                raise ValueError(
                    f"{where}: column {column!r} has the node id {int(high)}, out of range for n_nodes={n_nodes} "
                    "(ids are 0..n_nodes-1)"
                )
        arrays.append(values)
    w = None
    if weighted:
        w = frame["w"].to_numpy(dtype=np.float64, na_value=np.nan)
        check_weights(w, where)
    return arrays[0], arrays[1], w


def _canonical(frame, n_nodes, directed, partition_info=None):
    """Checked ids, as ``(min, max)`` for undirected edges: the keys of distinct edges."""
    number = partition_info["number"] if partition_info else "?"
    u, v, _ = _checked_arrays(frame, number, n_nodes, False)
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    return pd.DataFrame({"u": u, "v": v}, index=frame.index)


def _distinct_edges(table, n_nodes, directed):
    """The distinct edges of an unweighted table, shuffled once and persisted."""
    keys = table.map_partitions(_canonical, n_nodes, directed, meta=table._meta[["u", "v"]])
    # Dask's task-based shuffle unless the user chose a method (as embed does): the
    # peer-to-peer one logs two warnings per shuffle; set dataframe.shuffle.method to
    # "p2p" for tables far larger than the workers' memory
    method = dask.config.get("dataframe.shuffle.method", None) or "tasks"
    distinct = keys.drop_duplicates(split_out=max(table.npartitions, 1), shuffle_method=method)
    return distinct.persist()


# -- the power iteration ---------------------------------------------------------------
def _partial_product(frame, number, x, n, n_nodes, directed, weighted):
    """``A_p x`` for the edges of one partition (``x`` None: the vector of ones), and
    the partition's statistics: largest id, whether every weight is an integer."""
    u, v, w = _checked_arrays(frame, number, n_nodes, weighted)
    largest = int(max(u.max(), v.max())) if u.size else -1
    integral = True if w is None else bool(np.all(w == np.floor(w)))
    length = n if n is not None else largest + 1
    if x is None:
        values = w if w is not None else None
    else:
        values = x[v] if w is None else w * x[v]
    y = np.bincount(u, weights=values, minlength=length).astype(np.float64, copy=False)
    if not directed:
        other = u != v
        if not other.all():
            u, v = u[other], v[other]
            w = None if w is None else w[other]
        if x is None:
            values = w
        else:
            values = x[u] if w is None else w * x[u]
        y += np.bincount(v, weights=values, minlength=length)
    return y, (largest, integral)


def _add(*vectors):
    """Sum of vectors of possibly different lengths (padded with zeros)."""
    out = np.zeros(max(len(y) for y in vectors))
    for y in vectors:
        out[: len(y)] += y
    return out


def _merge_stats(*stats):
    return max(s[0] for s in stats), all(s[1] for s in stats)


def _tree(items, combine, split_every):
    while len(items) > 1:
        items = [
            items[i] if len(items[i : i + split_every]) == 1 else dask.delayed(combine, pure=True)(*items[i : i + split_every])
            for i in range(0, len(items), split_every)
        ]
    return items[0]


def _padded(y, n):
    if len(y) == n:
        return y
    out = np.zeros(n)
    out[: len(y)] = y
    return out


def _scaled(y, total):
    """The iterate ``y / total`` (0 where the previous iterate summed to 0)."""
    return y / total if total > 0 else np.zeros_like(y)


def _vector_stats(y, x):
    """Sums and largest entries the client needs to decide the next step."""
    return float(y.sum()), float(y.max(initial=0.0)), float(x.sum()), bool(np.isfinite(x).all())


def _product_pass(parts, x, n, n_nodes, directed, weighted, split_every):
    """One map/reduce pass: the persisted ``A x`` and (first pass) the merged stats."""
    outputs = [
        dask.delayed(_partial_product, nout=2, pure=True)(part, number, x, n, n_nodes, directed, weighted)
        for number, part in enumerate(parts)
    ]
    y = _tree([out[0] for out in outputs], _add, split_every)
    stats = _tree([out[1] for out in outputs], _merge_stats, split_every)
    return y, stats


def _iterate(parts, k, n_nodes, directed, weighted, split_every, node_block):
    if not parts:
        raise ValueError("the edge table has no partitions")
    # step 1, x_0 = 1: also finds n and whether the weights are integers
    y, stats = _product_pass(parts, None, n_nodes, n_nodes, directed, weighted, split_every)
    y, stats = dask.persist(y, stats)
    largest, integral = stats.compute()
    if n_nodes is None:
        if largest < 0:
            raise ValueError("the edge table is empty: give n_nodes to have the invariants of an edgeless graph")
        n = largest + 1
    else:
        n = n_nodes
    y = dask.delayed(_padded, pure=True)(y, n).persist()
    columns = []
    exact = integral
    bound = None
    total = float(n)  # the sum of x_0 = 1
    for t in range(k):
        if t > 0:
            y, _ = _product_pass(parts, v, n, n, directed, weighted, split_every)
        x = dask.delayed(_scaled, pure=True)(y, total)
        y, x = dask.persist(y, x)
        y_sum, y_max, x_sum, finite = dask.delayed(_vector_stats)(y, x).compute()
        if not finite:
            raise ValueError(f"the power summary overflows double precision at step {t + 1}")
        if t == 0:
            if y_max > MAX_ROW_SUM or 0 < y_max < 1 / MAX_ROW_SUM:
                raise ValueError(
                    f"edge weights are too large or too small for double precision (largest row sum "
                    f"{y_max:.3g}; squares of the power summary must stay finite): divide or multiply all "
                    "weights by a common factor, which changes no kernel between graphs scaled alike"
                )
            bound = max(y_max, float(n))
        columns.append(x)
        # the in-process rule: carry the exact walk counts while they stay below 2**53
        exact = exact and y_max * bound < _EXACT
        v, total = (y, y_sum) if exact else (x, x_sum)
        del y, x
    del v
    return _moments(columns, n, node_block)


# -- the moments -----------------------------------------------------------------------
def _column_stats(lo, hi, *columns):
    """Per column of the block: its sum (numpy's pairwise sum: the entries are
    non-negative, so no cancellation), its smallest and its largest entry."""
    return np.array([(c[lo:hi].sum(), c[lo:hi].min(), c[lo:hi].max()) for c in columns])


def _centred_products(lo, hi, mean, *columns):
    block = np.column_stack([c[lo:hi] for c in columns]) - mean
    return block.T @ block, np.array([block[:, j].sum() for j in range(block.shape[1])])


def _exact_sum(vectors):
    """Sum of a list of k-vectors, each entry correctly rounded (math.fsum)."""
    return np.array([math.fsum(column) for column in zip(*vectors)]) if vectors else None


def _moments(columns, n, node_block):
    starts = range(0, n, node_block)
    # pass 1: the mean from the blocks' sums, clipped to the column's range (which holds
    # the true mean), so that a column of equal entries has exactly that mean
    stats = dask.compute(*[dask.delayed(_column_stats)(a, min(a + node_block, n), *columns) for a in starts])
    low = np.min([s[:, 1] for s in stats], axis=0)
    high = np.max([s[:, 2] for s in stats], axis=0)
    centre = np.clip(_exact_sum([s[:, 0] for s in stats]) / n, low, high)
    # pass 2: the centred products and the centred sums (the drift of the first mean)
    blocks = dask.compute(*[dask.delayed(_centred_products)(a, min(a + node_block, n), centre, *columns) for a in starts])
    k = len(columns)
    products = np.array([math.fsum(b[0][i, j] for b in blocks) for i in range(k) for j in range(k)]).reshape(k, k)
    drift = _exact_sum([b[1] for b in blocks])
    mean = centre + drift / n
    covariance = (products - np.outer(drift, drift) / n) / n
    covariance = (covariance + covariance.T) / 2
    if not np.all(np.isfinite(covariance)):
        raise ValueError(
            "the covariance of the power summary overflows: edge weights are too large for "
            "double precision; divide all weights by a common factor"
        )
    return PowerInvariants(mean, covariance, n)
