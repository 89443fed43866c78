"""The index of a kernel without feature rows: every fitted graph scored by the pair engine.

A kernel name whose kernel has no exact feature rows (``"power"``, products and sums) is
searched exactly by :class:`KernelIndex`: the kernel between the queries and every
fitted graph, a bounded block of rows at a time, reduced to its top ``k`` by
:func:`~graphinvariants.kernels.topk.kernel_top_k` (the one top-k). It serves the index
protocol of :class:`~graphinvariants.NearestGraphs` (``search(Q, k, exclude, lost)``,
``rows(start, stop)``), its rows being the fitted graphs' embeddings.

:func:`kneighbors` (``gi.kneighbors``, deprecated since 0.3.0, goes in 0.4.0) is this
index called with kernel values instead of distances.
"""

import warnings

import numpy as np

from .._utils.validation import check_int, check_n_jobs, check_working_memory
from ..graphs.smiles import is_smiles
from ..kernels.engine import check_not_same_iterator
from ..kernels.registry import DEFAULT_KERNEL, make_functional, molecule_parameters
from ..kernels.topk import kernel_top_k

__all__ = ["KernelIndex", "kernel_neighbors", "kneighbors"]


class KernelIndex:
    """Exact k nearest graphs by a kernel's values, through the pair engine.

    Parameters
    ----------
    functional : Functional
        The kernel (:func:`~graphinvariants.kernels.make_functional`).
    n_jobs : int or None, keyword-only
        Threads of the pair engine.
    working_memory : float or None, keyword-only
        MiB for one block of kernel values and its selection (None: scikit-learn's).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.kernels import make_functional
    >>> from graphinvariants.search._kernel_index import KernelIndex
    >>> graphs = [nx.path_graph(n) for n in range(4, 9)]
    >>> index = KernelIndex(make_functional("power", k=3)).fit(graphs)
    >>> indices, distances = index.search(index.embed([nx.path_graph(5)]), 2)
    >>> indices.tolist(), float(distances[0, 0])  # a copy of the query, at distance 0
    ([[1, 3]], 0.0)
    """

    def __init__(self, functional, *, n_jobs=None, working_memory=None):
        self.functional = functional
        self.n_jobs = n_jobs
        self.working_memory = working_memory

    def embed(self, graphs, what="graphs"):
        """The embeddings of ``graphs`` (the queries' encoding)."""
        return self.functional.as_embeddings(graphs, what=what)

    def fit(self, graphs, what="graphs"):
        """Index ``graphs`` (a collection, or embeddings of the functional)."""
        self.embeddings_ = self.embed(graphs, what=what)
        self.n_rows_ = len(self.embeddings_)
        return self

    def rows(self, start, stop):
        """The fitted graphs ``start:stop`` as queries: their positions (a ``range``),
        which :meth:`search` takes as the rows of the square matrix of the fitted
        graphs (the pair engine's own, diagonal exactly 1)."""
        return range(start, min(stop, self.n_rows_))

    def search(self, Q, k, *, exclude=None, lost=None):
        """``(indices, distances)`` of the ``k`` nearest fitted graphs of each query
        (embeddings ``Q``, or fitted graphs by :meth:`rows`): ``sqrt(max(0, 2 - 2 K))``
        ascending, ties by position;
        ``exclude``: a position left out per query (-1: none). ``lost`` must be None:
        a kernel's own values miss nothing."""
        if lost is not None and np.any(lost):
            raise ValueError("a kernel index scores the kernel itself: nothing is lost")
        return self._top(Q, k, exclude, "distance")

    def values(self, Q, k, *, exclude=None):
        """``(indices, kernel values)``: the largest ``k`` values, ties by position."""
        return self._top(Q, k, exclude, "value")

    def _top(self, Q, k, exclude, by):
        exclude = None if exclude is None else np.asarray(exclude, dtype=np.int64)
        left, right, rows = (self.embeddings_, None, Q) if isinstance(Q, range) else (Q, self.embeddings_, None)
        return kernel_top_k(left, right, self.functional, min(k, self.n_rows_), by=by, exclude=exclude, rows=rows,
                            n_jobs=check_n_jobs(self.n_jobs), working_memory=self.working_memory)


def kernel_neighbors(queries, corpus, *, n_neighbors=10, kernel=DEFAULT_KERNEL, n_jobs=None, working_memory=None,
                     **params):
    """:func:`kneighbors` without its deprecation warning: the corpus graphs of largest
    kernel value for each query (``queries=None``: each corpus graph, itself left out),
    as ``(indices, values)``."""
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1)
    check_n_jobs(n_jobs)
    working_memory = check_working_memory(working_memory)
    if is_smiles(queries) or is_smiles(corpus):
        params = molecule_parameters(kernel, params)
    functional = make_functional(kernel, **params)
    if corpus is None:
        raise TypeError("corpus must be a collection of graphs, got None")
    check_not_same_iterator(queries, corpus, ("queries", "corpus"), hint=None)
    index = KernelIndex(functional, n_jobs=n_jobs, working_memory=working_memory).fit(corpus, what="corpus")
    n = index.n_rows_
    if queries is None:
        if n_neighbors > n - 1:
            raise ValueError(f"n_neighbors={n_neighbors}, but with queries=None each of the {n} corpus graphs "
                             f"has only {n - 1} others")
        return index.values(index.rows(0, n), n_neighbors, exclude=np.arange(n))
    left = index.embed(queries, what="queries")
    if n_neighbors > n:
        raise ValueError(f"n_neighbors={n_neighbors} is larger than the corpus, which has {n} graphs")
    return index.values(left, n_neighbors)


#: The deprecated name this module serves -> what replaces it (the package's
#: ``__getattr__`` warns with it when ``gi.kneighbors`` is read, and a call warns again).
DEPRECATED = {
    "kneighbors": "NearestGraphs(kernel=name, n_neighbors=k).fit(corpus).kneighbors(queries), which returns "
                  "(distances, indices) as scikit-learn does; the kernel values are 1 - distances**2 / 2",
}


def kneighbors(queries, corpus, *, n_neighbors=10, kernel=DEFAULT_KERNEL, n_jobs=None, working_memory=None, **params):
    """Deprecated: most similar corpus graphs of every query graph, by kernel value.

    .. deprecated:: 0.3.0
       :class:`~graphinvariants.NearestGraphs` is the one door:
       ``NearestGraphs(kernel=name, n_neighbors=k, working_memory=...).fit(corpus)
       .kneighbors(queries)`` returns ``(distances, indices)`` as scikit-learn does, the
       same indices, and ``distances = sqrt(max(0, 2 - 2 K))`` (so ``K = 1 -
       distances**2 / 2``); ``kneighbors()`` with no queries is the leave-one-out
       search. This function warns with :class:`FutureWarning` and goes in 0.4.0; it
       is the kernel index of NearestGraphs asked for kernel values.

    Parameters
    ----------
    queries : collection of graphs or None
        Any collection the pair engine accepts (graphs, a
        :class:`~graphinvariants.GraphBatch`, a :class:`~graphinvariants.TUDataset`, or
        embeddings of the kernel's functional). None: leave-one-out search, as
        scikit-learn's ``NearestNeighbors.kneighbors(X=None)``: every corpus graph is a
        query, its own position never among its neighbours (identical graphs at other
        positions are).
    corpus : collection of graphs
        The graphs searched, in the same forms.
    n_neighbors : int, keyword-only
        Neighbours per query (default 10), at most ``len(corpus)`` (less one when
        ``queries`` is None).
    kernel : str, keyword-only
        A kernel name as for :func:`~graphinvariants.kernel_matrix` (default ``"power"``).
    n_jobs : int or None, keyword-only
        Threads over tiles of pairs (None: 1, -1: all cores).
    working_memory : float or None, keyword-only
        MiB that one chunk of kernel values and its selection may use (None:
        scikit-learn's ``working_memory``); a warning if one row alone exceeds it.
    **params
        Parameters of the kernel.

    Returns
    -------
    indices : numpy.ndarray of int64, shape (n_queries, n_neighbors)
        Corpus positions, most similar first; equal kernel values by increasing position.
    values : numpy.ndarray of float64, shape (n_queries, n_neighbors)
        The kernel values, non-increasing along each row, as
        :func:`~graphinvariants.kernel_matrix` computes them.

    Examples
    --------
    >>> import warnings
    >>> import networkx as nx
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(20, 0.2, seed=s) for s in range(8)]
    >>> corpus = graphs + graphs  # every graph twice, so kernel values tie
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     indices, values = gi.kneighbors(graphs[:2], corpus, n_neighbors=4)
    >>> caught[0].category.__name__
    'FutureWarning'
    >>> indices  # equal values: the smaller corpus position first
    array([[ 0,  8,  1,  9],
           [ 1,  9,  5, 13]])

    The one door, with scikit-learn's convention:

    >>> search = gi.NearestGraphs(kernel="power", n_neighbors=4).fit(corpus)
    >>> distances, same = search.kneighbors(graphs[:2])
    >>> bool((same == indices).all()), bool(np.allclose(1 - distances**2 / 2, values))
    (True, True)
    """
    warnings.warn("graphinvariants.kneighbors is deprecated since 0.3.0 and goes in 0.4.0: use "
                  + DEPRECATED["kneighbors"], FutureWarning, stacklevel=2)
    return kernel_neighbors(queries, corpus, n_neighbors=n_neighbors, kernel=kernel, n_jobs=n_jobs,
                            working_memory=working_memory, **params)
