"""The learned default's features on Dask: a Bag of graphs in, sparse features in Zarr out.

Needs Dask (with ``distributed`` for a cluster) and Zarr: ``pip install
"graphinvariants[dask]"``. ``import graphinvariants`` and ``graphinvariants.scale`` never
import them; this module does.

* :func:`features_to_zarr`: every partition of a ``dask.bag.Bag`` of graphs goes
  through :meth:`~graphinvariants.GraphFeatures.transform_block` (the function
  ``transform`` calls in process) and is written by its task to Zarr as one CSR part
  (``part_{i}/data``, ``indices``, ``indptr``), so a worker holds one partition and its
  features at a time. The rows equal ``transform`` of the same graphs bit for bit.
* :func:`read_features`: the parts (all or some) as one ``scipy.sparse.csr_array``.
* :func:`kneighbors`: the ``n_neighbors`` stored graphs whose features have the largest
  inner products with each query's (the learned kernel, as the features approximate
  it), a part per task, merged into one answer; ties go to the smaller position.
"""

try:
    import dask
    import dask.bag as db
    import zarr
except ImportError as err:  # pragma: no cover - exercised where dask is missing
    raise ImportError(f'graphinvariants.scale.cluster needs Dask and Zarr ({err}); install them with: '
                      'pip install "graphinvariants[dask]"') from err

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._validation import check_int
from ..graphs import GraphBatch

__all__ = ["features_to_zarr", "kneighbors", "read_features"]


def _write_part(graphs, index, features, store):
    """Features of one partition, written as Zarr part ``index``; returns its row count."""
    if not (isinstance(graphs, GraphBatch) or isinstance(getattr(graphs, "batch", None), GraphBatch)):
        graphs = list(graphs)  # a partition of graphs (a TUDataset or GraphBatch is kept as one)
    F = features.transform_block(graphs)
    group = zarr.open_group(store, mode="a").require_group(f"part_{index}")
    for name in ("data", "indices", "indptr"):
        values = getattr(F, name)
        values = values if len(values) else np.zeros(0, dtype=values.dtype)
        group.create_array(name, data=values, chunks=(max(len(values), 1),), overwrite=True)
    return F.shape[0]


def features_to_zarr(features, graphs, store, *, compute=True):
    """Write the features of a Bag of graphs to Zarr, a partition per task.

    Parameters
    ----------
    features : GraphFeatures
        Fitted (in process, on a sample: it travels to every worker).
    graphs : dask.bag.Bag
        NetworkX or igraph graphs; each partition is one block of
        :meth:`~graphinvariants.GraphFeatures.transform_block`, so its size bounds
        a worker's memory. A partition may also be one TUDataset or GraphBatch
        (``db.from_delayed`` of functions that return them, such as
        :func:`~graphinvariants.datasets.perturbed_copies`): no graph objects are made.
    store : str or path-like or zarr store
        Where the group goes (created if missing; its parts are overwritten).
    compute : bool, keyword-only, default=True
        False: return the ``dask.delayed`` write instead of running it.

    Returns
    -------
    numpy.ndarray of int64
        Rows of every part, in order (their sum is the number of graphs); the group's
        attributes record them too (``rows``) and the number of columns (``n_features``).

    Examples
    --------
    >>> import dask, dask.bag as db, networkx as nx, tempfile
    >>> import graphinvariants as gi
    >>> from graphinvariants.scale.cluster import features_to_zarr, read_features
    >>> graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(n) for n in range(5, 25)]
    >>> features = gi.GraphFeatures(n_landmarks=10, seed=0).fit(graphs, [0] * 20 + [1] * 20)
    >>> store = tempfile.mkdtemp()
    >>> with dask.config.set(scheduler="sync"):
    ...     rows = features_to_zarr(features, db.from_sequence(graphs, npartitions=3), store)
    >>> rows.tolist(), bool((read_features(store) != features.transform(graphs)).nnz == 0)
    ([14, 14, 12], True)
    """
    check_is_fitted(features, "n_features_out_")
    if not isinstance(graphs, db.Bag):
        raise TypeError(f"graphs must be a dask.bag.Bag of graphs, got {type(graphs).__name__}")
    zarr.open_group(store, mode="a")  # fails here, not in a task, if the store cannot be written
    parts = graphs.to_delayed()
    shared = dask.delayed(features, pure=True)
    writes = [dask.delayed(_write_part, pure=False)(part, i, shared, store) for i, part in enumerate(parts)]
    done = dask.delayed(_finish)(writes, store, int(features.n_features_out_))
    return done.compute() if compute else done


def _finish(rows, store, n_features):
    group = zarr.open_group(store, mode="a")
    stale = [name for name in group.group_keys() if name.startswith("part_") and int(name[5:]) >= len(rows)]
    for name in stale:  # parts of an earlier, longer write
        del group[name]
    group.attrs.update({"rows": [int(r) for r in rows], "n_features": n_features})
    return np.asarray(rows, dtype=np.int64)


def _part(group, i, n_features):
    part = group[f"part_{i}"]
    indptr = part["indptr"][:]
    return sp.csr_array((part["data"][:], part["indices"][:], indptr), shape=(len(indptr) - 1, n_features))


def _layout(store):
    try:
        group = zarr.open_group(store, mode="r")
    except FileNotFoundError:  # zarr's GroupNotFoundError is one
        raise ValueError(f"{store!r} holds no features written by features_to_zarr (no Zarr group there)") from None
    if "rows" not in group.attrs:
        raise ValueError(f"{store!r} holds no features written by features_to_zarr (no 'rows' attribute)")
    return group, [int(r) for r in group.attrs["rows"]], int(group.attrs["n_features"])


def read_features(store, parts=None):
    """The stored features (of ``parts``, a sequence of part numbers; None: all) as one CSR matrix.

    Examples
    --------
    >>> import dask, dask.bag as db, networkx as nx, tempfile
    >>> import graphinvariants as gi
    >>> from graphinvariants.scale.cluster import features_to_zarr, read_features
    >>> graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(n) for n in range(5, 25)]
    >>> features = gi.GraphFeatures(n_landmarks=10, seed=0).fit(graphs, [0] * 20 + [1] * 20)
    >>> store = tempfile.mkdtemp()
    >>> with dask.config.set(scheduler="sync"):
    ...     rows = features_to_zarr(features, db.from_sequence(graphs, npartitions=2), store)
    >>> read_features(store, [1]).shape == (20, features.n_features_out_)
    True
    """
    group, rows, n_features = _layout(store)
    parts = range(len(rows)) if parts is None else parts
    blocks = [_part(group, i, n_features) for i in parts]
    if not blocks:
        return sp.csr_array((0, n_features))
    return sp.csr_array(sp.vstack(blocks, format="csr"))


def _top_of_part(queries, store, i, start, n_neighbors):
    group, _, n_features = _layout(store)
    values = (queries @ _part(group, i, n_features).T)
    values = values.toarray() if sp.issparse(values) else np.asarray(values)
    return _top(values, np.arange(start, start + values.shape[1]), n_neighbors)


def _top(values, positions, n_neighbors):
    """Largest ``n_neighbors`` values of each row, ties by smaller position."""
    k = min(n_neighbors, values.shape[1])
    order = np.lexsort((np.broadcast_to(positions, values.shape), -values), axis=1)[:, :k]
    return np.take_along_axis(values, order, axis=1), positions[order]


def _merge(results, n_neighbors):
    values = np.concatenate([v for v, _ in results], axis=1)
    positions = np.concatenate([p for _, p in results], axis=1)
    k = min(n_neighbors, values.shape[1])
    order = np.lexsort((positions, -values), axis=1)[:, :k]
    return np.take_along_axis(values, order, axis=1), np.take_along_axis(positions, order, axis=1)


def kneighbors(queries, store, *, n_neighbors=10):
    """The stored graphs nearest each query under the features' inner product.

    Parameters
    ----------
    queries : sparse or dense matrix of shape (n_queries, n_features)
        Features of the queries (``GraphFeatures.transform``).
    store : str or path-like or zarr store
        Written by :func:`features_to_zarr`.
    n_neighbors : int, keyword-only, default=10

    Returns
    -------
    indices : numpy.ndarray of int64, shape (n_queries, n_neighbors)
        Positions among the stored graphs, largest inner product first (ties: smaller
        position first).
    values : numpy.ndarray of shape (n_queries, n_neighbors)
        The inner products (the learned kernel, as the features approximate it).

    Examples
    --------
    >>> import dask, dask.bag as db, networkx as nx, tempfile
    >>> import graphinvariants as gi
    >>> from graphinvariants.scale.cluster import features_to_zarr, kneighbors
    >>> graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(n) for n in range(5, 25)]
    >>> features = gi.GraphFeatures(n_landmarks=10, seed=0).fit(graphs, [0] * 20 + [1] * 20)
    >>> store = tempfile.mkdtemp()
    >>> with dask.config.set(scheduler="sync"):
    ...     rows = features_to_zarr(features, db.from_sequence(graphs, npartitions=3), store)
    ...     indices, values = kneighbors(features.transform([nx.star_graph(30)]), store, n_neighbors=3)
    >>> bool(all(i >= 20 for i in indices[0]))  # the nearest graphs are stars
    True
    """
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1)
    _, rows, n_features = _layout(store)
    if queries.shape[1] != n_features:
        raise ValueError(f"queries have {queries.shape[1]} features, the store {n_features}")
    starts = np.concatenate(([0], np.cumsum(rows)[:-1]))
    shared = dask.delayed(queries, pure=True)
    tops = [dask.delayed(_top_of_part)(shared, store, i, int(s), n_neighbors) for i, s in enumerate(starts) if rows[i]]
    if not tops:
        raise ValueError("the store holds no graphs")
    values, positions = dask.delayed(_merge)(tops, n_neighbors).compute()
    return positions.astype(np.int64), values
