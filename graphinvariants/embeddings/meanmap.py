"""Kernel mean embeddings of the node profiles (the paper's "kernel density estimators").

Each graph is the mean, over its nodes, of an RBF feature of the node's profile
``x_i`` (a row of the power summary, or of the walk counts). The kernel between two
graphs is the inner product of their mean embeddings, cosine-normalised::

    K(G, H) = S(G, H) / sqrt(S(G, G) S(H, H)),   S(G, H) = sum_{i in G, j in H} exp(-|x_i - y_j|^2 / (2 h^2))

* **Exact form** (``n_features=None``): the double sum over node pairs, evaluated for
  a tile of graph pairs at once (one RBF matrix between their nodes, summed by blocks).
  Cost grows with the product of node counts: for small collections.
* **Random Fourier features** (``n_features=D``): ``z(x) = sqrt(2/D) cos(W x + b)``
  with ``W ~ N(0, I / h^2)``, ``b ~ U(0, 2 pi)`` (Rahimi and Recht), so ``S`` becomes the
  inner product of ``D``-dimensional mean features; an explicit feature map, linear in
  the number of graphs.

Profiles: ``"l1"`` (the paper's iterates ``x_t``), ``"counts"`` (``A^t 1``) or ``"log"``
(``log(1 + A^t 1)``, the default); ``column_weights`` multiplies column ``t`` (the
paper's "discounting subsequent columns"). Rows are sorted within each graph before any
sum, so the kernel does not depend on node order to the last bit.
"""

import numpy as np

from .._validation import check_int, check_k, check_seed
from ..walks import batch_power_summary, float_walk_counts
from .base import Functional

__all__ = ["MeanMap", "MeanMapBatch"]

PROFILES = ("l1", "counts", "log")

#: Node x feature values computed at a time by the random-feature form (2 MiB).
_FEATURE_BLOCK = 2**18


class MeanMapBatch:
    """Node profiles (exact form) or mean random features (RFF form) of many graphs.

    Attributes
    ----------
    profiles : numpy.ndarray of shape (n_nodes, k) or None
        Weighted node profiles, sorted within each graph (exact form).
    offsets : numpy.ndarray or None
        Graph ``g`` owns profile rows ``offsets[g]:offsets[g + 1]`` (exact form).
    features : numpy.ndarray of shape (n_graphs, n_features) or None
        Mean random Fourier features of each graph (RFF form).
    """

    def __init__(self, params, profiles=None, offsets=None, features=None):
        self.params = params
        self.profiles = profiles
        self.offsets = offsets
        self.features = features

    def __len__(self):
        return len(self.features) if self.features is not None else len(self.offsets) - 1

    def __repr__(self):
        form = "exact" if self.features is None else f"{self.features.shape[1]} random features"
        return f"<MeanMapBatch: {len(self)} graphs, {form}>"


class MeanMap(Functional):
    """Kernel mean embedding of node profiles with an RBF base kernel (cosine-normalised).

    Parameters
    ----------
    k : int, default=5
        Number of power iterations (length of each node's profile).
    profile : {"log", "l1", "counts"}, default="log"
        ``log(1 + A^t 1)``, the paper's L1-normalised iterates, or the raw walk counts.
    bandwidth : float, default=1.0
        RBF bandwidth ``h``.
    column_weights : array_like of shape (k,), optional
        Multiplies column ``t`` of the profiles before the RBF (discounting).
    n_features : int or None, default=None
        ``None``: the exact double sum; an int ``D``: ``D`` random Fourier features.
    random_state : int, numpy.random.Generator or None, default=0
        Seed of the random features (RFF form only). A Generator or ``None`` gives a
        seed drawn once, when the functional is made: every batch it embeds shares
        one random map.
    weight : str or None, default=None
        Edge attribute used as weight (integer weights for ``"counts"``/``"log"``).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import MeanMap
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.path_graph(6), nx.path_graph(7), nx.star_graph(6)]
    >>> pairwise_kernels(graphs, functional=MeanMap(k=3)).round(3)
    array([[1.   , 0.998, 0.806],
           [0.998, 1.   , 0.823],
           [0.806, 0.823, 1.   ]])
    """

    def __init__(self, k=5, *, profile="log", bandwidth=1.0, column_weights=None, n_features=None,
                 random_state=0, weight=None):
        self.k = check_k(k)
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
        self.profile = profile
        bandwidth = float(bandwidth)
        if not np.isfinite(bandwidth) or bandwidth <= 0:
            raise ValueError(f"bandwidth must be a positive number, got {bandwidth}")
        self.bandwidth = bandwidth
        if column_weights is not None:
            column_weights = np.asarray(column_weights, dtype=np.float64)
            if column_weights.shape != (self.k,) or not np.all(np.isfinite(column_weights)):
                raise ValueError(f"column_weights must be {self.k} finite numbers")
        self.column_weights = column_weights
        self.n_features = None if n_features is None else check_int(n_features, "n_features", minimum=1)
        self.random_state = random_state
        # one random map per functional, whatever random_state is: an int is the seed
        # itself; None or a Generator give a seed drawn once, here, so that every batch
        # this functional embeds (queries and corpus, Dask partitions) shares the map
        rng = check_seed(random_state if not isinstance(random_state, np.random.Generator) else None)
        if self.n_features is None:
            self._seed = None
        elif random_state is None or isinstance(random_state, np.random.Generator):
            self._seed = int((rng if random_state is None else random_state).integers(2**63))
        else:
            self._seed = int(random_state)
        self.weight = weight

    batch_type = MeanMapBatch

    def _params(self):
        weights = None if self.column_weights is None else tuple(self.column_weights.tolist())
        return (self.k, self.profile, self.bandwidth, weights, self.n_features, self._seed if self.n_features else None)

    def _profiles(self, batch):
        if self.profile == "l1":
            X = batch_power_summary(batch, self.k)
        else:
            try:  # exact counts, each rounded once to a double (or its log1p taken)
                X = float_walk_counts(batch.matrix, self.k, log=self.profile == "log")
            except ValueError as err:
                raise ValueError(f"{err} (profile={self.profile!r} counts walks exactly); "
                                 "profile='l1' takes any non-negative weights, profile='log' counts of any size") from None
        if self.column_weights is not None:
            X = X * self.column_weights
        owner = np.repeat(np.arange(len(batch)), batch.sizes)
        order = np.lexsort(tuple(X[:, j] for j in reversed(range(self.k))) + (owner,))
        return X[order] / self.bandwidth  # canonical node order; unit bandwidth from here on

    def random_map(self):
        """The random Fourier map ``(W, b)`` of the RFF form: a node profile ``x``
        (divided by the bandwidth) has features ``sqrt(2 / D) cos(x W + b)``.

        Returns
        -------
        W : numpy.ndarray of shape (k, n_features)
            Standard normal frequencies.
        b : numpy.ndarray of shape (n_features,)
            Uniform phases in ``[0, 2 pi)``.
        """
        if self.n_features is None:
            raise TypeError("the exact mean map has no random map; use n_features")
        rng = np.random.default_rng(self._seed)
        return rng.normal(size=(self.k, self.n_features)), rng.uniform(0, 2 * np.pi, self.n_features)

    def embed(self, batch):
        X = self._profiles(batch)
        offsets = np.asarray(batch.offsets)
        if self.n_features is None:
            return MeanMapBatch(self._params(), X, offsets)
        return MeanMapBatch(self._params(), features=self._mean_features(X, offsets))

    def _mean_features(self, X, offsets):
        """Mean random Fourier features of each graph's nodes, a group of graphs at a
        time, so that the nodes x features array stays near :data:`_FEATURE_BLOCK`
        values rather than growing with the batch."""
        W, b = self.random_map()
        n_graphs = len(offsets) - 1
        features = np.empty((n_graphs, self.n_features))
        rows = max(1, _FEATURE_BLOCK // self.n_features)
        g = 0
        while g < n_graphs:
            # graphs g .. h-1: as many as have at most `rows` nodes together, at least one
            h = min(n_graphs, max(g + 1, int(np.searchsorted(offsets, offsets[g] + rows, side="right")) - 1))
            start = offsets[g]
            block = X[start : offsets[h]] @ W
            block += b
            np.cos(block, out=block)
            features[g:h] = np.add.reduceat(block, offsets[g:h] - start, axis=0)
            g = h
        features *= np.sqrt(2.0 / self.n_features) / np.diff(offsets)[:, None]
        return features

    def check_batch(self, embedded, what):
        if embedded.params != self._params():
            raise ValueError(f"{what} was embedded with other mean-map parameters")

    def prepare(self, embedded, what):
        if embedded.features is not None:
            F = embedded.features
            return ("features", F, np.einsum("ij,ij->i", F, F))
        X, offsets = embedded.profiles, embedded.offsets
        own = np.array([_block_sum(X[a:b], X[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])
        return ("exact", X, offsets, own)

    def tile(self, left, right, rows, cols):
        if left[0] == "features":
            (_, A, na), (_, B, nb) = left, right
            dots = A[rows] @ B[cols].T
            return np.minimum(dots / np.sqrt(na[rows][:, None] * nb[cols][None, :]), 1.0)
        (_, XA, oa, sa), (_, XB, ob, sb) = left, right
        rows, cols = np.arange(len(oa) - 1)[rows], np.arange(len(ob) - 1)[cols]
        S = _cross_sums(XA, oa, rows, XB, ob, cols)
        return np.minimum(S / np.sqrt(sa[rows][:, None] * sb[cols][None, :]), 1.0)

    def pairs(self, left, right, i, j):
        if left[0] == "features":
            (_, A, na), (_, B, nb) = left, right
            return np.minimum(np.einsum("ij,ij->i", A[i], B[j]) / np.sqrt(na[i] * nb[j]), 1.0)
        (_, XA, oa, sa), (_, XB, ob, sb) = left, right
        S = np.array([_block_sum(XA[oa[a]:oa[a + 1]], XB[ob[b]:ob[b + 1]]) for a, b in zip(i, j)])
        return np.minimum(S / np.sqrt(sa[i] * sb[j]), 1.0)

    def tile_size(self, n_jobs):
        return 256 if self.n_features is not None else 32

    def to_arrays(self, embedded):
        return None if embedded.features is None else {"features": embedded.features}

    def from_arrays(self, arrays):
        if self.n_features is None:
            raise TypeError("the exact mean map has no fixed-size embedding; use n_features")
        return MeanMapBatch(self._params(), features=np.asarray(arrays["features"], dtype=np.float64))

    def features(self, embedded):
        """Explicit feature map (RFF form): unit-norm mean features, shape (n_graphs, D)."""
        if embedded.features is None:
            raise TypeError("the exact mean map has no explicit feature map; use n_features")
        F = embedded.features
        return F / np.sqrt(np.einsum("ij,ij->i", F, F))[:, None]


def _rbf(X, Y):
    sq = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Y, Y)[None, :] - 2.0 * (X @ Y.T)
    return np.exp(-0.5 * np.maximum(sq, 0.0))


def _block_sum(X, Y):
    return float(_rbf(X, Y).sum())


def _cross_sums(XA, oa, rows, XB, ob, cols):
    """``S[r, c]`` = sum of the RBF over node pairs of graphs ``rows[r]`` and ``cols[c]``."""
    from ..graphs.csr import concatenated_ranges

    ra, la = oa[rows], oa[rows + 1] - oa[rows]
    rb, lb = ob[cols], ob[cols + 1] - ob[cols]
    K = _rbf(XA[concatenated_ranges(ra, la)], XB[concatenated_ranges(rb, lb)])
    K = np.add.reduceat(K, np.concatenate(([0], np.cumsum(la)[:-1])), axis=0)
    return np.add.reduceat(K, np.concatenate(([0], np.cumsum(lb)[:-1])), axis=1)
