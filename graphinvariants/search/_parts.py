"""Feature rows searched a part at a time: on Dask workers, or read from a Zarr store.

The only search code that talks to Dask futures or Zarr stores. Both classes serve the
index protocol of :class:`~graphinvariants.NearestGraphs` (``search(Q, k, exclude,
lost)``, ``rows(start, stop)``):

* :class:`DaskParts`: the rows cut into parts (whole blocks of
  :data:`~graphinvariants.search.exact.BLOCK_ROWS`), an index built per part on a worker;
  every part answers every query and the answers are merged by
  :func:`~graphinvariants.kernels.topk.merge_top_k`.
* :class:`StoreParts`: the rows a :func:`~graphinvariants.distributed.features_to_zarr`
  store holds, an exact index built per stored part when a query comes (on the client's
  workers if given), merged alike.

Exact answers equal the in-process ones bit for bit: every part shares one plan of dense
columns and of bounds, and every distance is one fixed sum per pair
(:func:`~graphinvariants.search.exact.pair_inner_products`).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ..features import GraphFeatures
from ..graphs.batch import subset
from ..kernels.topk import merge_top_k
from .exact import ExactIndex, split_points

__all__ = ["DaskParts", "StoreParts", "check_store", "check_store_map", "is_bag", "open_store", "write_store"]


def is_bag(graphs):
    """Whether ``graphs`` is a ``dask.bag.Bag`` (without importing Dask)."""
    return type(graphs).__module__.startswith("dask.bag")


def _build(index, rows, options):
    return index.fit(rows, **options)


def _search_part(index, Q, k, exclude, start, lost=None):
    if isinstance(index, ExactIndex):
        return index.search(Q, k, exclude=exclude, offset=start, lost=lost)
    indices, values = index.search(Q, k, exclude=None if exclude is None else exclude - start, lost=lost)
    return indices + start, values


def _rows_of_part(index, start, stop):
    stop = min(max(stop, 0), index.n_rows_)
    return index.rows(min(start, stop), stop)


class DaskParts:
    """Rows split into ``n_parts`` parts, each indexed on a worker of ``client``.

    Parameters
    ----------
    client : dask.distributed.Client
    n_parts : int
    """

    def __init__(self, client, n_parts):
        self.client = client
        self.n_parts = n_parts

    def fit(self, X, new_index):
        """Index rows ``X``, a part per task; ``new_index`` makes an unfitted index
        (:class:`~.exact.ExactIndex` or :class:`~.approximate.ApproximateIndex`)."""
        n = X.shape[0]
        exact = isinstance(new_index(), ExactIndex)
        if exact:
            points = split_points(n, self.n_parts, new_index().block_rows)
        else:
            points = np.unique(np.linspace(0, n, self.n_parts + 1).astype(np.int64))
        X = sp.csr_array(X) if sp.issparse(X) else np.asarray(X)
        options = {}
        if exact:  # one plan of columns and bounds for every part (fitted once)
            plan = new_index()
            options["dense_columns"] = plan.frequent_columns(X)
            options["projection"] = plan.fit_projection(X)
        self.parts = []
        for a, b in zip(points[:-1], points[1:]):
            rows = self.client.scatter(X[a:b])
            self.parts.append((int(a), self.client.submit(_build, new_index(), rows, options, pure=False)))
        self.n_rows_ = int(n)
        return self

    def search(self, Q, k, *, exclude=None, lost=None):
        futures = [self.client.submit(_search_part, part, Q, k, exclude, start, lost, pure=False)
                   for start, part in self.parts]
        return merge_top_k(self.client.gather(futures), k, largest=False)

    def rows(self, start, stop):
        pieces = [self.client.submit(_rows_of_part, part, max(start - a, 0), stop - a, pure=False)
                  for a, part in self.parts]
        blocks = [b for b in self.client.gather(pieces) if b.shape[0]]
        return sp.vstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.vstack(blocks)


def _compute(client, run):
    if client is None:
        import dask

        with dask.config.set(scheduler="threads"):
            return run()
    return run()  # the client is Dask's default scheduler while it is open


def write_store(feature_map, graphs, store, *, n_partitions=None, client=None, overwrite=False):
    """Write the rows of a fitted ``feature_map`` (a GraphFeatures) of ``graphs`` (a
    collection or a ``dask.bag.Bag``) to the Zarr ``store``, a partition per task (on
    ``client`` if given); returns the rows written per part."""
    import dask.bag as db

    from ..distributed import features_to_zarr

    if is_bag(graphs):
        bag = graphs
    else:
        bag = db.from_sequence(list(range(len(graphs))), npartitions=n_partitions or 1).map_partitions(
            lambda part, graphs=graphs: subset(graphs, np.asarray(part, dtype=np.int64)))
    return _compute(client, lambda: features_to_zarr(
        feature_map, bag, store, overwrite=bool(overwrite),
        hint="NearestGraphs(..., overwrite=True), or fit() with no graphs to search what it holds"))


def check_store(store):
    """Refuse a store that holds no finished write of features (a clear error)."""
    from ..distributed import read_features

    read_features(store, [])


def check_store_map(store, feature_map):
    """Refuse a store written by another feature map than ``feature_map`` (its rows
    would be compared with rows of other columns, and the answer would be wrong)."""
    import zarr

    recorded = zarr.open_group(store, mode="r").attrs.get("feature_map")
    digest = feature_map.digest() if callable(getattr(feature_map, "digest", None)) else None
    if recorded is None:
        raise ValueError(f"store {str(store)!r} records no feature map (written before stores recorded one), so "
                         "whether kernel wrote it cannot be checked: write it again with fit(graphs, ...) and "
                         "overwrite=True")
    if digest != recorded:
        raise ValueError(f"store {str(store)!r} was written by another feature map (digest {recorded[:12]}...) than "
                         f"kernel ({'not a GraphFeatures' if digest is None else 'digest ' + digest[:12] + '...'}): "
                         "give the fitted GraphFeatures that wrote it (or an equal one: same parameters, fitted "
                         "alike), or write the store again with this one: fit(graphs) with overwrite=True")


def _stored_rows(store):
    import zarr

    return [int(r) for r in zarr.open_group(store, mode="r").attrs["rows"]]


def _search_stored_part(store, i, start, Q, k, exclude, working_memory, index_params, plan, lost=None):
    from ..distributed import read_features

    index = ExactIndex(working_memory=working_memory, **index_params).fit(read_features(store, [i]), **plan)
    return index.search(Q, k, exclude=exclude, offset=start, lost=lost)


class StoreParts:
    """The feature rows of a Zarr store, searched exactly a stored part at a time.

    Parameters
    ----------
    store : str or path-like
        Written by :func:`~graphinvariants.distributed.features_to_zarr`.
    client : dask.distributed.Client or None
        Search the parts on its workers.
    working_memory : float or None
    index_params : dict
        Options of each part's :class:`~.exact.ExactIndex` (its ``metric`` is the plan's).
    """

    def __init__(self, store, *, client=None, working_memory=None, index_params=None):
        self.store = store
        self.client = client
        self.working_memory = working_memory
        self.index_params = index_params or {}
        self.metric = "euclidean"

    def fit(self, new_index):
        """Read the layout, and fit one plan of dense columns and of bounds for every
        part (from the first part that holds rows), once rather than at every search;
        ``new_index`` makes the unfitted :class:`~.exact.ExactIndex` of the plan."""
        from ..distributed import read_features

        rows = _stored_rows(self.store)
        first = next((i for i, r in enumerate(rows) if r), None)
        if first is None:
            self.plan = {"dense_columns": np.zeros(0, dtype=np.int64)}
        else:
            plan = new_index()
            self.metric = plan.metric
            part = read_features(self.store, [first])
            self.plan = {"dense_columns": plan.frequent_columns(part), "projection": plan.fit_projection(part)}
        self.n_rows_ = int(np.sum(rows))
        return self

    def search(self, Q, k, *, exclude=None, lost=None):
        rows = _stored_rows(self.store)
        starts = np.concatenate(([0], np.cumsum(rows)[:-1])).astype(np.int64)
        options = {"metric": getattr(self, "metric", "euclidean"), **self.index_params}
        args = [(self.store, i, int(s), Q, k, exclude, self.working_memory, options, self.plan, lost)
                for i, s in enumerate(starts) if rows[i]]
        if self.client is not None:
            results = self.client.gather([self.client.submit(_search_stored_part, *a, pure=False) for a in args])
        else:
            results = [_search_stored_part(*a) for a in args]
        return merge_top_k(results, k, largest=False)

    def rows(self, start, stop):
        from ..distributed import read_features

        rows = _stored_rows(self.store)
        bounds = np.concatenate(([0], np.cumsum(rows))).astype(np.int64)
        blocks = []
        for i in range(len(rows)):
            a, b = bounds[i], bounds[i + 1]
            if b <= start or a >= stop or a == b:
                continue
            part = read_features(self.store, [i])
            blocks.append(part[max(start, a) - a : min(stop, b) - a])
        return sp.vstack(blocks, format="csr")


def open_store(store, feature_map, graphs, new_index, *, client=None, n_partitions=None, working_memory=None,
               index_params=None, overwrite=False, y=None):
    """The :class:`StoreParts` of ``store``: ``graphs`` (a collection or a Bag) written
    there by the fitted ``feature_map`` (a GraphFeatures), or, with ``graphs=None``, the
    rows it holds, checked to have been written by ``feature_map``; ``new_index`` makes
    the unfitted :class:`~.exact.ExactIndex` of the parts' plan. An unfitted
    ``feature_map`` (not a Bag, no ``client``) is fitted here by its ``fit_transform``
    (``y``), which reads an iterable a block at a time, and its rows are written as
    they are (:func:`~graphinvariants.distributed.rows_to_zarr`): a fit that streams."""
    if graphs is not None and not is_bag(graphs) and client is None and isinstance(feature_map, GraphFeatures) and (
            not hasattr(feature_map, "n_features_out_")):
        from ..distributed import rows_to_zarr

        rows_to_zarr(feature_map, feature_map.fit_transform(graphs, y), store, overwrite=bool(overwrite),
                     hint="NearestGraphs(..., overwrite=True), or fit() with no graphs to search what it holds")
    elif graphs is not None:
        if not isinstance(feature_map, GraphFeatures):
            raise ValueError("store= holds the rows of a GraphFeatures (features_to_zarr); give kernel=None, a "
                             "GraphKernel, a kernel name with index='approximate' or a GraphFeatures")
        if is_bag(graphs):
            check_is_fitted(feature_map, "n_features_out_")
        write_store(feature_map, graphs, store, n_partitions=n_partitions, client=client, overwrite=overwrite)
    else:
        check_store(store)  # a clear error if the store holds no features
        try:
            check_is_fitted(feature_map, "n_features_out_")
        except Exception:
            raise ValueError("fit() with no graphs searches the store as it is: kernel must be the fitted "
                             "GraphFeatures that wrote it") from None
        check_store_map(store, feature_map)
    return StoreParts(store, client=client, working_memory=working_memory, index_params=index_params).fit(new_index)
