"""Closed-walk profiles: the histogram of each graph's exact ``(A^t)_ii`` profiles.

The open-walk counts ``(A^t 1)_i`` of :class:`~graphinvariants.embeddings.WalkHistogram`
see no more than colour refinement (1-WL). The closed-walk counts ``(A^t)_ii`` see
cycles through each node (``(A^3)_ii`` is twice its triangles) and separate graphs 1-WL
confuses: every pair of the graph atlas that 1-WL confuses, and the circular skip link
graphs (see the expressiveness page of the documentation).

:class:`ClosedWalkHistogram` is :class:`~graphinvariants.embeddings.WalkHistogram` with
the closed-walk profile in place of the open one: each node's prefixes
``((A)_ii, ..., (A^t)_ii)``, ``t = 1..k``, are its labels and a graph is the histogram of
its nodes' labels, compared by the cosine-normalised inner product. The counts come
from :func:`~graphinvariants.closed_walks.closed_walk_counts` (exact integers; balls of
radius ``ceil(k/2)`` for large graphs). The same profile also starts Weisfeiler-Lehman
refinement: ``WeisfeilerLehman(closed_walks=k)``.
"""

from ..closed_walks import closed_walk_counts
from .histogram import HistogramBatch, WalkHistogram

__all__ = ["ClosedHistogramBatch", "ClosedWalkHistogram"]


class ClosedHistogramBatch(HistogramBatch):
    """Closed-walk-profile histograms of many graphs (the attributes of
    :class:`~graphinvariants.embeddings.HistogramBatch`, for closed walks).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import ClosedWalkHistogram
    >>> h = ClosedWalkHistogram(k=3).as_embeddings([nx.complete_graph(3)])
    >>> h.prefixes()  # every node: 0 loops, 2 closed 2-walks, 2 closed 3-walks
    [(0,), (0, 2), (0, 2, 2)]
    """

    def __repr__(self):
        return f"<ClosedHistogramBatch: {len(self)} graphs, k={self.k}, {self.counts.shape[1]} labels>"


class ClosedWalkHistogram(WalkHistogram):
    """Histogram of exact closed-walk profiles ``(A^t)_ii`` with the cosine kernel.

    Parameters
    ----------
    k : int, default=8
        Length of the longest closed walks counted (labels are all prefixes
        ``t = 1..k``). Length 8 separates the circular skip link graphs.
    weight : str or None, default=None
        Edge attribute used as weight; weights must then be non-negative integers.

    Notes
    -----
    Like every cosine-normalised member, the kernel is blind to size: a graph and two
    disjoint copies of it have proportional histograms, so ``K = 1``. Multiply by the
    ``"size"`` member (:class:`~graphinvariants.embeddings.NodeCount`) to tell them
    apart. Walk-based counts cannot separate cospectral graphs whose nodes have equal
    closed-walk counts, such as any two strongly regular graphs with the same
    parameters (the Shrikhande graph and the 4 x 4 rook's graph): a limit of the method.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import ClosedWalkHistogram, WalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> hexagon = nx.cycle_graph(6)
    >>> triangles = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    >>> pairwise_kernels([hexagon, triangles], functional=WalkHistogram(k=8)).round(3)
    array([[1., 1.],
           [1., 1.]])
    >>> pairwise_kernels([hexagon, triangles], functional=ClosedWalkHistogram(k=3)).round(3)
    array([[1.   , 0.667],
           [0.667, 1.   ]])
    """

    batch_type = ClosedHistogramBatch

    def __init__(self, k=8, *, weight=None):
        super().__init__(k, weight=weight)

    def profile_columns(self, batch):
        """Every node's closed-walk counts ``(A^t)_ii``, one length ``t = 1..k`` at a time."""
        counts = closed_walk_counts(batch.matrix, batch.offsets, self.k)
        return [counts[:, t] for t in range(self.k)]
