"""What :class:`~graphinvariants.NearestGraphs` derives from its ``kneighbors``: the
neighbours as a sparse graph, and the neighbours within a radius, as scikit-learn's
``KNeighborsMixin`` and ``RadiusNeighborsMixin`` derive them."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

__all__ = ["NeighborsGraphMixin"]


def _check_mode(mode):
    if mode not in ("connectivity", "distance"):
        raise ValueError(f'mode must be "connectivity" or "distance", got {mode!r}')


def _neighbors_graph(distances, indices, mode, n_fit):
    """CSR of one row of neighbours per query (1s, or the distances), in their order."""
    lengths = np.array([len(i) for i in indices], dtype=np.int64)
    flat_i = np.concatenate(indices).astype(np.int64) if indices else np.zeros(0, np.int64)
    flat_d = np.concatenate(distances) if distances else np.zeros(0)
    values = np.ones(flat_i.size) if mode == "connectivity" else flat_d
    return sp.csr_array((values, flat_i, np.concatenate(([0], np.cumsum(lengths)))), shape=(len(indices), n_fit))


class NeighborsGraphMixin:
    """``kneighbors_graph``, ``radius_neighbors`` and ``radius_neighbors_graph`` of an
    estimator with ``kneighbors``, ``n_samples_fit_``, ``radius`` and ``index``."""

    def kneighbors_graph(self, graphs=None, n_neighbors=None, mode="connectivity"):
        """The k nearest neighbours as a sparse graph, as scikit-learn's ``kneighbors_graph``.

        Parameters
        ----------
        graphs : collection of graphs, SMILES strings or None
            The queries, as for :meth:`kneighbors` (None: every fitted graph, itself left out).
        n_neighbors : int or None
            As for :meth:`kneighbors`.
        mode : {"connectivity", "distance"}, default="connectivity"
            Stored values: 1 per neighbour, or its distance (an identical graph is then a
            stored 0: CSR keeps it).

        Returns
        -------
        scipy.sparse.csr_array of shape (n_queries, n_fitted)
            ``n_fitted`` is :attr:`n_samples_fit_`. Row ``i`` holds query ``i``'s neighbours in the order :meth:`kneighbors` gives.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(4, 9)]
        >>> search = gi.NearestGraphs("wl", n_neighbors=2).fit(graphs)
        >>> search.kneighbors_graph().toarray().astype(int)
        array([[0, 1, 1, 0, 0],
               [0, 0, 1, 1, 0],
               [0, 0, 0, 1, 1],
               [0, 0, 1, 0, 1],
               [0, 0, 1, 1, 0]])
        """
        _check_mode(mode)
        distances, indices = self.kneighbors(graphs, n_neighbors)
        return _neighbors_graph(list(distances), list(indices), mode, self.n_samples_fit_)

    def radius_neighbors(self, graphs=None, radius=None, return_distance=True, sort_results=True):
        """The fitted graphs within a distance of each graph, as scikit-learn's ``radius_neighbors``.

        Exact: every fitted graph is ranked for every query (``n_queries x
        n_samples_fit_`` distances held at once: pass queries in batches when that is
        large), so it needs ``index="exact"``.

        Parameters
        ----------
        graphs : collection of graphs, SMILES strings or None
            The queries (None: every fitted graph, itself left out).
        radius : float or None
            Largest distance returned (None: the constructor's ``radius``).
        return_distance : bool, default=True
        sort_results : bool, default=True
            Nearest first (ties by position); False keeps the same order too (the
            search is sorted anyway), accepted for scikit-learn's signature.

        Returns
        -------
        distances : numpy.ndarray of object, shape (n_queries,)
            One float64 array per query (only with ``return_distance``).
        indices : numpy.ndarray of object, shape (n_queries,)
            One int64 array of positions per query.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(4, 9)] + [nx.path_graph(4)]
        >>> search = gi.NearestGraphs("wl").fit(graphs)
        >>> distances, indices = search.radius_neighbors([nx.path_graph(4)], radius=0.0)
        >>> indices[0].tolist()  # the two copies, at distance exactly 0
        [0, 5]
        """
        check_is_fitted(self, "n_samples_fit_")
        radius = self.radius if radius is None else radius
        if isinstance(radius, bool) or not isinstance(radius, numbers.Real) or not radius >= 0:
            raise ValueError(f"radius must be a non-negative number, got {radius!r}")
        if self.index != "exact":
            raise ValueError('radius_neighbors scores every fitted graph: it needs index="exact"')
        n = self.n_samples_fit_
        k = n - 1 if graphs is None else n
        if k < 1:
            empty = np.empty(0 if graphs is None else len(graphs), dtype=object)
            return (empty, empty.copy()) if return_distance else empty
        distances, indices = self.kneighbors(graphs, k)
        counts = (distances <= radius).sum(axis=1)  # ascending: a prefix of each row
        out_d = np.empty(len(indices), dtype=object)
        out_i = np.empty(len(indices), dtype=object)
        for q, c in enumerate(counts.tolist()):
            out_d[q], out_i[q] = distances[q, :c].copy(), indices[q, :c].copy()
        return (out_d, out_i) if return_distance else out_i

    def radius_neighbors_graph(self, graphs=None, radius=None, mode="connectivity", sort_results=True):
        """:meth:`radius_neighbors` as a sparse graph (scikit-learn's ``radius_neighbors_graph``).

        Returns
        -------
        scipy.sparse.csr_array of shape (n_queries, n_fitted)
            1 per neighbour within ``radius`` (``mode="connectivity"``) or its distance
            (``mode="distance"``).

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> search = gi.NearestGraphs("wl").fit([nx.path_graph(n) for n in range(4, 9)])
        >>> near = search.radius_neighbors_graph(radius=0.7, mode="distance")
        >>> near.nonzero(), round(float(near[3, 4]), 3)  # only the paths of 7 and 8 nodes
        ((array([3, 4]), array([4, 3])), 0.598)
        """
        _check_mode(mode)
        distances, indices = self.radius_neighbors(graphs, radius, sort_results=sort_results)
        return _neighbors_graph(list(distances), list(indices), mode, self.n_samples_fit_)
