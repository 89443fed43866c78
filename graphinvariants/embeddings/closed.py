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
from :func:`~graphinvariants.walks.closed.closed_walk_counts` (exact integers; balls of
radius ``ceil(k/2)`` for large graphs). The same profile also starts Weisfeiler-Lehman
refinement: ``WeisfeilerLehman(closed_walks=k)``. :class:`ClosedWalkGaussian` is the
Gaussian form, as the paper's power kernel is of the open walks: the mean and
covariance of each graph's log closed-walk profiles, compared by the Bhattacharyya
coefficient.
"""

import numpy as np

from .._utils.validation import check_k
from ..walks.closed import closed_walk_counts
from .gaussian import GaussianBatch, GaussianEmbedding, stacked_moments
from .histogram import HistogramBatch, WalkHistogram

__all__ = ["CLOSED_WALK_RIDGE", "ClosedHistogramBatch", "ClosedWalkGaussian", "ClosedWalkHistogram"]

#: Default relative ridge of :class:`ClosedWalkGaussian`.
CLOSED_WALK_RIDGE = 1e-6


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


class ClosedWalkGaussian(GaussianEmbedding):
    """The power kernel's Gaussian form over closed-walk profiles.

    Each node's profile is ``log(1 + (A^t)_ii)`` for ``t = 1..k`` (exact counts, then
    one logarithm); a graph is the mean and ``1/n`` covariance of its nodes' profiles,
    and two graphs are compared by the exact Bhattacharyya coefficient of those
    Gaussians, as :class:`~graphinvariants.embeddings.GaussianEmbedding` compares the
    open-walk power summaries (the same pair engine, so ``K(G, G) = 1`` and
    renumbering invariance hold to the last bit).

    Parameters
    ----------
    k : int, default=8
        Length of the longest closed walks counted.
    ridge : float or None, default=None
        Relative ridge added to the covariances (see GaussianEmbedding); None:
        :data:`CLOSED_WALK_RIDGE` (1e-6), larger than the open walks' default because
        closed-walk profiles often have constant columns (length 1 without self-loops,
        odd lengths in bipartite graphs) whose zero variance only the ridge
        regularises; with 1e-12, rounding in the other moments would move the kernel
        by about 1e-4.
    weight : str or None, default=None
        Edge attribute used as weight (non-negative integers: counts are exact).
    engine : {"auto", "numpy", "numba"}, default="auto"

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import ClosedWalkGaussian
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> octagon = nx.cycle_graph(8)
    >>> squares = nx.disjoint_union(nx.cycle_graph(4), nx.cycle_graph(4))
    >>> [float(pairwise_kernels([octagon, squares], functional=ClosedWalkGaussian(k=k))[0, 1]) for k in (3, 4)]
    [1.0, 0.0]

    The squares show from length 4 on. Renumbering the nodes changes nothing, to the
    last bit:

    >>> G = nx.karate_club_graph()
    >>> renumbered = nx.relabel_nodes(G, {u: 33 - u for u in G})
    >>> float(pairwise_kernels([G, renumbered], functional=ClosedWalkGaussian())[0, 1])
    1.0
    """

    def __init__(self, k=8, *, ridge=None, weight=None, engine="auto"):
        ridge = CLOSED_WALK_RIDGE if ridge is None else ridge
        super().__init__(check_k(k), ridge=ridge, weight=weight, normalization="l1", engine=engine)

    def embed(self, batch):
        params = self.embedding_params()
        if not len(batch):
            return GaussianBatch._trusted(np.zeros((0, self.k)), np.zeros((0, self.k, self.k)), np.zeros(0, np.int64),
                                          params)
        profiles = np.log1p(closed_walk_counts(batch.matrix, batch.offsets, self.k).astype(np.float64))
        means, covs = stacked_moments(profiles, batch.offsets)
        return GaussianBatch._trusted(means, covs, batch.sizes, params)

    def embedding_params(self):
        return {"k": self.k, "weight": self.weight, "profile": "log closed walks"}

    def check_batch(self, embedded, what):
        """A Gaussian batch must record the closed-walk profile (open-walk invariants,
        from ``power`` or made by hand, record none)."""
        profile = getattr(embedded, "params", {}).get("profile")
        if profile != "log closed walks":
            raise ValueError(f"{what} holds Gaussians of {profile or 'open-walk (or unrecorded)'} profiles, not of "
                             "log closed-walk profiles; give the graphs")
        super().check_batch(embedded, what)

    def coerce_items(self, items, what):
        """Open-walk invariants (PowerInvariants, PowerSummary) are not closed-walk ones."""
        from .gaussian import PowerInvariants
        from ..walks.summary import PowerSummary

        if isinstance(items, (list, tuple)) and any(isinstance(i, (PowerInvariants, PowerSummary)) for i in items):
            raise TypeError(f"{what} holds open-walk invariants (PowerInvariants or PowerSummary); the closed-walk "
                            "Gaussian embeds graphs")
        if iter(items) is items:
            return self.as_embeddings(list(items), what=what)
        return None

    def __repr__(self):
        return f"ClosedWalkGaussian(k={self.k}, ridge={self.ridge!r}, weight={self.weight!r}, engine={self.engine!r})"
