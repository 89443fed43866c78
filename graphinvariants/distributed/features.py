"""Features on Dask: a Bag of graphs in, sparse feature rows in Zarr out.

Part of :mod:`graphinvariants.distributed` (the ``[dask]`` extra: Dask, with
``distributed`` for a cluster, and Zarr). ``import graphinvariants`` never imports them.

* :func:`features_to_zarr`: every partition of a ``dask.bag.Bag`` of graphs goes
  through :meth:`~graphinvariants.GraphFeatures.transform_block` (the function
  ``transform`` calls in process) and is written by its task to Zarr as one CSR part
  (``part_{i}/data``, ``indices``, ``indptr``), so a worker holds one partition and its
  features at a time. The rows equal ``transform`` of the same graphs bit for bit.
  Any fitted :class:`~graphinvariants.GraphFeatures` (a fixed member, a combination,
  the learned default) can be written.
* :func:`read_features`: the parts (all or some) as one ``scipy.sparse.csr_array``.
* :func:`store_layout` and :func:`store_part`: a finished store's layout and one of its
  parts, for :func:`~graphinvariants.distributed.search.store_kneighbors`.

A store records whether its last write finished: its group attribute ``status`` is
``"incomplete"`` from the start of a write (before any part is written) and becomes
``"complete"`` only after every part is, with the write's identity (``run``, a random
hex string every part records too), the rows of every part (``rows``), the number of
columns (``n_features``) and the identity of the map that wrote it (``feature_map``:
:meth:`GraphFeatures.digest <graphinvariants.GraphFeatures.digest>`, which
:class:`~graphinvariants.NearestGraphs` checks before it searches the store). Both readers refuse a store whose status is not
``"complete"`` or whose parts are not all of its last run, so a write that failed
half-way (a graph without the labels the features were fitted on, a worker lost) never
reads as a whole. Writing into a store that holds features is refused unless
``overwrite=True``; there is no resuming: an unfinished store is written again whole.

Where a store goes: a new path or an empty folder (made a Zarr group), or an existing
Zarr group, whose own attributes are kept (only ``status``, ``run``, ``rows``,
``n_features`` and ``feature_map`` are the store's). A folder that holds other files
and is not a Zarr group is refused, so that Zarr's files never land among a user's.
"""

import os
import uuid
from pathlib import Path

import dask
import dask.bag as db
import numpy as np
import scipy.sparse as sp
import zarr
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_int
from ..graphs import GraphBatch

__all__ = ["features_to_zarr", "read_features", "rows_to_zarr"]

#: The store's ``status`` attribute while a write runs, and once all its parts are written.
INCOMPLETE, COMPLETE = "incomplete", "complete"


def _part_names(group):
    return [name for name in group.group_keys() if name.startswith("part_")]


#: The group attributes that are the store's own; any other attribute of the group is kept.
STORE_ATTRIBUTES = ("status", "run", "rows", "n_features", "feature_map")


def _check_folder(store):
    """Refuse a local folder that holds files and is not a Zarr group (v2 or v3)."""
    if not isinstance(store, (str, os.PathLike)):
        return
    path = Path(store)
    if path.is_file():
        raise ValueError(f"store {str(store)!r} is a file, not a Zarr group; give a new or empty folder")
    if path.is_dir() and any(path.iterdir()) and not any((path / name).exists()
                                                          for name in ("zarr.json", ".zgroup")):
        raise ValueError(f"store {str(store)!r} is a folder that holds other files and is not a Zarr group: "
                         "give a new or empty folder (or an existing Zarr group), e.g. a subfolder "
                         f"{str(path / 'features.zarr')!r}")


def _check_target(group, store, overwrite, hint="features_to_zarr(..., overwrite=True)"):
    """Refuse to write into a store that holds features unless ``overwrite``."""
    if overwrite or ("status" not in group.attrs and not _part_names(group)):
        return
    status = group.attrs.get("status")
    held = (f"the features of an unfinished write (run {group.attrs.get('run')})" if status == INCOMPLETE
            else f"features (run {group.attrs.get('run')})" if status == COMPLETE else "parts of features")
    raise ValueError(f"store {str(store)!r} already holds {held}; to replace them pass overwrite=True: {hint}")


def _set_attributes(group, values):
    """The store's own attributes set to ``values`` (those not given removed), the
    group's other attributes kept."""
    attrs = {k: v for k, v in group.attrs.asdict().items() if k not in STORE_ATTRIBUTES}
    attrs.update(values)
    group.attrs.put(attrs)


def _start(store, run, overwrite):
    """Mark the store unfinished (run ``run``) and remove every part of earlier writes,
    before any part of this one is written."""
    group = zarr.open_group(store, mode="a")
    _check_target(group, store, overwrite)
    _set_attributes(group, {"status": INCOMPLETE, "run": run})
    for name in _part_names(group):
        del group[name]


def _write_part(graphs, index, features, store, run, started):
    """Features of one partition, written as Zarr part ``index`` of run ``run``; returns
    its row count. ``started``: the result of :func:`_start` (so that it runs first)."""
    if not (isinstance(graphs, GraphBatch) or isinstance(getattr(graphs, "batch", None), GraphBatch)):
        graphs = list(graphs)  # a partition of graphs (a TUDataset or GraphBatch is kept as one)
    return _write_rows(features.transform_block(graphs), index, store, run)


def _write_rows(F, index, store, run):
    """CSR rows ``F`` written as Zarr part ``index`` of run ``run``; returns its row count."""
    group = zarr.open_group(store, mode="a").require_group(f"part_{index}")
    for name in ("data", "indices", "indptr"):
        values = getattr(F, name)
        values = values if len(values) else np.zeros(0, dtype=values.dtype)
        group.create_array(name, data=values, chunks=(max(len(values), 1),), overwrite=True)
    group.attrs.put({"run": run, "rows": int(F.shape[0])})
    return F.shape[0]


def rows_to_zarr(features, X, store, *, rows_per_part=2**16, overwrite=False,
                 hint="rows_to_zarr(..., overwrite=True)"):
    """Write rows already made by a fitted ``features`` (``X``, its
    :meth:`~graphinvariants.GraphFeatures.fit_transform` of the graphs) to Zarr, in this
    process, ``rows_per_part`` rows a part: the store :func:`features_to_zarr` writes
    for the same graphs (same rows, attributes and marker written last), without
    mapping the graphs again.

    Parameters
    ----------
    features : GraphFeatures
        Fitted; its :meth:`~graphinvariants.GraphFeatures.digest` is recorded.
    X : sparse matrix of shape (n_graphs, n_features)
        ``n_features`` is ``features.n_features_out_``.
    store : str or path-like or zarr store
    rows_per_part : int, keyword-only, default=65536
    overwrite : bool, keyword-only, default=False
    hint : str, keyword-only
        How the caller passes ``overwrite=True`` (named in the error).

    Returns
    -------
    numpy.ndarray of int64
        Rows of every part.

    Examples
    --------
    >>> import networkx as nx, tempfile
    >>> import graphinvariants as gi
    >>> from graphinvariants.distributed import read_features, rows_to_zarr
    >>> graphs = [nx.cycle_graph(n) for n in range(6, 26)]
    >>> features = gi.GraphFeatures("wl")
    >>> X = features.fit_transform(iter(graphs))  # the graphs a block at a time
    >>> store = tempfile.mkdtemp()
    >>> rows_to_zarr(features, X, store, rows_per_part=8).tolist()
    [8, 8, 4]
    >>> bool((read_features(store) != features.transform(graphs)).nnz == 0)
    True
    """
    check_is_fitted(features, "n_features_out_")
    rows_per_part = check_int(rows_per_part, "rows_per_part", minimum=1)
    if not isinstance(overwrite, (bool, np.bool_)):
        raise TypeError(f"overwrite must be True or False, got {overwrite!r}")
    X = sp.csr_array(X)
    if X.shape[1] != features.n_features_out_:
        raise ValueError(f"X has {X.shape[1]} columns, the features {features.n_features_out_}")
    _check_folder(store)
    _check_target(zarr.open_group(store, mode="a"), store, overwrite, hint)
    run = uuid.uuid4().hex
    _start(store, run, bool(overwrite))
    rows = [_write_rows(sp.csr_array(X[a : a + rows_per_part]), i, store, run)
            for i, a in enumerate(range(0, max(X.shape[0], 1), rows_per_part))]
    return _finish(rows, store, run, int(features.n_features_out_), features.digest())


def features_to_zarr(features, graphs, store, *, overwrite=False, compute=True,
                     hint="features_to_zarr(..., overwrite=True)"):
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
        Where the group goes (created if missing).
    overwrite : bool, keyword-only, default=False
        Replace the features a store holds already (those of a finished or of an
        unfinished write); False: such a store is refused.
    compute : bool, keyword-only, default=True
        False: return the ``dask.delayed`` write instead of running it (the store is
        not touched until it runs).
    hint : str, keyword-only
        How the caller passes ``overwrite=True``, named in the error of a store that
        holds features (NearestGraphs names its own parameter).

    Returns
    -------
    numpy.ndarray of int64
        Rows of every part, in order (their sum is the number of graphs); the group's
        attributes record them too (``rows``), the number of columns (``n_features``),
        the write's identity (``run``), the map's (``feature_map``, its
        :meth:`~graphinvariants.GraphFeatures.digest`) and ``status="complete"``;
        the group's other attributes are kept.

    Raises
    ------
    ValueError
        If ``store`` holds features and ``overwrite`` is False, or is a folder that
        holds other files and is not a Zarr group. A write that fails in a
        task (a graph without the node labels the features need, a worker lost) raises
        its error and leaves the store marked ``status="incomplete"``, which
        :func:`read_features` and
        :func:`~graphinvariants.distributed.search.store_kneighbors` refuse until it is written again
        (with ``overwrite=True``).

    Examples
    --------
    >>> import dask, dask.bag as db, networkx as nx, tempfile
    >>> import graphinvariants as gi
    >>> from graphinvariants.distributed import features_to_zarr, read_features
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
    if not isinstance(overwrite, (bool, np.bool_)):
        raise TypeError(f"overwrite must be True or False, got {overwrite!r}")
    # fails here, not in a task, if the store cannot be written or holds features
    _check_folder(store)
    _check_target(zarr.open_group(store, mode="a"), store, overwrite, hint)
    run = uuid.uuid4().hex
    started = dask.delayed(_start, pure=False)(store, run, bool(overwrite))
    parts = graphs.to_delayed()
    shared = dask.delayed(features, pure=True)
    writes = [dask.delayed(_write_part, pure=False)(part, i, shared, store, run, started)
              for i, part in enumerate(parts)]
    finish = (store, run, int(features.n_features_out_), features.digest())
    client = _active_client() if compute else None
    if client is None:
        done = dask.delayed(_finish, pure=False)(writes, *finish)
        return done.compute() if compute else done
    # on a cluster, a failed part must not leave the others writing behind the caller's
    # back (a next write would find their files): every part ends before any error is raised
    from distributed import wait

    futures = client.compute(writes)
    wait(futures)
    return _finish(client.gather(futures), *finish)


def _active_client():
    """The distributed client Dask would compute on, or None (local schedulers)."""
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _finish(rows, store, run, n_features, feature_map):
    """Mark the store complete once every part of run ``run`` is written."""
    group = zarr.open_group(store, mode="a")
    if group.attrs.get("run") != run:
        raise ValueError(f"store {str(store)!r} was begun by another write (run {group.attrs.get('run')}) while "
                         f"this one (run {run}) ran; its parts may mix the two: write it again with overwrite=True")
    rows = [int(r) for r in rows]
    for i in range(len(rows)):
        _check_part(group, store, i, run)
    _set_attributes(group, {"status": COMPLETE, "run": run, "rows": rows, "n_features": n_features,
                            "feature_map": feature_map})
    return np.asarray(rows, dtype=np.int64)


def _check_part(group, store, i, run):
    if f"part_{i}" not in group or group[f"part_{i}"].attrs.get("run") != run:
        raise ValueError(f"part {i} of store {str(store)!r} is not of its write (run {run}); the store was changed "
                         "while it was written or read: write it again with features_to_zarr(..., overwrite=True)")
    return group[f"part_{i}"]


def store_part(group, store, i, run, n_features):
    """Part ``i`` of run ``run`` of an open store, as a CSR matrix of ``n_features`` columns."""
    part = _check_part(group, store, i, run)
    indptr = part["indptr"][:]
    return sp.csr_array((part["data"][:], part["indices"][:], indptr), shape=(len(indptr) - 1, n_features))


def store_layout(store, run=None):
    """The group, rows of every part, columns and run of a finished store (of run ``run``
    when given: a task checks that the store is still the one its caller read)."""
    try:
        group = zarr.open_group(store, mode="r")
    except FileNotFoundError:  # zarr's GroupNotFoundError is one
        raise ValueError(f"{store!r} holds no features written by features_to_zarr (no Zarr group there)") from None
    status = group.attrs.get("status")
    if status == INCOMPLETE:
        raise ValueError(f"store {str(store)!r} is unfinished: its last write (run {group.attrs.get('run')}) did not "
                         "complete, so its parts may mix two writes; write it again with "
                         "features_to_zarr(..., overwrite=True)")
    if status != COMPLETE:
        raise ValueError(f"{store!r} holds no features written by features_to_zarr (no status='complete' attribute)")
    if run is not None and group.attrs["run"] != run:
        raise ValueError(f"store {str(store)!r} was written again (run {group.attrs['run']}) while it was read "
                         f"(run {run}); read it again")
    return group, [int(r) for r in group.attrs["rows"]], int(group.attrs["n_features"]), group.attrs["run"]


def read_features(store, parts=None):
    """The stored features (of ``parts``, a sequence of part numbers; None: all) as one CSR matrix.

    Parameters
    ----------
    store : str or path-like or zarr store
        Written by :func:`features_to_zarr`.
    parts : sequence of int or None, default=None
        Part numbers, ``0`` to the number of parts less one, in the order wanted.

    Returns
    -------
    scipy.sparse.csr_array of shape (rows of the parts, n_features)

    Raises
    ------
    ValueError
        If the store holds no finished write of :func:`features_to_zarr` (its last write
        failed or was stopped: write it again with ``overwrite=True``), or a part number
        is not one of the store's.

    Examples
    --------
    A fixed member's features (Weisfeiler-Lehman label counts), written in two parts:

    >>> import dask, tempfile
    >>> import dask.bag as db, networkx as nx
    >>> from graphinvariants import GraphFeatures
    >>> from graphinvariants.distributed import features_to_zarr, read_features
    >>> paths = [nx.path_graph(n) for n in range(2, 12)]
    >>> wl, store = GraphFeatures("wl").fit(paths), tempfile.mkdtemp()
    >>> with dask.config.set(scheduler="sync"):
    ...     rows = features_to_zarr(wl, db.from_sequence(paths, npartitions=2), store)
    >>> read_features(store, [1]).shape == (5, wl.n_features_out_)
    True
    """
    group, rows, n_features, run = store_layout(store)
    parts = range(len(rows)) if parts is None else _check_parts(parts, len(rows), store)
    blocks = [store_part(group, store, i, run, n_features) for i in parts]
    if not blocks:
        return sp.csr_array((0, n_features))
    return sp.csr_array(sp.vstack(blocks, format="csr"))


def _check_parts(parts, n_parts, store):
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
        raise TypeError(f"parts must be a sequence of part numbers or None, got {parts!r}")
    parts = [check_int(i, "a part number") for i in parts]
    wrong = [i for i in parts if i >= n_parts]
    if wrong:
        raise ValueError(f"store {str(store)!r} has {n_parts} parts, numbered 0 to {n_parts - 1}; parts asks for "
                         f"{wrong}")
    return parts
