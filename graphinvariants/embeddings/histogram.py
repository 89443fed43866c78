"""A discrete functional: the histogram of each graph's exact walk-count profiles.

Every node ``i`` has the exact walk counts ``c_t = (A^t 1)_i`` for ``t = 1..k``. Its
``k`` prefixes ``(c_1)``, ``(c_1, c_2)``, ..., ``(c_1, ..., c_k)`` are discrete labels
(much as Weisfeiler-Lehman relabels nodes round by round), and a graph is the histogram
of the labels of its nodes. The kernel is the cosine-normalised linear kernel between
histograms: ``K(G, H) = <h_G, h_H> / (|h_G| |h_H|)``. Counts are exact integers, so the
histogram, and the kernel, do not depend on node order at all.

Prefixes are numbered length by length, as Weisfeiler-Lehman relabels nodes: a prefix
of length ``t`` is the pair (number of its prefix of length ``t - 1``, ``c_t``). A batch
stores, per length, only those distinct pairs (so its vocabulary grows with the nodes
times ``k``, not ``k**2``) and a sparse count matrix; two batches are compared by
merging their vocabularies once, length by length (:meth:`WalkHistogram.align`).

Counts that cannot be held in int64 (dense graphs, long walks) are held as digits in
base ``2**31`` (see :func:`graphinvariants.walks.counts.walk_count_columns`): equal counts
have equal digits, so the histogram stays exact for every graph.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_k
from ..walks._limbs import LIMB_BITS, limbs_to_ints, pad_limbs, to_limbs
from ..walks.counts import walk_count_columns
from .counts import CountFeatures, CountMap, RowLookup, count_matrix, relabel_rounds, unique_rows

__all__ = ["HistogramBatch", "HistogramCountMap", "WalkHistogram", "digits_as"]


class HistogramBatch:
    """Walk-profile histograms of many graphs.

    Attributes
    ----------
    rounds : list of (numpy.ndarray, numpy.ndarray)
        For lengths ``t = 1..k``: ``(previous, counts)``, the distinct prefixes of
        length ``t`` in lexicographic order, each as the number of its prefix of length
        ``t - 1`` (among that length's prefixes; 0 for ``t = 1``) and its last count
        ``c_t``: int64 of shape ``(n_t,)``, or ``(n_t, L)`` digits in base ``2**31``
        (least significant first) for counts beyond int64.
    counts : scipy.sparse.csr_array of shape (n_graphs, n_labels)
        Number of nodes of each graph with each prefix, length after length.
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
    >>> h.prefixes()  # leaves: 1 then 3 walks; hub: 3 then 3
    [(1,), (3,), (1, 3), (3, 3)]
    >>> h.counts.toarray().tolist()
    [[3.0, 1.0, 3.0, 1.0]]
    """

    def __init__(self, rounds, counts, k, *, params=None):
        self.rounds = rounds
        self.counts = counts
        self.k = k
        self.params = dict(params) if params is not None else {"k": k}

    def prefixes(self):
        """Every prefix, as a tuple of Python ints, in the order of the count columns."""
        out, previous_round = [], [()]
        for previous, counts in self.rounds:
            values = counts.tolist() if counts.ndim == 1 else limbs_to_ints(counts).tolist()
            current = [previous_round[p] + (int(c),) for p, c in zip(previous.tolist(), values)]
            out.extend(current)
            previous_round = current
        return out

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<HistogramBatch: {len(self)} graphs, k={self.k}, {self.counts.shape[1]} labels>"


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
            empty = (np.zeros(0, np.int64), np.zeros(0, np.int64))
            return self.batch_type([empty] * k, sp.csr_array((n_graphs, 0)), k, params=self.embedding_params())
        owner = np.repeat(np.arange(n_graphs), batch.sizes)
        # number the prefixes length by length, as Weisfeiler-Lehman relabels nodes: a
        # prefix of length t + 1 is (number of its prefix of length t, c_{t+1}), and
        # numbers follow the lexicographic order of the prefixes
        number = np.zeros(batch.n_nodes, dtype=np.int64)
        rounds, blocks = [], []
        for counts in self.profile_columns(batch):
            previous = number
            number, first = _dense_rank(previous, counts)
            rounds.append((previous[first], counts[first]))  # each distinct prefix once, in order
            blocks.append(count_matrix(owner, number, n_graphs, len(first)))
        return self.batch_type(rounds, sp.csr_array(sp.hstack(blocks, format="csr")), k,
                               params=self.embedding_params())

    def embedding_params(self):
        return {"k": self.k, "weight": self.weight}

    def profile_columns(self, batch):
        """Every node's exact integer profile, one length at a time: ``k`` arrays of
        shape (n_nodes,) in int64, or (n_nodes, digits) in base-2**31 digits beyond
        int64 (see :func:`~graphinvariants.walks.counts.walk_count_columns`). Here the walk
        counts ``A^t 1``; subclasses count other walks."""
        return walk_count_columns(batch.matrix, self.k)

    def check_batch(self, embedded, what):
        if type(embedded) is not self.batch_type:
            raise TypeError(f"{what} holds {type(embedded).__name__} embeddings, not those of {type(self).__name__}")
        super().check_batch(embedded, what)

    def count_map(self, embedded):
        return HistogramCountMap(embedded)

    def merge(self, left, right):
        """Both count matrices on one vocabulary, merged length by length."""
        maps = ([np.zeros(1, np.int64)], [np.zeros(1, np.int64)])
        sizes = []
        for (previous_left, counts_left), (previous_right, counts_right) in zip(left.rounds, right.rounds):
            keys = _common_digits(counts_left, counts_right)
            rows = [np.column_stack((m[-1][p], key[:, ::-1]))  # previous number, then digits, most significant first
                    for m, p, key in zip(maps, (previous_left, previous_right), keys)]
            distinct, inverse = unique_rows(np.concatenate(rows))
            maps[0].append(inverse[: len(rows[0])])
            maps[1].append(inverse[len(rows[0]) :])
            sizes.append(len(distinct))
        return relabel_rounds(left.counts, maps[0][1:], sizes), relabel_rounds(right.counts, maps[1][1:], sizes)


class HistogramCountMap(CountMap):
    """The prefixes of a fitted :class:`HistogramBatch` as columns, each length's
    ``(previous prefix, count)`` pairs in a
    :class:`~graphinvariants.embeddings.counts.RowLookup`: another batch's prefixes are
    put into the fitted numbering length by length, in time set by that batch alone."""

    def __init__(self, fitted):
        self.n_columns = int(fitted.counts.shape[1])
        self.widths, self.tables, self.shifts = [], [], []
        shift = 0
        for previous, counts in fitted.rounds:
            width = 0 if counts.ndim == 1 else counts.shape[1]
            digits, _ = digits_as(counts, width)
            self.widths.append(width)
            self.tables.append(RowLookup(np.column_stack((previous, digits))))
            self.shifts.append(shift)
            shift += len(previous)

    def columns(self, embedded):
        if len(embedded.rounds) != len(self.tables):
            raise ValueError(f"histograms of {len(embedded.rounds)} lengths looked up among {len(self.tables)}")
        out, found = [], np.zeros(1, dtype=np.int64)
        for (previous, counts), width, table, shift in zip(embedded.rounds, self.widths, self.tables, self.shifts):
            moved = found[previous]
            digits, fits = digits_as(counts, width)
            found = table.find(np.column_stack((moved, digits)), (moved >= 0) & fits)
            out.append(np.where(found >= 0, found + shift, -1))
        return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


def digits_as(values, width):
    """Counts (int64 of shape ``(n,)``, or base-``2**31`` digits ``(n, L)``, least
    significant first) written as a batch of ``width`` digits writes them (0: int64),
    most significant first, and whether each fits: ``(array (n, max(width, 1)), mask)``.
    Equal counts give equal rows, whatever form each side holds them in."""
    n = values.shape[0]
    fits = np.ones(n, dtype=bool)
    if width == 0:
        if values.ndim == 1:
            return values.astype(np.int64)[:, None], fits
        limbs = pad_limbs(values, max(values.shape[1], 3))
        fits = np.all(limbs[:, 3:] == 0, axis=1) & (limbs[:, 2] < 2)  # below 2**63
        top = np.where(fits, limbs[:, 2], 0)
        return (limbs[:, 0] + (limbs[:, 1] << np.int64(LIMB_BITS)) + (top << np.int64(2 * LIMB_BITS)))[:, None], fits
    limbs = to_limbs(values) if values.ndim == 1 else values
    if limbs.shape[1] > width:
        fits = np.all(limbs[:, width:] == 0, axis=1)
        limbs = limbs[:, :width]
    else:
        limbs = pad_limbs(limbs, width)
    return np.ascontiguousarray(limbs[:, ::-1]), fits


def _common_digits(a, b):
    """Two count columns (int64 or base-2**31 digits) as 2-D arrays of one form."""
    if a.ndim == b.ndim == 1:
        return a[:, None], b[:, None]
    a, b = (to_limbs(c) if c.ndim == 1 else c for c in (a, b))
    width = max(a.shape[1], b.shape[1])
    return pad_limbs(a, width), pad_limbs(b, width)


def _dense_rank(major, minor):
    """Numbers of the distinct pairs ``(major[i], minor[i])`` in lexicographic order,
    and one index holding each pair, in that order; ``minor`` may be int64 or rows of
    base-2**31 digits (least significant first), which compare as the numbers."""
    digits = minor[:, None] if minor.ndim == 1 else minor
    order = np.lexsort(tuple(digits.T) + (major,))
    new = np.ones(len(order), dtype=bool)
    new[1:] = (np.diff(major[order]) != 0) | np.any(np.diff(digits[order], axis=0) != 0, axis=1)
    number = np.empty(len(order), dtype=np.int64)
    number[order] = np.cumsum(new) - 1
    return number, order[new]

