"""A discrete functional: the histogram of each graph's exact walk-count profiles.

Every node ``i`` has the exact walk counts ``c_t = (A^t 1)_i`` for ``t = 1..k``. Its
``k`` prefixes ``(c_1)``, ``(c_1, c_2)``, ..., ``(c_1, ..., c_k)`` are discrete labels
(much as Weisfeiler-Lehman relabels nodes round by round), and a graph is the histogram
of the labels of its nodes. The kernel is the cosine-normalised linear kernel between
histograms: ``K(G, H) = <h_G, h_H> / (|h_G| |h_H|)``. Counts are exact integers, so the
histogram, and the kernel, do not depend on node order at all.

A batch stores its vocabulary (every prefix that occurs, as rows of width ``k`` padded
with ``-1``, sorted) and a sparse count matrix; two batches are compared by merging
their vocabularies once (:meth:`WalkHistogram.align`).
"""

import numpy as np
import scipy.sparse as sp

from .._validation import check_k
from ..walks import exact_walk_counts
from .counts import CountFeatures, count_matrix, relabel_columns, unique_rows

__all__ = ["HistogramBatch", "WalkHistogram"]


class HistogramBatch:
    """Walk-profile histograms of many graphs.

    Attributes
    ----------
    vocabulary : numpy.ndarray of shape (n_labels, k)
        Every prefix of a walk-count profile that occurs, padded with -1, sorted.
    counts : scipy.sparse.csr_array of shape (n_graphs, n_labels)
        ``counts[g, j]``: number of nodes of graph ``g`` with prefix ``vocabulary[j]``.
    k : int
    params : dict
        The parameters the histograms were made with (``k``, ``weight``); checked
        whenever the batch is used as precomputed embeddings. A batch built by hand
        records only ``k``.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WalkHistogram
    >>> h = WalkHistogram(k=2).as_embeddings([nx.star_graph(3)])
    >>> h.vocabulary.tolist()  # leaves: 1 then 3 walks; hub: 3 then 3
    [[1, -1], [1, 3], [3, -1], [3, 3]]
    >>> h.counts.toarray().tolist()
    [[3.0, 3.0, 1.0, 1.0]]
    """

    def __init__(self, vocabulary, counts, k, *, params=None):
        self.vocabulary = vocabulary
        self.counts = counts
        self.k = k
        self.params = dict(params) if params is not None else {"k": k}

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<HistogramBatch: {len(self)} graphs, k={self.k}, {len(self.vocabulary)} labels>"


class WalkHistogram(CountFeatures):
    """Histogram of exact walk-count profiles with the cosine-normalised linear kernel.

    Parameters
    ----------
    k : int, default=5
        Length of the longest walks counted (labels are all prefixes ``t = 1..k``).
    weight : str or None, default=None
        Edge attribute used as weight; weights must then be integers (walk counts are
        exact).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.path_graph(4), nx.path_graph(5), nx.cycle_graph(4)]
    >>> pairwise_kernels(graphs, functional=WalkHistogram(k=2)).round(3)
    array([[1.   , 0.959, 0.354],
           [0.959, 1.   , 0.603],
           [0.354, 0.603, 1.   ]])
    """

    batch_type = HistogramBatch

    def __init__(self, k=5, *, weight=None):
        self.k = check_k(k)
        self.weight = weight

    def embed(self, batch):
        k = self.k
        n_graphs = len(batch)
        if batch.n_nodes == 0:
            return self.batch_type(np.zeros((0, k), np.int64), sp.csr_array((n_graphs, 0)), k,
                                   params=self.embedding_params())
        counts = self.node_profiles(batch)
        owner = np.repeat(np.arange(n_graphs), batch.sizes)
        # number the prefixes length by length, as Weisfeiler-Lehman relabels nodes: a
        # prefix of length t + 1 is (number of its prefix of length t, c_{t+1}), and
        # numbers follow the lexicographic order of the prefixes
        number = np.zeros(batch.n_nodes, dtype=np.int64)
        numbers, distinct = [], []
        for t in range(k):
            number, first = _dense_rank(number, counts[:, t])
            numbers.append(number)
            distinct.append(counts[first, : t + 1])  # each distinct prefix once, in order
        # one vocabulary: every distinct prefix padded with -1 to width k, sorted
        padded = np.full((sum(len(d) for d in distinct), k), -1, dtype=np.int64)
        start = np.concatenate(([0], np.cumsum([len(d) for d in distinct])))
        for t, rows in enumerate(distinct):
            padded[start[t] : start[t + 1], : t + 1] = rows
        vocabulary, column = unique_rows(padded)
        label = np.concatenate([column[start[t] + number] for t, number in enumerate(numbers)])
        hist = count_matrix(np.tile(owner, k), label, n_graphs, len(vocabulary))
        return self.batch_type(vocabulary, hist, k, params=self.embedding_params())

    def embedding_params(self):
        return {"k": self.k, "weight": self.weight}

    def node_profiles(self, batch):
        """Every node's exact integer profile, shape (n_nodes, k): the walk counts
        ``A^t 1`` (subclasses count other walks)."""
        return exact_walk_counts(batch.matrix, self.k)

    def check_batch(self, embedded, what):
        if type(embedded) is not self.batch_type:
            raise TypeError(f"{what} holds {type(embedded).__name__} embeddings, not those of {type(self).__name__}")
        super().check_batch(embedded, what)

    def merge(self, left, right):
        vocabulary, label = unique_rows(np.concatenate((left.vocabulary, right.vocabulary)))
        n = len(left.vocabulary)
        return (
            relabel_columns(left.counts, label[:n], len(vocabulary)),
            relabel_columns(right.counts, label[n:], len(vocabulary)),
        )


def _dense_rank(major, minor):
    """Numbers of the distinct pairs ``(major[i], minor[i])`` in lexicographic order,
    and one index holding each pair, in that order."""
    order = np.lexsort((minor, major))
    new = np.ones(len(order), dtype=bool)
    new[1:] = (np.diff(major[order]) != 0) | (np.diff(minor[order]) != 0)
    number = np.empty(len(order), dtype=np.int64)
    number[order] = np.cumsum(new) - 1
    return number, order[new]

