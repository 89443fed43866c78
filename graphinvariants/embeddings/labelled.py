"""Walk counts from node-label start vectors: a histogram of labelled walk profiles.

Algorithm 1 starts from the all-ones vector. Starting instead from one indicator vector
per node label (the paper's suggestion for labelled graphs), ``C_t = A^t E`` with ``E``
the ``n x L`` one-hot label matrix counts, for every node, the walks of length ``t``
that end at each label. A node's profile is its own label followed by ``C_1, ..., C_k``
(exact integers), and each of its prefixes (own label, ``C_1 .. C_t``) is a discrete
label; a graph is the histogram of its nodes' prefixes, compared by the
cosine-normalised inner product, as for :class:`WalkHistogram`.

Prefixes are numbered round by round: the label of round ``t`` is the distinct row
``(label of round t - 1, C_t)``, written sparsely as ``(label, j_1, C_t[j_1], j_2,
C_t[j_2], ...)`` over the node labels the walks reach. Rows are numbered within groups
of equal length (as Weisfeiler-Lehman numbers the nodes of each degree), so memory
follows the non-zeros of ``C_t`` whatever the widest row of the batch. Two batches
embedded separately are put on one vocabulary exactly
(:meth:`LabelledWalkHistogram.merge`): the count columns of each batch are spread over
the union of the two label sets and the rows renumbered round by round.

Counts that cannot be held in int64 are held as digits in base ``2**31`` (as in
:func:`graphinvariants.walks.counts.walk_count_columns`), written most significant first in
place of the count: equal counts give equal rows, so the histogram stays exact.

Walks typed by their bonds (``edge_label=NAME``): with ``A_e`` the adjacency of the
edges of label ``e`` (``A = sum_e A_e``), round ``t`` reads ``A_e C_{t-1}`` for every
edge label ``e`` instead of ``C_t = A C_{t-1}``: the walks of length ``t`` counted by
the bond they leave the node by and the label they end at. The carried counts are still
``C_t = sum_e A_e C_{t-1}``, so the profile refines the untyped one and costs ``E``
times its columns (one per edge label and node label that occur), never the ``E^t``
of counting every bond sequence. Column ``(e, j)`` is stored as ``e * L + j`` (``L``
the batch's number of node labels, ``e`` the place of the label in the batch's sorted
``edge_vocabulary``) and re-keyed into the merged vocabularies on merging. Typed counts are kept in
int64: beyond it, a clear error.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_k
from ..walks._limbs import LIMB_BITS, carry_limbs, pad_limbs, to_limbs
from .counts import CountFeatures, CountMap, RowLookup, count_matrix, label_places, merged_labels, relabel_rounds, unique_rows
from .histogram import digits_as

__all__ = ["LabelledCountMap", "LabelledHistogramBatch", "LabelledWalkHistogram"]

#: Counts stay plain int64 while ``largest row sum * largest count`` is below this.
_INT64_SAFE = 2.0**62


class LabelledHistogramBatch:
    """Labelled walk-profile histograms of many graphs.

    Attributes
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_labels)
        Counts of every prefix of every round, round after round.
    labels : numpy.ndarray
        The distinct node labels of the batch, sorted (count columns follow them).
    rounds : list of dict
        For rounds ``1 .. k``: ``d -> array (n, 1 + d * (1 + w))`` of the distinct rows
        ``(label of the previous round, j_1, C_t[j_1], ..., j_d, C_t[j_d])`` over the
        ``d`` labels ``j_1 < ... < j_d`` that ``C_t`` reaches, sorted, in label order
        (groups by increasing ``d``). Each count takes ``w = 1`` int64 entry, or
        ``w = digits[t]`` base-``2**31`` digits, most significant first.
    digits : list of int
        For rounds ``1 .. k``: 0 where counts are int64, else their number of digits.
    k : int
    edge_vocabulary : numpy.ndarray or None
        The distinct edge labels, sorted, when walks are typed by them (columns of
        ``rounds`` are then ``edge id * len(labels) + label id``).
    params : dict
        The parameters the histograms were made with (``k``, ``node_label``); a batch
        built by hand records only ``k``.
    """

    def __init__(self, counts, labels, rounds, digits, k, edge_vocabulary=None, *, params=None):
        self.counts = counts
        self.labels = labels
        self.rounds = rounds
        self.digits = digits
        self.k = k
        self.edge_vocabulary = edge_vocabulary
        self.params = dict(params) if params is not None else {"k": k}

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<LabelledHistogramBatch: {len(self)} graphs, k={self.k}, {len(self.labels)} node labels>"


class LabelledWalkHistogram(CountFeatures):
    """Histogram of walk counts started from node-label indicator vectors.

    Parameters
    ----------
    k : int, default=5
        Length of the longest walks counted.
    node_label : str, default="label"
        Node attribute holding the labels (for a TUDataset: its node labels).
    edge_label : str or None, default=None
        Edge attribute typing the walks by the bond of their first step (see the
        module's documentation); ``None`` ignores edge labels.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import LabelledWalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> def labelled(G, labels):
    ...     nx.set_node_attributes(G, dict(enumerate(labels)), "label")
    ...     return G
    >>> graphs = [labelled(nx.path_graph(3), "CCO"), labelled(nx.path_graph(3), "COC"),
    ...           labelled(nx.path_graph(3), "OCC")]
    >>> pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=2)).round(3)
    array([[1.   , 0.389, 1.   ],
           [0.389, 1.   , 0.389],
           [1.   , 0.389, 1.   ]])
    """

    batch_type = LabelledHistogramBatch
    weight = None

    def __init__(self, k=5, *, node_label="label", edge_label=None):
        self.k = check_k(k)
        if not isinstance(node_label, str):
            raise TypeError(f"node_label must be a node attribute name, got {node_label!r}")
        self.node_label = node_label
        if edge_label is not None and not isinstance(edge_label, str):
            raise TypeError(f"edge_label must be None or an edge attribute name, got {edge_label!r}")
        self.edge_label = edge_label

    def embed(self, batch):
        if batch.node_labels is None:
            raise ValueError(f"node_label={self.node_label!r} was asked for, but the graphs carry no node labels")
        n_graphs, n = len(batch), batch.n_nodes
        labels, ids = np.unique(batch.node_labels, return_inverse=True)
        ids = ids.reshape(-1).astype(np.int64)
        owner = np.repeat(np.arange(n_graphs), batch.sizes)
        A = sp.csr_array(batch.matrix.astype(np.int64))
        growth = float(batch.matrix.sum(axis=1).max()) if batch.matrix.nnz else 0.0
        # C_t stays sparse: a node's walks end at the labels of its own graph only
        counts = sp.csr_array((np.ones(n, np.int64), (np.arange(n), ids)), shape=(n, len(labels)))
        limbs = None  # C_t's values as base-2**31 digits (nnz, L), once beyond int64
        blocks = [count_matrix(owner, ids, n_graphs, len(labels))]
        rounds, digits = [], []
        edge_vocabulary, typed = edge_typed_adjacencies(batch, self.edge_label)
        for t in range(self.k):
            if limbs is None and growth * float(counts.data.max(initial=0)) >= _INT64_SAFE:
                if typed is not None:
                    raise ValueError(f"labelled walk counts typed by edge labels exceed the int64 range at length "
                                     f"{t + 1}; use k <= {t}")
                if growth > 2.0**LIMB_BITS:
                    raise ValueError(f"a node has {growth:.0f} neighbours; labelled walk counts need fewer than 2**31")
                limbs = to_limbs(counts.data)
            if limbs is None:
                previous = counts
                counts = sp.csr_array(A @ counts)
                counts.sum_duplicates()  # canonical: sorted column indices, no repeats
                profile = counts if typed is None else typed_counts(typed, previous)
                values = profile.data[:, None]
            else:
                counts, limbs = _limb_product(A, counts, limbs)
                profile, values = counts, limbs[:, ::-1]
            by_length, ids = _numbered_rows(ids, profile, values)
            rounds.append(by_length)
            digits.append(0 if limbs is None else limbs.shape[1])
            blocks.append(count_matrix(owner, ids, n_graphs, int(ids.max(initial=-1)) + 1))
        return LabelledHistogramBatch(sp.csr_array(sp.hstack(blocks, format="csr")), labels, rounds, digits, self.k,
                                      edge_vocabulary, params=self.embedding_params())

    def embedding_params(self):
        return {"k": self.k, "node_label": self.node_label, "edge_label": self.edge_label}

    def count_map(self, embedded):
        return LabelledCountMap(embedded)

    def merge(self, left, right):
        labels, label = merged_labels(left.labels, right.labels)
        maps = [label[: len(left.labels)]], [label[len(left.labels) :]]
        sizes = [len(labels)]
        column_maps = typed_column_maps(left, right, labels, maps[0][0], maps[1][0])
        if column_maps is None:
            column_map = [lambda c, m=maps[side][0]: m[c] for side in (0, 1)]
        else:
            column_map = column_maps
        for t in range(self.k):
            # 0: both sides int64; else digits enough for either (int64 counts need at most 3)
            width = max(left.digits[t], right.digits[t], 3) if left.digits[t] or right.digits[t] else 0
            lengths = sorted(set(left.rounds[t]) | set(right.rounds[t]))
            new_maps = [np.empty(sum(len(r) for r in batch.rounds[t].values()), np.int64) for batch in (left, right)]
            base = 0
            for d in lengths:
                blocks = []
                for side, batch in enumerate((left, right)):
                    rows = batch.rounds[t].get(d, np.zeros((0, 1 + d * (1 + max(batch.digits[t], 1))), np.int64))
                    blocks.append(_moved_rows(rows, d, batch.digits[t], width, column_map[side], maps[side][-1]))
                distinct, inverse = unique_rows(np.concatenate(blocks))
                inverse += base
                for side, batch in enumerate((left, right)):
                    if d in batch.rounds[t]:
                        start = sum(len(r) for length, r in batch.rounds[t].items() if length < d)
                        offset = 0 if side == 0 else len(blocks[0])
                        new_maps[side][start : start + len(blocks[side])] = inverse[offset : offset + len(blocks[side])]
                base += len(distinct)
            maps[0].append(new_maps[0])
            maps[1].append(new_maps[1])
            sizes.append(base)
        return relabel_rounds(left.counts, maps[0], sizes), relabel_rounds(right.counts, maps[1], sizes)


class LabelledCountMap(CountMap):
    """The prefixes of a fitted :class:`LabelledHistogramBatch` as columns, each round's
    rows in a :class:`~graphinvariants.embeddings.counts.RowLookup` per number of
    entries: another batch's rows are written with the fitted numbers (previous
    prefix, node and edge labels, counts in the fitted form of digits) and looked up,
    round by round, in time set by that batch alone."""

    def __init__(self, fitted):
        self.n_columns = int(fitted.counts.shape[1])
        self.labels = fitted.labels
        self.edge_vocabulary = getattr(fitted, "edge_vocabulary", None)
        self.digits = list(fitted.digits)
        self.rounds, self.shifts = [], [0]
        shift = len(fitted.labels)
        for by_length in fitted.rounds:
            tables, first = {}, 0
            for d in sorted(by_length):
                tables[d] = (RowLookup(by_length[d]), first)
                first += len(by_length[d])
            self.rounds.append(tables)
            self.shifts.append(shift)
            shift += first

    def columns(self, embedded):
        typed = [self.edge_vocabulary is not None, getattr(embedded, "edge_vocabulary", None) is not None]
        if any(typed) and not all(typed):
            raise ValueError("one collection's labelled histograms are typed by edge labels and the other's are not")
        if len(embedded.rounds) != len(self.rounds):
            raise ValueError(f"histograms of {len(embedded.rounds)} lengths looked up among {len(self.rounds)}")
        labels = label_places(self.labels, embedded.labels)
        edges = label_places(self.edge_vocabulary, embedded.edge_vocabulary, "edge") if all(typed) else None
        n_own, n_fitted = len(embedded.labels), len(self.labels)
        maps = [labels]
        for t, tables in enumerate(self.rounds):
            previous, width, own = maps[-1], self.digits[t], embedded.digits[t]
            found = np.full(sum(len(r) for r in embedded.rounds[t].values()), -1, dtype=np.int64)
            start = 0
            for d in sorted(embedded.rounds[t]):
                rows = embedded.rounds[t][d]
                n = len(rows)
                if d in tables:
                    entries = rows[:, 1:].reshape(n, d, 1 + max(own, 1))
                    columns = entries[:, :, 0]
                    if edges is None:
                        moved = labels[columns]
                        known = np.all(moved >= 0, axis=1)
                    else:
                        edge, label = edges[columns // n_own], labels[columns % n_own]
                        moved = edge * n_fitted + label
                        known = np.all((edge >= 0) & (label >= 0), axis=1)
                    # the counts, least significant digit first (or int64), in the fitted form
                    values = entries[:, :, 1].reshape(n * d) if own == 0 else entries[:, :, :0:-1].reshape(n * d, own)
                    digits, fits = digits_as(values, width)
                    digits = digits.reshape(n, d, max(width, 1))
                    written = np.concatenate((moved[:, :, None], digits), axis=2).reshape(n, d * (1 + max(width, 1)))
                    first = previous[rows[:, 0]]
                    known &= (first >= 0) & np.all(fits.reshape(n, d), axis=1)
                    table, offset = tables[d]
                    place = table.find(np.column_stack((first, written)), known)
                    found[start : start + n] = np.where(place >= 0, place + offset, -1)
                start += n
            maps.append(found)
        return np.concatenate([np.where(m >= 0, m + s, -1) for m, s in zip(maps, self.shifts)]).astype(np.int64)


def _limb_product(A, counts, limbs):
    """``A @ C`` for ``C`` with the sparsity of ``counts`` and base-2**31 digits
    ``limbs`` (one row per stored entry): the product's pattern and its digits.

    Each digit matrix is multiplied with every stored digit raised by one, so that all
    its products have exactly the pattern of ``A @ pattern(C)``; that pattern's own
    product is then subtracted (entries stay below ``2**62`` for row sums up to
    ``2**31``), and the digits are carried.
    """
    pattern = sp.csr_array((np.ones(counts.nnz, np.int64), counts.indices, counts.indptr), shape=counts.shape)
    base = sp.csr_array(A @ pattern)
    base.sum_duplicates()
    base.sort_indices()
    sums = np.empty((base.nnz, limbs.shape[1]), dtype=np.int64)
    for j in range(limbs.shape[1]):
        raised = sp.csr_array((limbs[:, j] + 1, counts.indices, counts.indptr), shape=counts.shape)
        product = sp.csr_array(A @ raised)
        product.sum_duplicates()
        product.sort_indices()
        if not (np.array_equal(product.indptr, base.indptr) and np.array_equal(product.indices, base.indices)):
            raise RuntimeError("the digit products of the labelled walk counts lost their common pattern")
        sums[:, j] = product.data - base.data
    result = sp.csr_array((np.ones(base.nnz, np.int64), base.indices, base.indptr), shape=base.shape)
    return result, carry_limbs(sums)


def _numbered_rows(first, counts, values):
    """Number the rows ``(first[i], j_1, values[e_1], j_2, values[e_2], ...)`` over the
    stored entries ``e_1, e_2, ...`` of row ``i`` of ``counts`` (sorted columns).

    Rows with the same number ``d`` of entries are numbered together (one
    :func:`unique_rows` per ``d``, no padding), groups in increasing ``d``. Returns the
    distinct rows of each group (``d -> array``) and each row's number.
    """
    per_row = np.diff(counts.indptr)
    width = values.shape[1]
    number = np.empty(counts.shape[0], dtype=np.int64)
    by_length, base = {}, 0
    for d in np.unique(per_row).tolist():
        nodes = np.flatnonzero(per_row == d)
        entries = counts.indptr[nodes][:, None] + np.arange(d)  # (nodes, d) positions
        rows = np.empty((len(nodes), d, 1 + width), dtype=np.int64)
        rows[:, :, 0] = counts.indices[entries]
        rows[:, :, 1:] = values[entries]
        rows = np.concatenate((first[nodes][:, None], rows.reshape(len(nodes), -1)), axis=1)
        distinct, inverse = unique_rows(rows)
        number[nodes] = inverse + base
        by_length[d] = distinct
        base += len(distinct)
    return by_length, number


def _moved_rows(rows, d, digits, width, column_map, previous_map):
    """A batch's rows of one group in merged numbering: previous labels through their
    map, columns through ``column_map`` (a function, order-preserving), counts written
    with ``width`` digits (0: plain int64)."""
    n = len(rows)
    previous = previous_map[rows[:, 0]]
    entries = rows[:, 1:].reshape(n, d, 1 + max(digits, 1))
    columns = column_map(entries[:, :, 0])  # the map is increasing: columns stay sorted
    values = entries[:, :, 1:]
    if width:
        if digits:  # most significant first: pad on the left
            values = pad_limbs(values[:, :, ::-1], width)[:, :, ::-1]
        else:
            values = to_limbs(values[:, :, 0], width)[:, :, ::-1]
    moved = np.concatenate((columns[:, :, None], values), axis=2).reshape(n, d * (1 + values.shape[2]))
    return np.concatenate((previous[:, None], moved), axis=1)


def edge_typed_adjacencies(batch, edge_label):
    """``(edge_vocabulary, [A_e, ...])``: the sorted distinct edge labels of ``batch`` and
    one int64 adjacency per label (``(None, None)`` for ``edge_label=None``)."""
    if edge_label is None:
        return None, None
    if batch.edge_labels is None:
        raise ValueError(f"edge_label={edge_label!r} was asked for, but the graphs carry no edge labels")
    vocabulary, ids = np.unique(batch.edge_labels, return_inverse=True)
    ids = ids.reshape(-1)
    A = batch.matrix
    adjacencies = []
    for e in range(len(vocabulary)):
        keep = (ids == e).astype(np.int64)
        # copies of the index arrays: eliminate_zeros works in place
        A_e = sp.csr_array((A.data.astype(np.int64) * keep, A.indices.copy(), A.indptr.copy()), shape=A.shape)
        A_e.eliminate_zeros()
        adjacencies.append(A_e)
    return vocabulary, adjacencies


def typed_counts(adjacencies, previous):
    """``[A_e C for each e]`` side by side: column ``e * L + j`` holds ``(A_e C)[:, j]``
    (``L`` the columns of ``C``), sorted indices, no stored zeros. A batch without edges
    has no edge labels, hence no columns: every row is empty."""
    if not adjacencies:
        return sp.csr_array((previous.shape[0], 0), dtype=np.int64)
    typed = sp.csr_array(sp.hstack([A_e @ previous for A_e in adjacencies], format="csr"))
    typed.sum_duplicates()
    typed.eliminate_zeros()
    typed.sort_indices()
    return typed


def typed_column_maps(left, right, labels, left_labels, right_labels):
    """For typed batches, one function per side taking its columns ``e * L + j`` to the
    merged ``e' * L' + j'`` (order-preserving, so sorted rows stay sorted); None if
    neither batch is typed."""
    typed = [getattr(batch, "edge_vocabulary", None) is not None for batch in (left, right)]
    if not any(typed):
        return None
    if not all(typed):
        raise ValueError("one collection's labelled histograms are typed by edge labels and the other's are not")
    _, place = merged_labels(left.edge_vocabulary, right.edge_vocabulary, "edge")
    edges = place[: len(left.edge_vocabulary)], place[len(left.edge_vocabulary) :]
    width = len(labels)

    def mapper(edge_map, label_map, n_labels):
        return lambda columns: edge_map[columns // n_labels] * width + label_map[columns % n_labels]

    return mapper(edges[0], left_labels, len(left.labels)), mapper(edges[1], right_labels, len(right.labels))
