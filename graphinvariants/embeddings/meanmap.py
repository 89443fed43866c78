"""Kernel mean embeddings of the node profiles (the paper's "kernel density estimators").

Each graph is the mean, over its nodes, of an RBF feature of the node's profile
``x_i`` (a row of the power summary, or of the walk counts). The kernel between two
graphs is the inner product of their mean embeddings, cosine-normalised::

    K(G, H) = S(G, H) / sqrt(S(G, G) S(H, H)),   S(G, H) = sum_{i in G, j in H} exp(-|x_i - y_j|^2 / (2 h^2))

* **Exact form** (``n_features=None``): the double sum over node pairs, evaluated for
  a tile of graph pairs at once (one RBF matrix between their nodes, summed by blocks).
  Cost grows with the product of node counts: for small collections. Compiled
  (numba, the ``[fast]`` extra) when the two sides have at least
  :data:`COMPILED_PAIRS` node pairs and numba can be imported, in numpy otherwise:
  the same operations in the same order (fdlibm's exponential written out in both),
  so the same bits either way.
* **Random Fourier features** (``n_features=D``): ``z(x) = sqrt(2/D) cos(W x + b)``
  with ``W ~ N(0, I / h^2)``, ``b ~ U(0, 2 pi)`` (Rahimi and Recht), so ``S`` becomes the
  inner product of ``D``-dimensional mean features; an explicit feature map, linear in
  the number of graphs.

Profiles: ``"l1"`` (the paper's iterates ``x_t``), ``"counts"`` (``A^t 1``) or ``"log"``
(``log(1 + A^t 1)``, the default); ``column_weights`` multiplies column ``t`` (the
paper's "discounting subsequent columns").

Every value is a function of the two graphs alone, to the last bit: ``K(G, G) == 1``,
``K(G, H) == K(H, G)``, renumbered nodes, copies of a graph, the other graphs of a
call, tiles, ``working_memory`` chunks and Dask blocks change nothing. The exact form
rounds each RBF value to a multiple of ``2**-52`` and sums integers (exact in any
order), in blocks of node pairs of bounded memory; the random-feature form splits the
unit-norm features into integers whose products BLAS computes exactly.
"""

import numbers

import numpy as np

from .._utils.optional import compiled
from .._utils.validation import check_int, check_k, check_seed, refuses_random_state
from ..walks.counts import float_walk_counts
from ..walks.summary import batch_power_summary
from .base import Functional, params_difference, params_hash

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
    params : dict
        The parameters the embeddings were made with (:meth:`MeanMap.embedding_params`).
    """

    def __init__(self, params, profiles=None, offsets=None, features=None):
        self.params = params
        self.profiles = profiles
        self.offsets = offsets
        self.features = features

    def __len__(self):
        return len(self.features) if self.features is not None else len(self.offsets) - 1

    def take(self, indices):
        """The embeddings of the graphs at ``indices``, in that order (the same parameters).

        Examples
        --------
        >>> import networkx as nx
        >>> from graphinvariants.embeddings import MeanMap
        >>> batch = MeanMap(3).as_embeddings([nx.path_graph(4), nx.star_graph(5), nx.cycle_graph(3)])
        >>> [len(batch.take([2, 0])), batch.take([1]).profiles.shape[0]]
        [2, 6]
        """
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        if self.features is not None:
            return MeanMapBatch(self.params, features=self.features[indices])
        offsets = np.asarray(self.offsets, dtype=np.int64)
        sizes = offsets[indices + 1] - offsets[indices]
        rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in indices]) if len(indices) else \
            np.zeros(0, dtype=np.int64)
        return MeanMapBatch(self.params, self.profiles[rows], np.concatenate(([0], np.cumsum(sizes))))

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
    seed : int, numpy.random.Generator or None, default=0
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

    @refuses_random_state
    def __init__(self, k=5, *, profile="log", bandwidth=1.0, column_weights=None, n_features=None,
                 seed=0, weight=None):
        self.k = check_k(k)
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
        self.profile = profile
        if isinstance(bandwidth, bool) or not isinstance(bandwidth, numbers.Real):
            raise TypeError(f"bandwidth must be a positive number, got {bandwidth!r}")
        bandwidth = float(bandwidth)
        if not np.isfinite(bandwidth) or bandwidth <= 0:
            raise ValueError(f"bandwidth must be a positive number, got {bandwidth}")
        self.bandwidth = bandwidth
        if column_weights is not None:
            try:
                column_weights = np.asarray(column_weights, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"column_weights must be {self.k} finite numbers, got {column_weights!r}") from None
            if column_weights.shape != (self.k,) or not np.all(np.isfinite(column_weights)):
                raise ValueError(f"column_weights must be {self.k} finite numbers")
        self.column_weights = column_weights
        self.n_features = None if n_features is None else check_int(n_features, "n_features", minimum=1)
        self.seed = seed
        # one random map per functional, whatever seed is: an int is the seed
        # itself; None or a Generator give a seed drawn once, here, so that every batch
        # this functional embeds (queries and corpus, Dask partitions) shares the map
        rng = check_seed(seed if not isinstance(seed, np.random.Generator) else None)
        if self.n_features is None:
            self._seed = None
        elif seed is None or isinstance(seed, np.random.Generator):
            self._seed = int((rng if seed is None else seed).integers(2**63))
        else:
            self._seed = int(seed)
        self.weight = weight

    batch_type = MeanMapBatch

    def embedding_params(self):
        """Every parameter that changes the embeddings; ``seed`` is the seed of the
        random map (drawn at construction when ``seed`` is None or a Generator)."""
        weights = None if self.column_weights is None else tuple(self.column_weights.tolist())
        return {"kind": "walk profiles", "k": self.k, "profile": self.profile, "bandwidth": self.bandwidth,
                "column_weights": weights, "n_features": self.n_features, "seed": self._seed, "weight": self.weight}

    def node_profiles(self, batch):
        """Node profiles of ``batch`` divided by the bandwidth, sorted within each graph
        (the step subclasses replace to embed other node features)."""
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
        W : numpy.ndarray of shape (profile_width(), n_features)
            Standard normal frequencies.
        b : numpy.ndarray of shape (n_features,)
            Uniform phases in ``[0, 2 pi)``.
        """
        if self.n_features is None:
            raise TypeError("the exact mean map has no random map; use n_features")
        rng = np.random.default_rng(self._seed)
        return rng.normal(size=(self.profile_width(), self.n_features)), rng.uniform(0, 2 * np.pi, self.n_features)

    def profile_width(self):
        """Number of columns of a node profile (``k``; subclasses with other profiles
        override it, and :meth:`random_map` draws that many rows of frequencies)."""
        return self.k

    def embed(self, batch):
        X = self.node_profiles(batch)
        offsets = np.asarray(batch.offsets)
        if self.n_features is None:
            return MeanMapBatch(self.embedding_params(), X, offsets)
        return MeanMapBatch(self.embedding_params(), features=self._mean_features(X, offsets))

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
            # x W + b column by column rather than by BLAS, whose summation order may
            # depend on the block's shape: a graph's features do not depend on its batch
            rows_x = X[start : offsets[h]]
            block = np.broadcast_to(b, (len(rows_x), self.n_features)).copy()
            for t in range(X.shape[1]):
                block += rows_x[:, t, None] * W[t]
            np.cos(block, out=block)
            features[g:h] = np.add.reduceat(block, offsets[g:h] - start, axis=0)
            g = h
        features *= np.sqrt(2.0 / self.n_features) / np.diff(offsets)[:, None]
        return features

    def check_batch(self, embedded, what):
        difference = params_difference(embedded.params, self.embedding_params())
        if difference:
            hint = ""
            if embedded.params.get("seed") != self._seed and self.n_features is not None:
                hint = ("; seed=None or a Generator draws a new seed for every MeanMap: embed both sides "
                        "with one functional, or give an int seed")
            raise ValueError(f"{what} was embedded with other mean-map parameters: {difference}{hint}")

    def prepare(self, embedded, what):
        if embedded.features is not None:
            rows = _SplitRows(embedded.features)
            return ("features", rows, rows.paired_dots(rows))
        X, offsets = embedded.profiles, np.asarray(embedded.offsets)
        everything = np.arange(len(offsets) - 1)
        return ("exact", X, offsets, _self_sums(X, offsets, everything))

    def tile(self, left, right, rows, cols):
        if left[0] == "features":
            (_, A, na), (_, B, nb) = left, right
            return _cosine(A.take(rows).dots(B.take(cols)), na[rows][:, None] * nb[cols][None, :])
        (_, XA, oa, sa), (_, XB, ob, sb) = left, right
        rows, cols = np.arange(len(oa) - 1)[rows], np.arange(len(ob) - 1)[cols]
        S = _cross_sums(XA, oa, rows, XB, ob, cols)
        return _cosine(S, sa[rows][:, None] * sb[cols][None, :])

    def pairs(self, left, right, i, j):
        i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
        if left[0] == "features":
            (_, A, na), (_, B, nb) = left, right
            return _cosine(A.take(i).paired_dots(B.take(j)), na[i] * nb[j])
        (_, XA, oa, sa), (_, XB, ob, sb) = left, right
        S = np.array([_cross_sums(XA, oa, i[p : p + 1], XB, ob, j[p : p + 1])[0, 0] for p in range(len(i))])
        return _cosine(S, sa[i] * sb[j])

    def tile_size(self, n_jobs):
        return 256 if self.n_features is not None else 32

    def to_arrays(self, embedded):
        if embedded.features is None:
            return None
        self.check_batch(embedded, "the embeddings")
        fingerprint = np.full(len(embedded), params_hash(self.embedding_params()), dtype=np.int64)
        return {"features": embedded.features, "params_hash": fingerprint}

    def from_arrays(self, arrays):
        if self.n_features is None:
            raise TypeError("the exact mean map has no fixed-size embedding; use n_features")
        self.record_of_arrays(arrays)
        return MeanMapBatch(self.embedding_params(), features=np.asarray(arrays["features"], dtype=np.float64))

    def features(self, embedded):
        """Explicit feature map (RFF form): unit-norm mean features, shape (n_graphs, D)."""
        if embedded.features is None:
            raise TypeError("the exact mean map has no explicit feature map; use n_features")
        F = embedded.features
        return F / np.sqrt(np.einsum("ij,ij->i", F, F))[:, None]


def _cosine(S, norms):
    """``S / sqrt(norms)``, at most 1. With ``S`` equal to the self-sums of both sides
    (exact integers or sums of them) the value is exactly 1: ``sqrt(fl(s * s)) == s``."""
    return np.minimum(S / np.sqrt(norms), 1.0)


class _SplitRows:
    """Unit-norm rows ``u`` split into integers ``u * 2**(2b) ~ high * 2**b + low``, with
    ``|high|, |low| <= 2**b`` and ``b`` chosen so that a sum of ``D`` products of such
    integers stays below ``2**53``.

    Every inner product of two rows is then three products of integer matrices, each exact
    in floating point whatever the summation order of the BLAS routine, the tile or the
    chunk, combined by the same few operations: the kernel is symmetric, has a unit
    diagonal and does not depend on which other graphs share a call. The split keeps
    ``3 b`` bits of each coordinate (66 for 200 features, 48 for a million): the values
    agree with the plain inner products of the unit rows to about 1e-15.
    """

    def __init__(self, F):
        D = F.shape[1]
        self.bits = (53 - int(np.ceil(np.log2(max(D, 2))))) // 2
        norms = np.sqrt(np.einsum("ij,ij->i", F, F))
        if np.any(norms == 0):
            raise ValueError("a graph's mean random features are all zero; use more n_features or another seed")
        scaled = np.ldexp(F / norms[:, None], self.bits)
        self.high = np.rint(scaled)
        self.low = np.rint(np.ldexp(scaled - self.high, self.bits))

    def take(self, index):
        part = object.__new__(_SplitRows)
        part.bits, part.high, part.low = self.bits, self.high[index], self.low[index]
        return part

    def dots(self, other):
        """All inner products, shape (len(self), len(other))."""
        return self._combine(self.high @ other.high.T, self.high @ other.low.T + self.low @ other.high.T)

    def paired_dots(self, other):
        """Inner products of matching rows, shape (len(self),)."""
        def dot(a, b):
            return np.einsum("ij,ij->i", a, b)

        return self._combine(dot(self.high, other.high), dot(self.high, other.low) + dot(self.low, other.high))

    def _combine(self, high, cross):
        return np.ldexp(high + np.ldexp(cross, -self.bits), -2 * self.bits)


#: Node pairs evaluated at a time by the exact form (2 MiB per array of values).
_PAIR_BLOCK = 2**18
#: Each RBF value is rounded to a multiple of 2**-52 and summed as two 26-bit halves in
#: int64: integer sums are exact in any order (no overflow below 2**37 node pairs).
_FRACTION_BITS = 52
_HALF_BITS = 26


#: Node pairs from which a call computes its double sums compiled (numba, when it can be
#: imported): below, importing numba and loading its code costs more than it saves.
#: Both paths give the same bits, so the choice changes no value.
COMPILED_PAIRS = 2**22
#: fdlibm's exponential (see :func:`_exp_nonpositive`): ln 2 split in two, its inverse,
#: the polynomial of the remainder, and 1.5 * 2**52 (adding it rounds to an integer).
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_P = (1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05,
      -1.65339022054652515390e-06, 4.13813679705723846039e-08)
_SHIFTER = 6755399441055744.0
#: Below this the exponential is not taken: exp(-700) ~ 1e-304 rounds to 0 at 2**-52.
_EXP_MIN = -700.0
#: Values whose exponential is taken at a time (256 KiB per temporary array).
_EXP_CHUNK = 2**15


def _exp_nonpositive(x, out=None):
    """``exp(x)`` of an array ``x <= 0``, values below -700 taken as -700 (their
    exponential rounds to 0 at ``2**-52`` either way): fdlibm's algorithm (error below
    one unit in the last place), branch-free, written in array operations that the
    compiled path (:mod:`._meanmap_numba`) performs one by one in the same order, so
    both give the same bits; numpy's ``exp`` calls the C library, whose last bit may
    differ, and is slower here. Chunks of :data:`_EXP_CHUNK` values keep the
    temporaries small."""
    x = np.maximum(x, _EXP_MIN, out=out)
    flat = x.reshape(-1)
    for start in range(0, len(flat), _EXP_CHUNK):
        _exp_chunk(flat[start : start + _EXP_CHUNK])
    return x


def _exp_chunk(x):
    """:func:`_exp_nonpositive` of ``x`` (contiguous, in ``[-700, 0]``), in place."""
    t = x * _INV_LN2
    t += _SHIFTER
    kd = t - _SHIFTER  # the integer nearest x / log 2
    k = t.view(np.int64)
    k -= np.float64(_SHIFTER).view(np.int64)
    hi = kd * _LN2_HI
    np.subtract(x, hi, out=hi)
    lo = kd
    lo *= _LN2_LO
    r = hi - lo
    rr = r * r
    poly = np.full_like(rr, _P[-1])
    for c in reversed(_P[:-1]):
        poly *= rr
        poly += c
    poly *= rr
    c = np.subtract(r, poly, out=poly)
    quotient = np.multiply(r, c, out=r)
    np.subtract(2.0, c, out=c)
    quotient /= c
    np.subtract(lo, quotient, out=lo)
    lo -= hi
    y = np.subtract(1.0, lo, out=lo)
    k <<= 52
    bits = y.view(np.int64)
    bits += k
    x[...] = y


def _self_sums(X, offsets, graphs):
    """``S(G, G)`` of the given graphs, each the double sum of :func:`_cross_sums` of the
    graph with itself (compiled, one call, when the graphs have enough node pairs)."""
    module = compiled("graphinvariants.embeddings._meanmap_numba") if len(X) * len(X) >= COMPILED_PAIRS else None
    if module is not None:
        high, low = module.self_sums(X, np.asarray(offsets, dtype=np.int64), np.asarray(graphs, dtype=np.int64))
        return np.ldexp(np.ldexp(high.astype(np.float64), _HALF_BITS) + low, -_FRACTION_BITS)
    return np.array([_cross_sums(X, offsets, graphs[g : g + 1], X, offsets, graphs[g : g + 1])[0, 0]
                     for g in range(len(graphs))])


def _cross_sums(XA, oa, rows, XB, ob, cols):
    """``S[r, c]`` = sum of the RBF over node pairs of graphs ``rows[r]`` and ``cols[c]``.

    Exact to the last bit in the following sense: every RBF value
    ``exp(-|x - y|^2 / 2)`` is computed from ``sum_t (x_t - y_t)^2`` in column order (the
    same bits for ``(x, y)`` and ``(y, x)``), rounded to a multiple of ``2**-52`` and
    summed as integers. So ``S`` is symmetric, does not depend on node order, on which
    graphs share a tile, or on the blocks of node pairs, which keep memory bounded by
    :data:`_PAIR_BLOCK` values whatever the graphs' sizes. The rounding changes ``S`` by
    at most ``2**-53`` per node pair.
    """
    from ..graphs.csr import concatenated_ranges

    la, lb = oa[rows + 1] - oa[rows], ob[cols + 1] - ob[cols]
    nodes_a = concatenated_ranges(oa[rows], la)
    nodes_b = concatenated_ranges(ob[cols], lb)
    # compiled when the whole sides (not this tile) have enough node pairs: same bits either way
    module = compiled("graphinvariants.embeddings._meanmap_numba") if len(XA) * len(XB) >= COMPILED_PAIRS else None
    if module is not None:
        starts_a, starts_b = np.r_[0, np.cumsum(la)], np.r_[0, np.cumsum(lb)]
        high, low = module.cross_sums(np.ascontiguousarray(XA[nodes_a]), starts_a,
                                      np.ascontiguousarray(XB[nodes_b].T), starts_b)
        return np.ldexp(np.ldexp(high.astype(np.float64), _HALF_BITS) + low, -_FRACTION_BITS)
    owner_a, owner_b = np.repeat(np.arange(len(rows)), la), np.repeat(np.arange(len(cols)), lb)
    high = np.zeros((len(rows), len(cols)), dtype=np.int64)
    low = np.zeros((len(rows), len(cols)), dtype=np.int64)
    step_b = min(len(nodes_b), _PAIR_BLOCK) or 1
    step_a = max(1, _PAIR_BLOCK // step_b)
    mask = (1 << _HALF_BITS) - 1
    for a in range(0, len(nodes_a), step_a):
        xa, ga = XA[nodes_a[a : a + step_a]], owner_a[a : a + step_a]
        starts_a, groups_a = _runs(ga)
        for b in range(0, len(nodes_b), step_b):
            xb, gb = XB[nodes_b[b : b + step_b]], owner_b[b : b + step_b]
            starts_b, groups_b = _runs(gb)
            squared = np.zeros((len(xa), len(xb)))
            for t in range(XA.shape[1]):
                difference = xa[:, t, None] - xb[None, :, t]
                squared += difference * difference
            squared *= -0.5
            rbf = _exp_nonpositive(squared, out=squared)
            fixed = np.rint(np.ldexp(rbf, _FRACTION_BITS)).astype(np.int64)
            for total, part in ((high, fixed >> _HALF_BITS), (low, fixed & mask)):
                block = np.add.reduceat(np.add.reduceat(part, starts_a, axis=0), starts_b, axis=1)
                total[groups_a[:, None], groups_b[None, :]] += block
    return np.ldexp(np.ldexp(high.astype(np.float64), _HALF_BITS) + low, -_FRACTION_BITS)


def _runs(owner):
    """Starts of the runs of equal values of a non-decreasing array, and their values."""
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return starts, owner[starts]
